//! The network file format and the incremental evaluator.

use std::sync::Arc;

use alq_engine::{
    features, Evaluator, Game, GameConfig, Limits, Network, NetworkError, NnEvaluator, Position, SearchConfig,
    Searcher, Side, INPUTS,
};
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn random_network(hidden: &[usize], seed: u64) -> Network {
    random_network_with_outputs(hidden, 1, seed)
}

/// A random network with `outputs` outputs (1: a score logit, 3: win, draw
/// and loss logits).
fn random_network_with_outputs(hidden: &[usize], outputs: usize, seed: u64) -> Network {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut net = Network::zeros(hidden);
    let last = net.layers.last_mut().unwrap();
    *last = alq_engine::Layer::zeros(last.inputs, outputs);
    for layer in &mut net.layers {
        let scale = 1.0 / (layer.inputs as f32).sqrt();
        for w in layer.weights.iter_mut().chain(layer.bias.iter_mut()) {
            *w = rng.gen_range(-scale..scale);
        }
    }
    net
}

#[test]
fn file_round_trip_and_refusals() {
    let net = random_network(&[16, 8], 1);
    let bytes = net.to_bytes();
    assert_eq!(Network::from_bytes(&bytes).unwrap(), net);
    assert_eq!(net.description(), "inputs=50;layers=16,8,1;activation=crelu;scale=200");

    assert_eq!(Network::from_bytes(b"PK\x03\x04 a zip file, not a network").unwrap_err(), NetworkError::BadMagic);
    assert!(matches!(Network::from_bytes(&bytes[..bytes.len() - 5]), Err(NetworkError::Truncated(_))));
    assert!(matches!(Network::from_bytes(&bytes[..10]), Err(NetworkError::Truncated(_))));
    let mut flipped = bytes.clone();
    let mid = bytes.len() / 2;
    flipped[mid] ^= 0x40;
    assert!(matches!(Network::from_bytes(&flipped), Err(NetworkError::Checksum { .. })));
    let mut version = bytes.clone();
    version[8] = 9;
    assert_eq!(Network::from_bytes(&version).unwrap_err(), NetworkError::Version { found: 9 });
    let mut longer = bytes.clone();
    longer.push(0);
    assert_eq!(Network::from_bytes(&longer).unwrap_err(), NetworkError::Trailing(1));
    // A description edited without its hash is caught.
    let mut arch = bytes.clone();
    let at = arch.windows(9).position(|w| w == b"layers=16").unwrap();
    arch[at + 7] = b'2';
    assert!(matches!(Network::from_bytes(&arch), Err(NetworkError::ArchitectureHash { .. })));
    for e in [NetworkError::BadMagic, NetworkError::Version { found: 2 }] {
        assert!(!e.to_string().is_empty());
    }
}

#[test]
fn features_are_seen_from_the_side_to_move() {
    let pos = Position::start();
    let f = features(&pos);
    assert_eq!(f.iter().filter(|&&x| x == 1.0).count(), 24);
    // Black to move in the colour-mirrored start sees the same features.
    let mirrored = "BBBBB/BBBBB/WW.BB/WWWWW/WWWWW b".parse::<Position>().unwrap();
    let flipped_start = Position::from_parts(mirrored.pieces(Side::White), mirrored.pieces(Side::Black), Side::Black);
    let g = features(&flipped_start);
    // Black's own pieces on its ranks 1-2 (board ranks 5-4) map to features 0-9.
    assert!(g[..10].iter().all(|&x| x == 1.0));
    assert_eq!(g.len(), INPUTS);
}

#[test]
fn incremental_evaluation_equals_the_forward_pass() {
    incremental_equals_forward(Arc::new(random_network(&[32, 8], 2)));
}

#[test]
fn incremental_evaluation_of_a_win_draw_loss_network_equals_the_forward_pass() {
    // Larger weights, so that some positions saturate the softmax.
    let mut net = random_network_with_outputs(&[32, 8], 3, 5);
    for w in &mut net.layers.last_mut().unwrap().weights {
        *w *= 6.0;
    }
    incremental_equals_forward(Arc::new(net));
}

