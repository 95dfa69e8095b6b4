//! [`Searcher`]: iterative deepening negamax with principal variation search,
//! a transposition table, move ordering, forced-capture resolution at the
//! horizon, draw detection, exact win/loss scores and, when given endgame
//! tables, their exact values. With more than one thread (see
//! [`Searcher::set_threads`]) helper threads search the same root into the
//! shared transposition table (Lazy SMP) and the main thread's result is used.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::eval::Evaluator;
use crate::game::Game;
use crate::limits::Limits;
use crate::moves::{Move, MoveList};
use crate::position::Position;
use crate::rules::{Rules, BRAINKING_RULES};
use crate::score::{Score, MATE, MATE_BOUND, TB_WIN};
use crate::tables::{EndgameTables, Exact, Wdl};
use crate::tt::{Bound, Entry, TranspositionTable};

const INFINITY: i32 = 31_000;
/// Deepest ply the search goes to (counting forced-capture plies).
pub const MAX_PLY: usize = 128;
/// The least remaining depth at which the search asks the evaluator for its
/// move policy ([`Evaluator::policy`]); nearer the leaves the history
/// heuristic orders moves (a policy there costs about a leaf evaluation a
/// node).
pub const POLICY_MIN_DEPTH: i32 = 2;

/// One completed iteration of iterative deepening.
#[derive(Clone, Debug)]
pub struct Iteration {
    pub depth: u32,
    pub score: Score,
    pub nodes: u64,
    pub elapsed: Duration,
    pub pv: Vec<Move>,
    /// Positions whose value came from the endgame tables.
    pub tb_hits: u64,
}

/// The outcome of a search.
#[derive(Clone, Debug)]
pub struct SearchResult {
    /// The move to play; `None` when the side to move has no legal move.
    pub best: Option<Move>,
    pub score: Score,
    /// The deepest completed iteration.
    pub depth: u32,
    pub nodes: u64,
    pub elapsed: Duration,
    pub pv: Vec<Move>,
    /// Positions whose value came from the endgame tables.
    pub tb_hits: u64,
}

/// Tunable search settings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SearchConfig {
    /// Transposition table size in MiB.
    pub hash_mb: usize,
}

impl Default for SearchConfig {
    fn default() -> SearchConfig {
        SearchConfig { hash_mb: 16 }
    }
}

/// Draw rules the search applies, taken from the game being played.
#[derive(Clone, Copy, Debug)]
struct DrawRules {
    no_progress_limit: Option<u32>,
    /// Plies left until the game's ply cap, if any.
    plies_left: Option<u32>,
}

impl DrawRules {
    /// How many plies may still be played from a node `ply` plies below the
    /// root with `quiet` plies already without progress before the no-progress
    /// rule and the ply cap can end the game: (no progress, cap). A proven
    /// result of `d` plies holds if `d` is within both (see
    /// [`Exact::holds_within`]). Saturates at 255, beyond anything the
    /// search can reach.
    fn budgets(&self, quiet: u32, ply: usize) -> (u8, u8) {
        let clip = |v: Option<u32>| v.map_or(u8::MAX, |v| v.min(u8::MAX as u32) as u8);
        (
            clip(self.no_progress_limit.map(|l| l.saturating_sub(quiet))),
            clip(self.plies_left.map(|l| l.saturating_sub(ply as u32))),
        )
    }
}

/// Whether a table entry may be reused at a node with these budgets. Scores
/// that are not proven results are heuristic and always reusable. A proven
/// result (a win or loss claim) was established under the budgets at the
/// node that stored it; it still holds where both budgets are at least as
/// large (the draw rules can only take away draws then), or where the result
/// is short enough that no draw rule can interfere.
fn reusable(entry: &Entry, score: i32, ply: usize, budgets: (u8, u8)) -> bool {
    if score.abs() < MATE_BOUND {
        return true;
    }
    if budgets.0 >= entry.np_budget && budgets.1 >= entry.cap_budget {
        return true;
    }
    let distance = (MATE - score.abs()) as u32 - ply as u32;
    distance <= u32::from(budgets.0.min(budgets.1))
}

