//! How many distinct positions legal play reaches from a position, by piece
//! count (`alq solve --reachable`).
//!
//! A move never adds a piece, so the positions split into layers by piece
//! count, and a layer is complete once every layer above it is: its
//! positions are the ones captures from above land on (its seeds), closed
//! under the moves that keep the count. The layers are counted from the top
//! down, each with one hash set of its positions; captures from it into
//! lower layers are kept as seeds (sorted and deduplicated as they grow).
//! Positions are positions (points of each side and the side to move);
//! the repetition and no-progress rules of a game are not applied.

use std::collections::HashSet;
use std::hash::BuildHasherDefault;
use std::time::{Duration, Instant};

use alq_engine::{Position, RuleSet, Side};

use crate::keymap::KeyHasher;

/// One counted layer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layer {
    pub pieces: u32,
    /// Distinct positions with this many pieces.
    pub positions: u64,
    /// Of those, the ones with White to move.
    pub white_to_move: u64,
    /// Of those, the ones whose side to move has no legal move (game over).
    pub ended: u64,
    /// Time spent on this layer.
    pub elapsed: Duration,
}

/// Why the count stopped before its lowest layer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stopped {
    /// The layer that did not fit.
    pub pieces: u32,
    /// Positions of it found before memory ran out.
    pub found: u64,
    pub memory_bytes: usize,
}

type KeySet = HashSet<u64, BuildHasherDefault<KeyHasher>>;

/// Bytes a set of this capacity takes (8-byte key and a control byte a bucket).
fn set_bytes(capacity: usize) -> usize {
    // hashbrown keeps buckets at a power of two with at most 7/8 of them used.
    (capacity * 8 / 7 + 1).next_power_of_two() * 9
}

fn compact(seeds: &mut Vec<u64>) {
    seeds.sort_unstable();
    seeds.dedup();
    seeds.shrink_to_fit();
}

/// Counts the layers reachable from `start` down to `min_pieces` pieces,
/// calling `done` after each; stops when the next step would take more than
/// `memory_bytes`, returning the layers counted and where it stopped.
pub fn count_reachable(
    start: &Position,
    rules: RuleSet,
    min_pieces: u32,
    memory_bytes: usize,
    done: &mut dyn FnMut(&Layer),
) -> (Vec<Layer>, Option<Stopped>) {
    let top = start.occupied().count();
    let mut seeds: Vec<Vec<u64>> = vec![Vec::new(); top as usize + 1];
    let mut compacted = vec![0usize; top as usize + 1];
    seeds[top as usize].push(start.key());
    let mut layers = Vec::new();
    for n in (min_pieces.max(1)..=top).rev() {
        let t0 = Instant::now();
        let mut mine = std::mem::take(&mut seeds[n as usize]);
        compact(&mut mine);
        let mut seen = KeySet::with_capacity_and_hasher(mine.len() * 2, Default::default());
        let mut stack: Vec<u64> = Vec::new();
        for k in mine {
            if seen.insert(k) {
                stack.push(k);
            }
        }
        let (mut white, mut ended) = (0u64, 0u64);
        while let Some(k) = stack.pop() {
            let pos = Position::from_key_unchecked(k);
            white += u64::from(pos.side_to_move() == Side::White);
            let moves = pos.legal_moves_in(rules);
            ended += u64::from(moves.is_empty());
            for mv in moves {
                let child = pos.play(mv);
                let c = child.occupied().count();
                let ck = child.key();
                if c == n {
                    if seen.len() == seen.capacity() {
                        let held: usize = seeds.iter().map(|s| s.capacity() * 8).sum::<usize>() + stack.capacity() * 8;
                        // Growing doubles the set while the old one is still held.
                        if held + set_bytes(seen.capacity()) + set_bytes(seen.capacity() * 2) > memory_bytes {
                            let found = seen.len() as u64;
                            return (
                                layers,
                                Some(Stopped { pieces: n, found, memory_bytes: held + set_bytes(seen.capacity()) }),
                            );
                        }
                    }
                    if seen.insert(ck) {
                        stack.push(ck);
                    }
                } else if c >= min_pieces {
                    let s = &mut seeds[c as usize];
                    s.push(ck);
                    if s.len() >= 2 * compacted[c as usize].max(1 << 20) {
                        compact(s);
                        compacted[c as usize] = s.len();
                    }
                }
            }
        }
        let layer =
            Layer { pieces: n, positions: seen.len() as u64, white_to_move: white, ended, elapsed: t0.elapsed() };
        done(&layer);
        layers.push(layer);
    }
    (layers, None)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every reachable position, by breadth-first search without layers.
    fn brute(start: &Position, rules: RuleSet) -> KeySet {
        let mut seen = KeySet::default();
        let mut frontier = vec![*start];
        seen.insert(start.key());
        while !frontier.is_empty() {
            let mut next = Vec::new();
            for pos in frontier {
                for mv in pos.legal_moves_in(rules) {
                    let child = pos.play(mv);
                    if seen.insert(child.key()) {
                        next.push(child);
                    }
                }
            }
            frontier = next;
        }
        seen
    }

    #[test]
    fn small_positions_count_what_brute_force_reaches() {
        for text in ["...../..B../...../.W.W./..... w", "..B../B..B./...../.W.W./..W.. b"] {
            let start: Position = text.parse().unwrap();
            let rules = RuleSet::BrainKing;
            let all = brute(&start, rules);
            let (layers, stopped) = count_reachable(&start, rules, 1, 1 << 30, &mut |_| {});
            assert!(stopped.is_none());
            for layer in &layers {
                let expected =
                    all.iter().filter(|&&k| Position::from_key_unchecked(k).occupied().count() == layer.pieces).count()
                        as u64;
                assert_eq!(layer.positions, expected, "{text}: {} pieces", layer.pieces);
            }
            assert_eq!(layers.iter().map(|l| l.positions).sum::<u64>(), all.len() as u64, "{text}");
        }
    }

    #[test]
    fn the_start_has_one_position_of_24_pieces_until_white_moves() {
        let start = Position::start();
        let (layers, stopped) = count_reachable(&start, RuleSet::BrainKing, 23, 1 << 30, &mut |_| {});
        assert!(stopped.is_none());
        // White's four moves to c3 give four more 24-piece positions.
        assert_eq!(layers[0].pieces, 24);
        assert!(layers[0].positions >= 5, "{:?}", layers[0]);
        assert!(layers[0].white_to_move >= 1);
        assert_eq!(layers.len(), 2);
        // A tiny memory limit stops at the first layer that does not fit.
        let (_, stopped) = count_reachable(&start, RuleSet::BrainKing, 1, 4096, &mut |_| {});
        assert!(stopped.is_some());
    }
}
