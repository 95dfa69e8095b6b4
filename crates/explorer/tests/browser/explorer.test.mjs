// Browser test of the opening explorer page served by `alq serve`.
//
//   EXPLORER_URL=http://127.0.0.1:8080/ EXPLORER_GAMES=games.csv EXPLORER_SHOTS=shots node explorer.test.mjs
//
// Optional: EXPLORER_PLIES (length of the clicked line, default 6, at least 4;
// each step clicks the most played move), EXPLORER_LINE (moves to click first,
// e.g. "c2-c3 c4xc2"),
// EXPLORER_CHROMIUM (default /usr/bin/chromium), EXPLORER_COUNTING
// (`either` (default), `prefix` or `position`: how the test's own counts must
// match the page, see countsFor below), EXPLORER_EVAL=0 to skip the analysis check.
//
// The page is driven with real clicks on the board; at every step the table it
// shows must equal the server's /api/explorer answer AND the counts this test
// computes itself from the games CSV. Exits non-zero with a list of failures.

import { chromium } from 'playwright-core';
import { readFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';

const BASE = process.env.EXPLORER_URL;
const GAMES = process.env.EXPLORER_GAMES;
const SHOTS = process.env.EXPLORER_SHOTS || 'shots';
const FORCED = (process.env.EXPLORER_LINE || '').split(/[\s+]+/).filter(Boolean);
const PLIES = Math.max(4, FORCED.length, Number(process.env.EXPLORER_PLIES || 6));
const CHROMIUM = process.env.EXPLORER_CHROMIUM || '/usr/bin/chromium';
const COUNTING = process.env.EXPLORER_COUNTING || 'either';
const CHECK_EVAL = process.env.EXPLORER_EVAL !== '0';
const START_TEXT = 'BBBBB/BBBBB/BB.WW/WWWWW/WWWWW w';
const FILES = 'abcde';

if (!BASE || !GAMES) {
  console.error('usage: EXPLORER_URL=http://host:port/ EXPLORER_GAMES=games.csv [EXPLORER_SHOTS=dir] node explorer.test.mjs');
  process.exit(2);
}

// ---------------------------------------------------------------- reporting
const failures = [];
let checks = 0;
function check(cond, msg) {
  checks++;
  if (!cond) {
    failures.push(msg);
    console.log('  FAIL ' + msg);
  }
  return !!cond;
}
function log(msg) { console.log(msg); }
class Fatal extends Error {}
function must(cond, msg) { if (!check(cond, msg)) throw new Fatal(msg); }

// ---------------------------------------------------------------- the games file
function parseCsv(text) {
  const rows = [];
  let row = [], field = '', i = 0, q = false;
  while (i < text.length) {
    const c = text[i];
    if (q) {
      if (c === '"') {
        if (text[i + 1] === '"') { field += '"'; i += 2; continue; }
        q = false; i++; continue;
      }
      field += c; i++; continue;
    }
    if (c === '"') { q = true; i++; continue; }
    if (c === ',') { row.push(field); field = ''; i++; continue; }
    if (c === '\r') { i++; continue; }
    if (c === '\n') { row.push(field); rows.push(row); row = []; field = ''; i++; continue; }
    field += c; i++;
  }
  if (field !== '' || row.length) { row.push(field); rows.push(row); }
  return rows;
}

function loadGames(file) {
  const rows = parseCsv(readFileSync(file, 'utf8')).filter((r) => r.length > 1 || r[0] !== '');
  const head = rows.shift();
  const col = (name) => {
    const k = head.indexOf(name);
    if (k < 0) throw new Error(`${file}: no column "${name}" (columns: ${head.join(', ')})`);
    return k;
  };
  const cStart = col('start'), cMoves = col('moves'), cResult = col('result');
  const cPlies = head.indexOf('plies');
  const games = [];
  let skipped = 0;
  for (const r of rows) {
    if ((r[cStart] || '').trim() !== '') { skipped++; continue; }
    const moves = (r[cMoves] || '').trim().split(/\s+/).filter(Boolean);
    const result = r[cResult].trim();
    if (!['1-0', '0-1', '1/2-1/2'].includes(result)) throw new Error(`${file}: unknown result "${result}"`);
    const plies = cPlies >= 0 && r[cPlies] !== '' ? Number(r[cPlies]) : moves.length;
    games.push({ moves, result, plies });
  }
  return { games, skipped };
}

// Position texts along a game, by applying the move texts (no rules needed:
// a capture removes the point between each two landing points).
function parseBoard(text) {
  const [ranks, side] = text.split(' ');
  const cells = {};
  ranks.split('/').forEach((row, i) => { for (let f = 0; f < 5; f++) cells[FILES[f] + (5 - i)] = row[f]; });
  return { cells, side };
}
function boardText(b) {
  const rows = [];
  for (let r = 5; r >= 1; r--) { let s = ''; for (let f = 0; f < 5; f++) s += b.cells[FILES[f] + r]; rows.push(s); }
  return rows.join('/') + ' ' + b.side;
}
function applyMoveText(b, mv) {
  const me = b.side === 'w' ? 'W' : 'B';
  const pts = mv.split(/[-x]/);
  if (b.cells[pts[0]] !== me) throw new Error(`move ${mv}: no ${me} piece on ${pts[0]}`);
  b.cells[pts[0]] = '.';
  if (mv.includes('x')) {
    for (let i = 1; i < pts.length; i++) {
      const f = (FILES.indexOf(pts[i - 1][0]) + FILES.indexOf(pts[i][0])) / 2;
      const r = (Number(pts[i - 1][1]) + Number(pts[i][1])) / 2;
      b.cells[FILES[f] + r] = '.';
    }
  }
  b.cells[pts[pts.length - 1]] = me;
  b.side = b.side === 'w' ? 'b' : 'w';
}

const RES = { '1-0': 'white', '1/2-1/2': 'draws', '0-1': 'black' };
function emptyCount() { return { white: 0, draws: 0, black: 0, games: 0, moves: new Map() }; }
function add(c, g, next) {
  c[RES[g.result]]++; c.games++;
  addMove(c, g, next);
}
function addMove(c, g, next) {
  if (next) {
    const m = c.moves.get(next) || { white: 0, draws: 0, black: 0, games: 0, plies: 0 };
    m[RES[g.result]]++; m.games++; m.plies += g.plies;
    c.moves.set(next, m);
  }
}

// Counts by position (games through the position, each game once; each
// move a game played from it, at any of its visits, once: the explorer's
// edges) and by line prefix.
function indexByPosition(games) {
  const idx = new Map();
  for (const g of games) {
    const b = parseBoard(START_TEXT);
    const seen = new Set();
    const played = new Set();
    for (let i = 0; i <= g.moves.length; i++) {
      const key = boardText(b);
      if (!idx.has(key)) idx.set(key, emptyCount());
      if (!seen.has(key)) {
        seen.add(key);
        add(idx.get(key), g, null);
      }
      if (i < g.moves.length) {
        const edge = key + ' ' + g.moves[i];
        if (!played.has(edge)) {
          played.add(edge);
          addMove(idx.get(key), g, g.moves[i]);
        }
        applyMoveText(b, g.moves[i]);
      }
    }
  }
  return idx;
}
function countByPrefix(games, line) {
  const c = emptyCount();
  for (const g of games) {
    if (g.moves.length < line.length) continue;
    if (line.every((m, i) => g.moves[i] === m)) add(c, g, g.moves[line.length]);
  }
  return c;
}
function sameCounts(a, b) {
  if (a.games !== b.games || a.white !== b.white || a.draws !== b.draws || a.black !== b.black) return false;
  if (a.moves.size !== b.moves.size) return false;
  for (const [m, x] of a.moves) {
    const y = b.moves.get(m);
    if (!y || x.games !== y.games || x.white !== y.white || x.draws !== y.draws || x.black !== y.black) return false;
  }
  return true;
}

// ---------------------------------------------------------------- API
async function api(query) {
  const url = new URL('/api/explorer?' + query, BASE);
  const r = await fetch(url);
  const body = await r.text();
  let js;
  try { js = JSON.parse(body); } catch { throw new Fatal(`GET ${url}: not JSON (${r.status}): ${body.slice(0, 200)}`); }
  if (!r.ok) throw new Fatal(`GET ${url}: ${r.status} ${js.error || body}`);
  return js;
}
const movesQuery = (line) => 'moves=' + line.join('+');

// ---------------------------------------------------------------- page reading
async function readPage(page) {
  return page.evaluate(() => {
    const cell = (tr, col) => tr.querySelector(`[data-col="${col}"]`);
    const num = (td) => {
      const n = td && td.querySelector('.n');
      return n ? Number(n.textContent.replace(/[^0-9]/g, '')) : null;
    };
    const pct = (td) => {
      const p = td && td.querySelector('.pct');
      return p ? p.textContent.trim() : null;
    };
    const row = (tr) => ({
      move: tr.getAttribute('data-move'),
      label: cell(tr, 'move') ? cell(tr, 'move').textContent.trim() : null,
      games: num(cell(tr, 'games')),
      gamesValue: cell(tr, 'games') ? Number(cell(tr, 'games').getAttribute('data-value')) : null,
      white: num(cell(tr, 'white')), draws: num(cell(tr, 'draws')), black: num(cell(tr, 'black')),
      whitePct: pct(cell(tr, 'white')), drawsPct: pct(cell(tr, 'draws')), blackPct: pct(cell(tr, 'black')),
      avg: cell(tr, 'avg') ? cell(tr, 'avg').getAttribute('data-value') : null,
      avgText: cell(tr, 'avg') ? cell(tr, 'avg').textContent.trim() : null,
      score: cell(tr, 'score') ? cell(tr, 'score').getAttribute('data-value') : null,
      scoreText: cell(tr, 'score') ? cell(tr, 'score').textContent.trim() : null,
      exact: cell(tr, 'exact') ? cell(tr, 'exact').getAttribute('data-value') : null,
      exactText: cell(tr, 'exact') ? cell(tr, 'exact').textContent.trim() : null,
      bar: !!(cell(tr, 'bar') && cell(tr, 'bar').querySelector('.bar')),
      barSegments: cell(tr, 'bar') ? [...cell(tr, 'bar').querySelectorAll('.bar span')].map((s) => s.className) : [],
    });
    const pieces = {};
    document.querySelectorAll('#board [data-point]').forEach((g) => { pieces[g.getAttribute('data-point')] = g.getAttribute('data-piece') || '.'; });
    const totals = document.querySelector('#totals');
    return {
      search: location.search,
      status: document.documentElement.getAttribute('data-status'),
      ply: document.documentElement.getAttribute('data-ply'),
      position: document.querySelector('#position-text').value,
      rows: [...document.querySelectorAll('#moves-table tbody tr[data-move]')].map(row),
      totals: totals ? row(totals) : null,
      pieces,
      points: document.querySelectorAll('#board [data-point]').length,
      moveList: [...document.querySelectorAll('#move-list button[data-ply]')].filter((b) => b.getAttribute('data-ply') !== '0').map((b) => b.textContent.trim()),
      currentPly: document.querySelector('#move-list button.current') ? document.querySelector('#move-list button.current').getAttribute('data-ply') : null,
      message: document.querySelector('#message').hidden ? null : document.querySelector('#message-text').textContent,
      tableHtml: document.querySelector('#moves-table').innerHTML,
    };
  });
}

async function waitReady(page, ply, what) {
  try {
    await page.waitForFunction((p) => document.documentElement.getAttribute('data-status') === 'ready' &&
      (p == null || document.documentElement.getAttribute('data-ply') === String(p)), ply, { timeout: 20000 });
  } catch {
    const st = await page.evaluate(() => [document.documentElement.getAttribute('data-status'), document.documentElement.getAttribute('data-ply'), location.href,
      document.querySelector('#message').hidden ? '' : document.querySelector('#message-text').textContent]);
    throw new Fatal(`${what}: the page did not show ply ${ply} (status ${st[0]}, ply ${st[1]}, url ${st[2]}${st[3] ? ', message: ' + st[3] : ''})`);
  }
}

function expectedSearch(line) { return line.length ? '?moves=' + line.join('+') : ''; }
function pctText(n, g) { return g > 0 ? Math.round(100 * n / g) + '%' : ''; }

// The page's table vs the API answer.
function compareWithApi(view, data, what) {
  check(view.position === data.position, `${what}: position text shown ${view.position}, API ${data.position}`);
  const b = parseBoard(data.position);
  const shown = Object.keys(b.cells).every((p) => view.pieces[p] === b.cells[p]);
  check(shown && view.points === 25, `${what}: the board's pieces do not match the API position ${data.position}`);
  const apiMoves = data.moves || [];
  check(view.rows.length === apiMoves.length,
    `${what}: ${view.rows.length} table rows (${view.rows.map((r) => r.move).join(' ')}), API ${apiMoves.length} (${apiMoves.map((m) => m.move).join(' ')})`);
  apiMoves.forEach((m, i) => {
    const r = view.rows[i];
    if (!r) return;
    const w = `${what}, row ${i + 1}`;
    check(r.move === m.move && r.label === m.move, `${w}: move ${r.move}/${r.label}, API ${m.move} (same order expected)`);
    for (const k of ['games', 'white', 'draws', 'black']) check(r[k] === m[k], `${w} ${m.move}: ${k} shown ${r[k]}, API ${m[k]}`);
    check(r.gamesValue === m.games, `${w} ${m.move}: data-value of games ${r.gamesValue}, API ${m.games}`);
    for (const k of ['white', 'draws', 'black']) check(r[k + 'Pct'] === pctText(m[k], m.games), `${w} ${m.move}: ${k} percentage "${r[k + 'Pct']}", expected "${pctText(m[k], m.games)}"`);
    check(r.bar, `${w} ${m.move}: no results bar`);
    const avgApi = m.average_plies == null ? '' : String(m.average_plies);
    check(r.avg === avgApi, `${w} ${m.move}: average length ${r.avg}, API ${avgApi}`);
    if (m.average_plies != null) check(r.avgText.startsWith(Number(m.average_plies).toFixed(1)), `${w} ${m.move}: average length text "${r.avgText}"`);
    check(r.score === (m.score ?? ''), `${w} ${m.move}: score ${r.score}, API ${m.score}`);
    check(r.exact === (m.exact ?? ''), `${w} ${m.move}: exact ${r.exact}, API ${m.exact}`);
    if (m.score != null) check(r.scoreText !== '' && r.scoreText !== '–', `${w} ${m.move}: score not displayed`);
    if (m.exact != null) check(r.exactText !== '' && r.exactText !== '–', `${w} ${m.move}: exact value not displayed`);
  });
  const t = view.totals;
  if (check(t, `${what}: no totals row`)) {
    for (const k of ['games', 'white', 'draws', 'black']) check(t[k] === data[k], `${what}, totals: ${k} shown ${t[k]}, API ${data[k]}`);
    for (const k of ['white', 'draws', 'black']) check(t[k + 'Pct'] === pctText(data[k], data.games), `${what}, totals: ${k} percentage "${t[k + 'Pct']}"`);
    if (typeof data.average_plies === 'number') check(t.avg === String(data.average_plies), `${what}, totals: average length ${t.avg}, API ${data.average_plies}`);
    check(t.score === (data.score ?? ''), `${what}, totals: score ${t.score}, API ${data.score}`);
    check(t.exact === (data.exact ?? ''), `${what}, totals: exact ${t.exact}, API ${data.exact}`);
  }
}

// The page's table vs this test's own counts from the CSV.
let transpositionNotes = 0;
function countsFor(index, games, line, position) {
  const prefix = countByPrefix(games, line);
  const byPos = position && index.get(position) || emptyCount();
  return { prefix, byPos, same: sameCounts(prefix, byPos) };
}
function tableCounts(view) {
  const c = { white: view.totals.white, draws: view.totals.draws, black: view.totals.black, games: view.totals.games, moves: new Map() };
  for (const r of view.rows) if (r.games > 0) c.moves.set(r.move, { white: r.white, draws: r.draws, black: r.black, games: r.games, avg: r.avg });
  return c;
}
function compareWithCsv(view, index, games, line, what) {
  if (!view.totals) return;
  const { prefix, byPos, same } = countsFor(index, games, line, view.position);
  const shown = tableCounts(view);
  let want;
  if (COUNTING === 'prefix') want = [['line prefix', prefix]];
  else if (COUNTING === 'position') want = [['position', byPos]];
  else want = same ? [['line prefix', prefix]] : [['line prefix', prefix], ['position', byPos]];
  if (!same) {
    transpositionNotes++;
    log(`  note: ${what}: the games reach this position by other move orders too (prefix: ${prefix.games} games, position: ${byPos.games} games)`);
  }
  const match = want.find(([, c]) => sameCounts(shown, c));
  if (!match) {
    const [name, c] = want[0];
    const fmt = (x) => `${x.games} games W${x.white} D${x.draws} B${x.black}; ` + [...x.moves].sort((a, b) => b[1].games - a[1].games).map(([m, y]) => `${m} ${y.games} (${y.white}/${y.draws}/${y.black})`).join(', ');
    check(false, `${what}: the table's counts differ from the games file (${want.map((w) => w[0]).join(' or ')} counting)\n` +
      `       table:      ${fmt(shown)}\n       games file: ${fmt(c)}${name !== 'line prefix' ? '' : ''}`);
    return;
  }
  const c = match[1];
  for (const [m, y] of c.moves) {
    const r = view.rows.find((x) => x.move === m);
    const avg = y.plies / y.games;
    if (r && r.avg !== '' && r.avg != null) check(Math.abs(Number(r.avg) - avg) <= 0.051, `${what} ${m}: average length ${r.avg}, games file ${avg.toFixed(2)}`);
    else check(false, `${what} ${m}: no average length shown (games file ${avg.toFixed(2)})`);
  }
  for (const r of view.rows) if (r.games === 0) check(!c.moves.has(r.move), `${what}: ${r.move} shown with 0 games but played in the games file`);
  return match[0];
}

// ---------------------------------------------------------------- clicking
async function clickPoint(page, p) {
  await page.locator(`#board [data-point="${p}"]`).click();
}
async function destinations(page) {
  return page.evaluate(() => Object.fromEntries([...document.querySelectorAll('#board [data-dest]')]
    .map((g) => [g.getAttribute('data-point'), g.getAttribute('data-dest')])));
}

// ---------------------------------------------------------------- main
async function main() {
  const { games, skipped } = loadGames(GAMES);
  must(games.length > 0, `${GAMES}: no game from the standard start`);
  log(`games file: ${games.length} games from the standard start${skipped ? ` (${skipped} from other starts ignored)` : ''}`);
  const index = indexByPosition(games);
  mkdirSync(SHOTS, { recursive: true });

  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true });
  const consoleErrors = [];
  try {
    const context = await browser.newContext({ viewport: { width: 1200, height: 800 } });
    const page = await context.newPage();
    page.setDefaultTimeout(10000);
    page.on('console', (m) => { if (m.type() === 'error') consoleErrors.push(`console.error: ${m.text()} (${m.location().url || ''})`); });
    page.on('pageerror', (e) => consoleErrors.push(`page error: ${e.message}`));
    let explorerRequests = 0;
    page.on('request', (r) => { if (new URL(r.url()).pathname === '/api/explorer') explorerRequests++; });

    // -- the start position
    log('start position');
    const resp = await page.goto(BASE);
    must(resp && resp.ok(), `GET ${BASE}: ${resp ? resp.status() : 'no answer'}`);
    must(/text\/html/.test(resp.headers()['content-type'] || ''), `GET ${BASE}: content type ${resp.headers()['content-type']}, expected text/html`);
    await waitReady(page, 0, 'start');
    let view = await readPage(page);
    let data = await api(movesQuery([]));
    check(data.position === START_TEXT, `API start position ${data.position}`);
    check(view.position === START_TEXT, `page shows ${view.position} at the start`);
    check(Object.values(view.pieces).filter((x) => x === 'W').length === 12 && Object.values(view.pieces).filter((x) => x === 'B').length === 12,
      'the start should show 12 White and 12 Black pieces');
    check(await page.locator('#board .coord').count() === 10, 'the board should carry 10 coordinate labels (a-e, 1-5)');
    check(await page.locator('#board .ln').count() === 16, 'the board should draw 16 line segments (5 ranks, 5 files, 2 long diagonals, 4 diamond sides)');
    check(view.search === '', `URL at the start: "${view.search}"`);
    compareWithApi(view, data, 'start');
    compareWithCsv(view, index, games, [], 'start');
    check(view.rows.length > 0, 'start: the table shows no move');
    await page.screenshot({ path: path.join(SHOTS, 'start-1200x800.png') });

    // -- click through a line on the board
    const line = [];
    let captureShot = false;
    for (let ply = 0; ply < PLIES; ply++) {
      data = await api(movesQuery(line));
      const legal = data.legal || [];
      must(legal.length > 0, `ply ${ply}: no legal move in ${data.position}`);
      const counts = countByPrefix(games, line).moves;
      // the most played move here (by the games file), else the first legal move
      let pick = [...legal].sort((a, b) => ((counts.get(b.move)?.games || 0) - (counts.get(a.move)?.games || 0)) || a.move.localeCompare(b.move))[0];
      if (ply < FORCED.length) {
        pick = legal.find((m) => m.move === FORCED[ply]);
        must(pick, `EXPLORER_LINE: ${FORCED[ply]} is not legal after ${line.join(' ') || 'the start'} (legal: ${legal.map((m) => m.move).join(' ')})`);
      }
      const what = `ply ${ply + 1} (${[...line, pick.move].join(' ')})`;

      // an illegal destination first (ply 2): nothing may change
      if (ply === 2) await illegalClicks(page, data, () => explorerRequests);

      await clickPoint(page, pick.from);
      const sel = await page.locator(`#board [data-point="${pick.from}"][data-selected]`).count();
      check(sel === 1, `${what}: ${pick.from} not shown as selected after a click`);
      const dests = await destinations(page);
      const want = {};
      for (const m of legal.filter((m) => m.from === pick.from)) {
        want[m.to] = (want[m.to] === 'capture' || m.captured.length) ? 'capture' : 'move';
      }
      check(JSON.stringify(Object.entries(dests).sort()) === JSON.stringify(Object.entries(want).sort()),
        `${what}: destinations highlighted ${JSON.stringify(dests)}, legal ${JSON.stringify(want)}`);
      if (pick.captured.length) {
        const paths = await page.locator(`#board polyline[data-path="${pick.move}"]`).count();
        check(paths === 1, `${what}: the jump path of ${pick.move} is not drawn`);
      }
      if (pick.captured.length && !captureShot) {
        captureShot = true;
        await page.locator(`#board [data-point="${pick.to}"]`).hover();
        await page.screenshot({ path: path.join(SHOTS, 'capture-1200x800.png') });
      }
      await clickPoint(page, pick.to);
      const twins = legal.filter((m) => m.from === pick.from && m.to === pick.to);
      if (twins.length > 1) {
        await page.locator(`#move-chooser button[data-move="${pick.move}"]`).click();
      }
      line.push(pick.move);
      await waitReady(page, line.length, what);
      view = await readPage(page);
      check(view.search === expectedSearch(line), `${what}: URL ${view.search}, expected ${expectedSearch(line)}`);
      data = await api(movesQuery(line));
      compareWithApi(view, data, what);
      const how = compareWithCsv(view, index, games, line, what);
      check(JSON.stringify(view.moveList) === JSON.stringify(line), `${what}: move list shows ${view.moveList.join(' ')}`);
      log(`${what}: ${data.games} games (W ${data.white} D ${data.draws} B ${data.black}), ${view.rows.length} moves in the table` +
        (how ? `, counts match the games file (${how})` : ''));
      if (ply === 1) await page.screenshot({ path: path.join(SHOTS, 'ply2-1200x800.png') });
    }

    // a capture's destinations and jump path, selected, for the screenshots
    const full = line.slice();
    const fullData = data;
    await selectForShot(page, fullData);
    await page.screenshot({ path: path.join(SHOTS, 'later-1200x800.png') });
    await page.keyboard.press('Escape');

    // -- back / forward: buttons, keys, the browser's history, the move list
    log('back / forward');
    const expectAt = async (n, what) => {
      await waitReady(page, n, what);
      const v = await readPage(page);
      check(v.search === expectedSearch(full.slice(0, n)), `${what}: URL ${v.search}, expected ${expectedSearch(full.slice(0, n))}`);
      compareWithApi(v, await api(movesQuery(full.slice(0, n))), what);
      compareWithCsv(v, index, games, full.slice(0, n), what);
      check(v.moveList.length === full.length, `${what}: the move list should still hold the whole line (${v.moveList.length} moves shown)`);
      return v;
    };
    await page.click('#back');
    await expectAt(full.length - 1, 'back button');
    await page.click('#back');
    await expectAt(full.length - 2, 'back button twice');
    await page.click('#forward');
    await expectAt(full.length - 1, 'forward button');
    await page.locator('body').click({ position: { x: 5, y: 5 } });
    await page.keyboard.press('ArrowLeft');
    await expectAt(full.length - 2, 'left arrow key');
    await page.keyboard.press('ArrowRight');
    await expectAt(full.length - 1, 'right arrow key');
    await page.goBack();
    await expectAt(full.length - 2, 'browser back (popstate)');
    await page.goForward();
    await expectAt(full.length - 1, 'browser forward (popstate)');
    await page.locator('#move-list button[data-ply="1"]').click();
    await expectAt(1, 'move list entry 1');
    await page.locator(`#move-list button[data-ply="${full.length}"]`).click();
    await expectAt(full.length, 'move list, last entry');
    check(await page.locator('#forward').isDisabled(), 'forward should be disabled at the end of the line');

    // -- reload: the URL alone gives the position back
    log('reload');
    await page.reload();
    await waitReady(page, full.length, 'reload');
    view = await readPage(page);
    check(view.position === fullData.position, `reload: shows ${view.position}, expected ${fullData.position}`);
    check(JSON.stringify(view.moveList) === JSON.stringify(full), `reload: move list ${view.moveList.join(' ')}`);

    // -- playing a move from the table
    log('table click');
    const row0 = view.rows[0];
    if (check(row0, 'no move in the table at the end of the line')) {
      await page.locator(`#moves-table tr[data-move="${row0.move}"] [data-col="move"] button`).click();
      await waitReady(page, full.length + 1, 'table click');
      const v = await readPage(page);
      const l2 = [...full, row0.move];
      check(v.search === expectedSearch(l2), `table click: URL ${v.search}, expected ${expectedSearch(l2)}`);
      compareWithApi(v, await api(movesQuery(l2)), 'table click');
      compareWithCsv(v, index, games, l2, 'table click');
      await page.click('#back');
      await waitReady(page, full.length, 'back after the table click');
    }

    // -- position text: copy, paste
    log('position text');
    await page.click('#copy-position');
    await page.waitForFunction(() => document.querySelector('#copy-status').textContent.trim() !== '', null, { timeout: 5000 })
      .catch(() => check(false, 'copy button: no feedback'));
    const pos = fullData.position;
    await page.fill('#position-input', 'not a position');
    await page.click('#position-go');
    await page.waitForSelector('#message:not([hidden])', { timeout: 5000 }).catch(() => check(false, 'pasting garbage shows no message'));
    view = await readPage(page);
    check(view.search === expectedSearch(full), `pasting garbage changed the URL to ${view.search}`);
    await page.fill('#position-input', pos);
    await page.click('#position-go');
    await waitReady(page, 0, 'paste a position');
    view = await readPage(page);
    check(view.search === '?position=' + encodeURIComponent(pos), `paste: URL ${view.search}`);
    const pdata = await api('position=' + encodeURIComponent(pos));
    compareWithApi(view, pdata, 'pasted position');
    compareWithCsv(view, index, games, full, 'pasted position');
    check(view.message === null, `paste: message still shown: ${view.message}`);
    // a move from the pasted position, by clicking
    const lm = pdata.legal[0];
    await clickPoint(page, lm.from);
    await clickPoint(page, lm.to);
    const tw = pdata.legal.filter((m) => m.from === lm.from && m.to === lm.to);
    if (tw.length > 1) await page.locator(`#move-chooser button[data-move="${lm.move}"]`).click();
    await waitReady(page, 1, 'a move from the pasted position');
    view = await readPage(page);
    check(view.search === '?position=' + encodeURIComponent(pos) + '&moves=' + lm.move, `move from a pasted position: URL ${view.search}`);
    const after = await api(movesQuery([...full, lm.move]));
    compareWithApi(view, after, 'move from a pasted position');
    await page.goBack();
    await waitReady(page, 0, 'back to the pasted position');
    await page.goBack();
    await waitReady(page, full.length, 'back to the line');

    // -- two captures with the same origin and end: the chooser
    await chooserCheck(page);
    await page.goBack();
    await waitReady(page, full.length, 'back from the chooser position');

    // -- engine analysis
    if (CHECK_EVAL) await evalCheck(page);

    // -- phone width
    log('phone width');
    await page.setViewportSize({ width: 375, height: 800 });
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.waitForTimeout(200);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth);
    check(overflow <= 375, `phone width: the page is ${overflow} px wide (horizontal scrolling)`);
    const boardBox = await page.locator('#board').boundingBox();
    const tableBox = await page.locator('#moves-table').boundingBox();
    check(boardBox && tableBox && tableBox.y >= boardBox.y + boardBox.height - 1, 'phone width: the table should be below the board');
    await page.screenshot({ path: path.join(SHOTS, 'phone-375x800.png') });
    await page.screenshot({ path: path.join(SHOTS, 'phone-375-full.png'), fullPage: true });
    await page.setViewportSize({ width: 1200, height: 800 });
    await page.waitForTimeout(100);
    const b2 = await page.locator('#board').boundingBox();
    const t2 = await page.locator('#moves-table').boundingBox();
    check(b2 && t2 && t2.x >= b2.x + b2.width - 1, '1200 px: the table should be beside the board');

    await context.close();
  } finally {
    await browser.close();
  }
  for (const e of consoleErrors) check(false, e);
  if (transpositionNotes) log(`(${transpositionNotes} step(s) with transpositions, see the notes)`);
}

