//! Reading and writing games files.

use std::fs::{File, OpenOptions};
use std::path::{Path, PathBuf};

use thiserror::Error;

use crate::record::{GameRecord, ReplayedGame};

/// The header of a games file, in order.
pub const COLUMNS: [&str; 19] = [
    "id",
    "seed",
    "rules",
    "start",
    "white",
    "black",
    "result",
    "termination",
    "plies",
    "opening_plies",
    "opening",
    "moves",
    "scores",
    "tb_ply",
    "tb_value",
    "fallback_plies",
    "no_progress",
    "max_plies",
    "format",
];

/// Columns added after format 1 (`opening` in 2, `tb_ply` and `tb_value`
/// in 3, `fallback_plies` in 4): files of older formats lack them.
const LATER_COLUMNS: [&str; 4] = ["opening", "tb_ply", "tb_value", "fallback_plies"];

/// A problem with a games file, naming the file and, where it applies, the line.
#[derive(Debug, Error)]
pub enum RecordError {
    #[error("{}: {error}", file.display())]
    Io { file: PathBuf, error: std::io::Error },
    #[error("{}:{line}: {problem}", file.display())]
    Bad { file: PathBuf, line: u64, problem: String },
}

/// Streams the games of one file, replaying and checking each; memory does
/// not grow with the file.
pub struct RecordReader {
    file: PathBuf,
    reader: csv::Reader<File>,
    /// A header problem, reported once as the first item.
    header_error: Option<RecordError>,
    /// Set after a header problem: the file yields nothing more.
    finished: bool,
    /// The rule set every game must have been played under, when checked.
    rules: Option<alq_engine::RuleSet>,
    /// The header row, read once.
    headers: Option<csv::StringRecord>,
}

impl RecordReader {
    pub fn open(path: &Path) -> Result<RecordReader, RecordError> {
        let file = File::open(path).map_err(|error| RecordError::Io { file: path.to_path_buf(), error })?;
        let mut reader = csv::ReaderBuilder::new().has_headers(true).from_reader(file);
        let header_error = match reader.headers() {
            Err(e) => Some(RecordError::Bad { file: path.to_path_buf(), line: 1, problem: format!("header: {e}") }),
            Ok(h) => {
                let found: Vec<&str> = h.iter().collect();
                // Columns that older formats lack.
                let missing: Vec<&str> =
                    COLUMNS.iter().copied().filter(|c| !LATER_COLUMNS.contains(c) && !found.contains(c)).collect();
                (!missing.is_empty()).then(|| RecordError::Bad {
                    file: path.to_path_buf(),
                    line: 1,
                    problem: format!("not a games file: missing column(s) {}", missing.join(", ")),
                })
            }
        };
        let headers = reader.headers().ok().cloned();
        Ok(RecordReader { file: path.to_path_buf(), reader, header_error, finished: false, rules: None, headers })
    }

    /// Refuses, as a bad row, every game played under other rules than
    /// `rules` (a command reads the records of its own rule set only).
    pub fn expecting(mut self, rules: alq_engine::RuleSet) -> RecordReader {
        self.rules = Some(rules);
        self
    }

    /// The next row as a record, without replaying it (for tools that only
    /// need the columns, such as merging).
    pub fn next_record(&mut self) -> Option<Result<(u64, GameRecord), RecordError>> {
        if self.finished {
            return None;
        }
        if let Some(e) = self.header_error.take() {
            self.finished = true;
            return Some(Err(e));
        }
        let mut row = csv::StringRecord::new();
        match self.reader.read_record(&mut row) {
            Ok(false) => None,
            Err(e) => {
                let line = e.position().map_or(0, |p| p.line());
                Some(Err(RecordError::Bad { file: self.file.clone(), line, problem: e.to_string() }))
            }
            Ok(true) => {
                let line = row.position().map_or(0, |p| p.line());
                Some(
                    row.deserialize::<GameRecord>(self.headers.as_ref())
                        .map(|r| (line, r))
                        .map_err(|e| RecordError::Bad { file: self.file.clone(), line, problem: e.to_string() }),
                )
            }
        }
    }
}

impl RecordReader {
    /// Up to `n` rows, unreplayed, with their line numbers (fewer at the end
    /// of the file; none after it): for readers that replay in parallel.
    pub fn read_chunk(&mut self, n: usize) -> Result<Vec<(u64, GameRecord)>, RecordError> {
        let mut chunk = Vec::with_capacity(n);
        while chunk.len() < n {
            match self.next_record() {
                Some(row) => chunk.push(row?),
                None => break,
            }
        }
        Ok(chunk)
    }

    /// The file being read.
    pub fn file(&self) -> &Path {
        &self.file
    }
}

/// Replays a row read by [`RecordReader::read_chunk`] (checking its rule
/// set when given), with an error naming the file, the line and the game,
/// as the reader's own iteration does: for readers replaying in parallel.
pub fn replay_row(
    file: &Path,
    line: u64,
    record: &GameRecord,
    rules: Option<alq_engine::RuleSet>,
) -> Result<ReplayedGame, RecordError> {
    let checked = match rules {
        Some(rules) => record.expect_rules(rules).and_then(|()| record.replay()),
        None => record.replay(),
    };
    checked.map_err(|problem| RecordError::Bad {
        file: file.to_path_buf(),
        line,
        problem: format!("game {}: {problem}", record.id),
    })
}

