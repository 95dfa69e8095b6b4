// Jocly's Alquerque ("alquerque-roman", npm package `jocly`, AGPL) set up to
// play this project's rules, in our notation. Shared by engine.js (the
// protocol adapter) and difftest.js (the move-list test), so both use the
// same code path.
//
// Nothing of Jocly is copied or edited on disk: the installed package is
// loaded as it is, its game options are set through the game's
// `mOptions.variant`, and for BrainKing's rules two conditions of its capture
// generator are changed at run time (see patchCaptureGenerator below).
'use strict';

const path = require('path');

let Jocly;
try {
  Jocly = require('jocly');
} catch (e) {
  const here = path.relative(process.cwd(), __dirname) || '.';
  throw new Error(`cannot load the npm package jocly (${e.message}); install it with: npm --prefix ${here} ci`);
}

const GAME = 'alquerque-roman';
const SIZE = 5;
const WHITE = 1; // Jocly's PLAYER_A: rows 0-1 (our ranks 1-2) plus d3, e3; it moves first.
const BLACK = -1; // Jocly's PLAYER_B.
const START = 'BBBBB/BBBBB/BB.WW/WWWWW/WWWWW w';

// Jocly's variant options for each of our rule sets. `alqBrainKingChains`
// is ours: it is copied into the game's `g` like every variant option, and
// tells the patched generator to apply BrainKing's two chain conditions.
const VARIANTS = {
  brainking: {
    mustMoveForward: true, // simple moves and first jumps: forward, diagonally forward, sideways
    mustMoveForwardStrict: false,
    lastRowFreeze: true, // no simple move from the last row
    lastRowCrown: false, // no kings
    compulsoryCatch: true,
    canCaptureBackward: false, // the direction test on jumps (first jump only, after the patch)
    captureLongestLine: false, // no majority rule
    longRangeKing: false,
    canStepBack: true, // Jocly's "no return to the point just left" would forbid legal moves
    captureInstantRemove: true, // a jumped piece is removed at once
    noMove: 'lose',
    alqBrainKingChains: true,
  },
  classic: {
    mustMoveForward: false,
    mustMoveForwardStrict: false,
    lastRowFreeze: false,
    lastRowCrown: false,
    compulsoryCatch: true,
    canCaptureBackward: true,
    captureLongestLine: false,
    longRangeKing: false,
    canStepBack: true,
    captureInstantRemove: true,
    noMove: 'lose',
    alqBrainKingChains: false,
  },
};
const RULES = Object.keys(VARIANTS);

// Jocly's levels for this game, by our lower-case name.
const LEVELS = ['beginner', 'easy', 'medium', 'hard', 'expert', 'fast'];

// ---- The run-time patch -------------------------------------------------
//
// Jocly's draughts-family capture generator (`Board._GenerateMoves`, shared
// by its checkers games) differs from BrainKing's rules in two conditions:
//
// 1. With `canCaptureBackward: false` it applies the direction test (the
//    jumped piece must not lie behind the jumping one) to EVERY jump of a
//    chain. BrainKing restricts only the first jump; later jumps go along
//    any line. Patch: the test is skipped once the path has more than one
//    point (`e` is the path so far, `e[0]` the starting point).
// 2. A jump may land on the chain's starting point (`b==e[0]` counts it as
//    empty, since the moving piece still stands there during generation).
//    BrainKing never allows that. Patch: that clause is dropped, so the
//    starting point is occupied for every jump.
//
// Both are changed by rewriting the text of the loaded function and
// compiling it again (it uses no closure variables, only its argument, `this`
// and the global JocGame). Each fragment must occur exactly once in the
// installed version, else we refuse to run rather than play other rules.
// The classic rules need neither change (classic captures may go in every
// direction and may end on their starting point), so the original runs for
// them; the choice is made per game by `g.alqBrainKingChains`.
const PATCHES = [
  {
    what: 'direction test on the first jump only',
    from: 't.g.canCaptureBackward||1==C',
    to: 't.g.canCaptureBackward||e.length>1||1==C',
  },
  {
    what: 'no landing on the starting point',
    from: '-1==o.board[b]||b==e[0]||',
    to: '-1==o.board[b]||',
  },
];

// Only for difftest.js --unpatched: Jocly's generator as shipped, with the
// BrainKing options alone, to show what the patch changes.
let patchEnabled = true;
function setPatchEnabled(on) {
  patchEnabled = !!on;
}