async function illegalClicks(page, data, requests) {
  log('illegal clicks');
  const before = await readPage(page);
  const n0 = requests();
  const b = parseBoard(data.position);
  const me = b.side === 'w' ? 'W' : 'B';
  const legal = data.legal || [];
  const from = legal[0].from;
  const dests = new Set(legal.filter((m) => m.from === from).map((m) => m.to));
  const empty = Object.keys(b.cells).filter((p) => b.cells[p] === '.' && !dests.has(p));
  const opp = Object.keys(b.cells).filter((p) => b.cells[p] !== '.' && b.cells[p] !== me);
  const stuck = Object.keys(b.cells).filter((p) => b.cells[p] === me && !legal.some((m) => m.from === p));
  const tries = [];
  if (empty.length) tries.push([null, empty[0], 'an empty point with nothing selected']);
  if (opp.length) tries.push([null, opp[0], 'an opponent piece']);
  if (empty.length) tries.push([from, empty[0], `an illegal destination of ${from}`]);
  if (opp.length) tries.push([from, opp[0], `an opponent piece with ${from} selected`]);
  if (stuck.length) tries.push([null, stuck[0], 'an own piece without a legal move']);
  for (const [sel, p, what] of tries) {
    if (sel) await clickPoint(page, sel);
    await clickPoint(page, p);
    await page.waitForTimeout(250);
    const v = await readPage(page);
    check(v.search === before.search, `illegal click on ${p} (${what}) changed the URL to ${v.search}`);
    check(v.tableHtml === before.tableHtml, `illegal click on ${p} (${what}) changed the table`);
    check(v.position === before.position && v.status === 'ready', `illegal click on ${p} (${what}) changed the position`);
    check(requests() === n0, `illegal click on ${p} (${what}) made the page ask the server`);
    await page.keyboard.press('Escape');
  }
  log(`  ${tries.length} illegal clicks: nothing changed`);
}