impl Iterator for RecordReader {
    type Item = Result<ReplayedGame, RecordError>;

    fn next(&mut self) -> Option<Self::Item> {
        let (line, record) = match self.next_record()? {
            Ok(x) => x,
            Err(e) => return Some(Err(e)),
        };
        Some(replay_row(&self.file, line, &record, self.rules))
    }
}

/// Reads and checks every game of `paths`. With `skip_bad`, bad rows are
/// counted and left out; otherwise the first one is the error.
pub fn read_all(paths: &[PathBuf], skip_bad: bool) -> Result<(Vec<ReplayedGame>, Vec<RecordError>), RecordError> {
    let mut games = Vec::new();
    let mut bad = Vec::new();
    for path in paths {
        for item in RecordReader::open(path)? {
            match item {
                Ok(g) => games.push(g),
                Err(e @ RecordError::Io { .. }) => return Err(e),
                Err(e) if skip_bad => bad.push(e),
                Err(e) => return Err(e),
            }
        }
    }
    Ok((games, bad))
}

/// Cuts a file that ends in the middle of a row (a write cut short by a
/// kill) back to its last complete row. A missing file is left missing.
pub fn truncate_partial_row(path: &Path) -> Result<(), RecordError> {
    alq_fs::truncate_partial_line(path).map_err(|error| RecordError::Io { file: path.to_path_buf(), error })
}

/// Writes a whole games file atomically (a temporary file, then a rename):
/// the header and `records` in order, exactly the file [`RecordWriter`]
/// would leave after appending them to a new file.
pub fn write_records_atomic(path: &Path, records: &[GameRecord]) -> Result<(), RecordError> {
    alq_fs::write_atomic_with(path, |out| {
        let mut writer = csv::WriterBuilder::new().has_headers(false).from_writer(out);
        writer.write_record(COLUMNS).map_err(std::io::Error::other)?;
        for r in records {
            writer.serialize(r).map_err(std::io::Error::other)?;
        }
        writer.flush()
    })
    .map_err(|error| RecordError::Io { file: path.to_path_buf(), error })
}

/// Appends games to a file, one flushed row at a time, so that a killed
/// process loses at most the row being written.
pub struct RecordWriter {
    file: PathBuf,
    writer: csv::Writer<File>,
}

impl RecordWriter {
    /// Opens `path` for appending, writing the header if the file is new or
    /// empty. A file that ends in the middle of a row (a write cut short) is
    /// cut back to its last complete row first.
    pub fn append(path: &Path) -> Result<RecordWriter, RecordError> {
        let io = |error| RecordError::Io { file: path.to_path_buf(), error };
        truncate_partial_row(path)?;
        let file = OpenOptions::new().create(true).append(true).open(path).map_err(io)?;
        let empty = file.metadata().map_err(io)?.len() == 0;
        if !empty {
            // Rows are written in the current column order: appending to a
            // file of another format would misalign them.
            let mut reader = csv::ReaderBuilder::new()
                .has_headers(true)
                .from_path(path)
                .map_err(|e| RecordError::Bad { file: path.to_path_buf(), line: 1, problem: e.to_string() })?;
            let header = reader.headers().map_err(|e| RecordError::Bad {
                file: path.to_path_buf(),
                line: 1,
                problem: e.to_string(),
            })?;
            if !header.iter().eq(COLUMNS.iter().copied()) {
                return Err(RecordError::Bad {
                    file: path.to_path_buf(),
                    line: 1,
                    problem: format!(
                        "cannot append: the file has another column layout (an older format?) than this program writes (format {})",
                        crate::FORMAT_VERSION
                    ),
                });
            }
        }
        let mut writer = csv::WriterBuilder::new().has_headers(false).from_writer(file);
        if empty {
            writer.write_record(COLUMNS).map_err(|e| RecordError::Bad {
                file: path.to_path_buf(),
                line: 1,
                problem: e.to_string(),
            })?;
            writer.flush().map_err(io)?;
        }
        Ok(RecordWriter { file: path.to_path_buf(), writer })
    }

    /// Appends one game and flushes it to the operating system.
    pub fn write(&mut self, record: &GameRecord) -> Result<(), RecordError> {
        self.writer.serialize(record).map_err(|e| RecordError::Bad {
            file: self.file.clone(),
            line: 0,
            problem: e.to_string(),
        })?;
        self.writer.flush().map_err(|error| RecordError::Io { file: self.file.clone(), error })
    }

    /// Flushes and syncs the file to disk.
    pub fn sync(&mut self) -> Result<(), RecordError> {
        self.writer.flush().map_err(|error| RecordError::Io { file: self.file.clone(), error })?;
        self.writer.get_ref().sync_all().map_err(|error| RecordError::Io { file: self.file.clone(), error })
    }
}

/// Writes a file atomically: a temporary file beside it, then a rename
/// (the workspace's one implementation, [`alq_fs::write_atomic`]).
pub use alq_fs::write_atomic;
