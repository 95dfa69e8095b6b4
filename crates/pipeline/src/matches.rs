//! The match stages: the candidate against the best player so far (the
//! gate) and against each fixed anchor, each saved in its own file
//! (`match.json`, `elo.json`, `elo-NAME.json`) and read back when resumed.

use std::path::Path;

use alq_engine::{GameConfig, RuleSet};
use alq_play::{run_match, MatchConfig, PlayerSpec};
use alq_report::pipeline::AnchorElo;
use alq_stats::Sprt;

use crate::config::{MatchStage, PipelineConfig};
use crate::error::PipelineError;
use crate::event::{PipelineEvent, Stage};
use crate::files::{read_json, write_json};
use crate::seeds::{seed, SeedUse};
use crate::summary::StageResult;
use crate::train::best_player;

/// Plays generation `g`'s candidate against the best player so far (`hce`
/// while nothing is promoted), or reads the saved gate back.
pub(crate) fn gate(
    config: &PipelineConfig,
    dir: &Path,
    candidate: &str,
    best: Option<&Path>,
    g: usize,
    on_event: &(impl Fn(PipelineEvent) + Sync),
) -> Result<StageResult, PipelineError> {
    let best = best_player(best);
    let seed = seed(config, SeedUse::Gate, g);
    saved_or_played(&dir.join("match.json"), || {
        play_stage(config.rules, &config.gate, candidate, &best, seed, Stage::Gating, on_event)
    })
}

/// Plays generation `g`'s candidate against every anchor (or reads the
/// saved matches back).
pub(crate) fn measure_anchors(
    config: &PipelineConfig,
    dir: &Path,
    candidate: &str,
    g: usize,
    on_event: &(impl Fn(PipelineEvent) + Sync),
) -> Result<Vec<AnchorElo>, PipelineError> {
    let mut measured = Vec::new();
    for (i, anchor) in config.anchors.iter().enumerate() {
        let path = if anchor == "hce" { dir.join("elo.json") } else { dir.join(format!("elo-{}.json", slug(anchor))) };
        let seed = seed(config, SeedUse::Anchor { index: i }, g);
        let eval = saved_or_played(&path, || {
            play_stage(config.rules, &config.evaluation, candidate, anchor, seed, Stage::Evaluating, on_event)
        })?;
        measured.push(AnchorElo {
            anchor: anchor.clone(),
            elo: eval.elo,
            elo_ci95: eval.elo_ci95,
            nelo: eval.nelo,
            nelo_ci95: eval.nelo_ci95,
        });
    }
    Ok(measured)
}

/// The stage result saved in `path`, or, when there is none, `play`'s,
/// saved there.
fn saved_or_played(
    path: &Path,
    play: impl FnOnce() -> Result<StageResult, PipelineError>,
) -> Result<StageResult, PipelineError> {
    if path.exists() {
        return read_json(path);
    }
    let result = play()?;
    write_json(path, &result)?;
    Ok(result)
}

/// A file-name-safe form of a player spec.
fn slug(spec: &str) -> String {
    let name = Path::new(spec).file_stem().map_or(spec.to_string(), |s| s.to_string_lossy().into_owned());
    name.chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '-' }).collect()
}

/// Plays one match stage: `a` against `b` at the stage's nodes over every
/// position `openings` plies deep.
fn play_stage(
    rules: RuleSet,
    stage: &MatchStage,
    a: &str,
    b: &str,
    seed: u64,
    which: Stage,
    on_event: &(impl Fn(PipelineEvent) + Sync),
) -> Result<StageResult, PipelineError> {
    let (limits, clock) = stage.limits()?;
    let sprt = if stage.sprt.trim().is_empty() {
        None
    } else {
        Some(Sprt::parse(&stage.sprt).map_err(|error| PipelineError::Sprt { error })?)
    };
    let config = MatchConfig {
        a: PlayerSpec::parse_with_clock(a, limits, clock)?,
        b: PlayerSpec::parse_with_clock(b, limits, clock)?,
        games: stage.games,
        openings: stage.opening_source(rules)?,
        seed,
        sprt,
        game: GameConfig { no_progress_limit: Some(60), max_plies: Some(400), rules },
        clock,
        time_margin: std::time::Duration::from_millis(500),
    };
    on_event(PipelineEvent::Stage { stage: which, total: stage.games, unit: "games" });
    let report = run_match(&config, |p| {
        let llr = p.sprt.map(|s| format!(", LLR {:.2}", s.llr)).unwrap_or_default();
        on_event(PipelineEvent::Progress { done: p.tally.games(), note: format!("Elo {:+.0}{llr}", p.tally.elo()) });
    })?;
    Ok(StageResult::of(&report))
}
