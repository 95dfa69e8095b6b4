//! Grading games against perfect play: every move a player chose is judged by
//! the exact values the oracle knows of the position before it and the
//! position after it. A move keeps the value, throws away half a point (a
//! win to a draw, a draw to a loss) or a whole point (a win to a loss), or is
//! `unknown` when the oracle cannot tell within its budget: never a guess.
//!
//! The value after a move is never better than the value before it (a
//! position is worth its best move), which settles some moves whose
//! positions are only bounded: after a loss every move keeps the value; a
//! move that leaves the mover a win kept it; from a draw, a move after which
//! the mover does not lose kept it.
//!
//! Moves of a book or random opening (the record's non-search opening
//! parts) were not the players' choice and are not graded.

use std::collections::{BTreeMap, HashMap};

use alq_engine::{Position, Side, Wdl};
use alq_oracle::{Oracle, OracleError, Value};
use alq_records::{GameError, GameRecord};
use alq_solver::Budget;
use alq_stats::{wilson, Rate};
use serde::Serialize;
use thiserror::Error;

/// Why a game could not be graded.
#[derive(Debug, Error)]
pub enum GradeError {
    #[error("game {id}: {source}")]
    Game { id: u64, source: GameError },
    #[error(transparent)]
    Oracle(#[from] OracleError),
}

/// What a move did to the mover's exact value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    Kept,
    /// A win to a draw, or a draw to a loss.
    HalfLost,
    /// A win to a loss.
    FullLost,
    /// The oracle could not tell within its budget.
    Unknown,
}

impl Verdict {
    /// The verdict from the mover's value before the move and after it (the
    /// position after the move, valued for the same mover).
    pub fn of(before: Value, after: Value) -> Verdict {
        use Value::*;
        match (before, after) {
            (Loss, _) | (_, Win) => Verdict::Kept,
            (Win, Draw) | (Draw, Loss) => Verdict::HalfLost,
            (Win, Loss) => Verdict::FullLost,
            (Draw, Draw | AtLeastDraw) => Verdict::Kept,
            // After a move worth at least a draw, the position was too (and
            // a draw bound from above makes it a draw, which was kept).
            (AtMostDraw, Draw | AtLeastDraw) => Verdict::Kept,
            _ => Verdict::Unknown,
        }
    }

    /// Whether the move threw value away.
    pub fn is_error(self) -> bool {
        matches!(self, Verdict::HalfLost | Verdict::FullLost)
    }

    pub fn name(self) -> &'static str {
        match self {
            Verdict::Kept => "kept",
            Verdict::HalfLost => "half_lost",
            Verdict::FullLost => "full_lost",
            Verdict::Unknown => "unknown",
        }
    }
}

/// The phase a move was played in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    /// Plies 1 to [`OPENING_PLIES`] (counted from the game's start).
    Opening,
    /// After the opening, with more than [`ENDGAME_PIECES`] pieces on the
    /// board before the move.
    Middle,
    /// After the opening, with at most [`ENDGAME_PIECES`] pieces.
    Endgame,
}

/// The last ply of the opening phase.
pub const OPENING_PLIES: u32 = 10;
/// The most pieces of an endgame position (the size of the largest tables).
pub const ENDGAME_PIECES: u32 = 12;

impl Phase {
    pub const ALL: [Phase; 3] = [Phase::Opening, Phase::Middle, Phase::Endgame];

    /// The phase of the move that makes ply `ply` (1 = the first move) from a
    /// position with `pieces` pieces.
    pub fn of(ply: u32, pieces: u32) -> Phase {
        if ply <= OPENING_PLIES {
            Phase::Opening
        } else if pieces <= ENDGAME_PIECES {
            Phase::Endgame
        } else {
            Phase::Middle
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Phase::Opening => "opening",
            Phase::Middle => "middle",
            Phase::Endgame => "endgame",
        }
    }
}

/// One graded move.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GradedMove {
    /// The ply the move made (1 = the game's first move).
    pub ply: u32,
    pub side: Side,
    pub phase: Phase,
    /// Pieces on the board before the move.
    pub pieces: u32,
    pub verdict: Verdict,
}

/// A graded game: the exact value after every ply and each player's moves.
#[derive(Clone, Debug, PartialEq)]
pub struct GradedGame {
    pub id: u64,
    pub white: String,
    pub black: String,
    /// The value of every position of the game for White (the start first,
    /// one more than the moves).
    pub white_values: Vec<Value>,
    /// The players' moves (book and random opening plies left out).
    pub moves: Vec<GradedMove>,
}

