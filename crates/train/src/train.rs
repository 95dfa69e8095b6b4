//! The training loop: AdamW with a cosine schedule, streamed batches, a
//! validation pass and an atomically written checkpoint per epoch, early
//! stopping, resume, and export of the best network.

use std::path::{Path, PathBuf};
use std::time::Instant;

use burn::lr_scheduler::cosine::CosineAnnealingLrSchedulerConfig;
use burn::optim::{AdamWConfig, GradientsParams};
use burn::prelude::*;
use burn::tensor::activation::{log_softmax, sigmoid};
use serde::{Deserialize, Serialize};

use alq_engine::{fnv1a64, INPUTS};
use alq_records::write_atomic;

use crate::config::TrainConfig;
use crate::data::{count, for_each_batch, Batch, Part};
use crate::error::TrainError;
use crate::labels::Labels;
use crate::model::ValueNet;

/// One epoch's figures, as written to `metrics.csv`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EpochMetrics {
    pub epoch: usize,
    pub train_loss: f64,
    pub validation_loss: f64,
    pub learning_rate: f64,
    pub train_samples: u64,
    pub seconds: f64,
    pub samples_per_second: f64,
}

/// What a checkpoint remembers besides the weights.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct State {
    epochs_done: usize,
    best_validation_loss: f64,
    best_epoch: usize,
    epochs_without_improvement: usize,
    stopped_early: bool,
    history: Vec<EpochMetrics>,
}

/// Progress reports.
pub enum Event<'a> {
    /// Samples of each part, and of both those with exact values from the
    /// tables or stores, by exact value and game result
    /// ([`crate::Counts::exact_by_result`]).
    Counted {
        train_samples: u64,
        validation_samples: u64,
        exact_samples: u64,
        exact_by_result: [[u64; 3]; 3],
    },
    EpochStart {
        epoch: usize,
        epochs: usize,
    },
    Batch {
        samples: u64,
        loss: f64,
    },
    EpochEnd(&'a EpochMetrics),
    /// The `init` network had narrower hidden layers and was widened.
    Widened {
        from: Vec<usize>,
        to: Vec<usize>,
    },
}

/// The outcome of a run.
#[derive(Clone, Debug)]
pub struct TrainSummary {
    pub epochs_done: usize,
    pub best_epoch: usize,
    pub best_validation_loss: f64,
    pub stopped_early: bool,
    pub history: Vec<EpochMetrics>,
    /// The exported best network.
    pub network: PathBuf,
}

fn io(path: &Path) -> impl Fn(std::io::Error) -> TrainError + '_ {
    move |error| TrainError::Io { path: path.to_path_buf(), error }
}

/// The loss of a batch. A scalar network: the mean squared error between
/// sigmoid(logit) and the blended targets. A win/draw/loss network:
/// `result_weight` times the cross-entropy of its softmax on the result's
/// class, plus `1 - result_weight` times the binary cross-entropy of its
/// expected score `p_win + p_draw / 2` on the squashed search score. Where
/// a position has an exact value, it is mixed into each target by
/// `exact_weight` ([`Batch::targets`], [`Batch::classes`]).
fn batch_loss(model: &ValueNet, batch: &Batch, config: &TrainConfig, device: &Device) -> Tensor<1> {
    let n = batch.len();
    let x = Tensor::<2>::from_data(TensorData::new(batch.features.to_vec(), [n, INPUTS]), device);
    if !config.wdl {
        let targets = batch.targets(config.result_weight, config.exact_weight);
        let y = Tensor::<2>::from_data(TensorData::new(targets, [n, 1]), device);
        return (sigmoid(model.forward(x)) - y).square().mean();
    }
    let classes = Tensor::<2>::from_data(TensorData::new(batch.classes(config.exact_weight), [n, 3]), device);
    let log_p = log_softmax(model.forward(x), 1);
    let cross_entropy = (classes * log_p.clone()).sum_dim(1).neg().mean();
    let halves = Tensor::<2>::from_data(TensorData::new(vec![1.0f32, 0.5, 0.0], [3, 1]), device);
    let expected = log_p.exp().matmul(halves).clamp(1e-6, 1.0 - 1e-6);
    let s = Tensor::<2>::from_data(TensorData::new(batch.exact_scores(config.exact_weight), [n, 1]), device);
    let score_loss = (s.clone() * expected.clone().log()
        + (s.neg().add_scalar(1.0)) * expected.neg().add_scalar(1.0).log())
    .neg()
    .mean();
    cross_entropy.mul_scalar(config.result_weight) + score_loss.mul_scalar(1.0 - config.result_weight)
}

