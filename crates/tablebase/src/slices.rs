//! The advancement-slice solver of one build unit, for rule sets where no
//! simple move goes backwards (BrainKing's).
//!
//! A simple move either goes forward, which can never be undone, or sideways
//! along its rank, which keeps every rank's piece counts. So the positions of
//! a unit fall into *slices*, one per pair of rank-count vectors (how many
//! pieces of each side stand on each rank), and only sideways moves link
//! positions of one slice. A stored slice `(U, T)` of class `a`v`b` (`U` the
//! mover's counts, `T` the other side's, stored form: mover moving up) is
//! linked by sideways moves to the slice `(rev T, rev U)` of the partner
//! class `b`v`a`, the half turn reversing the ranks: the two form a *pair*
//! (one slice alone when it is its own partner). Every forward move raises
//! the pair's *progress*, `Σ r·U_r + Σ (4 − r)·T_r`, and captures leave the
//! unit. The solver therefore takes the pairs from the highest progress
//! down: the pairs of one progress are independent of each other (solved in
//! parallel), and each is solved alone, its working set (a few MB at most)
//! in cache:
//! 1. every position with a capture gets its value from the smaller tables;
//!    every other one looks up its forward moves in the finished pairs and
//!    counts its sideways moves;
//! 2. a retrograde walk over sideways un-moves only, inside the pair
//!    (distance tables: in increasing distance, a bucket per distance);
//! 3. what is left is a draw.
//!
//! Inside a slice a position is numbered by its ranks' arrangements (mixed
//! radix, one digit a rank), which makes the numbering of a neighbour a few
//! table look-ups. Slices hold every position, mirror images included, so
//! that forward look-ups need no canonical form; only canonical positions
//! (`index::canonical`) are solved, with the mirror rules of `solve.rs`
//! (a self-mirrored entry counts only canonical predecessors, a
//! self-mirrored predecessor of an entry that is not counts twice), and
//! their values are copied to their mirror images. At the end the values
//! are written out in the files' index order (scheme 2), so the files are
//! the same as the pass solver's (`solve.rs`), byte for byte (tested).
//!
//! Memory: the unit's values in slice order, one byte a position for
//! distance tables and 2 bits for win/draw/loss ones (mirror images
//! included, so twice the entries), plus the smaller tables and a pair's
//! working arrays per thread.

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicU8, Ordering::Relaxed};
use std::sync::LazyLock;

use alq_engine::{Bitboard, MoveList, RuleSet, Rules};
use rayon::prelude::*;

use crate::error::TbError;
use crate::format::TableView;
use crate::index::{
    canonical, mirror, mover_set, next_combination, rotate, unrank, FreePoints, Material, Scheme, ALL, POINTS,
};
use crate::solve::{capturers, lookup_value, successor, unstep, Lookup, Phase};
use crate::value::{value_to_byte, Exact, Kind, MAX_DISTANCE};

/// Bits of one rank (row) of the board, rank 0 lowest.
pub(crate) const ROW: u32 = 31;

/// The arrangements of one rank: a code is `us bits | them bits << 5`.
struct RowTables {
    /// By the counts `(u, t)` of the two sides on the rank: their codes in order.
    codes: Vec<Vec<Vec<u16>>>,
    /// By code: its place among the codes of its counts.
    place: Vec<u32>,
}

static ROWS: LazyLock<RowTables> = LazyLock::new(|| {
    let mut codes = vec![vec![Vec::new(); 6]; 6];
    let mut place = vec![u32::MAX; 1024];
    for code in 0..1024u32 {
        let (u, t) = (code & ROW, code >> 5);
        if u & t != 0 {
            continue;
        }
        let list: &mut Vec<u16> = &mut codes[u.count_ones() as usize][t.count_ones() as usize];
        place[code as usize] = list.len() as u32;
        list.push(code as u16);
    }
    RowTables { codes, place }
});

/// The code of rank `r` of a stored form.
#[inline]
fn row_code(us: u32, them: u32, r: u32) -> usize {
    (((us >> (5 * r)) & ROW) | (((them >> (5 * r)) & ROW) << 5)) as usize
}

