//! Whether a win certificate also wins under the no-progress rule of games
//! (RULES.md, "End of the game": a game is drawn after 60 plies in a row
//! without a capture or a forward move; the check that the side to move has
//! no legal move comes first).
//!
//! A win certificate's strategy never repeats a position (its ranks fall),
//! so the repetition rule never applies to it; the no-progress rule can,
//! if the opponent can force a long run of plies without progress. For each
//! entry the *run* is the most plies the opponent can force, the prover
//! keeping to the certificate's moves, until a progress move has been made
//! or the game has ended (that ply included):
//! - an `end` leaf: 0 (the game is over);
//! - a `move` or `all` entry: over the moves it covers (the prover's one,
//!   every one of the opponent's), the largest of 1 for a progress move and
//!   1 + the run of the position reached otherwise;
//! - a `table` leaf: its distance to progress in the distance-to-progress
//!   tables (`alq tb build --kind dtz`: plies to the next progress move with
//!   the winner hurrying and the loser delaying, on a line that keeps the
//!   win under the rule), and a cursed win (a blessed loss for the side to
//!   move) fails.
//!
//! With [`Leaves::End`] a table leaf is played on by the tables' fastest
//! wins instead (distance tables: the winner keeps to moves whose distance
//! to the end is one less, choosing among them the one with the shortest
//! runs; the loser plays anything): the leaf adds the longest run the loser
//! can force before the first progress move there, and every run after a
//! progress move inside that play must fit the rule too. No position comes
//! back along it, since the distance to the end falls at every ply. Under
//! the classic rules a forward move can be taken back, so a
//! distance-to-progress line may come back to a position after a progress
//! move; when the runs hold this way, the certificate with the tables'
//! fastest wins after its leaves wins under both draw rules at once (no
//! position occurs more than twice: once in the certificate, whose ranks
//! fall, and once after its leaf). Under BrainKing's rules progress moves
//! are never taken back and the distances to progress fall between them, so
//! [`Leaves::Progress`] already covers repetition.
//!
//! The count is 0 at the root (as at the start of a game) and after each
//! progress move, so the certificate wins under a rule of `limit` plies
//! exactly when every *reset* entry (the root, and every entry a covered
//! progress move leads to) has a run of at most `limit`: then no run of
//! plies without progress reaches the limit before the next progress move or
//! the end. (A longer run does not make the position a draw: the prover may
//! have other moves. It means this certificate does not show the win.)

use std::collections::HashMap;

use alq_engine::Exact;
use alq_engine::{Move, Position};
use alq_tablebase::{Dtz, Kind, Tablebase};

use crate::certificate::{Certificate, Step};

/// A run that cannot end within any rule: a cursed table leaf.
pub const CURSED: u32 = u32::MAX;

/// What a table leaf adds to a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Leaves {
    /// Its distance to progress (dtz tables).
    Progress,
    /// Its distance to the end (distance tables).
    End,
}

/// What [`check_no_progress`] found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NoProgressReport {
    /// The rule's plies checked against.
    pub limit: u32,
    /// The longest run from a reset entry ([`CURSED`] for a cursed leaf).
    pub longest: u32,
    /// The reset position where the longest run starts.
    pub worst: Position,
    /// That run's moves, up to its progress move or leaf (a table leaf's
    /// own distance is not played out).
    pub line: Vec<Move>,
    /// Reset entries (reached from the root) and how many have runs over the limit.
    pub resets: usize,
    pub over: usize,
    /// The table leaves reached and the longest distance to progress among them.
    pub table_leaves: usize,
    pub longest_leaf: u32,
}

impl NoProgressReport {
    /// Whether every run fits the rule: the certificate wins under it.
    pub fn holds(&self) -> bool {
        self.over == 0
    }
}

/// Why the runs could not be measured.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum NoProgressError {
    #[error("a {goal} certificate: the no-progress rule only adds draws, so a draw goal holds under it as it is")]
    DrawGoal { goal: crate::Goal },
    #[error("{position}: {problem}")]
    Leaf { position: Position, problem: String },
    #[error("{position}: move {mv} leads to a position without an entry (check the certificate first)")]
    Missing { position: Position, mv: Move },
}