/// Trains on `files` into `out`: `config.toml` (resolved config and data),
/// `metrics.csv`, `checkpoint/` (the last epoch), `network.alqnet` (the epoch
/// with the best validation loss). With `resume`, continues from the last
/// checkpoint; without it, refuses a folder that already holds a run.
pub fn train(
    config: &TrainConfig,
    files: &[PathBuf],
    out: &Path,
    resume: bool,
    mut progress: impl FnMut(Event),
) -> Result<TrainSummary, TrainError> {
    config.validate().map_err(|e| TrainError::Config(e.to_string()))?;
    if files.is_empty() {
        return Err(TrainError::Invalid("no training data given".into()));
    }
    std::fs::create_dir_all(out).map_err(io(out))?;
    let checkpoint = out.join("checkpoint");
    let config_path = out.join("config.toml");
    let resolved = Resolved { data: files.iter().map(|f| f.display().to_string()).collect(), config: config.clone() };
    let occupied = checkpoint.join("state.toml").exists() || config_path.exists();
    let kind = alq_records::RunKind { what: "a training run", may_change: "config and data; only epochs may change" };
    let resumed = alq_records::resume_run::<Resolved>(out, &config_path, occupied, resume, kind, |old| {
        let mut a = old.config.clone();
        a.epochs = config.epochs;
        a == *config && old.data == resolved.data
    })?;
    let mut state = if resumed.is_some() {
        if checkpoint.join("state.toml").exists() {
            Some(read_toml::<State>(&checkpoint.join("state.toml"))?)
        } else {
            None
        }
    } else {
        None
    };
    write_atomic(&config_path, toml::to_string_pretty(&resolved).expect("config serialises").as_bytes())
        .map_err(io(&config_path))?;

    // The starting network, checked before the data is read; a resumed run
    // continues from its checkpoint instead.
    let initial = if state.is_none() { initial_network(config)? } else { None };
    let tables = config.tables().map_err(|e| TrainError::Config(format!("tablebase: {e}")))?;
    let labels = Labels::open(config.rules, tables.as_deref(), &config.stores)?;
    let counts = count(files, config, &labels)?;
    let (train_samples, validation_samples) = (counts.train, counts.validation);
    progress(Event::Counted {
        train_samples,
        validation_samples,
        exact_samples: counts.exact,
        exact_by_result: counts.exact_by_result,
    });
    if train_samples == 0 || validation_samples == 0 {
        return Err(TrainError::Invalid(format!(
            "too little data: {train_samples} training and {validation_samples} validation positions"
        )));
    }
    let steps_per_epoch = train_samples.div_ceil(config.batch_size as u64) as usize;

    let device = training_device().autodiff();
    device.seed(config.seed);
    let mut model = match &initial {
        None => ValueNet::with_outputs(&config.hidden, if config.wdl { 3 } else { 1 }, &device),
        Some(init) => {
            if let Some(from) = &init.widened_from {
                progress(Event::Widened { from: from.clone(), to: config.hidden.clone() });
            }
            ValueNet::from_network(&init.network, &device)
        }
    };
    let mut optim = AdamWConfig::new().with_weight_decay(config.weight_decay).with_epsilon(1e-8).init();
    let mut scheduler = CosineAnnealingLrSchedulerConfig::new(config.learning_rate, config.epochs * steps_per_epoch)
        .with_min_lr(config.min_learning_rate)
        .init()
        .map_err(TrainError::Config)?;
    let fresh = State {
        epochs_done: 0,
        best_validation_loss: f64::INFINITY,
        best_epoch: 0,
        epochs_without_improvement: 0,
        stopped_early: false,
        history: Vec::new(),
    };
    if let Some(s) = &state {
        let ckpt_err = |error: String| TrainError::Checkpoint { path: checkpoint.clone(), error };
        model = model.try_load_file(checkpoint.join("model")).map_err(|e| ckpt_err(e.to_string()))?;
        optim = optim.load(checkpoint.join("optim")).map_err(|e| ckpt_err(e.to_string()))?;
        for _ in 0..s.epochs_done * steps_per_epoch {
            scheduler.step();
        }
    }
    let mut st = state.take().unwrap_or(fresh);

    while st.epochs_done < config.epochs && !st.stopped_early {
        let epoch = st.epochs_done + 1;
        progress(Event::EpochStart { epoch, epochs: config.epochs });
        let started = Instant::now();
        let (mut loss_sum, mut seen) = (0.0f64, 0u64);
        let mut lr = config.learning_rate;
        let epoch_seed = fnv1a64(format!("{}:{epoch}", config.seed).as_bytes());
        for_each_batch::<TrainError>(files, Part::Train, config, &labels, epoch_seed, |batch| {
            let step_lr = scheduler.step();
            lr = step_lr.base();
            let loss = batch_loss(&model, &batch, config, &device);
            let grads = GradientsParams::from_grads(loss.backward(), &model);
            let value: f32 = loss.into_scalar();
            model = optim.step(step_lr, model.clone(), grads);
            loss_sum += value as f64 * batch.len() as f64;
            seen += batch.len() as u64;
            progress(Event::Batch { samples: seen, loss: loss_sum / seen as f64 });
            Ok(())
        })?;
        let seconds = started.elapsed().as_secs_f64();
        let validation_loss = validate(&model, files, config, &labels)?;
        let metrics = EpochMetrics {
            epoch,
            train_loss: loss_sum / seen.max(1) as f64,
            validation_loss,
            learning_rate: lr,
            train_samples: seen,
            seconds,
            samples_per_second: seen as f64 / seconds.max(1e-9),
        };
        st.history.push(metrics.clone());
        st.epochs_done = epoch;
        if validation_loss < st.best_validation_loss {
            st.best_validation_loss = validation_loss;
            st.best_epoch = epoch;
            st.epochs_without_improvement = 0;
            let mut net = model.valid().export();
            net.rules = config.rules;
            let path = out.join("network.alqnet");
            write_atomic(&path, &net.to_bytes()).map_err(io(&path))?;
        } else {
            st.epochs_without_improvement += 1;
            st.stopped_early = st.epochs_without_improvement >= config.patience.max(1);
        }
        save_checkpoint(out, &model, &optim, &st)?;
        write_metrics(out, &st.history)?;
        progress(Event::EpochEnd(&metrics));
    }
    Ok(TrainSummary {
        epochs_done: st.epochs_done,
        best_epoch: st.best_epoch,
        best_validation_loss: st.best_validation_loss,
        stopped_early: st.stopped_early,
        history: st.history,
        network: out.join("network.alqnet"),
    })
}

