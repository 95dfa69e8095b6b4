//! The positions an atlas run searched and left open, with the budget each
//! was given: a log a rerun reads so that it does not spend the same budget
//! on them again (a `--retry` pass over thousands of bounds takes hours,
//! and is stopped and resumed; without the log every resumption would
//! search again, from the first, every position the last one failed on).
//!
//! The file is text, one line a search: the position's key in hex, its
//! budget (`ms:20000` or `nodes:100000`) and the memory its graph was
//! allowed (`mib:3000`; a search stops when its graph fills it, whatever
//! time is left, so a larger `--hash` is a larger budget too). A line
//! without `mib:` (written before the memory was logged) covers a search
//! of any memory. It is appended to, a line at a time, as the searches
//! end: a kill loses at most the line being written, and a last line
//! without its newline (cut by the kill) is ignored when read back. It is
//! a few tens of KB for the atlas, small enough to commit beside the tree
//! store and carry to another machine.

use std::collections::HashMap;
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use alq_solver::Budget;
use thiserror::Error;

/// What one search was allowed: milliseconds, or expanded positions. Two
/// budgets compare only when of one kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Spent {
    Millis(u64),
    Nodes(u64),
}

impl Spent {
    /// A search's budget as the log records it: its time when it has one,
    /// else its nodes (`None`: a budget of memory only, never recorded).
    pub fn of(budget: &Budget) -> Option<Spent> {
        match (budget.time, budget.nodes) {
            (Some(t), _) => Some(Spent::Millis(t.as_millis().try_into().unwrap_or(u64::MAX))),
            (None, Some(n)) => Some(Spent::Nodes(n)),
            (None, None) => None,
        }
    }

    /// Whether a search with this budget was given at least `other`.
    fn covers(self, other: Spent) -> bool {
        match (self, other) {
            (Spent::Millis(a), Spent::Millis(b)) | (Spent::Nodes(a), Spent::Nodes(b)) => a >= b,
            _ => false,
        }
    }

    fn parse(text: &str) -> Option<Spent> {
        let (kind, n) = text.split_once(':')?;
        let n = n.parse().ok()?;
        match kind {
            "ms" => Some(Spent::Millis(n)),
            "nodes" => Some(Spent::Nodes(n)),
            _ => None,
        }
    }
}

impl std::fmt::Display for Spent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Spent::Millis(n) => write!(f, "ms:{n}"),
            Spent::Nodes(n) => write!(f, "nodes:{n}"),
        }
    }
}

/// Why a log could not be read or written.
#[derive(Debug, Error)]
pub enum TriedError {
    #[error("{}: {source}", path.display())]
    Io { path: PathBuf, source: std::io::Error },
    #[error("{}, line {line}: {text:?} is not `KEY BUDGET [mib:M]` (a hex key, then ms:N or nodes:N, then the memory in MiB)", path.display())]
    Line { path: PathBuf, line: usize, text: String },
}

/// One search left open: its budget and its graph's memory in MiB (`None`:
/// not logged, taken to cover any memory).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Tried {
    spent: Spent,
    mib: Option<u64>,
}

impl Tried {
    fn of(budget: &Budget) -> Option<Tried> {
        let mib = u64::try_from(budget.memory_bytes >> 20).unwrap_or(u64::MAX);
        Some(Tried { spent: Spent::of(budget)?, mib: Some(mib) })
    }

    /// Whether this search was given at least what `other` would be.
    fn covers(self, other: Tried) -> bool {
        self.spent.covers(other.spent) && self.mib.is_none_or(|m| other.mib.is_some_and(|o| m >= o))
    }

    fn parse(text: &str) -> Option<Tried> {
        let mut fields = text.split_whitespace();
        let spent = Spent::parse(fields.next()?)?;
        let mib = match fields.next() {
            None => None,
            Some(f) => Some(f.strip_prefix("mib:")?.parse().ok()?),
        };
        fields.next().is_none().then_some(Tried { spent, mib })
    }
}