/// An alpha-beta searcher over an [`Evaluator`].
///
/// # Examples
///
/// ```
/// use alq_engine::{Hce, Limits, Position, Score, SearchConfig, Searcher};
///
/// let mut searcher = Searcher::new(Hce::default(), SearchConfig { hash_mb: 1 });
/// let start = Position::start();
/// let result = searcher.search_position(&start, Limits::nodes(2_000));
/// let best = result.best.unwrap();
/// assert!(start.legal_moves().contains(&best));
/// assert_eq!(result.pv.first(), Some(&best));
/// assert!(result.depth >= 1 && result.nodes >= 2_000);
///
/// // A capture of Black's last piece is a proven win in one ply.
/// let pos: Position = "...../...../...../.B.../W.... w".parse().unwrap();
/// let result = searcher.search_position(&pos, Limits::depth(4));
/// assert_eq!(result.best.map(|m| m.to_string()), Some("a1xc3".to_string()));
/// assert_eq!(result.score, Score::Win(1));
/// ```
pub struct Searcher<E: Evaluator> {
    eval: E,
    tt: Arc<TranspositionTable>,
    killers: Box<[[Option<Move>; 2]; MAX_PLY + 1]>,
    history: Box<[[[i32; 25]; 25]; 2]>,
    pv: Box<[[Option<Move>; MAX_PLY + 1]; MAX_PLY + 1]>,
    pv_len: [usize; MAX_PLY + 1],
    /// Hashes of the game so far and of the current search path.
    path: Vec<u64>,
    draws: DrawRules,
    /// The move tables of the game being searched (set per search).
    rules: &'static Rules,
    tables: Option<Arc<dyn EndgameTables>>,
    /// `tables` when they were built for the rules of the game being
    /// searched, else `None` (set per search).
    active_tables: Option<Arc<dyn EndgameTables>>,
    nodes: u64,
    tb_hits: u64,
    limits: Limits,
    started: Instant,
    stopped: bool,
    /// Whether the search may stop (never before depth 1 completes).
    may_stop: bool,
    /// Set from outside (another thread) to end the search at once; see
    /// [`Searcher::set_stop_flag`].
    stop: Option<Arc<AtomicBool>>,
    /// Set by the main thread when it has finished: the helpers stop.
    abort: Arc<AtomicBool>,
    /// Nodes searched by the helpers so far in this search.
    helper_nodes: Arc<AtomicU64>,
    /// Helper threads' searchers (Lazy SMP); empty with one thread.
    helpers: Vec<Searcher<Box<dyn Evaluator>>>,
    /// This searcher's number among the helpers; `None` for the main one.
    helper_id: Option<usize>,
}

impl<E: Evaluator> Searcher<E> {
    /// A searcher over `eval` with a transposition table of
    /// `config.hash_mb` MiB, on one thread and without endgame tables.
    pub fn new(eval: E, config: SearchConfig) -> Searcher<E> {
        Self::with_table(eval, Arc::new(TranspositionTable::new(config.hash_mb)))
    }

    fn with_table(eval: E, tt: Arc<TranspositionTable>) -> Searcher<E> {
        Searcher {
            eval,
            tt,
            killers: Box::new([[None; 2]; MAX_PLY + 1]),
            history: Box::new([[[0; 25]; 25]; 2]),
            pv: Box::new([[None; MAX_PLY + 1]; MAX_PLY + 1]),
            pv_len: [0; MAX_PLY + 1],
            path: Vec::with_capacity(1024),
            draws: DrawRules { no_progress_limit: None, plies_left: None },
            rules: &BRAINKING_RULES,
            tables: None,
            active_tables: None,
            nodes: 0,
            tb_hits: 0,
            limits: Limits::default(),
            started: Instant::now(),
            stopped: false,
            may_stop: false,
            stop: None,
            abort: Arc::new(AtomicBool::new(false)),
            helper_nodes: Arc::new(AtomicU64::new(0)),
            helpers: Vec::new(),
            helper_id: None,
        }
    }

