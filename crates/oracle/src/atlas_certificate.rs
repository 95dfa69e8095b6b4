//! Certificates of the opening atlas: for each threshold goal, one
//! certificate of many roots whose entries hold every position of the
//! opening tree that the atlas says meets the goal.
//!
//! A certificate proves its goal at every position it has an entry for
//! (both checkers check every entry, reached from the root or not), so the
//! atlas's value of a position is certified when the certificates of the
//! goals that make it up hold it: a White win by `white-wins`, a draw by
//! `white-draws` and `black-draws`, a Black win by `black-wins`.
//!
//! [`seed`] writes the tree's part: each tree position meeting the goal
//! gets the move of the atlas (the prover to move: a move to a tree
//! position meeting the goal) or `all` (the opponent to move: every move
//! leads to one), a `table` leaf within the tables, an `end` leaf; the
//! positions of the last ply, and those whose moves the atlas does not
//! know well enough, become leaves to prove, written as `table` leaves of
//! more pieces than the tables hold. [`alq_solver::deepen::deepen`] then
//! proves each by its own search over the tables (the sub-proofs kept in a
//! parts folder, so a killed run resumes), and merges them into one
//! certificate that keeps every root's proof.

use std::collections::{HashMap, HashSet};

use alq_engine::{Move, Position, RuleSet};
use alq_solver::certificate::{Certificate, Entry, Step};
use alq_solver::{Goal, ProvenStore};
use alq_tablebase::{Tablebase, Wdl};

use crate::OracleError;

/// Whether the store says `goal` holds at `pos`.
pub fn meets(store: &ProvenStore, pos: &Position, goal: Goal) -> bool {
    let (side, negated) = goal.win_question();
    store.answer(pos, side) == Some(!negated)
}

/// What [`seed`] made.
#[derive(Clone, Debug)]
pub struct Seed {
    /// The tree's part of the certificate, with the leaves to prove as
    /// `table` leaves of more pieces than the tables hold (`tables` is the
    /// most pieces of any of them, so `alq solve --deepen` takes it too).
    pub certificate: Certificate,
    /// Tree positions of plies ≤ `depth` meeting the goal (each has an
    /// entry).
    pub positions: usize,
    /// Leaves to prove by a search: tree positions, and cited table leaves
    /// beyond the tables.
    pub to_prove: usize,
}

/// The seed of `goal`'s certificate over the opening `tree` (the plies of
/// [`crate::atlas::tree`]) by the atlas `store`, with leaves of at most
/// `tb`'s pieces probed there, for the tree's positions of plies ≤ `depth`
/// (the roots); `None` when none meets the goal. A position of ply `depth`
/// is a leaf to prove unless it is in `expand`, and then it takes the
/// atlas's step like the plies above (while the tree has the next ply): a
/// hard leaf is so split into its moves. The root named in the file is the
/// first position (fewest plies) meeting the goal. The
/// entries of the certificates `cite` of the same goal and rules (each
/// closed: every step leads to one of its entries) come first: the tree's
/// positions they hold need no proof of their own, and their table leaves
/// beyond `tb` are leaves to prove.
#[allow(clippy::too_many_arguments)]
pub fn seed(
    rules: RuleSet,
    tree: &[Vec<Position>],
    store: &ProvenStore,
    tb: Option<&Tablebase>,
    goal: Goal,
    depth: usize,
    expand: &HashSet<u64>,
    cite: &[&Certificate],
) -> Result<Option<Seed>, OracleError> {
    let k = tb.map_or(0, Tablebase::wdl_max_pieces);
    let last = tree.len().saturating_sub(1);
    // Each position once, at the first ply it is reached.
    let mut ply_of: HashMap<u64, usize> = HashMap::new();
    let mut order = Vec::new();
    for (ply, positions) in tree.iter().enumerate() {
        for pos in positions {
            if meets(store, pos, goal) && !ply_of.contains_key(&pos.key()) {
                ply_of.insert(pos.key(), ply);
                order.push(*pos);
            }
        }
    }
    let Some(root) = order.first().filter(|p| ply_of[&p.key()] <= depth).map(Position::key) else { return Ok(None) };
    let prover = goal.side();
    // The value a leaf to prove claims (the side to move's view).
    let claim = |pos: &Position| match (goal.is_win(), pos.side_to_move() == prover) {
        (false, _) => Wdl::Draw,
        (true, true) => Wdl::Win,
        (true, false) => Wdl::Loss,
    };
    let mut entries: HashMap<u64, Entry> = HashMap::new();
    for cert in cite.iter().filter(|c| c.goal == goal && c.rules == rules) {
        for e in &cert.entries {
            entries.entry(e.key).or_insert(*e);
        }
    }
    // From the roots (the positions of plies ≤ `depth`), each position's
    // step and the positions it leads to.
    let mut work: Vec<Position> = order.iter().filter(|p| ply_of[&p.key()] <= depth).rev().copied().collect();
    let positions = work.len();
    while let Some(pos) = work.pop() {
        if entries.contains_key(&pos.key()) {
            continue;
        }
        let moves = pos.legal_moves_in(rules);
        let pieces = pos.occupied().count();
        let step = if moves.is_empty() {
            Step::End
        } else if let Some(tb) = tb.filter(|_| pieces <= k) {
            let (wdl, _) = tb.probe_wdl(&pos)?;
            Step::Table(wdl)
        } else {
            let ply = ply_of[&pos.key()];
            let inner = ply < last && (ply < depth || expand.contains(&pos.key()));
            let step = if !inner {
                None
            } else if pos.side_to_move() == prover {
                // A move to a position already held first (a cited proof,
                // or a root), then to one of the next ply: a win's strategy
                // then moves on, and cannot circle.
                // Each move to a tree position meeting the goal, with that
                // position's ply and whether it is held already.
                let good: Vec<(Move, usize, bool)> = moves
                    .iter()
                    .filter_map(|&mv| {
                        let child = pos.play(mv).key();
                        let child_ply = *ply_of.get(&child)?;
                        Some((mv, child_ply, entries.contains_key(&child) || child_ply <= depth))
                    })
                    .collect();
                good.iter()
                    .find(|&&(_, child_ply, held)| held && child_ply > ply)
                    .or_else(|| good.iter().find(|&&(_, child_ply, _)| child_ply > ply))
                    .or_else(|| good.first())
                    .map(|&(mv, _, _)| Step::Move(mv))
            } else {
                moves.iter().all(|&mv| ply_of.contains_key(&pos.play(mv).key())).then_some(Step::All)
            };
            step.unwrap_or_else(|| Step::Table(claim(&pos)))
        };
        match step {
            Step::Move(mv) => work.push(pos.play(mv)),
            Step::All => work.extend(moves.iter().map(|&mv| pos.play(mv))),
            Step::Table(_) | Step::End => {}
        }
        entries.insert(pos.key(), Entry { key: pos.key(), rank: 0, step });
    }
    let mut entries: Vec<Entry> = entries.into_values().collect();
    let deep: Vec<u32> = entries
        .iter()
        .filter(|e| matches!(e.step, Step::Table(_)))
        .map(|e| Position::from_key_unchecked(e.key).occupied().count())
        .filter(|&n| n > k)
        .collect();
    let (to_prove, deepest) = (deep.len(), deep.iter().copied().max().unwrap_or(k));
    // Ranks stay 0: the deepening ranks the merged certificate of a win
    // goal (and refuses one whose strategies circle).
    entries.sort_unstable_by_key(|e| e.key);
    let certificate = Certificate { rules, goal, root, table_pieces: deepest, entries };
    Ok(Some(Seed { certificate, positions, to_prove }))
}

