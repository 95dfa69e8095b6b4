//! [`Score`]: what a search says a position is worth, in centipawns or as a
//! proven result, and the scale it is kept on inside the search.

use std::fmt;

use crate::tables::Exact;

/// Score of a win at the root (minus the plies it takes).
pub const MATE: i32 = 30_000;
/// Scores beyond this (in absolute value) are proven wins or losses.
pub const MATE_BOUND: i32 = MATE - 1_000;
/// The score of a position that win/draw/loss tables (no distance) give as
/// won, less the ply: above every evaluation ([`crate::MAX_EVAL`]) and below
/// every proven mate ([`MATE_BOUND`]). It is not a proof: the distance is
/// unknown, so a game's no-progress rule might still end it drawn; the
/// search plays towards it and proves it once the distance tables cover the
/// position.
pub const TB_WIN: i32 = 25_000;

/// A search score from the side to move's point of view.
///
/// # Examples
///
/// ```
/// use alq_engine::{Score, MATE};
///
/// assert_eq!(Score::from_internal(MATE - 3), Score::Win(3));
/// assert_eq!(Score::Win(3).to_internal(), MATE - 3);
/// assert_eq!(Score::Cp(-40).negate(), Score::Cp(40));
/// assert_eq!(Score::Loss(2).to_string(), "loss 2");
/// assert!(Score::Draw.is_proven() && !Score::Cp(0).is_proven());
/// assert!(Score::Win(9).to_internal() > Score::Cp(500).to_internal());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Score {
    /// Centipawns (one piece is about 100).
    Cp(i32),
    /// The side to move wins in this many plies (proven).
    Win(u32),
    /// The side to move loses in this many plies (proven).
    Loss(u32),
    /// Proven drawn by endgame tables: neither side can force the end.
    Draw,
}

impl Score {
    /// Converts an internal score (mate scores relative to the root). Never
    /// gives [`Score::Draw`]: a draw is proven only by tables at the root.
    pub fn from_internal(score: i32) -> Score {
        if score >= MATE_BOUND {
            Score::Win((MATE - score) as u32)
        } else if score <= -MATE_BOUND {
            Score::Loss((MATE + score) as u32)
        } else {
            Score::Cp(score)
        }
    }

    /// The score on one scale, for comparisons and records (wins high).
    pub fn to_internal(self) -> i32 {
        match self {
            Score::Cp(cp) => cp,
            Score::Win(p) => MATE - p as i32,
            Score::Loss(p) => -MATE + p as i32,
            Score::Draw => 0,
        }
    }

    /// Whether the result is proven (a win, a loss or a table draw).
    pub fn is_proven(self) -> bool {
        !matches!(self, Score::Cp(_))
    }

    /// The score of an exact table value.
    pub fn from_exact(value: Exact) -> Score {
        match value {
            Exact::Win(d) => Score::Win(d),
            Exact::Loss(d) => Score::Loss(d),
            Exact::Draw => Score::Draw,
        }
    }

    /// The exact value a proven score gives (inverse of
    /// [`Score::from_exact`]); none for centipawns.
    pub fn exact(self) -> Option<Exact> {
        match self {
            Score::Win(p) => Some(Exact::Win(p)),
            Score::Loss(p) => Some(Exact::Loss(p)),
            Score::Draw => Some(Exact::Draw),
            Score::Cp(_) => None,
        }
    }

    /// The score from the other side's point of view, one ply earlier or later
    /// is not accounted for: only the sign flips.
    pub fn negate(self) -> Score {
        match self {
            Score::Cp(cp) => Score::Cp(-cp),
            Score::Win(p) => Score::Loss(p),
            Score::Loss(p) => Score::Win(p),
            Score::Draw => Score::Draw,
        }
    }
}

impl fmt::Display for Score {
    /// `cp N`, `win P`, `loss P` or `draw`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Score::Cp(cp) => write!(f, "cp {cp}"),
            Score::Win(p) => write!(f, "win {p}"),
            Score::Loss(p) => write!(f, "loss {p}"),
            Score::Draw => f.write_str("draw"),
        }
    }
}
