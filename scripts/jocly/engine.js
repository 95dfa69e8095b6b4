#!/usr/bin/env node
// Jocly's Alquerque AI speaking the alq engine protocol (docs/protocol.md) on
// standard input and output, so that `alq match` can play it:
//
//   alq match --a "engine:node scripts/jocly/engine.js --level expert" --b hce --movetime 100
//
// Usage: node engine.js [--level beginner|easy|medium|hard|expert|fast] [--rules brainking|classic]
// See README.md in this folder for what is patched and why.
'use strict';

const USAGE = 'usage: node engine.js [--level beginner|easy|medium|hard|expert|fast] [--rules brainking|classic]';

// Parse the command line before loading Jocly, so that bad arguments are
// refused at once.
function parseArgs(argv) {
  const opts = { level: 'expert', rules: 'brainking' };
  const levels = ['beginner', 'easy', 'medium', 'hard', 'expert', 'fast'];
  const rules = ['brainking', 'classic'];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const eq = arg.indexOf('=');
    const name = eq > 0 ? arg.slice(0, eq) : arg;
    const takeValue = () => {
      if (eq > 0) return arg.slice(eq + 1);
      if (i + 1 >= argv.length) fail(`${name} needs a value`);
      return argv[++i];
    };
    if (name === '--level') {
      const v = takeValue().toLowerCase();
      if (!levels.includes(v)) fail(`unknown level "${v}" (levels: ${levels.join(', ')})`);
      opts.level = v;
    } else if (name === '--rules') {
      const v = takeValue().toLowerCase();
      if (!rules.includes(v)) fail(`unknown rules "${v}" (rules: ${rules.join(', ')})`);
      opts.rules = v;
    } else if (name === '-h' || name === '--help') {
      process.stdout.write(`${USAGE}\n`);
      process.exit(0);
    } else {
      fail(`unknown argument "${arg}"`);
    }
  }
  return opts;
}

function fail(message) {
  process.stderr.write(`engine.js: ${message}\n${USAGE}\n`);
  process.exit(2);
}

const args = parseArgs(process.argv.slice(2));

// Jocly may log; keep standard output for the protocol alone.
for (const k of ['log', 'info', 'warn', 'debug']) console[k] = (...a) => console.error(...a);

const J = require('./jocly-alq.js');

// ---- Time -------------------------------------------------------------------
//
// Jocly's UCT search (jocly.uct.js) runs in chunks of about 100 ms and checks
// its level's limits (maxDuration seconds, maxLoops, maxNodes) between
// chunks only. To keep to a move time to within one search step, Date.now
// is made to leap ahead once the search's deadline has passed, further at
// each call: the running chunk then ends after its current step, and the
// search returns its best move as if its time were up (even when it read
// its own start time after the deadline). `stop` uses the same switch.
const realNow = Date.now.bind(Date);
let hardDeadline = Infinity;
let leaps = 0;
Date.now = () => {
  const now = realNow();
  if (now < hardDeadline) return now;
  leaps += 1;
  return now + leaps * 1e9;
};

const EXCHANGE_MS = 20; // reading the answer, as our engine allows

// Our engine's share of a clock: a thirtieth (or 1/movestogo) of what is
// left plus three quarters of the increment, at most 40 % of what is left,
// less the exchange time.
function clockBudget(left, inc, movestogo) {
  const divisor = movestogo ? Math.max(1, Math.min(30, movestogo)) : 30;
  const share = Math.min(left / divisor + 0.75 * inc, 0.4 * left);
  return Math.max(1, Math.floor(share - EXCHANGE_MS));
}

// ---- State --------------------------------------------------------------------

const state = {
  rules: args.rules,
  level: args.level,
  start: J.START,
  moves: [],
  game: null, // the Jocly game of the current position, made when needed
};
let match = null; // the Jocly match whose machineSearch we call
let searching = null; // {infinite} while a search runs
let quitting = false;
const queue = [];

function send(line) {
  process.stdout.write(`${line}\n`);
}

function levelConfig(name) {
  const levels = match.game.config.model.levels;
  const found = levels.find((l) => l.label.toLowerCase() === name);
  if (!found) throw new Error(`Jocly has no level ${name}`);
  return Object.assign({}, found);
}