impl GradedGame {
    /// The first move that threw value away, if the grading found one
    /// (an unknown verdict before it leaves open whether it was the first).
    pub fn first_error(&self) -> Option<&GradedMove> {
        self.moves.iter().find(|m| m.verdict.is_error())
    }

    /// Errors the values imply that the grading did not find move by move,
    /// `[White's, Black's]`: a stretch of the players' own moves between two
    /// positions of known value over which a side's value fell (White's
    /// value falls only by White's moves, and rises only by Black's) holds at
    /// least one error of that side; it counts once when none of that
    /// side's moves in it was found to err. A lower bound: a stretch whose
    /// value came back (an error answered by one) counts nothing.
    pub fn implied_errors(&self) -> [u64; 2] {
        let chosen: std::collections::HashSet<u32> = self.moves.iter().map(|m| m.ply).collect();
        // White's known values, ordered from worst to best for White.
        let known: Vec<(usize, Wdl)> =
            self.white_values.iter().enumerate().filter_map(|(i, v)| Some((i, v.wdl()?))).collect();
        let mut implied = [0u64; 2];
        for pair in known.windows(2) {
            let ((i, a), (j, b)) = (pair[0], pair[1]);
            // Only the players' own moves: a book ply is nobody's error.
            if !(i + 1..=j).all(|ply| chosen.contains(&(ply as u32))) {
                continue;
            }
            let stretch = |side: Side| {
                self.moves.iter().filter(move |m| m.side == side && (i + 1..=j).contains(&(m.ply as usize)))
            };
            for (k, side, fell) in [(0, Side::White, b < a), (1, Side::Black, b > a)] {
                if fell && !stretch(side).any(|m| m.verdict.is_error()) {
                    implied[k] += 1;
                }
            }
        }
        implied
    }

    /// The player who made `side`'s moves.
    pub fn player(&self, side: Side) -> &str {
        match side {
            Side::White => &self.white,
            Side::Black => &self.black,
        }
    }
}

/// Values the grader asked the oracle for, kept across games (the same
/// openings recur), unknown answers included so that a position the budget
/// could not settle is not searched again.
#[derive(Default)]
pub struct ValueCache {
    values: HashMap<Position, Value>,
}

impl ValueCache {
    /// The value of `pos` for its mover.
    pub fn value(&mut self, oracle: &Oracle<'_>, pos: &Position, budget: Budget) -> Result<Value, OracleError> {
        if let Some(&v) = self.values.get(pos) {
            return Ok(v);
        }
        let v = oracle.value_within(pos, budget)?.value;
        self.values.insert(*pos, v);
        Ok(v)
    }
}

/// Grades one game: asks the oracle (within `budget` per position) for the
/// value of every position of the game and judges each of the players'
/// moves by the values before and after it.
pub fn grade_game(
    oracle: &Oracle<'_>,
    cache: &mut ValueCache,
    record: &GameRecord,
    budget: Budget,
) -> Result<GradedGame, GradeError> {
    grade_game_by(oracle, cache, record, budget, Values::Infinite)
}

/// Which values a grading judges moves by.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Values {
    /// The infinite game's (the tables', proofs' and searches' values).
    #[default]
    Infinite,
    /// Under the 60-ply no-progress rule at the game's own count, where the
    /// oracle's tables hold distance-to-progress tables covering the
    /// position (`alq tb build --kind dtz`); elsewhere the infinite game's.
    Rule,
}

/// [`grade_game`] by the chosen [`Values`].
pub fn grade_game_by(
    oracle: &Oracle<'_>,
    cache: &mut ValueCache,
    record: &GameRecord,
    budget: Budget,
    values: Values,
) -> Result<GradedGame, GradeError> {
    let game_error = |source| GradeError::Game { id: record.id, source };
    let replayed = record.replay().map_err(game_error)?;
    let chosen = record.players_plies().map_err(game_error)?;
    let positions = replayed.game.positions();
    let mut mover_values = Vec::with_capacity(positions.len());
    // Each position with the plies without progress counted there.
    for (pos, &count) in positions.iter().zip(replayed.game.quiet_plies_each()) {
        let rule = if values == Values::Rule { oracle.rule_value(pos) } else { None };
        mover_values.push(match rule {
            Some(dtz) => Value::from(dtz.under_rule(count)),
            None => cache.value(oracle, pos, budget)?,
        });
    }
    let white_values = positions
        .iter()
        .zip(&mover_values)
        .map(|(pos, &v)| if pos.side_to_move() == Side::White { v } else { v.for_other_side() })
        .collect();
    let mut moves = Vec::new();
    for (i, pos) in positions.iter().enumerate().take(positions.len() - 1) {
        if !chosen[i] {
            continue;
        }
        let ply = i as u32 + 1;
        let pieces = pos.occupied().count();
        let after = mover_values[i + 1].for_other_side();
        moves.push(GradedMove {
            ply,
            side: pos.side_to_move(),
            phase: Phase::of(ply, pieces),
            pieces,
            verdict: Verdict::of(mover_values[i], after),
        });
    }
    Ok(GradedGame { id: record.id, white: record.white.clone(), black: record.black.clone(), white_values, moves })
}

