//! Counts over many games, for `alq records stats`.

use std::collections::BTreeMap;

use alq_engine::{Side, Termination};

use crate::record::ReplayedGame;

/// Totals over games.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RecordStats {
    pub games: u64,
    pub white_wins: u64,
    pub black_wins: u64,
    /// Draws by the rules (repetition, no progress).
    pub draws: u64,
    /// Games stopped by the ply cap: not ended by the rules, not draws.
    pub unfinished: u64,
    pub terminations: BTreeMap<String, u64>,
    pub plies: u64,
    /// Positions including each game's start and final position.
    pub positions: u64,
}

impl RecordStats {
    pub fn add(&mut self, game: &ReplayedGame) {
        self.games += 1;
        match game.winner() {
            Some(Side::White) => self.white_wins += 1,
            Some(Side::Black) => self.black_wins += 1,
            None if game.termination() == Some(Termination::MaxPlies) => self.unfinished += 1,
            None => self.draws += 1,
        }
        *self.terminations.entry(game.termination_name().to_string()).or_insert(0) += 1;
        self.plies += game.game.plies() as u64;
        self.positions += game.game.positions().len() as u64;
    }

    pub fn average_plies(&self) -> f64 {
        if self.games == 0 {
            0.0
        } else {
            self.plies as f64 / self.games as f64
        }
    }
}
