//! The best player's self-play of a generation, and the re-search of its
//! positions for deeper training targets.

use std::path::Path;

use alq_selfplay::{run_rescore, run_selfplay, RescoreConfig, SelfplayConfig, Shard};

use crate::config::PipelineConfig;
use crate::error::PipelineError;
use crate::event::{PipelineEvent, Stage};
use crate::seeds::{seed, SeedUse};
use crate::summary::SelfplayRow;

/// Plays (or resumes) generation `g`'s self-play with `player` into `dir`.
pub(crate) fn selfplay(
    config: &PipelineConfig,
    dir: &Path,
    player: &str,
    g: usize,
    on_event: &(impl Fn(PipelineEvent) + Sync),
) -> Result<SelfplayRow, PipelineError> {
    let sc = SelfplayConfig {
        player: player.to_string(),
        seed: seed(config, SeedUse::Selfplay, g),
        ..config.selfplay.clone()
    };
    on_event(PipelineEvent::Stage { stage: Stage::Selfplay, total: sc.games, unit: "games" });
    run_selfplay(&sc, dir, Shard::WHOLE, true, |d| on_event(PipelineEvent::done(d.done)))?;
    Ok(SelfplayRow { player: sc.player_spec()?.to_string(), games: sc.games })
}

/// With `[rescore]`, re-searches a share of generation `g`'s positions with
/// `player` at more nodes into the file candidates train on (or resumes).
pub(crate) fn rescore(
    config: &PipelineConfig,
    dir: &Path,
    player: &str,
    g: usize,
    on_event: &(impl Fn(PipelineEvent) + Sync),
) -> Result<(), PipelineError> {
    if config.rescore.nodes == 0 {
        return Ok(());
    }
    let rc = RescoreConfig {
        player: format!("{player}@nodes={}", config.rescore.nodes),
        fraction: config.rescore.fraction,
        seed: seed(config, SeedUse::Rescore, g),
        rules: config.rules,
        inputs: vec![dir.join("games.csv").display().to_string()],
    };
    on_event(PipelineEvent::Stage { stage: Stage::Rescoring, total: config.selfplay.games, unit: "games" });
    run_rescore(&rc, &dir.join(config.rescore.training_games()), true, |done, _| on_event(PipelineEvent::done(done)))?;
    Ok(())
}