/// A set's rank counts as a base-6 number (rank 0 the lowest digit).
#[inline]
fn count_key(bits: u32) -> usize {
    let mut key = 0;
    for r in (0..5).rev() {
        key = key * 6 + ((bits >> (5 * r)) & ROW).count_ones() as usize;
    }
    key
}

/// Every vector of five counts (each at most 5) with sum `n`.
fn count_vectors(n: u8) -> Vec<[u8; 5]> {
    let mut out = Vec::new();
    let mut v = [0u8; 5];
    fn fill(r: usize, left: u8, v: &mut [u8; 5], out: &mut Vec<[u8; 5]>) {
        if r == 4 {
            if left <= 5 {
                v[4] = left;
                out.push(*v);
            }
            return;
        }
        for c in 0..=left.min(5) {
            v[r] = c;
            fill(r + 1, left - c, v, out);
        }
    }
    fill(0, n, &mut v, &mut out);
    out
}

fn key_of(v: &[u8; 5]) -> usize {
    v.iter().rev().fold(0, |k, &c| k * 6 + c as usize)
}

fn reversed(v: &[u8; 5]) -> [u8; 5] {
    [v[4], v[3], v[2], v[1], v[0]]
}

/// One slice of a class: the positions with given rank counts.
#[derive(Clone, Debug)]
pub(crate) struct Slice {
    /// First position in the class's slice-ordered values (a multiple of 4,
    /// so that packed values of two slices never share a byte).
    pub(crate) offset: u64,
    pub(crate) len: u32,
    /// The mixed radix: rank `r`'s digit is worth `stride[r]`.
    stride: [u32; 5],
    us: [u8; 5],
    them: [u8; 5],
}

impl Slice {
    /// The number of a position of this slice inside it.
    #[inline]
    pub(crate) fn local(&self, us: u32, them: u32) -> u32 {
        let place = &ROWS.place;
        let mut l = 0;
        for r in 0..5 {
            l += place[row_code(us, them, r)] * self.stride[r as usize];
        }
        l
    }

    fn progress(&self) -> u32 {
        (0..5).map(|r| r as u32 * u32::from(self.us[r]) + (4 - r as u32) * u32::from(self.them[r])).sum()
    }

    /// Calls `f(local, us, them)` for every position, in local order.
    pub(crate) fn for_each(&self, mut f: impl FnMut(u32, u32, u32)) {
        let codes = &ROWS.codes;
        let list = |r: usize| &codes[self.us[r] as usize][self.them[r] as usize];
        let split = |c: u16, r: u32| ((u32::from(c) & ROW) << (5 * r), (u32::from(c) >> 5) << (5 * r));
        let mut l = 0;
        for &c4 in list(4) {
            let (u4, t4) = split(c4, 4);
            for &c3 in list(3) {
                let (u3, t3) = split(c3, 3);
                for &c2 in list(2) {
                    let (u2, t2) = split(c2, 2);
                    for &c1 in list(1) {
                        let (u1, t1) = split(c1, 1);
                        let (us, them) = (u4 | u3 | u2 | u1, t4 | t3 | t2 | t1);
                        for &c0 in list(0) {
                            let (u0, t0) = split(c0, 0);
                            f(l, us | u0, them | t0);
                            l += 1;
                        }
                    }
                }
            }
        }
    }
}

/// The slices of one class and how to find a position's.
pub(crate) struct ClassSlices {
    material: Material,
    pub(crate) slices: Vec<Slice>,
    /// By the mover's count key: its row in `grid`.
    uid: Vec<u32>,
    /// By the other side's count key: its column in `grid`.
    tid: Vec<u32>,
    columns: usize,
    /// Slice number by (row, column), `u32::MAX` where no position fits.
    grid: Vec<u32>,
    /// Positions in all, with the padding between slices.
    pub(crate) len: u64,
}

