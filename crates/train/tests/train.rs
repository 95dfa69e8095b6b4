//! burn's forward pass against the engine's, and the training loop's files,
//! resume and refusals.

use std::path::PathBuf;

use burn::prelude::*;
use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use alq_engine::{features, Network, Position, INPUTS};
use alq_train::{train, TrainConfig, ValueNet};

/// burn's random numbers come from one generator per process, seeded by
/// each run: tests that draw from it run one at a time, so that each sees
/// the numbers of its own seed whatever else runs.
fn one_at_a_time() -> std::sync::MutexGuard<'static, ()> {
    static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
    LOCK.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

fn positions(n: usize) -> Vec<Position> {
    let mut rng = ChaCha8Rng::seed_from_u64(8);
    let mut out = Vec::new();
    while out.len() < n {
        let mut pos = Position::start();
        for _ in 0..80 {
            out.push(pos);
            let moves = pos.legal_moves();
            let Some(&mv) = moves.choose(&mut rng) else { break };
            pos = pos.play(mv);
        }
    }
    out.truncate(n);
    out
}

#[test]
fn burn_and_engine_forward_passes_agree() {
    let _serial = one_at_a_time();
    let device = Device::flex();
    device.seed(5);
    let model = ValueNet::new(&[64, 16], &device);
    let net = model.export();
    // Through the file format, as the engine will read it.
    let net = Network::from_bytes(&net.to_bytes()).unwrap();
    let positions = positions(1000);
    let xs: Vec<f32> = positions.iter().flat_map(features).collect();
    let x = Tensor::<2>::from_data(TensorData::new(xs, [positions.len(), INPUTS]), &device);
    let burn_out: Vec<f32> = model.forward(x).try_into_vec_as::<f32>().unwrap();
    let mut worst = 0.0f32;
    for (p, b) in positions.iter().zip(&burn_out) {
        let e = net.forward(&features(p));
        worst = worst.max((e - b).abs());
    }
    assert!(worst < 1e-4, "largest difference {worst}");
    // The network is not trivially constant.
    let spread = burn_out.iter().cloned().fold(f32::MIN, f32::max) - burn_out.iter().cloned().fold(f32::MAX, f32::min);
    assert!(spread > 1e-3, "{spread}");
}

/// A win/draw/loss network: burn's three logits, turned into the expected
/// score's logit, are what the engine computes from the exported file.
#[test]
fn burn_and_engine_agree_on_a_win_draw_loss_network() {
    let _serial = one_at_a_time();
    let device = Device::flex();
    device.seed(6);
    let model = ValueNet::with_outputs(&[32, 8], 3, &device);
    let net = Network::from_bytes(&model.export().to_bytes()).unwrap();
    assert!(net.is_wdl());
    let positions = positions(500);
    let xs: Vec<f32> = positions.iter().flat_map(features).collect();
    let x = Tensor::<2>::from_data(TensorData::new(xs, [positions.len(), INPUTS]), &device);
    let logits: Vec<f32> = model.forward(x).try_into_vec_as::<f32>().unwrap();
    let mut worst = 0.0f32;
    for (p, l) in positions.iter().zip(logits.chunks(3)) {
        worst = worst.max((net.forward(&features(p)) - alq_engine::score_logit(l)).abs());
    }
    assert!(worst < 1e-4, "largest difference {worst}");
}

