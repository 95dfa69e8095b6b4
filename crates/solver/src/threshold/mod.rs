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
//!
//! The module's parts, by job: this file is the solver's face (settings,
//! what it knows, [`ThresholdSolver::solve`]); `search.rs` runs one search
//! (expansions, analyses, the result); `pn.rs` holds the proof-number
//! guidance (initial numbers from a quiescent evaluation, their
//! combination, the choice of what to expand); `strategy.rs` extracts the
//! proven strategies as certificates; `resume.rs` checks a saved search
//! against the one asked for and saves checkpoints.

mod pn;
mod resume;
mod search;
mod strategy;

use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use alq_engine::{Evaluator, Move, Position, RuleSet, Side};
use alq_tablebase::{Tablebase, Wdl};

use crate::budget::Budget;
use crate::certificate::{Certificate, Entry};
use crate::compact::{slot, Slot};
use crate::error::SolveError;
use crate::keymap::KeyMap;
use crate::store::{answer_in, ProvenStore};

pub use crate::goal::Goal;

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
/// wins / does not. One byte a node, as the analysis's memory figure counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
enum Status {
    Open = 0,
    Won = 2,
    NotWon = 3,
}

impl Status {
    /// Whether the asked side wins, when settled.
    fn settled(self) -> Option<bool> {
        match self {
            Status::Open => None,
            Status::Won => Some(true),
            Status::NotWon => Some(false),
        }
    }

    /// The standing that keeps a settled result: `Won` for a win.
    fn of(wins: bool) -> Status {
        if wins {
            Status::Won
        } else {
            Status::NotWon
        }
    }
}

