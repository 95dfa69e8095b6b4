//! The exact search: the value of a position with its distance, from two
//! retrograde analyses of the explicit graph ([`crate::explicit`]), one
//! with every unexpanded position counted as the best and one as the worst
//! value for the root's side to move.

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use alq_engine::{Move, Position, Proven, RuleSet, Side};
use alq_tablebase::{Exact, Tablebase};

use crate::budget::Budget;
use crate::error::SolveError;
use crate::explicit::{ExplicitGraph, Frontier, Kind};
use crate::keymap::KeyMap;
use crate::saved::SavedState;

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
    rules: RuleSet,
    proven: KeyMap<Exact>,
    /// Positions expanded by earlier searches whose value is not proven yet
    /// (kept for `save_state`; expanded again before a resumed search).
    expanded: KeyMap<()>,
    /// Whether to keep `expanded` (only needed for a resume).
    keep_expanded: bool,
    /// Most proven values kept (16 bytes or more each).
    max_proven: usize,
}

/// One call of [`Solver::solve_with`]: the graph, what is queued for
/// expansion, and the counts.
struct Run {
    start: Instant,
    root_side: Side,
    g: ExplicitGraph,
    queue: VecDeque<u32>,
    tb_hits: u64,
    nodes: u64,
    restored: u64,
    peak: usize,
    rounds: u32,
    out_of_budget: bool,
}

/// The values of every node with unexpanded nodes counted as the worst and
/// as the best for the root's side to move.
struct Bounds {
    lower: Vec<Exact>,
    upper: Vec<Exact>,
}

