//! # alq-solver
//!
//! A proof search for Alquerque (BrainKing's rules, or the classic ones with
//! [`Solver::set_rules`]): the game-theoretic
//! value of a position, `win D`, `loss D` or `draw`, with the same meaning as
//! the tablebases (`alq-tablebase`): the value of the infinite game, where the
//! game ends only when the side to move has no legal move, and a draw means
//! neither side can force that end. Repetition and no-progress rules of games
//! are not part of it.
//!
//! The search builds the reachable part of the game graph explicitly (nodes
//! are positions, never paths) and runs a retrograde analysis over it, twice:
//! with every unexpanded node counted as the best and as the worst value for
//! the root's side to move. Both are exact values of finite games, so no
//! repetition is ever scored by path, and the true value lies between them
//! (see crates/solver/README.md, "Graph-history interaction").
//!
//! ```
//! use alq_engine::{Exact, Proven};
//! use alq_solver::{Budget, Solver};
//!
//! let mut solver = Solver::new(None);
//! let pos = "...../...../...../...../..W.. w".parse().unwrap();
//! let result = solver.solve(&pos, &Budget::nodes(1000)).unwrap();
//! assert_eq!(result.proof, Some(Proven::Exact(Exact::Win(1))));
//! ```

pub mod certificate;
mod compact;
mod graph;
pub mod reachable;
mod resume;
mod store;
pub mod threshold;

use std::collections::VecDeque;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use alq_engine::{Move, Position, Proven};
use alq_tablebase::{Exact, Tablebase, TbError};
use thiserror::Error;

pub use certificate::{check as check_certificate, Certificate, CertificateError, CheckError, CheckReport};
pub use compact::SearchState;
pub use graph::{key, position};
use graph::{Frontier, Graph, KeyMap, Kind, Predecessors};
pub use resume::{load_state, save_state, SavedState};
pub use store::ProvenStore;
pub use threshold::{Goal, Outcome, ThresholdResult, ThresholdSolver};

/// Errors of the solver. File errors name the file.
#[derive(Debug, Error)]
pub enum SolveError {
    #[error(transparent)]
    Tablebase(#[from] TbError),
    #[error("{}: {source}", path.display())]
    Io { path: PathBuf, source: std::io::Error },
    #[error("{}: not a solver state file: {reason}", path.display())]
    BadFile { path: PathBuf, reason: String },
    #[error("{}: not a proven-position store: {reason}", path.display())]
    BadStore { path: PathBuf, reason: String },
    #[error("{}: not a valid certificate: {reason}", path.display())]
    BadCertificate { path: PathBuf, reason: String },
    /// A saved search that does not belong to the search asked for.
    #[error("the saved search does not match: {0}")]
    StateMismatch(String),
    /// Stores of two rule sets cannot be merged.
    #[error("a store under the {from} rules cannot merge into one under {into}")]
    StoreRules { from: alq_engine::RuleSet, into: alq_engine::RuleSet },
    /// Two stores (or a store and a solver) answer a question both ways.
    #[error("contradictory answers for {position}")]
    Contradiction { position: Position },
}

/// How much the search may spend. The search stops at whichever limit comes
/// first; without node and time limits it runs until the value is exact or
/// the memory limit is reached.
#[derive(Clone, Copy, Debug)]
pub struct Budget {
    /// Positions expanded (their moves generated) in this call.
    pub nodes: Option<u64>,
    pub time: Option<Duration>,
    /// Bytes the explored graph may take (see [`SolveResult::memory_bytes`]).
    pub memory_bytes: usize,
}

impl Budget {
    /// Default memory limit: 256 MiB.
    pub const DEFAULT_MEMORY: usize = 256 << 20;

    pub fn nodes(nodes: u64) -> Budget {
        Budget { nodes: Some(nodes), time: None, memory_bytes: Budget::DEFAULT_MEMORY }
    }

    pub fn time(time: Duration) -> Budget {
        Budget { nodes: None, time: Some(time), memory_bytes: Budget::DEFAULT_MEMORY }
    }

