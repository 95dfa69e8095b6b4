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
    /// The exact head's validation cross-entropy (0 without the head).
    #[serde(default)]
    pub validation_exact_loss: f64,
    /// The policy head's validation cross-entropy (0 without the head).
    #[serde(default)]
    pub validation_policy_loss: f64,
    /// What a policy that knows nothing (equal odds for every legal move)
    /// scores on the same targets: the mean of ln(moves) (0 without the
    /// head).
    #[serde(default)]
    pub policy_uniform_loss: f64,
    /// The exact head's confidence measured on this epoch's validation
    /// positions (see `confidence_precision`; 0 without the head).
    #[serde(default)]
    pub confidence: f64,
    /// The share of the validation positions with an exact value on which
    /// the exact head is that confident (its coverage; 0 without the head).
    #[serde(default)]
    pub trusted: f64,
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
    batch_losses(model, batch, config, device).total(config)
}

/// A batch's losses, head by head ([`batch_loss`] adds them up).
struct Losses {
    value: Tensor<1>,
    /// The exact head's cross-entropy on the samples with an exact value
    /// (none without the head or such samples).
    exact: Option<Tensor<1>>,
    /// The policy head's cross-entropy on the samples with a policy target.
    policy: Option<Tensor<1>>,
    /// The exact head's softmax, `[n, 3]`, for measuring its confidence.
    exact_probabilities: Option<Tensor<2>>,
}

impl Losses {
    fn total(self, config: &TrainConfig) -> Tensor<1> {
        let mut total = self.value;
        if let Some(e) = self.exact {
            total = total + e.mul_scalar(config.exact_head_weight);
        }
        if let Some(p) = self.policy {
            total = total + p.mul_scalar(config.policy_weight);
        }
        total
    }
}

fn batch_losses(model: &ValueNet, batch: &Batch, config: &TrainConfig, device: &Device) -> Losses {
    let n = batch.len();
    let x = Tensor::<2>::from_data(TensorData::new(batch.features.to_vec(), [n, INPUTS]), device);
    let out = model.forward_heads_with(x, config.heads_shape_trunk);
    let value = value_loss(out.value, batch, config, device);
    let (exact, exact_probabilities) = match out.exact.filter(|_| config.exact_head) {
        Some(logits) => exact_loss(logits, batch.exact_classes, device),
        None => (None, None),
    };
    let policy = out.policy.filter(|_| config.policy_head).and_then(|l| policy_loss(l, batch.policy, device));
    Losses { value, exact, policy, exact_probabilities }
}

