//! The best player measured on endgames judged by tables (`alq tb
//! accuracy`), when the run names them.

use alq_engine::Limits;
use alq_play::{PlayerSpec, TablesSpec};
use alq_selfplay::AccuracyReport;

use crate::config::PipelineConfig;
use crate::error::{AccuracyError, PipelineError};
use crate::event::{PipelineEvent, Stage};
use crate::seeds::{seed, SeedUse};

/// With `[accuracy] tablebase`, measures `player` on random endgames judged
/// by those tables.
pub(crate) fn measure_accuracy(
    config: &PipelineConfig,
    player: &str,
    g: usize,
    on_event: &(impl Fn(PipelineEvent) + Sync),
) -> Result<Option<AccuracyReport>, PipelineError> {
    let a = &config.accuracy;
    if a.tablebase.trim().is_empty() {
        return Ok(None);
    }
    on_event(PipelineEvent::Stage { stage: Stage::Accuracy, total: a.positions, unit: "positions" });
    let judge = TablesSpec::open(a.tablebase.trim()).map_err(accuracy_error)?;
    judge.check_rules(config.rules).map_err(accuracy_error)?;
    let spec = PlayerSpec::parse(player, Limits::nodes(a.nodes.max(1)))?;
    let seed = seed(config, SeedUse::Accuracy, g);
    let report = alq_selfplay::accuracy::measure(&spec, judge.tables.as_ref(), a.pieces, a.positions as usize, seed)
        .map_err(|e| PipelineError::Accuracy(Box::new(AccuracyError::Measure(e))))?;
    Ok(Some(report))
}

fn accuracy_error(e: alq_play::SetupError) -> PipelineError {
    PipelineError::Accuracy(Box::new(AccuracyError::Tables(e)))
}