impl ClassSlices {
    pub(crate) fn new(material: Material) -> ClassSlices {
        let us_vectors = count_vectors(material.mover);
        let them_vectors = count_vectors(material.other);
        let mut uid = vec![u32::MAX; 7776];
        let mut tid = vec![u32::MAX; 7776];
        for (i, v) in us_vectors.iter().enumerate() {
            uid[key_of(v)] = i as u32;
        }
        for (i, v) in them_vectors.iter().enumerate() {
            tid[key_of(v)] = i as u32;
        }
        let columns = them_vectors.len();
        let mut grid = vec![u32::MAX; us_vectors.len() * columns];
        let mut slices = Vec::new();
        let mut len = 0u64;
        for (i, u) in us_vectors.iter().enumerate() {
            for (j, t) in them_vectors.iter().enumerate() {
                if (0..5).any(|r| u[r] + t[r] > 5) {
                    continue;
                }
                let mut stride = [0u32; 5];
                let mut size = 1u32;
                for r in 0..5 {
                    stride[r] = size;
                    size *= ROWS.codes[u[r] as usize][t[r] as usize].len() as u32;
                }
                grid[i * columns + j] = slices.len() as u32;
                slices.push(Slice { offset: len, len: size, stride, us: *u, them: *t });
                len += u64::from(size).next_multiple_of(4);
            }
        }
        ClassSlices { material, slices, uid, tid, columns, grid, len }
    }

    /// The slice number of a stored form of this class.
    #[inline]
    fn slice_of(&self, us: u32, them: u32) -> usize {
        let row = self.uid[count_key(us)] as usize;
        let column = self.tid[count_key(them)] as usize;
        self.grid[row * self.columns + column] as usize
    }

    fn slice_with(&self, us: &[u8; 5], them: &[u8; 5]) -> usize {
        let row = self.uid[key_of(us)] as usize;
        let column = self.tid[key_of(them)] as usize;
        self.grid[row * self.columns + column] as usize
    }

    /// A position's place in the class's slice-ordered values.
    #[inline]
    pub(crate) fn place(&self, us: u32, them: u32) -> u64 {
        let s = &self.slices[self.slice_of(us, them)];
        s.offset + u64::from(s.local(us, them))
    }
}

/// A class's values in slice order: value bytes (encoding 1), or for
/// win/draw/loss builds 2-bit codes four a byte.
pub(crate) struct Store {
    packed: bool,
    cells: Vec<AtomicU8>,
}

impl Store {
    pub(crate) fn new(len: u64, packed: bool) -> Store {
        let n = if packed { len.div_ceil(4) } else { len } as usize;
        let mut bytes = std::mem::ManuallyDrop::new(vec![0u8; n]);
        // SAFETY: AtomicU8 has the size, alignment and bit validity of u8,
        // and the allocation is handed over whole.
        let cells =
            unsafe { Vec::from_raw_parts(bytes.as_mut_ptr().cast::<AtomicU8>(), bytes.len(), bytes.capacity()) };
        Store { packed, cells }
    }

    /// The value byte at `i` (for packed stores: 2 a win, 1 a loss, 0 a draw).
    #[inline]
    pub(crate) fn get(&self, i: u64) -> u8 {
        if self.packed {
            match (self.cells[(i / 4) as usize].load(Relaxed) >> (2 * (i % 4))) & 3 {
                1 => 2,
                2 => 1,
                _ => 0,
            }
        } else {
            self.cells[i as usize].load(Relaxed)
        }
    }

    /// Writes a slice's value bytes from `offset` (a multiple of 4).
    pub(crate) fn put(&self, offset: u64, values: &[u8]) {
        if self.packed {
            let base = (offset / 4) as usize;
            for (k, group) in values.chunks(4).enumerate() {
                let byte = group.iter().enumerate().fold(0u8, |b, (i, &v)| b | wdl_code_of(v) << (2 * i));
                self.cells[base + k].store(byte, Relaxed);
            }
        } else {
            for (k, &v) in values.iter().enumerate() {
                self.cells[offset as usize + k].store(v, Relaxed);
            }
        }
    }
}