/// Training a win/draw/loss network: its loss falls, it exports three
/// outputs, and what it learnt separates won from lost positions.
#[test]
fn a_win_draw_loss_network_trains() {
    let _serial = one_at_a_time();
    let data = vec![PathBuf::from("../report/tests/data/selfplay.csv")];
    let out = out_dir("wdl");
    let config =
        TrainConfig { wdl: true, epochs: 30, batch_size: 32, learning_rate: 0.01, patience: 100, ..small_config() };
    let summary = train(&config, &data, &out, false, |_| {}).unwrap();
    let losses: Vec<f64> = summary.history.iter().map(|m| m.train_loss).collect();
    assert!(losses[29] < losses[0], "training loss falls: {losses:?}");
    let net = Network::from_bytes(&std::fs::read(out.join("network.alqnet")).unwrap()).unwrap();
    assert!(net.is_wdl());
    assert_eq!(net.hidden(), vec![16, 8]);
    // Over every position of the games, the side that went on to win is
    // scored higher than the side that went on to lose.
    let (games, _) = alq_records::read_all(&data, false).unwrap();
    let (mut won, mut lost) = (Vec::new(), Vec::new());
    for g in &games {
        let Some(winner) = g.winner() else { continue };
        for p in g.game.positions() {
            let v = net.forward(&features(p));
            if p.side_to_move() == winner {
                won.push(v)
            } else {
                lost.push(v)
            }
        }
    }
    let mean = |v: &[f32]| v.iter().sum::<f32>() / v.len() as f32;
    assert!(mean(&won) > mean(&lost) + 0.02, "won {} lost {}", mean(&won), mean(&lost));
}

fn out_dir(name: &str) -> PathBuf {
    let d = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("train-tests").join(name);
    let _ = std::fs::remove_dir_all(&d);
    d
}

fn small_config() -> TrainConfig {
    TrainConfig {
        hidden: vec![16, 8],
        epochs: 2,
        batch_size: 128,
        validation_fraction: 0.2,
        shuffle_buffer: 1000,
        ..TrainConfig::default()
    }
}

#[test]
fn training_writes_metrics_checkpoints_and_a_network_and_resumes() {
    let _serial = one_at_a_time();
    let data = vec![PathBuf::from("../report/tests/data/selfplay.csv")];
    let out = out_dir("run");
    let config = small_config();
    let summary = train(&config, &data, &out, false, |_| {}).unwrap();
    assert_eq!(summary.epochs_done, 2);
    let metrics = std::fs::read_to_string(out.join("metrics.csv")).unwrap();
    assert_eq!(metrics.lines().count(), 3, "{metrics}");
    assert!(out.join("checkpoint/model.bpk").exists() && out.join("checkpoint/optim.bpk").exists());
    assert!(out.join("config.toml").exists());
    let net = Network::from_bytes(&std::fs::read(out.join("network.alqnet")).unwrap()).unwrap();
    assert_eq!(net.hidden(), vec![16, 8]);
    let first: f64 = metrics.lines().nth(1).unwrap().split(',').nth(1).unwrap().parse().unwrap();
    let second: f64 = metrics.lines().nth(2).unwrap().split(',').nth(1).unwrap().parse().unwrap();
    assert!(second < first, "training loss falls: {first} -> {second}");

    // Without --resume the folder is protected.
    let refused = train(&config, &data, &out, false, |_| {}).unwrap_err();
    assert!(matches!(refused, alq_train::TrainError::Run(alq_records::RunError::Occupied { .. })), "{refused}");
    // Resuming with more epochs continues from epoch 3.
    let more = TrainConfig { epochs: 3, ..config.clone() };
    let resumed = train(&more, &data, &out, true, |_| {}).unwrap();
    assert_eq!(resumed.epochs_done, 3);
    assert_eq!(resumed.history.len(), 3);
    assert_eq!(resumed.history[..2], summary.history[..]);
    // Other settings are refused on resume.
    let other = TrainConfig { batch_size: 64, ..more };
    assert!(train(&other, &data, &out, true, |_| {}).unwrap_err().to_string().contains("other settings"));
}