// ---- Commands -------------------------------------------------------------------

function cmdUci() {
  send(`id name Jocly ${J.GAME} (jocly ${require('jocly/package.json').version}, level ${state.level})`);
  send('id author Michel Gutierrez (Jocly); adapter by the Alquerque Lab authors');
  send(`option name Level type combo default ${state.level} ${J.LEVELS.map((l) => `var ${l}`).join(' ')}`);
  send(`option name Rules type combo default ${state.rules} ${J.RULES.map((r) => `var ${r}`).join(' ')}`);
  send('uciok');
}

function cmdSetoption(words) {
  const text = words.slice(1).join(' ');
  const m = /^name\s+(\S+)\s+value\s+(\S+)\s*$/i.exec(text);
  if (!m) throw new Error(`setoption: expected 'setoption name N value V'`);
  const name = m[1].toLowerCase();
  const value = m[2].toLowerCase();
  if (name === 'rules') {
    if (!J.RULES.includes(value)) throw new Error(`setoption: unknown rules "${m[2]}" (${J.RULES.join(', ')})`);
    state.rules = value;
    state.game = null;
  } else if (name === 'level') {
    if (!J.LEVELS.includes(value)) throw new Error(`setoption: unknown level "${m[2]}" (${J.LEVELS.join(', ')})`);
    state.level = value;
  } else {
    throw new Error(`setoption: unknown option "${m[1]}" (options: Level, Rules)`);
  }
}

function cmdPosition(words) {
  let i = 1;
  let start;
  if (words[i] === 'startpos') {
    start = J.START;
    i++;
  } else if (words[i] === 'fen') {
    const end = words.indexOf('moves', i + 1);
    const fenWords = words.slice(i + 1, end < 0 ? words.length : end);
    if (fenWords.length === 0) throw new Error('position fen: missing position text');
    start = fenWords.join(' ');
    i = end < 0 ? words.length : end;
  } else {
    throw new Error(`position: expected 'startpos' or 'fen TEXT'`);
  }
  let moves = [];
  if (i < words.length) {
    if (words[i] !== 'moves') throw new Error(`position: unexpected "${words[i]}"`);
    moves = words.slice(i + 1);
  }
  // Build it now, so that errors are reported and the old position kept.
  const game = J.newGame(state.rules, start, moves);
  state.start = start;
  state.moves = moves;
  state.game = game;
}

function currentGame() {
  if (!state.game) state.game = J.newGame(state.rules, state.start, state.moves);
  return state.game;
}

function parseGo(words) {
  const go = {};
  const numeric = ['depth', 'nodes', 'movetime', 'wtime', 'btime', 'winc', 'binc', 'movestogo'];
  for (let i = 1; i < words.length; i++) {
    const w = words[i];
    if (w === 'infinite') {
      go.infinite = true;
    } else if (numeric.includes(w)) {
      const v = words[i + 1];
      if (v === undefined) throw new Error(`go ${w}: missing value`);
      if (!/^-?\d+$/.test(v)) throw new Error(`go ${w}: "${v}" is not a whole number`);
      go[w] = Math.max(0, Number(v));
      i++;
    } else {
      throw new Error(`go: unknown word "${w}"`);
    }
  }
  return go;
}

