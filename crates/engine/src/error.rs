//! Errors for text that users and files hand to the engine.

use std::fmt;

use thiserror::Error;

use crate::types::Side;

/// Why a position text was refused. Each variant holds the rejected text.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum PositionError {
    #[error("position {text:?}: expected 5 ranks separated by '/', found {found}")]
    RankCount { text: String, found: usize },
    #[error("position {text:?}: rank {rank} has {found} points, expected 5")]
    RankLength { text: String, rank: u8, found: usize },
    #[error("position {text:?}: unknown character {found:?} at {point} (use 'W', 'B' or '.')")]
    UnknownCharacter { text: String, found: char, point: String },
    #[error("position {text:?}: missing side to move (add ' w' or ' b' after the ranks)")]
    MissingSide { text: String },
    #[error("position {text:?}: bad side to move {found:?}, expected 'w' or 'b'")]
    BadSide { text: String, found: String },
    #[error("position {text:?}: {side} has {count} pieces, at most 12 are possible")]
    TooManyPieces { text: String, side: Side, count: u32 },
    /// A number that is not a [packed key](crate::Position::key).
    #[error("key {key:#x} {problem}")]
    Key { key: u64, problem: KeyProblem },
}

/// Why a move text was refused in a position.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum MoveError {
    #[error("move {text:?}: {reason}")]
    Malformed { text: String, reason: String },
    #[error("move {text:?} is not legal here; legal moves: {}", legal_list(.legal))]
    Illegal { text: String, legal: Vec<String> },
}

fn legal_list(legal: &[String]) -> String {
    if legal.is_empty() {
        "none (the side to move has lost)".to_string()
    } else {
        legal.join(" ")
    }
}

/// Why a number is not the key of a position ([`Position::from_key`](crate::Position::from_key)).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeyProblem {
    /// A bit above bit 50 is set.
    HighBits,
    /// A point is in both White's and Black's field.
    SharedPoint,
    /// One side has more than 12 pieces.
    TooManyPieces,
}

impl fmt::Display for KeyProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            KeyProblem::HighBits => "has bits above bit 50",
            KeyProblem::SharedPoint => "puts both sides on one point",
            KeyProblem::TooManyPieces => "has more than 12 pieces of one side",
        })
    }
}
