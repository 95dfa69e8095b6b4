//! What can go wrong in training.

use std::path::PathBuf;

use thiserror::Error;

use alq_records::RecordError;

/// Why a training run failed.
#[derive(Debug, Error)]
pub enum TrainError {
    #[error(transparent)]
    Records(#[from] RecordError),
    #[error("{}: {error}", path.display())]
    Io { path: PathBuf, error: std::io::Error },
    #[error("config: {0}")]
    Config(String),
    #[error("{0}")]
    Invalid(String),
    #[error("checkpoint {}: {error}", path.display())]
    Checkpoint { path: PathBuf, error: String },
    /// The output holds a run that may not be continued.
    #[error(transparent)]
    Run(#[from] alq_records::RunError),
}

impl TrainError {
    /// The run-folder refusal behind this error, if it is one.
    pub fn run_error(&self) -> Option<&alq_records::RunError> {
        match self {
            TrainError::Run(e) => Some(e),
            _ => None,
        }
    }
}