    /// Searches with `threads` threads (at least 1): the caller's thread and
    /// `threads - 1` helpers, each with its own copy of the evaluator, all
    /// sharing one transposition table. Returns the number of threads that
    /// will search: 1 when the evaluator cannot be copied
    /// ([`Evaluator::fork`]). With one thread, depth- and nodes-limited
    /// searches are deterministic; with more they are not.
    pub fn set_threads(&mut self, threads: usize) -> usize {
        self.helpers.clear();
        for id in 0..threads.max(1) - 1 {
            let Some(eval) = self.eval.fork() else { break };
            let mut helper = Searcher::with_table(eval, Arc::clone(&self.tt));
            helper.abort = Arc::clone(&self.abort);
            helper.helper_nodes = Arc::clone(&self.helper_nodes);
            helper.tables = self.tables.clone();
            helper.helper_id = Some(id);
            self.helpers.push(helper);
        }
        self.helpers.len() + 1
    }

    /// The number of threads a search uses.
    pub fn threads(&self) -> usize {
        self.helpers.len() + 1
    }

    /// A flag that ends the current search as soon as it is set (checked
    /// every 1,024 nodes, once depth 1 is complete); the search then returns
    /// its deepest completed iteration. The searcher never clears it: clear
    /// it before starting the next search.
    pub fn set_stop_flag(&mut self, flag: Option<Arc<AtomicBool>>) {
        self.stop = flag;
    }

    /// The evaluator it searches with.
    pub fn evaluator(&self) -> &E {
        &self.eval
    }

    /// The evaluator, to change its settings between searches.
    pub fn evaluator_mut(&mut self) -> &mut E {
        &mut self.eval
    }

    /// Gives the search endgame tables (or takes them away). With tables,
    /// every position they cover gets its exact value at once (when the
    /// game's draw rules cannot change it), and a root whose moves all lead
    /// into the tables is answered by the tables without searching.
    pub fn set_tables(&mut self, tables: Option<Arc<dyn EndgameTables>>) {
        for helper in &mut self.helpers {
            helper.tables = tables.clone();
        }
        self.tables = tables;
        self.tt.clear();
    }

    /// The endgame tables given by [`Searcher::set_tables`], if any.
    pub fn tables(&self) -> Option<&Arc<dyn EndgameTables>> {
        self.tables.as_ref()
    }

    /// Forgets the transposition table, killers and history (a new game), so
    /// that a game's searches do not depend on earlier games.
    pub fn clear(&mut self) {
        self.tt.clear();
        *self.killers = [[None; 2]; MAX_PLY + 1];
        *self.history = [[[0; 25]; 25]; 2];
        for helper in &mut self.helpers {
            helper.clear();
        }
    }

    /// Searches a position with no game history (default draw rules).
    pub fn search_position(&mut self, pos: &Position, limits: Limits) -> SearchResult {
        let game = Game::new(*pos, crate::game::GameConfig::default());
        self.search(&game, limits, |_| {})
    }

