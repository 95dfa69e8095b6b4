//! The record of one game, and its validation by replay.

use serde::{Deserialize, Serialize};

use alq_engine::{Exact, Game, GameConfig, Position, RuleSet, Score, Side, Termination};

/// The version written in every row's `format` column. Version 2 added the
/// `opening` column, version 3 `tb_ply` and `tb_value` and the `d` score,
/// version 4 `fallback_plies`; versions 1 to 3 are still read (see
/// [`GameRecord::opening_parts`]).
pub const FORMAT_VERSION: u32 = 4;

/// The `termination` of a game lost by forfeit (see [`GameRecord::with_forfeit`]).
pub const FORFEIT: &str = "forfeit";

/// How a run of a game's first moves was chosen, one part of the `opening`
/// column. The parts follow each other in the order they were played and
/// their plies add up to `opening_plies`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum OpeningPart {
    /// Moves of a book line (or a fixed line given by the run).
    Book(u32),
    /// Uniformly random legal moves.
    Random(u32),
    /// Moves sampled with probability proportional to exp(score / T), T in
    /// centipawns: every legal move can be drawn.
    Softmax { plies: u32, temperature: f64 },
    /// Moves drawn uniformly among the moves a root search scores within
    /// `cp` centipawns of the best (a proven win only among winning moves):
    /// choices between near-best moves, never a bad one.
    NearBest { plies: u32, cp: u32 },
    /// Opening moves of a format-1 record, which did not say how they were
    /// chosen.
    Unknown(u32),
}

impl OpeningPart {
    pub fn plies(self) -> u32 {
        match self {
            OpeningPart::Book(p) | OpeningPart::Random(p) | OpeningPart::Unknown(p) => p,
            OpeningPart::Softmax { plies, .. } | OpeningPart::NearBest { plies, .. } => plies,
        }
    }

    /// Whether the moves were chosen by the players' search (near-best
    /// sampling is a choice among moves the search rates alike).
    pub fn is_search(self) -> bool {
        matches!(self, OpeningPart::NearBest { .. })
    }
}

impl std::fmt::Display for OpeningPart {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            OpeningPart::Book(p) => write!(f, "book:{p}"),
            OpeningPart::Random(p) => write!(f, "random:{p}"),
            OpeningPart::Softmax { plies, temperature } => write!(f, "softmax:{plies}@{temperature}"),
            OpeningPart::NearBest { plies, cp } => write!(f, "near_best:{plies}@{cp}"),
            OpeningPart::Unknown(p) => write!(f, "unknown:{p}"),
        }
    }
}

