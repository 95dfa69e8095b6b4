//! Deeper training targets: re-searching a sample of the positions of
//! recorded games with a stronger (usually longer) search and writing the
//! games again with those scores in place of the self-play scores.
//!
//! Self-play searches every move with the same small budget, so its scores
//! are shallow. A rescored file holds the same games (moves, results and
//! every other column unchanged) where each sampled position's score is the
//! deeper search's, mover's view as always; training blends it with the
//! result like any score. Which positions are sampled depends only on the
//! seed, the game id and the ply, and each game is searched by a freshly
//! built player, so a run is reproducible whatever the thread count.
//!
//! Output is appended game by game in the input's order; an interrupted run
//! resumes after the games already written.

use std::path::{Path, PathBuf};

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use alq_engine::{fnv1a64, Game, RuleSet};
use alq_records::{format_score, write_atomic, RecordReader, RecordWriter, ReplayedGame};

use crate::generate::SelfplayError;
use alq_play::players::{PlayerKind, PlayerSpec};

/// What a rescoring run does; written to `rescore.toml` beside its output.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RescoreConfig {
    /// The searching player, with its limits (e.g. `nn@nodes=8000`).
    pub player: String,
    /// Share of the scored positions to re-search, in (0, 1].
    pub fraction: f64,
    pub seed: u64,
    pub rules: RuleSet,
    /// The games files read, in order.
    pub inputs: Vec<String>,
}

impl RescoreConfig {
    pub fn validate(&self) -> Result<(), alq_records::ConfigError> {
        if !(self.fraction > 0.0 && self.fraction <= 1.0) {
            return Err(alq_records::ConfigError::new("fraction", format!("{} is not in (0, 1]", self.fraction)));
        }
        if self.inputs.is_empty() {
            return Err(alq_records::ConfigError::new("inputs", "no games files to rescore"));
        }
        Ok(())
    }
}

/// Figures of a finished run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RescoreSummary {
    /// Games in the output (those of an earlier, interrupted call included).
    pub games: u64,
    /// Positions re-searched by this call.
    pub searched: u64,
    /// Games this call found already written and skipped.
    pub resumed: u64,
}

/// The rows of a games file, read without replaying them.
fn count_records(path: &Path) -> Result<u64, SelfplayError> {
    let mut reader = RecordReader::open(path)?;
    let mut n = 0;
    while let Some(row) = reader.next_record() {
        row?;
        n += 1;
    }
    Ok(n)
}

/// Whether the position after `ply` plies of game `id` is re-searched.
pub fn is_sampled(seed: u64, id: u64, ply: usize, fraction: f64) -> bool {
    if fraction >= 1.0 {
        return true;
    }
    let h = fnv1a64(format!("rescore:{seed}:{id}:{ply}").as_bytes());
    ((h >> 11) as f64 / (1u64 << 53) as f64) < fraction
}

/// The record of `game` with the sampled positions' scores replaced by
/// `spec`'s search, and how many were searched. Only positions that have a
/// score (moves chosen by search, not random or book moves) and where the
/// side to move need not capture (training leaves those out by default) are
/// sampled.
pub fn rescore_game(
    game: &ReplayedGame,
    spec: &PlayerSpec,
    fraction: f64,
    seed: u64,
) -> (alq_records::GameRecord, u64) {
    let mut player = spec.build();
    let mut rng = ChaCha8Rng::seed_from_u64(seed ^ game.record.id);
    let mut replay = Game::new(game.game.start(), game.game.config());
    let mut scores = game.scores.clone();
    let mut searched = 0;
    for (ply, &mv) in game.game.moves().iter().enumerate() {
        if scores.get(ply).is_some_and(|s| s.is_some())
            && is_sampled(seed, game.record.id, ply, fraction)
            && !replay.position().has_capture(replay.rules().rules())
        {
            if let Some(choice) = player.choose(&replay, &mut rng) {
                if choice.score.is_some() {
                    scores[ply] = choice.score;
                    searched += 1;
                }
            }
        }
        replay.play(mv).expect("a replayed game's moves are legal");
    }
    let mut record = game.record.clone();
    record.scores = scores.iter().map(|s| format_score(*s)).collect::<Vec<_>>().join(" ");
    (record, searched)
}

