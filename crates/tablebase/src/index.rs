//! Material classes and the compact index of the positions in a class.
//!
//! Every position is stored from the side to move's point of view: when Black
//! is to move, the board is turned by 180° and the colours are swapped (the
//! colour-flipped twin, which has the same value). So a stored position is a
//! pair of disjoint sets `(us, them)` where `us` moves towards rank 5, as
//! White does, and is to move.
//!
//! Index scheme 1 ("colex, squeezed"): in the class `(a, b)` (`a` pieces to
//! move, `b` others) the index is
//! `rank(us) * C(25 - a, b) + rank(them squeezed into the 25 - a points that
//! are not ours)`, with `rank` the colexicographic rank of a set of points
//! (`sum of C(p_i, i + 1)` over its points in increasing order). Every index
//! below `C(25, a) * C(25 - a, b)` is a position: nothing is wasted.

use std::fmt;
use std::sync::OnceLock;

use alq_engine::{Bitboard, Position, Side};

/// Points on the board.
pub const POINTS: u32 = 25;
/// Most pieces a side can have.
pub const MAX_SIDE: u8 = 12;
/// The 25 board bits.
pub(crate) const ALL: u32 = (1 << POINTS) - 1;

const fn binomials() -> [[u64; 26]; 26] {
    let mut c = [[0u64; 26]; 26];
    let mut n = 0;
    while n < 26 {
        c[n][0] = 1;
        let mut k = 1;
        while k <= n {
            c[n][k] = c[n - 1][k - 1] + if k < n { c[n - 1][k] } else { 0 };
            k += 1;
        }
        n += 1;
    }
    c
}

/// `BINOM[n][k]` = n choose k, for n, k ≤ 25.
static BINOM: [[u64; 26]; 26] = binomials();

/// n choose k (0 when k > n).
#[inline]
pub fn binom(n: u32, k: u32) -> u64 {
    BINOM[n as usize][k as usize]
}

/// A material class: the number of pieces of the side to move and of the other side.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Material {
    /// Pieces of the side to move.
    pub mover: u8,
    /// Pieces of the other side.
    pub other: u8,
}

impl Material {
    /// The class, or `None` when a side would have more than 12 pieces.
    pub fn new(mover: u8, other: u8) -> Option<Material> {
        (mover <= MAX_SIDE && other <= MAX_SIDE).then_some(Material { mover, other })
    }

    /// The class of a position (from the side to move's view).
    pub fn of(pos: &Position) -> Material {
        let us = pos.side_to_move();
        Material { mover: pos.pieces(us).count() as u8, other: pos.pieces(us.opponent()).count() as u8 }
    }

    /// Both sides' pieces together.
    pub fn pieces(self) -> u32 {
        u32::from(self.mover) + u32::from(self.other)
    }

    /// The class after a simple move: the other side is to move.
    pub fn flipped(self) -> Material {
        Material { mover: self.other, other: self.mover }
    }

    /// Number of stored positions (entries) of the class.
    pub fn positions(self) -> u64 {
        binom(POINTS, self.mover.into()) * self.block()
    }

    /// Number of entries (slots) of the class under `scheme`.
    pub fn slots(self, scheme: Scheme) -> u64 {
        self.sets(scheme) * self.block()
    }

    /// Number of the mover's sets under `scheme`.
    pub(crate) fn sets(self, scheme: Scheme) -> u64 {
        match scheme {
            Scheme::Plain => self.mover_sets(),
            Scheme::Mirror => MirrorSets::of(self.mover).len(),
        }
    }

    /// Entries that share one set of the mover's pieces.
    #[inline]
    pub(crate) fn block(self) -> u64 {
        binom(POINTS - u32::from(self.mover), self.other.into())
    }

    /// Number of different sets of the mover's pieces.
    pub(crate) fn mover_sets(self) -> u64 {
        binom(POINTS, self.mover.into())
    }

    /// The table file's name, e.g. `5v3.alqtb`.
    pub fn file_name(self) -> String {
        format!("{}v{}.alqtb", self.mover, self.other)
    }

