//! Distance-to-progress tables for rules whose progress moves can be undone
//! (the classic rules: a forward move is progress, and a backward move,
//! which is not, can take it back), where the slice order of `dtz.rs` does
//! not exist. The values and bytes are those of `dtz.rs`; this solver works
//! for either rule set (a test builds BrainKing's tables both ways).
//!
//! The game under the rule is a game on pairs (position, count): a progress
//! move goes to count 0, any other move to count + 1, and at the limit the
//! game is drawn unless the side to move has no move (lost, checked first).
//! For a fixed position, winning at count `c` implies winning at every
//! smaller count, and likewise losing: so each position keeps two
//! thresholds, `win` (the largest count at which the side to move wins, −1
//! for none) and `loss` (likewise), and with them the whole column of its
//! pairs. With `N` the limit:
//! - `win(p)` = the best over p's moves of: a progress move into a position
//!   lost at count 0 → N − 1; another move into q → `loss(q)` − 1;
//! - `loss(p)` = the worst over p's moves of: a progress move into a
//!   position won at count 0 → N − 1; another move into q → `win(q)` − 1
//!   (every move must lose); N without moves (lost at every count).
//!
//! The values are the least solution of these equations (wins and losses
//! are forced in finitely many plies, the attractors of the pair game), so
//! they are found by raising thresholds from −1: a raised `loss(q)` raises
//! the `win` of q's predecessors at once (a maximum), a raised `win(q)`
//! makes each predecessor take its minimum over its moves again. Every
//! threshold rises at most N + 1 times, so the work is bounded. Entries
//! wait in buckets by distance (N − threshold), shortest first, so that
//! most thresholds are raised once, to their final value.
//!
//! A win at every count up to `win(p)` is a win in `d` = N − `win(p)` plies
//! to the next progress move, the entry `Win(d)` of `dtz.rs`. Positions won
//! or lost in the infinite game (the win/draw/loss values of the unit,
//! solved first from the same smaller tables) that are neither under the
//! rule are cursed wins and blessed losses.
//!
//! Repetition: the winner's line under these thresholds never repeats a
//! position between two progress moves (a pair's attractor rank falls at
//! every ply and, for one position, grows with the count), but under the
//! classic rules a progress move can be undone, so a position may come back
//! with a smaller count after one. The values here are those of the
//! no-progress rule alone; the repetition rule can only add draws.

use alq_engine::{Bitboard, MoveList, RuleSet, Side};

use crate::error::TbError;
use crate::index::{
    canonical, index_canonical, index_in, is_spare, mirror, position_in, rotate, Material, Scheme, ALL,
};
use crate::solve::{capturers, successor, unstep, Lookup, Phase};
use crate::value::{wdl_from_code, Dtz, Kind, Wdl};

/// No threshold: not won (or lost) at any count.
const NONE: i8 = -1;

struct Class {
    material: Material,
    win: Vec<i8>,
    loss: Vec<i8>,
    /// The unit's infinite-game values, packed four a byte.
    wdl: Vec<u8>,
}

impl Class {
    fn infinite(&self, i: u64) -> Wdl {
        wdl_from_code(self.wdl[(i / 4) as usize] >> (2 * (i % 4)))
    }
}

/// A queued entry: the class, its index, and whether its `loss` threshold
/// (rather than its `win`) was raised.
#[inline]
fn pack(k: usize, i: u64, loss: bool) -> u64 {
    (i << 2) | ((k as u64) << 1) | u64::from(loss)
}

#[inline]
fn unpack(e: u64) -> (usize, u64, bool) {
    (((e >> 1) & 1) as usize, e >> 2, e & 1 == 1)
}

struct Solver<'a> {
    rules: &'static alq_engine::Rules,
    unstep: &'static [u32; 25],
    lookup: &'a Lookup<'a>,
    classes: Vec<Class>,
    limit: i8,
    /// `buckets[d]`: entries raised to a threshold of distance `d`
    /// (N − threshold, 0 to N + 1).
    buckets: Vec<Vec<u64>>,
    /// The lowest bucket that may hold entries.
    low: usize,
    moves: MoveList,
}