/// Rescores every game of `inputs` into `out` (a games file), with
/// `rescore.toml` beside it. With `resume`, keeps the games already in
/// `out` (they must be the inputs' first games) and continues after them.
/// `on_game(done, total)` reports progress.
pub fn run_rescore(
    config: &RescoreConfig,
    out: &Path,
    resume: bool,
    on_game: impl Fn(u64, u64) + Sync,
) -> Result<RescoreSummary, SelfplayError> {
    config.validate().map_err(|e| SelfplayError::Invalid(e.to_string()))?;
    let spec = PlayerSpec::parse(&config.player, alq_engine::Limits::default())?;
    if !matches!(spec.kind, PlayerKind::Search(_)) {
        return Err(SelfplayError::Invalid(format!(
            "{}: rescoring needs a searching player (hce, nn or a network file)",
            config.player
        )));
    }
    if spec.limits.movetime.is_some() {
        return Err(SelfplayError::Invalid(format!(
            "{}: give the player nodes or depth, not movetime (rescored scores must not depend on the machine)",
            config.player
        )));
    }
    spec.check_rules(config.rules)?;
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |error| SelfplayError::Io { path: path.clone(), error }
    };
    let info_path = out.with_file_name(format!(
        "{}.rescore.toml",
        out.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_else(|| "games".to_string())
    ));
    let inputs: Vec<PathBuf> = config.inputs.iter().map(PathBuf::from).collect();
    // Games already written by an interrupted run.
    let mut done = 0u64;
    let kind = alq_records::RunKind { what: "a rescoring run", may_change: "player, fraction, seed and inputs" };
    let occupied = out.exists() || info_path.exists();
    let resumed =
        alq_records::resume_run::<RescoreConfig>(out, &info_path, occupied, resume, kind, |old| old == config)?;
    if resumed.is_some() && out.exists() {
        alq_records::truncate_partial_row(out)?;
        done = count_records(out)?;
    }
    if let Some(dir) = out.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(io(dir))?;
    }
    write_atomic(&info_path, toml::to_string_pretty(config).expect("config serialises").as_bytes())
        .map_err(io(&info_path))?;

    let mut total = 0u64;
    for file in &inputs {
        total += count_records(file)?;
    }
    let resumed = done;
    let mut writer = RecordWriter::append(out)?;
    let mut searched = 0u64;
    let mut index = 0u64;
    // Chunks of games are searched in parallel and appended in order.
    const CHUNK: usize = 256;
    let mut chunk: Vec<ReplayedGame> = Vec::with_capacity(CHUNK);
    let mut flush = |chunk: &mut Vec<ReplayedGame>, done: &mut u64, searched: &mut u64| -> Result<(), SelfplayError> {
        let results: Vec<(alq_records::GameRecord, u64)> =
            chunk.par_iter().map(|g| rescore_game(g, &spec, config.fraction, config.seed)).collect();
        for (record, n) in results {
            writer.write(&record)?;
            *searched += n;
            *done += 1;
            on_game(*done, total);
        }
        chunk.clear();
        Ok(())
    };
    for file in &inputs {
        for game in RecordReader::open(file)?.expecting(config.rules) {
            let game = game?;
            index += 1;
            if index <= resumed {
                continue;
            }
            chunk.push(game);
            if chunk.len() == CHUNK {
                flush(&mut chunk, &mut done, &mut searched)?;
            }
        }
    }
    flush(&mut chunk, &mut done, &mut searched)?;
    writer.sync()?;
    if index < resumed {
        return Err(SelfplayError::Invalid(format!(
            "{} holds {resumed} games, more than the {index} of the inputs; it is not this run's",
            out.display()
        )));
    }
    Ok(RescoreSummary { games: done, searched, resumed })
}
