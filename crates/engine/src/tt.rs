//! The transposition table: a fixed array of entries indexed by hash.

use std::sync::atomic::{AtomicU64, AtomicU8, Ordering};

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
        self.from as usize == mv.from().index()
            && self.to as usize == mv.to().index()
            && Bitboard(self.captured) == mv.captured()
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

/// A table of `2^k` entries, shared between the threads of a search (Lazy
/// SMP): each slot is three atomic words, the key stored XORed with the two
/// data words, so that a slot torn by two threads writing at once reads as a
/// different key and is ignored (lockless hashing). Replacement keeps the
/// deeper entry of the current search; entries from earlier searches are
/// always replaced.
pub struct TranspositionTable {
    slots: Vec<Slot>,
    mask: usize,
    generation: AtomicU8,
}

/// One slot: `check` is the key XOR both data words.
#[derive(Default)]
struct Slot {
    check: AtomicU64,
    data: AtomicU64,
    moves: AtomicU64,
}

impl Slot {
    #[inline]
    fn load(&self) -> Entry {
        let data = self.data.load(Ordering::Relaxed);
        let moves = self.moves.load(Ordering::Relaxed);
        let key = self.check.load(Ordering::Relaxed) ^ data ^ moves;
        decode(key, data, moves)
    }

    #[inline]
    fn save(&self, e: &Entry) {
        let (data, moves) = encode(e);
        self.data.store(data, Ordering::Relaxed);
        self.moves.store(moves, Ordering::Relaxed);
        self.check.store(e.key ^ data ^ moves, Ordering::Relaxed);
    }
}

/// Packs an entry; all-zero words decode to the empty entry (depth -1).
fn encode(e: &Entry) -> (u64, u64) {
    let bound = match e.bound {
        Bound::Upper => 0u64,
        Bound::Lower => 1,
        Bound::Exact => 2,
    };
    let data = u64::from(e.score as u32)
        | u64::from((e.depth as i32 + 1) as u16) << 32
        | bound << 48
        | u64::from(e.generation) << 50
        | u64::from(e.has_move) << 58;
    let moves = u64::from(e.best.from)
        | u64::from(e.best.to) << 8
        | u64::from(e.best.captured) << 16
        | u64::from(e.np_budget) << 48
        | u64::from(e.cap_budget) << 56;
    (data, moves)
}

fn decode(key: u64, data: u64, moves: u64) -> Entry {
    Entry {
        key,
        best: MoveKey { from: moves as u8, to: (moves >> 8) as u8, captured: (moves >> 16) as u32 },
        has_move: (data >> 58) & 1 == 1,
        score: data as u32 as i32,
        depth: ((data >> 32) as u16 as i32 - 1) as i16,
        bound: match (data >> 48) & 3 {
            0 => Bound::Upper,
            1 => Bound::Lower,
            _ => Bound::Exact,
        },
        generation: (data >> 50) as u8,
        np_budget: (moves >> 48) as u8,
        cap_budget: (moves >> 56) as u8,
    }
}

impl TranspositionTable {
    /// A table of at most `megabytes` MiB (at least 1,024 entries). The
    /// number of entries is counted by the size of an unpacked entry (the
    /// type [`TranspositionTable::probe`] returns), as before the table was
    /// shared, so searches keep their node counts.
    ///
    /// # Examples
    ///
    /// ```
    /// use alq_engine::{Bound, TranspositionTable};
    ///
    /// let tt = TranspositionTable::new(1);
    /// assert!(tt.len() >= 1_024 && tt.len().is_power_of_two());
    /// tt.store(0xABCD, 3, 42, Bound::Exact, None, (255, 255));
    /// let entry = tt.probe(0xABCD).unwrap();
    /// assert_eq!((entry.score, entry.depth, entry.bound), (42, 3, Bound::Exact));
    /// tt.clear();
    /// assert!(tt.probe(0xABCD).is_none());
    /// ```
    pub fn new(megabytes: usize) -> TranspositionTable {
        let want = (megabytes.max(1) * 1024 * 1024) / std::mem::size_of::<Entry>();
        let size = (want.max(1024) + 1).next_power_of_two() / 2;
        TranspositionTable {
            slots: (0..size).map(|_| Slot::default()).collect(),
            mask: size - 1,
            generation: AtomicU8::new(0),
        }
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.slots.len()
    }

    /// Never true: a table has at least 1,024 entries.
    pub fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }

    /// Forgets everything (a new game).
    pub fn clear(&self) {
        for slot in &self.slots {
            slot.check.store(0, Ordering::Relaxed);
            slot.data.store(0, Ordering::Relaxed);
            slot.moves.store(0, Ordering::Relaxed);
        }
        self.generation.store(0, Ordering::Relaxed);
    }

    /// Marks the start of a new search, so older entries become replaceable.
    pub fn new_search(&self) {
        self.generation.fetch_add(1, Ordering::Relaxed);
    }

    /// Asks the processor to fetch the entry of `key` into cache ahead of a
    /// probe, so the miss overlaps with other work.
    #[inline]
    pub fn prefetch(&self, key: u64) {
        #[cfg(target_arch = "x86_64")]
        {
            let ptr = &self.slots[key as usize & self.mask] as *const Slot as *const i8;
            // SAFETY: prefetching is a hint; the address is of a live element.
            unsafe { std::arch::x86_64::_mm_prefetch(ptr, std::arch::x86_64::_MM_HINT_T0) };
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = key;
    }

    /// The entry stored for `key`, if its slot holds one for that key.
    #[inline]
    pub fn probe(&self, key: u64) -> Option<Entry> {
        let e = self.slots[key as usize & self.mask].load();
        (e.key == key && e.depth >= 0).then_some(e)
    }

    /// Stores a result; `budgets` are the node's (no progress, ply cap)
    /// budgets: the plies that could still pass there before the no-progress
    /// rule or the ply cap could end the game, 255 for 255 or more or no
    /// rule (a proven result depends on them).
    #[inline]
    pub fn store(&self, key: u64, depth: i32, score: i32, bound: Bound, best: Option<Move>, budgets: (u8, u8)) {
        let generation = self.generation.load(Ordering::Relaxed);
        let cell = &self.slots[key as usize & self.mask];
        let slot = cell.load();
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
        cell.save(&Entry {
            key,
            best: best_key,
            has_move,
            score,
            depth: depth.clamp(0, i16::MAX as i32) as i16,
            bound,
            generation,
            np_budget: budgets.0,
            cap_budget: budgets.1,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_round_trip_through_the_packed_slot() {
        let e = Entry {
            key: 0xDEAD_BEEF_1234_5678,
            best: MoveKey { from: 24, to: 3, captured: 0x1FF_FFFF },
            has_move: true,
            score: -29_950,
            depth: 100,
            bound: Bound::Lower,
            generation: 255,
            np_budget: 17,
            cap_budget: 255,
        };
        let slot = Slot::default();
        assert_eq!(slot.load().depth, -1, "an empty slot holds no entry");
        slot.save(&e);
        let d = slot.load();
        assert_eq!((d.key, d.best, d.has_move, d.score, d.depth), (e.key, e.best, e.has_move, e.score, e.depth));
        assert_eq!(
            (d.bound, d.generation, d.np_budget, d.cap_budget),
            (e.bound, e.generation, e.np_budget, e.cap_budget)
        );
        // A slot torn by another thread's write reads as another key.
        slot.data.store(slot.data.load(Ordering::Relaxed) ^ 1, Ordering::Relaxed);
        assert_ne!(slot.load().key, e.key);
    }
}
