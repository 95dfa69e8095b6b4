//! The driver: every generation's stages in order, each returning its part
//! of the generation's summary row.

use std::path::{Path, PathBuf};

use crate::accuracy::measure_accuracy;
use crate::config::PipelineConfig;
use crate::error::{io, PipelineError};
use crate::errors::measure_errors;
use crate::event::PipelineEvent;
use crate::files::gen_dir;
use crate::label::label_generation;
use crate::matches::{gate, measure_anchors};
use crate::prepare::{check_before_any_game, open_run};
use crate::report::write_report;
use crate::selfplay::{rescore, selfplay};
use crate::start::measure_from_start;
use crate::summary::{write_summary, CandidateRow, GenerationSummary, Measured};
use crate::train::{best_player, promote, train_candidate};

/// The outcome of a run.
#[derive(Clone, Debug)]
pub struct PipelineOutcome {
    pub summary: Vec<GenerationSummary>,
    /// The best network (none when nothing was promoted: the handcrafted player).
    pub best: Option<PathBuf>,
}

/// Starts or resumes a run in `out`: writes `out/pipeline.toml` (refusing
/// one written with other settings, and any earlier run unless `resume`),
/// then every generation, `summary.json`/`summary.md` after each, and the
/// report at the end. Runs on the current rayon pool.
pub fn run_pipeline(
    config: &PipelineConfig,
    out: &Path,
    resume: bool,
    on_event: impl Fn(PipelineEvent) + Sync,
) -> Result<PipelineOutcome, PipelineError> {
    config.validate()?;
    let config = &config.resolved();
    let mut best = check_before_any_game(config, out)?;
    open_run(config, out, resume)?;
    let mut summary: Vec<GenerationSummary> = Vec::new();
    for g in 0..=config.generations {
        on_event(PipelineEvent::Generation { generation: g, last: config.generations });
        let dir = gen_dir(out, g);
        std::fs::create_dir_all(&dir).map_err(io(&dir))?;
        let candidate = if g > 0 { Some(candidate_stages(config, out, g, &mut best, &on_event)?) } else { None };
        let player = best_player(best.as_deref());
        let played = selfplay(config, &dir, &player, g, &on_event)?;
        rescore(config, &dir, &player, g, &on_event)?;
        let labels = label_generation(config, out, g, &on_event)?;
        let start = measure_from_start(config, &dir, &player, g, &on_event)?;
        let accuracy = measure_accuracy(config, &player, g, &on_event)?;
        let errors = measure_errors(config, &dir, &player, g, &on_event)?;
        let row = GenerationSummary::new(g, candidate, played, Measured { start, accuracy, labels, errors });
        summary.push(row.clone());
        write_summary(out, config, &summary)?;
        on_event(PipelineEvent::GenerationDone(Box::new(row)));
    }
    write_report(config, out, &on_event)?;
    Ok(PipelineOutcome { summary, best })
}

/// Generation `g`'s candidate: trained, gated against the best player so
/// far (and promoted over it, updating `best`, when the gate passes), and
/// measured against the anchors.
fn candidate_stages(
    config: &PipelineConfig,
    out: &Path,
    g: usize,
    best: &mut Option<PathBuf>,
    on_event: &(impl Fn(PipelineEvent) + Sync),
) -> Result<CandidateRow, PipelineError> {
    let dir = gen_dir(out, g);
    let network = train_candidate(config, out, g, best.as_deref(), on_event)?;
    let spec = network.display().to_string();
    let gate = gate(config, &dir, &spec, best.as_deref(), g, on_event)?;
    if gate.promotes() {
        *best = Some(promote(out, &network)?);
    }
    let anchors = measure_anchors(config, &dir, &spec, g, on_event)?;
    Ok(CandidateRow { network, gate, anchors })
}
