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
//! run in parallel (rayon); each entry's value and counter share a 16-bit
//! word updated atomically.
//! Memory: two bytes per entry of the unit, plus the smaller tables that
//! captures reach.
//!
//! Under the mirror scheme an entry stands for a position and its mirror
//! image. Walking back from an entry walks back from its canonical position
//! only; the predecessors found are brought to their canonical form. That
//! counts every move of a predecessor exactly once: a move into the mirror
//! image of the entry's position is the mirror image of a move of the
//! predecessor's mirror image into the position itself. Two exceptions: an
//! entry that is its own mirror image is reached from both a predecessor and
//! its mirror image, so only the canonical one of the two is counted; and a
//! predecessor that is its own mirror image (of an entry that is not) has
//! its moves into the entry in mirrored pairs of which the walk finds one,
//! so that hit counts twice.
//!
//! A win/draw/loss build runs the same passes over win/draw/loss tables of
//! fewer pieces: a capture into a lost position counts as a win in 1, into a
//! won one as a loss in 2, so the passes order the entries by a distance that
//! is not the true one but keeps its parity, which is all that the win/loss
//! kind needs.

use std::sync::atomic::{AtomicBool, AtomicU16, AtomicU8, Ordering::Relaxed};
use std::sync::LazyLock;

use alq_engine::{Bitboard, Move, MoveList, RuleSet, Rules, Side};
use rayon::prelude::*;

use crate::error::TbError;
use crate::format::{pack_wdl, TableView};
use crate::index::{
    canonical, denormalize, index_canonical, index_in, is_spare, mirror, mover_set, next_combination, rotate, unrank,
    FreePoints, Material, Scheme, ALL, POINTS,
};
use crate::value::{value_to_byte, Exact, Kind, Wdl, MAX_DISTANCE};

/// The tables that captures reach, by `[mover][other]`.
pub(crate) struct Lookup<'a> {
    pub(crate) tables: [[Option<TableView<'a>>; 13]; 13],
}

impl<'a> Lookup<'a> {
    #[inline]
    pub(crate) fn table(&self, material: Material) -> TableView<'a> {
        self.tables[material.mover as usize][material.other as usize]
            .expect("the tables of every smaller material are loaded before a unit is solved")
    }
}

/// A capture successor's value for the solver: the true one from a distance
/// table; from a win/draw/loss table a stand-in distance of the right parity.
#[inline]
pub(crate) fn lookup_value(table: &TableView<'_>, i: u64) -> Exact {
    match table.layout.kind {
        Kind::Distance => table.value(i),
        Kind::Wdl | Kind::Dtz => match table.wdl(i) {
            Wdl::Win => Exact::Win(1),
            Wdl::Loss => Exact::Loss(0),
            Wdl::Draw => Exact::Draw,
        },
    }
}

/// The points of the side to move (stored form: moving up) that can capture.
#[inline]
pub(crate) fn capturers(rules: &Rules, us: u32, them: u32) -> u32 {
    let empty = Bitboard(!(us | them) & ALL);
    rules.capturers(Side::White, Bitboard(us), Bitboard(them), empty).0
}

/// The number of simple moves of the side to move (stored form).
#[inline]
fn simple_moves(rules: &Rules, us: u32, them: u32) -> u32 {
    rules.simple_move_count(Side::White, Bitboard(us), Bitboard(!(us | them) & ALL))
}

/// `unstep(rules)[t]`: the points from which the side moving down (Black's
/// directions) reaches `t` with a simple move.
pub(crate) fn unstep(rules: RuleSet) -> &'static [u32; 25] {
    fn table(rules: RuleSet) -> [u32; 25] {
        let mut back = [0u32; 25];
        for (f, steps) in rules.rules().steps[1].iter().enumerate() {
            for t in *steps {
                back[t.index()] |= 1 << f;
            }
        }
        back
    }
    static BRAINKING: LazyLock<[u32; 25]> = LazyLock::new(|| table(RuleSet::BrainKing));
    static CLASSIC: LazyLock<[u32; 25]> = LazyLock::new(|| table(RuleSet::Classic));
    match rules {
        RuleSet::BrainKing => &BRAINKING,
        RuleSet::Classic => &CLASSIC,
    }
}

