//! The best player graded against perfect play (`[errors]`): its games from
//! the standard start and from a book, into `gen-NNN/errors-start` and
//! `gen-NNN/errors-book`, every move graded as `alq accuracy` does, the
//! result in `gen-NNN/errors.json`.

use std::path::Path;

use rayon::prelude::*;

use alq_engine::{Hce, HceWeights};
use alq_oracle::Oracle;
use alq_play::{grade_game, GradeReport, GradedGame, ValueCache};
use alq_records::GameRecord;
use alq_report::pipeline::{ErrorRow, ErrorsResult};
use alq_selfplay::{run_selfplay, OpeningConfig, SelfplayConfig, Shard};
use alq_solver::Budget;

use crate::config::PipelineConfig;
use crate::error::PipelineError;
use crate::event::{PipelineEvent, Stage};
use crate::files::{read_json, write_json};
use crate::seeds::{seed, SeedUse};

/// With `[errors] games`, plays (or resumes) `player`'s games and grades
/// them; a finished measurement is read back from `dir/errors.json`.
pub(crate) fn measure_errors(
    config: &PipelineConfig,
    dir: &Path,
    player: &str,
    g: usize,
    on_event: &(impl Fn(PipelineEvent) + Sync),
) -> Result<Option<ErrorsResult>, PipelineError> {
    let stage = &config.errors;
    if stage.games == 0 {
        return Ok(None);
    }
    let done = dir.join("errors.json");
    if done.exists() {
        return read_json(&done).map(Some);
    }
    let tables = grading_tables(config)?;

    let from_start = OpeningConfig::near_best(stage.near_best_plies, stage.near_best_cp);
    let from_book = OpeningConfig { book: stage.book.trim().to_string(), ..OpeningConfig::near_best(0, 0) };
    let mut sources = vec![("start", from_start)];
    if !stage.book.trim().is_empty() {
        sources.push(("book", from_book));
    }
    let mut files = Vec::new();
    let mut spec = String::new();
    for (name, opening) in sources {
        let sc = SelfplayConfig {
            rules: config.rules,
            games: stage.games,
            threads: 0,
            player: player.to_string(),
            nodes: stage.nodes,
            depth: 0,
            seed: seed(config, SeedUse::Errors, g),
            no_progress: 60,
            max_plies: stage.max_plies,
            tablebase: String::new(),
            opening,
        };
        spec = sc.player_spec()?.to_string();
        on_event(PipelineEvent::Stage { stage: Stage::ErrorGames, total: stage.games, unit: "games" });
        let out = dir.join(format!("errors-{name}"));
        run_selfplay(&sc, &out, Shard::WHOLE, true, |d| on_event(PipelineEvent::done(d.done)))?;
        files.push((name, out.join("games.csv")));
    }

    let budget = Budget::limits(Some(stage.grade_nodes), None, stage.grade_hash);
    let mut result = ErrorsResult {
        player: spec,
        conditions: format!(
            "{} games at {} nodes a move, graded at {} nodes a position over {}",
            stage.games,
            stage.nodes,
            stage.grade_nodes,
            stage.tablebase.trim()
        ),
        start: None,
        book: None,
    };
    for (name, file) in files {
        let (games, _) = alq_records::read_all(std::slice::from_ref(&file), false)?;
        let records: Vec<GameRecord> = games.into_iter().map(|g| g.record).collect();
        on_event(PipelineEvent::Stage { stage: Stage::Grading, total: records.len() as u64, unit: "games" });
        let report = grade(config, &tables, &records, budget, on_event)?;
        let row = report.players.values().next().map(|p| ErrorRow {
            games: p.games,
            moves: p.counts.moves,
            unknown: p.counts.unknown,
            errors_per_game: p.errors_per_game,
            errors_per_game_ci95: p.errors_per_game_ci95,
            errors_at_least_per_game: p.errors_at_least_per_game,
            errors_at_least_per_game_ci95: p.errors_at_least_per_game_ci95,
        });
        match name {
            "start" => result.start = row,
            _ => result.book = row,
        }
    }
    write_json(&done, &result)?;
    Ok(Some(result))
}

/// The grading tables of `[errors]`, for the run's rules.
pub(crate) fn grading_tables(
    config: &PipelineConfig,
) -> Result<std::sync::Arc<alq_tablebase::Tablebase>, PipelineError> {
    let dir = config.errors.tablebase.trim();
    let failed = |e: &dyn std::fmt::Display| PipelineError::Errors(format!("tablebase {dir}: {e}"));
    let tables = alq_tablebase::Tablebase::shared(Path::new(dir)).map_err(|e| failed(&e))?;
    tables.expect_rules(config.rules).map_err(|e| failed(&e))?;
    Ok(tables)
}

/// Games a grading oracle grades in a row: fixed, so that what an oracle
/// has settled before a game (and so which moves stay unknown) does not
/// depend on the number of cores.
const GAMES_AN_ORACLE: usize = 25;

/// Grades `records` on every core: each run of [`GAMES_AN_ORACLE`] games
/// gets its own oracle (the tables, the shipped proofs, the handcrafted
/// evaluator guiding its searches); the report adds the games in the
/// records' order.
fn grade(
    config: &PipelineConfig,
    tables: &alq_tablebase::Tablebase,
    records: &[GameRecord],
    budget: Budget,
    on_event: &(impl Fn(PipelineEvent) + Sync),
) -> Result<GradeReport, PipelineError> {
    let failed = |e: &dyn std::fmt::Display| PipelineError::Errors(e.to_string());
    let done = std::sync::atomic::AtomicU64::new(0);
    let graded: Vec<Vec<GradedGame>> = records
        .par_chunks(GAMES_AN_ORACLE)
        .map(|chunk| {
            let oracle = Oracle::new(config.rules, Some(tables), Box::new(Hce::new(HceWeights::default())), budget);
            oracle.read_shipped().map_err(|e| failed(&e))?;
            let mut cache = ValueCache::default();
            chunk
                .iter()
                .map(|record| {
                    let game = grade_game(&oracle, &mut cache, record, budget).map_err(|e| failed(&e))?;
                    let n = done.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
                    on_event(PipelineEvent::done(n));
                    Ok(game)
                })
                .collect()
        })
        .collect::<Result<_, PipelineError>>()?;
    let mut report = GradeReport::default();
    for game in graded.iter().flatten() {
        report.add(game);
    }
    Ok(report)
}