// A position where two captures share origin and end (a1xa3xc1xe3 takes a2 b2
// d2, a1xc3xc1xe3 takes b2 c2 d2): the page must offer a chooser.
const TWIN_POSITION = 'W..../....W/...../BBBB./W.... w';
async function chooserCheck(page) {
  log('capture chooser');
  await page.fill('#position-input', TWIN_POSITION);
  await page.click('#position-go');
  await waitReady(page, 0, 'the chooser position');
  const data = await api('position=' + encodeURIComponent(TWIN_POSITION));
  const view = await readPage(page);
  compareWithApi(view, data, 'the chooser position');
  const twins = data.legal.filter((m) => m.from === 'a1' && m.to === 'e3');
  if (!check(twins.length === 2, `the chooser position: the API lists ${twins.length} moves a1→e3, expected 2`)) return;
  await clickPoint(page, 'a1');
  check(await page.locator('#board [data-point="e3"][data-dest="capture"]').count() === 1, 'chooser: e3 not highlighted as a capture');
  check(await page.locator('#board polyline[data-path]').count() === data.legal.filter((m) => m.from === 'a1' && m.captured.length).length,
    'chooser: not every jump path of a1 is drawn');
  await clickPoint(page, 'e3');
  const chooser = page.locator('#move-chooser');
  check(await chooser.isVisible(), 'chooser: no chooser shown for two captures a1→e3');
  const buttons = await chooser.locator('button[data-move]').evaluateAll((bs) => bs.map((b) => b.getAttribute('data-move')).sort());
  check(JSON.stringify(buttons) === JSON.stringify(twins.map((m) => m.move).sort()), `chooser offers ${buttons.join(', ')}`);
  await chooser.locator(`button[data-move="${twins[1].move}"]`).hover();
  await page.screenshot({ path: path.join(SHOTS, 'chooser-1200x800.png') });
  // a click elsewhere closes it and changes nothing
  await clickPoint(page, 'c5');
  check(!(await chooser.isVisible()), 'chooser: still open after a click elsewhere');
  const v2 = await readPage(page);
  check(v2.search === view.search && v2.tableHtml === view.tableHtml, 'chooser: cancelling changed the page');
  if (await page.locator('#board [data-point="a1"][data-selected]').count() === 0) await clickPoint(page, 'a1');
  await clickPoint(page, 'e3');
  await chooser.locator(`button[data-move="${twins[1].move}"]`).click();
  await waitReady(page, 1, 'chooser: a choice');
  const v3 = await readPage(page);
  check(v3.search === '?position=' + encodeURIComponent(TWIN_POSITION) + '&moves=' + twins[1].move, `chooser: URL ${v3.search}`);
  const b = parseBoard(TWIN_POSITION);
  applyMoveText(b, twins[1].move);
  check(v3.position === boardText(b), `chooser: position after ${twins[1].move} shown as ${v3.position}, expected ${boardText(b)}`);
  compareWithApi(v3, await api('position=' + encodeURIComponent(boardText(b))), 'after the chooser');
  await page.goBack();
  await waitReady(page, 0, 'chooser: back');
}