/// The stored form and class of the position after `mv` (the opponent to move).
#[inline]
pub(crate) fn successor(us: u32, them: u32, mv: Move) -> (u32, u32, Material) {
    let us2 = (us & !(1 << mv.from().index())) | (1 << mv.to().index());
    let them2 = them & !mv.captured().0;
    let material = Material { mover: them2.count_ones() as u8, other: us2.count_ones() as u8 };
    (rotate(them2), rotate(us2), material)
}

/// One class of the unit being solved. Each entry is one 16-bit word: the
/// value byte (low) and the number of simple moves whose value is not yet
/// known (high), side by side so that an update touches one cache line.
struct Work {
    material: Material,
    scheme: Scheme,
    words: Vec<AtomicU16>,
}

impl Work {
    /// The mover's set number `set` and whether its block may hold spare
    /// slots (the set is its own mirror image under the mirror scheme).
    #[inline]
    fn mover(&self, set: u64) -> (u32, bool) {
        let us = mover_set(self.scheme, self.material, set);
        (us, self.scheme == Scheme::Mirror && us == mirror(us))
    }
}

const PENDING: u16 = 0x100;

fn zeroed_words(len: usize) -> Vec<AtomicU16> {
    let mut words = std::mem::ManuallyDrop::new(vec![0u16; len]);
    // SAFETY: AtomicU16 has the same size, alignment and bit validity as u16,
    // and the allocation is handed over whole (pointer, length, capacity).
    unsafe { Vec::from_raw_parts(words.as_mut_ptr().cast::<AtomicU16>(), words.len(), words.capacity()) }
}

/// The encoded entries of a solved class: spare slots get their mirror
/// image's value, then bytes (distance) or packed codes (win/draw/loss).
fn encode(work: &Work, kind: Kind) -> Vec<u8> {
    let m = work.material;
    let block = m.block();
    let words = &work.words;
    (0..m.sets(work.scheme)).into_par_iter().for_each(|set| {
        let (us, spares) = work.mover(set);
        if !spares {
            return;
        }
        let free = FreePoints::new(us);
        let base = set * block;
        let mut squeezed: u32 = (1u32 << m.other) - 1;
        for j in 0..block {
            let them = free.deposit(squeezed);
            if squeezed != 0 {
                squeezed = next_combination(squeezed);
            }
            if is_spare(us, them) {
                let twin = index_in(work.scheme, us, mirror(them), m);
                debug_assert!(twin / block == set);
                words[(base + j) as usize].store(words[twin as usize].load(Relaxed) & 0xff, Relaxed);
            }
        }
    });
    match kind {
        // Distance-to-progress tables are built by `dtz.rs` alone.
        Kind::Distance | Kind::Dtz => words.par_iter().map(|w| w.load(Relaxed) as u8).collect(),
        Kind::Wdl => {
            let wdl = |w: &AtomicU16| Wdl::from(crate::value::value_from_byte(w.load(Relaxed) as u8));
            words.par_chunks(1 << 16).flat_map_iter(|chunk| pack_wdl(chunk.iter().map(wdl))).collect()
        }
    }
}

/// Asks the processor to fetch a cache line ahead of its use, so that
/// scattered reads and updates overlap their memory latency.
#[inline(always)]
fn prefetch_ptr(ptr: *const i8) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: prefetching is a hint; it never faults, whatever the address.
    #[allow(unused_unsafe)]
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(ptr);
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = ptr;
}

#[inline(always)]
fn prefetch(word: &AtomicU16) {
    prefetch_ptr(word.as_ptr().cast::<i8>());
}

#[inline(always)]
fn prefetch_byte(byte: &u8) {
    prefetch_ptr(std::ptr::from_ref(byte).cast::<i8>());
}