#[test]
fn bad_configs_and_data_are_refused() {
    let _serial = one_at_a_time();
    let data = vec![PathBuf::from("../report/tests/data/selfplay.csv")];
    let bad = TrainConfig { hidden: vec![], ..small_config() };
    assert!(train(&bad, &data, &out_dir("bad"), false, |_| {}).unwrap_err().to_string().contains("hidden"));
    let missing = vec![PathBuf::from("no-such.csv")];
    assert!(train(&small_config(), &missing, &out_dir("missing"), false, |_| {}).is_err());
    let err = toml::from_str::<TrainConfig>("epochz = 3").unwrap_err().to_string();
    assert!(err.contains("epochz"), "{err}");
    let shipped: TrainConfig = toml::from_str(include_str!("../../../configs/train.toml")).unwrap();
    assert_eq!(shipped, TrainConfig::default(), "the shipped config documents the defaults");
    // The exact-target experiments' configs are valid and differ only in
    // where exact values come from and how much they weigh.
    let base: TrainConfig = toml::from_str(include_str!("../../../configs/exact-targets/train-base.toml")).unwrap();
    for text in [
        include_str!("../../../configs/exact-targets/train-tables.toml"),
        include_str!("../../../configs/exact-targets/train-labels.toml"),
        include_str!("../../../configs/exact-targets/train-labels-half.toml"),
        include_str!("../../../configs/exact-targets/train-labels-quarter.toml"),
        include_str!("../../../configs/exact-targets/train-labels-decisive.toml"),
    ] {
        let c: TrainConfig = toml::from_str(text).unwrap();
        c.validate().unwrap();
        let plain =
            TrainConfig { tablebase: String::new(), stores: Vec::new(), exact_weight: 1.0, exact_draws: true, ..c };
        assert_eq!(plain, base);
    }
    // The ultra-strong experiment's config is the recipe's training with the
    // ≤ 12 tables and the perfect player's choices as the policy's target.
    let ultra: TrainConfig = toml::from_str(include_str!("../../../configs/two-heads/train-ultra.toml")).unwrap();
    ultra.validate().unwrap();
    let recipe: toml::Value = toml::from_str(include_str!("../../../configs/perfect-taught.toml")).unwrap();
    let recipe: TrainConfig = recipe["train"].clone().try_into().unwrap();
    let plain = TrainConfig {
        tablebase: "data/tb10w".into(),
        policy_ultra: 0.0,
        init: recipe.init.clone(),
        seed: recipe.seed,
        ..ultra
    };
    assert_eq!(plain, recipe);
}

#[test]
fn tables_give_exact_targets_and_their_share_is_counted() {
    let _serial = one_at_a_time();
    use alq_engine::Exact;
    let tb = out_dir("tables");
    alq_tablebase::build(
        &tb,
        &alq_tablebase::BuildOptions {
            pieces: 4,
            shard: None,
            rules: alq_engine::RuleSet::BrainKing,
            kind: alq_tablebase::Kind::Distance,
        },
        &mut |_| {},
    )
    .unwrap();
    let tables = alq_tablebase::Tablebase::open(&tb).unwrap();
    let dyn_tables: &dyn alq_engine::EndgameTables = &tables;
    // Exact targets follow the tables, side to move's view; bigger positions get none.
    let won: Position = "...../...../...../...../..W.. w".parse().unwrap();
    assert_eq!(alq_engine::EndgameTables::probe(&tables, &won), Some(Exact::Win(1)));
    assert_eq!(alq_train::exact_target(Some(dyn_tables), &won), Some(1.0));
    assert_eq!(alq_train::exact_target(Some(dyn_tables), &won.with_side_to_move(alq_engine::Side::Black)), Some(0.0));
    assert_eq!(alq_train::exact_target(Some(dyn_tables), &Position::start()), None);
    assert_eq!(alq_train::exact_target(None, &won), None);
    // Win/draw/loss tables (no distances) give the same targets.
    let wdl_dir = out_dir("tables-wdl");
    let options = alq_tablebase::BuildOptions {
        pieces: 4,
        shard: None,
        rules: alq_engine::RuleSet::BrainKing,
        kind: alq_tablebase::Kind::Wdl,
    };
    alq_tablebase::build(&wdl_dir, &options, &mut |_| {}).unwrap();
    let wdl = alq_tablebase::Tablebase::open(&wdl_dir).unwrap();
    let dyn_wdl: &dyn alq_engine::EndgameTables = &wdl;
    assert_eq!(alq_train::exact_target(Some(dyn_wdl), &won), Some(1.0));
    assert_eq!(alq_train::exact_target(Some(dyn_wdl), &won.with_side_to_move(alq_engine::Side::Black)), Some(0.0));
    assert_eq!(alq_train::exact_target(Some(dyn_wdl), &Position::start()), None);

    // Counting with the tables: some samples of real games are covered.
    let data = vec![PathBuf::from("../report/tests/data/selfplay.csv")];
    let config = small_config();
    let without = alq_train::count(&data, &config, &alq_train::Labels::none()).unwrap();
    let with = alq_train::count(&data, &config, &alq_train::Labels::tables(Some(dyn_tables))).unwrap();
    assert_eq!((without.train, without.validation, without.exact), (with.train, with.validation, 0));
    assert!(with.exact > 0 && with.exact < with.train + with.validation, "{with:?}");
    // Every exact sample is counted once by exact value and result.
    assert_eq!(with.exact_by_result.iter().flatten().sum::<u64>(), with.exact);
    assert!(with.exact_overruled() < with.exact, "{with:?}");

    // A training run with tables reports the share and trains.
    let out = out_dir("with-tables");
    let config = TrainConfig { epochs: 1, tablebase: tb.to_string_lossy().into_owned(), ..small_config() };
    let mut exact = None;
    train(&config, &data, &out, false, |e| {
        if let alq_train::Event::Counted { exact_samples, .. } = e {
            exact = Some(exact_samples);
        }
    })
    .unwrap();
    assert_eq!(exact, Some(with.exact));
    // A missing folder is a clear error.
    let bad = TrainConfig { tablebase: "/no/such/tables".into(), ..small_config() };
    let err = train(&bad, &data, &out_dir("bad-tables"), false, |_| {}).unwrap_err().to_string();
    assert!(err.contains("tablebase") && err.contains("/no/such/tables"), "{err}");

    stores_give_exact_targets_beyond_the_tables(&tables, &tb, &data, with.exact);
}

