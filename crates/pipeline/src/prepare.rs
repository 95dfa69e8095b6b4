//! Before any game: the settings, the gate's and evaluation's openings, the
//! first candidate's starting network and the start network are checked,
//! then the run folder is claimed (or resumed) and its settings written.

use std::path::{Path, PathBuf};

use alq_records::{resume_run, write_atomic, RunKind};
use alq_train::TrainConfig;

use crate::config::PipelineConfig;
use crate::error::{io, PipelineError, StartNetworkError};
use crate::files::gen_dir;

/// Refuses, before any game, a run that would stop on its settings later;
/// returns the best player it starts with (the start network, if any).
pub(crate) fn check_before_any_game(config: &PipelineConfig, out: &Path) -> Result<Option<PathBuf>, PipelineError> {
    // Gate and evaluation are played from generation 1 on.
    if config.generations > 0 {
        config.gate.check_openings("gate", config.rules)?;
        if !config.anchors.is_empty() {
            config.evaluation.check_openings("evaluation", config.rules)?;
        }
    }
    // `[errors]`: its tables and book, read now rather than after the first
    // self-play.
    if config.errors.games > 0 {
        crate::errors::grading_tables(config)?;
        if !config.errors.book.trim().is_empty() {
            let book = crate::config::MatchStage { book: config.errors.book.clone(), ..Default::default() };
            book.opening_source(config.rules)?;
        }
    }
    // The first candidate's starting network is checked now, not after
    // generation 0's self-play (unless that candidate exists already).
    let first_candidate_due = config.generations > 0 && !gen_dir(out, 1).join("candidate.alqnet").exists();
    // A bad `[train] init` is found now.
    if first_candidate_due {
        alq_train::initial_network(&config.train).map_err(|error| PipelineError::TrainInit { error })?;
    }
    match config.start_network.trim() {
        "" => Ok(None),
        start => check_start_network(config, start, first_candidate_due)
            .map(Some)
            .map_err(|e| PipelineError::StartNetwork(Box::new(e))),
    }
}

/// The start network, read and checked as any player's network is; with
/// `warm_start`, the first candidate (when due) trains from it, so its
/// shape must suit `[train]` (it may be narrower: it is then widened).
fn check_start_network(
    config: &PipelineConfig,
    start: &str,
    first_candidate_due: bool,
) -> Result<PathBuf, StartNetworkError> {
    let spec = alq_play::EvalSpec::parse(start)?;
    if !matches!(spec, alq_play::EvalSpec::Network(_)) || start == "nn" {
        return Err(StartNetworkError::NotANetwork(start.to_string()));
    }
    spec.check_rules(config.rules)?;
    if config.warm_start && first_candidate_due {
        let from_start = TrainConfig { init: start.to_string(), ..config.train.clone() };
        alq_train::initial_network(&from_start).map_err(|error| StartNetworkError::Shape { error })?;
    }
    Ok(PathBuf::from(start))
}

/// Claims `out` for the run, or continues the run there when `resume` and
/// its settings agree (only `generations` may change), and writes the
/// resolved settings to `out/pipeline.toml`.
pub(crate) fn open_run(config: &PipelineConfig, out: &Path, resume: bool) -> Result<(), PipelineError> {
    std::fs::create_dir_all(out).map_err(io(out))?;
    let resolved_path = out.join("pipeline.toml");
    let comparable = |c: &PipelineConfig| PipelineConfig { generations: 0, out: String::new(), ..c.clone() };
    let kind = RunKind { what: "a pipeline run", may_change: "config; only generations may change" };
    resume_run::<PipelineConfig>(out, &resolved_path, resolved_path.exists(), resume, kind, |old| {
        comparable(old) == comparable(config)
    })?;
    let text = toml::to_string_pretty(config).expect("the config serialises");
    write_atomic(&resolved_path, text.as_bytes()).map_err(io(&resolved_path))
}
