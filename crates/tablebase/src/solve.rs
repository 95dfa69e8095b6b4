//! The retrograde solver of one build unit: a material class and its
//! colour-flipped partner (`a` v `b` and `b` v `a`), which simple moves link
//! both ways.
//!
//! Capturing is mandatory, so every position either has only captures (all
//! leading to fewer pieces, already solved) or only simple moves (all staying
//! in the unit). The solver therefore:
//! 1. sweeps the unit once: a capture position gets its final value from the
//!    smaller tables, a position without moves is lost at once, and any other
//!    position gets a counter of its simple moves;
//! 2. settles distances in increasing order: pass `d` finds the entries of
//!    value distance `d` and walks back over the simple moves that lead to them
//!    (un-moves). A predecessor of a loss in `d` wins in `d + 1`; a
//!    predecessor of a win counts down, and when all its moves lead to wins
//!    (the last one in `d`), it loses in `d + 1`.
//! 3. Entries left unsettled are draws: endless sideways play.
//!
//! The work within a pass is split over the sets of the mover's pieces and
//! run in parallel (rayon); counters and values are bytes updated atomically.
//! Memory: two bytes per entry of the unit, plus the smaller tables that
//! captures reach.

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicU8, Ordering::Relaxed};
use std::sync::LazyLock;

use alq_engine::{Bitboard, Move, MoveList, Shift, BRAINKING_RULES};
use rayon::prelude::*;

use crate::error::TbError;
use crate::index::{denormalize, index, next_combination, rotate, unrank, FreePoints, Material, ALL, POINTS};
use crate::value::{Value, MAX_DISTANCE};

/// The tables that captures reach, by `[mover][other]`.
pub(crate) struct Lookup<'a> {
    pub(crate) tables: [[Option<&'a [u8]>; 13]; 13],
}

impl Lookup<'_> {
    #[inline]
    fn value(&self, us: u32, them: u32, material: Material) -> Value {
        let table = self.tables[material.mover as usize][material.other as usize]
            .expect("the tables of every smaller material are loaded before a unit is solved");
        Value::from_byte(table[index(us, them, material) as usize])
    }
}

/// The points of the side to move (stored form: moving up) that can capture.
#[inline]
pub(crate) fn capturers(us: u32, them: u32) -> u32 {
    let empty = !(us | them) & ALL;
    let mut from = 0;
    for sh in &BRAINKING_RULES.first_jump_shifts[0] {
        let whole = Shift { delta: sh.delta, from: Bitboard::ALL };
        let over = sh.apply(Bitboard(us)).0 & them;
        let land = whole.apply(Bitboard(over)).0 & empty;
        from |= whole.back(whole.back(Bitboard(land))).0;
    }
    from
}

/// The number of simple moves of the side to move (stored form).
#[inline]
fn simple_moves(us: u32, them: u32) -> u32 {
    let empty = !(us | them) & ALL;
    BRAINKING_RULES.step_shifts[0].iter().map(|sh| (sh.apply(Bitboard(us)).0 & empty).count_ones()).sum()
}

/// `UNSTEP[t]`: the points from which the side moving down (Black's
/// directions) reaches `t` with a simple move.
static UNSTEP: LazyLock<[u32; 25]> = LazyLock::new(|| {
    let mut back = [0u32; 25];
    for (f, steps) in BRAINKING_RULES.steps[1].iter().enumerate() {
        for t in *steps {
            back[t.index()] |= 1 << f;
        }
    }
    back
});

/// The stored form and class of the position after `mv` (the opponent to move).
#[inline]
pub(crate) fn successor(us: u32, them: u32, mv: Move) -> (u32, u32, Material) {
    let us2 = (us & !(1 << mv.from().index())) | (1 << mv.to().index());
    let them2 = them & !mv.captured().0;
    let material = Material { mover: them2.count_ones() as u8, other: us2.count_ones() as u8 };
    (rotate(them2), rotate(us2), material)
}

/// One class of the unit being solved.
struct Work {
    material: Material,
    values: Vec<AtomicU8>,
    /// Simple moves whose value is not yet known.
    pending: Vec<AtomicU8>,
}

fn zeroed_atomics(len: usize) -> Vec<AtomicU8> {
    let mut bytes = std::mem::ManuallyDrop::new(vec![0u8; len]);
    // SAFETY: AtomicU8 has the same size, alignment and bit validity as u8,
    // and the allocation is handed over whole (pointer, length, capacity).
    unsafe { Vec::from_raw_parts(bytes.as_mut_ptr().cast::<AtomicU8>(), bytes.len(), bytes.capacity()) }
}

fn into_bytes(atomics: Vec<AtomicU8>) -> Vec<u8> {
    let mut atomics = std::mem::ManuallyDrop::new(atomics);
    // SAFETY: as in `zeroed_atomics`, the other way round.
    unsafe { Vec::from_raw_parts(atomics.as_mut_ptr().cast::<u8>(), atomics.len(), atomics.capacity()) }
}

/// Where the solver stands, for progress reports.
#[derive(Clone, Copy, Debug)]
pub enum Phase {
    /// The first sweep; `done` of `total` entries.
    Sweep { done: u64, total: u64 },
    /// Distances up to `distance` are settled.
    Settled { distance: u16 },
}

/// Shared counters of a solve.
struct Shared {
    /// Largest value byte written so far.
    max_byte: AtomicU8,
    overflow: AtomicBool,
    settled: AtomicU64,
}