function cmdGo(words) {
  const go = parseGo(words);
  const game = currentGame();
  const legal = J.joclyMoves(game);
  if (legal.length === 0) {
    send('bestmove none');
    return;
  }
  const level = levelConfig(state.level);
  const white = game.mWho === 1;
  let budget = null; // milliseconds
  if (go.movetime !== undefined) budget = go.movetime - EXCHANGE_MS;
  const left = white ? go.wtime : go.btime;
  if (left !== undefined) {
    const clock = clockBudget(left, (white ? go.winc : go.binc) || 0, go.movestogo);
    budget = budget === null ? clock : Math.min(budget, clock);
  }
  if (budget !== null) budget = Math.max(1, Math.floor(budget));
  if (go.depth !== undefined) send('info string depth is not a Jocly limit; ignored');
  if (go.infinite) {
    level.maxDuration = 1e9; // until stop
    level.maxNodes = 0;
    level.maxLoops = 0;
  } else if (budget !== null) {
    // The time replaces the level's duration; its node and loop caps stay,
    // as Jocly plays the level.
    level.maxDuration = budget / 1000;
  }
  if (go.nodes !== undefined && !go.infinite) level.maxNodes = Math.max(1, go.nodes);
  const t0 = realNow();
  hardDeadline = budget !== null && !go.infinite ? t0 + budget : Infinity;
  searching = { infinite: !!go.infinite };
  match.game = game;
  match
    .machineSearch({ level })
    .then((result) => finishSearch(game, result.move, t0, legal))
    .catch((e) => {
      send(`info string error: Jocly's search failed: ${e && e.message ? e.message : e}`);
      finishSearch(game, legal[0], t0, legal);
    });
}

function finishSearch(game, move, t0, legal) {
  hardDeadline = Infinity;
  leaps = 0;
  let text;
  try {
    text = J.moveText(move);
    J.findMove(game, text); // must be one of the legal moves
  } catch (e) {
    send(`info string error: Jocly answered an unknown move (${e.message}); playing its first legal move`);
    text = J.moveText(legal[0]);
  }
  send(`info time ${realNow() - t0} pv ${text}`);
  send(`bestmove ${text}`);
  state.game = null; // the search may have left traces in the game object
  searching = null;
  if (quitting) process.exit(0);
  pump();
}

// Ends the running search soon (within one search step once it runs). The
// switch is set after the pending promise callbacks, so that a search asked
// for and stopped in the same breath has read its start time first.
function stopSearch() {
  const target = searching;
  if (!target) return;
  setImmediate(() => {
    if (searching === target) hardDeadline = 0;
  });
}

// ---- The command loop -------------------------------------------------------------
//
// As `alq engine` does: commands take effect in order; while a search runs,
// `stop`, `isready` and `quit` are answered at once, other commands wait
// until it ends, and every command after a waiting one waits behind it.

function handle(line) {
  const words = line.trim().split(/\s+/).filter((w) => w.length > 0);
  if (words.length === 0) return;
  try {
    switch (words[0]) {
      case 'uci':
        cmdUci();
        break;
      case 'isready':
        send('readyok');
        break;
      case 'ucinewgame':
        state.start = J.START;
        state.moves = [];
        state.game = null;
        break;
      case 'setoption':
        cmdSetoption(words);
        break;
      case 'position':
        cmdPosition(words);
        break;
      case 'go':
        cmdGo(words);
        break;
      case 'stop':
        stopSearch();
        break;
      case 'quit':
        if (searching) {
          quitting = true;
          stopSearch();
        } else {
          process.exit(0);
        }
        break;
      default:
        send('info string unknown command');
    }
  } catch (e) {
    send(`info string error: ${e.message}`);
  }
}

const EOF = '\u0000eof';

function pump() {
  while (queue.length > 0) {
    const line = queue[0];
    const word = line.trim().split(/\s+/)[0];
    if (searching) {
      if (line === EOF) {
        if (searching.infinite) stopSearch();
        return;
      }
      if (word === 'stop' || word === 'isready' || word === 'quit') {
        queue.shift();
        handle(line);
        continue;
      }
      return; // waits until the search ends
    }
    queue.shift();
    if (line === EOF) process.exit(0);
    handle(line);
  }
}

async function main() {
  process.stdout.on('error', () => process.exit(0)); // the reader has gone
  match = await J.load();
  let pending = '';
  process.stdin.setEncoding('utf8');
  process.stdin.on('data', (chunk) => {
    pending += chunk;
    let nl;
    while ((nl = pending.indexOf('\n')) >= 0) {
      queue.push(pending.slice(0, nl).replace(/\r$/, ''));
      pending = pending.slice(nl + 1);
    }
    pump();
  });
  process.stdin.on('end', () => {
    if (pending.length > 0) queue.push(pending);
    queue.push(EOF);
    pump();
  });
}

main().catch((e) => {
  process.stderr.write(`engine.js: ${e.message}\n`);
  process.exit(1);
});