/// The 2-bit code (encoding 2) of a value byte.
#[inline]
fn wdl_code_of(byte: u8) -> u8 {
    match byte {
        0 => 0,
        b if b % 2 == 0 => 1,
        _ => 2,
    }
}

/// Whether slices apply: no simple move of the side moving up goes down.
pub(crate) fn applies(rules: RuleSet) -> bool {
    let r = rules.rules();
    (0..25).all(|f| Bitboard(r.steps[0][f].0).into_iter().all(|t| t.index() / 5 >= f / 5))
}

/// What a solve shares between threads.
struct Context<'a> {
    rules: &'static Rules,
    /// `sideways[t]`: the points on `t`'s rank from which the side moving
    /// down reaches `t` with a simple move.
    sideways: [u32; 25],
    classes: Vec<ClassSlices>,
    stores: Vec<Store>,
    lookup: &'a Lookup<'a>,
    /// Win/draw/loss build: every win is byte 2, every loss byte 1.
    wdl: bool,
    overflow: AtomicBool,
    max_byte: AtomicU8,
}

/// A pair: (class, slice) for each side, the second absent when the slice
/// is its own partner.
#[derive(Clone, Copy)]
pub(crate) struct Pair {
    pub(crate) sides: [(usize, usize); 2],
    pub(crate) alone: bool,
}

/// One thread's working arrays (the slice solver's and `dtz.rs`'s: there,
/// `worst` holds the longest loss in plies and the buckets are by distance).
#[derive(Default)]
pub(crate) struct Work<'a> {
    pub(crate) val: [Vec<u8>; 2],
    /// Sideways moves not yet known to lose for the mover (low 7 bits);
    /// bit 7: a forward move that does not lose, so never a loss.
    pub(crate) count: [Vec<u8>; 2],
    /// The largest win byte among the successors seen so far.
    pub(crate) worst: [Vec<u8>; 2],
    /// Positions waiting for their value, by value byte (win/draw/loss
    /// builds: all in bucket 0); each `us | them << 25 | side << 50`.
    pub(crate) buckets: Vec<Vec<u64>>,
    /// Capture successors waiting for their table bytes: the position, the
    /// table and the entry.
    pub(crate) captures: Vec<(u64, TableView<'a>, u64)>,
}

pub(crate) const NEVER_LOSES: u8 = 0x80;
/// `count` of a position with a capture: no simple move of it is legal, so
/// the walk back skips it (a position has at most 24 sideways moves).
pub(crate) const CAPTURES: u8 = 0x7f;

/// Solves a unit under the mirror scheme and returns each class's encoded
/// entries in index order, for tables of `kind` (as `solve::solve_unit`).
pub(crate) fn solve_unit(
    rules: RuleSet,
    unit: &[Material],
    kind: Kind,
    lookup: &Lookup<'_>,
    report: &mut dyn FnMut(Phase),
) -> Result<Vec<Vec<u8>>, TbError> {
    let classes: Vec<ClassSlices> = unit.iter().map(|&m| ClassSlices::new(m)).collect();
    let wdl = kind == Kind::Wdl;
    let stores = classes.iter().map(|c| Store::new(c.len, wdl)).collect();
    let ctx = Context {
        rules: rules.rules(),
        sideways: sideways(rules),
        classes,
        stores,
        lookup,
        wdl,
        overflow: AtomicBool::new(false),
        max_byte: AtomicU8::new(0),
    };
    solve_levels(&ctx.classes, unit, report, Work::default, |pair, work| solve_pair(&ctx, pair, work));
    if ctx.overflow.load(Relaxed) {
        return Err(TbError::DistanceOverflow { material: unit[0], max: MAX_DISTANCE });
    }
    Ok(ctx.classes.iter().zip(&ctx.stores).map(|(c, s)| encode(c, s, kind)).collect())
}

/// `sideways[t]`: the points on `t`'s rank from which the side moving down
/// reaches `t` with a simple move.
pub(crate) fn sideways(rules: RuleSet) -> [u32; 25] {
    let back = unstep(rules);
    let mut sideways = [0u32; 25];
    for (t, s) in sideways.iter_mut().enumerate() {
        *s = back[t] & (ROW << (5 * (t / 5)));
    }
    sideways
}

