//! The run summary: one row per generation, assembled from each stage's
//! part, written as `summary.json` here and rendered as `summary.md` and
//! `elo.svg` by `alq_report::pipeline`.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use alq_play::MatchReport;
use alq_report::pipeline::{AnchorElo, ErrorsResult, PipelineRow, PipelineSummary, StartResult};
use alq_stats::SprtDecision;

use crate::config::PipelineConfig;
use crate::error::PipelineError;
use crate::files::write_json;

/// A finished match stage, as saved in `match.json` / `elo.json`.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct StageResult {
    a: String,
    b: String,
    games: u64,
    wins: u64,
    draws: u64,
    losses: u64,
    pub(crate) elo: f64,
    pub(crate) elo_ci95: [f64; 2],
    #[serde(default)]
    pub(crate) nelo: Option<f64>,
    #[serde(default)]
    pub(crate) nelo_ci95: Option<[f64; 2]>,
    /// Pairs by the first player's points in the pair: 0, 0.5, 1, 1.5, 2.
    #[serde(default)]
    pentanomial: Option<[u64; 5]>,
    pub(crate) llr: Option<f64>,
    decision: Option<SprtDecision>,
}

impl StageResult {
    pub(crate) fn of(r: &MatchReport) -> StageResult {
        StageResult {
            a: r.a.clone(),
            b: r.b.clone(),
            games: r.games,
            wins: r.wins,
            draws: r.draws,
            losses: r.losses,
            elo: r.elo,
            elo_ci95: r.elo_ci95,
            nelo: r.nelo,
            nelo_ci95: r.nelo_ci95,
            pentanomial: Some(r.pentanomial),
            llr: r.sprt.as_ref().map(|s| s.state.llr),
            decision: r.sprt.as_ref().map(|s| s.state.decision),
        }
    }

    pub(crate) fn promotes(&self) -> bool {
        alq_stats::gate_passes(self.decision, (self.elo_ci95[0], self.elo_ci95[1]))
    }
}

/// The self-play part of a generation's row.
pub(crate) struct SelfplayRow {
    /// The player as the records name it.
    pub(crate) player: String,
    pub(crate) games: u64,
}

/// One generation in the run summary.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct GenerationSummary {
    pub generation: usize,
    /// The player of this generation's self-play.
    pub selfplay_player: String,
    pub games: u64,
    pub candidate: Option<String>,
    pub promoted: Option<bool>,
    pub gate_elo: Option<f64>,
    pub gate_elo_ci95: Option<[f64; 2]>,
    pub gate_llr: Option<f64>,
    /// The gate's normalized Elo and its 95 % interval.
    #[serde(default)]
    pub gate_nelo: Option<f64>,
    #[serde(default)]
    pub gate_nelo_ci95: Option<[f64; 2]>,
    pub elo_vs_gen0: Option<f64>,
    pub elo_vs_gen0_ci95: Option<[f64; 2]>,
    /// The candidate against each anchor (the first, `hce`, is also
    /// `elo_vs_gen0`).
    #[serde(default)]
    pub elo_vs_anchors: Vec<AnchorElo>,
    /// The best player's games from the standard start: White wins, draws,
    /// Black wins, unfinished, and White's score with its 95 % interval.
    #[serde(default)]
    pub start: Option<StartResult>,
    /// The best player's endgame accuracy, when the run names tables for it.
    #[serde(default)]
    pub accuracy: Option<alq_selfplay::AccuracyReport>,
    /// The generation's training positions valued by `[label]`, when it runs.
    #[serde(default)]
    pub labels: Option<alq_oracle::label::LabelReport>,
    /// The best player's errors against perfect play, when `[errors]` runs.
    #[serde(default)]
    pub errors: Option<ErrorsResult>,
}

/// What a generation measured of its best player after self-play.
pub(crate) struct Measured {
    pub(crate) start: Option<StartResult>,
    pub(crate) accuracy: Option<alq_selfplay::AccuracyReport>,
    pub(crate) labels: Option<alq_oracle::label::LabelReport>,
    pub(crate) errors: Option<ErrorsResult>,
}

/// What a generation after 0 measured of its candidate: the network, its
/// gate and its matches against the anchors.
pub(crate) struct CandidateRow {
    pub(crate) network: PathBuf,
    pub(crate) gate: StageResult,
    pub(crate) anchors: Vec<AnchorElo>,
}

impl GenerationSummary {
    /// Generation `generation`'s row from its stages' parts (no candidate
    /// in generation 0).
    pub(crate) fn new(
        generation: usize,
        candidate: Option<CandidateRow>,
        selfplay: SelfplayRow,
        measured: Measured,
    ) -> GenerationSummary {
        let Measured { start, accuracy, labels, errors } = measured;
        let gate = candidate.as_ref().map(|c| &c.gate);
        let gen0 = candidate.as_ref().and_then(|c| c.anchors.iter().rfind(|a| a.anchor == "hce"));
        GenerationSummary {
            generation,
            selfplay_player: selfplay.player,
            games: selfplay.games,
            candidate: candidate.as_ref().map(|c| c.network.display().to_string()),
            promoted: gate.map(StageResult::promotes),
            gate_elo: gate.map(|r| r.elo),
            gate_elo_ci95: gate.map(|r| r.elo_ci95),
            gate_llr: gate.and_then(|r| r.llr),
            gate_nelo: gate.and_then(|r| r.nelo),
            gate_nelo_ci95: gate.and_then(|r| r.nelo_ci95),
            elo_vs_gen0: gen0.map(|a| a.elo),
            elo_vs_gen0_ci95: gen0.map(|a| a.elo_ci95),
            elo_vs_anchors: candidate.map_or(Vec::new(), |c| c.anchors),
            start,
            accuracy,
            labels,
            errors,
        }
    }

    /// The row as the report renders it.
    fn report_row(&self) -> PipelineRow<'_> {
        PipelineRow {
            generation: self.generation,
            selfplay_player: &self.selfplay_player,
            games: self.games,
            promoted: self.promoted,
            gate_elo: self.gate_elo,
            gate_elo_ci95: self.gate_elo_ci95,
            gate_nelo: self.gate_nelo,
            gate_nelo_ci95: self.gate_nelo_ci95,
            anchors: &self.elo_vs_anchors,
            start: self.start.as_ref(),
            accuracy: self.accuracy.as_ref().map(|a| (a.pieces, a.all.text())),
            labelled: self.labels.map(|r| (r.exact, r.positions)),
            errors: self.errors.as_ref(),
        }
    }
}

/// Writes `summary.json`, `summary.md` and `elo.svg` (each atomically).
pub(crate) fn write_summary(
    out: &Path,
    config: &PipelineConfig,
    rows: &[GenerationSummary],
) -> Result<(), PipelineError> {
    write_json(&out.join("summary.json"), &rows)?;
    let summary = PipelineSummary {
        gate: config.gate.conditions(),
        evaluation: config.evaluation.conditions(),
        rows: rows.iter().map(GenerationSummary::report_row).collect(),
    };
    summary.write(out)?;
    Ok(())
}