/// A store the oracle wrote while settling positions of real games (over
/// the ≤ 4 tables) labels exactly those positions, beyond the tables; a
/// training run counts and uses them; a bad store is refused by name.
fn stores_give_exact_targets_beyond_the_tables(
    tables: &alq_tablebase::Tablebase,
    tb: &std::path::Path,
    data: &[PathBuf],
    exact_from_tables: u64,
) {
    use alq_engine::{Hce, HceWeights, RuleSet};
    use alq_records::{RecordReader, SampleOptions, Samples};
    let store_dir = out_dir("labels");
    std::fs::create_dir_all(&store_dir).unwrap();
    let store = store_dir.join("labels.store");
    let mut oracle = alq_oracle::Oracle::new(
        RuleSet::BrainKing,
        Some(tables),
        Box::new(Hce::new(HceWeights::default())),
        alq_solver::Budget::nodes(20_000),
    );
    oracle.use_store(&store).unwrap();
    // The last positions of the first games, where small searches settle.
    let mut samples = Samples::new(SampleOptions::default());
    let mut settled = Vec::new();
    for game in RecordReader::open(&data[0]).unwrap().take(20) {
        let of_game = samples.of_game(&game.unwrap());
        for s in of_game.iter().rev().take(12) {
            let answer = oracle.value(&s.position).unwrap();
            if answer.source == alq_oracle::Source::Search && answer.value.is_exact() {
                settled.push((s.position, answer.value));
            }
        }
    }
    oracle.save().unwrap();
    drop(oracle);
    assert!(settled.len() >= 5, "searches settled {} positions", settled.len());

    let paths = vec![store.to_string_lossy().into_owned()];
    let labels = alq_train::Labels::open(RuleSet::BrainKing, Some(tables), &paths).unwrap();
    assert!(labels.stored_positions() > 0);
    for (pos, value) in &settled {
        let expected = match value {
            alq_oracle::Value::Win => 1.0,
            alq_oracle::Value::Draw => 0.5,
            _ => 0.0,
        };
        assert_eq!(labels.exact(pos), Some(expected), "{pos}");
        // The tables alone do not know them.
        assert_eq!(alq_train::exact_target(Some(tables as &dyn alq_engine::EndgameTables), pos), None);
    }
    let config = small_config();
    let counted = alq_train::count(data, &config, &labels).unwrap();
    assert!(counted.exact > exact_from_tables, "{} with stores, {exact_from_tables} without", counted.exact);
    // The batches carry exactly those values, mirrored positions included;
    // with exact_weight 0 none are looked up.
    let in_batches = |config: &TrainConfig| {
        let mut seen = 0u64;
        for part in [alq_train::Part::Train, alq_train::Part::Validation] {
            alq_train::for_each_batch::<alq_records::RecordError>(data, part, config, &labels, 7, |b| {
                seen += b.exact.iter().filter(|e| e.is_some()).count() as u64;
                Ok(())
            })
            .unwrap();
        }
        seen
    };
    assert!(config.mirror);
    assert_eq!(in_batches(&config), counted.exact);
    assert_eq!(in_batches(&TrainConfig { exact_weight: 0.0, ..small_config() }), 0);
    // Without exact draws only the won and lost positions keep theirs.
    let m = counted.exact_by_result;
    let decisive: u64 = m[0].iter().chain(&m[2]).sum();
    assert!(decisive > 0 && decisive < counted.exact, "{m:?}");
    assert_eq!(in_batches(&TrainConfig { exact_draws: false, ..small_config() }), decisive);

    // A run with the store and half weight reports the same count and trains.
    let config = TrainConfig {
        epochs: 1,
        tablebase: tb.to_string_lossy().into_owned(),
        stores: paths.clone(),
        exact_weight: 0.5,
        ..small_config()
    };
    let mut exact = None;
    train(&config, data, &out_dir("with-stores"), false, |e| {
        if let alq_train::Event::Counted { exact_samples, .. } = e {
            exact = Some(exact_samples);
        }
    })
    .unwrap();
    assert_eq!(exact, Some(counted.exact));

    // A missing or damaged store is named.
    let damaged_dir = out_dir("damaged");
    std::fs::create_dir_all(&damaged_dir).unwrap();
    let damaged = damaged_dir.join("bad.store");
    std::fs::write(&damaged, b"not a store").unwrap();
    for bad in ["/no/such/labels.store".to_string(), damaged.to_string_lossy().into_owned()] {
        let config = TrainConfig { stores: vec![bad.clone()], ..small_config() };
        let err = train(&config, data, &out_dir("bad-store"), false, |_| {}).unwrap_err().to_string();
        assert!(err.contains("stores") && err.contains(&bad), "{err}");
    }
    let config = TrainConfig { exact_weight: 1.5, ..small_config() };
    let err = train(&config, data, &out_dir("bad-weight"), false, |_| {}).unwrap_err().to_string();
    assert!(err.contains("exact_weight"), "{err}");
}