function patchCaptureGenerator(boardProto) {
  if (boardProto.__alqPatched) return;
  const original = boardProto._GenerateMoves;
  if (typeof original !== 'function') throw new Error('jocly: Board._GenerateMoves not found (unsupported jocly version)');
  let src = original.toString();
  for (const p of PATCHES) {
    const n = src.split(p.from).length - 1;
    if (n !== 1) {
      throw new Error(`jocly: cannot patch "${p.what}": expected one "${p.from}" in Board._GenerateMoves, found ${n} (unsupported jocly version; package.json pins the tested one)`);
    }
    src = src.replace(p.from, () => p.to);
  }
  // eslint-disable-next-line no-new-func
  const patched = new Function(`return (${src});`)();
  boardProto._GenerateMoves = function (game) {
    return (game.g.alqBrainKingChains && patchEnabled ? patched : original).call(this, game);
  };
  boardProto.__alqPatched = true;
}

// ---- Points and moves ------------------------------------------------------
//
// Jocly's point index is row * 5 + column with row 0 = our rank 1 and
// column 0 = file a: the same as ours (a1 = 0, e1 = 4, a2 = 5, e5 = 24).

function pointName(p) {
  return 'abcde'[p % SIZE] + String(Math.floor(p / SIZE) + 1);
}

function pointIndex(name) {
  const m = /^([a-e])([1-5])$/.exec(name);
  if (!m) return -1;
  return (Number(m[2]) - 1) * SIZE + 'abcde'.indexOf(m[1]);
}

// A Jocly move ({pos: [from, ...landings], capt: [null, ...captured]}) in
// our notation, along Jocly's path.
function moveText(move) {
  const captures = move.capt.some((c) => c !== null && c !== undefined);
  return move.pos.map(pointName).join(captures ? 'x' : '-');
}

function capturedOf(move) {
  return move.capt.filter((c) => c !== null && c !== undefined).slice().sort((a, b) => a - b);
}

// The identity of a move (RULES.md): origin, end, captured set.
function moveKey(move) {
  return `${move.pos[0]}>${move.pos[move.pos.length - 1]}:${capturedOf(move).join(',')}`;
}

function lexLess(a, b) {
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i] < b[i];
  return a.length < b.length;
}

// Legal moves in our canonical notation: one per identity, the path whose
// landing-point indices are lexicographically smallest; sorted as
// `alq moves` sorts its lines.
function canonicalMoves(moves) {
  const best = new Map();
  for (const m of moves) {
    const k = moveKey(m);
    const cur = best.get(k);
    if (!cur || lexLess(m.pos.slice(1), cur.pos.slice(1))) best.set(k, m);
  }
  return [...best.values()].map(moveText).sort();
}

// Our move text -> {from, to, captured (sorted)}, or throws with a reason.
function parseMoveText(text) {
  const simple = /^([a-e][1-5])-([a-e][1-5])$/.exec(text);
  if (simple) {
    return { from: pointIndex(simple[1]), to: pointIndex(simple[2]), captured: [] };
  }
  if (!/^[a-e][1-5](x[a-e][1-5])+$/.test(text)) {
    throw new Error(`move "${text}": expected a move such as 'd3-c3' or 'b2xb4xd4'`);
  }
  const pts = text.split('x').map(pointIndex);
  const captured = [];
  for (let i = 1; i < pts.length; i++) {
    const [r0, c0, r1, c1] = [Math.floor(pts[i - 1] / SIZE), pts[i - 1] % SIZE, Math.floor(pts[i] / SIZE), pts[i] % SIZE];
    const dr = r1 - r0;
    const dc = c1 - c0;
    if (Math.abs(dr) % 2 || Math.abs(dc) % 2 || (dr === 0 && dc === 0) || Math.max(Math.abs(dr), Math.abs(dc)) !== 2) {
      throw new Error(`move "${text}": ${pointName(pts[i - 1])} to ${pointName(pts[i])} is not a jump`);
    }
    captured.push((r0 + dr / 2) * SIZE + c0 + dc / 2);
  }
  return { from: pts[0], to: pts[pts.length - 1], captured: captured.sort((a, b) => a - b) };
}

// ---- Positions -----------------------------------------------------------

