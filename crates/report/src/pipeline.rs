//! The pipeline's summary (`alq pipeline`): one row per generation, as the
//! pipeline hands it over in plain data, rendered as `summary.md` and the
//! Elo curve `elo.svg` (written by `write.rs`). The pipeline itself writes
//! `summary.json`; this crate does not depend on it.

use serde::{Deserialize, Serialize};

use crate::plots::{elo_curve, EloSeries, PlotError};

/// A candidate's Elo against one fixed anchor.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AnchorElo {
    pub anchor: String,
    pub elo: f64,
    pub elo_ci95: [f64; 2],
    /// Normalized Elo from the pairs (see `alq match`), when defined.
    #[serde(default)]
    pub nelo: Option<f64>,
    #[serde(default)]
    pub nelo_ci95: Option<[f64; 2]>,
}

/// A generation's best player against itself from the standard start.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct StartResult {
    pub player: String,
    pub games: u64,
    pub white_wins: u64,
    pub draws: u64,
    pub black_wins: u64,
    pub unfinished: u64,
    pub white_score: f64,
    pub white_score_ci95: [f64; 2],
}

/// A player's errors against perfect play over one set of its games (the
/// pipeline's `[errors]` stage, as `alq accuracy` grades them).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ErrorRow {
    pub games: u64,
    /// The players' moves graded, and those the grading could not judge.
    pub moves: u64,
    pub unknown: u64,
    /// Value-losing moves found, per game, with a 95 % interval.
    pub errors_per_game: f64,
    pub errors_per_game_ci95: [f64; 2],
    /// Errors found and implied, per game (a firmer lower bound).
    pub errors_at_least_per_game: f64,
    pub errors_at_least_per_game_ci95: [f64; 2],
}

impl ErrorRow {
    /// `0.15 / 0.48`: errors found / at least, a game.
    pub fn text(&self) -> String {
        format!("{:.2} / {:.2}", self.errors_per_game, self.errors_at_least_per_game)
    }
}

/// A generation's best player graded against perfect play: its games from
/// the standard start and from a book, each move judged at a fixed grading
/// budget.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ErrorsResult {
    pub player: String,
    /// How the games were played and graded, in words.
    pub conditions: String,
    pub start: Option<ErrorRow>,
    pub book: Option<ErrorRow>,
}

/// How a match stage was played, in words: its limits (`2000 nodes`,
/// `50 ms a move`, `tc 10+0.1`) and its openings (`the shipped balanced
/// book`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MatchConditions {
    pub limits: String,
    pub openings: String,
}

/// One generation's row of the summary.
#[derive(Clone, Debug)]
pub struct PipelineRow<'a> {
    pub generation: usize,
    /// The player of the generation's self-play.
    pub selfplay_player: &'a str,
    pub games: u64,
    /// Whether the gate promoted the candidate (none for generation 0).
    pub promoted: Option<bool>,
    pub gate_elo: Option<f64>,
    pub gate_elo_ci95: Option<[f64; 2]>,
    pub gate_nelo: Option<f64>,
    pub gate_nelo_ci95: Option<[f64; 2]>,
    pub anchors: &'a [AnchorElo],
    pub start: Option<&'a StartResult>,
    /// Endgame accuracy: the pieces of the positions, and the share of wins
    /// and draws kept with its interval, as text.
    pub accuracy: Option<(u32, String)>,
    /// The training positions the `[label]` stage valued exactly, and all
    /// it asked about.
    pub labelled: Option<(u64, u64)>,
    /// Errors against perfect play (`[errors]`, when the run measures them).
    pub errors: Option<&'a ErrorsResult>,
}

/// The summary of a pipeline run so far.
#[derive(Clone, Debug)]
pub struct PipelineSummary<'a> {
    /// The gate: each candidate against the best player so far.
    pub gate: MatchConditions,
    /// Each candidate against the fixed anchors.
    pub evaluation: MatchConditions,
    pub rows: Vec<PipelineRow<'a>>,
}

/// `+12 [-3, +27]`, or `–` when a value or its interval is missing.
fn with_interval(value: Option<f64>, ci: Option<[f64; 2]>) -> String {
    match (value, ci) {
        (Some(e), Some([lo, hi])) => format!("{e:+.0} [{lo:+.0}, {hi:+.0}]"),
        _ => "–".to_string(),
    }
}

