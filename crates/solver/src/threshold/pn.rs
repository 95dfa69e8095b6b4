//! Proof-number guidance of the threshold search: initial numbers of new
//! positions from a quiescent evaluation, numbers of nodes from their
//! successors, and the choice of the most-proving frontier slots to expand.
//! The numbers only choose what to expand; results come from the fixed
//! points of the analysis.

use std::cmp::Reverse;
use std::collections::VecDeque;

use alq_engine::{Evaluator, Position, RuleSet, Side};

use super::{Status, ThresholdSolver, INF};
use crate::compact::{side_of, slot, CompactGraph, Slot, CHOSEN};
use crate::predecessors::Predecessors;

/// A frontier slot taken into a batch: where it is, what it held, whose it is.
#[derive(Clone, Copy)]
pub(super) struct Chosen {
    pub(super) at: u32,
    pub(super) was: u32,
    pub(super) parent: u32,
}

impl ThresholdSolver<'_> {
    /// Proof and disproof numbers of a new frontier position from the
    /// evaluator: the better the attacker stands, the smaller the proof
    /// number and the larger the disproof number (1 and 1 without one).
    pub(super) fn initial_numbers(&mut self, pos: &Position, attacker: Side) -> (u32, u32) {
        let Some(eval) = self.eval.as_mut() else { return (1, 1) };
        let score = quiescence(eval.as_mut(), pos, self.rules, 6);
        let for_attacker = if pos.side_to_move() == attacker { score } else { -score };
        // 1 at equality; a factor of e per 150 cp, capped.
        let scale = |s: i32| (((s as f64) / 150.0).exp() * 4.0).round().clamp(1.0, 10_000.0) as u32;
        (scale(-for_attacker), scale(for_attacker))
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
fn combine(g: &CompactGraph, node: u32, attacker: Side, cycle_aware: bool, skip: impl Fn(usize) -> bool) -> (u32, u32) {
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
pub(super) fn proof_numbers(
    g: &mut CompactGraph,
    status: &[Status],
    attacker: Side,
    cycle_aware: bool,
    preds: &Predecessors,
) {
    let n = g.len();
    let mut queued = vec![false; n];
    let mut queue = VecDeque::new();
    for i in (0..n).rev() {
        match status[i] {
            Status::Won => (g.pn[i], g.dn[i]) = (0, INF),
            Status::NotWon => (g.pn[i], g.dn[i]) = (INF, 0),
            Status::Open => {
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
            if status[p as usize] == Status::Open && !queued[p as usize] {
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
pub(super) fn select(
    g: &mut CompactGraph,
    status: &[Status],
    attacker: Side,
    cycle_aware: bool,
    want: usize,
) -> Vec<Chosen> {
    let n = g.len();
    let mut selection = Selection {
        g,
        status,
        attacker,
        cycle_aware,
        on_path: vec![false; n],
        excluded: vec![false; n],
        path: Vec::new(),
    };
    let mut out = Vec::new();
    while out.len() < want && !selection.excluded[0] {
        out.extend(selection.descend());
        selection.unwind();
    }
    out
}

/// The state of [`select`] in one round.
struct Selection<'g> {
    g: &'g mut CompactGraph,
    status: &'g [Status],
    attacker: Side,
    cycle_aware: bool,
    /// Nodes on the current descent's path (never entered twice).
    on_path: Vec<bool>,
    /// Nodes with nothing left to choose below them this round.
    excluded: Vec<bool>,
    path: Vec<u32>,
}

/// Where a descent goes next.
enum Pick {
    Node(u32),
    Slot(usize),
}

impl Selection<'_> {
    /// One descent from the root along the most-proving successors: the
    /// frontier slot it ends at, marked [`CHOSEN`], or `None` when it ends at
    /// a node with nothing left to choose (which is then excluded).
    fn descend(&mut self) -> Option<Chosen> {
        self.path.clear();
        self.path.push(0);
        self.on_path[0] = true;
        loop {
            let node = *self.path.last().expect("the root is on the path");
            match self.best(node) {
                Some(Pick::Node(c)) => {
                    self.on_path[c as usize] = true;
                    self.path.push(c);
                }
                Some(Pick::Slot(at)) => {
                    let chosen = Chosen { at: at as u32, was: self.g.slots[at], parent: node };
                    self.g.slots[at] = CHOSEN;
                    return Some(chosen);
                }
                None => {
                    // Nothing left to choose below this node in this round.
                    self.excluded[node as usize] = true;
                    return None;
                }
            }
        }
    }

    /// The most-proving successor of `node` that is a frontier slot or an
    /// unsettled node neither on the path nor excluded.
    fn best(&self, node: u32) -> Option<Pick> {
        let g = &*self.g;
        let i = node as usize;
        let or = side_of(g.keys[i]) == self.attacker;
        let mut best: Option<(Pick, u32, u32)> = None;
        let first = g.first[i] as usize;
        for (j, &s) in g.successors(node).iter().enumerate() {
            let (pick, pn, dn) = match slot(s) {
                Slot::Node(c) => {
                    let ci = c as usize;
                    if self.on_path[ci] || self.excluded[ci] || self.status[ci] != Status::Open {
                        continue;
                    }
                    (Pick::Node(c), g.pn[ci], g.dn[ci])
                }
                Slot::Frontier(pn, dn) => (Pick::Slot(first + j), pn, dn),
                _ => continue,
            };
            let (a, b) = if or { (pn, dn) } else { (dn, pn) };
            if best.as_ref().is_none_or(|(_, ba, bb)| (a, Reverse(b)) < (*ba, Reverse(*bb))) {
                best = Some((pick, a, b));
            }
        }
        best.map(|(pick, _, _)| pick)
    }

    /// Leaves the descent's path from the bottom up: each node's numbers are
    /// recomputed without excluded nodes and chosen slots, and a node with
    /// nothing left to choose is excluded.
    fn unwind(&mut self) {
        for &p in self.path.iter().rev() {
            let pi = p as usize;
            self.on_path[pi] = false;
            if self.excluded[pi] {
                continue;
            }
            let open = self.g.successors(p).iter().any(|&s| match slot(s) {
                Slot::Node(c) => !self.excluded[c as usize] && self.status[c as usize] == Status::Open,
                Slot::Frontier(..) => true,
                _ => false,
            });
            if open {
                let excluded = &self.excluded;
                (self.g.pn[pi], self.g.dn[pi]) = combine(self.g, p, self.attacker, self.cycle_aware, |c| excluded[c]);
            } else {
                self.excluded[pi] = true;
            }
        }
    }
}
