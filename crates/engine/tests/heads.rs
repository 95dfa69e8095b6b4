//! A network's extra heads: the exact value and the move policy (file format
//! version 2), the evaluator's use of them and the search's.

use std::sync::Arc;

use alq_engine::{
    features, fnv1a64, Evaluator, Heads, Layer, Limits, Move, Network, NetworkError, NnEvaluator, Position, Score,
    SearchConfig, Searcher, EXACT_OUTPUTS, MAGIC, POLICY_OUTPUTS, RANK_STEP, SCORE_SCALE,
};
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn random_layer(rng: &mut ChaCha8Rng, inputs: usize, outputs: usize, scale: f32) -> Layer {
    let mut layer = Layer::zeros(inputs, outputs);
    for w in layer.weights.iter_mut().chain(layer.bias.iter_mut()) {
        *w = rng.gen_range(-scale..scale);
    }
    layer
}

/// A random network of hidden widths `hidden` with the heads asked for;
/// `exact_scale` sets how sure its exact head tends to be.
fn random_heads(hidden: &[usize], exact: bool, policy: bool, exact_scale: f32, seed: u64) -> Network {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut net = Network::zeros(hidden);
    for layer in &mut net.layers {
        let scale = 1.0 / (layer.inputs as f32).sqrt();
        *layer = random_layer(&mut rng, layer.inputs, layer.outputs, scale);
    }
    let last = *hidden.last().unwrap();
    net.heads = Heads {
        exact: exact.then(|| random_layer(&mut rng, last, EXACT_OUTPUTS, exact_scale)),
        confidence: 0.8,
        policy: policy.then(|| random_layer(&mut rng, last, POLICY_OUTPUTS, 1.0)),
    };
    net
}

/// Positions from random games, both sides to move.
fn positions(seed: u64) -> Vec<Position> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut out = Vec::new();
    for _ in 0..6 {
        let mut pos = Position::start();
        for _ in 0..40 {
            let moves = pos.legal_moves();
            let Some(&mv) = moves.choose(&mut rng) else { break };
            pos = pos.play(mv);
            out.push(pos);
        }
    }
    out
}

/// Network file bytes for a description and weights, with a right hash and
/// checksum (to test what the reader refuses beyond damage).
fn file(version: u32, description: &str, weights: usize) -> Vec<u8> {
    let mut out = MAGIC.to_vec();
    out.extend_from_slice(&version.to_le_bytes());
    out.extend_from_slice(&(description.len() as u32).to_le_bytes());
    out.extend_from_slice(description.as_bytes());
    out.extend_from_slice(&fnv1a64(description.as_bytes()).to_le_bytes());
    out.extend(std::iter::repeat_n(0u8, weights * 4));
    let checksum = fnv1a64(&out);
    out.extend_from_slice(&checksum.to_le_bytes());
    out
}

#[test]
fn heads_are_format_version_2_and_value_networks_stay_version_1() {
    for (exact, policy, heads) in [(true, true, "exact,policy"), (true, false, "exact"), (false, true, "policy")] {
        let net = random_heads(&[16, 8], exact, policy, 1.0, 3);
        let bytes = net.to_bytes();
        assert_eq!(u32::from_le_bytes(bytes[8..12].try_into().unwrap()), 2);
        let confidence = if exact { ";confidence=0.8" } else { "" };
        assert_eq!(
            net.description(),
            format!("inputs=50;layers=16,8,1;activation=crelu;scale=200;heads={heads}{confidence}")
        );
        assert_eq!(Network::from_bytes(&bytes).unwrap(), net);
        // The heads' weights are in the checksum.
        let mut damaged = bytes.clone();
        let at = bytes.len() - 20;
        damaged[at] ^= 1;
        assert!(matches!(Network::from_bytes(&damaged), Err(NetworkError::Checksum { .. })));
    }
    let plain = random_heads(&[16, 8], false, false, 1.0, 3);
    assert_eq!(plain.format_version(), 1);
    assert_eq!(u32::from_le_bytes(plain.to_bytes()[8..12].try_into().unwrap()), 1);
}

