//! Threshold proofs: does a named side get at least a named outcome?
//!
//! A goal such as `white-draws` ("White gets at least a draw") splits the
//! three outcomes into two, so it is a two-outcome game, far cheaper to prove
//! than the exact value with distances. Every goal is one *win question*,
//! "can side A force a win?" (the opponent left without a legal move), asked
//! directly or negated: `white-wins` is "White wins"; `white-draws` is "not:
//! Black wins", because infinite play counts as a draw.
//!
//! The search keeps an explicit graph of positions (never paths), like the
//! exact solver. After every batch of expansions it recomputes, over the
//! whole graph, the set of positions from which A *surely* wins (unexpanded
//! positions counted as not won: the least fixed point of "A to move: some
//! move reaches the set; the opponent to move: every move does") and the set
//! from which A *possibly* wins (unexpanded positions counted as won). The
//! first is proven, the complement of the second is disproven. A cycle is
//! never in the first set unless A can leave it into a win, so cycles count
//! as "not a win" exactly as the rules say; no score depends on a path, so
//! the graph-history interaction cannot arise.
//!
//! Which positions to expand is chosen by proof and disproof numbers over
//! the graph (most-proving nodes, a batch at a time), initialised at new
//! positions from an evaluator's quiescent score. Proof numbers only choose
//! what to expand: an unsound proof number (cycles, transpositions counted
//! twice) can cost time, never a wrong result, because results come only from
//! the fixed points above.

use std::fmt;
use std::str::FromStr;
use std::time::{Duration, Instant};

use alq_engine::{Evaluator, Move, Position, RuleSet, Side};
use alq_tablebase::{Tablebase, Wdl};

use crate::certificate::{Certificate, Entry, Step};
use crate::graph::{key, position, KeyMap, Predecessors};
use crate::{Budget, ProvenStore, SolveError};

/// A one-sided question about a position.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Goal {
    WhiteWins,
    WhiteDraws,
    BlackWins,
    BlackDraws,
}

impl Goal {
    pub const ALL: [Goal; 4] = [Goal::WhiteWins, Goal::WhiteDraws, Goal::BlackWins, Goal::BlackDraws];

    /// The side named by the goal.
    pub fn side(self) -> Side {
        match self {
            Goal::WhiteWins | Goal::WhiteDraws => Side::White,
            Goal::BlackWins | Goal::BlackDraws => Side::Black,
        }
    }

    /// The side whose win the search asks about, and whether the goal is the
    /// negation of that win (`white-draws` = not `black-wins`).
    pub fn win_question(self) -> (Side, bool) {
        match self {
            Goal::WhiteWins => (Side::White, false),
            Goal::BlackWins => (Side::Black, false),
            Goal::WhiteDraws => (Side::Black, true),
            Goal::BlackDraws => (Side::White, true),
        }
    }

    /// The goal that holds exactly when this one does not: `white-draws`
    /// fails exactly when `black-wins` holds.
    pub fn opposite(self) -> Goal {
        match self {
            Goal::WhiteWins => Goal::BlackDraws,
            Goal::BlackDraws => Goal::WhiteWins,
            Goal::WhiteDraws => Goal::BlackWins,
            Goal::BlackWins => Goal::WhiteDraws,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Goal::WhiteWins => "white-wins",
            Goal::WhiteDraws => "white-draws",
            Goal::BlackWins => "black-wins",
            Goal::BlackDraws => "black-draws",
        }
    }

    /// Whether a position of win/draw/loss value `wdl` (for its side to
    /// move, `mover`) meets the goal.
    pub fn holds(self, mover: Side, wdl: Wdl) -> bool {
        let for_side = if mover == self.side() { wdl } else { wdl.for_mover() };
        match self {
            Goal::WhiteWins | Goal::BlackWins => for_side == Wdl::Win,
            Goal::WhiteDraws | Goal::BlackDraws => for_side != Wdl::Loss,
        }
    }
}

impl fmt::Display for Goal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Goal {
    type Err = String;