/// Solves a unit (one class, or a class and its flipped partner) and returns
/// the value bytes of each class in index order.
pub(crate) fn solve_unit(
    unit: &[Material],
    lookup: &Lookup<'_>,
    report: &mut dyn FnMut(Phase),
) -> Result<Vec<Vec<u8>>, TbError> {
    let works: Vec<Work> = unit
        .iter()
        .map(|&material| {
            let n = material.positions() as usize;
            Work { material, values: zeroed_atomics(n), pending: zeroed_atomics(n) }
        })
        .collect();
    let partner = |k: usize| if works.len() == 2 { 1 - k } else { 0 };
    let shared = Shared { max_byte: AtomicU8::new(0), overflow: AtomicBool::new(false), settled: AtomicU64::new(0) };
    let total: u64 = unit.iter().map(|m| m.positions()).sum();
    let mut done = 0;
    for work in &works {
        let sets = work.material.mover_sets();
        let step = sets.div_ceil(64).max(1);
        let mut lo = 0;
        while lo < sets {
            let hi = (lo + step).min(sets);
            (lo..hi).into_par_iter().for_each(|set| sweep_block(work, set, lookup, &shared));
            done += (hi - lo) * work.material.block();
            report(Phase::Sweep { done, total });
            lo = hi;
        }
    }
    let mut distance: u16 = 0;
    while u32::from(distance) < u32::from(shared.max_byte.load(Relaxed)) {
        for (k, work) in works.iter().enumerate() {
            let target = &works[partner(k)];
            (0..work.material.mover_sets())
                .into_par_iter()
                .for_each(|set| settle_block(work, target, set, distance, &shared));
        }
        report(Phase::Settled { distance });
        distance += 1;
    }
    if shared.overflow.load(Relaxed) {
        return Err(TbError::DistanceOverflow { material: unit[0], max: MAX_DISTANCE });
    }
    Ok(works.into_iter().map(|w| into_bytes(w.values)).collect())
}

/// First sweep over the entries that share the mover's set number `set`.
fn sweep_block(work: &Work, set: u64, lookup: &Lookup<'_>, shared: &Shared) {
    let m = work.material;
    let us = unrank(set, m.mover.into(), POINTS);
    let free = FreePoints::new(us);
    let block = m.block();
    let base = (set * block) as usize;
    let mut squeezed: u32 = (1u32 << m.other) - 1;
    let mut top = 0u8;
    let mut moves = MoveList::new();
    for j in 0..block as usize {
        let them = free.deposit(squeezed);
        if squeezed != 0 {
            squeezed = next_combination(squeezed);
        }
        if capturers(us, them) != 0 {
            moves.clear();
            denormalize(us, them).generate(&BRAINKING_RULES, &mut moves);
            let value = Value::from_successors(moves.iter().map(|&mv| {
                let (nu, nt, nm) = successor(us, them, mv);
                lookup.value(nu, nt, nm)
            }));
            match value.to_byte() {
                Some(byte) => {
                    work.values[base + j].store(byte, Relaxed);
                    top = top.max(byte);
                }
                None => shared.overflow.store(true, Relaxed),
            }
        } else {
            match simple_moves(us, them) {
                0 => {
                    let byte = Value::Loss(0).to_byte().expect("distance 0 fits");
                    work.values[base + j].store(byte, Relaxed);
                    top = top.max(byte);
                }
                n => work.pending[base + j].store(n as u8, Relaxed),
            }
        }
    }
    shared.max_byte.fetch_max(top, Relaxed);
}

/// Pass `distance` over the entries of mover's set number `set`: every entry
/// with exactly this distance passes its value back to its predecessors,
/// which lie in `target` (the partner class).
fn settle_block(work: &Work, target: &Work, set: u64, distance: u16, shared: &Shared) {
    let m = work.material;
    let block = m.block() as usize;
    let base = set as usize * block;
    let wanted = (distance + 1) as u8;
    let entries = &work.values[base..base + block];
    let mut found = entries.iter().enumerate().filter(|(_, v)| v.load(Relaxed) == wanted).map(|(j, _)| j).peekable();
    if found.peek().is_none() {
        return;
    }
    if distance >= MAX_DISTANCE {
        shared.overflow.store(true, Relaxed);
        return;
    }
    let us = unrank(set, m.mover.into(), POINTS);
    let free = FreePoints::new(us);
    let byte = wanted + 1;
    let loss = distance % 2 == 0;
    let mut wrote = false;
    let mut count = 0;
    for j in found {
        count += 1;
        let them = free.deposit(unrank(j as u64, m.other.into(), POINTS - u32::from(m.mover)));
        let empty = !(us | them) & ALL;
        let q_them = rotate(us);
        for t in Bitboard(them) {
            for f in Bitboard(UNSTEP[t.index()] & empty) {
                let before = them ^ (1 << t.index()) ^ (1 << f.index());
                let q_us = rotate(before);
                // The move was legal only if the predecessor had no capture.
                if capturers(q_us, q_them) != 0 {
                    continue;
                }
                let q = index(q_us, q_them, target.material) as usize;
                if loss {
                    wrote |= target.values[q].compare_exchange(0, byte, Relaxed, Relaxed).is_ok();
                } else if target.values[q].load(Relaxed) == 0 && target.pending[q].fetch_sub(1, Relaxed) == 1 {
                    target.values[q].store(byte, Relaxed);
                    wrote = true;
                }
            }
        }
    }
    shared.settled.fetch_add(count, Relaxed);
    if wrote {
        shared.max_byte.fetch_max(byte, Relaxed);
    }
}