#[test]
fn the_reader_refuses_heads_it_cannot_use() {
    // Trunk 50 -> 4 -> 1 has 50*4+4 + 4+1 = 209 weights; an exact head 15,
    // a policy head 250.
    let trunk = "inputs=50;layers=4,1;activation=crelu;scale=200";
    let ok = file(2, &format!("{trunk};heads=exact;confidence=0.9"), 209 + 15);
    assert!(Network::from_bytes(&ok).unwrap().heads.exact.is_some());
    let ok = file(2, &format!("{trunk};heads=policy"), 209 + 250);
    assert!(Network::from_bytes(&ok).unwrap().heads.policy.is_some());
    for (version, tail, weights, problem) in [
        (1, ";heads=policy", 209 + 250, "version 1 file cannot have extra heads"),
        (2, "", 209, "version 2 file must name its extra heads"),
        (2, ";heads=value", 209, "unknown head"),
        (2, ";heads=policy,policy", 209 + 500, "named twice"),
        (2, ";heads=exact", 209 + 15, "come together"),
        (2, ";heads=policy;confidence=0.9", 209 + 250, "come together"),
        (2, ";heads=exact;confidence=0.3", 209 + 15, "from 0.5 to 1"),
        (2, ";heads=exact;confidence=high", 209 + 15, "not a number"),
        // Not as written: the heads out of file order, a confidence twice or
        // written otherwise.
        (2, ";heads=policy,exact;confidence=0.9", 209 + 265, "not in the written form"),
        (2, ";heads=exact;confidence=0.9;confidence=0.8", 209 + 15, "not in the written form"),
        (2, ";heads=exact;confidence=0.900", 209 + 15, "not in the written form"),
    ] {
        let err = Network::from_bytes(&file(version, &format!("{trunk}{tail}"), weights)).unwrap_err();
        assert!(matches!(err, NetworkError::Architecture { .. }), "{tail}: {err}");
        assert!(err.to_string().contains(problem), "{tail}: {err}");
    }
    // Too few weights for the heads named.
    let short = file(2, &format!("{trunk};heads=policy"), 209 + 249);
    assert!(matches!(Network::from_bytes(&short), Err(NetworkError::Truncated(_))));
    assert_eq!(Network::from_bytes(&file(3, trunk, 209)).unwrap_err(), NetworkError::Version { found: 3 });
}

#[test]
fn the_evaluator_ranks_by_the_confident_exact_head_then_by_value() {
    // Sure exact heads (large logits) so that all three ranks occur.
    // Win and loss logits of ±20 (h0 - h1) from the last hidden layer's first
    // two units, so that all three ranks occur.
    let mut net = random_heads(&[16, 8], true, false, 1.0, 5);
    let exact = net.heads.exact.as_mut().unwrap();
    *exact = Layer::zeros(8, EXACT_OUTPUTS);
    exact.weights[0] = 20.0; // h0 -> win
    exact.weights[2] = -20.0; // h0 -> loss
    exact.weights[3] = -20.0; // h1 -> win
    exact.weights[5] = 20.0; // h1 -> loss
                             // Centred on the median of h0 - h1 over the positions.
    let mut d: Vec<f32> = positions(9).iter().map(|p| net.outputs(&features(p)).exact.unwrap()[0]).collect();
    d.sort_by(f32::total_cmp);
    let median = d[d.len() / 2];
    let exact = net.heads.exact.as_mut().unwrap();
    exact.bias[0] = -median;
    exact.bias[2] = median;
    let net = Arc::new(net);
    let mut ranks = [0usize; 3];
    for pos in positions(9) {
        let out = net.outputs(&features(&pos));
        let rank = net.heads.rank(out.exact.unwrap());
        ranks[(rank + 1) as usize] += 1;
        let cp = (out.value * SCORE_SCALE).clamp(-(RANK_STEP / 2 - 1) as f32, (RANK_STEP / 2 - 1) as f32);
        let mut eval = NnEvaluator::new(net.clone());
        eval.reset(&pos);
        let score = eval.evaluate(&pos);
        assert!((score - (rank * RANK_STEP + cp.round() as i32)).abs() <= 1, "{pos}: {score} vs rank {rank}, {cp}");
        // Without the head it is the value network alone.
        let mut plain = NnEvaluator::new(net.clone()).with_heads(false, false);
        plain.reset(&pos);
        assert!((plain.evaluate(&pos) - (out.value * SCORE_SCALE).round() as i32).abs() <= 1);
        assert!(plain.describe().ends_with(",no-exact"));
    }
    assert!(ranks.iter().all(|&n| n > 0), "every rank occurs: {ranks:?}");
}