/// Moves by verdict.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Counts {
    /// kept + half_lost + full_lost + unknown.
    pub moves: u64,
    pub kept: u64,
    pub half_lost: u64,
    pub full_lost: u64,
    pub unknown: u64,
}

impl Counts {
    fn add(&mut self, v: Verdict) {
        self.moves += 1;
        match v {
            Verdict::Kept => self.kept += 1,
            Verdict::HalfLost => self.half_lost += 1,
            Verdict::FullLost => self.full_lost += 1,
            Verdict::Unknown => self.unknown += 1,
        }
    }

    /// The share of the known moves (kept or lost) that lost value, with its
    /// Wilson 95 % interval.
    pub fn error_rate(&self) -> Rate {
        let errors = self.half_lost + self.full_lost;
        wilson(errors as f64, errors + self.kept)
    }
}

/// One player's grades over all its games.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct PlayerGrades {
    pub games: u64,
    #[serde(flatten)]
    pub counts: Counts,
    pub phases: BTreeMap<&'static str, Counts>,
    /// Value-losing moves per game (half and full points), with a 95 %
    /// interval from the per-game counts.
    pub errors_per_game: f64,
    pub errors_per_game_ci95: [f64; 2],
    /// The share of known moves that lost value, with its 95 % interval.
    pub error_rate: f64,
    pub error_rate_ci95: [f64; 2],
    /// Errors the values imply among the moves the grading could not judge
    /// ([`GradedGame::implied_errors`]), beyond those found.
    pub implied_errors: u64,
    /// Errors found and implied, per game, with a 95 % interval: a firmer
    /// lower bound on the errors a game than `errors_per_game` where many
    /// moves are unknown (a game from a drawn start that one side won holds
    /// at least one error of the loser's, found or not).
    pub errors_at_least_per_game: f64,
    pub errors_at_least_per_game_ci95: [f64; 2],
    /// Games whose first value-losing move was this player's.
    pub first_errors: u64,
    /// The mean ply of those first errors.
    pub mean_first_error_ply: Option<f64>,
    #[serde(skip)]
    errors_by_game: Vec<u64>,
    #[serde(skip)]
    at_least_by_game: Vec<u64>,
    #[serde(skip)]
    first_error_plies: Vec<u32>,
}

/// The grades of a set of games, per player.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct GradeReport {
    pub games: u64,
    pub players: BTreeMap<String, PlayerGrades>,
    /// Games in which no move was found to lose value.
    pub games_without_error: u64,
    /// Games in which a move was unknown before any error was found (their
    /// first error may lie earlier than the one counted).
    pub games_with_unknown_first: u64,
    /// Games whose first value-losing move was White's, and Black's (by
    /// side, whoever played it).
    pub white_errs_first: u64,
    pub black_errs_first: u64,
    /// The mean ply of the games' first errors.
    pub mean_first_error_ply: Option<f64>,
    /// After ply k (k = 0, 1, …): how many games were still going and known
    /// drawn by exact value, how many still going with their value known,
    /// and how many still going (a finished game leaves the counts).
    pub drawn_after: Vec<[u64; 3]>,
    #[serde(skip)]
    first_error_ply_sum: u64,
}

