//! What can go wrong with tablebase files and requests.

use std::path::PathBuf;

use thiserror::Error;

use crate::index::Material;

/// Errors of the tablebase library. File errors name the file.
#[derive(Debug, Error)]
pub enum TbError {
    #[error("{}: {source}", path.display())]
    Io { path: PathBuf, source: std::io::Error },
    #[error("{}: not a tablebase file (bad magic number)", path.display())]
    BadMagic { path: PathBuf },
    #[error("{}: format version {found}, this program reads versions 1 to {expected}", path.display())]
    Version { path: PathBuf, found: u32, expected: u32 },
    #[error("{}: built for the rules {found:?}, expected {expected:?}", path.display())]
    Rules { path: PathBuf, found: String, expected: String },
    #[error("{}: holds material class {found}, expected {expected}", path.display())]
    Material { path: PathBuf, found: String, expected: Material },
    #[error("{}: index scheme {found}, expected scheme {expected} for its format version", path.display())]
    IndexScheme { path: PathBuf, found: u8, expected: u8 },
    #[error("{}: value encoding {found}, expected encoding {expected} (1: distance, 2: win/draw/loss, 3: distance to progress) for its name and version", path.display())]
    ValueEncoding { path: PathBuf, found: u8, expected: u8 },
    #[error("{}: truncated or too long: {found} bytes, expected {expected}", path.display())]
    Length { path: PathBuf, found: u64, expected: u64 },
    #[error("{}: checksum mismatch (the file is damaged)", path.display())]
    Checksum { path: PathBuf },
    #[error("{}: missing; the tablebase in {} does not cover material {material}", path.display(), dir.display())]
    Missing { path: PathBuf, dir: PathBuf, material: Material },
    #[error("the position has {pieces} pieces; the tablebase's {kind} values cover at most {max}")]
    NotCovered { pieces: u32, max: u32, kind: crate::value::Kind },
    #[error("no complete tablebase in {}: {reason}", dir.display())]
    Empty { dir: PathBuf, reason: String },
    #[error("material {material}: a distance exceeds {max} plies, more than value encoding 1 holds")]
    DistanceOverflow { material: Material, max: u32 },
    #[error("bad shard {text:?}: expected I/K with 0 <= I < K, e.g. 0/3")]
    Shard { text: String },
    #[error("unknown solver {text:?}: slices (the default; passes for rules where pieces step back) or passes")]
    Solver { text: String },
    #[error("{0}")]
    Unsupported(String),
    #[error("{}: inconsistent value at {position}: stored {stored}, its successors give {expected}", path.display())]
    Inconsistent { path: PathBuf, position: String, stored: String, expected: String },
}

impl TbError {
    pub(crate) fn io(path: impl Into<PathBuf>) -> impl FnOnce(std::io::Error) -> TbError {
        let path = path.into();
        move |source| TbError::Io { path, source }
    }
}
