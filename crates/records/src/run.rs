//! Run folders: the guard every long job (self-play, rescoring, studies,
//! training, the pipeline) puts on its output. A job records its settings in
//! a TOML file beside its output; run again into the same place, it refuses
//! unless asked to resume, and resumes only with the same settings.

use std::path::{Path, PathBuf};

use serde::de::DeserializeOwned;

/// Why a job may not write where it was pointed.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// The place already holds a run and resuming was not asked for (the
    /// command line adds how to ask).
    #[error("{} already holds {what}", path.display())]
    Occupied { path: PathBuf, what: &'static str },
    /// The recorded settings differ from this run's.
    #[error("{} was written with other settings; a resumed run must use the same ({may_change})", path.display())]
    OtherSettings { path: PathBuf, may_change: &'static str },
    /// The recorded settings cannot be read.
    #[error("{}: {reason}", path.display())]
    Unreadable { path: PathBuf, reason: String },
}

/// What a job calls its run and which of its settings may change on resume.
#[derive(Clone, Copy, Debug)]
pub struct RunKind {
    /// "a self-play run", "a study", …
    pub what: &'static str,
    /// "only games and threads may change", …
    pub may_change: &'static str,
}

/// Guards a job's output: when `occupied` (the output `place` already holds
/// a run), refuses unless `resume`, then reads the settings recorded in
/// `settings` and refuses unless `same` accepts them. Returns the recorded
/// settings of the run being resumed, or `None` for a fresh run.
pub fn resume_run<T: DeserializeOwned>(
    place: &Path,
    settings: &Path,
    occupied: bool,
    resume: bool,
    kind: RunKind,
    same: impl FnOnce(&T) -> bool,
) -> Result<Option<T>, RunError> {
    if !occupied {
        return Ok(None);
    }
    if !resume {
        return Err(RunError::Occupied { path: place.to_path_buf(), what: kind.what });
    }
    let unreadable = |reason: String| RunError::Unreadable { path: settings.to_path_buf(), reason };
    let text = std::fs::read_to_string(settings).map_err(|e| unreadable(e.to_string()))?;
    let old: T = toml::from_str(&text).map_err(|e| unreadable(e.to_string()))?;
    if !same(&old) {
        return Err(RunError::OtherSettings { path: settings.to_path_buf(), may_change: kind.may_change });
    }
    Ok(Some(old))
}

/// A config value out of its range: the key (dotted for nested tables,
/// e.g. `train.epochs`) and what it must be.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{key}: {problem}")]
pub struct ConfigError {
    pub key: String,
    pub problem: String,
}

impl ConfigError {
    pub fn new(key: &str, problem: impl Into<String>) -> ConfigError {
        ConfigError { key: key.to_string(), problem: problem.into() }
    }

    /// The same error under a table: `epochs` becomes `train.epochs`.
    pub fn within(self, table: &str) -> ConfigError {
        ConfigError { key: format!("{table}.{}", self.key), ..self }
    }
}

/// One unit of a study's work: a rung of the ladder played from the start,
/// or from one of White's first moves. The study writes these; the report
/// reads the games they name.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct StudyRun {
    /// Index of the rung in the ladder.
    pub rung: usize,
    /// The player as the records name it, e.g. `nn:75069d390240bd9e@nodes=1000`.
    pub player: String,
    /// `random`, `greedy`, `hce`, `nn` (any network) for grouping.
    pub family: String,
    /// Nodes per move (none for random and greedy).
    pub nodes: Option<u64>,
    /// White's first move when it was fixed; none for games from the start.
    pub first_move: Option<String>,
    pub games: u64,
    /// The run's folder, relative to the study folder.
    pub dir: PathBuf,
}

impl StudyRun {
    /// The run's games file, under the study folder `study`.
    pub fn games_file(&self, study: &Path) -> PathBuf {
        study.join(&self.dir).join("games.csv")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const KIND: RunKind = RunKind { what: "a test run", may_change: "only n may change" };

    #[derive(serde::Deserialize, PartialEq, Debug)]
    struct Settings {
        seed: u64,
    }

    #[test]
    fn refuses_an_occupied_place_and_other_settings() {
        let dir = std::env::temp_dir().join(format!("alq-run-guard-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("run.toml");
        std::fs::write(&file, "seed = 7\n").unwrap();
        // Nothing there: a fresh run.
        assert!(resume_run::<Settings>(&dir, &file, false, false, KIND, |_| unreachable!()).unwrap().is_none());
        // Occupied without resume: refused, naming the place.
        let err = resume_run::<Settings>(&dir, &file, true, false, KIND, |_| true).unwrap_err();
        assert!(matches!(err, RunError::Occupied { .. }));
        assert!(err.to_string().contains("already holds a test run"), "{err}");
        // Resumed with the same settings: they come back.
        let old = resume_run::<Settings>(&dir, &file, true, true, KIND, |s| s.seed == 7).unwrap();
        assert_eq!(old, Some(Settings { seed: 7 }));
        // With other settings: refused, naming the file and what may change.
        let err = resume_run::<Settings>(&dir, &file, true, true, KIND, |s| s.seed == 8).unwrap_err();
        assert!(err.to_string().contains("other settings") && err.to_string().contains("only n may change"), "{err}");
        // A damaged settings file is named.
        std::fs::write(&file, "seed = \"x\"\n").unwrap();
        let err = resume_run::<Settings>(&dir, &file, true, true, KIND, |_| true).unwrap_err();
        assert!(matches!(err, RunError::Unreadable { .. }) && err.to_string().contains("run.toml"), "{err}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