/// Solves every pair of a unit with `solve` (each thread with its own
/// working arrays from `work`), the pairs of one progress in parallel, from
/// the highest progress down; reports after each progress.
pub(crate) fn solve_levels<W: Send>(
    classes: &[ClassSlices],
    unit: &[Material],
    report: &mut dyn FnMut(Phase),
    work: impl Fn() -> W + Sync + Send,
    solve: impl Fn(Pair, &mut W) + Sync + Send,
) {
    let by_progress = pairs_by_progress(classes, unit);
    let total: u64 = classes.iter().map(|c| c.len).sum();
    let entries: u64 = unit.iter().map(|m| m.slots(Scheme::Mirror)).sum();
    let levels = by_progress.iter().filter(|g| !g.is_empty()).count() as u16;
    let done = AtomicU64::new(0);
    for (level, group) in by_progress.iter().rev().filter(|g| !g.is_empty()).enumerate() {
        group.par_iter().for_each_init(&work, |w, pair| {
            solve(*pair, w);
            let n: u64 = pair.sides[..if pair.alone { 1 } else { 2 }]
                .iter()
                .map(|&(c, s)| u64::from(classes[c].slices[s].len))
                .sum();
            done.fetch_add(n, Relaxed);
        });
        report(Phase::Sweep { done: done.load(Relaxed) * entries / total.max(1), total: entries });
        report(Phase::Advancement { level: level as u16, levels });
    }
}

/// The last step of a pair: draws stay 0, mirror images take their
/// canonical position's value, and the values go to the class's store.
pub(crate) fn store_pair(classes: &[ClassSlices], stores: &[Store], pair: Pair, val: &mut [Vec<u8>; 2]) {
    let n = if pair.alone { 1 } else { 2 };
    for (k, val) in val.iter_mut().enumerate().take(n) {
        let s = &classes[pair.sides[k].0].slices[pair.sides[k].1];
        s.for_each(|l, us, them| {
            let (cu, ct) = canonical(us, them);
            if (cu, ct) != (us, them) {
                val[l as usize] = val[s.local(cu, ct) as usize];
            }
        });
        stores[pair.sides[k].0].put(s.offset, val);
    }
}

/// A unit's pairs by their progress (index), each progress's largest pairs
/// first, so that the threads solving them finish together.
fn pairs_by_progress(classes: &[ClassSlices], unit: &[Material]) -> Vec<Vec<Pair>> {
    let partner = |k: usize| if unit.len() == 2 { 1 - k } else { 0 };
    let mut by_progress: Vec<Vec<Pair>> = vec![Vec::new(); 4 * 24 + 1];
    let first = &classes[0];
    let second = &classes[partner(0)];
    for (s, slice) in first.slices.iter().enumerate() {
        let p = second.slice_with(&reversed(&slice.them), &reversed(&slice.us));
        let alone = unit.len() == 1 && p == s;
        if unit.len() == 1 && p < s {
            continue;
        }
        by_progress[slice.progress() as usize].push(Pair { sides: [(0, s), (partner(0), p)], alone });
    }
    for group in &mut by_progress {
        group.sort_by_key(|p| std::cmp::Reverse(classes[p.sides[0].0].slices[p.sides[0].1].len));
    }
    by_progress
}

#[inline]
pub(crate) fn pack(us: u32, them: u32, side: usize) -> u64 {
    u64::from(us) | u64::from(them) << 25 | (side as u64) << 50
}

#[inline]
pub(crate) fn unpack(e: u64) -> (u32, u32, usize) {
    ((e & u64::from(ALL)) as u32, ((e >> 25) & u64::from(ALL)) as u32, (e >> 50) as usize & 1)
}