/// The network a run starts from.
#[derive(Clone, Debug, PartialEq)]
pub struct InitialNetwork {
    /// The network, in the config's widths.
    pub network: alq_engine::Network,
    /// The file's hidden widths when they were narrower and the network was
    /// widened (without changing what it computes).
    pub widened_from: Option<Vec<usize>>,
}

/// The network the config's `init` names (`None` when it names none),
/// checked against the architecture and rules the config asks for, and
/// widened to the config's hidden widths where they are wider.
pub fn initial_network(config: &TrainConfig) -> Result<Option<InitialNetwork>, TrainError> {
    let init = config.init.trim();
    if init.is_empty() {
        return Ok(None);
    }
    let outputs = if config.wdl { 3 } else { 1 };
    let bad = |problem: String| TrainError::Config(format!("init: {init}: {problem}"));
    let bytes = std::fs::read(init).map_err(|e| bad(e.to_string()))?;
    let net = alq_engine::Network::from_bytes(&bytes).map_err(|e| bad(e.to_string()))?;
    let found_outputs = net.layers.last().map_or(0, |l| l.outputs);
    if found_outputs != outputs {
        return Err(bad(format!(
            "the network has {found_outputs} output(s); the config asks for {outputs} (wdl = {})",
            config.wdl
        )));
    }
    if net.rules != config.rules {
        return Err(bad(format!("the network was trained under {} rules, this run is {}", net.rules, config.rules)));
    }
    // A narrower network is widened without changing what it computes;
    // `widen` refuses another number of hidden layers or a narrower config.
    let widened_from = (net.hidden() != config.hidden).then(|| net.hidden());
    let network = crate::widen::widen(&net, &config.hidden, config.seed).map_err(|e| bad(e.to_string()))?;
    Ok(Some(InitialNetwork { network, widened_from }))
}

