//! A fixed action index: every move the rules can ever produce, numbered
//! once per rule set, so that learning code can use a constant-size action
//! space (a policy head, an action mask) instead of per-position move lists.
//!
//! A move is identified by its origin, its end and its captured set
//! (RULES.md, "Move identity"), so the index numbers those triples:
//!
//! 1. first every simple move either side can make, ordered by (origin, end)
//!    point index (a1 = 0, b1 = 1, …, e5 = 24);
//! 2. then every capture, ordered by (origin, end, captured set read as a
//!    25-bit number with a1 as bit 0).
//!
//! The captures listed are all (origin, end, captured) triples of jump chains
//! that respect the board's lines and the rules' directions (the first jump
//! in a moving direction, later ones along any line where the rules allow),
//! never jump a point twice or a point the piece has stood on, and land on
//! the origin only where the rules allow. That is a superset of the captures
//! any position can have (a chain must also be complete), so every legal move
//! has an action, and the numbering depends on nothing but the rule set. The
//! sizes are pinned by tests: 49,100 actions under BrainKing's rules (112
//! simple moves and 48,988 captures), 93,186 under the classic rules.

use std::collections::{HashMap, HashSet};
use std::sync::OnceLock;

use crate::moves::{Move, MAX_JUMPS};
use crate::position::Position;
use crate::rules::{RuleSet, Rules};
use crate::types::{Bitboard, Point};

/// The numbered moves of one rule set.
///
/// # Examples
///
/// ```
/// use alq_engine::{ActionIndex, Position, RuleSet};
///
/// let index = ActionIndex::of(RuleSet::BrainKing);
/// assert_eq!(index.len(), 49_100);
///
/// let start = Position::start();
/// let actions = index.legal_actions(&start);
/// assert_eq!(actions.len(), 4);
/// for (&action, &mv) in actions.iter().zip(start.legal_moves().iter()) {
///     assert_eq!(index.action(mv), Some(action));
///     assert_eq!(index.to_move(&start, action), Some(mv));
///     let (from, to, captured) = index.triple(action).unwrap();
///     assert_eq!((from, to, captured), (mv.from(), mv.to(), mv.captured()));
/// }
/// // Simple moves come first; an action out of range stands for nothing.
/// assert!(actions.iter().all(|&a| a < 112));
/// assert_eq!(index.triple(49_100), None);
/// ```
#[derive(Debug)]
pub struct ActionIndex {
    rules: RuleSet,
    triples: Vec<(Point, Point, Bitboard)>,
    ids: HashMap<(Point, Point, Bitboard), u32>,
}

impl ActionIndex {
    /// The index of `rules`, built on first use (a few milliseconds) and
    /// shared afterwards.
    pub fn of(rules: RuleSet) -> &'static ActionIndex {
        static BRAINKING: OnceLock<ActionIndex> = OnceLock::new();
        static CLASSIC: OnceLock<ActionIndex> = OnceLock::new();
        let cell = match rules {
            RuleSet::BrainKing => &BRAINKING,
            RuleSet::Classic => &CLASSIC,
        };
        cell.get_or_init(|| ActionIndex::build(rules))
    }

    fn build(rule_set: RuleSet) -> ActionIndex {
        let rules = rule_set.rules();
        let mut simple = Vec::new();
        let mut captures = HashSet::new();
        for side in 0..2 {
            for from in Point::all() {
                for to in rules.steps[side][from.index()] {
                    simple.push((from, to, Bitboard::EMPTY));
                }
                let mut chain = Chain { rules, side, origin: from, out: &mut captures };
                chain.extend(from, Bitboard::EMPTY, Bitboard::EMPTY.with(from), 0);
            }
        }
        let key = |&(from, to, captured): &(Point, Point, Bitboard)| (from.index(), to.index(), captured.0);
        simple.sort_unstable_by_key(key);
        simple.dedup();
        let mut captures: Vec<_> = captures.into_iter().collect();
        captures.sort_unstable_by_key(key);
        let triples: Vec<_> = simple.into_iter().chain(captures).collect();
        let ids = triples.iter().enumerate().map(|(i, &t)| (t, i as u32)).collect();
        ActionIndex { rules: rule_set, triples, ids }
    }

    /// The rule set this index numbers.
    pub fn rules(&self) -> RuleSet {
        self.rules
    }

    /// The number of actions.
    pub fn len(&self) -> usize {
        self.triples.len()
    }

    /// Never true: every rule set has moves.
    pub fn is_empty(&self) -> bool {
        self.triples.is_empty()
    }

    /// The action of a move; `None` only for a move no position under these
    /// rules can have.
    #[inline]
    pub fn action(&self, mv: Move) -> Option<u32> {
        self.ids.get(&(mv.from(), mv.to(), mv.captured())).copied()
    }

    /// The (origin, end, captured set) an action stands for.
    pub fn triple(&self, action: u32) -> Option<(Point, Point, Bitboard)> {
        self.triples.get(action as usize).copied()
    }

    /// The legal move of `pos` that `action` stands for, with its canonical
    /// path; `None` when the action is out of range or not legal there.
    pub fn to_move(&self, pos: &Position, action: u32) -> Option<Move> {
        let (from, to, captured) = self.triple(action)?;
        pos.legal_moves_in(self.rules)
            .iter()
            .find(|m| m.from() == from && m.to() == to && m.captured() == captured)
            .copied()
    }

    /// The actions of `pos`'s legal moves, in move-generation order.
    pub fn legal_actions(&self, pos: &Position) -> Vec<u32> {
        pos.legal_moves_in(self.rules).iter().map(|&m| self.action(m).expect("every legal move is indexed")).collect()
    }
}

/// Depth-first enumeration of one piece's jump chains.
struct Chain<'a> {
    rules: &'a Rules,
    side: usize,
    origin: Point,
    out: &'a mut HashSet<(Point, Point, Bitboard)>,
}

impl Chain<'_> {
    /// Extends a chain standing on `at` after `jumps` jumps that captured
    /// `captured` and stood on `visited` (the origin included).
    fn extend(&mut self, at: Point, captured: Bitboard, visited: Bitboard, jumps: usize) {
        if jumps == MAX_JUMPS {
            return;
        }
        let table = if jumps == 0 {
            &self.rules.first_jumps[self.side][at.index()]
        } else {
            &self.rules.any_jumps[self.side][at.index()]
        };
        for jump in table.as_slice() {
            // An opponent piece is jumped once, and never stands where the
            // moving piece has been.
            if captured.contains(jump.over) || visited.contains(jump.over) {
                continue;
            }
            // The first landing cannot be the origin (the piece just left it);
            // later ones only where the rules reopen it.
            if jump.land == self.origin && (jumps == 0 || !self.rules.variant.land_on_origin) {
                continue;
            }
            let captured = captured.with(jump.over);
            self.out.insert((self.origin, jump.land, captured));
            self.extend(jump.land, captured, visited.with(jump.land), jumps + 1);
        }
    }
}
