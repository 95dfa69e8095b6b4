//! Training samples from replayed games.

use std::collections::HashSet;

use alq_engine::{Position, Score};

use crate::record::ReplayedGame;

/// One position of a game with what is known about it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sample {
    /// The position (its side to move is the point of view of the rest).
    pub position: Position,
    /// The game's result for the side to move: 1 win, 0.5 draw, 0 loss.
    pub result: f32,
    /// The searcher's score of the move played here, side to move's view
    /// (none for random moves and the final position).
    pub score: Option<Score>,
    /// Plies from the game's start.
    pub ply: u32,
    pub game_id: u64,
}

/// Which positions to keep.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SampleOptions {
    /// Leave out the positions before each random opening move.
    pub skip_opening: bool,
    /// Leave out positions where the side to move must capture (their value
    /// is decided by the capture, not by a quiet evaluation).
    pub skip_forced_captures: bool,
    /// Keep each position (pieces and side to move) only the first time.
    pub dedup: bool,
}

/// Turns games into samples, remembering seen positions when deduplicating.
#[derive(Default)]
pub struct Samples {
    options: SampleOptions,
    seen: HashSet<Position>,
}

impl Samples {
    pub fn new(options: SampleOptions) -> Samples {
        Samples { options, seen: HashSet::new() }
    }

    /// The samples of one game, in ply order (the final position included).
    pub fn of_game(&mut self, game: &ReplayedGame) -> Vec<Sample> {
        let winner = game.winner();
        let opening = game.record.opening_plies as usize;
        let mut out = Vec::new();
        for (ply, position) in game.game.positions().iter().enumerate() {
            if self.options.skip_opening && ply < opening {
                continue;
            }
            if self.options.skip_forced_captures && position.has_capture(game.game.rules().rules()) {
                continue;
            }
            if self.options.dedup && !self.seen.insert(*position) {
                continue;
            }
            let result = match winner {
                None => 0.5,
                Some(w) if w == position.side_to_move() => 1.0,
                Some(_) => 0.0,
            };
            out.push(Sample {
                position: *position,
                result,
                score: game.scores.get(ply).copied().flatten(),
                ply: ply as u32,
                game_id: game.record.id,
            });
        }
        out
    }
}
