//! Strategy extraction: the proven strategy of a settled search as
//! certificate entries, and the draw-goal proofs a solver keeps so that
//! later searches may end at their positions and cite them.

use alq_engine::{Move, Position, Side};

use super::{slot_status, Status, ThresholdSolver};
use crate::certificate::{Certificate, Entry, Step};
use crate::compact::{side_of, slot, CompactGraph, Slot};
use crate::error::SolveError;
use crate::goal::Goal;
use crate::keymap::KeyMap;

impl ThresholdSolver<'_> {
    /// The entries certified so far for `goal` (see `certified`).
    pub(super) fn certified_for(&self, goal: Goal) -> Option<&KeyMap<Entry>> {
        self.certified.iter().find(|(g, _)| *g == goal).map(|(_, c)| c)
    }

    /// Keeps draw-goal entries (and win-goal ones with `cite_wins`), so that
    /// later searches of the same question use their positions as leaves and
    /// cite them. `entries` must be closed
    /// (every move and every opponent reply leads to an entry of the set, of
    /// an earlier set, or a leaf among them); a set that would take the
    /// certified positions past `max_store` is left out whole, never in part.
    pub(super) fn remember(&mut self, goal: Goal, entries: &[Entry]) {
        if goal.is_win() && !self.cite_wins {
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

    /// Takes in draw-goal entries proven elsewhere (a deepening's earlier
    /// parts), so that later searches of `goal` end at their positions and
    /// their certificates cite them. `entries` must be closed as for
    /// `remember`: every certificate that cites them is checked in the end
    /// anyway, so an entry that does not hold shows there. Win goals keep
    /// nothing.
    pub fn add_certified(&mut self, goal: Goal, entries: &[Entry]) {
        self.remember(goal, entries);
    }

    /// Positions certified so far for `goal` (draw goals; see
    /// [`ThresholdSolver::want_certificates`]).
    pub fn certified_len(&self, goal: Goal) -> usize {
        self.certified_for(goal).map_or(0, |c| c.len())
    }

    /// Remembers the defender's strategy from every position this search
    /// settled for the defender, settled or not at the root: it is closed
    /// (it never enters the possible attractor), so later searches of the
    /// same question may end there and cite it.
    pub(super) fn remember_held(
        &mut self,
        g: &CompactGraph,
        status: &[Status],
        attacker: Side,
    ) -> Result<(), SolveError> {
        let held: Vec<u32> = (0..g.len() as u32).filter(|&i| status[i as usize] == Status::NotWon).collect();
        if !held.is_empty() {
            if let Some((goal, entries)) = self.strategy(g, status, &[], attacker, false, held)? {
                self.remember(goal, &entries);
            }
        }
        Ok(())
    }

    /// The proof of the settled root: when `attacker` wins, its winning
    /// strategy with the ranks of the sure attractor; when it does not,
    /// the defender's strategy that stays out of the possible attractor.
    /// Only positions the strategy reaches are written. `None` when the
    /// attacker's win rests on a stored win (see `attacker_wins_as_leaves`).
    pub(super) fn certificate(
        &self,
        g: &CompactGraph,
        status: &[Status],
        attacker: Side,
        wins: bool,
    ) -> Result<Option<Certificate>, SolveError> {
        let sure = g.attractor(attacker, &g.predecessors(), false);
        let Some((goal, entries)) = self.strategy(g, status, &sure, attacker, wins, vec![0])? else {
            return Ok(None);
        };
        let cert = Certificate { rules: self.rules, goal, root: g.keys[0], table_pieces: self.table_pieces(), entries };
        Ok(Some(cert.lean()))
    }

    /// The strategy of the side holding the result from the nodes `starts`
    /// (all settled that way): its entries, sorted by key, with the goal
    /// they prove. Every position reached gets an entry; cited positions of
    /// earlier proofs bring the entries they reach. `None` when it reaches a
    /// stored win of the attacker (see `attacker_wins_as_leaves`).
    fn strategy(
        &self,
        g: &CompactGraph,
        status: &[Status],
        rank: &[u32],
        attacker: Side,
        wins: bool,
        starts: Vec<u32>,
    ) -> Result<Option<(Goal, Vec<Entry>)>, SolveError> {
        let holder = if wins { attacker } else { attacker.opponent() };
        let goal = if wins { Goal::wins_of(holder) } else { Goal::draws_of(holder) };
        // A win citing earlier wins ranks its own entries above all of them.
        let rank_offset = match self.certified_for(goal).filter(|_| wins) {
            Some(earlier) => earlier.values().map(|e| e.rank).max().map_or(0, |r| r + 1),
            None => 0,
        };
        let mut walk = Walk {
            solver: self,
            g,
            status,
            rank,
            rank_offset,
            holder,
            wins,
            goal,
            seen: vec![false; g.len()],
            leaves: KeyMap::default(),
            stack: Vec::new(),
            entries: Vec::new(),
            cited: Vec::new(),
        };
        for &s in &starts {
            walk.seen[s as usize] = true;
        }
        walk.stack = starts;
        while let Some(node) = walk.stack.pop() {
            if !walk.entry(node)? {
                return Ok(None);
            }
        }
        let Walk { mut entries, cited, .. } = walk;
        self.cite(goal, &mut entries, cited);
        entries.sort_unstable_by_key(|e| e.key);
        Ok(Some((goal, entries)))
    }

    /// Adds the entries of the earlier proofs of `goal` that the positions
    /// `cited` reach. For a draw goal, entries already in `entries` take
    /// precedence (each is valid on its own, ranks 0); for a win goal the
    /// earlier entry replaces the new one, so that every step from an
    /// earlier entry keeps to the earlier proofs' lower ranks.
    fn cite(&self, goal: Goal, entries: &mut Vec<Entry>, mut cited: Vec<u64>) {
        let Some(earlier) = self.certified_for(goal).filter(|_| !cited.is_empty()) else { return };
        let mut have: KeyMap<usize> = entries.iter().enumerate().map(|(i, e)| (e.key, i)).collect();
        let mut taken: KeyMap<()> = KeyMap::default();
        while let Some(k) = cited.pop() {
            if taken.insert(k, ()).is_some() {
                continue;
            }
            let mine = have.get(&k).copied();
            if mine.is_some() && !goal.is_win() {
                continue;
            }
            let e = *earlier.get(&k).expect("cited positions are certified");
            let pos = Position::from_key_unchecked(k);
            match e.step {
                Step::Move(mv) => cited.push(pos.play(mv).key()),
                Step::All => cited.extend(pos.legal_moves_in(self.rules).iter().map(|&mv| pos.play(mv).key())),
                Step::Table(_) | Step::End => {}
            }
            match mine {
                Some(i) => entries[i] = e,
                None => {
                    have.insert(k, entries.len());
                    entries.push(e);
                }
            }
        }
    }
}

/// A walk of the holder's strategy through the graph (see
/// `ThresholdSolver::strategy`).
struct Walk<'w, 'a> {
    solver: &'w ThresholdSolver<'a>,
    g: &'w CompactGraph,
    status: &'w [Status],
    /// Ranks of the sure attractor (for a win; unused for a draw).
    rank: &'w [u32],
    /// Added to every rank of a win's own entries: above the ranks of the
    /// earlier wins it may cite.
    rank_offset: u32,
    /// The side whose strategy it is.
    holder: Side,
    wins: bool,
    goal: Goal,
    seen: Vec<bool>,
    /// Positions outside the graph given an entry or cited.
    leaves: KeyMap<()>,
    stack: Vec<u32>,
    entries: Vec<Entry>,
    /// Positions of earlier proofs the strategy reaches.
    cited: Vec<u64>,
}

impl Walk<'_, '_> {
    /// The entry of `node`, its successors along the strategy queued; false
    /// when one is a stored win of the attacker, which comes without a proof.
    fn entry(&mut self, node: u32) -> Result<bool, SolveError> {
        let (g, status) = (self.g, self.status);
        let i = node as usize;
        let k = g.keys[i];
        let pos = Position::from_key_unchecked(k);
        let moves = pos.legal_moves_in(self.solver.rules);
        let slots = g.successors(node);
        let step = if moves.is_empty() {
            Step::End
        } else if side_of(k) == self.holder {
            let keep = Status::of(self.wins);
            let j = (0..slots.len())
                .filter(|&j| slot_status(slots[j], status) == keep)
                .min_by_key(|&j| if self.wins { self.slot_rank(slots[j]) } else { 0 })
                .expect("a settled node of the holder has a successor keeping its result");
            if !self.visit(&pos, moves[j], slots[j])? {
                return Ok(false);
            }
            Step::Move(moves[j])
        } else {
            for j in 0..slots.len() {
                if !self.visit(&pos, moves[j], slots[j])? {
                    return Ok(false);
                }
            }
            Step::All
        };
        let rank = if self.wins { self.rank[i] + self.rank_offset } else { 0 };
        self.entries.push(Entry { key: k, rank, step });
        Ok(true)
    }

    /// The rank of what a slot leads to (leaves: 0).
    fn slot_rank(&self, s: u32) -> u32 {
        match slot(s) {
            Slot::Node(c) => self.rank[c as usize],
            _ => 0,
        }
    }

    /// Follows move `mv` of `pos` (slot `s`): a node is queued, a position
    /// outside the graph gets its leaf entry or is cited. False when the
    /// successor cannot be part of a proof (a stored win of the attacker).
    fn visit(&mut self, pos: &Position, mv: Move, s: u32) -> Result<bool, SolveError> {
        if let Slot::Node(c) = slot(s) {
            if !self.seen[c as usize] {
                self.seen[c as usize] = true;
                self.stack.push(c);
            }
            return Ok(true);
        }
        let leaf = pos.play(mv);
        let k = leaf.key();
        if self.leaves.insert(k, ()).is_some() {
            return Ok(true);
        }
        if self.solver.certified_for(self.goal).is_some_and(|c| c.contains_key(&k)) {
            // A position certified by an earlier proof: its entries come
            // with it (`ThresholdSolver::cite`).
            self.cited.push(k);
            return Ok(true);
        }
        let step = if leaf.is_lost_in(self.solver.rules) {
            Step::End
        } else {
            match self.solver.tb.filter(|_| leaf.occupied().count() <= self.solver.table_pieces()) {
                Some(tb) => Step::Table(tb.probe_wdl(&leaf)?.0),
                // A stored win of the attacker (see `attacker_wins_as_leaves`):
                // no proof here.
                None => return Ok(false),
            }
        };
        self.entries.push(Entry { key: k, rank: 0, step });
        Ok(true)
    }
}