    /// Every class with exactly `pieces` pieces, mover's count descending.
    pub fn with_pieces(pieces: u32) -> Vec<Material> {
        (0..=pieces.min(MAX_SIDE.into()))
            .rev()
            .filter_map(|m| {
                let o = pieces - m;
                Material::new(m as u8, u8::try_from(o).ok()?)
            })
            .collect()
    }

    /// Every class with at most `pieces` pieces, fewest pieces first.
    pub fn up_to(pieces: u32) -> Vec<Material> {
        (0..=pieces).flat_map(Material::with_pieces).collect()
    }
}

impl fmt::Display for Material {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}v{}", self.mover, self.other)
    }
}

/// The board turned by 180° (point p goes to 24 - p).
#[inline]
pub fn rotate(bits: u32) -> u32 {
    bits.reverse_bits() >> 7
}

/// The stored form of a position: `(us, them)`, the side to move moving up.
#[inline]
pub fn normalize(pos: &Position) -> (u32, u32) {
    let (w, b) = (pos.pieces(Side::White).0, pos.pieces(Side::Black).0);
    match pos.side_to_move() {
        Side::White => (w, b),
        Side::Black => (rotate(b), rotate(w)),
    }
}

/// The position (White to move) whose stored form is `(us, them)`.
pub fn denormalize(us: u32, them: u32) -> Position {
    Position::from_parts(Bitboard(us), Bitboard(them), Side::White)
}

/// The board mirrored left-right (file a <-> e), as [`Position::mirror`]:
/// each rank's five bits reversed.
#[inline]
pub fn mirror(bits: u32) -> u32 {
    let mut out = 0;
    let mut row = 0;
    while row < 25 {
        out |= u32::from(REVERSE5[((bits >> row) & 31) as usize]) << row;
        row += 5;
    }
    out
}

/// The five-bit patterns reversed.
static REVERSE5: [u8; 32] = {
    let mut t = [0u8; 32];
    let mut i = 0;
    while i < 32 {
        t[i] = (((i & 1) << 4) | ((i & 2) << 2) | (i & 4) | ((i & 8) >> 2) | ((i & 16) >> 4)) as u8;
        i += 1;
    }
    t
};

/// How a class's entries are numbered.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Scheme {
    /// Scheme 1 (format version 1): every stored form has its own entry.
    Plain,
    /// Scheme 2 (format version 2): a position and its left-right mirror
    /// image share one entry. The mover's sets are numbered among those that
    /// are not greater (as 25-bit numbers) than their mirror image; a set that
    /// is its own mirror keeps the whole block of the other side's sets, of
    /// which only those not greater than their mirror image are positions of
    /// their own ("canonical"); the others are spare slots that hold their
    /// mirror image's value.
    Mirror,
}

impl Scheme {
    /// The number written in file headers.
    pub fn code(self) -> u8 {
        match self {
            Scheme::Plain => 1,
            Scheme::Mirror => 2,
        }
    }
}

/// The mover's sets of one size that are not greater than their mirror
/// image, in colex order, and each set's number among them.
pub(crate) struct MirrorSets {
    /// By colex rank: the set's number among the canonical sets, or
    /// `u32::MAX` for a set greater than its mirror image.
    ordinal: Vec<u32>,
    /// The canonical sets in order.
    sets: Vec<u32>,
}

impl MirrorSets {
    /// The sets of `k` points (built once per size and kept).
    pub(crate) fn of(k: u8) -> &'static MirrorSets {
        static SETS: [OnceLock<MirrorSets>; 26] = [const { OnceLock::new() }; 26];
        SETS[k as usize].get_or_init(|| {
            let n = binom(POINTS, k.into());
            let mut ordinal = Vec::with_capacity(n as usize);
            let mut sets = Vec::new();
            let mut set: u32 = (1u32 << k) - 1;
            for _ in 0..n {
                if set <= mirror(set) {
                    ordinal.push(sets.len() as u32);
                    sets.push(set);
                } else {
                    ordinal.push(u32::MAX);
                }
                if set != 0 {
                    set = next_combination(set);
                }
            }
            MirrorSets { ordinal, sets }
        })
    }

    #[inline]
    pub(crate) fn set(&self, number: u64) -> u32 {
        self.sets[number as usize]
    }

    pub(crate) fn len(&self) -> u64 {
        self.sets.len() as u64
    }
}