fn incremental_equals_forward(net: Arc<Network>) {
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    let mut nn = NnEvaluator::new(net.clone());
    for _ in 0..40 {
        let mut pos = Position::start();
        nn.reset(&pos);
        let mut depth = 0;
        for _ in 0..60 {
            let moves = pos.legal_moves();
            let Some(&mv) = moves.choose(&mut rng) else { break };
            let next = pos.play(mv);
            nn.make(&pos, mv, &next);
            depth += 1;
            pos = next;
            let expected = (net.forward(&features(&pos)) * alq_engine::SCORE_SCALE).round() as i32;
            assert!((nn.evaluate(&pos) - expected).abs() <= 1, "{pos}");
        }
        for _ in 0..depth {
            nn.unmake();
        }
        let start = Position::start();
        let expected = (net.forward(&features(&start)) * alq_engine::SCORE_SCALE).round() as i32;
        assert!((nn.evaluate(&start) - expected).abs() <= 1);
    }
}

#[test]
fn the_searcher_runs_on_the_network_deterministically() {
    let net = Arc::new(random_network(&[32, 8], 4));
    let game = Game::new(Position::start(), GameConfig::default());
    let run = || {
        let mut s = Searcher::new(NnEvaluator::new(net.clone()), SearchConfig::default());
        let r = s.search(&game, Limits::nodes(30_000), |_| {});
        (r.best, r.score, r.nodes)
    };
    assert_eq!(run(), run());
    assert!(run().0.is_some());
}

/// A network names the rule set it was trained for; BrainKing networks name
/// none, so their bytes and ids are those of the files written before rule
/// sets existed.
#[test]
fn a_network_file_names_its_rules() {
    let mut net = random_network(&[8], 3);
    let brainking = net.to_bytes();
    assert!(!net.description().contains("rules"));
    net.rules = alq_engine::RuleSet::Classic;
    assert_eq!(net.description(), "inputs=50;layers=8,1;activation=crelu;scale=200;rules=classic");
    let read = Network::from_bytes(&net.to_bytes()).unwrap();
    assert_eq!(read.rules, alq_engine::RuleSet::Classic);
    assert_ne!(read.id(), Network::from_bytes(&brainking).unwrap().id());
    assert_eq!(Network::from_bytes(&brainking).unwrap().rules, alq_engine::RuleSet::BrainKing);
}

/// A win/draw/loss network: three output logits, read and written like any
/// network, searched with the logit of its expected score
/// `p_win + p_draw / 2`; other output widths are refused.
#[test]
fn a_win_draw_loss_network_scores_its_expected_result() {
    let net = random_network_with_outputs(&[16, 8], 3, 6);
    assert!(net.is_wdl());
    assert!(!random_network(&[16, 8], 6).is_wdl());
    assert_eq!(net.description(), "inputs=50;layers=16,8,3;activation=crelu;scale=200");
    assert_eq!(Network::from_bytes(&net.to_bytes()).unwrap(), net);

    // The expected score's logit, computed the long way from the outputs.
    assert_eq!(alq_engine::score_logit(&[0.7]), 0.7);
    let (w, d, l) = (1.5f32, 0.25f32, -2.0f32);
    let sum = w.exp() + d.exp() + l.exp();
    let e = (w.exp() + 0.5 * d.exp()) / sum;
    assert!((alq_engine::score_logit(&[w, d, l]) - (e / (1.0 - e)).ln()).abs() < 1e-5);
    // Equal win and loss logits are an even game whatever the draw logit.
    assert!(alq_engine::score_logit(&[0.3, 5.0, 0.3]).abs() < 1e-6);
    // Saturated outputs give a finite or clamped score, never NaN.
    for out in [[200.0, -200.0, -200.0], [-200.0, -200.0, 200.0], [-200.0, 200.0, -200.0]] {
        assert!(!alq_engine::score_logit(&out).is_nan());
    }
    let mut nn = NnEvaluator::new(Arc::new(net.clone()));
    let pos = Position::start();
    nn.reset(&pos);
    let expected = (net.forward(&features(&pos)) * alq_engine::SCORE_SCALE).round() as i32;
    assert!((nn.evaluate(&pos) - expected).abs() <= 1);

    let two = random_network_with_outputs(&[16, 8], 2, 6);
    match Network::from_bytes(&two.to_bytes()) {
        Err(NetworkError::Architecture { problem, .. }) => assert!(problem.contains("ending in 1"), "{problem}"),
        other => panic!("a two-output network was not refused: {other:?}"),
    }
}