/// Why a game record does not hold: a column that cannot be read, or a
/// game that does not replay to what the record says.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum GameError {
    #[error("format {format} is not supported (this program reads formats 1 to {FORMAT_VERSION})")]
    Format { format: u32 },
    #[error("format {format} has no tb_ply or tb_value")]
    NoTableColumns { format: u32 },
    #[error("format {format} has no fallback_plies")]
    NoFallbackColumn { format: u32 },
    #[error("fallback_plies {text:?}: expected increasing ply numbers from 1 to plies ({plies})")]
    FallbackPlies { text: String, plies: u32 },
    #[error("tb_ply and tb_value must be both set or both empty")]
    TableColumns,
    #[error("{0}")]
    TableValue(String),
    #[error("tb_ply {ply} exceeds plies {plies}")]
    TablePly { ply: u32, plies: u32 },
    #[error("format 1 has no opening column")]
    OpeningColumn,
    #[error("{0}")]
    Opening(String),
    #[error("opening {opening:?} counts {counted} plies but opening_plies is {opening_plies}")]
    OpeningPlies { opening: String, counted: u32, opening_plies: u32 },
    #[error("start: {0}")]
    Start(alq_engine::PositionError),
    #[error("{0}")]
    Rules(String),
    #[error(
        "played under the {own} rules, not {wanted} (pass --rules {own}, or keep the rule sets in separate files)"
    )]
    OtherRules { own: RuleSet, wanted: RuleSet },
    #[error("move {number} ({text}): the game was already over")]
    AfterTheEnd { number: usize, text: String },
    #[error("move {number}: {error}")]
    Move { number: usize, error: alq_engine::MoveError },
    #[error("plies is {plies} but there are {moves} moves")]
    Plies { plies: u32, moves: usize },
    #[error("opening_plies {opening_plies} exceeds plies {plies}")]
    OpeningTooLong { opening_plies: u32, plies: u32 },
    #[error("a forfeit after the game ended ({result} {termination})")]
    ForfeitAfterTheEnd { result: String, termination: String },
    #[error("result {result} of a forfeit: {loser} was to move, so the result is {expected}")]
    ForfeitResult { result: String, loser: Side, expected: String },
    #[error("the game is not over after its last move")]
    NotOver,
    #[error("result {result} {termination} does not follow from the final position, which gives {expected_result} {expected_termination}")]
    Result { result: String, termination: String, expected_result: String, expected_termination: String },
    #[error("bad score {text:?} (expected centipawns, w<plies>, l<plies>, d or empty)")]
    Score { text: String },
    #[error("scores given for a game without moves")]
    ScoresWithoutMoves,
    #[error("{scores} scores for {plies} moves")]
    Scores { scores: usize, plies: u32 },
}

impl std::str::FromStr for OpeningPart {
    type Err = String;

    /// Reads what `Display` writes: `book:K`, `random:K`, `softmax:K@T`,
    /// `near_best:K@CP`.
    fn from_str(text: &str) -> Result<OpeningPart, String> {
        let bad = |why: &str| {
            format!("opening part {text:?}: {why} (expected book:K, random:K, softmax:K@T or near_best:K@CP)")
        };
        let (kind, rest) = text.split_once(':').ok_or_else(|| bad("no ':'"))?;
        let (plies, param) = match rest.split_once('@') {
            Some((p, x)) => (p, Some(x)),
            None => (rest, None),
        };
        let plies: u32 = plies.parse().map_err(|_| bad("the ply count is not a whole number"))?;
        match (kind, param) {
            ("book", None) => Ok(OpeningPart::Book(plies)),
            ("random", None) => Ok(OpeningPart::Random(plies)),
            ("unknown", None) => Ok(OpeningPart::Unknown(plies)),
            ("softmax", Some(t)) => {
                let temperature: f64 = t.parse().map_err(|_| bad("the temperature is not a number"))?;
                if !(temperature.is_finite() && temperature > 0.0) {
                    return Err(bad("the temperature must be positive"));
                }
                Ok(OpeningPart::Softmax { plies, temperature })
            }
            ("near_best", Some(cp)) => Ok(OpeningPart::NearBest {
                plies,
                cp: cp.parse().map_err(|_| bad("the margin is not a whole number"))?,
            }),
            _ => Err(bad("unknown kind or parameter")),
        }
    }
}

/// Writes opening parts as the `opening` column holds them: space-separated,
/// parts without plies left out.
pub fn format_opening(parts: &[OpeningPart]) -> String {
    parts.iter().filter(|p| p.plies() > 0).map(|p| p.to_string()).collect::<Vec<_>>().join(" ")
}

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
    /// How the opening plies were chosen (format 2; empty in format 1 and
    /// when every move was chosen by the players).
    #[serde(default)]
    pub opening: String,
    pub moves: String,
    pub scores: String,
    /// The ply at which the game first reached a position covered by the
    /// endgame tables it was played with (0: the start), when it did (format 3).
    #[serde(default)]
    pub tb_ply: Option<u32>,
    /// The exact value of that position from White's view (`win D`,
    /// `loss D`, `draw`; D in plies from that position), when known (format 3).
    #[serde(default)]
    pub tb_value: String,
    /// The plies (1 = the first move) whose moves a perfect player chose by
    /// search because the oracle knew no value within its budget,
    /// space-separated (format 4).
    #[serde(default)]
    pub fallback_plies: String,
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
    /// The side that lost by forfeit, for a `forfeit` game.
    pub forfeit: Option<Side>,
}