impl std::fmt::Display for Tried {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.mib {
            Some(mib) => write!(f, "{} mib:{mib}", self.spent),
            None => write!(f, "{}", self.spent),
        }
    }
}

/// The log: what it held when opened, and the file it appends to.
pub struct TriedLog {
    path: PathBuf,
    /// Per position, the searches it was left open by (none covering
    /// another).
    seen: Mutex<HashMap<u64, Vec<Tried>>>,
    file: Mutex<Option<File>>,
}

impl TriedLog {
    /// Reads the log at `path` if it exists (it is created at the first
    /// record).
    ///
    /// # Errors
    ///
    /// The file cannot be read, or holds a line that is not a record
    /// (other than a last line cut short).
    pub fn open(path: &Path) -> Result<TriedLog, TriedError> {
        let io = |source| TriedError::Io { path: path.to_path_buf(), source };
        let mut seen: HashMap<u64, Vec<Tried>> = HashMap::new();
        let text = match std::fs::read_to_string(path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
            Err(e) => return Err(io(e)),
        };
        let complete = text.ends_with('\n');
        let lines: Vec<&str> = text.lines().collect();
        for (i, line) in lines.iter().enumerate() {
            let record = line
                .split_once(' ')
                .and_then(|(key, tried)| Some((u64::from_str_radix(key, 16).ok()?, Tried::parse(tried)?)));
            match record {
                Some((key, tried)) => add(&mut seen, key, tried),
                // Written when a kill cut the last write short.
                None if i + 1 == lines.len() && !complete => {}
                None => return Err(TriedError::Line { path: path.to_path_buf(), line: i + 1, text: line.to_string() }),
            }
        }
        Ok(TriedLog { path: path.to_path_buf(), seen: Mutex::new(seen), file: Mutex::new(None) })
    }

    /// Whether `key` was searched with at least `budget` (its time or
    /// nodes, and its memory) and left open.
    pub fn covers(&self, key: u64, budget: &Budget) -> bool {
        let Some(want) = Tried::of(budget) else { return false };
        let seen = self.seen.lock().unwrap_or_else(|e| e.into_inner());
        seen.get(&key).is_some_and(|tried| tried.iter().any(|s| s.covers(want)))
    }