/// The evaluator's vector loops (AVX2 where the CPU has it) give exactly the
/// evaluations of the baseline loops, at widths that fill whole vector
/// blocks and at widths that leave remainders, for scalar and win/draw/loss
/// outputs, along random games and in a search.
#[test]
fn vector_and_baseline_evaluators_agree_exactly() {
    for net in networks_of_every_shape(11) {
        let net = Arc::new(net);
        let mut fast = NnEvaluator::new(net.clone());
        let mut portable = NnEvaluator::portable(net.clone());
        assert_eq!(portable.instruction_set(), "baseline");
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            assert_eq!(fast.instruction_set(), "avx2", "the vector path is the one compared");
        }
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        for _ in 0..30 {
            let mut pos = Position::start();
            fast.reset(&pos);
            portable.reset(&pos);
            for _ in 0..80 {
                let moves = pos.legal_moves();
                let Some(&mv) = moves.choose(&mut rng) else {
                    break;
                };
                let next = pos.play(mv);
                fast.make(&pos, mv, &next);
                portable.make(&pos, mv, &next);
                pos = next;
                assert_eq!(fast.evaluate(&pos), portable.evaluate(&pos), "{} on {pos}", fast.instruction_set());
            }
        }
        let game = Game::new(Position::start(), GameConfig::default());
        let search = |e: NnEvaluator| {
            let r = Searcher::new(e, SearchConfig::default()).search(&game, Limits::nodes(20_000), |_| {});
            (r.best, r.score, r.nodes, r.pv)
        };
        assert_eq!(search(NnEvaluator::new(net.clone())), search(NnEvaluator::portable(net.clone())));
    }
}

/// Random networks whose widths fill whole vector blocks (128, 32) and leave
/// remainders (37, 13, 5), with scalar and win/draw/loss outputs.
fn networks_of_every_shape(seed: u64) -> [Network; 3] {
    [
        random_network(&[128, 32], seed),
        random_network(&[37, 13, 5], seed + 1),
        random_network_with_outputs(&[64, 24], 3, seed + 2),
    ]
}

/// Every layer as a plain triple loop over all inputs, in input order.
fn naive_output(net: &Network, features: &[f32]) -> Vec<f32> {
    let mut current = features.to_vec();
    for (k, layer) in net.layers.iter().enumerate() {
        let mut next = layer.bias.clone();
        for (i, &x) in current.iter().enumerate() {
            for (o, v) in next.iter_mut().enumerate() {
                *v += x * layer.weights[i * layer.outputs + o];
            }
        }
        if k + 1 < net.layers.len() {
            for v in &mut next {
                *v = v.clamp(0.0, 1.0);
            }
        }
        current = next;
    }
    current
}

/// The network's loops (sparse, in blocks of outputs) compute exactly what
/// the plain definition does: skipping zero inputs and blocking outputs
/// changes no result.
#[test]
fn the_forward_pass_equals_the_plain_definition_exactly() {
    let mut rng = ChaCha8Rng::seed_from_u64(9);
    for net in networks_of_every_shape(21) {
        for _ in 0..20 {
            let mut pos = Position::start();
            for _ in 0..40 {
                let f = features(&pos);
                let expected = alq_engine::score_logit(&naive_output(&net, &f));
                assert_eq!(net.forward(&f), expected, "{pos}");
                let moves = pos.legal_moves();
                let Some(&mv) = moves.choose(&mut rng) else { break };
                pos = pos.play(mv);
            }
        }
    }
}