/// The value head's loss (see [`batch_loss`]).
fn value_loss(logits: Tensor<2>, batch: &Batch, config: &TrainConfig, device: &Device) -> Tensor<1> {
    let n = batch.len();
    if !config.wdl {
        let targets = batch.targets(config.result_weight, config.exact_weight);
        let y = Tensor::<2>::from_data(TensorData::new(targets, [n, 1]), device);
        return (sigmoid(logits) - y).square().mean();
    }
    let classes = Tensor::<2>::from_data(TensorData::new(batch.classes(config.exact_weight), [n, 3]), device);
    let log_p = log_softmax(logits, 1);
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

/// The exact head's mean cross-entropy over the samples with an exact class,
/// and its softmax; `None` when no sample has one.
fn exact_loss(logits: Tensor<2>, classes: &[Option<u8>], device: &Device) -> (Option<Tensor<1>>, Option<Tensor<2>>) {
    let n = classes.len();
    let known = classes.iter().filter(|c| c.is_some()).count();
    if known == 0 {
        return (None, None);
    }
    let mut one_hot = vec![0.0f32; n * 3];
    for (i, c) in classes.iter().enumerate() {
        if let Some(c) = c {
            one_hot[i * 3 + *c as usize] = 1.0;
        }
    }
    let y = Tensor::<2>::from_data(TensorData::new(one_hot, [n, 3]), device);
    let log_p = log_softmax(logits, 1);
    let loss = (y * log_p.clone()).sum().neg().div_scalar(known as f32);
    (Some(loss), Some(log_p.exp()))
}

/// The policy head's mean cross-entropy over the samples with a target:
/// each move's logit is its origin's plus its end's, softmaxed over the
/// position's moves. `None` when no sample has a target.
fn policy_loss(logits: Tensor<2>, targets: &[crate::data::PolicyTarget], device: &Device) -> Option<Tensor<1>> {
    let n = targets.len();
    let known = targets.iter().filter(|t| !t.is_empty()).count();
    let m = targets.iter().map(Vec::len).max().unwrap_or(0);
    if known == 0 || m == 0 {
        return None;
    }
    let (mut from, mut to, mut pad, mut share) =
        (vec![0i64; n * m], vec![25i64; n * m], vec![-1e9f32; n * m], vec![0.0f32; n * m]);
    for (i, target) in targets.iter().enumerate() {
        for (j, &(f, t, p)) in target.iter().enumerate() {
            from[i * m + j] = f as i64;
            to[i * m + j] = t as i64;
            pad[i * m + j] = 0.0;
            share[i * m + j] = p;
        }
    }
    let index = |v: Vec<i64>| Tensor::<2, Int>::from_data(TensorData::new(v, [n, m]), device);
    let float = |v: Vec<f32>| Tensor::<2>::from_data(TensorData::new(v, [n, m]), device);
    let moves = logits.clone().gather(1, index(from)) + logits.gather(1, index(to)) + float(pad);
    let log_p = log_softmax(moves, 1);
    Some((float(share) * log_p).sum().neg().div_scalar(known as f32))
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
    }
    .with_heads(config.exact_head, config.policy_head, &device);
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
        let checked = validate(&model, files, config, &labels)?;
        let validation_loss = checked.loss;
        let metrics = EpochMetrics {
            epoch,
            train_loss: loss_sum / seen.max(1) as f64,
            validation_loss,
            learning_rate: lr,
            train_samples: seen,
            seconds,
            samples_per_second: seen as f64 / seconds.max(1e-9),
            validation_exact_loss: checked.exact_loss,
            validation_policy_loss: checked.policy_loss,
            policy_uniform_loss: checked.policy_uniform_loss,
            confidence: checked.confidence.map_or(0.0, |(c, _)| c as f64),
            trusted: checked.confidence.map_or(0.0, |(_, t)| t),
        };
        st.history.push(metrics.clone());
        st.epochs_done = epoch;
        if checked.watched < st.best_validation_loss {
            st.best_validation_loss = checked.watched;
            st.best_epoch = epoch;
            st.epochs_without_improvement = 0;
            let mut net = model.valid().export();
            net.rules = config.rules;
            if let Some((confidence, _)) = checked.confidence {
                net.heads.confidence = confidence;
            }
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
    let (exact, policy) = (net.heads.exact.is_some(), net.heads.policy.is_some());
    if (exact && !config.exact_head) || (policy && !config.policy_head) {
        return Err(bad(format!(
            "the network has {} head(s) this config does not train (set exact_head and policy_head as it has them)",
            [("an exact", exact), ("a policy", policy)]
                .iter()
                .filter(|(_, has)| *has)
                .map(|(name, _)| *name)
                .collect::<Vec<_>>()
                .join(" and ")
        )));
    }
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

/// What a validation pass measures.
struct Checked {
    /// The mean total loss.
    loss: f64,
    /// What early stopping and the kept epoch go by: the total loss, or with
    /// detached heads (`heads_shape_trunk = false`) the value head's alone,
    /// so that the value network kept is the one training without heads
    /// would keep.
    watched: f64,
    exact_loss: f64,
    policy_loss: f64,
    policy_uniform_loss: f64,
    /// The exact head's measured confidence and the share of the exact
    /// positions it covers ([`measured_confidence`]).
    confidence: Option<(f32, f64)>,
}

/// The validation losses of `model`, and its exact head's confidence.
fn validate(model: &ValueNet, files: &[PathBuf], config: &TrainConfig, labels: &Labels) -> Result<Checked, TrainError> {
    let plain = model.valid();
    let device = training_device();
    let (mut sum, mut n, mut value_sum) = (0.0f64, 0u64, 0.0f64);
    let (mut exact_sum, mut exact_n, mut policy_sum, mut policy_n) = (0.0f64, 0u64, 0.0f64, 0u64);
    let mut uniform_sum = 0.0f64;
    let mut calls = Vec::new();
    for_each_batch::<TrainError>(files, Part::Validation, config, labels, 0, |batch| {
        let losses = batch_losses(&plain, &batch, config, &device);
        let known = batch.exact_classes.iter().filter(|c| c.is_some()).count() as u64;
        if let (Some(e), Some(p)) = (&losses.exact, &losses.exact_probabilities) {
            exact_sum += e.clone().into_scalar::<f32>() as f64 * known as f64;
            exact_n += known;
            let p: Vec<f32> = p.clone().try_into_vec_as::<f32>().expect("f32 probabilities");
            for (row, class) in p.chunks(3).zip(batch.exact_classes) {
                if let Some(c) = class {
                    calls.push(call(row, *c));
                }
            }
        }
        if let Some(l) = &losses.policy {
            let targets = batch.policy.iter().filter(|t| !t.is_empty()).count() as u64;
            uniform_sum += batch.policy.iter().filter(|t| !t.is_empty()).map(|t| (t.len() as f64).ln()).sum::<f64>();
            policy_sum += l.clone().into_scalar::<f32>() as f64 * targets as f64;
            policy_n += targets;
        }
        value_sum += losses.value.clone().into_scalar::<f32>() as f64 * batch.len() as f64;
        let loss: f32 = losses.total(config).into_scalar();
        sum += loss as f64 * batch.len() as f64;
        n += batch.len() as u64;
        Ok(())
    })?;
    let detached = !config.heads_shape_trunk && (config.exact_head || config.policy_head);
    Ok(Checked {
        loss: sum / n.max(1) as f64,
        watched: if detached { value_sum } else { sum } / n.max(1) as f64,
        exact_loss: exact_sum / exact_n.max(1) as f64,
        policy_loss: policy_sum / policy_n.max(1) as f64,
        policy_uniform_loss: uniform_sum / policy_n.max(1) as f64,
        confidence: config.exact_head.then(|| measured_confidence(&mut calls, config.confidence_precision)),
    })
}

/// The exact head's win-or-loss call on one position: the probability of
/// the likelier of win and loss, and whether the exact class is that one.
fn call(probabilities: &[f32], class: u8) -> (f32, bool) {
    if probabilities[0] >= probabilities[2] {
        (probabilities[0], class == 0)
    } else {
        (probabilities[2], class == 2)
    }
}

/// The lowest probability (from 0.5) at which the calls at least that sure
/// are right at least `precision` of the time, and the share of all calls
/// that are that sure; `(1, 0)` when no such probability exists.
///
/// A call of probability `p` is trusted by the evaluator when `p >=` the
/// confidence, so the measured set is exactly what it will trust.
pub(crate) fn measured_confidence(calls: &mut [(f32, bool)], precision: f64) -> (f32, f64) {
    calls.sort_by(|a, b| b.0.total_cmp(&a.0));
    let (mut best, mut right) = (None, 0usize);
    for (i, &(p, correct)) in calls.iter().enumerate() {
        right += correct as usize;
        // Only at the last call of a run of equal probabilities, and never
        // below 0.5 (the file's lowest confidence).
        let last_of_run = calls.get(i + 1).is_none_or(|next| next.0 < p);
        if p >= 0.5 && last_of_run && right as f64 >= precision * (i + 1) as f64 {
            best = Some((p, (i + 1) as f64 / calls.len() as f64));
        }
    }
    best.unwrap_or((1.0, 0.0))
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
    let mut text = String::from(
        "epoch,train_loss,validation_loss,learning_rate,train_samples,seconds,samples_per_second,\
         validation_exact_loss,validation_policy_loss,policy_uniform_loss,confidence,trusted\n",
    );
    for m in history {
        text += &format!(
            "{},{:.6},{:.6},{:.6e},{},{:.2},{:.0},{:.6},{:.6},{:.6},{:.4},{:.4}\n",
            m.epoch,
            m.train_loss,
            m.validation_loss,
            m.learning_rate,
            m.train_samples,
            m.seconds,
            m.samples_per_second,
            m.validation_exact_loss,
            m.validation_policy_loss,
            m.policy_uniform_loss,
            m.confidence,
            m.trusted
        );
    }
    let path = out.join("metrics.csv");
    write_atomic(&path, text.as_bytes()).map_err(io(&path))
}

#[cfg(test)]
mod tests {
    use super::measured_confidence;

    #[test]
    fn the_confidence_is_the_lowest_probability_whose_calls_are_precise_enough() {
        // Sure calls right, middling ones half right, unsure ones wrong.
        let mut calls =
            vec![(0.99, true), (0.97, true), (0.95, true), (0.9, true), (0.8, false), (0.7, true), (0.6, false)];
        assert_eq!(measured_confidence(&mut calls.clone(), 0.99), (0.9, 4.0 / 7.0));
        // 5 of 6 right from 0.7 on: precise enough for 0.8, not for 0.9.
        assert_eq!(measured_confidence(&mut calls.clone(), 0.8), (0.7, 6.0 / 7.0));
        assert_eq!(measured_confidence(&mut calls, 0.5), (0.6, 1.0));
        // Ties are all in or all out; below 0.5 nothing is trusted.
        assert_eq!(measured_confidence(&mut [(0.9, true), (0.9, false)], 0.9), (1.0, 0.0));
        assert_eq!(measured_confidence(&mut [(0.4, true)], 0.9), (1.0, 0.0));
        assert_eq!(measured_confidence(&mut [], 0.9), (1.0, 0.0));
    }
}
