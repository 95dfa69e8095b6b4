//! [`Game`]: a start position, the moves played, and the end-of-game rules
//! (no moves, repetition, no progress, ply cap) applied in RULES.md's order.

use std::collections::HashMap;
use std::fmt;

use crate::error::MoveError;
use crate::moves::Move;
use crate::position::Position;
use crate::rules::RuleSet;
use crate::types::Side;

/// The rule set and draw-rule parameters of a game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GameConfig {
    /// Consecutive plies without capture or forward move that end the game in
    /// a draw; `None` switches the rule off. Default 60.
    pub no_progress_limit: Option<u32>,
    /// A cap on the game's length in plies (a draw when reached); default none.
    pub max_plies: Option<u32>,
    /// The rule set the game is played by; default BrainKing's.
    pub rules: RuleSet,
}

impl Default for GameConfig {
    fn default() -> GameConfig {
        GameConfig { no_progress_limit: Some(60), max_plies: None, rules: RuleSet::BrainKing }
    }
}

impl GameConfig {
    /// The default draw rules under `rules`.
    pub fn with_rules(rules: RuleSet) -> GameConfig {
        GameConfig { rules, ..GameConfig::default() }
    }
}

/// How a game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Termination {
    /// The side to move had no legal move and lost.
    NoMoves,
    /// The same position with the same side to move occurred a third time.
    Repetition,
    /// The no-progress limit was reached.
    NoProgress,
    /// The configured ply cap was reached.
    MaxPlies,
}

impl Termination {
    /// The name used in records and on the command line.
    pub const fn name(self) -> &'static str {
        match self {
            Termination::NoMoves => "no_moves",
            Termination::Repetition => "repetition",
            Termination::NoProgress => "no_progress",
            Termination::MaxPlies => "max_plies",
        }
    }

    /// Parses a name written by [`Termination::name`].
    pub fn from_name(name: &str) -> Option<Termination> {
        [Termination::NoMoves, Termination::Repetition, Termination::NoProgress, Termination::MaxPlies]
            .into_iter()
            .find(|t| t.name() == name)
    }
}

impl fmt::Display for Termination {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The result and how it came about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Outcome {
    /// The winner, or `None` for a draw.
    pub winner: Option<Side>,
    pub termination: Termination,
}

impl Outcome {
    /// `1-0`, `0-1` or `1/2-1/2`.
    pub const fn result_text(self) -> &'static str {
        match self.winner {
            Some(Side::White) => "1-0",
            Some(Side::Black) => "0-1",
            None => "1/2-1/2",
        }
    }
}

/// A game in progress or finished: the moves played from a start position,
/// judged after each move by the end-of-game rules of its [`GameConfig`].
///
/// # Examples
///
/// ```
/// use alq_engine::{Game, GameConfig, Outcome, Position, Side, Termination};
///
/// let mut game = Game::new(Position::start(), GameConfig::default());
/// game.play_text("d3-c3").unwrap();
/// game.play_text("b3xd3").unwrap();
/// assert_eq!(game.plies(), 2);
/// assert_eq!(game.position().side_to_move(), Side::White);
/// assert!(!game.is_over());
///
/// // White takes Black's last piece: Black has no move and loses.
/// let start: Position = "...../...../...../.B.../W.... w".parse().unwrap();
/// let mut game = Game::new(start, GameConfig::default());
/// let capture = game.legal_moves()[0];
/// game.play(capture).unwrap();
/// let outcome = game.outcome().unwrap();
/// assert_eq!(outcome, Outcome { winner: Some(Side::White), termination: Termination::NoMoves });
/// assert_eq!(outcome.result_text(), "1-0");
/// assert!(game.play_text("c3-c4").is_err(), "the game is over");
///
/// assert_eq!(game.undo(), Some(capture));
/// assert_eq!(game.outcome(), None);
/// ```
#[derive(Clone, Debug)]
pub struct Game {
    config: GameConfig,
    start: Position,
    moves: Vec<Move>,
    /// Every position of the game, the start first (one more than `moves`).
    positions: Vec<Position>,
    /// No-progress counter after each position, parallel to `positions`.
    quiet_plies: Vec<u32>,
    repetitions: HashMap<Position, u8>,
    outcome: Option<Outcome>,
}

impl Game {
    /// A new game from `start`. If the side to move has no move there, the game
    /// is already over.
    ///
    /// # Examples
    ///
    /// ```
    /// use alq_engine::{Game, GameConfig, Position, RuleSet, Termination};
    ///
    /// let game = Game::new(Position::start(), GameConfig::with_rules(RuleSet::Classic));
    /// assert_eq!(game.rules(), RuleSet::Classic);
    /// assert_eq!((game.plies(), game.repetition_count(), game.quiet_plies()), (0, 1, 0));
    ///
    /// let lost: Position = "...../...../..W../...../..... b".parse().unwrap();
    /// let over = Game::new(lost, GameConfig::default());
    /// assert_eq!(over.outcome().map(|o| o.termination), Some(Termination::NoMoves));
    /// ```
    pub fn new(start: Position, config: GameConfig) -> Game {
        let mut game = Game {
            config,
            start,
            moves: Vec::new(),
            positions: vec![start],
            quiet_plies: vec![0],
            repetitions: HashMap::from([(start, 1)]),
            outcome: None,
        };
        game.outcome = game.judge();
        game
    }

    /// The rule set and draw rules the game was started with.
    pub fn config(&self) -> GameConfig {
        self.config
    }

    /// The rule set the game is played by.
    pub fn rules(&self) -> RuleSet {
        self.config.rules
    }

    /// The legal moves in the current position (none once the game is over
    /// is the caller's check: this lists the position's moves).
    pub fn legal_moves(&self) -> crate::moves::MoveList {
        self.position().legal_moves_in(self.config.rules)
    }