async function selectForShot(page, data) {
  const legal = data.legal || [];
  const m = legal.find((x) => x.captured.length > 1) || legal.find((x) => x.captured.length) || legal[0];
  if (!m) return;
  await clickPoint(page, m.from);
  await page.locator(`#board [data-point="${m.to}"]`).hover();
}

async function evalCheck(page) {
  log('engine analysis');
  const depthNow = () => page.evaluate(() => Number(document.querySelector('#eval-depth').textContent) || 0);
  const stopped = async () => (await page.textContent('#eval-toggle')).trim() === 'Start';
  await page.click('#eval-toggle');
  try {
    await page.waitForFunction(() => Number(document.querySelector('#eval-depth').textContent) >= 1, null, { timeout: 20000 });
  } catch {
    const msg = await page.evaluate(() => document.querySelector('#message').hidden ? '' : document.querySelector('#message-text').textContent);
    check(false, `analysis: no depth shown within 20 s (status: ${await page.textContent('#eval-status')}${msg ? '; message: ' + msg : ''})` +
      ' (an `alq serve` without an evaluator cannot analyse: give run.sh e.g. `--eval hce`, or set EXPLORER_EVAL=0)');
    return;
  }
  const d0 = await depthNow();
  // the depth must rise while the stream runs (unless the search ends at once)
  await page.waitForFunction((d) => Number(document.querySelector('#eval-depth').textContent) > d ||
    document.querySelector('#eval-toggle').textContent.trim() === 'Start', d0, { timeout: 20000 }).catch(() => {});
  const d1 = await depthNow();
  check(d1 > d0 || await stopped(), `analysis: the depth stays at ${d0}`);
  check(/\S/.test(await page.textContent('#eval-score')) && (await page.textContent('#eval-score')) !== '–', 'analysis: no score shown');
  check((await page.textContent('#eval-nodes')) !== '–', 'analysis: no node count shown');
  check((await page.locator('#eval-pv button').count()) > 0, 'analysis: no principal variation shown');
  const running = (await page.textContent('#eval-toggle')).trim() === 'Stop';
  if (running) {
    await page.click('#eval-toggle');
    check((await page.textContent('#eval-toggle')).trim() === 'Start', 'analysis: the button does not read Start after stopping');
    const d2 = await depthNow();
    await page.waitForTimeout(1200);
    check(await depthNow() === d2, 'analysis: the depth still changes after stop (stream not closed)');
    log(`  depth rose from ${d0} to ${d2}; stopped`);
  } else {
    log(`  analysis finished on its own at depth ${await depthNow()}`);
  }
  await page.screenshot({ path: path.join(SHOTS, 'analysis-1200x800.png') });
}

main().then(() => {
  if (failures.length) {
    console.log(`\nFAILED: ${failures.length} of ${checks} checks`);
    for (const f of failures) console.log(' - ' + f);
    process.exit(1);
  }
  console.log(`\nOK: ${checks} checks passed; screenshots in ${SHOTS}`);
}, (e) => {
  if (!(e instanceof Fatal)) console.log(e && e.stack || e);
  console.log(`\nFAILED (stopped early): ${failures.length} of ${checks} checks failed`);
  for (const f of failures) console.log(' - ' + f);
  if (!failures.length) console.log(' - ' + (e && e.message));
  process.exit(1);
});