    fn from_str(s: &str) -> Result<Goal, String> {
        Goal::ALL.into_iter().find(|g| g.name() == s).ok_or_else(|| {
            format!("unknown goal {s:?}: expected white-wins, white-draws, black-wins or black-draws")
        })
    }
}

/// What a threshold search found about its goal.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    Proven,
    Disproven,
    Unknown,
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Outcome::Proven => "proven",
            Outcome::Disproven => "disproven",
            Outcome::Unknown => "unknown",
        })
    }
}

/// The result of [`ThresholdSolver::solve`].
#[derive(Clone, Debug)]
pub struct ThresholdResult {
    pub goal: Goal,
    pub outcome: Outcome,
    /// When the side with the proven strategy (the goal's side if proven,
    /// its opponent if disproven) is to move at the root: a move that keeps
    /// its result.
    pub best_move: Option<Move>,
    /// Positions expanded.
    pub nodes: u64,
    /// Positions in the graph at the end (expanded, leaves, frontier).
    pub graph_nodes: usize,
    /// Leaves valued by the tables.
    pub tb_hits: u64,
    /// Leaves valued by earlier searches of this solver.
    pub store_hits: u64,
    /// Peak bytes of the graph and its analysis.
    pub memory_bytes: usize,
    pub elapsed: Duration,
    /// Analyses run (one per batch of expansions).
    pub rounds: u32,
    pub out_of_budget: bool,
    /// The proof, when the solver was asked for certificates and the root
    /// was settled: of the goal if proven, of its opposite if disproven.
    pub certificate: Option<Certificate>,
}

/// One analysis round, for progress lines.
#[derive(Clone, Copy, Debug)]
pub struct ThresholdProgress {
    pub nodes: u64,
    pub graph_nodes: usize,
    /// The root's proof and disproof numbers after the round.
    pub proof_number: u32,
    pub disproof_number: u32,
    pub elapsed: Duration,
}

const INF: u32 = u32::MAX;

/// Where a leaf's answer comes from.
#[derive(Clone, Copy)]
enum Known {
    /// No legal move.
    End,
    Tables,
    /// An earlier search of this solver.
    Store,
}

/// Node states in the graph.
const FRONTIER: u8 = 0;
const EXPANDED: u8 = 1;
/// Known before the analysis: the asked side wins / does not.
const YES: u8 = 2;
const NO: u8 = 3;

/// Bits of the store: for each side, "wins" and "does not win" are known.
fn store_bits(side: Side, wins: bool) -> u8 {
    let base = if side == Side::White { 0 } else { 2 };
    1 << (base + u8::from(!wins))
}

/// The explored graph of one win question.
#[derive(Default)]
struct Graph {
    keys: Vec<u64>,
    state: Vec<u8>,
    /// Expanded nodes: their successors are `edges[first..first + len]`.
    first: Vec<u32>,
    len: Vec<u16>,
    edges: Vec<u32>,
    pn: Vec<u32>,
    dn: Vec<u32>,
    index: KeyMap<u32>,
}

/// Bytes a node costs (key, state, edge range, numbers, hash slot with its
/// load factor); edges cost 4 bytes, the analysis adds 4 per edge and 20 per node.
const NODE_BYTES: usize = 8 + 1 + 4 + 2 + 8 + 24;

impl Graph {
    fn len(&self) -> usize {
        self.keys.len()
    }

    fn add(&mut self, k: u64, state: u8, pn: u32, dn: u32) -> u32 {
        let id = self.keys.len() as u32;
        self.keys.push(k);
        self.state.push(state);
        self.first.push(0);
        self.len.push(0);
        self.pn.push(pn);
        self.dn.push(dn);
        self.index.insert(k, id);
        id
    }

    fn successors(&self, node: u32) -> &[u32] {
        let i = node as usize;
        if self.state[i] != EXPANDED {
            return &[];
        }
        let first = self.first[i] as usize;
        &self.edges[first..first + usize::from(self.len[i])]
    }

    /// Bytes the graph holds.
    fn memory_bytes(&self) -> usize {
        self.keys.capacity() * NODE_BYTES + self.edges.capacity() * 4
    }