fn solve_pair<'a>(ctx: &Context<'a>, pair: Pair, work: &mut Work<'a>) {
    let n = if pair.alone { 1 } else { 2 };
    let slice = |k: usize| &ctx.classes[pair.sides[k].0].slices[pair.sides[k].1];
    let partner = |k: usize| if pair.alone { 0 } else { 1 - k };
    if work.buckets.is_empty() {
        work.buckets = vec![Vec::new(); 256];
    }
    for k in 0..n {
        let len = slice(k).len as usize;
        for v in [&mut work.val[k], &mut work.count[k], &mut work.worst[k]] {
            v.clear();
            v.resize(len, 0);
        }
    }
    let wdl = ctx.wdl;
    let mut moves = MoveList::new();
    // 1. Captures, forward moves and sideways counts.
    for k in 0..n {
        let s = slice(k);
        let (next_class, _) = pair.sides[partner(k)];
        let next = &ctx.classes[next_class];
        let next_store = &ctx.stores[next_class];
        let Work { count, worst, buckets, captures, .. } = work;
        s.for_each(|l, us, them| {
            if canonical(us, them) != (us, them) {
                return;
            }
            if capturers(ctx.rules, us, them) != 0 {
                count[k][l as usize] = CAPTURES;
                queue_captures(ctx.rules, ctx.lookup, (us, them, k), &mut moves, captures);
                if captures.len() >= 256 {
                    flush_captures(ctx, captures, buckets);
                }
                return;
            }
            let empty = !(us | them) & ALL;
            let (mut side_moves, mut never_loses, mut best, mut most) = (0u32, false, u8::MAX, 0u8);
            for f in Bitboard(us) {
                let fi = f.index();
                let to = ctx.rules.steps[0][fi].0 & empty;
                let rank = ROW << (5 * (fi / 5));
                side_moves += (to & rank).count_ones();
                for t in Bitboard(to & !rank) {
                    let moved = us ^ (1 << fi) ^ (1 << t.index());
                    let v = next_store.get(next.place(rotate(them), rotate(moved)));
                    if v == 0 {
                        never_loses = true;
                    } else if v % 2 == 1 {
                        best = best.min(v);
                    } else {
                        most = most.max(v);
                    }
                }
            }
            count[k][l as usize] = side_moves as u8 | if never_loses || best != u8::MAX { NEVER_LOSES } else { 0 };
            worst[k][l as usize] = most;
            if best != u8::MAX {
                push(ctx, buckets, pack(us, them, k), u16::from(best) + 1);
            } else if side_moves == 0 && !never_loses {
                push(ctx, buckets, pack(us, them, k), u16::from(most) + 1);
            }
        });
        flush_captures(ctx, captures, buckets);
    }
    // 2. Sideways retrograde, in increasing value byte.
    let mut top = 0u8;
    let last = if wdl { 0 } else { 255 };
    for b in 0..=last {
        while let Some(e) = work.buckets[b].pop() {
            let (us, them, k) = unpack(e);
            let byte = if wdl { (e >> 51) as u8 } else { b as u8 };
            let l = slice(k).local(us, them) as usize;
            if work.val[k][l] != 0 {
                continue;
            }
            work.val[k][l] = byte;
            top = top.max(byte);
            walk_back(ctx, work, us, them, byte, slice(partner(k)), partner(k));
        }
    }
    ctx.max_byte.fetch_max(top, Relaxed);
    // 3. Draws stay 0; mirror images take their canonical position's value.
    store_pair(&ctx.classes, &ctx.stores, pair, &mut work.val);
}

/// Queues a position for value `byte` (win/draw/loss builds: its kind).
#[inline]
fn push(ctx: &Context<'_>, buckets: &mut [Vec<u64>], e: u64, byte: u16) {
    if ctx.wdl {
        let byte = if byte.is_multiple_of(2) { 2u64 } else { 1 };
        buckets[0].push(e | byte << 51);
    } else if u32::from(byte) > MAX_DISTANCE + 1 {
        ctx.overflow.store(true, Relaxed);
    } else {
        buckets[byte as usize].push(e);
    }
}