    /// Whether a search that has expanded `nodes` positions since `start`
    /// and would next hold `memory` bytes must stop (the clock is read
    /// every 256 nodes).
    pub(crate) fn spent(&self, nodes: u64, start: Instant, memory: usize) -> bool {
        let over_nodes = self.nodes.is_some_and(|n| nodes >= n);
        let over_time = nodes.is_multiple_of(256) && self.time.is_some_and(|t| start.elapsed() >= t);
        over_nodes || over_time || memory >= self.memory_bytes
    }
}

/// The result of [`Solver::solve`].
#[derive(Clone, Debug)]
pub struct SolveResult {
    /// What the search proved about the root (side to move's view); none
    /// within the budget.
    pub proof: Option<Proven>,
    /// The root's value when every unexplored position is as bad as possible
    /// for the side to move (a proven lower bound) and as good as possible
    /// (a proven upper bound), in the order of [`Exact::preference`].
    pub lower: Exact,
    pub upper: Exact,
    /// A move that achieves `lower` (the proven part): for an exact win, a
    /// fastest winning move. `None` when the root has no legal move.
    pub best_move: Option<Move>,
    /// Positions expanded in this call (restored ones not counted).
    pub nodes: u64,
    /// Positions expanded again from a saved state before the search.
    pub restored: u64,
    /// Positions in the explored graph at the end (expanded, leaves, frontier).
    pub graph_nodes: usize,
    /// Leaves valued by the tablebase.
    pub tb_hits: u64,
    /// Peak bytes of the explored graph and its analysis.
    pub memory_bytes: usize,
    pub elapsed: Duration,
    /// Analysis rounds (the graph grows by half between two).
    pub rounds: u32,
    /// Whether the search stopped on its budget rather than a proof.
    pub out_of_budget: bool,
}

/// One analysis round, for progress reports.
#[derive(Clone, Copy, Debug)]
pub struct Progress {
    pub nodes: u64,
    pub graph_nodes: usize,
    pub lower: Exact,
    pub upper: Exact,
    pub elapsed: Duration,
}

/// The proof search. It keeps, across calls, the values it has proven
/// (positions whose value no longer depends on anything unexplored): values
/// of the infinite game do not depend on the path, so later searches use them
/// as leaves.
pub struct Solver<'a> {
    tb: Option<&'a Tablebase>,
    rules: alq_engine::RuleSet,
    proven: KeyMap<Exact>,
    /// Positions expanded by earlier searches whose value is not proven yet
    /// (kept for `save_state`; expanded again before a resumed search).
    expanded: KeyMap<()>,
    /// Whether to keep `expanded` (only needed for a resume).
    keep_expanded: bool,
    /// Most proven values kept (16 bytes or more each).
    max_proven: usize,
}