    /// What the graph and one analysis take together (reverse edges, two
    /// rank arrays, counters and states: 4 bytes an edge, 20 a node).
    fn memory_with_analysis(&self) -> usize {
        self.memory_bytes() + self.edges.len() * 4 + self.len() * 20
    }

    /// Reverse edges (compressed rows).
    fn predecessors(&self) -> Predecessors {
        Predecessors::of_edges(self.len(), |node| self.successors(node))
    }

    /// The nodes from which `attacker` forces a win, with every frontier
    /// node counted as won (`frontier_won`) or as not won: the attractor of
    /// the won leaves (least fixed point, so cycles are not wins). Each
    /// node's rank is the order in which it joined (`INF`: not won): every
    /// node joins after the successors that make it won, so ranks fall
    /// along a winning strategy and show that it uses no cycle.
    fn attractor(&self, attacker: Side, preds: &Predecessors, frontier_won: bool) -> Vec<u32> {
        let n = self.len();
        let mut rank = vec![INF; n];
        let mut pending = vec![0u16; n];
        let mut queue = Vec::new();
        for i in 0..n {
            match self.state[i] {
                EXPANDED => pending[i] = if side_of(self.keys[i]) == attacker { 1 } else { self.len[i] },
                YES => queue.push(i as u32),
                FRONTIER if frontier_won => queue.push(i as u32),
                _ => {}
            }
        }
        let mut next = 0u32;
        for &q in &queue {
            rank[q as usize] = next;
            next += 1;
        }
        while let Some(node) = queue.pop() {
            for &p in preds.of(node) {
                let p = p as usize;
                if rank[p] != INF {
                    continue;
                }
                pending[p] -= 1;
                if pending[p] == 0 {
                    rank[p] = next;
                    next += 1;
                    queue.push(p as u32);
                }
            }
        }
        rank
    }
}

fn side_of(k: u64) -> Side {
    if k >> 50 & 1 == 1 {
        Side::Black
    } else {
        Side::White
    }
}

/// The threshold proof search. It keeps what it proved across calls (a
/// position's key with "White wins / does not / Black wins / does not"),
/// so later searches, for any goal, use those positions as leaves.
pub struct ThresholdSolver<'a> {
    tb: Option<&'a Tablebase>,
    rules: RuleSet,
    eval: Option<Box<dyn Evaluator>>,
    store: KeyMap<u8>,
    max_store: usize,
    /// Positions expanded per analysis round: at least this many, and at
    /// least an eighth of those expanded so far.
    pub min_batch: usize,
    /// Whether results carry a [`Certificate`]. Then positions proven by
    /// earlier searches are not used as leaves (a certificate may rest only
    /// on the tables and on positions without a legal move).
    certificates: bool,
}