// Our position text -> Jocly's initial setup {pieces, turn}, or throws.
function parsePosition(text) {
  const parts = text.trim().split(/\s+/);
  if (parts.length !== 2) throw new Error(`position "${text}": expected five ranks and the side to move, e.g. '${START}'`);
  const ranks = parts[0].split('/');
  if (ranks.length !== SIZE || ranks.some((r) => !/^[WB.]{5}$/.test(r))) {
    throw new Error(`position "${text}": expected five ranks of five 'W', 'B' or '.', e.g. '${START}'`);
  }
  if (parts[1] !== 'w' && parts[1] !== 'b') throw new Error(`position "${text}": the side to move must be 'w' or 'b'`);
  const pieces = [];
  ranks.forEach((rank, i) => {
    const row = SIZE - 1 - i; // the first rank written is rank 5
    [...rank].forEach((ch, col) => {
      if (ch !== '.') pieces.push({ s: ch === 'W' ? WHITE : BLACK, p: row * SIZE + col, t: 0 });
    });
  });
  // Jocly's board keeps one side's pieces before the other's; order as its own setup does.
  pieces.sort((a, b) => b.s - a.s);
  return { pieces, turn: parts[1] === 'w' ? WHITE : BLACK };
}

// Our text of a Jocly game's current position.
function positionText(game) {
  const cells = new Array(SIZE * SIZE).fill('.');
  for (const piece of game.mBoard.pieces) {
    if (piece && piece.p !== null && piece.p !== undefined) cells[piece.p] = piece.s === WHITE ? 'W' : 'B';
  }
  const ranks = [];
  for (let row = SIZE - 1; row >= 0; row--) ranks.push(cells.slice(row * SIZE, row * SIZE + SIZE).join(''));
  return `${ranks.join('/')} ${game.mWho === WHITE ? 'w' : 'b'}`;
}

// ---- Games -----------------------------------------------------------------

let template = null; // a Jocly match on the standard game, made once

async function load() {
  if (!template) {
    template = await Jocly.createMatch(GAME);
    patchCaptureGenerator(template.game.mBoardClass.prototype);
  }
  return template;
}

function requireLoaded() {
  if (!template) throw new Error('jocly-alq: call load() first');
  return template;
}

// A fresh Jocly game for `rules`, at `start` (our text, default the start
// position) after `moves` (our notation). Throws on a bad position or an
// illegal move, naming it.
function newGame(rules, start, moves) {
  const t = requireLoaded();
  if (!VARIANTS[rules]) throw new Error(`unknown rules "${rules}" (${RULES.join(', ')})`);
  const proto = t.game;
  const options = Object.assign({}, proto.mOptions, {
    variant: Object.assign({}, proto.mOptions.variant, VARIANTS[rules]),
  });
  delete options.levelOptions;
  const initial = start && start !== START ? parsePosition(start) : null;
  const game = new proto.constructor();
  game.Init({ game: options, view: proto.mViewOptions, initial });
  if (initial) game.BackTo(0, []); // sets up the board and the side to move from mInitial
  (moves || []).forEach((text, i) => {
    try {
      playText(game, text);
    } catch (e) {
      throw new Error(`move ${i + 1} (${text}): ${e.message}`);
    }
  });
  return game;
}

// Jocly's legal moves in the game's position (its own generator, patched).
function joclyMoves(game) {
  game.mBoard.mMoves = [];
  game.mBoard.mWho = game.mWho;
  game.mBoard.GenerateMoves(game);
  return game.mBoard.mMoves.slice();
}

function legalMoves(game) {
  return canonicalMoves(joclyMoves(game));
}

// Finds the Jocly move our text names (any path of the same move).
function findMove(game, text) {
  const want = parseMoveText(text);
  const key = `${want.from}>${want.to}:${want.captured.join(',')}`;
  const found = joclyMoves(game).find((m) => moveKey(m) === key);
  if (!found) throw new Error(`move "${text}" is not legal in ${positionText(game)}`);
  return found;
}

function playMove(game, move) {
  game.ApplyMove(move);
  game.InvertWho();
}

function playText(game, text) {
  playMove(game, findMove(game, text));
}

module.exports = {
  Jocly,
  GAME,
  START,
  RULES,
  LEVELS,
  VARIANTS,
  PATCHES,
  setPatchEnabled,
  load,
  newGame,
  joclyMoves,
  legalMoves,
  canonicalMoves,
  moveText,
  moveKey,
  parseMoveText,
  findMove,
  playMove,
  playText,
  parsePosition,
  positionText,
  pointName,
  pointIndex,
};