/// The standing of what a slot leads to.
fn slot_status(s: u32, status: &[Status]) -> Status {
    match slot(s) {
        Slot::Node(c) => status[c as usize],
        Slot::Won => Status::Won,
        Slot::Lost => Status::NotWon,
        Slot::Frontier(..) | Slot::Chosen => Status::Open,
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
    /// The tables field of the stores read (see [`ProvenStore::tables`]).
    read_tables: Option<u32>,
    /// Tables positions with more pieces than this are not leaves.
    leaf_pieces: Option<u32>,
    max_store: usize,
    /// Positions whose answers are kept even past `max_store` (as every
    /// search's root is): an atlas run's tree.
    keep_always: std::sync::Arc<std::collections::HashSet<u64>>,
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
    /// With certificates: whether win-goal certificates are kept too, so
    /// that later searches of the same win end at their positions and cite
    /// them. A win's entries carry ranks, so a certificate citing earlier
    /// ones ranks its own entries above every kept one (falling ranks stay
    /// falling), and where a cited proof and the new one share a position
    /// the earlier entry stands. Off by default; the opening-tree solver
    /// turns it on, deepest positions first.
    pub cite_wins: bool,
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
            read_tables: Some(0),
            leaf_pieces: None,
            max_store: 50_000_000,
            keep_always: Default::default(),
            min_batch: 256,
            refresh: true,
            cycle_aware: false,
            certificates: false,
            certified: Vec::new(),
            attacker_wins_as_leaves: false,
            cite_wins: false,
            checkpoint: None,
        }
    }

    /// How many positions' answers the store keeps at most (50 million by
    /// default, about 1.5 GB): past it, a search's root and the positions
    /// of [`ThresholdSolver::keep_always`] only.
    pub fn set_max_store(&mut self, positions: usize) {
        self.max_store = positions;
    }

    /// Positions (keys) whose answers the store keeps even when it is full,
    /// such as an atlas run's tree: a search that settles a sibling on the
    /// way then saves the sibling's own search.
    pub fn keep_always(&mut self, keys: std::sync::Arc<std::collections::HashSet<u64>>) {
        self.keep_always = keys;
    }

    pub fn set_rules(&mut self, rules: RuleSet) {
        self.rules = rules;
        if let Some(e) = self.eval.as_mut() {
            e.set_rules(rules);
        }
    }

    /// Ask for certificates (then [`ThresholdResult::certificate`] holds one).
    /// Only table positions of at most `pieces` pieces are leaves (`None`:
    /// every position the tables cover): a proof then reaches, say, the
    /// distance tables instead of stopping where win/draw/loss tables say
    /// only "won".
    pub fn set_leaf_pieces(&mut self, pieces: Option<u32>) {
        self.leaf_pieces = pieces;
    }

    /// The most pieces of a table leaf.
    pub(crate) fn table_pieces(&self) -> u32 {
        let tables = self.tb.map_or(0, |t| t.wdl_max_pieces());
        self.leaf_pieces.map_or(tables, |p| p.min(tables))
    }

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
        if store.rules != self.rules {
            return Err(SolveError::StoreRules { from: store.rules, into: self.rules });
        }
        // Checked first, so that a refused store adds nothing.
        let merged = |k: &u64, bits: u8| self.store.get(k).copied().unwrap_or(0) | bits;
        if let Some((&k, _)) = store.entries.iter().find(|(k, &b)| crate::store::contradicts(merged(k, b))) {
            return Err(SolveError::Contradiction { position: Position::from_key_unchecked(k) });
        }
        for (&k, &bits) in &store.entries {
            *self.store.entry(k).or_insert(0) |= bits;
        }
        self.read_tables = self.read_tables.zip(store.tables).map(|(a, b)| a.max(b));
        Ok(())
    }

    /// What this solver has settled, as a store.
    pub fn proven_store(&self) -> ProvenStore {
        ProvenStore { rules: self.rules, tables: self.store_tables(), entries: self.store.clone() }
    }

    /// The most pieces of the tables its settled answers may lean on (its
    /// own and those of the stores it read; `None` when a store did not
    /// say).
    pub fn store_tables(&self) -> Option<u32> {
        self.read_tables.map(|t| t.max(self.tb.map_or(0, |tb| tb.max_pieces())))
    }

    /// Positions whose win questions this solver has answered.
    pub fn store_len(&self) -> usize {
        self.store.len()
    }

    /// Whether `side` wins from `pos`, when this solver has proven it either way.
    pub fn stored(&self, pos: &Position, side: Side) -> Option<bool> {
        answer_in(*self.store.get(&pos.key())?, side)
    }

    /// Whether `attacker` wins from `pos`, when the position has no legal
    /// move or the tables or the store know: (answer, where from).
    fn known(&self, pos: &Position, attacker: Side) -> Result<Option<(bool, Known)>, SolveError> {
        if pos.is_lost_in(self.rules) {
            return Ok(Some((pos.side_to_move() != attacker, Known::End)));
        }
        if let Some(tb) = self.tb {
            if pos.occupied().count() <= self.table_pieces() {
                let (wdl, _) = tb.probe_wdl(pos)?;
                let for_attacker = if pos.side_to_move() == attacker { wdl } else { wdl.for_mover() };
                return Ok(Some((for_attacker == Wdl::Win, Known::Tables)));
            }
        }
        if self.certificates {
            // Only proofs this solver certified earlier: the opponent of the
            // attacker holds a draw there, so the attacker does not win.
            let draws = Goal::draws_of(attacker.opponent());
            if self.certified_for(draws).is_some_and(|c| c.contains_key(&pos.key())) {
                return Ok(Some((false, Known::Store)));
            }
            // Wins this solver certified earlier (with `cite_wins`).
            if self.certified_for(Goal::wins_of(attacker)).is_some_and(|c| c.contains_key(&pos.key())) {
                return Ok(Some((true, Known::Store)));
            }
            let won = self.attacker_wins_as_leaves && self.stored(pos, attacker) == Some(true);
            return Ok(won.then_some((true, Known::Store)));
        }
        Ok(self.stored(pos, attacker).map(|w| (w, Known::Store)))
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
}