impl<'a> ThresholdSolver<'a> {
    /// A solver over `tb` (positions it covers are leaves), under the
    /// tables' rules or BrainKing's. Without an evaluator every new position
    /// starts with proof and disproof numbers 1.
    pub fn new(tb: Option<&'a Tablebase>, eval: Option<Box<dyn Evaluator>>) -> ThresholdSolver<'a> {
        let rules = tb.map_or(RuleSet::BrainKing, |t| t.rules());
        ThresholdSolver { tb, rules, eval, store: KeyMap::default(), max_store: 50_000_000, min_batch: 256, certificates: false }
    }

    pub fn set_rules(&mut self, rules: RuleSet) {
        self.rules = rules;
        if let Some(e) = self.eval.as_mut() {
            e.set_rules(rules);
        }
    }

    /// Ask for certificates (see [`ThresholdSolver::certificates`]).
    pub fn want_certificates(&mut self, on: bool) {
        self.certificates = on;
    }

    /// Adds the answers of a store (of this solver's rules) as leaves for
    /// later searches; a contradiction with what the solver knows is an error.
    pub fn add_store(&mut self, store: &ProvenStore) -> Result<(), String> {
        let mut mine = self.proven_store();
        mine.merge(store)?;
        self.store = mine.entries;
        Ok(())
    }

    /// What this solver has settled, as a store.
    pub fn proven_store(&self) -> ProvenStore {
        ProvenStore { rules: self.rules, entries: self.store.clone() }
    }

    /// Positions whose win questions this solver has answered.
    pub fn store_len(&self) -> usize {
        self.store.len()
    }

    /// Whether `side` wins from `pos`, when this solver has proven it either way.
    pub fn stored(&self, pos: &Position, side: Side) -> Option<bool> {
        let bits = *self.store.get(&key(pos))?;
        if bits & store_bits(side, true) != 0 {
            Some(true)
        } else if bits & store_bits(side, false) != 0 {
            Some(false)
        } else {
            None
        }
    }

    /// Whether `attacker` wins from `pos`, when the position has no legal
    /// move or the tables or the store know: (answer, where from).
    fn known(&self, pos: &Position, attacker: Side) -> Result<Option<(bool, Known)>, SolveError> {
        if pos.is_lost_in(self.rules) {
            return Ok(Some((pos.side_to_move() != attacker, Known::End)));
        }
        if let Some(tb) = self.tb {
            if pos.occupied().count() <= tb.wdl_max_pieces() {
                let (wdl, _) = tb.probe_wdl(pos)?;
                let for_attacker = if pos.side_to_move() == attacker { wdl } else { wdl.for_mover() };
                return Ok(Some((for_attacker == Wdl::Win, Known::Tables)));
            }
        }
        if self.certificates {
            return Ok(None);
        }
        Ok(self.stored(pos, attacker).map(|w| (w, Known::Store)))
    }

    /// The proof of the settled root: when `attacker` wins, its winning
    /// strategy with the ranks of the sure attractor; when it does not,
    /// the defender's strategy that stays out of the possible attractor.
    /// Only positions the strategy reaches are written.
    fn certificate(&self, g: &Graph, status: &[u8], rank: &[u32], attacker: Side, wins: bool) -> Result<Certificate, SolveError> {
        let (holder, keep) = if wins { (attacker, YES) } else { (attacker.opponent(), NO) };
        let goal = match (holder, wins) {
            (Side::White, true) => Goal::WhiteWins,
            (Side::Black, true) => Goal::BlackWins,
            (Side::White, false) => Goal::WhiteDraws,
            (Side::Black, false) => Goal::BlackDraws,
        };
        let mut seen = vec![false; g.len()];
        let mut stack = vec![0u32];
        seen[0] = true;
        let mut entries = Vec::new();
        while let Some(node) = stack.pop() {
            let i = node as usize;
            let k = g.keys[i];
            let r = if wins { rank[i] } else { 0 };
            let pos = position(k);
            let step = if g.state[i] != EXPANDED {
                if pos.is_lost_in(self.rules) {
                    Step::End
                } else {
                    let tb = self.tb.expect("a leaf that is not terminal comes from the tables");
                    Step::Table(tb.probe_wdl(&pos)?.0)
                }
            } else if side_of(k) == holder {
                let moves = pos.legal_moves_in(self.rules);
                let (mv, child) = moves
                    .iter()
                    .zip(g.successors(node))
                    .filter(|(_, &c)| status[c as usize] == keep)
                    .min_by_key(|(_, &c)| if wins { rank[c as usize] } else { 0 })
                    .map(|(&mv, &c)| (mv, c))
                    .expect("a settled node of the holder has a successor keeping its result");
                if !seen[child as usize] {
                    seen[child as usize] = true;
                    stack.push(child);
                }
                Step::Move(mv)
            } else {
                for &c in g.successors(node) {
                    if !seen[c as usize] {
                        seen[c as usize] = true;
                        stack.push(c);
                    }
                }
                Step::All
            };
            entries.push(Entry { key: k, rank: r, step });
        }
        entries.sort_unstable_by_key(|e| e.key);
        Ok(Certificate {
            rules: self.rules,
            goal,
            root: g.keys[0],
            table_pieces: self.tb.map_or(0, |t| t.wdl_max_pieces()),
            entries,
        })
    }

    /// Proof and disproof numbers of a new frontier position from the
    /// evaluator: the better the attacker stands, the smaller the proof
    /// number and the larger the disproof number (1 and 1 without one).
    fn initial_numbers(&mut self, pos: &Position, attacker: Side) -> (u32, u32) {
        let Some(eval) = self.eval.as_mut() else { return (1, 1) };
        let score = quiescence(eval.as_mut(), pos, self.rules, 6);
        let for_attacker = if pos.side_to_move() == attacker { score } else { -score };
        // 1 at equality; a factor of e per 150 cp, capped.
        let scale = |s: i32| (((s as f64) / 150.0).exp() * 4.0).round().clamp(1.0, 10_000.0) as u32;
        (scale(-for_attacker), scale(for_attacker))
    }

    /// Searches `goal` from `pos` within `budget`.
    pub fn solve(
        &mut self,
        pos: &Position,
        goal: Goal,
        budget: &Budget,
        progress: &mut dyn FnMut(&ThresholdProgress),
    ) -> Result<ThresholdResult, SolveError> {
        let start = Instant::now();
        let (attacker, negated) = goal.win_question();
        if let Some(e) = self.eval.as_mut() {
            e.set_rules(self.rules);
            e.reset(pos);
        }
        let mut g = Graph::default();
        let mut tb_hits = 0u64;
        let mut store_hits = 0u64;
        let mut nodes = 0u64;
        let mut rounds = 0u32;
        let mut peak = 0usize;
        let mut out_of_budget = false;
        // The root is always expanded, so that its best move is known.
        g.add(key(pos), FRONTIER, 1, 1);
        let mut batch = vec![0u32];
        let mut status;
        let mut sure_rank;
        loop {
            for &node in &batch {
                if budget.spent(nodes, start, g.memory_with_analysis()) {
                    out_of_budget = true;
                    break;
                }
                nodes += 1;
                self.expand(&mut g, node, attacker, &mut tb_hits, &mut store_hits)?;
            }
            let preds = g.predecessors();
            let sure = g.attractor(attacker, &preds, false);
            let possible = g.attractor(attacker, &preds, true);
            status = (0..g.len())
                .map(|i| if sure[i] != INF { YES } else if possible[i] == INF { NO } else { FRONTIER })
                .collect::<Vec<u8>>();
            drop(possible);
            sure_rank = sure;
            peak = peak.max(g.memory_with_analysis());
            rounds += 1;
            if status[0] != FRONTIER || out_of_budget {
                progress(&ThresholdProgress {
                    nodes,
                    graph_nodes: g.len(),
                    proof_number: if status[0] == YES { 0 } else { INF },
                    disproof_number: if status[0] == NO { 0 } else { INF },
                    elapsed: start.elapsed(),
                });
                break;
            }
            proof_numbers(&mut g, &status, attacker, &preds);
            progress(&ThresholdProgress {
                nodes,
                graph_nodes: g.len(),
                proof_number: g.pn[0],
                disproof_number: g.dn[0],
                elapsed: start.elapsed(),
            });
            let want = self.min_batch.max(nodes as usize / 8);
            batch = select(&mut g, &status, attacker, want);
            if batch.is_empty() {
                break;
            }
        }
        // Keep what is known (values of positions, not of paths).
        for (i, &s) in status.iter().enumerate() {
            if s != FRONTIER && g.state[i] == EXPANDED && self.store.len() < self.max_store {
                *self.store.entry(g.keys[i]).or_insert(0) |= store_bits(attacker, s == YES);
            }
        }
        let root_known = status[0];
        let win = match root_known {
            YES => Some(true),
            NO => Some(false),
            _ => None,
        };
        let outcome = match win {
            None => Outcome::Unknown,
            Some(w) if w != negated => Outcome::Proven,
            Some(_) => Outcome::Disproven,
        };
        // The side with the strategy, and the children that keep its result.
        let best_move = win.and_then(|w| {
            let holder = if w { attacker } else { attacker.opponent() };
            if pos.side_to_move() != holder {
                return None;
            }
            let keep = if w { YES } else { NO };
            pos.legal_moves_in(self.rules)
                .into_iter()
                .zip(g.successors(0).iter())
                .find(|(_, &c)| status[c as usize] == keep)
                .map(|(mv, _)| mv)
        });
        let certificate = match (win, self.certificates) {
            (Some(w), true) => Some(self.certificate(&g, &status, &sure_rank, attacker, w)?),
            _ => None,
        };
        Ok(ThresholdResult {
            goal,
            outcome,
            certificate,
            best_move,
            nodes,
            graph_nodes: g.len(),
            tb_hits,
            store_hits,
            memory_bytes: peak,
            elapsed: start.elapsed(),
            rounds,
            out_of_budget,
        })
    }

    /// Generates the moves of a frontier node; new successors are leaves
    /// when their answer is known, frontier nodes with initial numbers
    /// otherwise.
    fn expand(
        &mut self,
        g: &mut Graph,
        node: u32,
        attacker: Side,
        tb_hits: &mut u64,
        store_hits: &mut u64,
    ) -> Result<(), SolveError> {
        let pos = position(g.keys[node as usize]);
        let moves = pos.legal_moves_in(self.rules);
        if moves.is_empty() {
            g.state[node as usize] = if pos.side_to_move() == attacker { NO } else { YES };
            return Ok(());
        }
        let first = g.edges.len() as u32;
        for &mv in moves.iter() {
            let child = pos.play(mv);
            let k = key(&child);
            let id = match g.index.get(&k) {
                Some(&id) => id,
                None => match self.known(&child, attacker)? {
                    Some((wins, source)) => {
                        match source {
                            Known::Tables => *tb_hits += 1,
                            Known::Store => *store_hits += 1,
                            Known::End => {}
                        }
                        if wins {
                            g.add(k, YES, 0, INF)
                        } else {
                            g.add(k, NO, INF, 0)
                        }
                    }
                    None => {
                        let (pn, dn) = self.initial_numbers(&child, attacker);
                        g.add(k, FRONTIER, pn, dn)
                    }
                },
            };
            g.edges.push(id);
        }
        let i = node as usize;
        g.first[i] = first;
        g.len[i] = u16::try_from(g.edges.len() as u32 - first).expect("fewer than 65,536 legal moves");
        g.state[i] = EXPANDED;
        Ok(())
    }
}

/// The evaluator's score of `pos` for its side to move once pending
/// captures are played out (captures are compulsory, so a position with a
/// capture is scored by its best capture), to `depth` captures deep.
fn quiescence(eval: &mut dyn Evaluator, pos: &Position, rules: RuleSet, depth: u32) -> i32 {
    if depth == 0 || !pos.has_capture(rules.rules()) {
        // The evaluator scores from its own state (a network's first layer),
        // so it is reset to the position first.
        eval.reset(pos);
        return eval.evaluate(pos);
    }
    let moves = pos.legal_moves_in(rules);
    if moves.is_empty() {
        return -alq_engine::MAX_EVAL;
    }
    moves.iter().map(|&mv| -quiescence(eval, &pos.play(mv), rules, depth - 1)).max().unwrap_or(0)
}

/// The numbers of one unresolved expanded node from its successors': at
/// the attacker's turn the proof number is the smallest and the disproof
/// number the sum; at the defender's, the other way round.
fn combine(g: &Graph, node: u32, attacker: Side) -> (u32, u32) {
    combine_with(g, node, attacker, |_| false)
}

/// [`combine`] over the successors that `skip` does not leave out.
fn combine_with(g: &Graph, node: u32, attacker: Side, skip: impl Fn(usize) -> bool) -> (u32, u32) {
    let or = side_of(g.keys[node as usize]) == attacker;
    let (mut min, mut sum) = (INF, 0u32);
    for &c in g.successors(node) {
        if skip(c as usize) {
            continue;
        }
        let (a, b) = if or { (g.pn[c as usize], g.dn[c as usize]) } else { (g.dn[c as usize], g.pn[c as usize]) };
        min = min.min(a);
        sum = sum.saturating_add(b);
    }
    if or {
        (min, sum)
    } else {
        (sum, min)
    }
}

/// Proof and disproof numbers of every node: resolved nodes 0 / ∞, frontier
/// nodes keep their initial numbers, expanded ones are computed from their
/// successors by relaxation from ∞ (the greatest fixed point, so a cycle
/// alone never looks easy to prove), with a cap on the work.
fn proof_numbers(g: &mut Graph, status: &[u8], attacker: Side, preds: &Predecessors) {
    let n = g.len();
    let mut queued = vec![false; n];
    let mut queue = std::collections::VecDeque::new();
    for i in (0..n).rev() {
        match status[i] {
            YES => (g.pn[i], g.dn[i]) = (0, INF),
            NO => (g.pn[i], g.dn[i]) = (INF, 0),
            _ if g.state[i] == EXPANDED => {
                (g.pn[i], g.dn[i]) = (INF, INF);
                queued[i] = true;
                queue.push_back(i as u32);
            }
            _ => {}
        }
    }
    let mut work = 0usize;
    let cap = 16 * n + 1024;
    while let Some(node) = queue.pop_front() {
        queued[node as usize] = false;
        work += 1;
        if work > cap {
            break;
        }
        let numbers = combine(g, node, attacker);
        let i = node as usize;
        if numbers == (g.pn[i], g.dn[i]) {
            continue;
        }
        (g.pn[i], g.dn[i]) = numbers;
        for &p in preds.of(node) {
            if status[p as usize] == FRONTIER && !queued[p as usize] {
                queued[p as usize] = true;
                queue.push_back(p);
            }
        }
    }
}

/// Up to `want` most-proving frontier nodes: repeated descents from the
/// root, at the attacker's turn to the successor with the smallest proof
/// number, at the defender's to the smallest disproof number, never through
/// a node already on the path. A chosen node is left out for the rest of the
/// round (the numbers on the path above are recomputed without it), so the
/// next descent finds the next most-proving node; a node with nothing left
/// to choose below it is left out too.
fn select(g: &mut Graph, status: &[u8], attacker: Side, want: usize) -> Vec<u32> {
    let mut out = Vec::new();
    let mut on_path = vec![false; g.len()];
    let mut excluded = vec![false; g.len()];
    let mut path: Vec<u32> = Vec::new();
    while out.len() < want && !excluded[0] {
        path.clear();
        path.push(0);
        on_path[0] = true;
        loop {
            let node = *path.last().expect("the root is on the path");
            let i = node as usize;
            if g.state[i] == FRONTIER {
                out.push(node);
                excluded[i] = true;
                break;
            }
            let or = side_of(g.keys[i]) == attacker;
            let mut best: Option<(u32, u32, u32)> = None;
            for &c in g.successors(node) {
                let ci = c as usize;
                if on_path[ci] || excluded[ci] || status[ci] != FRONTIER {
                    continue;
                }
                let (a, b) = if or { (g.pn[ci], g.dn[ci]) } else { (g.dn[ci], g.pn[ci]) };
                if best.is_none_or(|(_, ba, bb)| (a, std::cmp::Reverse(b)) < (ba, std::cmp::Reverse(bb))) {
                    best = Some((c, a, b));
                }
            }
            match best {
                Some((c, _, _)) => {
                    on_path[c as usize] = true;
                    path.push(c);
                }
                None => {
                    // Nothing left to choose below this node in this round.
                    excluded[i] = true;
                    break;
                }
            }
        }
        for &p in path.iter().rev() {
            let pi = p as usize;
            on_path[pi] = false;
            if g.state[pi] == EXPANDED && !excluded[pi] {
                let open = g.successors(p).iter().any(|&c| !excluded[c as usize] && status[c as usize] == FRONTIER);
                if open {
                    (g.pn[pi], g.dn[pi]) = combine_with(g, p, attacker, |c| excluded[c]);
                } else {
                    excluded[pi] = true;
                }
            }
        }
    }
    out
}