impl PipelineSummary<'_> {
    /// `summary.md`: what the columns measure, then one row per generation.
    pub fn markdown(&self) -> String {
        let mut md = format!(
            "# Pipeline summary\n\n\
             Gate: each candidate against the best player so far at {gate_limits}, from {gate_book}. \
             Elo vs anchors: each candidate against the fixed anchors of `anchors` at {eval_limits}, from {eval_book}. \
             Each shows Elo, then nElo (normalized Elo, from the pairs' score and its spread: \
             comparable across books and draw rates), each with its 95 % interval; `elo.svg` plots both.\n\n\
             White / draw / Black: the generation's best player against itself from the standard start \
             (first plies among near-best moves), with White's score and its 95 % interval.\n\n\
             Endgame accuracy: the best player's moves that keep a win or a draw in random positions judged by the \
             tables of `[accuracy]` (when the run names them).\n\n\
             Exact labels: the generation's training positions the oracle valued exactly (`[label]`, when the run \
             labels), of all its distinct ones (with at most `max_pieces` pieces when set).\n\n\
             Errors a game: the best player's value-losing moves against perfect play a game, found / at least \
             (found plus those the values imply), from the standard start and from the book of `[errors]` \
             (when the run measures them; `gen-NNN/errors.json` has the intervals).\n\n\
             | generation | self-play player | games | gate Elo / nElo vs best (95 %) | promoted | Elo / nElo vs anchors (95 %) | White / draw / Black (unfinished) | White's score (95 %) | endgame accuracy (95 %) | exact labels | errors a game: start; book |\n|---|---|---|---|---|---|---|---|---|---|---|\n",
            gate_limits = self.gate.limits,
            gate_book = self.gate.openings,
            eval_limits = self.evaluation.limits,
            eval_book = self.evaluation.openings,
        );
        for r in &self.rows {
            md += &r.markdown();
        }
        md
    }

    /// The Elo (and nElo) curve against each anchor, in the order the
    /// anchors first appear.
    pub fn elo_series(&self) -> Vec<EloSeries> {
        let mut series: Vec<EloSeries> = Vec::new();
        for r in &self.rows {
            for a in r.anchors {
                let i = match series.iter().position(|s| s.anchor == a.anchor) {
                    Some(i) => i,
                    None => {
                        series.push(EloSeries {
                            anchor: a.anchor.clone(),
                            points: Vec::new(),
                            nelo_points: Vec::new(),
                        });
                        series.len() - 1
                    }
                };
                series[i].points.push((r.generation, a.elo, a.elo_ci95));
                if let (Some(n), Some(ci)) = (a.nelo, a.nelo_ci95) {
                    series[i].nelo_points.push((r.generation, n, ci));
                }
            }
        }
        series
    }

    /// `elo.svg`, or none while no candidate has met an anchor.
    pub fn elo_svg(&self) -> Result<Option<String>, PlotError> {
        let series = self.elo_series();
        if series.is_empty() {
            return Ok(None);
        }
        elo_curve(&series).map(Some)
    }
}

impl PipelineRow<'_> {
    /// The row's line of the Markdown table.
    fn markdown(&self) -> String {
        let (wdb, score) = match self.start {
            Some(s) => (
                format!("{} / {} / {} ({})", s.white_wins, s.draws, s.black_wins, s.unfinished),
                format!("{:.3} [{:.3}, {:.3}]", s.white_score, s.white_score_ci95[0], s.white_score_ci95[1]),
            ),
            None => ("–".to_string(), "–".to_string()),
        };
        let accuracy =
            self.accuracy.as_ref().map_or("–".to_string(), |(pieces, kept)| format!("{pieces} pieces: {kept}"));
        let labelled = self.labelled.map_or("–".to_string(), |(exact, all)| {
            format!("{exact} of {all} ({:.1} %)", 100.0 * exact as f64 / all.max(1) as f64)
        });
        let row = |r: &Option<ErrorRow>| r.as_ref().map_or("–".to_string(), ErrorRow::text);
        let errors = self.errors.map_or("–".to_string(), |e| format!("{}; {}", row(&e.start), row(&e.book)));
        let gate = if self.gate_elo.is_some() {
            format!(
                "{} / {}",
                with_interval(self.gate_elo, self.gate_elo_ci95),
                with_interval(self.gate_nelo, self.gate_nelo_ci95)
            )
        } else {
            "–".to_string()
        };
        let anchors = if self.anchors.is_empty() {
            "–".to_string()
        } else {
            self.anchors
                .iter()
                .map(|a| {
                    format!(
                        "{}: {} / {}",
                        a.anchor,
                        with_interval(Some(a.elo), Some(a.elo_ci95)),
                        with_interval(a.nelo, a.nelo_ci95)
                    )
                })
                .collect::<Vec<_>>()
                .join("; ")
        };
        format!(
            "| {} | {} | {} | {gate} | {} | {anchors} | {wdb} | {score} | {accuracy} | {labelled} | {errors} |\n",
            self.generation,
            self.selfplay_player,
            self.games,
            self.promoted.map_or("–", |p| if p { "yes" } else { "no" }),
        )
    }
}