impl<'a> Solver<'a> {
    /// A solver; with a tablebase, positions it covers are leaves with the
    /// table's exact value. It solves under the tables' rules, or BrainKing's
    /// without tables (see [`Solver::set_rules`]).
    pub fn new(tb: Option<&'a Tablebase>) -> Solver<'a> {
        let rules = tb.map_or(RuleSet::BrainKing, |t| t.rules());
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
    pub fn set_rules(&mut self, rules: RuleSet) {
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
        self.proven.get(&pos.key()).copied()
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
        Ok(self.proven.get(&pos.key()).copied())
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
        let mut run = Run::new(pos);
        let bounds = self.search(&mut run, budget, progress)?;
        self.keep(&run.g, &bounds);
        Ok(run.result(pos, self.rules, &bounds))
    }

    /// Grows the graph and analyses it, round after round, until the root's
    /// bounds meet, nothing relevant is left to expand, or the budget ends.
    fn search(
        &self,
        run: &mut Run,
        budget: &Budget,
        progress: &mut dyn FnMut(&Progress),
    ) -> Result<Bounds, SolveError> {
        let mut next_round = 1024usize;
        loop {
            self.grow(run, budget, next_round)?;
            let bounds = run.analyse();
            progress(&Progress {
                nodes: run.nodes,
                graph_nodes: run.g.len(),
                lower: bounds.lower[0],
                upper: bounds.upper[0],
                elapsed: run.start.elapsed(),
            });
            if bounds.lower[0] == bounds.upper[0] || run.out_of_budget {
                return Ok(bounds);
            }
            // Only frontier nodes whose value can still change the root's are
            // worth expanding: those reached through unproven nodes. (The
            // set is recomputed from the whole graph: expanding a node can
            // open a path to older unproven parts.)
            run.queue = relevant_frontier(&run.g, &bounds);
            if run.queue.is_empty() {
                return Ok(bounds);
            }
            next_round = run.g.len() + run.g.len() / 2;
        }
    }

    /// Expands queued frontier nodes until the graph has `next_round` nodes
    /// (with more queued) for another analysis, or the budget ends.
    fn grow(&self, run: &mut Run, budget: &Budget, next_round: usize) -> Result<(), SolveError> {
        while let Some(node) = run.queue.pop_front() {
            if run.g.kinds[node as usize] != Kind::Frontier {
                continue;
            }
            let k = run.g.keys[node as usize];
            if !self.expanded.contains_key(&k) {
                if budget.spent(run.nodes, run.start, run.g.memory_bytes_next()) {
                    run.out_of_budget = true;
                    run.queue.push_front(node);
                    break;
                }
                run.nodes += 1;
            } else {
                run.restored += 1;
            }
            self.expand(&mut run.g, node, &mut run.queue, &mut run.tb_hits)?;
            if run.g.len() >= next_round && !run.queue.is_empty() {
                break;
            }
        }
        Ok(())
    }

    /// Keeps what is proven (path-independent values), and remembers the
    /// unproven expanded positions for a resume.
    fn keep(&mut self, g: &ExplicitGraph, bounds: &Bounds) {
        for (i, kind) in g.kinds.iter().enumerate() {
            if let Kind::Expanded { .. } = kind {
                let k = g.keys[i];
                if bounds.lower[i] == bounds.upper[i] {
                    if self.proven.len() < self.max_proven {
                        self.proven.insert(k, bounds.lower[i]);
                    }
                    self.expanded.remove(&k);
                } else if self.keep_expanded {
                    self.expanded.insert(k, ());
                }
            }
        }
    }

    /// Generates the moves of a frontier node: new successors become leaves
    /// when their value is known, frontier nodes (queued) otherwise.
    fn expand(
        &self,
        g: &mut ExplicitGraph,
        node: u32,
        queue: &mut VecDeque<u32>,
        tb_hits: &mut u64,
    ) -> Result<(), SolveError> {
        let pos = Position::from_key_unchecked(g.keys[node as usize]);
        let moves = pos.legal_moves_in(self.rules);
        if moves.is_empty() {
            g.kinds[node as usize] = Kind::Leaf(Exact::Loss(0));
            return Ok(());
        }
        let first = g.edges.len() as u32;
        for mv in moves {
            let child = pos.play(mv);
            let k = child.key();
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

impl Run {
    /// A run whose graph holds the root, queued: the root is always
    /// expanded, so that its best move is known.
    fn new(pos: &Position) -> Run {
        let mut g = ExplicitGraph::default();
        let root = g.add(pos.key(), Kind::Frontier);
        Run {
            start: Instant::now(),
            root_side: pos.side_to_move(),
            g,
            queue: VecDeque::from([root]),
            tb_hits: 0,
            nodes: 0,
            restored: 0,
            peak: 0,
            rounds: 0,
            out_of_budget: false,
        }
    }

    /// One analysis round: both bounds of every node.
    fn analyse(&mut self) -> Bounds {
        let preds = self.g.predecessors();
        let lower = self.g.analyse(&preds, self.root_side, Frontier::WorstForRoot);
        let upper = self.g.analyse(&preds, self.root_side, Frontier::BestForRoot);
        self.peak = self.peak.max(self.g.memory_bytes() + preds_bytes(&self.g));
        self.rounds += 1;
        Bounds { lower, upper }
    }

    /// What the run found about the root `pos`.
    fn result(self, pos: &Position, rules: RuleSet, bounds: &Bounds) -> SolveResult {
        let (lower, upper) = (bounds.lower[0], bounds.upper[0]);
        let proof = match (lower, upper) {
            (l, u) if l == u => Some(Proven::Exact(l)),
            (Exact::Win(d), Exact::Win(_)) => Some(Proven::WinWithin(d)),
            (Exact::Loss(_), Exact::Loss(d)) => Some(Proven::LossWithin(d)),
            _ => None,
        };
        let value = |s: &u32| bounds.lower[*s as usize].for_mover();
        let best_move = pos
            .legal_moves_in(rules)
            .into_iter()
            .zip(self.g.successors(0).iter())
            .max_by(|a, b| value(a.1).preference(&value(b.1)))
            .map(|(mv, _)| mv);
        SolveResult {
            proof,
            lower,
            upper,
            best_move,
            nodes: self.nodes,
            restored: self.restored,
            graph_nodes: self.g.len(),
            tb_hits: self.tb_hits,
            memory_bytes: self.peak,
            elapsed: self.start.elapsed(),
            rounds: self.rounds,
            out_of_budget: self.out_of_budget,
        }
    }
}

/// Bytes the analysis adds while it runs: predecessor lists and two value arrays.
fn preds_bytes(g: &ExplicitGraph) -> usize {
    g.edges.len() * 4 + g.len() * 16
}

/// The frontier nodes reachable from the root through expanded nodes whose
/// value is not proven, in breadth-first order (shallowest first).
fn relevant_frontier(g: &ExplicitGraph, bounds: &Bounds) -> VecDeque<u32> {
    let mut seen = vec![false; g.len()];
    let mut out = VecDeque::new();
    let mut bfs = VecDeque::from([0u32]);
    seen[0] = true;
    while let Some(n) = bfs.pop_front() {
        match g.kinds[n as usize] {
            Kind::Frontier => out.push_back(n),
            Kind::Expanded { .. } if bounds.lower[n as usize] != bounds.upper[n as usize] => {
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
