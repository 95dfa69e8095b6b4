#!/usr/bin/env node
// Differential test: Jocly's legal-move lists (patched as engine.js patches
// them, through the same code in jocly-alq.js) against `alq moves`, on
// positions from played games, under both rule sets; then the adapter's
// protocol end to end.
//
//   node scripts/jocly/difftest.js ALQ_BINARY [--positions N] [--seed S] [--jobs J] [--show K] [--unpatched]
//
// --jobs: shells running `alq moves` at once; --show: differences printed
// per rule set; --unpatched: Jocly's generator as shipped (BrainKing options
// only), to see what the run-time patch changes (differences expected).
//
// N positions per rule set (default 3000, distinct positions): half from
// games the alq binary plays (random against random, greedy against random,
// `alq match --save-games`), half from games in which Jocly's own generator
// chooses the moves (seeded random playouts, half of them taking the
// largest capture), so that both sides' generators pick the moves. For each
// position, alq gets the game's moves (`alq moves --rules R --after MOVES`)
// and Jocly replays them from the start; the move lists must be equal,
// move for move in our canonical notation. A move one side plays that the
// other finds illegal is a difference too. Exit status 1 on any difference.
'use strict';

const { execFile, spawn } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');

const USAGE = 'usage: node difftest.js ALQ_BINARY [--positions N] [--seed S] [--jobs J] [--show K] [--unpatched]';

function fail(message) {
  process.stderr.write(`difftest.js: ${message}\n${USAGE}\n`);
  process.exit(2);
}

function parseArgs(argv) {
  const opts = { alq: null, positions: 3000, seed: 1, jobs: Math.max(2, Math.min(8, os.cpus().length * 2)), show: 5 };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const num = (name) => {
      const v = argv[++i];
      if (v === undefined || !/^\d+$/.test(v)) fail(`${name} needs a whole number`);
      return Number(v);
    };
    if (a === '--positions') opts.positions = num(a);
    else if (a === '--seed') opts.seed = num(a);
    else if (a === '--jobs') opts.jobs = Math.max(1, num(a));
    else if (a === '--show') opts.show = num(a);
    else if (a === '--unpatched') opts.unpatched = true;
    else if (a === '-h' || a === '--help') {
      process.stdout.write(`${USAGE}\n`);
      process.exit(0);
    } else if (a.startsWith('-')) fail(`unknown option ${a}`);
    else if (opts.alq === null) opts.alq = a;
    else fail(`unexpected argument ${a}`);
  }
  if (opts.alq === null) fail('the alq binary is required');
  if (!fs.existsSync(opts.alq)) fail(`${opts.alq}: no such file`);
  opts.alq = path.resolve(opts.alq);
  return opts;
}

const opts = parseArgs(process.argv.slice(2));
const J = require('./jocly-alq.js');

function run(file, args) {
  return new Promise((resolve) => {
    execFile(file, args, { maxBuffer: 64 << 20 }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr });
    });
  });
}

// A small seeded generator (mulberry32), for Jocly's playouts.
function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// Games played by alq: {moves, ended} where `ended` says the last position
// has no move (so it is tested too).
async function alqGames(rules, a, b, games, seed) {
  const file = path.join(os.tmpdir(), `alq-jocly-difftest-${process.pid}-${rules}-${a}-${b}.csv`);
  const res = await run(opts.alq, [
    'match', '--a', a, '--b', b, '--games', String(games), '--seed', String(seed), '--rules', rules,
    '--threads', '1', '--quiet', '--save-games', file,
  ]);
  if (res.code !== 0) throw new Error(`alq match failed (${res.code}): ${res.stderr.trim()}`);
  const lines = fs.readFileSync(file, 'utf8').trim().split('\n');
  fs.unlinkSync(file);
  const header = lines[0].split(',');
  const col = (name) => {
    const i = header.indexOf(name);
    if (i < 0) throw new Error(`games file: no ${name} column`);
    return i;
  };
  const [cMoves, cTerm, cStart] = [col('moves'), col('termination'), col('start')];
  return lines.slice(1).map((line) => {
    const f = line.split(',');
    if (f[cStart]) throw new Error('games file: a game from another start');
    return { moves: f[cMoves].trim().split(/\s+/).filter(Boolean), ended: f[cTerm] === 'no_moves', source: `alq ${a}-${b}` };
  });
}