/// A run that starts from a network's weights (`init`; here the previously
/// shipped 64-16 network, `previous-64x16.alqnet`) starts where that
/// network is: the model holds exactly its weights, and with a learning rate
/// too small to move far, it ends far better than the same run from random
/// weights. A network of another shape or a missing file is refused by name.
#[test]
fn training_can_start_from_a_network() {
    let _serial = one_at_a_time();
    let small = PathBuf::from("../../data/networks/previous-64x16.alqnet");
    let net = Network::from_bytes(&std::fs::read(&small).unwrap()).unwrap();
    assert_eq!(ValueNet::from_network(&net, &Device::flex()).export(), net);

    let data = vec![PathBuf::from("../report/tests/data/selfplay.csv")];
    let still =
        TrainConfig { hidden: net.hidden(), epochs: 1, learning_rate: 1e-6, min_learning_rate: 1e-7, ..small_config() };
    let random = train(&still, &data, &out_dir("init-random"), false, |_| {}).unwrap();
    let warm_config = TrainConfig { init: small.display().to_string(), ..still.clone() };
    let warm = train(&warm_config, &data, &out_dir("init-warm"), false, |_| {}).unwrap();
    assert!(
        warm.best_validation_loss < random.best_validation_loss - 0.01,
        "from the 64-16 network {} against random weights {}",
        warm.best_validation_loss,
        random.best_validation_loss
    );

    // A wider config widens the network without changing what it computes,
    // so the run starts where the 64-16 network is, as the warm one does.
    let wide_config = TrainConfig { hidden: vec![96, 24], ..warm_config.clone() };
    let init = alq_train::initial_network(&wide_config).unwrap().unwrap();
    assert_eq!(init.widened_from, Some(vec![64, 16]));
    let widened = init.network;
    assert_eq!(widened.hidden(), vec![96, 24]);
    let board = alq_engine::Position::start();
    let features = alq_engine::features(&board);
    let (a, b) = (net.forward(&features), widened.forward(&features));
    assert!((a - b).abs() < 1e-5, "64-16 {a}, widened {b}");
    let mut announced = None;
    let wide = train(&wide_config, &data, &out_dir("init-wide"), false, |e| {
        if let alq_train::Event::Widened { from, to } = e {
            announced = Some((from, to));
        }
    })
    .unwrap();
    assert_eq!(announced, Some((vec![64, 16], vec![96, 24])));
    // Training moved the new units' weights into the output off zero.
    let trained = Network::from_bytes(&std::fs::read(&wide.network).unwrap()).unwrap();
    assert_eq!(trained.hidden(), vec![96, 24]);
    assert!(trained.layers[2].weights[16..24].iter().all(|&w| w != 0.0), "{:?}", &trained.layers[2].weights[16..]);
    assert!(
        wide.best_validation_loss < random.best_validation_loss - 0.01,
        "widened from the 64-16 network {} against random weights {}",
        wide.best_validation_loss,
        random.best_validation_loss
    );

    let other_shape = TrainConfig { hidden: vec![16, 8], ..warm_config.clone() };
    let err = train(&other_shape, &data, &out_dir("init-shape"), false, |_| {}).unwrap_err().to_string();
    assert!(err.contains("init") && err.contains("[64, 16]") && err.contains("[16, 8]"), "{err}");
    let other_depth = TrainConfig { hidden: vec![64, 16, 8], ..warm_config.clone() };
    let err = train(&other_depth, &data, &out_dir("init-depth"), false, |_| {}).unwrap_err().to_string();
    assert!(err.contains("number of hidden layers") && err.contains("[64, 16, 8]"), "{err}");
    let other_output = TrainConfig { wdl: true, ..warm_config.clone() };
    let err = train(&other_output, &data, &out_dir("init-wdl"), false, |_| {}).unwrap_err().to_string();
    assert!(err.contains("1 output(s)") && err.contains("wdl = true"), "{err}");
    let other_rules = TrainConfig { rules: alq_engine::RuleSet::Classic, ..warm_config.clone() };
    let err = train(&other_rules, &data, &out_dir("init-rules"), false, |_| {}).unwrap_err().to_string();
    assert!(err.contains("rules"), "{err}");
    let missing = TrainConfig { init: "no-such.alqnet".into(), ..still };
    let err = train(&missing, &data, &out_dir("init-missing"), false, |_| {}).unwrap_err().to_string();
    assert!(err.contains("no-such.alqnet"), "{err}");
}