/// Measures the runs without progress of a win certificate that has been
/// checked (see the module's text), its table leaves' distances to progress
/// from `tb`'s dtz tables, against a rule of `limit` plies.
pub fn check_no_progress(
    cert: &Certificate,
    tb: &Tablebase,
    limit: u32,
    leaves: Leaves,
) -> Result<NoProgressReport, NoProgressError> {
    if !cert.goal.is_win() {
        return Err(NoProgressError::DrawGoal { goal: cert.goal });
    }
    let by_key: HashMap<u64, usize> = cert.entries.iter().enumerate().map(|(i, e)| (e.key, i)).collect();
    let mut order: Vec<usize> = (0..cert.entries.len()).collect();
    order.sort_by_key(|&i| cert.entries[i].rank);
    // run[i], and the move that makes it (none at leaves and progress ends).
    let mut run = vec![0u32; cert.entries.len()];
    let mut next: Vec<Option<(Move, bool)>> = vec![None; cert.entries.len()];
    let (mut table_leaves, mut longest_leaf) = (0, 0);
    let mut fastest = Fastest { tb, rules: cert.rules, memo: HashMap::new() };
    for i in order {
        let e = cert.entries[i];
        let pos = Position::from_key_unchecked(e.key);
        let moves: Vec<Move> = match e.step {
            Step::End => continue,
            Step::Table(_) if leaves == Leaves::End => {
                let (leaf_run, inner) = fastest.runs(&pos)?;
                // A run after a progress move inside the play past the leaf
                // that does not fit fails this leaf as a whole.
                run[i] = if inner > limit { CURSED } else { leaf_run };
                continue;
            }
            Step::Table(_) => {
                let dtz = tb.probe_dtz(&pos).map_err(|err| NoProgressError::Leaf {
                    position: pos,
                    problem: format!("no distance to progress for this table leaf ({err}; build them with `alq tb build --kind dtz`)"),
                })?;
                run[i] = match dtz {
                    Dtz::Win(d) | Dtz::Loss(d) => d,
                    Dtz::CursedWin | Dtz::BlessedLoss => CURSED,
                    Dtz::Draw => {
                        return Err(NoProgressError::Leaf {
                            position: pos,
                            problem: "a table leaf the dtz tables call a draw (check the certificate first)".into(),
                        })
                    }
                };
                continue;
            }
            Step::Move(_) | Step::All => cert.covered_moves(&e, &pos),
        };
        let side = pos.side_to_move();
        for mv in moves {
            let progress = mv.is_progress(side);
            let length = if progress {
                1
            } else {
                let &j = by_key.get(&pos.play(mv).key()).ok_or(NoProgressError::Missing { position: pos, mv })?;
                run[j].saturating_add(1)
            };
            if length > run[i] || next[i].is_none() {
                run[i] = run[i].max(length);
                next[i] = Some((mv, progress));
            }
        }
    }
    // The reset entries the root reaches, walking the strategy.
    let root = by_key[&cert.root];
    let mut seen = vec![false; cert.entries.len()];
    let mut reset = vec![false; cert.entries.len()];
    seen[root] = true;
    reset[root] = true;
    let mut stack = vec![root];
    while let Some(i) = stack.pop() {
        let e = cert.entries[i];
        let pos = Position::from_key_unchecked(e.key);
        if let Step::Table(_) = e.step {
            table_leaves += 1;
            if run[i] != CURSED {
                longest_leaf = longest_leaf.max(run[i]);
            }
        }
        for mv in cert.covered_moves(&e, &pos) {
            let &j = by_key.get(&pos.play(mv).key()).ok_or(NoProgressError::Missing { position: pos, mv })?;
            reset[j] |= mv.is_progress(pos.side_to_move());
            if !seen[j] {
                seen[j] = true;
                stack.push(j);
            }
        }
    }
    let resets: Vec<usize> = (0..cert.entries.len()).filter(|&i| reset[i]).collect();
    let over = resets.iter().filter(|&&i| run[i] > limit).count();
    let worst =
        resets.iter().copied().max_by_key(|&i| (run[i], std::cmp::Reverse(cert.entries[i].key))).unwrap_or(root);
    let mut line = Vec::new();
    let mut at = worst;
    while let Some((mv, progress)) = next[at] {
        line.push(mv);
        if progress {
            break;
        }
        let pos = Position::from_key_unchecked(cert.entries[at].key);
        at = by_key[&pos.play(mv).key()];
    }
    Ok(NoProgressReport {
        limit,
        longest: run[worst],
        worst: Position::from_key_unchecked(cert.entries[worst].key),
        line,
        resets: resets.len(),
        over,
        table_leaves,
        longest_leaf,
    })
}

/// The play past a table leaf by the distance tables' fastest wins (see
/// [`Leaves::End`]).
struct Fastest<'a> {
    tb: &'a Tablebase,
    rules: alq_engine::RuleSet,
    /// Per position: the longest run to the first progress move or the end,
    /// and the longest run after a progress move further on.
    memo: HashMap<u64, (u32, u32)>,
}

impl Fastest<'_> {
    fn distance(&self, pos: &Position) -> Result<Exact, NoProgressError> {
        let pieces = pos.occupied().count();
        let covered = self.tb.coverage(Kind::Distance).is_some_and(|n| pieces <= n);
        match covered.then(|| self.tb.probe(pos).ok()).flatten() {
            Some(value) => Ok(value),
            None => Err(NoProgressError::Leaf {
                position: *pos,
                problem: "no distance to the end here (build the distance tables with `alq tb build --kind distance`)"
                    .into(),
            }),
        }
    }

    /// `(run, inner)` of a won or lost position: the winner's moves one ply
    /// nearer the end (the one with the shortest runs), every move of the
    /// loser. Distances fall at every ply, so the recursion ends.
    fn runs(&mut self, pos: &Position) -> Result<(u32, u32), NoProgressError> {
        if let Some(&r) = self.memo.get(&pos.key()) {
            return Ok(r);
        }
        let (winner, d) = match self.distance(pos)? {
            Exact::Win(d) => (true, d),
            Exact::Loss(d) => (false, d),
            Exact::Draw => {
                return Err(NoProgressError::Leaf { position: *pos, problem: "a draw in the distance tables".into() })
            }
        };
        let side = pos.side_to_move();
        let mut best: Option<(u32, u32)> = None;
        for mv in pos.legal_moves_in(self.rules) {
            let child = pos.play(mv);
            if winner && self.distance(&child)? != Exact::Loss(d - 1) {
                continue;
            }
            let (r, inner) = self.runs(&child)?;
            let progress = mv.is_progress(side);
            let here = (if progress { 1 } else { r.saturating_add(1) }, if progress { inner.max(r) } else { inner });
            best = Some(match best {
                None => here,
                // The winner: the smallest of the larger of the two; the loser: the largest of each.
                Some(b) if winner => std::cmp::min_by_key(b, here, |&(r, i)| (r.max(i), r)),
                Some(b) => (b.0.max(here.0), b.1.max(here.1)),
            });
        }
        // No move: the end (0 plies); a win always has a move one ply nearer.
        let result = best.unwrap_or((0, 0));
        self.memo.insert(pos.key(), result);
        Ok(result)
    }
}
