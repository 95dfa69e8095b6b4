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
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::time::{Duration, Instant};

use alq_engine::{Evaluator, Move, Position, RuleSet, Side};
use alq_tablebase::{Tablebase, Wdl};

use crate::certificate::{Certificate, Entry, Step};
use crate::compact::{frontier, side_of, slot, Graph, Slot, CHOSEN, LEAF_LOST, LEAF_WON};
use crate::graph::{key, position, KeyMap, Predecessors};
use crate::{Budget, ProvenStore, SearchState, SolveError};

/// A one-sided question about a position.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Goal {
    WhiteWins,
    WhiteDraws,
    BlackWins,
    BlackDraws,
}

impl Goal {
    /// `white-draws` or `black-draws`: `side` gets at least a draw.
    pub fn draws_of(side: Side) -> Goal {
        match side {
            Side::White => Goal::WhiteDraws,
            Side::Black => Goal::BlackDraws,
        }
    }

    /// `white-wins` or `black-wins`: `side` wins.
    pub fn wins_of(side: Side) -> Goal {
        match side {
            Side::White => Goal::WhiteWins,
            Side::Black => Goal::BlackWins,
        }
    }

    /// Whether the goal is a win (else at least a draw).
    pub fn is_win(self) -> bool {
        matches!(self, Goal::WhiteWins | Goal::BlackWins)
    }

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
        if self.is_win() {
            for_side == Wdl::Win
        } else {
            for_side != Wdl::Loss
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
        Goal::ALL
            .into_iter()
            .find(|g| g.name() == s)
            .ok_or_else(|| format!("unknown goal {s:?}: expected white-wins, white-draws, black-wins or black-draws"))
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
    /// Positions expanded by this call.
    pub nodes: u64,
    /// Positions expanded by earlier runs of a resumed search.
    pub resumed_nodes: u64,
    /// Positions in the graph at the end (all expanded: leaves and
    /// frontier positions are slots of their parents).
    pub graph_nodes: usize,
    /// Successor slots in the graph (one per legal move of a node).
    pub slots: usize,
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

/// A node's standing after an analysis: not settled, or the asked side
/// wins / does not.
const OPEN: u8 = 0;
const YES: u8 = 2;
const NO: u8 = 3;

/// Bits of the store: for each side, "wins" and "does not win" are known.
fn store_bits(side: Side, wins: bool) -> u8 {
    let base = if side == Side::White { 0 } else { 2 };
    1 << (base + u8::from(!wins))
}

/// The standing of what a slot leads to.
fn slot_status(s: u32, status: &[u8]) -> u8 {
    match slot(s) {
        Slot::Node(c) => status[c as usize],
        Slot::Won => YES,
        Slot::Lost => NO,
        Slot::Frontier(..) | Slot::Chosen => OPEN,
    }
}

/// A frontier slot taken into a batch: where it is, what it held, whose it is.
#[derive(Clone, Copy)]
struct Chosen {
    at: u32,
    was: u32,
    parent: u32,
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
    /// Whether each round first rewrites frontier slots whose positions have
    /// become nodes (see [`crate::SearchState`]'s graph); on by default.
    pub refresh: bool,
    /// Whether the attacker's disproof-number sums leave out successors
    /// whose defences all lead around cycles (guidance only; off by default).
    pub cycle_aware: bool,
    /// Whether results carry a [`Certificate`]. Then positions proven by
    /// earlier searches are not used as leaves (a certificate may rest only
    /// on the tables and on positions without a legal move).
    certificates: bool,
    /// With certificates: the entries of the draw-goal certificates this
    /// solver wrote so far, per goal. Their positions are leaves of later
    /// searches of the same question, and a certificate resting on them
    /// takes in their entries (a draw goal's entries form a closed set, ranks
    /// 0, so the union of proofs is a proof).
    certified: Vec<(Goal, KeyMap<Entry>)>,
    /// With certificates: whether positions this solver (or a store it read)
    /// found won for the attacker are leaves too. A defender's strategy never
    /// enters them, so a draw-goal proof stays certifiable; a proof that the
    /// attacker wins may then rest on them and comes without a certificate.
    /// Off by default; the opening-tree solver turns it on for draw goals.
    pub attacker_wins_as_leaves: bool,
    /// Where and how often an unsettled search saves its state.
    checkpoint: Option<(PathBuf, Duration)>,
}

impl<'a> ThresholdSolver<'a> {
    /// A solver over `tb` (positions it covers are leaves), under the
    /// tables' rules or BrainKing's. Without an evaluator every new position
    /// starts with proof and disproof numbers 1.
    pub fn new(tb: Option<&'a Tablebase>, eval: Option<Box<dyn Evaluator>>) -> ThresholdSolver<'a> {
        let rules = tb.map_or(RuleSet::BrainKing, |t| t.rules());
        ThresholdSolver {
            tb,
            rules,
            eval,
            store: KeyMap::default(),
            max_store: 50_000_000,
            min_batch: 256,
            refresh: true,
            cycle_aware: false,
            certificates: false,
            certified: Vec::new(),
            attacker_wins_as_leaves: false,
            checkpoint: None,
        }
    }

    pub fn set_rules(&mut self, rules: RuleSet) {
        self.rules = rules;
        if let Some(e) = self.eval.as_mut() {
            e.set_rules(rules);
        }
    }

    /// The entries certified so far for `goal` (see `certified`).
    fn certified_for(&self, goal: Goal) -> Option<&KeyMap<Entry>> {
        self.certified.iter().find(|(g, _)| *g == goal).map(|(_, c)| c)
    }

    /// Keeps draw-goal entries, so that later searches of the same question
    /// use their positions as leaves and cite them. `entries` must be closed
    /// (every move and every opponent reply leads to an entry of the set, of
    /// an earlier set, or a leaf among them); a set that would take the
    /// certified positions past `max_store` is left out whole, never in part.
    fn remember(&mut self, goal: Goal, entries: &[Entry]) {
        if goal.is_win() {
            return;
        }
        if self.certified_for(goal).is_none() {
            self.certified.push((goal, KeyMap::default()));
        }
        let map = &mut self.certified.iter_mut().find(|(g, _)| *g == goal).expect("just added").1;
        if map.len() + entries.len() > self.max_store {
            return;
        }
        for e in entries {
            map.entry(e.key).or_insert(*e);
        }
    }

    /// Positions certified so far for `goal` (draw goals; see
    /// [`ThresholdSolver::want_certificates`]).
    pub fn certified_len(&self, goal: Goal) -> usize {
        self.certified_for(goal).map_or(0, |c| c.len())
    }

    /// Ask for certificates (then [`ThresholdResult::certificate`] holds one).
    pub fn want_certificates(&mut self, on: bool) {
        self.certificates = on;
    }

    /// Save the state of an unsettled search to `path` every `every` (after
    /// the analysis round that passes it), so that a killed run loses at most
    /// that much work; [`ThresholdSolver::solve_resumable`] continues it.
    pub fn checkpoint(&mut self, path: &Path, every: Duration) {
        self.checkpoint = Some((path.to_path_buf(), every));
    }

    /// Adds the answers of a store (of this solver's rules) as leaves for
    /// later searches; a contradiction with what the solver knows is an error.
    pub fn add_store(&mut self, store: &ProvenStore) -> Result<(), SolveError> {
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
            // Only proofs this solver certified earlier: the opponent of the
            // attacker holds a draw there, so the attacker does not win.
            let draws = Goal::draws_of(attacker.opponent());
            if self.certified_for(draws).is_some_and(|c| c.contains_key(&key(pos))) {
                return Ok(Some((false, Known::Store)));
            }
            let won = self.attacker_wins_as_leaves && self.stored(pos, attacker) == Some(true);
            return Ok(won.then_some((true, Known::Store)));
        }
        Ok(self.stored(pos, attacker).map(|w| (w, Known::Store)))
    }

    /// The proof of the settled root: when `attacker` wins, its winning
    /// strategy with the ranks of the sure attractor; when it does not,
    /// the defender's strategy that stays out of the possible attractor.
    /// Only positions the strategy reaches are written. `None` when the
    /// attacker's win rests on a stored win (see `attacker_wins_as_leaves`).
    fn certificate(
        &self,
        g: &Graph,
        status: &[u8],
        rank: &[u32],
        attacker: Side,
        wins: bool,
    ) -> Result<Option<Certificate>, SolveError> {
        let Some((goal, entries)) = self.strategy(g, status, rank, attacker, wins, vec![0])? else {
            return Ok(None);
        };
        Ok(Some(Certificate {
            rules: self.rules,
            goal,
            root: g.keys[0],
            table_pieces: self.tb.map_or(0, |t| t.wdl_max_pieces()),
            entries,
        }))
    }

    /// The strategy of the side holding the result from the nodes `starts`
    /// (all settled that way): its entries, sorted by key, with the goal
    /// they prove. Every position reached gets an entry; cited positions of
    /// earlier proofs bring the entries they reach. `None` when it reaches a
    /// stored win of the attacker (see `attacker_wins_as_leaves`).
    fn strategy(
        &self,
        g: &Graph,
        status: &[u8],
        rank: &[u32],
        attacker: Side,
        wins: bool,
        starts: Vec<u32>,
    ) -> Result<Option<(Goal, Vec<Entry>)>, SolveError> {
        let (holder, keep) = if wins { (attacker, YES) } else { (attacker.opponent(), NO) };
        let goal = if wins { Goal::wins_of(holder) } else { Goal::draws_of(holder) };
        let mut seen = vec![false; g.len()];
        let mut leaves: KeyMap<()> = KeyMap::default();
        for &s in &starts {
            seen[s as usize] = true;
        }
        let mut stack = starts;
        let mut entries = Vec::new();
        let mut cited: Vec<u64> = Vec::new();
        let slot_rank = |s: u32| match slot(s) {
            Slot::Node(c) => rank[c as usize],
            _ => 0,
        };
        while let Some(node) = stack.pop() {
            let i = node as usize;
            let k = g.keys[i];
            let pos = position(k);
            let moves = pos.legal_moves_in(self.rules);
            let slots = g.successors(node);
            // Whether the successor can be part of a proof (false: a stored
            // win of the attacker, which comes without one).
            let mut visit = |j: usize, entries: &mut Vec<Entry>| -> Result<bool, SolveError> {
                match slot(slots[j]) {
                    Slot::Node(c) => {
                        if !seen[c as usize] {
                            seen[c as usize] = true;
                            stack.push(c);
                        }
                    }
                    _ => {
                        let leaf = pos.play(moves[j]);
                        if leaves.insert(key(&leaf), ()).is_none() {
                            if self.certified_for(goal).is_some_and(|c| c.contains_key(&key(&leaf))) {
                                // A position certified by an earlier proof:
                                // its entries come with it (below).
                                cited.push(key(&leaf));
                                return Ok(true);
                            }
                            let step = if leaf.is_lost_in(self.rules) {
                                Step::End
                            } else {
                                match self.tb.filter(|t| leaf.occupied().count() <= t.wdl_max_pieces()) {
                                    Some(tb) => Step::Table(tb.probe_wdl(&leaf)?.0),
                                    // A stored win of the attacker (see
                                    // `attacker_wins_as_leaves`): no proof here.
                                    None => return Ok(false),
                                }
                            };
                            entries.push(Entry { key: key(&leaf), rank: 0, step });
                        }
                    }
                }
                Ok(true)
            };
            let step = if moves.is_empty() {
                Step::End
            } else if side_of(k) == holder {
                let j = (0..slots.len())
                    .filter(|&j| slot_status(slots[j], status) == keep)
                    .min_by_key(|&j| if wins { slot_rank(slots[j]) } else { 0 })
                    .expect("a settled node of the holder has a successor keeping its result");
                if !visit(j, &mut entries)? {
                    return Ok(None);
                }
                Step::Move(moves[j])
            } else {
                for j in 0..slots.len() {
                    if !visit(j, &mut entries)? {
                        return Ok(None);
                    }
                }
                Step::All
            };
            entries.push(Entry { key: k, rank: if wins { rank[i] } else { 0 }, step });
        }
        if let Some(earlier) = self.certified_for(goal).filter(|_| !cited.is_empty()) {
            // The cited earlier proofs: every entry reachable from a cited
            // position (entries of this proof take precedence: each is valid
            // on its own).
            let mut have: KeyMap<()> = entries.iter().map(|e| (e.key, ())).collect();
            while let Some(k) = cited.pop() {
                if have.insert(k, ()).is_some() {
                    continue;
                }
                let e = *earlier.get(&k).expect("cited positions are certified");
                let pos = position(k);
                match e.step {
                    Step::Move(mv) => cited.push(key(&pos.play(mv))),
                    Step::All => cited.extend(pos.legal_moves_in(self.rules).iter().map(|&mv| key(&pos.play(mv)))),
                    Step::Table(_) | Step::End => {}
                }
                entries.push(e);
            }
        }
        entries.sort_unstable_by_key(|e| e.key);
        Ok(Some((goal, entries)))
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
        self.solve_resumable(pos, goal, budget, None, progress).map(|(result, _)| result)
    }

    /// Searches `goal` from `pos` within `budget`, continuing `resume` when
    /// given (a state of the same position, win question, rules, tables and
    /// certificate setting). When the budget runs out before the root is
    /// settled, the search's state comes back with the result.
    pub fn solve_resumable(
        &mut self,
        pos: &Position,
        goal: Goal,
        budget: &Budget,
        resume: Option<SearchState>,
        progress: &mut dyn FnMut(&ThresholdProgress),
    ) -> Result<(ThresholdResult, Option<SearchState>), SolveError> {
        let start = Instant::now();
        let (attacker, negated) = goal.win_question();
        if let Some(e) = self.eval.as_mut() {
            e.set_rules(self.rules);
            e.reset(pos);
        }
        let root = key(pos);
        let table_pieces = self.tb.map_or(0, |t| t.wdl_max_pieces());
        let (mut g, prior) = match resume {
            None => (Graph::default(), 0),
            Some(state) => {
                let mismatch = if state.rules != self.rules {
                    Some(format!("its rules are {}, not {}", state.rules, self.rules))
                } else if state.root != root {
                    Some(format!("it is about {}, not {pos}", state.root_position()))
                } else if state.attacker != attacker {
                    Some(format!("it asks whether {:?} wins, {goal} asks whether {attacker:?} does", state.attacker))
                } else if state.table_pieces != table_pieces {
                    Some(format!(
                        "its leaves come from tables to {} pieces, these go to {table_pieces}",
                        state.table_pieces
                    ))
                } else if state.certificates != self.certificates {
                    Some("it was made with certificates asked for; the search must be resumed the same way".into())
                } else {
                    None
                };
                if let Some(why) = mismatch {
                    return Err(SolveError::StateMismatch(why));
                }
                (state.graph, state.nodes)
            }
        };
        let mut tb_hits = 0u64;
        let mut store_hits = 0u64;
        let mut nodes = 0u64;
        let mut rounds = 0u32;
        let mut peak = 0usize;
        let mut out_of_budget = false;
        let mut last_save = Instant::now();
        // What a saved state says besides its graph.
        let mut kept = SearchState {
            rules: self.rules,
            attacker,
            root,
            table_pieces,
            certificates: self.certificates,
            nodes: 0,
            graph: Graph::default(),
        };
        if g.len() == 0 {
            // The root is always expanded, so that its best move is known.
            self.create(&mut g, pos, root, attacker, &mut tb_hits, &mut store_hits)?;
            nodes = 1;
        }
        let mut batch: Vec<Chosen> = Vec::new();
        let mut status;
        loop {
            let mut done = 0;
            for c in &batch {
                if budget.spent(nodes, start, g.memory_with_analysis()) || !g.has_room(256) {
                    out_of_budget = true;
                    break;
                }
                done += 1;
                let parent = position(g.keys[c.parent as usize]);
                let j = (c.at - g.first[c.parent as usize]) as usize;
                let child = parent.play(parent.legal_moves_in(self.rules)[j]);
                let k = key(&child);
                let id = match g.find(k) {
                    Some(id) => id,
                    None => {
                        nodes += 1;
                        self.create(&mut g, &child, k, attacker, &mut tb_hits, &mut store_hits)?
                    }
                };
                g.set_slot(c.at as usize, id);
            }
            for c in &batch[done..] {
                g.slots[c.at as usize] = c.was;
            }
            if self.refresh {
                g.refresh(self.rules);
            }
            let preds = g.predecessors();
            status = g
                .attractor(attacker, &preds, true)
                .into_iter()
                .map(|r| if r == INF { NO } else { OPEN })
                .collect::<Vec<u8>>();
            for (s, r) in status.iter_mut().zip(g.attractor(attacker, &preds, false)) {
                if r != INF {
                    *s = YES;
                }
            }
            peak = peak.max(g.memory_with_analysis());
            rounds += 1;
            let settled = status[0] != OPEN;
            if !settled {
                proof_numbers(&mut g, &status, attacker, self.cycle_aware, &preds);
            }
            drop(preds);
            // A settled root: 0 for the side that won, infinite for the other.
            let (proof_number, disproof_number) = match status[0] {
                YES => (0, INF),
                NO => (INF, 0),
                _ => (g.pn[0], g.dn[0]),
            };
            progress(&ThresholdProgress {
                nodes: prior + nodes,
                graph_nodes: g.len(),
                proof_number,
                disproof_number,
                elapsed: start.elapsed(),
            });
            if settled || out_of_budget {
                break;
            }
            if let Some((path, every)) = &self.checkpoint {
                if last_save.elapsed() >= *every {
                    kept.nodes = prior + nodes;
                    kept.graph = std::mem::take(&mut g);
                    let saved = kept.save(path);
                    g = std::mem::take(&mut kept.graph);
                    saved?;
                    last_save = Instant::now();
                }
            }
            let want = self.min_batch.max((prior + nodes) as usize / 8);
            batch = select(&mut g, &status, attacker, self.cycle_aware, want);
            if batch.is_empty() {
                break;
            }
        }
        // Keep what is known (values of positions, not of paths).
        for (i, &s) in status.iter().enumerate() {
            if s != OPEN && self.store.len() < self.max_store {
                *self.store.entry(g.keys[i]).or_insert(0) |= store_bits(attacker, s == YES);
            }
        }
        let win = match status[0] {
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
                .find(|(_, &s)| slot_status(s, &status) == keep)
                .map(|(mv, _)| mv)
        });
        let certificate = match (win, self.certificates) {
            (Some(w), true) => {
                let preds = g.predecessors();
                let sure = g.attractor(attacker, &preds, false);
                drop(preds);
                self.certificate(&g, &status, &sure, attacker, w)?
            }
            _ => None,
        };
        if self.certificates {
            // Every position this search settled for the defender, settled or
            // not at the root: the defender's strategy from all of them is
            // closed (it never enters the possible attractor), so later
            // searches of the same question may end there and cite it.
            let held: Vec<u32> = (0..g.len() as u32).filter(|&i| status[i as usize] == NO).collect();
            if !held.is_empty() {
                if let Some((goal, entries)) = self.strategy(&g, &status, &[], attacker, false, held)? {
                    self.remember(goal, &entries);
                }
            }
        }
        let result = ThresholdResult {
            goal,
            outcome,
            certificate,
            best_move,
            nodes,
            resumed_nodes: prior,
            graph_nodes: g.len(),
            slots: g.slots.len(),
            tb_hits,
            store_hits,
            memory_bytes: peak,
            elapsed: start.elapsed(),
            rounds,
            out_of_budget,
        };
        kept.nodes = prior + nodes;
        kept.graph = g;
        let state = win.is_none().then_some(kept);
        Ok((result, state))
    }

    /// Makes `pos` (key `k`, not in the graph) a node and generates its
    /// moves: successors already in the graph are linked, those whose answer
    /// is known become leaf slots, the others frontier slots with initial
    /// numbers.
    fn create(
        &mut self,
        g: &mut Graph,
        pos: &Position,
        k: u64,
        attacker: Side,
        tb_hits: &mut u64,
        store_hits: &mut u64,
    ) -> Result<u32, SolveError> {
        let id = g.open(k);
        for mv in pos.legal_moves_in(self.rules) {
            let child = pos.play(mv);
            let ck = key(&child);
            let s = match g.find(ck) {
                Some(c) => c,
                None => match self.known(&child, attacker)? {
                    Some((wins, source)) => {
                        match source {
                            Known::Tables => *tb_hits += 1,
                            Known::Store => *store_hits += 1,
                            Known::End => {}
                        }
                        if wins {
                            LEAF_WON
                        } else {
                            LEAF_LOST
                        }
                    }
                    None => {
                        let (pn, dn) = self.initial_numbers(&child, attacker);
                        frontier(pn, dn)
                    }
                },
            };
            g.push_slot(s);
        }
        g.close();
        Ok(id)
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

/// The numbers of one unsettled node from its slots' (nodes for which
/// `skip` holds and chosen slots left out): at the attacker's turn the proof
/// number is the smallest and the disproof number the sum; at the
/// defender's, the other way round. With `cycle_aware`, the attacker's sum
/// leaves out unsettled successors whose disproof number is ∞ (with numbers
/// relaxed from ∞ these are positions whose defences all lead around cycles,
/// which serve the defender), unless nothing else is left.
fn combine(g: &Graph, node: u32, attacker: Side, cycle_aware: bool, skip: impl Fn(usize) -> bool) -> (u32, u32) {
    let or = side_of(g.keys[node as usize]) == attacker;
    let (mut min, mut sum, mut summed) = (INF, 0u32, 0u32);
    for &s in g.successors(node) {
        let (pn, dn) = match slot(s) {
            Slot::Node(c) if skip(c as usize) => continue,
            Slot::Node(c) => (g.pn[c as usize], g.dn[c as usize]),
            Slot::Won => (0, INF),
            Slot::Lost => (INF, 0),
            Slot::Frontier(pn, dn) => (pn, dn),
            Slot::Chosen => continue,
        };
        let (a, b) = if or { (pn, dn) } else { (dn, pn) };
        min = min.min(a);
        if cycle_aware && or && b == INF && matches!(slot(s), Slot::Node(_)) {
            continue;
        }
        sum = sum.saturating_add(b);
        summed += 1;
    }
    if summed == 0 && cycle_aware && or {
        sum = INF;
    }
    if or {
        (min, sum)
    } else {
        (sum, min)
    }
}

/// Proof and disproof numbers of every node: settled nodes 0 / ∞, the
/// others computed from their slots (frontier slots keep their initial
/// numbers) by relaxation from ∞ (the greatest fixed point, so a cycle
/// alone never looks easy to prove), with a cap on the work.
fn proof_numbers(g: &mut Graph, status: &[u8], attacker: Side, cycle_aware: bool, preds: &Predecessors) {
    let n = g.len();
    let mut queued = vec![false; n];
    let mut queue = std::collections::VecDeque::new();
    for i in (0..n).rev() {
        match status[i] {
            YES => (g.pn[i], g.dn[i]) = (0, INF),
            NO => (g.pn[i], g.dn[i]) = (INF, 0),
            _ => {
                (g.pn[i], g.dn[i]) = (INF, INF);
                queued[i] = true;
                queue.push_back(i as u32);
            }
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
        let numbers = combine(g, node, attacker, cycle_aware, |_| false);
        let i = node as usize;
        if numbers == (g.pn[i], g.dn[i]) {
            continue;
        }
        (g.pn[i], g.dn[i]) = numbers;
        for &p in preds.of(node) {
            if status[p as usize] == OPEN && !queued[p as usize] {
                queued[p as usize] = true;
                queue.push_back(p);
            }
        }
    }
}

/// Up to `want` most-proving frontier slots: repeated descents from the
/// root, at the attacker's turn to the successor with the smallest proof
/// number, at the defender's to the smallest disproof number, never through
/// a node already on the path. A chosen slot is marked [`CHOSEN`] and left
/// out for the rest of the round (the numbers on the path above are
/// recomputed without it), so the next descent finds the next most-proving
/// slot; a node with nothing left to choose below it is left out too.
fn select(g: &mut Graph, status: &[u8], attacker: Side, cycle_aware: bool, want: usize) -> Vec<Chosen> {
    enum Pick {
        Node(u32),
        Slot(usize),
    }
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
            let or = side_of(g.keys[i]) == attacker;
            let mut best: Option<(Pick, u32, u32)> = None;
            let first = g.first[i] as usize;
            for (j, &s) in g.successors(node).iter().enumerate() {
                let (pick, pn, dn) = match slot(s) {
                    Slot::Node(c) => {
                        let ci = c as usize;
                        if on_path[ci] || excluded[ci] || status[ci] != OPEN {
                            continue;
                        }
                        (Pick::Node(c), g.pn[ci], g.dn[ci])
                    }
                    Slot::Frontier(pn, dn) => (Pick::Slot(first + j), pn, dn),
                    _ => continue,
                };
                let (a, b) = if or { (pn, dn) } else { (dn, pn) };
                if best.as_ref().is_none_or(|(_, ba, bb)| (a, std::cmp::Reverse(b)) < (*ba, std::cmp::Reverse(*bb))) {
                    best = Some((pick, a, b));
                }
            }
            match best {
                Some((Pick::Node(c), _, _)) => {
                    on_path[c as usize] = true;
                    path.push(c);
                }
                Some((Pick::Slot(at), _, _)) => {
                    out.push(Chosen { at: at as u32, was: g.slots[at], parent: node });
                    g.slots[at] = CHOSEN;
                    break;
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
            if !excluded[pi] {
                let open = g.successors(p).iter().any(|&s| match slot(s) {
                    Slot::Node(c) => !excluded[c as usize] && status[c as usize] == OPEN,
                    Slot::Frontier(..) => true,
                    _ => false,
                });
                if open {
                    (g.pn[pi], g.dn[pi]) = combine(g, p, attacker, cycle_aware, |c| excluded[c]);
                } else {
                    excluded[pi] = true;
                }
            }
        }
    }
    out
}
