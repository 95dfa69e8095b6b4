//! What a run reports as it goes, for progress displays.

use crate::summary::GenerationSummary;

/// What the run is doing, for progress displays.
#[derive(Clone, Debug)]
pub enum PipelineEvent {
    /// Generation `generation` of `0..=last` begins.
    Generation { generation: usize, last: usize },
    /// A stage of the current generation begins; `total` is its unit count
    /// (samples, games) when known, and `unit` names it.
    Stage { stage: Stage, total: u64, unit: &'static str },
    /// Progress of the current stage: units done, and a short note (loss,
    /// Elo and LLR).
    Progress { done: u64, note: String },
    /// A training epoch begins (the stage's units restart).
    Epoch { epoch: usize, epochs: usize, samples: u64 },
    /// The generation's row is written to the summary.
    GenerationDone(Box<GenerationSummary>),
}

impl PipelineEvent {
    /// Units done, without a note.
    pub(crate) fn done(done: u64) -> PipelineEvent {
        PipelineEvent::Progress { done, note: String::new() }
    }
}

/// The stages of a generation, in order, then the final report.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    Training,
    Gating,
    Evaluating,
    Selfplay,
    Rescoring,
    Labelling,
    FromStart,
    Accuracy,
    /// Games of the best player for `[errors]`, then their grading.
    ErrorGames,
    Grading,
    Report,
}

impl Stage {
    pub fn describe(self) -> &'static str {
        match self {
            Stage::Training => "training",
            Stage::Gating => "gating",
            Stage::Evaluating => "measuring against generation 0",
            Stage::Selfplay => "self-play",
            Stage::Rescoring => "re-searching positions for deeper targets",
            Stage::Labelling => "valuing training positions exactly",
            Stage::FromStart => "measuring the best player from the start",
            Stage::Accuracy => "endgame accuracy",
            Stage::ErrorGames => "the best player's games for grading",
            Stage::Grading => "grading moves against perfect play",
            Stage::Report => "report",
        }
    }
}