#[test]
fn policy_hints_are_the_heads_move_logits_on_every_path() {
    let net = Arc::new(random_heads(&[24, 8], true, true, 1.0, 7));
    for pos in positions(11) {
        let moves: Vec<Move> = pos.legal_moves().to_vec();
        let out = net.outputs(&features(&pos));
        let logits = out.policy.unwrap();
        let mut vector = NnEvaluator::new(net.clone());
        let mut portable = NnEvaluator::portable(net.clone());
        let (mut a, mut b) = (vec![0; moves.len()], vec![0; moves.len()]);
        vector.reset(&pos);
        portable.reset(&pos);
        assert!(vector.policy(&pos, &moves, &mut a));
        assert!(portable.policy(&pos, &moves, &mut b));
        assert_eq!(a, b, "{pos}");
        for (&mv, &hint) in moves.iter().zip(&a) {
            let expected = Heads::move_logit(&logits, pos.side_to_move(), mv) * 1024.0;
            assert!((hint as f32 - expected).abs() <= 2.0, "{pos} {mv}: {hint} vs {expected}");
        }
        // A boxed evaluator (as players build them) passes the policy on.
        let mut boxed: Box<dyn Evaluator> = Box::new(NnEvaluator::new(net.clone()));
        let mut c = vec![0; moves.len()];
        boxed.reset(&pos);
        assert!(boxed.policy(&pos, &moves, &mut c));
        assert_eq!(c, a);
        let mut off = NnEvaluator::new(net.clone()).with_heads(true, false);
        off.reset(&pos);
        let mut untouched = vec![7; moves.len()];
        assert!(!off.policy(&pos, &moves, &mut untouched));
        assert!(untouched.iter().all(|&h| h == 7));
    }
}

/// Counts the policy questions the search asks its evaluator.
struct Counting {
    inner: NnEvaluator,
    asked: Arc<std::sync::atomic::AtomicUsize>,
}

impl Evaluator for Counting {
    fn evaluate(&mut self, pos: &Position) -> i32 {
        self.inner.evaluate(pos)
    }
    fn describe(&self) -> String {
        self.inner.describe()
    }
    fn make(&mut self, before: &Position, mv: Move, after: &Position) {
        self.inner.make(before, mv, after)
    }
    fn unmake(&mut self) {
        self.inner.unmake()
    }
    fn reset(&mut self, root: &Position) {
        self.inner.reset(root)
    }
    fn policy(&mut self, pos: &Position, moves: &[Move], hints: &mut [i32]) -> bool {
        self.asked.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        self.inner.policy(pos, moves, hints)
    }
}

#[test]
fn the_search_orders_by_the_policy_without_changing_its_value() {
    let net = Arc::new(random_heads(&[16, 8], false, true, 1.0, 13));
    for pos in positions(17).into_iter().step_by(23) {
        let search = |policy: bool, depth: u32| {
            let asked = Arc::new(std::sync::atomic::AtomicUsize::new(0));
            let eval =
                Counting { inner: NnEvaluator::new(net.clone()).with_heads(false, policy), asked: asked.clone() };
            let mut searcher = Searcher::new(eval, SearchConfig::default());
            let result = searcher.search_position(&pos, Limits::depth(depth));
            (result, asked.load(std::sync::atomic::Ordering::Relaxed))
        };
        let (with, asked) = search(true, 5);
        let (without, _) = search(false, 5);
        if with.best.is_none() {
            continue;
        }
        assert!(asked > 0, "{pos}: a depth-5 search asks for the policy");
        // The same value up to what the transposition table's reuse of
        // entries stored in another order may shift (a few centipawns).
        let (Score::Cp(a), Score::Cp(b)) = (with.score, without.score) else {
            assert_eq!(with.score, without.score, "{pos}: the same proven result in either order");
            continue;
        };
        assert!((a - b).abs() <= 5, "{pos}: {a} with the policy, {b} without");
        // Near the leaves the search does not ask.
        assert_eq!(search(true, 1).1, 0);
    }
}