impl GradeReport {
    /// Adds a graded game.
    pub fn add(&mut self, game: &GradedGame) {
        self.games += 1;
        let implied = game.implied_errors();
        for side in [Side::White, Side::Black] {
            let name = game.player(side);
            // The same player on both sides (self-play) counts the game once.
            let same = game.white == game.black;
            let p = self.players.entry(name.to_string()).or_default();
            if !(same && side == Side::Black) {
                p.games += 1;
                p.errors_by_game.push(0);
                p.at_least_by_game.push(0);
            }
            let implied = implied[usize::from(side == Side::Black)];
            p.implied_errors += implied;
            *p.at_least_by_game.last_mut().expect("a game was pushed") += implied;
            for m in game.moves.iter().filter(|m| m.side == side) {
                p.counts.add(m.verdict);
                p.phases.entry(m.phase.name()).or_default().add(m.verdict);
                if m.verdict.is_error() {
                    *p.errors_by_game.last_mut().expect("a game was pushed") += 1;
                    *p.at_least_by_game.last_mut().expect("a game was pushed") += 1;
                }
            }
        }
        for (k, v) in game.white_values.iter().enumerate() {
            if self.drawn_after.len() <= k {
                self.drawn_after.push([0; 3]);
            }
            let row = &mut self.drawn_after[k];
            row[0] += u64::from(*v == Value::Draw);
            row[1] += u64::from(v.is_exact());
            row[2] += 1;
        }
        match game.first_error() {
            None => self.games_without_error += 1,
            Some(first) => {
                match first.side {
                    Side::White => self.white_errs_first += 1,
                    Side::Black => self.black_errs_first += 1,
                }
                self.first_error_ply_sum += u64::from(first.ply);
                let errs = self.white_errs_first + self.black_errs_first;
                self.mean_first_error_ply = Some(self.first_error_ply_sum as f64 / errs as f64);
                let p = self.players.get_mut(game.player(first.side)).expect("both players were added");
                p.first_errors += 1;
                p.first_error_plies.push(first.ply);
            }
        }
        let first_unknown = game.moves.iter().position(|m| m.verdict == Verdict::Unknown);
        let first_error = game.moves.iter().position(|m| m.verdict.is_error());
        if first_unknown.is_some_and(|u| first_error.is_none_or(|e| u < e)) {
            self.games_with_unknown_first += 1;
        }
        // Only this game's players' figures changed.
        for side in [Side::White, Side::Black] {
            self.players.get_mut(game.player(side)).expect("both players were added").finish();
        }
    }
}

/// The mean of per-game counts and its 95 % interval (normal, from the
/// sample variance; not below 0); none without games.
fn mean_with_interval(per_game: &[u64]) -> Option<(f64, [f64; 2])> {
    let n = per_game.len();
    if n == 0 {
        return None;
    }
    let mean = per_game.iter().sum::<u64>() as f64 / n as f64;
    let var =
        if n > 1 { per_game.iter().map(|&e| (e as f64 - mean).powi(2)).sum::<f64>() / (n - 1) as f64 } else { 0.0 };
    let half = alq_stats::Z95 * (var / n as f64).sqrt();
    Some((mean, [(mean - half).max(0.0), mean + half]))
}

