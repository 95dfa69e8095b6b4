//! The solver's error type.

use std::path::{Path, PathBuf};

use alq_engine::{Position, RuleSet};
use alq_tablebase::TbError;
use thiserror::Error;

/// Errors of the solver. File errors name the file.
#[derive(Debug, Error)]
pub enum SolveError {
    #[error(transparent)]
    Tablebase(#[from] TbError),
    #[error("{}: {source}", path.display())]
    Io { path: PathBuf, source: std::io::Error },
    #[error("{}: not a solver state file: {reason}", path.display())]
    BadFile { path: PathBuf, reason: String },
    #[error("{}: not a proven-position store: {reason}", path.display())]
    BadStore { path: PathBuf, reason: String },
    #[error("{}: not a valid certificate: {reason}", path.display())]
    BadCertificate { path: PathBuf, reason: String },
    /// A certificate that reads but does not prove its goal.
    #[error("{}: the certificate does not hold: {fault}", path.display())]
    CertificateFails { path: PathBuf, fault: crate::CheckError },
    /// A saved search that does not belong to the search asked for.
    #[error("the saved search does not match: {0}")]
    StateMismatch(String),
    /// Stores of two rule sets cannot be merged.
    #[error("a store under the {from} rules cannot merge into one under {into}")]
    StoreRules { from: RuleSet, into: RuleSet },
    /// Two stores (or a store and a solver) answer a question both ways.
    #[error("contradictory answers for {position}")]
    Contradiction { position: Position },
    /// Sub-proofs of a deepened certificate that cannot be joined.
    #[error("deepening: {0}")]
    Deepen(String),
}

impl SolveError {
    /// The [`SolveError::Io`] of an error on `path`, for `map_err`.
    pub(crate) fn io(path: &Path) -> impl Fn(std::io::Error) -> SolveError + Copy + '_ {
        move |source| SolveError::Io { path: path.to_path_buf(), source }
    }
}