/// Solves a unit's distance-to-progress tables (either rule set) for a
/// no-progress rule of `limit` plies (1 to 60); each class's entries in
/// index order.
pub(crate) fn solve_unit(
    rules: RuleSet,
    unit: &[Material],
    limit: u32,
    lookup: &Lookup<'_>,
    report: &mut dyn FnMut(Phase),
) -> Result<Vec<Vec<u8>>, TbError> {
    // The infinite game's values first (the smaller tables' dtz bytes give
    // their infinite-game values), to tell cursed wins from draws.
    let wdl = crate::solve::solve_unit(rules, unit, Kind::Wdl, lookup, report)?;
    let limit = limit.min(crate::value::NO_PROGRESS_PLIES) as i8;
    let classes = unit
        .iter()
        .zip(wdl)
        .map(|(&material, wdl)| {
            let n = material.slots(Scheme::Mirror) as usize;
            Class { material, win: vec![NONE; n], loss: vec![NONE; n], wdl }
        })
        .collect();
    let mut solver = Solver {
        rules: rules.rules(),
        unstep: unstep(rules),
        lookup,
        classes,
        limit,
        buckets: vec![Vec::new(); limit as usize + 2],
        low: 0,
        moves: MoveList::new(),
    };
    for k in 0..solver.classes.len() {
        solver.sweep(k);
    }
    solver.run();
    report(Phase::Settled { distance: limit as u16 });
    Ok((0..solver.classes.len()).map(|k| solver.encode(k)).collect())
}