/// Where the solver stands, for progress reports.
#[derive(Clone, Copy, Debug)]
pub enum Phase {
    /// The first sweep; `done` of `total` entries.
    Sweep { done: u64, total: u64 },
    /// Distances up to `distance` are settled.
    Settled { distance: u16 },
    /// The slice solver (`slices.rs`) has finished `level + 1` of its
    /// `levels` advancement levels.
    Advancement { level: u16, levels: u16 },
}

/// Shared counters and move tables of a solve.
struct Shared {
    /// Largest value byte written so far.
    max_byte: AtomicU8,
    overflow: AtomicBool,
    rules: &'static Rules,
    unstep: &'static [u32; 25],
}

/// Solves a unit (one class, or a class and its flipped partner) under the
/// mirror scheme and returns the encoded entries of each class in index
/// order, for tables of `kind`.
pub(crate) fn solve_unit(
    rules: RuleSet,
    unit: &[Material],
    kind: Kind,
    lookup: &Lookup<'_>,
    report: &mut dyn FnMut(Phase),
) -> Result<Vec<Vec<u8>>, TbError> {
    let scheme = Scheme::Mirror;
    let works: Vec<Work> = unit
        .iter()
        .map(|&material| {
            let n = material.slots(scheme) as usize;
            Work { material, scheme, words: zeroed_words(n) }
        })
        .collect();
    let partner = |k: usize| if works.len() == 2 { 1 - k } else { 0 };
    let shared = Shared {
        max_byte: AtomicU8::new(0),
        overflow: AtomicBool::new(false),
        rules: rules.rules(),
        unstep: unstep(rules),
    };
    let total: u64 = unit.iter().map(|m| m.slots(scheme)).sum();
    let mut done = 0;
    for work in &works {
        let sets = work.material.sets(scheme);
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
            (0..work.material.sets(scheme))
                .into_par_iter()
                .for_each(|set| settle_block(work, target, set, distance, &shared));
        }
        report(Phase::Settled { distance });
        distance += 1;
    }
    if shared.overflow.load(Relaxed) {
        return Err(TbError::DistanceOverflow { material: unit[0], max: MAX_DISTANCE });
    }
    Ok(works.iter().map(|w| encode(w, kind)).collect())
}

/// A capture's successor, waiting for its table byte to arrive.
struct Capture<'a> {
    entry: usize,
    table: TableView<'a>,
    index: u64,
}

