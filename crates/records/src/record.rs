//! The record of one game, and its validation by replay.

use serde::{Deserialize, Serialize};

use alq_engine::{Game, GameConfig, Position, Score, Side, Termination, BRAINKING};

/// The version written in every row's `format` column.
pub const FORMAT_VERSION: u32 = 1;

/// One row of a games file (see the crate documentation for the columns).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GameRecord {
    pub id: u64,
    pub seed: u64,
    pub rules: String,
    pub start: String,
    pub white: String,
    pub black: String,
    pub result: String,
    pub termination: String,
    pub plies: u32,
    pub opening_plies: u32,
    pub moves: String,
    pub scores: String,
    pub no_progress: Option<u32>,
    pub max_plies: Option<u32>,
    pub format: u32,
}

/// A record whose game has been replayed and checked.
#[derive(Clone, Debug)]
pub struct ReplayedGame {
    pub record: GameRecord,
    pub game: Game,
    /// One entry per move: the searcher's score, mover's view.
    pub scores: Vec<Option<Score>>,
}

/// `35`, `w12`, `l7`, or empty for no score.
pub fn format_score(score: Option<Score>) -> String {
    match score {
        None => String::new(),
        Some(Score::Cp(cp)) => cp.to_string(),
        Some(Score::Win(p)) => format!("w{p}"),
        Some(Score::Loss(p)) => format!("l{p}"),
    }
}

/// Reads what [`format_score`] writes.
pub fn parse_score(text: &str) -> Result<Option<Score>, String> {
    let bad = || format!("bad score {text:?} (expected centipawns, w<plies>, l<plies> or empty)");
    if text.is_empty() {
        return Ok(None);
    }
    if let Some(p) = text.strip_prefix('w') {
        return p.parse().map(|p| Some(Score::Win(p))).map_err(|_| bad());
    }
    if let Some(p) = text.strip_prefix('l') {
        return p.parse().map(|p| Some(Score::Loss(p))).map_err(|_| bad());
    }
    text.parse().map(|cp| Some(Score::Cp(cp))).map_err(|_| bad())
}

impl GameRecord {
    /// The record of a finished (or abandoned) game.
    pub fn from_game(
        id: u64,
        seed: u64,
        white: &str,
        black: &str,
        game: &Game,
        opening_plies: u32,
        scores: &[Option<Score>],
    ) -> GameRecord {
        let start = if game.start() == Position::start() { String::new() } else { game.start().to_string() };
        let (result, termination) = match game.outcome() {
            Some(o) => (o.result_text().to_string(), o.termination.name().to_string()),
            None => ("*".to_string(), String::new()),
        };
        let config = game.config();
        GameRecord {
            id,
            seed,
            rules: BRAINKING.name.to_string(),
            start,
            white: white.to_string(),
            black: black.to_string(),
            result,
            termination,
            plies: game.plies() as u32,
            opening_plies,
            moves: game.moves().iter().map(|m| m.to_string()).collect::<Vec<_>>().join(" "),
            scores: scores.iter().map(|s| format_score(*s)).collect::<Vec<_>>().join(" "),
            no_progress: config.no_progress_limit,
            max_plies: config.max_plies,
            format: FORMAT_VERSION,
        }
    }

    /// The game's start position.
    pub fn start_position(&self) -> Result<Position, String> {
        if self.start.trim().is_empty() {
            Ok(Position::start())
        } else {
            self.start.parse().map_err(|e| format!("start: {e}"))
        }
    }

    /// Replays the game and checks that every move is legal, that the game
    /// ends exactly at its last move, and that `result`, `termination`,
    /// `plies`, `opening_plies` and `scores` agree with it.
    pub fn replay(&self) -> Result<ReplayedGame, String> {
        if self.format != FORMAT_VERSION {
            return Err(format!("format {} is not supported (this program reads format {FORMAT_VERSION})", self.format));
        }
        if self.rules != BRAINKING.name {
            return Err(format!("rules {:?} are not supported (expected {:?})", self.rules, BRAINKING.name));
        }
        let config = GameConfig { no_progress_limit: self.no_progress, max_plies: self.max_plies };
        let mut game = Game::new(self.start_position()?, config);
        for (i, text) in self.moves.split_whitespace().enumerate() {
            if game.is_over() {
                return Err(format!("move {} ({text}): the game was already over", i + 1));
            }
            game.play_text(text).map_err(|e| format!("move {}: {e}", i + 1))?;
        }
        if game.plies() != self.plies as usize {
            return Err(format!("plies is {} but there are {} moves", self.plies, game.plies()));
        }
        if self.opening_plies > self.plies {
            return Err(format!("opening_plies {} exceeds plies {}", self.opening_plies, self.plies));
        }
        let Some(outcome) = game.outcome() else {
            return Err("the game is not over after its last move".to_string());
        };
        if outcome.result_text() != self.result || outcome.termination.name() != self.termination {
            return Err(format!(
                "result {} {} does not follow from the final position, which gives {} {}",
                self.result,
                self.termination,
                outcome.result_text(),
                outcome.termination
            ));
        }
        let scores: Vec<Option<Score>> = if self.plies == 0 {
            if !self.scores.is_empty() {
                return Err("scores given for a game without moves".to_string());
            }
            Vec::new()
        } else {
            self.scores.split(' ').map(parse_score).collect::<Result<_, _>>()?
        };
        if scores.len() != self.plies as usize {
            return Err(format!("{} scores for {} moves", scores.len(), self.plies));
        }
        Ok(ReplayedGame { record: self.clone(), game, scores })
    }
}

impl ReplayedGame {
    /// The winner, if any.
    pub fn winner(&self) -> Option<Side> {
        self.game.outcome().and_then(|o| o.winner)
    }

    pub fn termination(&self) -> Termination {
        self.game.outcome().expect("a replayed game is over").termination
    }
}