    /// Searches the current position of `game`, with its history for
    /// repetitions and its draw rules. `on_iteration` is called after each
    /// completed iteration. A game already lost for the side to move gives
    /// no move and [`Score::Loss`]`(0)`.
    ///
    /// # Panics
    ///
    /// With more than one thread ([`Searcher::set_threads`]), when the
    /// operating system cannot start a helper thread.
    ///
    /// # Examples
    ///
    /// ```
    /// use alq_engine::{Game, GameConfig, Hce, Limits, Position, SearchConfig, Searcher};
    ///
    /// let mut game = Game::new(Position::start(), GameConfig::default());
    /// game.play_text("d3-c3").unwrap();
    /// let mut searcher = Searcher::new(Hce::default(), SearchConfig { hash_mb: 1 });
    /// let mut depths = Vec::new();
    /// let result = searcher.search(&game, Limits::depth(5), |it| depths.push(it.depth));
    /// assert_eq!(depths, [1, 2, 3, 4, 5]);
    /// assert_eq!(result.best.unwrap().to_string(), "b3xd3", "the only legal move");
    /// game.play(result.best.unwrap()).unwrap();
    /// ```
    pub fn search(&mut self, game: &Game, limits: Limits, mut on_iteration: impl FnMut(&Iteration)) -> SearchResult {
        let root = game.position();
        self.tt.new_search();
        self.abort.store(false, Ordering::Relaxed);
        self.helper_nodes.store(0, Ordering::Relaxed);
        self.prepare(game, limits);

        let mut result = SearchResult {
            best: None,
            score: Score::Loss(0),
            depth: 0,
            nodes: 0,
            elapsed: Duration::ZERO,
            pv: Vec::new(),
            tb_hits: 0,
        };
        let legal = game.legal_moves();
        if legal.is_empty() {
            result.elapsed = self.started.elapsed();
            return result;
        }
        result.best = Some(legal[0]);
        if let Some(result) = self.table_root(&root, game.quiet_plies(), legal.len()) {
            on_iteration(&Iteration {
                depth: result.depth,
                score: result.score,
                nodes: result.nodes,
                elapsed: result.elapsed,
                pv: result.pv.clone(),
                tb_hits: result.tb_hits,
            });
            return result;
        }
        let max_depth = limits.depth.unwrap_or(MAX_PLY as u32 - 1).clamp(1, MAX_PLY as u32 - 1);
        if self.helpers.is_empty() {
            return self.iterate(game, max_depth, result, on_iteration);
        }
        let mut helpers = std::mem::take(&mut self.helpers);
        let result = std::thread::scope(|scope| {
            for helper in &mut helpers {
                scope.spawn(move || helper.help(game, max_depth));
            }
            let result = self.iterate(game, max_depth, result, on_iteration);
            self.abort.store(true, Ordering::Relaxed);
            result
        });
        self.helpers = helpers;
        result
    }

    /// Resets the per-search state for the current position of `game`.
    fn prepare(&mut self, game: &Game, limits: Limits) {
        let root = game.position();
        self.started = Instant::now();
        self.limits = limits;
        self.nodes = 0;
        self.tb_hits = 0;
        self.stopped = false;
        self.may_stop = false;
        let config = game.config();
        self.rules = config.rules.rules();
        self.eval.set_rules(config.rules);
        self.active_tables = self.tables.clone().filter(|t| t.rules() == config.rules);
        self.draws = DrawRules {
            no_progress_limit: config.no_progress_limit,
            plies_left: config.max_plies.map(|cap| cap.saturating_sub(game.plies() as u32)),
        };
        // Only positions since the last irreversible move can repeat.
        let reversible = game.quiet_plies() as usize;
        let positions = game.positions();
        self.path.clear();
        self.path
            .extend(positions[positions.len() - 1 - reversible.min(positions.len() - 1)..].iter().map(|p| p.hash()));
        self.eval.reset(&root);
    }

    /// A helper thread's search: iterative deepening on the same root (odd
    /// helpers one ply ahead, so that the threads spread over depths),
    /// filling the shared table, until the main thread is done.
    fn help(&mut self, game: &Game, max_depth: u32) {
        self.prepare(game, Limits::default());
        self.may_stop = true;
        let root = game.position();
        let first = 1 + self.helper_id.unwrap_or(0) as u32 % 2;
        for depth in first.min(max_depth)..=max_depth {
            self.negamax(&root, depth as i32, -INFINITY, INFINITY, 0, game.quiet_plies());
            if self.stopped {
                break;
            }
        }
    }