// Games whose moves Jocly's generator picks: seeded random playouts, half
// of them taking a move with the most captures when there is a choice.
function joclyGames(rules, count, seed, maxPlies) {
  const next = rng(seed);
  const games = [];
  for (let g = 0; g < count; g++) {
    const greedy = g % 2 === 1;
    const game = J.newGame(rules, J.START, []);
    const moves = [];
    const seen = new Map();
    let ended = false;
    for (let ply = 0; ply < maxPlies; ply++) {
      let legal = J.joclyMoves(game);
      if (legal.length === 0) {
        ended = true;
        break;
      }
      const key = J.positionText(game);
      seen.set(key, (seen.get(key) || 0) + 1);
      if (seen.get(key) >= 3) break; // a draw by repetition
      if (greedy) {
        const most = Math.max(...legal.map((m) => m.pos.length));
        legal = legal.filter((m) => m.pos.length === most);
      }
      const move = legal[Math.floor(next() * legal.length)];
      moves.push(J.moveText(move));
      J.playMove(game, move);
    }
    games.push({ moves, ended, source: greedy ? 'jocly greedy playout' : 'jocly random playout' });
  }
  return games;
}

// Distinct positions (by Jocly's text of them) from the games, up to `want`:
// every position a move was played from, and the last one when it has none.
function collect(rules, games, want, into, seenKeys, problems) {
  for (const g of games) {
    if (into.length >= want) return;
    const game = J.newGame(rules, J.START, []);
    const last = g.ended ? g.moves.length : g.moves.length - 1;
    for (let ply = 0; ply <= last && into.length < want; ply++) {
      const key = J.positionText(game);
      if (!seenKeys.has(key)) {
        seenKeys.add(key);
        into.push({ rules, moves: g.moves.slice(0, ply), text: key, source: g.source });
      }
      if (ply === g.moves.length) break;
      try {
        J.playText(game, g.moves[ply]);
      } catch (e) {
        if (!problems.some((q) => q.text === key && q.refused === g.moves[ply])) {
          problems.push({ rules, text: key, source: g.source, moves: g.moves.slice(0, ply), refused: g.moves[ply], note: `Jocly refuses ${g.moves[ply]}: ${e.message}` });
        }
        break;
      }
    }
  }
}

// Positions set up by hand, tested under both rule sets besides the played
// ones.
const FIXED = [
  // a1 can jump round b1, c2, b3 and a2 back to a1: BrainKing stops one jump
  // short (and may go the other way round), classic may close the loop.
  '....B/...../.B.../B.B../WB... w',
  // White e5 stands on its last row: first jump sideways only (over d5),
  // then on backward over c4 (BrainKing); classic has no last row.
  '...BW/..B../...../...../B.... w',
  // Both sides on their last rows: frozen under BrainKing.
  'WWWWW/...../...../...../BBBBB w',
  'WWWWW/...../...../...../BBBBB b',
  // No pieces at all.
  '...../...../...../...../..... w',
];

async function positionsFor(rules, want, seed) {
  const positions = FIXED.map((text) => ({ rules, moves: [], position: text, text, source: 'fixed' }));
  const seenKeys = new Set();
  const problems = [];
  const fromAlq = Math.ceil(want / 2);
  // alq's games: random-random and greedy-random, more until the quota is met.
  for (let round = 0; positions.length < fromAlq && round < 20; round++) {
    const s = seed * 1000 + round;
    const rr = await alqGames(rules, 'random', 'random', 20, s);
    const gr = await alqGames(rules, 'greedy', 'random', 20, s);
    const games = rr.flatMap((g, i) => [g, gr[i]]).filter(Boolean);
    collect(rules, games, fromAlq, positions, seenKeys, problems);
  }
  for (let round = 0; positions.length < want && round < 50; round++) {
    collect(rules, joclyGames(rules, 20, seed * 7919 + round, 300), want, positions, seenKeys, problems);
  }
  return { positions, problems };
}

function diff(a, b) {
  const sb = new Set(b);
  return a.filter((x) => !sb.has(x));
}