/// The representative of a position and its mirror image: the mover's set
/// not greater than its mirror, and when the mover's set is its own mirror,
/// the other side's set not greater than its mirror.
#[inline]
pub fn canonical(us: u32, them: u32) -> (u32, u32) {
    let mu = mirror(us);
    if us < mu {
        (us, them)
    } else if us > mu {
        (mu, mirror(them))
    } else {
        (us, them.min(mirror(them)))
    }
}

/// Whether the slot of `(us, them)` (with `us` its own mirror or canonical)
/// is a spare: its position is the mirror image of another entry's.
#[inline]
pub(crate) fn is_spare(us: u32, them: u32) -> bool {
    us == mirror(us) && them > mirror(them)
}

/// The colexicographic rank of a set of points among the sets of its size.
#[inline]
fn rank(mut set: u32) -> u64 {
    let mut r = 0;
    let mut i = 1;
    while set != 0 {
        r += BINOM[set.trailing_zeros() as usize][i];
        set &= set - 1;
        i += 1;
    }
    r
}

/// The rank of `them` after removing the points of `us` from the board.
#[inline]
fn squeezed_rank(us: u32, mut them: u32) -> u64 {
    let mut r = 0;
    let mut i = 1;
    while them != 0 {
        let p = them.trailing_zeros();
        let below = us & ((1u32 << p) - 1);
        r += BINOM[(p - below.count_ones()) as usize][i];
        them &= them - 1;
        i += 1;
    }
    r
}

/// The set of `k` points (as bits 0..n) with colex rank `r`.
#[inline]
pub(crate) fn unrank(mut r: u64, k: u32, n: u32) -> u32 {
    let mut set = 0;
    let mut c = n;
    for i in (1..=k as usize).rev() {
        c -= 1;
        while BINOM[c as usize][i] > r {
            c -= 1;
        }
        r -= BINOM[c as usize][i];
        set |= 1 << c;
    }
    set
}

/// The index of `(us, them)` in its class `material` under scheme 1.
#[inline]
pub fn index(us: u32, them: u32, material: Material) -> u64 {
    rank(us) * material.block() + squeezed_rank(us, them)
}

/// The index of `(us, them)` in its class under `scheme`; under the mirror
/// scheme the position is brought to its canonical form first.
#[inline]
pub fn index_in(scheme: Scheme, us: u32, them: u32, material: Material) -> u64 {
    match scheme {
        Scheme::Plain => index(us, them, material),
        Scheme::Mirror => {
            let (us, them) = canonical(us, them);
            index_canonical(us, them, material)
        }
    }
}

/// The mirror scheme's index of a position already in canonical form.
#[inline]
pub(crate) fn index_canonical(us: u32, them: u32, material: Material) -> u64 {
    let number = MirrorSets::of(material.mover).ordinal[rank(us) as usize];
    debug_assert!(number != u32::MAX, "not canonical");
    u64::from(number) * material.block() + squeezed_rank(us, them)
}

/// The points that `us` leaves free, in increasing order: squeezed bit i of
/// `them` stands for point `free[i]`.
#[derive(Clone, Copy)]
pub(crate) struct FreePoints {
    points: [u8; 25],
}

impl FreePoints {
    pub(crate) fn new(us: u32) -> FreePoints {
        let mut points = [0u8; 25];
        let mut free = !us & ALL;
        let mut i = 0;
        while free != 0 {
            points[i] = free.trailing_zeros() as u8;
            free &= free - 1;
            i += 1;
        }
        FreePoints { points }
    }

    /// Spreads squeezed bits over the free points (a software `pdep`).
    #[inline]
    pub(crate) fn deposit(&self, mut squeezed: u32) -> u32 {
        let mut set = 0;
        while squeezed != 0 {
            set |= 1 << self.points[squeezed.trailing_zeros() as usize];
            squeezed &= squeezed - 1;
        }
        set
    }
}

/// The next larger set with as many bits (colex order); `set` is non-empty.
#[inline]
pub(crate) fn next_combination(set: u32) -> u32 {
    let t = set | (set - 1);
    (t + 1) | (((!t & t.wrapping_add(1)) - 1) >> (set.trailing_zeros() + 1))
}