impl<'a> Solver<'a> {
    /// A solver; with a tablebase, positions it covers are leaves with the
    /// table's exact value. It solves under the tables' rules, or BrainKing's
    /// without tables (see [`Solver::set_rules`]).
    pub fn new(tb: Option<&'a Tablebase>) -> Solver<'a> {
        let rules = tb.map_or(alq_engine::RuleSet::BrainKing, |t| t.rules());
        Solver {
            tb,
            rules,
            proven: KeyMap::default(),
            expanded: KeyMap::default(),
            keep_expanded: false,
            max_proven: 8_000_000,
        }
    }

    /// Solves under `rules` (the caller checks that the tables, if any, were
    /// built for them).
    pub fn set_rules(&mut self, rules: alq_engine::RuleSet) {
        self.rules = rules;
    }

    /// Keep the positions expanded without a proof, so that [`Solver::state`]
    /// can save them for a resume (off by default: they take memory).
    pub fn keep_expanded(&mut self, keep: bool) {
        self.keep_expanded = keep;
    }

    /// Keep at most this many proven values (default 8,000,000); further
    /// proofs are not remembered across calls.
    pub fn max_proven(&mut self, max: usize) {
        self.max_proven = max;
    }

    /// Positions with a proven exact value kept so far.
    pub fn proven_len(&self) -> usize {
        self.proven.len()
    }

    /// The proven value of a position, when this solver has one.
    pub fn proven(&self, pos: &Position) -> Option<Exact> {
        self.proven.get(&key(pos)).copied()
    }

    /// The state to save for a later resume: proven values and the positions
    /// expanded without a proof.
    pub fn state(&self) -> SavedState {
        let mut proven: Vec<(u64, Exact)> = self.proven.iter().map(|(&k, &v)| (k, v)).collect();
        proven.sort_unstable_by_key(|&(k, _)| k);
        let mut expanded: Vec<u64> = self.expanded.keys().copied().collect();
        expanded.sort_unstable();
        SavedState { rules: self.rules, proven, expanded }
    }

    /// Adds a saved state (see [`Solver::state`]).
    pub fn restore(&mut self, state: SavedState) {
        self.proven.extend(state.proven);
        self.expanded.extend(state.expanded.into_iter().map(|k| (k, ())));
    }

    /// The value of a position by the tables or earlier proofs, if known,
    /// for a node other than the root.
    fn known(&self, pos: &Position, tb_hits: &mut u64) -> Result<Option<Exact>, SolveError> {
        if let Some(tb) = self.tb {
            if pos.occupied().count() <= tb.max_pieces() {
                *tb_hits += 1;
                return Ok(Some(tb.probe(pos)?));
            }
        }
        Ok(self.proven.get(&key(pos)).copied())
    }

    /// Proves the value of `pos` within `budget`.
    pub fn solve(&mut self, pos: &Position, budget: &Budget) -> Result<SolveResult, SolveError> {
        self.solve_with(pos, budget, &mut |_| {})
    }

    /// [`Solver::solve`], calling `progress` after every analysis round.
    pub fn solve_with(
        &mut self,
        pos: &Position,
        budget: &Budget,
        progress: &mut dyn FnMut(&Progress),
    ) -> Result<SolveResult, SolveError> {
        let start = Instant::now();
        let root_side = pos.side_to_move();
        let mut g = Graph::default();
        let mut tb_hits = 0u64;
        let mut nodes = 0u64;
        let mut restored = 0u64;
        let mut peak = 0usize;
        let mut rounds = 0u32;
        // The root is always expanded, so that its best move is known.
        let mut queue: VecDeque<u32> = VecDeque::from([g.add(key(pos), Kind::Frontier)]);
        let mut next_round = 1024usize;
        let mut out_of_budget = false;
        let (lower_values, upper_values) = loop {
            // Expand queued frontier nodes until the graph has grown enough
            // for another analysis, or the budget ends.
            while let Some(node) = queue.pop_front() {
                if g.kinds[node as usize] != Kind::Frontier {
                    continue;
                }
                let k = g.keys[node as usize];
                let is_restored = self.expanded.contains_key(&k);
                if !is_restored {
                    if budget.spent(nodes, start, g.memory_bytes_next()) {
                        out_of_budget = true;
                        queue.push_front(node);
                        break;
                    }
                    nodes += 1;
                } else {
                    restored += 1;
                }
                self.expand(&mut g, node, &mut queue, &mut tb_hits)?;
                if g.len() >= next_round && !queue.is_empty() {
                    break;
                }
            }
            let preds = Predecessors::of_graph(&g);
            let lower = g.analyse(&preds, root_side, Frontier::WorstForRoot);
            let upper = g.analyse(&preds, root_side, Frontier::BestForRoot);
            peak = peak.max(g.memory_bytes() + preds_bytes(&g));
            rounds += 1;
            progress(&Progress {
                nodes,
                graph_nodes: g.len(),
                lower: lower[0],
                upper: upper[0],
                elapsed: start.elapsed(),
            });
            if lower[0] == upper[0] || out_of_budget {
                break (lower, upper);
            }
            // Only frontier nodes whose value can still change the root's are
            // worth expanding: those reached through unproven nodes. (The
            // set is recomputed from the whole graph: expanding a node can
            // open a path to older unproven parts.)
            queue = relevant_frontier(&g, &lower, &upper);
            if queue.is_empty() {
                break (lower, upper);
            }
            next_round = g.len() + g.len() / 2;
        };
        // Keep what is proven (path-independent values), and remember the
        // unproven expanded positions for a resume.
        for (i, kind) in g.kinds.iter().enumerate() {
            if let Kind::Expanded { .. } = kind {
                let k = g.keys[i];
                if lower_values[i] == upper_values[i] {
                    if self.proven.len() < self.max_proven {
                        self.proven.insert(k, lower_values[i]);
                    }
                    self.expanded.remove(&k);
                } else if self.keep_expanded {
                    self.expanded.insert(k, ());
                }
            }
        }
        let (lower, upper) = (lower_values[0], upper_values[0]);
        let proof = match (lower, upper) {
            (l, u) if l == u => Some(Proven::Exact(l)),
            (Exact::Win(d), Exact::Win(_)) => Some(Proven::WinWithin(d)),
            (Exact::Loss(_), Exact::Loss(d)) => Some(Proven::LossWithin(d)),
            _ => None,
        };
        let best_move = pos
            .legal_moves_in(self.rules)
            .into_iter()
            .zip(g.successors(0).iter())
            .max_by(|a, b| lower_values[*a.1 as usize].for_mover().preference(&lower_values[*b.1 as usize].for_mover()))
            .map(|(mv, _)| mv);
        Ok(SolveResult {
            proof,
            lower,
            upper,
            best_move,
            nodes,
            restored,
            graph_nodes: g.len(),
            tb_hits,
            memory_bytes: peak,
            elapsed: start.elapsed(),
            rounds,
            out_of_budget,
        })
    }

    /// Generates the moves of a frontier node: new successors become leaves
    /// when their value is known, frontier nodes (queued) otherwise.
    fn expand(&self, g: &mut Graph, node: u32, queue: &mut VecDeque<u32>, tb_hits: &mut u64) -> Result<(), SolveError> {
        let pos = position(g.keys[node as usize]);
        let moves = pos.legal_moves_in(self.rules);
        if moves.is_empty() {
            g.kinds[node as usize] = Kind::Leaf(Exact::Loss(0));
            return Ok(());
        }
        let first = g.edges.len() as u32;
        for mv in moves {
            let child = pos.play(mv);
            let k = key(&child);
            let id = match g.find(k) {
                // A frontier node may have been left out of the queue while
                // only proven nodes led to it; now an unproven one does.
                Some(id) if g.kinds[id as usize] == Kind::Frontier => {
                    queue.push_back(id);
                    id
                }
                Some(id) => id,
                None => match self.known(&child, tb_hits)? {
                    Some(v) => g.add(k, Kind::Leaf(v)),
                    None => {
                        let id = g.add(k, Kind::Frontier);
                        queue.push_back(id);
                        id
                    }
                },
            };
            g.edges.push(id);
        }
        g.kinds[node as usize] = Kind::Expanded { first, len: g.edges.len() as u32 - first };
        Ok(())
    }
}

/// Bytes the analysis adds while it runs: predecessor lists and two value arrays.
fn preds_bytes(g: &Graph) -> usize {
    g.edges.len() * 4 + g.len() * 16
}

/// The frontier nodes reachable from the root through expanded nodes whose
/// value is not proven, in breadth-first order (shallowest first).
fn relevant_frontier(g: &Graph, lower: &[Exact], upper: &[Exact]) -> VecDeque<u32> {
    let mut seen = vec![false; g.len()];
    let mut out = VecDeque::new();
    let mut bfs = VecDeque::from([0u32]);
    seen[0] = true;
    while let Some(n) = bfs.pop_front() {
        match g.kinds[n as usize] {
            Kind::Frontier => out.push_back(n),
            Kind::Expanded { .. } if lower[n as usize] != upper[n as usize] => {
                for &s in g.successors(n) {
                    if !seen[s as usize] {
                        seen[s as usize] = true;
                        bfs.push_back(s);
                    }
                }
            }
            _ => {}
        }
    }
    out
}