// `alq moves` for many queries ({rules, moves}) at once: a few shells, each
// running its share of the calls one after another (spawning every call from
// Node costs far more than the call). Returns {code, stdout, stderr} each.
async function alqMovesBatch(queries, jobs) {
  const results = new Array(queries.length);
  const chunks = Array.from({ length: Math.max(1, Math.min(jobs, queries.length)) }, () => []);
  queries.forEach((q, i) => chunks[i % chunks.length].push(i));
  const marker = '@@alq-jocly-difftest';
  await Promise.all(
    chunks.map(async (idx) => {
      const script = idx
        .map((i) => {
          const q = queries[i];
          for (const m of q.moves) if (!/^[a-e1-5x-]+$/.test(m)) throw new Error(`unexpected move text ${m}`);
          if (q.position && !/^[WB./]+ [wb]$/.test(q.position)) throw new Error(`unexpected position text ${q.position}`);
          const from = q.position ? ` --position '${q.position}'` : '';
          const after = q.moves.length ? ` --after '${q.moves.join(' ')}'` : '';
          return `"$ALQ" moves --rules ${q.rules}${from}${after} 2>&1; echo "${marker} $?"`;
        })
        .join('\n');
      const out = await new Promise((resolve, reject) => {
        const sh = execFile('sh', ['-s'], { env: { ...process.env, ALQ: opts.alq }, maxBuffer: 256 << 20 }, (err, stdout) =>
          err ? reject(err) : resolve(stdout),
        );
        sh.stdin.end(`${script}\n`);
      });
      const parts = out.split(new RegExp(`${marker} (\\d+)\\n`));
      // parts: text0, code0, text1, code1, ..., ''
      idx.forEach((i, k) => {
        const text = parts[2 * k];
        const code = Number(parts[2 * k + 1]);
        results[i] = { code, stdout: code === 0 ? text : '', stderr: code === 0 ? '' : text };
      });
    }),
  );
  return results;
}

function moveList(stdout) {
  return stdout.split('\n').map((l) => l.trim()).filter(Boolean).sort();
}

async function compare(positions, jobs) {
  const mismatches = [];
  let moveCount = 0;
  const answers = await alqMovesBatch(positions, jobs);
  positions.forEach((p, i) => {
    const res = answers[i];
    const game = J.newGame(p.rules, p.position || J.START, p.moves); // as `position startpos moves ...`
    const jocly = J.legalMoves(game);
    const viaFen = J.legalMoves(J.newGame(p.rules, J.positionText(game), [])); // as `position fen ...`
    if (res.code !== 0) {
      mismatches.push({ ...p, note: `alq moves failed: ${res.stderr.trim()}`, jocly, alq: [] });
      return;
    }
    const alq = moveList(res.stdout);
    moveCount += alq.length;
    const onlyAlq = diff(alq, jocly);
    const onlyJocly = diff(jocly, alq);
    if (onlyAlq.length || onlyJocly.length || alq.length !== jocly.length) {
      mismatches.push({ ...p, onlyAlq, onlyJocly, jocly, alq });
    } else if (viaFen.join(' ') !== jocly.join(' ')) {
      mismatches.push({ ...p, note: `Jocly's list from the position text differs: ${viaFen.join(' ')}`, jocly, alq });
    }
  });
  return { mismatches, moveCount };
}

// ---- The adapter, end to end --------------------------------------------------------

function engineSession(args, lines, timeoutMs) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(__dirname, 'engine.js'), ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    const timer = setTimeout(() => {
      child.kill();
      reject(new Error(`engine.js ${args.join(' ')}: no exit within ${timeoutMs} ms; output so far:\n${out}`));
    }, timeoutMs);
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, out: out.split('\n').filter(Boolean), err });
    });
    child.stdin.end(lines.map((l) => `${l}\n`).join(''));
  });
}