/// The stored form of the entry `index` of class `material` (scheme 1).
pub fn position_at(material: Material, index: u64) -> (u32, u32) {
    position_in(Scheme::Plain, material, index)
}

/// The stored form of the entry `index` of class `material` under `scheme`
/// (for a spare slot of the mirror scheme: the position whose value it holds
/// a copy of, the mirror image of a canonical one).
pub fn position_in(scheme: Scheme, material: Material, index: u64) -> (u32, u32) {
    let block = material.block();
    let us = mover_set(scheme, material, index / block);
    let squeezed = unrank(index % block, material.other.into(), POINTS - u32::from(material.mover));
    (us, FreePoints::new(us).deposit(squeezed))
}

/// The mover's set number `number` of a class under `scheme`.
#[inline]
pub(crate) fn mover_set(scheme: Scheme, material: Material, number: u64) -> u32 {
    match scheme {
        Scheme::Plain => unrank(number, material.mover.into(), POINTS),
        Scheme::Mirror => MirrorSets::of(material.mover).set(number),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alq_engine::Bitboard;

    #[test]
    fn index_round_trips_and_is_dense() {
        for material in
            [Material { mover: 2, other: 1 }, Material { mover: 0, other: 3 }, Material { mover: 3, other: 0 }]
        {
            for i in 0..material.positions() {
                let (us, them) = position_at(material, i);
                assert_eq!(us & them, 0);
                assert_eq!(us.count_ones(), u32::from(material.mover));
                assert_eq!(them.count_ones(), u32::from(material.other));
                assert_eq!(index(us, them, material), i);
            }
        }
    }

    #[test]
    fn next_combination_walks_colex_order() {
        let mut set = 0b111;
        for r in 0..binom(10, 3) {
            assert_eq!(unrank(r, 3, 10), set);
            set = next_combination(set);
        }
    }

    #[test]
    fn mirror_matches_the_engine_and_commutes_with_the_half_turn() {
        for bits in [1u32, 0b11, 1 << 12, 0x155_5555, 0x1ab_cdef & ALL, 0b10110 << 15] {
            assert_eq!(mirror(bits), Bitboard(bits).mirror().0, "{bits:#x}");
            assert_eq!(mirror(mirror(bits)), bits);
            assert_eq!(mirror(rotate(bits)), rotate(mirror(bits)));
        }
    }

    #[test]
    fn mirror_index_round_trips_and_halves_the_classes() {
        for material in [
            Material { mover: 2, other: 1 },
            Material { mover: 1, other: 2 },
            Material { mover: 3, other: 0 },
            Material { mover: 0, other: 2 },
        ] {
            let slots = material.slots(Scheme::Mirror);
            // A mover's set that is its own mirror image keeps its whole
            // block (the empty set of 0vN classes among them).
            if material.mover > 0 {
                assert!(
                    slots * 2 >= material.positions()
                        && slots * 2 < material.positions() + material.positions() / 5 + 50,
                    "{material}: {slots}"
                );
            } else {
                assert_eq!(slots, material.positions());
            }
            let mut seen = vec![false; slots as usize];
            for i in 0..material.positions() {
                let (us, them) = position_at(material, i);
                let j = index_in(Scheme::Mirror, us, them, material);
                assert_eq!(j, index_in(Scheme::Mirror, mirror(us), mirror(them), material));
                let (cu, ct) = canonical(us, them);
                assert_eq!(position_in(Scheme::Mirror, material, j), (cu, ct));
                assert!(!is_spare(cu, ct));
                seen[j as usize] = true;
            }
            // Every slot that is not spare is some position's.
            for (j, &s) in seen.iter().enumerate() {
                let (us, them) = position_in(Scheme::Mirror, material, j as u64);
                assert_eq!(s, !is_spare(us, them), "{material} slot {j}");
            }
        }
    }

    #[test]
    fn rotate_is_the_half_turn() {
        assert_eq!(rotate(1), 1 << 24);
        assert_eq!(rotate(1 << 12), 1 << 12);
        assert_eq!(rotate(rotate(0x155_5555)), 0x155_5555);
    }
}
