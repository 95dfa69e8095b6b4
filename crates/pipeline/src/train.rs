//! Training a generation's candidate, and promoting it to best player.

use std::path::{Path, PathBuf};

use alq_records::write_atomic;
use alq_train::{train, Event, TrainConfig};

use crate::config::PipelineConfig;
use crate::error::{io, PipelineError};
use crate::event::{PipelineEvent, Stage};
use crate::files::gen_dir;
use crate::label::labels_store;
use crate::seeds::{seed, SeedUse};

/// Trains generation `g`'s candidate on the replay window (or finds it
/// trained), with its metrics beside it; with `warm_start`, from the weights
/// of `best`, the best network so far.
pub(crate) fn train_candidate(
    config: &PipelineConfig,
    out: &Path,
    g: usize,
    best: Option<&Path>,
    on_event: &(impl Fn(PipelineEvent) + Sync),
) -> Result<PathBuf, PipelineError> {
    let dir = gen_dir(out, g);
    let candidate = dir.join("candidate.alqnet");
    if candidate.exists() {
        return Ok(candidate);
    }
    let first = g.saturating_sub(config.replay_window);
    let data: Vec<PathBuf> = (first..g).map(|k| gen_dir(out, k).join(config.rescore.training_games())).collect();
    let train_dir = dir.join("train");
    let init = match best {
        Some(best) if config.warm_start => best.display().to_string(),
        _ => config.train.init.clone(),
    };
    // Each generation of the window that was labelled adds its store (none
    // is written when its searches settled nothing).
    let mut stores = config.train.stores.clone();
    if config.label.on() {
        let written = (first..g).map(|k| labels_store(out, k)).filter(|p| p.exists());
        stores.extend(written.map(|p| p.display().to_string()));
    }
    let tc = TrainConfig { seed: seed(config, SeedUse::Training, g), init, stores, ..config.train.clone() };
    on_event(PipelineEvent::Stage { stage: Stage::Training, total: 0, unit: "samples" });
    let mut total = 0;
    train(&tc, &data, &train_dir, train_dir.join("config.toml").exists(), |e| match e {
        Event::Counted { train_samples, .. } => total = train_samples,
        Event::EpochStart { epoch, epochs } => on_event(PipelineEvent::Epoch { epoch, epochs, samples: total }),
        Event::Batch { samples, loss } => {
            on_event(PipelineEvent::Progress { done: samples, note: format!("loss {loss:.5}") })
        }
        Event::EpochEnd(_) | Event::Widened { .. } => {}
    })?;
    let copy = |from: PathBuf, to: PathBuf| std::fs::copy(&from, &to).map(|_| ()).map_err(io(&to));
    let network = train_dir.join("network.alqnet");
    alq_fs::copy_atomic(&network, &candidate).map_err(io(&candidate))?;
    // The training metrics sit beside the candidate.
    copy(train_dir.join("metrics.csv"), dir.join("metrics.csv"))?;
    Ok(candidate)
}

/// Makes `candidate` the best player: copies it to `out/best.alqnet`
/// (atomically) and returns it.
pub(crate) fn promote(out: &Path, candidate: &Path) -> Result<PathBuf, PipelineError> {
    let best_path = out.join("best.alqnet");
    write_atomic(&best_path, &std::fs::read(candidate).map_err(io(candidate))?).map_err(io(&best_path))?;
    Ok(candidate.to_path_buf())
}

/// The best player's spec: the best network, or `hce` while nothing is
/// promoted.
pub(crate) fn best_player(best: Option<&Path>) -> String {
    best.map_or("hce".to_string(), |p| p.display().to_string())
}