/// The device training runs on: burn's pure-Rust `flex` CPU backend, or
/// with this crate's `cuda` or `wgpu` feature the GPU burn picks by default.
pub fn training_device() -> Device {
    #[cfg(any(feature = "cuda", feature = "wgpu"))]
    {
        Device::default()
    }
    #[cfg(not(any(feature = "cuda", feature = "wgpu")))]
    {
        Device::flex()
    }
}

/// The mean validation loss of `model`.
fn validate(model: &ValueNet, files: &[PathBuf], config: &TrainConfig, labels: &Labels) -> Result<f64, TrainError> {
    let plain = model.valid();
    let device = training_device();
    let (mut sum, mut n) = (0.0f64, 0u64);
    for_each_batch::<TrainError>(files, Part::Validation, config, labels, 0, |batch| {
        let loss: f32 = batch_loss(&plain, &batch, config, &device).into_scalar();
        sum += loss as f64 * batch.len() as f64;
        n += batch.len() as u64;
        Ok(())
    })?;
    Ok(sum / n.max(1) as f64)
}

/// The resolved config and data, saved beside the result.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Resolved {
    data: Vec<String>,
    config: TrainConfig,
}

fn read_toml<T: serde::de::DeserializeOwned>(path: &Path) -> Result<T, TrainError> {
    let text = std::fs::read_to_string(path).map_err(io(path))?;
    toml::from_str(&text).map_err(|e| TrainError::Invalid(format!("{}: {e}", path.display())))
}

/// Writes the checkpoint into `checkpoint.tmp/`, then swaps it in for
/// `checkpoint/` ([`alq_fs::replace_dir`]), so a kill leaves either the old
/// or the new one whole.
fn save_checkpoint(out: &Path, model: &ValueNet, optim: &impl SaveOptim, state: &State) -> Result<(), TrainError> {
    let tmp = out.join("checkpoint.tmp");
    let dst = out.join("checkpoint");
    let err = |error: String| TrainError::Checkpoint { path: tmp.clone(), error };
    if tmp.exists() {
        std::fs::remove_dir_all(&tmp).map_err(io(&tmp))?;
    }
    std::fs::create_dir_all(&tmp).map_err(io(&tmp))?;
    model.clone().save_file(tmp.join("model")).map_err(|e| err(e.to_string()))?;
    optim.save_to(&tmp.join("optim")).map_err(err)?;
    let state_path = tmp.join("state.toml");
    write_atomic(&state_path, toml::to_string_pretty(state).expect("state serialises").as_bytes())
        .map_err(io(&state_path))?;
    alq_fs::replace_dir(&tmp, &dst).map_err(io(&dst))
}

/// Saving an optimizer's state (kept apart so the checkpoint code does not
/// name burn's optimizer type).
trait SaveOptim {
    fn save_to(&self, path: &Path) -> Result<(), String>;
}

impl SaveOptim for burn::optim::ModuleOptimizer {
    fn save_to(&self, path: &Path) -> Result<(), String> {
        self.save(path).map_err(|e| e.to_string())
    }
}

fn write_metrics(out: &Path, history: &[EpochMetrics]) -> Result<(), TrainError> {
    let mut text =
        String::from("epoch,train_loss,validation_loss,learning_rate,train_samples,seconds,samples_per_second\n");
    for m in history {
        text += &format!(
            "{},{:.6},{:.6},{:.6e},{},{:.2},{:.0}\n",
            m.epoch, m.train_loss, m.validation_loss, m.learning_rate, m.train_samples, m.seconds, m.samples_per_second
        );
    }
    let path = out.join("metrics.csv");
    write_atomic(&path, text.as_bytes()).map_err(io(&path))
}