#[test]
fn the_exact_and_policy_heads_train_export_and_agree_with_the_engine() {
    let _serial = one_at_a_time();
    let tb = out_dir("heads-tables");
    let options = alq_tablebase::BuildOptions {
        pieces: 5,
        shard: None,
        rules: alq_engine::RuleSet::BrainKing,
        kind: alq_tablebase::Kind::Wdl,
    };
    alq_tablebase::build(&tb, &options, &mut |_| {}).unwrap();
    let tables = alq_tablebase::Tablebase::open(&tb).unwrap();
    let labels = alq_train::Labels::tables(Some(&tables));

    // Policy targets: the value-keeping moves where the tables settle every
    // move; the searched move elsewhere; nothing without either.
    let rules = alq_engine::RuleSet::BrainKing;
    // The first of some random 4-piece positions that is won and has a
    // move that throws the win away.
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    let keeps = |pos: &Position| -> Vec<bool> {
        let best = pos
            .legal_moves()
            .iter()
            .map(|&mv| alq_train::exact_target(Some(&tables), &pos.play(mv)))
            .min_by(|a, b| a.partial_cmp(b).unwrap());
        pos.legal_moves()
            .iter()
            .map(|&mv| Some(alq_train::exact_target(Some(&tables), &pos.play(mv))) == best)
            .collect()
    };
    let pos = (0..1000)
        .map(|_| {
            let mut points: Vec<u8> = (0..25).collect();
            points.shuffle(&mut rng);
            let bb = |ps: &[u8]| {
                ps.iter().fold(alq_engine::Bitboard::EMPTY, |b, &p| b.with(alq_engine::Point::new(p).unwrap()))
            };
            Position::from_parts(bb(&points[..2]), bb(&points[2..4]), alq_engine::Side::White)
        })
        .find(|p| {
            let k = keeps(p);
            alq_train::exact_target(Some(&tables), p) == Some(1.0) && k.iter().any(|&x| !x)
        })
        .expect("a won position with a losing move");
    let target = alq_train::policy_target(&pos, None, &labels, rules, 0.0);
    let moves = pos.legal_moves();
    assert_eq!(target.len(), moves.len());
    let keepers = keeps(&pos);
    let n = keepers.iter().filter(|&&k| k).count() as f32;
    for ((&(_, _, share), &keep), mv) in target.iter().zip(&keepers).zip(moves.iter()) {
        assert_eq!(share, if keep { 1.0 / n } else { 0.0 }, "{mv}");
    }
    let start = Position::start();
    let played = start.legal_moves()[2];
    let target = alq_train::policy_target(&start, Some(played), &labels, rules, 0.5);
    assert_eq!(
        target.iter().filter(|t| t.2 == 1.0).map(|t| (t.0, t.1)).collect::<Vec<_>>(),
        [(played.from(), played.to())]
    );
    assert!(alq_train::policy_target(&start, None, &labels, rules, 0.0).is_empty());

    // Ultra-strong targets: among the keepers, the ones after which the
    // most replies are known to lose get `ultra` on top of their equal
    // part. The first random 5-piece position with keepers that set
    // different shares of traps, counted here by brute force.
    let traps = |pos: &Position, mv: alq_engine::Move, kept: f32| -> f64 {
        let child = pos.play(mv);
        let replies = child.legal_moves();
        if replies.is_empty() {
            return 1.0;
        }
        let errs = replies
            .iter()
            .filter(|&&r| {
                let after = alq_train::exact_target(Some(&tables), &child.play(r)).unwrap();
                if kept == 0.0 {
                    after > 0.0
                } else {
                    after == 1.0
                }
            })
            .count();
        errs as f64 / replies.len() as f64
    };
    let (pos, shares) = (0..5000)
        .find_map(|_| {
            let mut points: Vec<u8> = (0..25).collect();
            points.shuffle(&mut rng);
            let bb = |ps: &[u8]| {
                ps.iter().fold(alq_engine::Bitboard::EMPTY, |b, &p| b.with(alq_engine::Point::new(p).unwrap()))
            };
            let pos = Position::from_parts(bb(&points[..3]), bb(&points[3..5]), alq_engine::Side::White);
            let kept = alq_train::exact_target(Some(&tables), &pos)?;
            let shares: Vec<Option<f64>> =
                pos.legal_moves().iter().zip(keeps(&pos)).map(|(&mv, k)| k.then(|| traps(&pos, mv, kept))).collect();
            let kept_shares: Vec<f64> = shares.iter().flatten().copied().collect();
            let varied = kept_shares.iter().any(|&t| t != kept_shares[0]);
            varied.then_some((pos, shares))
        })
        .expect("a position whose keepers set different shares of traps");
    let top = shares.iter().flatten().copied().fold(f64::MIN, f64::max);
    let n = shares.iter().flatten().count() as f32;
    let ties = shares.iter().flatten().filter(|&&t| t == top).count() as f32;
    for ultra in [1.0, 0.25] {
        let target = alq_train::policy_target(&pos, None, &labels, rules, ultra);
        for (&(_, _, share), trap) in target.iter().zip(&shares) {
            let expected = match trap {
                None => 0.0,
                Some(t) if *t == top => (1.0 - ultra) / n + ultra / ties,
                Some(_) => (1.0 - ultra) / n,
            };
            assert!((share - expected).abs() < 1e-6, "{pos} ultra {ultra}: {share} against {expected} ({shares:?})");
        }
        let total: f32 = target.iter().map(|t| t.2).sum();
        assert!((total - 1.0).abs() < 1e-5, "{total}");
    }

    // A run with both heads: the exact head on the tables' values, the value
    // head kept practical.
    let data = vec![PathBuf::from("../report/tests/data/selfplay.csv")];
    let config = TrainConfig {
        tablebase: tb.to_string_lossy().into_owned(),
        exact_weight: 0.0,
        exact_head: true,
        policy_head: true,
        epochs: 3,
        ..small_config()
    };
    let summary = train(&config, &data, &out_dir("heads-run"), false, |_| {}).unwrap();
    let net = Network::from_bytes(&std::fs::read(&summary.network).unwrap()).unwrap();
    assert_eq!(net.format_version(), 2);
    assert!(net.heads.exact.is_some() && net.heads.policy.is_some());
    let best = &summary.history[summary.best_epoch - 1];
    assert!((net.heads.confidence as f64 - best.confidence).abs() < 1e-6, "{best:?}");
    assert!((0.5..=1.0).contains(&net.heads.confidence));
    assert!(best.validation_exact_loss > 0.0 && best.validation_policy_loss > 0.0, "{best:?}");
    let first = &summary.history[0];
    let last = summary.history.last().unwrap();
    assert!(last.validation_policy_loss < first.validation_policy_loss, "{:?}", summary.history);
    // It has learnt something: below equal odds for every move.
    assert!(last.validation_policy_loss < last.policy_uniform_loss, "{last:?}");
    let metrics = std::fs::read_to_string(out_dir_keep("heads-run").join("metrics.csv")).unwrap();
    assert!(metrics.starts_with("epoch,") && metrics.lines().next().unwrap().ends_with(",confidence,trusted"));

    // burn's heads compute what the engine's do.
    let model = ValueNet::from_network(&net, &Device::flex());
    let boards = positions(64);
    let xs: Vec<f32> = boards.iter().flat_map(features).collect();
    let x = Tensor::<2>::from_data(TensorData::new(xs, [boards.len(), INPUTS]), &Device::flex());
    let out = model.forward_heads(x);
    let exact: Vec<f32> = out.exact.unwrap().try_into_vec_as::<f32>().unwrap();
    let policy: Vec<f32> = out.policy.unwrap().try_into_vec_as::<f32>().unwrap();
    for (i, p) in boards.iter().enumerate() {
        let engine = net.outputs(&features(p));
        let close = |a: &[f32], b: &[f32]| a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-4);
        assert!(close(&engine.exact.unwrap(), &exact[i * 3..i * 3 + 3]), "{p}");
        assert!(close(&engine.policy.unwrap(), &policy[i * 50..i * 50 + 50]), "{p}");
    }

    // A network with heads starts a run that trains them, not one that does
    // not; a plain network gains fresh heads.
    let init = TrainConfig { init: summary.network.display().to_string(), epochs: 1, ..config.clone() };
    train(&init, &data, &out_dir("heads-init"), false, |_| {}).unwrap();
    let plain = TrainConfig { exact_head: false, policy_head: false, ..init.clone() };
    let err = train(&plain, &data, &out_dir("heads-refused"), false, |_| {}).unwrap_err().to_string();
    assert!(err.contains("an exact and a policy head(s)"), "{err}");
    let bad = TrainConfig { confidence_precision: 0.4, ..config };
    let err = train(&bad, &data, &out_dir("heads-bad"), false, |_| {}).unwrap_err().to_string();
    assert!(err.contains("confidence_precision"), "{err}");
}

fn out_dir_keep(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("train-tests").join(name)
}
