//! Perft: counting leaf moves of the move tree, single- and multi-threaded.

use rayon::prelude::*;

use crate::moves::MoveList;
use crate::position::Position;
use crate::rules::{RuleSet, Rules, BRAINKING_RULES};

/// The number of move sequences of length `depth` from `pos` under the
/// BrainKing rules (draw rules ignored; a side without moves ends its
/// branch). The last ply is bulk-counted.
///
/// # Examples
///
/// ```
/// use alq_engine::{perft, Position};
///
/// let start = Position::start();
/// let counts: Vec<u64> = (0..=6).map(|depth| perft(&start, depth)).collect();
/// assert_eq!(counts, [1, 4, 5, 6, 12, 27, 96]);
/// ```
pub fn perft(pos: &Position, depth: u32) -> u64 {
    perft_with(&BRAINKING_RULES, pos, depth)
}

/// [`perft`] under the given rules.
///
/// # Examples
///
/// ```
/// use alq_engine::{perft, perft_with, Position, BRAINKING_RULES, CLASSIC_RULES};
///
/// let start = Position::start();
/// assert_eq!(perft_with(&BRAINKING_RULES, &start, 6), perft(&start, 6));
/// assert_eq!(perft_with(&BRAINKING_RULES, &start, 8), 1716);
/// assert_eq!(perft_with(&CLASSIC_RULES, &start, 8), 2521);
/// ```
pub fn perft_with(rules: &Rules, pos: &Position, depth: u32) -> u64 {
    match depth {
        0 => 1,
        1 => pos.count_moves(rules),
        _ => {
            let mut list = MoveList::new();
            pos.generate(rules, &mut list);
            list.iter().map(|&mv| perft_with(rules, &pos.play(mv), depth - 1)).sum()
        }
    }
}

/// Like [`perft_with`], but every distinct jump path is a move of its own
/// ([`Position::generate_paths`]): the count other Alquerque implementations
/// give, where two paths with the same origin, end and captured set count
/// twice.
pub fn perft_paths(rules: &Rules, pos: &Position, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let mut list = MoveList::new();
    pos.generate_paths(rules, &mut list);
    if depth == 1 {
        return list.len() as u64;
    }
    list.iter().map(|&mv| perft_paths(rules, &pos.play(mv), depth - 1)).sum()
}

/// What perft counts: moves (RULES.md's move identity) or jump paths.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum PerftCount {
    #[default]
    Moves,
    Paths,
}

/// Perft under `rules` spread over the current rayon pool: the tree is
/// expanded breadth-first until there are enough subtrees to share out, then
/// each is counted on its own.
///
/// # Examples
///
/// ```
/// use alq_engine::{perft, perft_parallel, PerftCount, Position, RuleSet};
///
/// let start = Position::start();
/// assert_eq!(perft_parallel(RuleSet::BrainKing, PerftCount::Moves, &start, 8), perft(&start, 8));
/// ```
pub fn perft_parallel(rules: RuleSet, count: PerftCount, pos: &Position, depth: u32) -> u64 {
    let rules = rules.rules();
    let wanted = 64 * rayon::current_num_threads().max(1);
    let mut frontier = vec![*pos];
    let mut remaining = depth;
    while remaining > 2 && frontier.len() < wanted {
        let mut next = Vec::new();
        let mut list = MoveList::new();
        for p in &frontier {
            list.clear();
            match count {
                PerftCount::Moves => p.generate(rules, &mut list),
                PerftCount::Paths => p.generate_paths(rules, &mut list),
            }
            next.extend(list.iter().map(|&mv| p.play(mv)));
        }
        frontier = next;
        remaining -= 1;
    }
    match count {
        PerftCount::Moves => frontier.par_iter().map(|p| perft_with(rules, p, remaining)).sum(),
        PerftCount::Paths => frontier.par_iter().map(|p| perft_paths(rules, p, remaining)).sum(),
    }
}

/// Perft of each legal move's subtree (`depth - 1` below it) under the
/// BrainKing rules, for locating a disagreement with another implementation.
/// Empty when `depth` is 0.
///
/// # Examples
///
/// ```
/// use alq_engine::{perft, perft_divide, Position};
///
/// let start = Position::start();
/// let divide = perft_divide(&start, 5);
/// assert_eq!(divide.len(), 4);
/// assert_eq!(divide.iter().map(|&(_, n)| n).sum::<u64>(), perft(&start, 5));
/// ```
pub fn perft_divide(pos: &Position, depth: u32) -> Vec<(crate::Move, u64)> {
    if depth == 0 {
        return Vec::new();
    }
    pos.legal_moves().iter().map(|&mv| (mv, perft(&pos.play(mv), depth - 1))).collect()
}