impl PlayerGrades {
    /// Recomputes the derived figures from the counts.
    fn finish(&mut self) {
        for phase in Phase::ALL {
            self.phases.entry(phase.name()).or_default();
        }
        if let Some((mean, ci)) = mean_with_interval(&self.errors_by_game) {
            (self.errors_per_game, self.errors_per_game_ci95) = (mean, ci);
        }
        if let Some((mean, ci)) = mean_with_interval(&self.at_least_by_game) {
            (self.errors_at_least_per_game, self.errors_at_least_per_game_ci95) = (mean, ci);
        }
        let rate = self.counts.error_rate();
        (self.error_rate, self.error_rate_ci95) = (rate.rate, rate.ci95);
        self.mean_first_error_ply = (!self.first_error_plies.is_empty()).then(|| {
            self.first_error_plies.iter().map(|&p| f64::from(p)).sum::<f64>() / self.first_error_plies.len() as f64
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use Value::*;

    #[test]
    fn verdicts_follow_the_values() {
        assert_eq!(Verdict::of(Win, Win), Verdict::Kept);
        assert_eq!(Verdict::of(Win, Draw), Verdict::HalfLost);
        assert_eq!(Verdict::of(Win, Loss), Verdict::FullLost);
        assert_eq!(Verdict::of(Draw, Loss), Verdict::HalfLost);
        assert_eq!(Verdict::of(Draw, Draw), Verdict::Kept);
        assert_eq!(Verdict::of(Loss, Loss), Verdict::Kept);
        // Bounds that settle the verdict.
        assert_eq!(Verdict::of(Loss, Unknown), Verdict::Kept);
        assert_eq!(Verdict::of(Unknown, Win), Verdict::Kept);
        assert_eq!(Verdict::of(Draw, AtLeastDraw), Verdict::Kept);
        assert_eq!(Verdict::of(AtMostDraw, AtLeastDraw), Verdict::Kept);
        // Bounds that do not.
        assert_eq!(Verdict::of(Win, AtMostDraw), Verdict::Unknown);
        assert_eq!(Verdict::of(AtLeastDraw, Draw), Verdict::Unknown);
        assert_eq!(Verdict::of(Draw, AtMostDraw), Verdict::Unknown);
        assert_eq!(Verdict::of(Unknown, Loss), Verdict::Unknown);
    }

    #[test]
    fn phases_by_ply_then_pieces() {
        assert_eq!(Phase::of(1, 24), Phase::Opening);
        assert_eq!(Phase::of(10, 12), Phase::Opening);
        assert_eq!(Phase::of(11, 13), Phase::Middle);
        assert_eq!(Phase::of(11, 12), Phase::Endgame);
    }

    fn graded(white: &str, black: &str, verdicts: &[Verdict]) -> GradedGame {
        let moves = verdicts
            .iter()
            .enumerate()
            .map(|(i, &verdict)| GradedMove {
                ply: i as u32 + 1,
                side: if i % 2 == 0 { Side::White } else { Side::Black },
                phase: Phase::of(i as u32 + 1, 20),
                pieces: 20,
                verdict,
            })
            .collect();
        GradedGame { id: 1, white: white.into(), black: black.into(), white_values: Vec::new(), moves }
    }

    #[test]
    fn reports_count_per_player_and_first_error() {
        use Verdict::*;
        let mut report = GradeReport::default();
        report.add(&graded("a", "b", &[Kept, Kept, Kept, HalfLost, FullLost]));
        report.add(&graded("b", "a", &[Kept, Unknown, HalfLost]));
        report.add(&graded("a", "b", &[Kept, Kept]));
        let a = &report.players["a"];
        let b = &report.players["b"];
        assert_eq!((a.games, a.counts.moves, a.counts.kept, a.counts.full_lost, a.counts.unknown), (3, 5, 3, 1, 1));
        assert_eq!((b.counts.moves, b.counts.half_lost, b.counts.kept), (5, 2, 3));
        assert_eq!((a.first_errors, b.first_errors), (0, 2));
        assert_eq!(b.mean_first_error_ply, Some(3.5));
        assert_eq!(report.games_without_error, 1);
        assert_eq!(report.games_with_unknown_first, 1);
        // Game 1's first error is Black's (ply 4), game 2's White's (ply 3).
        assert_eq!((report.white_errs_first, report.black_errs_first), (1, 1));
        assert_eq!(report.mean_first_error_ply, Some(3.5));
        assert!((b.errors_per_game - 2.0 / 3.0).abs() < 1e-12);
        assert!(a.errors_per_game_ci95[0] <= a.errors_per_game && a.errors_per_game <= a.errors_per_game_ci95[1]);
        assert_eq!(a.phases.len(), 3);
        let sum = |c: &Counts| c.kept + c.half_lost + c.full_lost + c.unknown;
        assert_eq!(sum(&a.counts), a.counts.moves);
        // No values, nothing implied: at least what was found.
        assert_eq!(a.implied_errors, 0);
        assert_eq!(b.errors_at_least_per_game, b.errors_per_game);
    }

    /// A game from a drawn start that White lost, every move unknown: the
    /// values imply one error of White's and none of Black's.
    #[test]
    fn values_imply_errors_the_moves_hide() {
        use Verdict::Unknown as U;
        let mut game = graded("a", "b", &[U, U, U, U]);
        game.white_values = vec![Draw, Unknown, Unknown, Unknown, Loss];
        assert_eq!(game.implied_errors(), [1, 0]);
        // White's value came back up after Black's error: one of each.
        game.white_values = vec![Draw, Loss, Unknown, Draw, Draw];
        assert_eq!(game.implied_errors(), [1, 1]);
        // An error found in the stretch already accounts for it.
        game.moves[0].verdict = Verdict::HalfLost;
        game.white_values = vec![Draw, Unknown, Unknown, Unknown, Loss];
        assert_eq!(game.implied_errors(), [0, 0]);
        // A book ply in the stretch: nobody's error.
        let mut book = graded("a", "b", &[U, U, U]);
        for m in &mut book.moves {
            m.ply += 1;
        }
        book.white_values = vec![Draw, Unknown, Unknown, Loss];
        assert_eq!(book.implied_errors(), [0, 0]);
        let mut report = GradeReport::default();
        let mut lost = graded("a", "b", &[U, U, U, U]);
        lost.white_values = vec![Draw, Unknown, Unknown, Unknown, Loss];
        report.add(&lost);
        report.add(&graded("a", "b", &[Verdict::Kept, Verdict::Kept]));
        let a = &report.players["a"];
        assert_eq!((a.implied_errors, a.errors_per_game, a.errors_at_least_per_game), (1, 0.0, 0.5));
        assert_eq!(report.players["b"].errors_at_least_per_game, 0.0);
    }
}