/// `35`, `w12`, `l7`, `d` (a draw proven by tables), or empty for no score.
pub fn format_score(score: Option<Score>) -> String {
    match score {
        None => String::new(),
        Some(Score::Cp(cp)) => cp.to_string(),
        Some(Score::Win(p)) => format!("w{p}"),
        Some(Score::Loss(p)) => format!("l{p}"),
        Some(Score::Draw) => "d".to_string(),
    }
}

/// Reads what [`format_score`] writes.
pub fn parse_score(text: &str) -> Result<Option<Score>, GameError> {
    let bad = || GameError::Score { text: text.to_string() };
    if text.is_empty() {
        return Ok(None);
    }
    if text == "d" {
        return Ok(Some(Score::Draw));
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
    /// The record of a finished (or abandoned) game. Its `opening` says
    /// `unknown:K` for `opening_plies` K > 0; callers that know how the
    /// opening moves were chosen set it with [`GameRecord::with_opening`].
    pub fn from_game(
        id: u64,
        seed: u64,
        white: &str,
        black: &str,
        game: &Game,
        opening_plies: u32,
        scores: &[Option<Score>],
    ) -> GameRecord {
        let start =
            if game.start() == Position::start_of(game.rules()) { String::new() } else { game.start().to_string() };
        let (result, termination) = match game.outcome() {
            Some(o) => (o.result_text().to_string(), o.termination.name().to_string()),
            None => ("*".to_string(), String::new()),
        };
        let config = game.config();
        GameRecord {
            id,
            seed,
            rules: game.rules().name().to_string(),
            start,
            white: white.to_string(),
            black: black.to_string(),
            result,
            termination,
            plies: game.plies() as u32,
            opening_plies,
            opening: format_opening(&[OpeningPart::Unknown(opening_plies)]),
            moves: game.moves().iter().map(|m| m.to_string()).collect::<Vec<_>>().join(" "),
            scores: scores.iter().map(|s| format_score(*s)).collect::<Vec<_>>().join(" "),
            tb_ply: None,
            tb_value: String::new(),
            fallback_plies: String::new(),
            no_progress: config.no_progress_limit,
            max_plies: config.max_plies,
            format: FORMAT_VERSION,
        }
    }

    /// The same record as a loss by forfeit of `side`, the side to move in
    /// the game's last position (it crashed, ran out of time, or sent an
    /// illegal or malformed move): result `0-1` or `1-0`, termination
    /// `forfeit`. The game itself is not over by the rules.
    pub fn with_forfeit(mut self, side: Side) -> GameRecord {
        self.result = match side {
            Side::White => "0-1",
            Side::Black => "1-0",
        }
        .to_string();
        self.termination = FORFEIT.to_string();
        self
    }

    /// The same record with its `opening` column set from `parts`, whose
    /// plies must add up to `opening_plies`.
    pub fn with_opening(mut self, parts: &[OpeningPart]) -> GameRecord {
        debug_assert_eq!(parts.iter().map(|p| p.plies()).sum::<u32>(), self.opening_plies);
        self.opening = format_opening(parts);
        self
    }

    /// The same record with the ply and exact value (White's view) of the
    /// first position of the game the tables covered.
    pub fn with_table_entry(mut self, ply: u32, white_value: Exact) -> GameRecord {
        self.tb_ply = Some(ply);
        self.tb_value = white_value.to_string();
        self
    }

    /// The same record with the plies (1 = the first move) whose moves were
    /// fallback searches of a perfect player.
    pub fn with_fallbacks(mut self, plies: &[u32]) -> GameRecord {
        self.fallback_plies = plies.iter().map(u32::to_string).collect::<Vec<_>>().join(" ");
        self
    }

    /// The plies of [`GameRecord::with_fallbacks`].
    pub fn fallbacks(&self) -> Result<Vec<u32>, GameError> {
        let bad = || GameError::FallbackPlies { text: self.fallback_plies.clone(), plies: self.plies };
        let plies: Vec<u32> =
            self.fallback_plies.split_whitespace().map(|w| w.parse().map_err(|_| bad())).collect::<Result<_, _>>()?;
        if plies.iter().any(|&p| p == 0 || p > self.plies) || plies.windows(2).any(|w| w[0] >= w[1]) {
            return Err(bad());
        }
        Ok(plies)
    }

    /// The ply and White's exact value of the first position in the tables,
    /// when the game was played with tables and reached them.
    pub fn table_entry(&self) -> Result<Option<(u32, Exact)>, GameError> {
        match (self.tb_ply, self.tb_value.trim()) {
            (None, "") => Ok(None),
            (Some(ply), text) if !text.is_empty() => Ok(Some((ply, text.parse().map_err(GameError::TableValue)?))),
            _ => Err(GameError::TableColumns),
        }
    }

    /// How the first `opening_plies` moves were chosen. Format-1 records
    /// did not say: their opening plies are `Unknown`.
    pub fn opening_parts(&self) -> Result<Vec<OpeningPart>, GameError> {
        let parts: Vec<OpeningPart> = if self.format == 1 {
            if !self.opening.is_empty() {
                return Err(GameError::OpeningColumn);
            }
            vec![OpeningPart::Unknown(self.opening_plies)]
        } else {
            self.opening.split_whitespace().map(str::parse).collect::<Result<_, _>>().map_err(GameError::Opening)?
        };
        let sum: u32 = parts.iter().map(|p| p.plies()).sum();
        if sum != self.opening_plies {
            return Err(GameError::OpeningPlies {
                opening: self.opening.clone(),
                counted: sum,
                opening_plies: self.opening_plies,
            });
        }
        Ok(parts.into_iter().filter(|p| p.plies() > 0).collect())
    }

    /// For each ply of the game, whether the players' search chose its move:
    /// every ply after the opening, and the opening's near-best choices;
    /// not its book, random or sampled moves.
    pub fn players_plies(&self) -> Result<Vec<bool>, GameError> {
        let mut chosen = Vec::with_capacity(self.plies as usize);
        for part in self.opening_parts()? {
            chosen.extend(std::iter::repeat_n(part.is_search(), part.plies() as usize));
        }
        chosen.resize(self.plies as usize, true);
        Ok(chosen)
    }

    /// Whether every move of the game was chosen by the players themselves
    /// from the standard start, near-best sampling by search included: the
    /// games that can speak of White's first-move advantage at the players'
    /// strength. Games with random, softmax or book openings, or from
    /// another start, are not.
    pub fn is_searched_from_start(&self) -> bool {
        self.start.trim().is_empty() && self.opening_parts().is_ok_and(|parts| parts.iter().all(|p| p.is_search()))
    }

    /// The game's start position.
    pub fn start_position(&self) -> Result<Position, GameError> {
        if self.start.trim().is_empty() {
            Ok(Position::start_of(self.rule_set()?))
        } else {
            self.start.parse().map_err(GameError::Start)
        }
    }

    /// The rule set named in the `rules` column.
    pub fn rule_set(&self) -> Result<RuleSet, GameError> {
        self.rules.parse::<RuleSet>().map_err(GameError::Rules)
    }

    /// Refuses a record of another rule set than `rules`.
    pub fn expect_rules(&self, rules: RuleSet) -> Result<(), GameError> {
        let own = self.rule_set()?;
        if own != rules {
            return Err(GameError::OtherRules { own, wanted: rules });
        }
        Ok(())
    }

    /// Replays the game and checks that every move is legal, that the game
    /// ends exactly at its last move, and that `result`, `termination`,
    /// `plies`, `opening_plies` and `scores` agree with it.
    pub fn replay(&self) -> Result<ReplayedGame, GameError> {
        if !(1..=FORMAT_VERSION).contains(&self.format) {
            return Err(GameError::Format { format: self.format });
        }
        if self.format < 3 && (self.tb_ply.is_some() || !self.tb_value.is_empty()) {
            return Err(GameError::NoTableColumns { format: self.format });
        }
        if self.format < 4 && !self.fallback_plies.is_empty() {
            return Err(GameError::NoFallbackColumn { format: self.format });
        }
        self.fallbacks()?;
        if let Some((ply, _)) = self.table_entry()? {
            if ply > self.plies {
                return Err(GameError::TablePly { ply, plies: self.plies });
            }
        }
        let rules = self.rule_set()?;
        let config = GameConfig { no_progress_limit: self.no_progress, max_plies: self.max_plies, rules };
        let mut game = Game::new(self.start_position()?, config);
        for (i, text) in self.moves.split_whitespace().enumerate() {
            if game.is_over() {
                return Err(GameError::AfterTheEnd { number: i + 1, text: text.to_string() });
            }
            game.play_text(text).map_err(|error| GameError::Move { number: i + 1, error })?;
        }
        if game.plies() != self.plies as usize {
            return Err(GameError::Plies { plies: self.plies, moves: game.plies() });
        }
        if self.opening_plies > self.plies {
            return Err(GameError::OpeningTooLong { opening_plies: self.opening_plies, plies: self.plies });
        }
        self.opening_parts()?;
        let forfeit = if self.termination == FORFEIT {
            if let Some(outcome) = game.outcome() {
                return Err(GameError::ForfeitAfterTheEnd {
                    result: outcome.result_text().to_string(),
                    termination: outcome.termination.to_string(),
                });
            }
            let loser = game.position().side_to_move();
            let expected = GameRecord { result: String::new(), ..self.clone() }.with_forfeit(loser).result;
            if self.result != expected {
                return Err(GameError::ForfeitResult { result: self.result.clone(), loser, expected });
            }
            Some(loser)
        } else {
            None
        };
        let outcome = game.outcome();
        if outcome.is_none() && forfeit.is_none() {
            return Err(GameError::NotOver);
        }
        if let Some(outcome) =
            outcome.filter(|o| o.result_text() != self.result || o.termination.name() != self.termination)
        {
            return Err(GameError::Result {
                result: self.result.clone(),
                termination: self.termination.clone(),
                expected_result: outcome.result_text().to_string(),
                expected_termination: outcome.termination.to_string(),
            });
        }
        let scores: Vec<Option<Score>> = if self.plies == 0 {
            if !self.scores.is_empty() {
                return Err(GameError::ScoresWithoutMoves);
            }
            Vec::new()
        } else {
            self.scores.split(' ').map(parse_score).collect::<Result<_, _>>()?
        };
        if scores.len() != self.plies as usize {
            return Err(GameError::Scores { scores: scores.len(), plies: self.plies });
        }
        Ok(ReplayedGame { record: self.clone(), game, scores, forfeit })
    }
}

impl ReplayedGame {
    /// The winner, if any (the opponent of a side that forfeited).
    pub fn winner(&self) -> Option<Side> {
        match self.forfeit {
            Some(loser) => Some(loser.opponent()),
            None => self.game.outcome().and_then(|o| o.winner),
        }
    }

    /// How the game ended by the rules; `None` for a forfeit.
    pub fn termination(&self) -> Option<Termination> {
        self.game.outcome().map(|o| o.termination)
    }

    /// The `termination` column: a rule's name or `forfeit`.
    pub fn termination_name(&self) -> &str {
        &self.record.termination
    }
}
