//! The packed position key: a position in 51 bits, the one key of the
//! solver's graphs, stores and certificates, the explorer's index and the
//! Python package.
//!
//! ```text
//!  63        51 50 49                    25 24                     0
//! +------------+--+------------------------+------------------------+
//! |  always 0  |s |   Black's points (25)  |   White's points (25)  |
//! +------------+--+------------------------+------------------------+
//! ```
//!
//! Bit `p` of each 25-bit field is the point with index `p` (`5·rank + file`,
//! `a1` = 0, as [`Point`](crate::Point)); `s` is the side to move, 1 for
//! Black. The key carries no rule set: the same pieces under the two rule
//! sets have the same key.

use crate::error::{KeyProblem, PositionError};
use crate::position::Position;
use crate::types::{Bitboard, Side};

const POINTS: u64 = (1 << 25) - 1;
const BLACK_SHIFT: u32 = 25;
const SIDE_BIT: u32 = 50;

/// The side to move of a key, read without building the position.
///
/// # Examples
///
/// ```
/// use alq_engine::{key_side, Position, Side};
///
/// let pos: Position = "...../...../..B../...../..W.. b".parse().unwrap();
/// assert_eq!(key_side(pos.key()), Side::Black);
/// ```
pub fn key_side(key: u64) -> Side {
    if key >> SIDE_BIT & 1 == 1 {
        Side::Black
    } else {
        Side::White
    }
}

impl Position {
    /// The position packed into 51 bits: White's points in bits 0–24,
    /// Black's in bits 25–49, the side to move in bit 50 (1: Black).
    ///
    /// ```text
    ///  63        51 50 49                    25 24                     0
    /// +------------+--+------------------------+------------------------+
    /// |  always 0  |s |   Black's points (25)  |   White's points (25)  |
    /// +------------+--+------------------------+------------------------+
    /// ```
    ///
    /// Bit `p` of a field is the point with index `p` (`5·rank + file`, `a1`
    /// = 0, as [`Point`](crate::Point)). Distinct positions have distinct
    /// keys, and [`Position::from_key`] gives the position back. The key
    /// carries no rule set.
    ///
    /// # Examples
    ///
    /// ```
    /// use alq_engine::Position;
    ///
    /// let pos: Position = "...../...../..B../...../..W.. w".parse().unwrap();
    /// // c1 is point 2, c3 is point 12.
    /// assert_eq!(pos.key(), 1 << 2 | 1 << (25 + 12));
    /// assert_eq!(Position::from_key(pos.key()), Ok(pos));
    /// ```
    pub fn key(&self) -> u64 {
        u64::from(self.pieces(Side::White).0)
            | u64::from(self.pieces(Side::Black).0) << BLACK_SHIFT
            | u64::from(self.side_to_move() == Side::Black) << SIDE_BIT
    }

    /// The position a [`key`](Position::key) stands for.
    ///
    /// # Errors
    ///
    /// [`PositionError::Key`] when bits above bit 50 are set, when a point
    /// belongs to both sides, or when a side has more than 12 pieces: no
    /// position has such a key.
    ///
    /// # Examples
    ///
    /// ```
    /// use alq_engine::{KeyProblem, Position, PositionError};
    ///
    /// let start = Position::start();
    /// assert_eq!(Position::from_key(start.key()), Ok(start));
    /// let both = 1 | 1 << 25; // a1 for White and for Black
    /// assert_eq!(Position::from_key(both), Err(PositionError::Key { key: both, problem: KeyProblem::SharedPoint }));
    /// ```
    pub fn from_key(key: u64) -> Result<Position, PositionError> {
        let refuse = |problem| Err(PositionError::Key { key, problem });
        if key >> (SIDE_BIT + 1) != 0 {
            return refuse(KeyProblem::HighBits);
        }
        let white = Bitboard((key & POINTS) as u32);
        let black = Bitboard((key >> BLACK_SHIFT & POINTS) as u32);
        if white.intersection(black) != Bitboard::EMPTY {
            return refuse(KeyProblem::SharedPoint);
        }
        if white.count() > 12 || black.count() > 12 {
            return refuse(KeyProblem::TooManyPieces);
        }
        Ok(Position::from_parts(white, black, key_side(key)))
    }

    /// The position of a key known to be valid: one that [`Position::key`]
    /// made (the solver's graphs and stores hold only such keys).
    ///
    /// # Panics
    ///
    /// In debug builds, when `key` is not a valid key; release builds do not
    /// check (a point claimed by both sides goes to White).
    pub fn from_key_unchecked(key: u64) -> Position {
        debug_assert!(Position::from_key(key).is_ok(), "{key:#x} is not a position key");
        Position::from_parts(
            Bitboard((key & POINTS) as u32),
            Bitboard((key >> BLACK_SHIFT & POINTS) as u32),
            key_side(key),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::RuleSet;

    #[test]
    fn keys_round_trip_over_the_opening_tree() {
        let mut layer = vec![Position::start()];
        let mut seen = std::collections::HashSet::new();
        for _ in 0..4 {
            let mut next = Vec::new();
            for pos in &layer {
                let k = pos.key();
                assert_eq!(k >> 51, 0);
                assert_eq!(key_side(k), pos.side_to_move());
                assert_eq!(Position::from_key(k).as_ref(), Ok(pos));
                assert_eq!(Position::from_key_unchecked(k), *pos);
                if seen.insert(k) {
                    next.extend(pos.legal_moves_in(RuleSet::BrainKing).iter().map(|&m| pos.play(m)));
                }
            }
            layer = next;
        }
        // Distinct positions at plies 0-3: 1 + 4 + 5 + 6.
        assert_eq!(seen.len(), 16);
    }

    #[test]
    fn the_side_to_move_is_bit_50() {
        let white: Position = "...../...../..B../...../..W.. w".parse().unwrap();
        let black: Position = "...../...../..B../...../..W.. b".parse().unwrap();
        assert_eq!(black.key() - white.key(), 1 << 50);
        assert_eq!(key_side(white.key()), Side::White);
        assert_eq!(key_side(black.key()), Side::Black);
    }

    #[test]
    fn invalid_keys_are_refused_with_the_reason() {
        let refused = |key: u64| match Position::from_key(key) {
            Err(PositionError::Key { key: k, problem }) => {
                assert_eq!(k, key);
                problem
            }
            other => panic!("{key:#x}: {other:?}"),
        };
        assert_eq!(refused(1 << 51), KeyProblem::HighBits);
        assert_eq!(refused(u64::MAX), KeyProblem::HighBits);
        assert_eq!(refused(1 << 7 | 1 << 32), KeyProblem::SharedPoint);
        assert_eq!(refused((1 << 13) - 1), KeyProblem::TooManyPieces);
        assert_eq!(refused(((1 << 13) - 1) << 37), KeyProblem::TooManyPieces);
        assert!(Position::from_key((1 << 12) - 1).is_ok());
        assert!(Position::from_key(0).is_ok());
        assert_eq!(Position::from_key(1 << 51).unwrap_err().to_string(), "key 0x8000000000000 has bits above bit 50");
    }
}