    /// Positions in the log.
    pub fn len(&self) -> usize {
        self.seen.lock().unwrap_or_else(|e| e.into_inner()).len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Appends that `key` was searched with `budget` (and its memory) and
    /// left open.
    ///
    /// # Errors
    ///
    /// The file cannot be opened or written.
    pub fn record(&self, key: u64, budget: &Budget) -> Result<(), TriedError> {
        let Some(tried) = Tried::of(budget) else { return Ok(()) };
        let io = |source| TriedError::Io { path: self.path.clone(), source };
        let mut file = self.file.lock().unwrap_or_else(|e| e.into_inner());
        if file.is_none() {
            if let Some(dir) = self.path.parent().filter(|d| !d.as_os_str().is_empty()) {
                std::fs::create_dir_all(dir).map_err(io)?;
            }
            // A last line a kill cut short is dropped first, so that the
            // new record starts a line of its own.
            alq_fs::truncate_partial_line(&self.path).map_err(io)?;
            let f = OpenOptions::new().create(true).append(true).open(&self.path).map_err(io)?;
            *file = Some(f);
        }
        let f = file.as_mut().expect("opened above");
        f.write_all(format!("{key:016x} {tried}\n").as_bytes()).map_err(io)?;
        f.flush().map_err(io)?;
        add(&mut self.seen.lock().unwrap_or_else(|e| e.into_inner()), key, tried);
        Ok(())
    }
}

fn add(seen: &mut HashMap<u64, Vec<Tried>>, key: u64, new: Tried) {
    let tried = seen.entry(key).or_default();
    if !tried.iter().any(|t| t.covers(new)) {
        tried.retain(|t| !new.covers(*t));
        tried.push(new);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn temp(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("alq-tried-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        dir.join("sub").join("atlas.tried")
    }

    #[test]
    fn a_budget_covers_smaller_ones_of_its_kind_only() {
        let path = temp("covers");
        let log = TriedLog::open(&path).unwrap();
        assert!(log.is_empty());
        let ms = |n| Budget::time(Duration::from_millis(n));
        log.record(7, &ms(20_000)).unwrap();
        log.record(7, &ms(4_000)).unwrap();
        log.record(9, &Budget::nodes(5_000)).unwrap();
        for log in [&log, &TriedLog::open(&path).unwrap()] {
            assert_eq!(log.len(), 2);
            assert!(log.covers(7, &ms(20_000)) && log.covers(7, &ms(4_000)));
            assert!(!log.covers(7, &ms(60_000)));
            assert!(!log.covers(7, &Budget::nodes(1)));
            assert!(log.covers(9, &Budget::nodes(5_000)) && !log.covers(9, &Budget::nodes(5_001)));
            assert!(!log.covers(8, &ms(1)));
        }
    }

    #[test]
    fn a_cut_last_line_is_ignored_and_a_bad_line_refused() {
        let path = temp("cut");
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, "000000000000000a ms:4000\n00000000000000").unwrap();
        let log = TriedLog::open(&path).unwrap();
        assert_eq!(log.len(), 1);
        // The next record drops the cut line and starts a line of its own.
        log.record(11, &Budget::nodes(3)).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(text, "000000000000000a ms:4000\n000000000000000b nodes:3 mib:256\n");
        assert_eq!(TriedLog::open(&path).unwrap().len(), 2);
        std::fs::write(&path, "000000000000000a ms:4000\nzz ms:1\n000000000000000b ms:1\n").unwrap();
        let err = TriedLog::open(&path).err().expect("a bad line");
        assert!(err.to_string().contains("line 2"), "{err}");
        for bad in ["ms:1 mib:x", "ms:1 hash:3", "ms:1 mib:3 more"] {
            std::fs::write(&path, format!("000000000000000a {bad}\n000000000000000b ms:1\n")).unwrap();
            let err = TriedLog::open(&path).err().unwrap_or_else(|| panic!("{bad} read"));
            assert!(err.to_string().contains("line 1"), "{err}");
        }
    }

    #[test]
    fn a_search_with_more_memory_is_not_covered() {
        let path = temp("memory");
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        // Position 1 logged before the memory was (any memory covered);
        // position 2 at 3,000 MiB.
        std::fs::write(&path, "0000000000000001 ms:600000\n0000000000000002 ms:600000 mib:3000\n").unwrap();
        let log = TriedLog::open(&path).unwrap();
        let at = |ms, mib| Budget::limits(None, Some(ms), mib);
        assert!(log.covers(1, &at(600_000, 100_000)));
        assert!(log.covers(2, &at(600_000, 3000)) && log.covers(2, &at(1000, 100)));
        assert!(!log.covers(2, &at(600_000, 3001)), "more memory is a larger budget");
        assert!(!log.covers(2, &at(600_001, 3000)));
        // A longer search with less memory covers neither way: both kept.
        log.record(2, &at(2_400_000, 1000)).unwrap();
        assert!(log.covers(2, &at(2_400_000, 1000)) && log.covers(2, &at(600_000, 3000)));
        assert!(!log.covers(2, &at(2_400_000, 3000)));
        // One that covers both replaces them.
        log.record(2, &at(2_400_000, 4000)).unwrap();
        for log in [&log, &TriedLog::open(&path).unwrap()] {
            assert_eq!(log.seen.lock().unwrap()[&2], [Tried { spent: Spent::Millis(2_400_000), mib: Some(4000) }]);
            assert!(!log.covers(2, &at(2_400_000, 4001)));
        }
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(
            text.ends_with("0000000000000002 ms:2400000 mib:1000\n0000000000000002 ms:2400000 mib:4000\n"),
            "{text}"
        );
    }
}