/// First sweep over the entries that share the mover's set number `set`.
fn sweep_block(work: &Work, set: u64, lookup: &Lookup<'_>, shared: &Shared) {
    let m = work.material;
    let (us, spares) = work.mover(set);
    let free = FreePoints::new(us);
    let block = m.block();
    let base = (set * block) as usize;
    let mut squeezed: u32 = (1u32 << m.other) - 1;
    let mut top = 0u8;
    let mut moves = MoveList::new();
    // Capture successors are looked up in batches: their table bytes are
    // prefetched first, so that the scattered reads overlap.
    let mut captures: Vec<Capture<'_>> = Vec::with_capacity(512);
    let flush = |captures: &mut Vec<Capture<'_>>, top: &mut u8| {
        for group in captures.chunk_by(|a, b| a.entry == b.entry) {
            let value = Exact::from_successors(group.iter().map(|c| lookup_value(&c.table, c.index)));
            match value_to_byte(value) {
                Some(byte) => {
                    work.words[group[0].entry].store(byte.into(), Relaxed);
                    *top = (*top).max(byte);
                }
                None => shared.overflow.store(true, Relaxed),
            }
        }
        captures.clear();
    };
    for j in 0..block as usize {
        let them = free.deposit(squeezed);
        if squeezed != 0 {
            squeezed = next_combination(squeezed);
        }
        if spares && is_spare(us, them) {
            // A spare slot: its mirror image's entry is solved instead.
            continue;
        }
        if capturers(shared.rules, us, them) != 0 {
            moves.clear();
            denormalize(us, them).generate(shared.rules, &mut moves);
            for &mv in &moves {
                let (nu, nt, nm) = successor(us, them, mv);
                let table = lookup.table(nm);
                let index = table.index(nu, nt);
                prefetch_byte(table.byte(index));
                captures.push(Capture { entry: base + j, table, index });
            }
            if captures.len() >= 256 {
                flush(&mut captures, &mut top);
            }
        } else {
            match simple_moves(shared.rules, us, them) {
                0 => {
                    let byte = value_to_byte(Exact::Loss(0)).expect("distance 0 fits");
                    work.words[base + j].store(byte.into(), Relaxed);
                    top = top.max(byte);
                }
                n => work.words[base + j].store(n as u16 * PENDING, Relaxed),
            }
        }
    }
    flush(&mut captures, &mut top);
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
    let entries = &work.words[base..base + block];
    let mut found =
        entries.iter().enumerate().filter(|(_, w)| w.load(Relaxed) as u8 == wanted).map(|(j, _)| j).peekable();
    if found.peek().is_none() {
        return;
    }
    if u32::from(distance) >= MAX_DISTANCE {
        shared.overflow.store(true, Relaxed);
        return;
    }
    let (us, spares) = work.mover(set);
    let free = FreePoints::new(us);
    let byte = u16::from(wanted + 1);
    let loss = distance.is_multiple_of(2);
    let mut wrote = false;
    // Predecessors are collected and prefetched in batches, then updated.
    const BATCH: usize = 64;
    // Each predecessor with its weight: how many of its moves into this
    // entry the one walk back stands for (see below).
    let mut batch = [(0usize, 1u16); BATCH];
    let mut queued = 0;
    let mut flush = |batch: &[(usize, u16)]| {
        for &(q, weight) in batch {
            let word = &target.words[q];
            if loss {
                // A predecessor of a loss wins in one more ply, unless it
                // already wins as fast.
                wrote |= word.fetch_update(Relaxed, Relaxed, |w| (w as u8 == 0).then_some(byte)).is_ok();
            } else {
                // A predecessor of a win has one unknown move fewer; when
                // none is left, all its moves lose, the longest in `distance`.
                let updated = word.fetch_update(Relaxed, Relaxed, |w| {
                    if w as u8 != 0 {
                        None
                    } else if w >> 8 <= weight {
                        Some(byte)
                    } else {
                        Some(w - weight * PENDING)
                    }
                });
                wrote |= matches!(updated, Ok(w) if w >> 8 <= weight);
            }
        }
    };
    for j in found {
        let them = free.deposit(unrank(j as u64, m.other.into(), POINTS - u32::from(m.mover)));
        // An entry that is its own mirror image is reached from both a
        // predecessor and its mirror image: count the canonical one only.
        let own_mirror = spares && them == mirror(them);
        let empty = !(us | them) & ALL;
        let q_them = rotate(us);
        for t in Bitboard(them) {
            for f in Bitboard(shared.unstep[t.index()] & empty) {
                let before = them ^ (1 << t.index()) ^ (1 << f.index());
                let q_us = rotate(before);
                // The move was legal only if the predecessor had no capture.
                if capturers(shared.rules, q_us, q_them) != 0 {
                    continue;
                }
                let (c_us, c_them) = canonical(q_us, q_them);
                if own_mirror && (c_us, c_them) != (q_us, q_them) {
                    continue;
                }
                // A predecessor that is its own mirror image reaches this
                // entry's position and its mirror image by mirrored pairs
                // of moves, and only one of each pair is walked back.
                let weight = if !own_mirror && c_us == mirror(c_us) && c_them == mirror(c_them) { 2 } else { 1 };
                let q = index_canonical(c_us, c_them, target.material) as usize;
                prefetch(&target.words[q]);
                batch[queued] = (q, weight);
                queued += 1;
                if queued == BATCH {
                    flush(&batch);
                    queued = 0;
                }
            }
        }
    }
    flush(&batch[..queued]);
    if wrote {
        shared.max_byte.fetch_max(byte as u8, Relaxed);
    }
}