    /// The position the game started from.
    pub fn start(&self) -> Position {
        self.start
    }

    /// The current position.
    pub fn position(&self) -> Position {
        *self.positions.last().expect("a game always holds its start position")
    }

    /// The moves played so far, in order.
    pub fn moves(&self) -> &[Move] {
        &self.moves
    }

    /// All positions so far, the start first.
    pub fn positions(&self) -> &[Position] {
        &self.positions
    }

    /// The number of moves (plies) played so far.
    pub fn plies(&self) -> usize {
        self.moves.len()
    }

    /// How the game ended; `None` while it goes on.
    ///
    /// # Examples
    ///
    /// ```
    /// use alq_engine::{Game, GameConfig, Position, Termination};
    ///
    /// // A ply cap of 2: the game is drawn once two plies are played.
    /// let config = GameConfig { max_plies: Some(2), ..GameConfig::default() };
    /// let mut game = Game::new(Position::start(), config);
    /// game.play_text("d3-c3").unwrap();
    /// assert_eq!(game.outcome(), None);
    /// game.play_text("b3xd3").unwrap();
    /// let outcome = game.outcome().unwrap();
    /// assert_eq!((outcome.winner, outcome.termination), (None, Termination::MaxPlies));
    /// assert_eq!(outcome.result_text(), "1/2-1/2");
    /// ```
    pub fn outcome(&self) -> Option<Outcome> {
        self.outcome
    }

    /// Whether the game has ended ([`Game::outcome`] is set).
    pub fn is_over(&self) -> bool {
        self.outcome.is_some()
    }

    /// How often the current position has occurred (1 on its first visit).
    pub fn repetition_count(&self) -> u8 {
        self.repetitions.get(&self.position()).copied().unwrap_or(0)
    }

    /// How often `position` has occurred in this game so far.
    pub fn occurrences(&self, position: &Position) -> u8 {
        self.repetitions.get(position).copied().unwrap_or(0)
    }

    /// Consecutive plies without capture or forward move, up to now.
    pub fn quiet_plies(&self) -> u32 {
        *self.quiet_plies.last().expect("parallel to positions")
    }

    /// That count at each position of the game (parallel to
    /// [`Game::positions`]).
    pub fn quiet_plies_each(&self) -> &[u32] {
        &self.quiet_plies
    }

    /// Plays a legal move. Playing after the game is over, or a move that is
    /// not legal, is refused.
    ///
    /// # Errors
    ///
    /// [`MoveError::Illegal`] when `mv` is not a legal move of the current
    /// position under the game's rules (its `legal` lists them, sorted), or
    /// when the game is over (its `legal` is empty). The game is unchanged.
    pub fn play(&mut self, mv: Move) -> Result<(), MoveError> {
        let pos = self.position();
        let rules = self.config.rules;
        if self.outcome.is_some() || !pos.legal_moves_in(rules).contains(&mv) {
            let mut legal: Vec<String> = if self.outcome.is_some() {
                Vec::new()
            } else {
                pos.legal_moves_in(rules).iter().map(|m| m.to_string()).collect()
            };
            legal.sort();
            return Err(MoveError::Illegal { text: mv.to_string(), legal });
        }
        self.push_unchecked(mv);
        Ok(())
    }

    /// Parses and plays a move given in notation; returns the move played.
    ///
    /// # Errors
    ///
    /// As [`Position::parse_move_in`] under the game's rules:
    /// [`MoveError::Malformed`] for text that is not a move,
    /// [`MoveError::Illegal`] for a move that is not legal here; and
    /// [`MoveError::Illegal`] with an empty `legal` list when the game is
    /// over. The game is unchanged.
    pub fn play_text(&mut self, text: &str) -> Result<Move, MoveError> {
        if self.outcome.is_some() {
            return Err(MoveError::Illegal { text: text.to_string(), legal: Vec::new() });
        }
        let mv = self.position().parse_move_in(self.config.rules, text)?;
        self.push_unchecked(mv);
        Ok(mv)
    }

    fn push_unchecked(&mut self, mv: Move) {
        let next = self.position().play(mv);
        let quiet = if mv.is_progress(self.position().side_to_move()) { 0 } else { self.quiet_plies() + 1 };
        self.moves.push(mv);
        self.positions.push(next);
        self.quiet_plies.push(quiet);
        *self.repetitions.entry(next).or_insert(0) += 1;
        self.outcome = self.judge();
    }

    /// Takes back the last move; `None` at the start.
    pub fn undo(&mut self) -> Option<Move> {
        let mv = self.moves.pop()?;
        let pos = self.positions.pop().expect("parallel to moves");
        self.quiet_plies.pop();
        if let Some(count) = self.repetitions.get_mut(&pos) {
            *count -= 1;
            if *count == 0 {
                self.repetitions.remove(&pos);
            }
        }
        self.outcome = self.judge();
        Some(mv)
    }

    /// The end conditions in RULES.md's order: no legal move, repetition, no
    /// progress, ply cap.
    fn judge(&self) -> Option<Outcome> {
        let pos = self.position();
        if pos.is_lost_in(self.config.rules) {
            return Some(Outcome { winner: Some(pos.side_to_move().opponent()), termination: Termination::NoMoves });
        }
        let draw = |termination| Some(Outcome { winner: None, termination });
        if self.repetition_count() >= 3 {
            return draw(Termination::Repetition);
        }
        if self.config.no_progress_limit.is_some_and(|limit| self.quiet_plies() >= limit) {
            return draw(Termination::NoProgress);
        }
        if self.config.max_plies.is_some_and(|cap| self.plies() as u64 >= cap as u64) {
            return draw(Termination::MaxPlies);
        }
        None
    }
}