/// Queues the capture successors of the position `(us, them)` of side `k`
/// of a pair (every legal move of it is a capture) for a look-up in the
/// smaller tables, their bytes prefetched.
pub(crate) fn queue_captures<'a>(
    rules: &Rules,
    lookup: &Lookup<'a>,
    (us, them, k): (u32, u32, usize),
    moves: &mut MoveList,
    captures: &mut Vec<(u64, TableView<'a>, u64)>,
) {
    moves.clear();
    crate::index::denormalize(us, them).generate(rules, moves);
    for &mv in moves.iter() {
        let (nu, nt, nm) = successor(us, them, mv);
        let table = lookup.table(nm);
        let index = table.index(nu, nt);
        prefetch(table.byte(index));
        captures.push((pack(us, them, k), table, index));
    }
}

/// Looks the queued captures' successors up and queues their positions.
fn flush_captures(ctx: &Context<'_>, captures: &mut Vec<(u64, TableView<'_>, u64)>, buckets: &mut [Vec<u64>]) {
    for group in captures.chunk_by(|a, b| a.0 == b.0) {
        let value = Exact::from_successors(group.iter().map(|c| lookup_value(&c.1, c.2)));
        match value_to_byte(value) {
            // A draw stays 0 and passes nothing back.
            Some(0) => {}
            Some(byte) => push(ctx, buckets, group[0].0, byte.into()),
            None => ctx.overflow.store(true, Relaxed),
        }
    }
    captures.clear();
}

/// Calls `f(l, e, weight)` for each predecessor of the settled position
/// `(us, them)` over a sideways move, in the partner slice `target` (side
/// `k` of the pair), still open and without a capture (only then was the
/// move legal): its local number, its queue entry and how many of the
/// settled position's moves it stands for (2 for a self-mirrored
/// predecessor of a position that is not; a self-mirrored position counts
/// only canonical predecessors).
pub(crate) fn open_predecessors<'a>(
    sideways: &[u32; 25],
    work: &mut Work<'a>,
    (us, them): (u32, u32),
    target: &Slice,
    k: usize,
    mut f: impl FnMut(&mut Work<'a>, usize, u64, u8),
) {
    let own_mirror = us == mirror(us) && them == mirror(them);
    let empty = !(us | them) & ALL;
    let q_them = rotate(us);
    for t in Bitboard(them) {
        for f_point in Bitboard(sideways[t.index()] & empty) {
            let q_us = rotate(them ^ (1 << t.index()) ^ (1 << f_point.index()));
            let (cu, ct) = canonical(q_us, q_them);
            if own_mirror && (cu, ct) != (q_us, q_them) {
                continue;
            }
            let l = target.local(cu, ct) as usize;
            if work.val[k][l] != 0 || work.count[k][l] == CAPTURES {
                continue;
            }
            let weight = if !own_mirror && cu == mirror(cu) && ct == mirror(ct) { 2 } else { 1 };
            f(work, l, pack(cu, ct, k), weight);
        }
    }
}

/// Passes a settled position's value back over the sideways moves that
/// lead to it, to the partner slice `target` (side `k` of the pair).
fn walk_back(ctx: &Context<'_>, work: &mut Work<'_>, us: u32, them: u32, byte: u8, target: &Slice, k: usize) {
    let loss = byte % 2 == 1;
    open_predecessors(&ctx.sideways, work, (us, them), target, k, |work, l, e, weight| {
        if loss {
            push(ctx, &mut work.buckets, e, u16::from(byte) + 1);
        } else {
            let c = work.count[k][l];
            let left = (c & !NEVER_LOSES).saturating_sub(weight);
            work.count[k][l] = (c & NEVER_LOSES) | left;
            let most = work.worst[k][l].max(byte);
            work.worst[k][l] = most;
            if left == 0 && c & NEVER_LOSES == 0 {
                push(ctx, &mut work.buckets, e, u16::from(most) + 1);
            }
        }
    });
}

#[inline(always)]
pub(crate) fn prefetch(byte: &u8) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: prefetching is a hint; it never faults, whatever the address.
    #[allow(unused_unsafe)]
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(std::ptr::from_ref(byte).cast::<i8>());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = byte;
}