    /// The main thread's iterative deepening, from `result` (the fallback
    /// move) on.
    fn iterate(
        &mut self,
        game: &Game,
        max_depth: u32,
        mut result: SearchResult,
        mut on_iteration: impl FnMut(&Iteration),
    ) -> SearchResult {
        let root = game.position();
        for depth in 1..=max_depth {
            let score = self.negamax(&root, depth as i32, -INFINITY, INFINITY, 0, game.quiet_plies());
            if self.stopped {
                break;
            }
            self.may_stop = true;
            let pv: Vec<Move> = self.pv[0][..self.pv_len[0]].iter().flatten().copied().collect();
            let score = Score::from_internal(score);
            result = SearchResult {
                best: pv.first().copied().or(result.best),
                score,
                depth,
                nodes: self.total_nodes(),
                elapsed: self.started.elapsed(),
                pv: pv.clone(),
                tb_hits: self.tb_hits,
            };
            on_iteration(&Iteration {
                depth,
                score,
                nodes: result.nodes,
                elapsed: result.elapsed,
                pv,
                tb_hits: self.tb_hits,
            });
            if let Score::Win(p) | Score::Loss(p) = score {
                // A proven result found at a depth beyond its length is final.
                if depth > p {
                    break;
                }
            }
            if self.out_of_budget(true) {
                break;
            }
        }
        result.nodes = self.total_nodes();
        result.tb_hits = self.tb_hits;
        result.elapsed = self.started.elapsed();
        result
    }

    /// The tables' answer at the root: when every legal move leads into the
    /// tables and the best value cannot be changed by the draw rules, the
    /// best move by the tables (fastest win, a draw, slowest loss; ties in
    /// notation order) with its exact value, and the table line as the PV.
    fn table_root(&mut self, root: &Position, quiet: u32, moves: usize) -> Option<SearchResult> {
        let tables = self.active_tables.clone()?;
        let ranked = tables.rank_moves(root)?;
        let (best, value) = ranked[0];
        let (np, cap) = self.draws.budgets(quiet, 0);
        if !value.holds_within(u32::from(np.min(cap))) {
            return None;
        }
        // The line the tables prefer, as far as they and the result go.
        let mut pv = vec![best];
        let mut pos = root.play(best);
        while pv.len() < 64 {
            match tables.rank_moves(&pos) {
                Some(next) if next[0].1 != Exact::Draw || pv.len() < 8 => {
                    pv.push(next[0].0);
                    pos = pos.play(next[0].0);
                }
                _ => break,
            }
        }
        self.tb_hits = moves as u64;
        Some(SearchResult {
            best: Some(best),
            score: Score::from_exact(value),
            depth: 1,
            nodes: moves as u64,
            elapsed: self.started.elapsed(),
            pv,
            tb_hits: moves as u64,
        })
    }

    /// Whether a limit is reached; `before_iteration` also stops when half of
    /// the move time is used, since the next iteration would not finish.
    fn out_of_budget(&self, before_iteration: bool) -> bool {
        if self.abort.load(Ordering::Relaxed) || self.stop.as_ref().is_some_and(|s| s.load(Ordering::Relaxed)) {
            return true;
        }
        if self.limits.nodes.is_some_and(|n| self.total_nodes() >= n) {
            return true;
        }
        if let Some(t) = self.limits.movetime {
            let elapsed = self.started.elapsed();
            return if before_iteration { elapsed * 2 >= t } else { elapsed >= t };
        }
        false
    }

    /// Nodes of this search on all threads (the helpers' counted in steps
    /// of 1,024).
    fn total_nodes(&self) -> u64 {
        self.nodes + self.helper_nodes.load(Ordering::Relaxed)
    }

    fn is_repetition(&self, hash: u64, quiet: u32) -> bool {
        // The current position is the last entry; look back over reversible plies.
        let n = self.path.len();
        let back = (quiet as usize).min(n - 1);
        self.path[n - 1 - back..n - 1].iter().rev().skip(1).step_by(2).any(|&h| h == hash)
    }

