//! The transposition table: a fixed array of entries indexed by hash.

use crate::moves::Move;
use crate::types::Bitboard;

/// What a stored score means relative to the true value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    Exact,
    /// The true score is at least this (a fail-high).
    Lower,
    /// The true score is at most this (a fail-low).
    Upper,
}

/// A move stored compactly: origin, end and captured set identify it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct MoveKey {
    pub from: u8,
    pub to: u8,
    pub captured: u32,
}

impl MoveKey {
    pub fn of(mv: Move) -> MoveKey {
        MoveKey { from: mv.from().index() as u8, to: mv.to().index() as u8, captured: mv.captured().0 }
    }

    pub fn matches(self, mv: Move) -> bool {
        self.from as usize == mv.from().index() && self.to as usize == mv.to().index() && Bitboard(self.captured) == mv.captured()
    }
}

#[derive(Clone, Copy, Debug)]
pub struct Entry {
    pub key: u64,
    pub best: MoveKey,
    pub has_move: bool,
    pub score: i32,
    pub depth: i16,
    pub bound: Bound,
    pub generation: u8,
    /// Plies that could still pass, at the node that stored the entry, before
    /// the no-progress rule could end the game (255: 255 or more, or no rule).
    /// A proven result depends on it; see `Searcher`'s reuse rule.
    pub np_budget: u8,
    /// The same for the game's ply cap.
    pub cap_budget: u8,
}

const EMPTY: Entry = Entry {
    key: 0,
    best: MoveKey { from: 0, to: 0, captured: 0 },
    has_move: false,
    score: 0,
    depth: -1,
    bound: Bound::Upper,
    generation: 0,
    np_budget: 0,
    cap_budget: 0,
};

/// A table of `2^k` entries. Replacement keeps the deeper entry of the
/// current search; entries from earlier searches are always replaced.
pub struct TranspositionTable {
    entries: Vec<Entry>,
    mask: usize,
    generation: u8,
}

impl TranspositionTable {
    /// A table of at most `megabytes` MiB (at least 1,024 entries).
    pub fn new(megabytes: usize) -> TranspositionTable {
        let want = (megabytes.max(1) * 1024 * 1024) / std::mem::size_of::<Entry>();
        let size = (want.max(1024) + 1).next_power_of_two() / 2;
        TranspositionTable { entries: vec![EMPTY; size], mask: size - 1, generation: 0 }
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Forgets everything (a new game).
    pub fn clear(&mut self) {
        self.entries.fill(EMPTY);
        self.generation = 0;
    }

    /// Marks the start of a new search, so older entries become replaceable.
    pub fn new_search(&mut self) {
        self.generation = self.generation.wrapping_add(1);
    }

    /// Asks the processor to fetch the entry of `key` into cache ahead of a
    /// probe, so the miss overlaps with other work.
    #[inline]
    pub fn prefetch(&self, key: u64) {
        #[cfg(target_arch = "x86_64")]
        {
            let ptr = &self.entries[key as usize & self.mask] as *const Entry as *const i8;
            // SAFETY: prefetching is a hint; the address is of a live element.
            unsafe { std::arch::x86_64::_mm_prefetch(ptr, std::arch::x86_64::_MM_HINT_T0) };
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = key;
    }

    #[inline]
    pub fn probe(&self, key: u64) -> Option<Entry> {
        let e = self.entries[key as usize & self.mask];
        (e.key == key && e.depth >= 0).then_some(e)
    }

    /// Stores a result; `budgets` are the node's (no progress, ply cap)
    /// budgets, see [`Entry::np_budget`].
    #[inline]
    pub fn store(&mut self, key: u64, depth: i32, score: i32, bound: Bound, best: Option<Move>, budgets: (u8, u8)) {
        let generation = self.generation;
        let slot = &mut self.entries[key as usize & self.mask];
        let replace =
            slot.key == key || slot.generation != generation || depth as i16 >= slot.depth || bound == Bound::Exact;
        if !replace {
            return;
        }
        // Keep the old best move when the new result has none for the same position.
        let (has_move, best_key) = match best {
            Some(mv) => (true, MoveKey::of(mv)),
            None if slot.key == key => (slot.has_move, slot.best),
            None => (false, MoveKey::default()),
        };
        *slot = Entry {
            key,
            best: best_key,
            has_move,
            score,
            depth: depth.clamp(0, i16::MAX as i32) as i16,
            bound,
            generation,
            np_budget: budgets.0,
            cap_budget: budgets.1,
        };
    }
}