/// Walks a class's entries in index order (scheme 2) from entry `j`.
struct Entries {
    material: Material,
    set: u64,
    free: FreePoints,
    us: u32,
    squeezed: u32,
    left_in_block: u64,
}

impl Entries {
    fn from(material: Material, j: u64) -> Entries {
        let block = material.block();
        let set = j / block;
        let us = mover_set(Scheme::Mirror, material, set);
        let squeezed = unrank(j % block, material.other.into(), POINTS - u32::from(material.mover));
        Entries { material, set, free: FreePoints::new(us), us, squeezed, left_in_block: block - j % block }
    }

    #[inline]
    fn next(&mut self) -> (u32, u32) {
        if self.left_in_block == 0 {
            self.set += 1;
            self.us = mover_set(Scheme::Mirror, self.material, self.set);
            self.free = FreePoints::new(self.us);
            self.squeezed = (1u32 << self.material.other) - 1;
            self.left_in_block = self.material.block();
        }
        let them = self.free.deposit(self.squeezed);
        if self.squeezed != 0 {
            self.squeezed = next_combination(self.squeezed);
        }
        self.left_in_block -= 1;
        (self.us, them)
    }
}

/// A class's entries in the files' order and encoding.
pub(crate) fn encode(class: &ClassSlices, store: &Store, kind: Kind) -> Vec<u8> {
    let m = class.material;
    let slots = m.slots(Scheme::Mirror);
    const CHUNK: usize = 1 << 16;
    match kind {
        Kind::Distance | Kind::Dtz => {
            let mut out = vec![0u8; slots as usize];
            out.par_chunks_mut(CHUNK).enumerate().for_each(|(c, chunk)| {
                let mut entries = Entries::from(m, (c * CHUNK) as u64);
                for x in chunk {
                    let (us, them) = entries.next();
                    *x = store.get(class.place(us, them));
                }
            });
            out
        }
        Kind::Wdl => {
            let mut out = vec![0u8; slots.div_ceil(4) as usize];
            out.par_chunks_mut(CHUNK).enumerate().for_each(|(c, chunk)| {
                let first = (c * CHUNK * 4) as u64;
                let mut entries = Entries::from(m, first);
                for (i, x) in chunk.iter_mut().enumerate() {
                    for k in 0..4 {
                        if first + (4 * i + k) as u64 >= slots {
                            break;
                        }
                        let (us, them) = entries.next();
                        *x |= wdl_code_of(store.get(class.place(us, them))) << (2 * k);
                    }
                }
            });
            out
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slices_number_every_position_of_a_class_once() {
        for material in
            [Material { mover: 3, other: 2 }, Material { mover: 0, other: 4 }, Material { mover: 5, other: 0 }]
        {
            let class = ClassSlices::new(material);
            let mut seen = vec![false; class.len as usize];
            let mut count = 0;
            for (n, s) in class.slices.iter().enumerate() {
                s.for_each(|l, us, them| {
                    assert_eq!(class.slice_of(us, them), n);
                    assert_eq!(s.local(us, them), l);
                    assert_eq!((us.count_ones(), them.count_ones()), (material.mover.into(), material.other.into()));
                    let p = class.place(us, them) as usize;
                    assert!(!seen[p]);
                    seen[p] = true;
                    count += 1;
                });
            }
            assert_eq!(count, material.positions());
        }
    }

    #[test]
    fn the_entry_walk_follows_the_index() {
        let material = Material { mover: 3, other: 2 };
        let mut walk = Entries::from(material, 0);
        for j in 0..material.slots(Scheme::Mirror) {
            assert_eq!(walk.next(), crate::index::position_in(Scheme::Mirror, material, j), "entry {j}");
        }
        let mut late = Entries::from(material, 777);
        assert_eq!(late.next(), crate::index::position_in(Scheme::Mirror, material, 777));
    }

    #[test]
    fn brainking_allows_slices_and_classic_does_not() {
        assert!(applies(RuleSet::BrainKing));
        assert!(!applies(RuleSet::Classic));
    }
}
