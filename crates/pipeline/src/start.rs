//! The best player measured from the standard start, as a rung of
//! `alq study` is, into `gen-NNN/start`.

use std::path::Path;

use alq_report::pipeline::StartResult;
use alq_selfplay::{run_selfplay, OpeningConfig, SelfplayConfig, Shard};

use crate::config::PipelineConfig;
use crate::error::PipelineError;
use crate::event::{PipelineEvent, Stage};
use crate::seeds::{seed, SeedUse};

/// With `[start] games`, plays (or resumes) `player`'s games from the start
/// into `dir/start` and counts them.
pub(crate) fn measure_from_start(
    config: &PipelineConfig,
    dir: &Path,
    player: &str,
    g: usize,
    on_event: &(impl Fn(PipelineEvent) + Sync),
) -> Result<Option<StartResult>, PipelineError> {
    let stage = &config.start;
    if stage.games == 0 {
        return Ok(None);
    }
    let sc = SelfplayConfig {
        rules: config.rules,
        games: stage.games,
        threads: 0,
        player: player.to_string(),
        nodes: stage.nodes.max(1),
        depth: 0,
        seed: seed(config, SeedUse::FromStart, g),
        no_progress: 60,
        max_plies: stage.max_plies,
        tablebase: config.selfplay.tablebase.clone(),
        opening: OpeningConfig::near_best(stage.near_best_plies, stage.near_best_cp),
    };
    on_event(PipelineEvent::Stage { stage: Stage::FromStart, total: stage.games, unit: "games" });
    let out = dir.join("start");
    run_selfplay(&sc, &out, Shard::WHOLE, true, |d| on_event(PipelineEvent::done(d.done)))?;
    let c = alq_report::collect(&[out.join("games.csv")], config.rules, 1, |_| {})?.searched.total;
    Ok(Some(StartResult {
        player: sc.player_spec()?.to_string(),
        games: c.games,
        white_wins: c.white_wins,
        draws: c.draws,
        black_wins: c.black_wins,
        unfinished: c.unfinished,
        white_score: c.white_score(),
        white_score_ci95: c.rates().white_score.ci95,
    }))
}