async function protocolTest(samples) {
  const failures = [];
  const check = (ok, what) => {
    if (!ok) failures.push(what);
  };
  // Refusals of bad arguments.
  for (const bad of [['--level', 'grandmaster'], ['--rules', 'chess'], ['--frobnicate']]) {
    const r = await engineSession(bad, ['quit'], 20000);
    check(r.code !== 0 && /engine\.js:/.test(r.err), `engine.js ${bad.join(' ')} should exit non-zero with a message (got ${r.code})`);
  }
  for (const rules of J.RULES) {
    const mine = samples.filter((p) => p.rules === rules);
    const lines = ['uci', 'isready', 'ucinewgame'];
    if (rules !== 'brainking') lines.push(`setoption name Rules value ${rules}`);
    for (const p of mine) lines.push(p.moves.length ? `position startpos moves ${p.moves.join(' ')}` : 'position startpos', 'go movetime 50');
    // Bad input gets an error line and changes nothing; no move: bestmove none.
    lines.push('position startpos moves d3-c3 zz', 'go depth', 'frobnicate', 'position fen ...../...../...../...../WW... b', 'go movetime 50', 'isready', 'quit');
    const t0 = Date.now();
    const r = await engineSession(['--level', 'fast'], lines, 60000);
    const ms = Date.now() - t0;
    check(r.code === 0, `${rules}: engine exit status ${r.code} (${r.err.trim()})`);
    check(r.out.includes('uciok') && r.out.includes('readyok'), `${rules}: no uciok/readyok`);
    check(r.out.some((l) => l.startsWith('option name Rules type combo')), `${rules}: no Rules option`);
    const best = r.out.filter((l) => l.startsWith('bestmove ')).map((l) => l.split(/\s+/)[1]);
    check(best.length === mine.length + 1, `${rules}: ${best.length} bestmove lines for ${mine.length + 1} go commands`);
    check(best[best.length - 1] === 'none', `${rules}: expected 'bestmove none' in a position without moves, got ${best[best.length - 1]}`);
    const errors = r.out.filter((l) => l.startsWith('info string error:'));
    check(errors.length === 2, `${rules}: expected 2 'info string error' lines, got ${errors.length}: ${errors.join(' | ')}`);
    check(r.out.includes('info string unknown command'), `${rules}: no 'info string unknown command'`);
    const answers = await alqMovesBatch(mine, opts.jobs);
    mine.forEach((p, i) => {
      const mv = best[i];
      const legal = moveList(answers[i].stdout);
      if (legal.length === 0) {
        check(mv === 'none', `${rules}: expected 'bestmove none' after '${p.moves.join(' ')}', got ${mv}`);
        return;
      }
      // Any path of a legal move is legal: compare by the move's identity
      // (origin, end, captured points), computed from the text alone.
      const key = (text) => {
        try {
          const m = J.parseMoveText(text);
          return `${m.from}>${m.to}:${m.captured.join(',')}`;
        } catch (e) {
          return null;
        }
      };
      const ok = mv !== undefined && key(mv) !== null && legal.some((l) => key(l) === key(mv));
      check(ok, `${rules}: bestmove ${mv} is not among alq's moves (${legal.join(' ')}) after '${p.moves.join(' ')}'`);
    });
    console.log(`protocol ${rules}: ${mine.length} searches at movetime 50, ${best.length} bestmove lines, ${ms} ms`);
  }
  return failures;
}

function show(m) {
  const from = m.position ? 'set up by hand' : `after: ${m.moves.join(' ') || '(start)'}`;
  const lines = [`  [${m.rules}] ${m.text}  (${m.source}; ${from})`];
  if (m.note) lines.push(`    ${m.note}`);
  if (m.onlyAlq) lines.push(`    only alq:   ${m.onlyAlq.join(' ') || '-'}`, `    only Jocly: ${m.onlyJocly.join(' ') || '-'}`);
  return lines.join('\n');
}

async function main() {
  const t0 = Date.now();
  await J.load();
  if (opts.unpatched) {
    J.setPatchEnabled(false); // Jocly's generator as shipped: expect differences
    console.log('unpatched: Jocly\'s capture generator as shipped (BrainKing options only)');
  }
  let bad = 0;
  const samples = [];
  for (const rules of J.RULES) {
    const t1 = Date.now();
    const { positions, problems } = await positionsFor(rules, opts.positions, opts.seed);
    const { mismatches, moveCount } = await compare(positions, opts.jobs);
    const all = [...problems, ...mismatches];
    const bySource = {};
    for (const p of positions) bySource[p.source] = (bySource[p.source] || 0) + 1;
    console.log(
      `${rules}: ${positions.length} positions (${Object.entries(bySource).map(([k, v]) => `${v} ${k}`).join(', ')}), ` +
        `${moveCount} legal moves, ${all.length} mismatches, ${((Date.now() - t1) / 1000).toFixed(1)} s`,
    );
    const badBySource = {};
    for (const m of all) badBySource[m.source] = (badBySource[m.source] || 0) + 1;
    if (all.length) console.log(`  mismatches by source: ${Object.entries(badBySource).map(([k, v]) => `${v} of ${bySource[k] || 0} ${k}`).join(', ')}`);
    all.slice(0, opts.show).forEach((m) => console.log(show(m)));
    bad += all.length;
    // Every 150th position (and the start) for the protocol test.
    samples.push(...positions.filter((p) => !p.position).filter((_, i) => i % 150 === 0).slice(0, 12));
  }
  // The protocol test needs positions both sides agree on.
  const failures = opts.unpatched ? [] : await protocolTest(samples);
  failures.forEach((f) => console.log(`  protocol: ${f}`));
  console.log(`total: ${bad} move-list mismatches, ${failures.length} protocol failures, ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  process.exit(bad || failures.length ? 1 : 0);
}

main().catch((e) => {
  console.error(`difftest.js: ${e.stack || e.message}`);
  process.exit(2);
});