impl Solver<'_> {
    fn partner(&self, k: usize) -> usize {
        if self.classes.len() == 2 {
            1 - k
        } else {
            0
        }
    }

    fn raise(&mut self, k: usize, i: u64, loss: bool, to: i8) {
        let class = &mut self.classes[k];
        let slot = if loss { &mut class.loss[i as usize] } else { &mut class.win[i as usize] };
        if to > *slot {
            *slot = to;
            let d = (self.limit - to) as usize;
            self.buckets[d].push(pack(k, i, loss));
            self.low = self.low.min(d);
        }
    }

    /// The first look at every entry of class `k`: captures (all progress,
    /// into smaller tables) and positions without a move are settled.
    fn sweep(&mut self, k: usize) {
        let material = self.classes[k].material;
        let last = self.limit - 1;
        for i in 0..material.slots(Scheme::Mirror) {
            let (us, them) = position_in(Scheme::Mirror, material, i);
            if is_spare(us, them) {
                continue;
            }
            if capturers(self.rules, us, them) != 0 {
                self.moves.clear();
                crate::index::denormalize(us, them).generate(self.rules, &mut self.moves);
                let (mut wins, mut all_lose) = (false, true);
                for &mv in &self.moves {
                    let (nu, nt, nm) = successor(us, them, mv);
                    let table = self.lookup.table(nm);
                    match Dtz::from_byte(*table.byte(table.index(nu, nt))) {
                        Some(Dtz::Loss(_)) => wins = true,
                        Some(Dtz::Win(_)) => {}
                        _ => all_lose = false,
                    }
                }
                if wins {
                    self.raise(k, i, false, last);
                } else if all_lose {
                    self.raise(k, i, true, last);
                }
            } else {
                let empty = Bitboard(!(us | them) & ALL);
                if self.rules.simple_move_count(Side::White, Bitboard(us), empty) == 0 {
                    self.raise(k, i, true, self.limit);
                }
            }
        }
    }

    /// Raises thresholds until none moves, shortest distances first.
    fn run(&mut self) {
        while self.low < self.buckets.len() {
            let Some(e) = self.buckets[self.low].pop() else {
                self.low += 1;
                continue;
            };
            let (k, i, loss) = unpack(e);
            let class = &self.classes[k];
            let now = if loss { class.loss[i as usize] } else { class.win[i as usize] };
            // Raised again since it was queued: the later entry walks back.
            if (self.limit - now) as usize != self.low {
                continue;
            }
            self.walk_back(k, i, loss, now);
        }
    }

    /// Tells the predecessors of entry `i` of class `k` (by simple moves,
    /// in the partner class) that its `loss` (or `win`) threshold is now `t`.
    fn walk_back(&mut self, k: usize, i: u64, loss: bool, t: i8) {
        let (us, them) = position_in(Scheme::Mirror, self.classes[k].material, i);
        let target = self.partner(k);
        let target_material = self.classes[target].material;
        let empty = !(us | them) & ALL;
        let q_them = rotate(us);
        let last = self.limit - 1;
        // Walking back from the canonical position alone finds every
        // predecessor entry: a predecessor of the mirror image is the
        // mirror image of a predecessor.
        for to in Bitboard(them) {
            for from in Bitboard(self.unstep[to.index()] & empty) {
                let before = them ^ (1 << to.index()) ^ (1 << from.index());
                let q_us = rotate(before);
                if capturers(self.rules, q_us, q_them) != 0 {
                    continue;
                }
                // The move seen from the predecessor (moving up): rotated
                // points, forward when it climbs a rank.
                let progress =
                    rotate(1 << to.index()).trailing_zeros() / 5 > rotate(1 << from.index()).trailing_zeros() / 5;
                let (c_us, c_them) = canonical(q_us, q_them);
                let q = index_canonical(c_us, c_them, target_material);
                if loss {
                    let to_value = if progress {
                        if t >= 0 {
                            last
                        } else {
                            NONE
                        }
                    } else {
                        (t - 1).min(last)
                    };
                    if to_value >= 0 {
                        self.raise(target, q, false, to_value);
                    }
                } else {
                    let value = self.loss_threshold(target, c_us, c_them);
                    if value >= 0 {
                        self.raise(target, q, true, value);
                    }
                }
            }
        }
    }

    /// A position's `loss` threshold from its simple moves' successors' `win`
    /// thresholds as they stand (class `k`, stored form `(us, them)`).
    fn loss_threshold(&mut self, k: usize, us: u32, them: u32) -> i8 {
        let last = self.limit - 1;
        let next = &self.classes[self.partner(k)];
        self.moves.clear();
        crate::index::denormalize(us, them).generate(self.rules, &mut self.moves);
        let mut worst = last;
        for &mv in &self.moves {
            let (nu, nt, nm) = successor(us, them, mv);
            debug_assert_eq!(nm, next.material);
            let w = next.win[index_in(Scheme::Mirror, nu, nt, nm) as usize];
            let value = if mv.is_progress(Side::White) {
                if w >= 0 {
                    last
                } else {
                    NONE
                }
            } else {
                w - 1
            };
            worst = worst.min(value);
            if worst < 0 {
                return NONE;
            }
        }
        worst
    }

    /// The bytes of class `k` (spare slots take their mirror image's).
    fn encode(&self, k: usize) -> Vec<u8> {
        let class = &self.classes[k];
        let m = class.material;
        (0..m.slots(Scheme::Mirror))
            .map(|i| {
                let (us, them) = position_in(Scheme::Mirror, m, i);
                let j = if is_spare(us, them) { index_canonical(us, mirror(them), m) } else { i };
                let (win, loss) = (class.win[j as usize], class.loss[j as usize]);
                let value = if win >= 0 {
                    Dtz::Win((self.limit - win) as u32)
                } else if loss >= 0 {
                    Dtz::Loss((self.limit - loss) as u32)
                } else {
                    match class.infinite(j) {
                        Wdl::Win => Dtz::CursedWin,
                        Wdl::Loss => Dtz::BlessedLoss,
                        Wdl::Draw => Dtz::Draw,
                    }
                };
                value.to_byte().expect("distances within the rule have a byte")
            })
            .collect()
    }
}