    fn negamax(&mut self, pos: &Position, depth: i32, mut alpha: i32, mut beta: i32, ply: usize, quiet: u32) -> i32 {
        self.pv_len[ply] = 0;
        self.nodes += 1;
        if self.may_stop && (self.nodes & 1023 == 0 || self.limits.nodes.is_some()) {
            if self.helper_id.is_some() {
                self.helper_nodes.fetch_add(1024, Ordering::Relaxed);
            }
            if self.out_of_budget(false) {
                self.stopped = true;
                return 0;
            }
        }
        let rules = self.rules;
        if ply > 0 {
            let draw = self.is_repetition(pos.hash(), quiet)
                || self.draws.no_progress_limit.is_some_and(|l| quiet >= l)
                || self.draws.plies_left.is_some_and(|l| ply as u32 >= l);
            if draw {
                // The loss rule comes first.
                return if pos.is_lost_under(rules) { -MATE + ply as i32 } else { 0 };
            }
            // Mate distance pruning: no result here can beat a faster one found.
            alpha = alpha.max(-MATE + ply as i32);
            beta = beta.min(MATE - ply as i32 - 1);
            if alpha >= beta {
                return alpha;
            }
            if let Some(tables) = &self.active_tables {
                if tables.covers(pos) {
                    if let Some(value) = tables.probe(pos) {
                        let (np, cap) = self.draws.budgets(quiet, ply);
                        if value.holds_within(u32::from(np.min(cap))) {
                            self.tb_hits += 1;
                            return match value {
                                Exact::Win(d) => MATE - ply as i32 - d as i32,
                                Exact::Loss(d) => -MATE + ply as i32 + d as i32,
                                Exact::Draw => 0,
                            };
                        }
                    }
                } else if pos.occupied().count() <= tables.wdl_max_pieces() {
                    // Win/draw/loss tables beyond the distance tables: a
                    // draw is exact (draw rules only add draws), a win or a
                    // loss scores past every evaluation.
                    if let Some(value) = tables.probe_wdl(pos) {
                        self.tb_hits += 1;
                        return match value {
                            Wdl::Win => TB_WIN - ply as i32,
                            Wdl::Loss => -TB_WIN + ply as i32,
                            Wdl::Draw => 0,
                        };
                    }
                }
            }
        }
        let capturers = pos.capturers(rules);
        let forced_capture = !capturers.is_empty();
        if (depth <= 0 && !forced_capture) || ply >= MAX_PLY {
            if !forced_capture && !pos.simple_moves_exist(rules) {
                return -MATE + ply as i32;
            }
            return self.eval.evaluate(pos);
        }

        let pv_node = beta - alpha > 1;
        let mut tt_move = None;
        // Forced-capture nodes below the horizon are many and short-lived; the
        // table is consulted only at nodes with depth left.
        let use_tt = depth > 0;
        let budgets = self.draws.budgets(quiet, ply);
        if let Some(entry) = if use_tt { self.tt.probe(pos.hash()) } else { None } {
            if entry.has_move {
                tt_move = Some(entry.best);
            }
            let score = score_from_tt(entry.score, ply);
            if !pv_node && entry.depth as i32 >= depth && ply > 0 && reusable(&entry, score, ply, budgets) {
                let cut = match entry.bound {
                    Bound::Exact => true,
                    Bound::Lower => score >= beta,
                    Bound::Upper => score <= alpha,
                };
                if cut {
                    return score;
                }
            }
        }

        let mut moves = MoveList::new();
        pos.generate_with_capturers(rules, capturers, &mut moves);
        if moves.is_empty() {
            return -MATE + ply as i32;
        }
        let side = pos.side_to_move().index();
        // The evaluator's move policy, where it has one, in place of the
        // history heuristic (and as the tie-break among captures of equal
        // length), at nodes deep enough to pay for it.
        let mut hints: smallvec::SmallVec<[i32; 64]> = smallvec::smallvec![0; moves.len()];
        let policy = depth >= POLICY_MIN_DEPTH && moves.len() > 1 && self.eval.policy(pos, &moves, &mut hints);
        let mut keys: smallvec::SmallVec<[i32; 64]> = moves
            .iter()
            .zip(&hints)
            .map(|(&mv, &hint)| {
                if tt_move.is_some_and(|k| k.matches(mv)) {
                    1 << 30
                } else if mv.is_capture() && policy {
                    (1 << 24) + ((mv.jumps() as i32) << 16) + hint / 32
                } else if mv.is_capture() {
                    (1 << 24) + mv.jumps() as i32
                } else if self.killers[ply][0] == Some(mv) {
                    1 << 22
                } else if self.killers[ply][1] == Some(mv) {
                    1 << 21
                } else if policy {
                    hint
                } else {
                    self.history[side][mv.from().index()][mv.to().index()]
                }
            })
            .collect();

        let original_alpha = alpha;
        let mut best_score = -INFINITY;
        let mut best_move = None;
        for i in 0..moves.len() {
            // Selection sort step: bring the best remaining move to `i`.
            let mut top = i;
            for j in i + 1..moves.len() {
                if keys[j] > keys[top] {
                    top = j;
                }
            }
            moves.swap(i, top);
            keys.swap(i, top);
            let mv = moves[i];

            let child = pos.play(mv);
            if depth > 1 {
                self.tt.prefetch(child.hash());
            }
            let child_quiet = if mv.is_progress(pos.side_to_move()) { 0 } else { quiet + 1 };
            self.eval.make(pos, mv, &child);
            self.path.push(child.hash());
            let child_depth = depth - 1;
            let score = if i == 0 {
                -self.negamax(&child, child_depth, -beta, -alpha, ply + 1, child_quiet)
            } else {
                let probe = -self.negamax(&child, child_depth, -alpha - 1, -alpha, ply + 1, child_quiet);
                if probe > alpha && probe < beta {
                    -self.negamax(&child, child_depth, -beta, -alpha, ply + 1, child_quiet)
                } else {
                    probe
                }
            };
            self.path.pop();
            self.eval.unmake();
            if self.stopped {
                return 0;
            }
            if score > best_score {
                best_score = score;
                best_move = Some(mv);
                if score > alpha {
                    alpha = score;
                    self.pv[ply][0] = Some(mv);
                    let child_len = self.pv_len[ply + 1];
                    for k in 0..child_len {
                        self.pv[ply][k + 1] = self.pv[ply + 1][k];
                    }
                    self.pv_len[ply] = child_len + 1;
                }
                if alpha >= beta {
                    if !mv.is_capture() {
                        if self.killers[ply][0] != Some(mv) {
                            self.killers[ply][1] = self.killers[ply][0];
                            self.killers[ply][0] = Some(mv);
                        }
                        let h = &mut self.history[side][mv.from().index()][mv.to().index()];
                        *h = (*h + depth * depth).min(1 << 20);
                    }
                    break;
                }
            }
        }
        let bound = if best_score >= beta {
            Bound::Lower
        } else if best_score > original_alpha {
            Bound::Exact
        } else {
            Bound::Upper
        };
        if use_tt {
            self.tt.store(pos.hash(), depth, score_to_tt(best_score, ply), bound, best_move, budgets);
        }
        best_score
    }
}

/// Mate scores are stored relative to the node, not the root.
fn score_to_tt(score: i32, ply: usize) -> i32 {
    if score >= MATE_BOUND {
        score + ply as i32
    } else if score <= -MATE_BOUND {
        score - ply as i32
    } else {
        score
    }
}

fn score_from_tt(score: i32, ply: usize) -> i32 {
    if score >= MATE_BOUND {
        score - ply as i32
    } else if score <= -MATE_BOUND {
        score + ply as i32
    } else {
        score
    }
}
