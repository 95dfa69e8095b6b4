//! What a player decides: a move, with the score behind it where there is one.

use alq_engine::{Move, Score};

/// A player's decision.
#[derive(Clone, Copy, Debug)]
pub struct Choice {
    pub mv: Move,
    /// The search's score, mover's view (none for the baselines).
    pub score: Option<Score>,
}
