//! Why a pipeline run stopped. Other crates' errors are kept as they are:
//! as themselves where the message is theirs, or under the setting or file
//! they concern. A wrapped error is a field, not a `source`, so that a
//! message shown with its causes does not repeat it.

use std::path::{Path, PathBuf};

use thiserror::Error;

use alq_records::ConfigError;

/// Why a pipeline run stopped.
#[derive(Debug, Error)]
pub enum PipelineError {
    /// A setting out of its range (the message names the key).
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// A gate or evaluation stage with an odd number of games, or fewer
    /// than 2.
    #[error("{key}.games = {games} must be even and at least 2 (each opening is played with both colours)")]
    OddGames { key: String, games: u64 },
    /// A stage at fixed nodes that would play an opening more than once.
    #[error(
        "{key}.games = {games} plays {pairs} pairs, but its openings hold only {available}: \
         the players are deterministic at fixed nodes, so a repeated opening repeats its games \
         and overstates the precision; use at most {most} games or a larger book",
        pairs = .games / 2,
        most = 2 * .available
    )]
    RepeatedOpenings { key: String, games: u64, available: u64 },
    /// A stage's book that could not be read.
    #[error("book {name}: {error}")]
    Book { name: String, error: Box<alq_play::openings::BookError> },
    /// A stage's `sprt` that could not be read.
    #[error("sprt: {error}")]
    Sprt { error: alq_stats::SprtError },
    /// `[train] init` cannot start a candidate.
    #[error("[train] {error}")]
    TrainInit { error: alq_train::TrainError },
    #[error("start_network: {0}")]
    StartNetwork(Box<StartNetworkError>),
    #[error("[accuracy]: {0}")]
    Accuracy(Box<AccuracyError>),
    /// The `[label]` stage's tables or oracle (a table that cannot be read,
    /// a store that cannot be read or written).
    #[error("[label]: {0}")]
    Label(String),
    /// The `[errors]` stage's tables or grading.
    #[error("[errors]: {0}")]
    Errors(String),
    /// A stage result (`match.json`, `elo.json`) that could not be read back.
    #[error("{}: {error}", path.display())]
    Json { path: PathBuf, error: serde_json::Error },
    #[error("{}: {error}", path.display())]
    Io { path: PathBuf, error: std::io::Error },
    #[error(transparent)]
    Selfplay(#[from] alq_selfplay::SelfplayError),
    #[error(transparent)]
    Spec(#[from] alq_play::SpecError),
    #[error(transparent)]
    Match(#[from] alq_play::MatchError),
    #[error(transparent)]
    Train(#[from] alq_train::TrainError),
    #[error(transparent)]
    Records(#[from] alq_records::RecordError),
    /// The output holds a run that may not be continued.
    #[error(transparent)]
    Run(#[from] alq_records::RunError),
    #[error(transparent)]
    Report(#[from] alq_report::ReportError),
}

/// Why `start_network` cannot start the run.
#[derive(Debug, Error)]
pub enum StartNetworkError {
    #[error(transparent)]
    Spec(#[from] alq_play::SpecError),
    #[error("{0:?} is not a network file (.alqnet)")]
    NotANetwork(String),
    /// Trained for other rules than the run's.
    #[error(transparent)]
    Rules(#[from] alq_play::SetupError),
    /// With `warm_start`, its shape does not suit `[train] hidden`.
    #[error("with warm_start, [train] hidden: {error}")]
    Shape { error: alq_train::TrainError },
}

/// Why the endgame accuracy cannot be measured.
#[derive(Debug, Error)]
pub enum AccuracyError {
    /// The judging tables cannot be opened, or are for other rules.
    #[error(transparent)]
    Tables(#[from] alq_play::SetupError),
    /// The measurement refused (what `alq_selfplay::accuracy::measure` said).
    #[error("{0}")]
    Measure(String),
}

impl PipelineError {
    /// The run-folder refusal behind this error, if it is one (its own, or
    /// a self-play or training stage's).
    pub fn run_error(&self) -> Option<&alq_records::RunError> {
        match self {
            PipelineError::Run(e) => Some(e),
            PipelineError::Selfplay(e) => e.run_error(),
            PipelineError::Train(e) => e.run_error(),
            _ => None,
        }
    }
}

/// Wraps an IO error with the path it concerns.
pub(crate) fn io(path: &Path) -> impl Fn(std::io::Error) -> PipelineError + '_ {
    move |error| PipelineError::Io { path: path.to_path_buf(), error }
}
