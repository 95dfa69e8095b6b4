//! The run folder: where each generation's files are, and the stage
//! results saved there as JSON.

use std::path::{Path, PathBuf};

use serde::Serialize;

use alq_records::write_atomic;

use crate::error::{io, PipelineError};

/// The folder of generation `g`.
pub fn gen_dir(out: &Path, g: usize) -> PathBuf {
    out.join(format!("gen-{g:03}"))
}

pub(crate) fn read_json<T: serde::de::DeserializeOwned>(path: &Path) -> Result<T, PipelineError> {
    let text = std::fs::read_to_string(path).map_err(io(path))?;
    serde_json::from_str(&text).map_err(|error| PipelineError::Json { path: path.to_path_buf(), error })
}

/// Writes `value` as pretty JSON, atomically.
pub(crate) fn write_json<T: Serialize>(path: &Path, value: &T) -> Result<(), PipelineError> {
    let text = serde_json::to_string_pretty(value).expect("stage results serialise") + "\n";
    write_atomic(path, text.as_bytes()).map_err(io(path))
}