/// Whether every goal the store says `pos` meets is held by `certified`
/// (what the certificates prove): the atlas's value is then certified.
pub fn certified_value(pos: &Position, store: &ProvenStore, certified: &ProvenStore) -> bool {
    Goal::ALL.iter().all(|&g| !meets(store, pos, g) || meets(certified, pos, g))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::atlas::tree;

    fn closed(cert: &Certificate) -> bool {
        let keys: HashSet<u64> = cert.entries.iter().map(|e| e.key).collect();
        cert.entries.iter().all(|e| {
            let pos = Position::from_key_unchecked(e.key);
            match e.step {
                Step::Move(mv) => keys.contains(&pos.play(mv).key()),
                Step::All => pos.legal_moves_in(cert.rules).iter().all(|&mv| keys.contains(&pos.play(mv).key())),
                Step::Table(_) | Step::End => true,
            }
        })
    }

    #[test]
    fn the_seed_holds_every_root_meeting_the_goal_and_splits_what_it_is_asked_to() {
        let rules = RuleSet::BrainKing;
        let plies = tree(rules, Position::start(), 4);
        let store = crate::shipped_atlas();
        let goal = Goal::BlackDraws;
        let seed = seed(rules, &plies, store, None, goal, 2, &HashSet::new(), &[]).unwrap().unwrap();
        let cert = &seed.certificate;
        assert_eq!((cert.goal, cert.root), (goal, Position::start().key()));
        let keys: HashSet<u64> = cert.entries.iter().map(|e| e.key).collect();
        let roots: Vec<&Position> = plies[..=2].iter().flatten().filter(|p| meets(store, p, goal)).collect();
        assert_eq!(seed.positions, roots.iter().map(|p| p.key()).collect::<HashSet<_>>().len());
        assert!(roots.iter().all(|p| keys.contains(&p.key())));
        assert!(closed(cert));
        // Without tables every leaf is one to prove, a draw claim at ply 2.
        let leaves: Vec<_> = cert.entries.iter().filter(|e| matches!(e.step, Step::Table(_))).collect();
        assert_eq!(leaves.len(), seed.to_prove);
        assert!(leaves.iter().all(|e| e.step == Step::Table(Wdl::Draw)));
        let ply2: HashSet<u64> = plies[2].iter().map(Position::key).collect();
        assert!(leaves.iter().all(|e| ply2.contains(&e.key)));
        // A leaf asked to split takes the atlas's step, and its moves lead to entries.
        let split = leaves[0].key;
        let expand: HashSet<u64> = [split].into();
        let deeper = super::seed(rules, &plies, store, None, goal, 2, &expand, &[]).unwrap().unwrap();
        let entry = deeper.certificate.entries.iter().find(|e| e.key == split).unwrap();
        assert!(matches!(entry.step, Step::Move(_) | Step::All), "{:?}", entry.step);
        assert!(closed(&deeper.certificate));
        assert!(deeper.to_prove >= seed.to_prove);
        // Cited proofs come first: the start takes the shipped certificate's step.
        let shipped: Vec<&Certificate> = crate::shipped_certificates().iter().collect();
        let cited = super::seed(rules, &plies, store, None, goal, 2, &HashSet::new(), &shipped).unwrap().unwrap();
        let start = Position::start().key();
        let of = |c: &Certificate| c.entries.iter().find(|e| e.key == start).copied();
        let proof = shipped.iter().find(|c| c.goal == goal && c.root == start).unwrap();
        assert_eq!(of(&cited.certificate), of(proof));
        assert!(closed(&cited.certificate));
        // Nothing of the tree meets a goal no position holds.
        assert!(super::seed(rules, &plies, store, None, Goal::WhiteWins, 2, &HashSet::new(), &[]).unwrap().is_none());
    }
}
