//! Training samples from replayed games.

use std::collections::HashSet;

use alq_engine::{fnv1a64, EndgameTables, Move, Position, Score, Wdl, SCORE_SCALE};

use crate::record::{GameRecord, ReplayedGame};

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
    /// The move the game played here where a search chose it (the moves
    /// with a score); `None` for random moves and the final position.
    pub played: Option<Move>,
    /// Plies from the game's start.
    pub ply: u32,
    pub game_id: u64,
}

impl Sample {
    /// The two values the trainer fits for this sample, side to move's view:
    /// the game's result and the squashed search score ([`score_target`]);
    /// both are the exact value where the tables cover the position.
    pub fn training_values(&self, tables: Option<&dyn EndgameTables>) -> (f32, f32) {
        match exact_target(tables, &self.position) {
            Some(exact) => (exact, exact),
            None => (self.result, score_target(self.result, self.score)),
        }
    }
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
        // A random, softmax-sampled or book move is no target for a policy.
        let chosen = game.record.players_plies().unwrap_or_default();
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
            let score = game.scores.get(ply).copied().flatten();
            out.push(Sample {
                position: *position,
                result,
                score,
                played: score
                    .and(game.game.moves().get(ply).copied())
                    .filter(|_| chosen.get(ply).copied().unwrap_or(ply >= opening)),
                ply: ply as u32,
                game_id: game.record.id,
            });
        }
        out
    }
}

/// The distinct positions the trainer samples from the games in `files`
/// (as [`Samples`] with `options`, each position once), in the order first
/// met, keeping those with at most `max_pieces` pieces (all when `None`).
/// Games of rules other than `rules` are refused.
///
/// # Errors
///
/// A file that cannot be read or a record that does not replay, naming it.
pub fn sampled_positions(
    files: &[std::path::PathBuf],
    rules: alq_engine::RuleSet,
    options: SampleOptions,
    max_pieces: Option<u32>,
) -> Result<Vec<Position>, crate::RecordError> {
    let mut samples = Samples::new(SampleOptions { dedup: true, ..options });
    let mut out = Vec::new();
    for file in files {
        for game in crate::RecordReader::open(file)?.expecting(rules) {
            let game = game?;
            let fits = |p: &Position| max_pieces.is_none_or(|k| p.occupied().count() <= k);
            out.extend(samples.of_game(&game).into_iter().map(|s| s.position).filter(fits));
        }
    }
    Ok(out)
}

// What the trainer fits, kept beside the samples so that every reader of
// records (the trainer, the Python package) computes it the same way.

/// Whether a game belongs to the validation set: decided by the game alone
/// (its id and seed), never by position.
pub fn is_validation(record: &GameRecord, fraction: f64) -> bool {
    let h = fnv1a64(format!("{}:{}", record.id, record.seed).as_bytes());
    ((h % 1_000_000) as f64) < fraction * 1_000_000.0
}

/// The trainer's scalar target for a position without a table value: the result blended with the squashed
/// search score (the result alone where there is no score).
pub fn target(result: f32, score: Option<Score>, result_weight: f32) -> f32 {
    blend(result, score_target(result, score), result_weight)
}

/// `result_weight * result + (1 - result_weight) * score`: the trainer's
/// scalar target from a sample's two values.
pub fn blend(result: f32, score: f32, result_weight: f32) -> f32 {
    result_weight * result + (1.0 - result_weight) * score
}

/// The search score squashed to an expected result, side to move's view:
/// `sigmoid(cp / SCORE_SCALE)`, 1 for a proven win, 0.5 for a proven draw,
/// 0 for a proven loss, and the game's result where there is no score.
pub fn score_target(result: f32, score: Option<Score>) -> f32 {
    match score {
        None => result,
        Some(Score::Win(_)) => 1.0,
        Some(Score::Loss(_)) => 0.0,
        Some(Score::Draw) => 0.5,
        Some(Score::Cp(cp)) => 1.0 / (1.0 + (-(cp as f32) / SCORE_SCALE).exp()),
    }
}

/// The exact target of a position the tables cover (distance or
/// win/draw/loss tables alike): win 1, draw 0.5, loss 0 for the side to move.
pub fn exact_target(tables: Option<&dyn EndgameTables>, pos: &Position) -> Option<f32> {
    let tables = tables?;
    if pos.occupied().count() > tables.wdl_max_pieces() {
        return None;
    }
    tables.probe_wdl(pos).map(wdl_target)
}

/// An exact value as a target, side to move's view: win 1, draw 0.5, loss 0.
pub fn wdl_target(value: Wdl) -> f32 {
    match value {
        Wdl::Win => 1.0,
        Wdl::Draw => 0.5,
        Wdl::Loss => 0.0,
    }
}
