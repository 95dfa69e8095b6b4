//! Exact values for training: a generation's training positions valued by
//! the oracle (as `alq label`) into the store its candidates read.

use std::path::{Path, PathBuf};

use alq_engine::{Hce, HceWeights};
use alq_oracle::label::{label, LabelReport};
use alq_oracle::Oracle;
use alq_records::SampleOptions;
use alq_solver::Budget;

use crate::config::PipelineConfig;
use crate::error::PipelineError;
use crate::event::{PipelineEvent, Stage};
use crate::files::{gen_dir, read_json, write_json};

/// The store of generation `g`'s exact labels.
pub(crate) fn labels_store(out: &Path, g: usize) -> PathBuf {
    gen_dir(out, g).join("labels.store")
}

/// With `[label]`, values generation `g`'s training positions into its
/// labels store (resuming a stopped run; a finished one is read from
/// `labels.json`), over `[train] tablebase`.
pub(crate) fn label_generation(
    config: &PipelineConfig,
    out: &Path,
    g: usize,
    on_event: &(impl Fn(PipelineEvent) + Sync),
) -> Result<Option<LabelReport>, PipelineError> {
    let stage = &config.label;
    if !stage.on() {
        return Ok(None);
    }
    let dir = gen_dir(out, g);
    let done = dir.join("labels.json");
    if done.exists() {
        return read_json(&done).map(Some);
    }
    let options = SampleOptions {
        skip_opening: config.train.skip_opening,
        skip_forced_captures: config.train.skip_forced_captures,
        dedup: true,
    };
    let max_pieces = (stage.max_pieces > 0).then_some(stage.max_pieces);
    let files = [dir.join(config.rescore.training_games())];
    let positions = alq_records::sampled_positions(&files, config.rules, options, max_pieces)?;
    let failed = |e: &dyn std::fmt::Display| PipelineError::Label(e.to_string());
    let tables = config.train.tables().map_err(|e| failed(&format!("train.tablebase: {e}")))?;
    // `movetime` when set, else `nodes`.
    let budget = Budget::limits(
        (stage.movetime == 0).then_some(stage.nodes),
        (stage.movetime > 0).then_some(stage.movetime),
        stage.hash,
    );
    let store = labels_store(out, g);
    let oracles = (0..rayon::current_num_threads().max(1))
        .map(|_| {
            let mut oracle =
                Oracle::new(config.rules, tables.as_deref(), Box::new(Hce::new(HceWeights::default())), budget);
            oracle.use_store(&store).map_err(|e| failed(&e))?;
            Ok(oracle)
        })
        .collect::<Result<Vec<_>, PipelineError>>()?;
    on_event(PipelineEvent::Stage { stage: Stage::Labelling, total: positions.len() as u64, unit: "positions" });
    let report = label(&oracles, &store, &positions, budget, &|r: &LabelReport| {
        on_event(PipelineEvent::Progress { done: r.done, note: format!("{} exact", r.exact) });
    })
    .map_err(|e| failed(&e))?;
    drop(oracles);
    write_json(&done, &report)?;
    Ok(Some(report))
}
