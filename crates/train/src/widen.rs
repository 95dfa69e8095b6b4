//! Function-preserving widening (the idea of Net2Net's wider networks, here
//! with zero weights out of the new units rather than copied units): a
//! network with more hidden units that computes exactly what a narrower one
//! computes, so that training can continue from a network into a larger
//! architecture.
//!
//! Every new unit gets random incoming weights and bias (burn's default
//! range for a linear layer, `±1/sqrt(fan_in)`), and every weight from a new
//! unit into an old unit is zero. The old units therefore see exactly the
//! inputs they saw before, the output layer keeps its width, and the
//! network's output is unchanged; the new units start learning as soon as
//! training moves their zero outgoing weights.

use alq_engine::{Heads, Layer, Network};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// A network that cannot be widened to the widths asked for.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "cannot widen hidden widths {from:?} to the config's {to:?}: the number of hidden layers (the depth) must be \
     the same and no width may shrink"
)]
pub struct WidenError {
    pub from: Vec<usize>,
    pub to: Vec<usize>,
}

/// `net` widened to the hidden widths `hidden` (same depth, each width at
/// least the old one), with the new units' weights drawn from `seed`.
pub fn widen(net: &Network, hidden: &[usize], seed: u64) -> Result<Network, WidenError> {
    let old = net.hidden();
    if old.len() != hidden.len() || old.iter().zip(hidden).any(|(o, n)| n < o) {
        return Err(WidenError { from: old.to_vec(), to: hidden.to_vec() });
    }
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let last = net.layers.len() - 1;
    let layers = net
        .layers
        .iter()
        .enumerate()
        .map(|(k, layer)| {
            let inputs = if k == 0 { layer.inputs } else { hidden[k - 1] };
            let outputs = if k == last { layer.outputs } else { hidden[k] };
            let bound = 1.0 / (inputs as f32).sqrt();
            let mut wide = Layer::zeros(inputs, outputs);
            for i in 0..inputs {
                for o in 0..outputs {
                    wide.weights[i * outputs + o] = if i < layer.inputs && o < layer.outputs {
                        layer.weights[i * layer.outputs + o]
                    } else if o < layer.outputs {
                        // A new unit into an old one: nothing, so the old
                        // units compute what they computed.
                        0.0
                    } else {
                        rng.gen_range(-bound..bound)
                    };
                }
            }
            for o in 0..outputs {
                wide.bias[o] = if o < layer.outputs { layer.bias[o] } else { rng.gen_range(-bound..bound) };
            }
            wide
        })
        .collect();
    // The extra heads read the last hidden layer as the output layer does:
    // nothing from its new units either.
    let last_width = *hidden.last().expect("at least one hidden layer");
    let widen_head = |layer: &Layer| {
        let mut wide = Layer::zeros(last_width, layer.outputs);
        wide.weights[..layer.weights.len()].copy_from_slice(&layer.weights);
        wide.bias.copy_from_slice(&layer.bias);
        wide
    };
    let heads = Heads {
        exact: net.heads.exact.as_ref().map(widen_head),
        confidence: net.heads.confidence,
        policy: net.heads.policy.as_ref().map(widen_head),
    };
    Ok(Network { layers, rules: net.rules, heads })
}

#[cfg(test)]
mod tests {
    use super::*;
    use alq_engine::INPUTS;

    fn random_net(hidden: &[usize], seed: u64) -> Network {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut net = Network::zeros(hidden);
        for layer in &mut net.layers {
            for w in layer.weights.iter_mut().chain(layer.bias.iter_mut()) {
                *w = rng.gen_range(-0.5..0.5);
            }
        }
        net
    }

    #[test]
    fn widening_keeps_the_output_exactly_and_draws_the_new_units() {
        let net = random_net(&[16, 8], 3);
        let wide = widen(&net, &[40, 24], 9).unwrap();
        assert_eq!(wide.hidden(), vec![40, 24]);
        assert_eq!(wide.layers.last().unwrap().outputs, 1);
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        for _ in 0..200 {
            let features: Vec<f32> = (0..INPUTS).map(|_| if rng.gen_bool(0.4) { 1.0 } else { 0.0 }).collect();
            // The old units' sums gain only exact zeros, in the same order.
            assert_eq!(net.forward(&features), wide.forward(&features));
        }
        // The new units have drawn incoming weights and biases.
        let first = &wide.layers[0];
        assert!((0..INPUTS).any(|i| first.weights[i * 40 + 39] != 0.0));
        assert!(wide.layers[1].bias[23] != 0.0);
        // And the same seed gives the same network.
        assert_eq!(widen(&net, &[40, 24], 9).unwrap(), wide);
        assert_ne!(widen(&net, &[40, 24], 10).unwrap(), wide);
    }

    /// The search's incremental evaluator sees the same network: the
    /// previously shipped 64-16 network and its widening search alike, node
    /// for node.
    #[test]
    fn a_widened_network_searches_exactly_as_the_original() {
        use alq_engine::{Evaluator, Game, GameConfig, Limits, NnEvaluator, Position, SearchConfig, Searcher};
        use rand::seq::SliceRandom;
        use std::sync::Arc;
        let bytes = std::fs::read("../../data/networks/previous-64x16.alqnet").unwrap();
        let net = Arc::new(Network::from_bytes(&bytes).unwrap());
        let wide = Arc::new(widen(&net, &[128, 32], 1).unwrap());
        let (mut a, mut b) = (NnEvaluator::new(net.clone()), NnEvaluator::new(wide.clone()));
        let mut rng = ChaCha8Rng::seed_from_u64(2);
        let mut pos = Position::start();
        a.reset(&pos);
        b.reset(&pos);
        for _ in 0..60 {
            let Some(&mv) = pos.legal_moves().choose(&mut rng) else { break };
            let next = pos.play(mv);
            a.make(&pos, mv, &next);
            b.make(&pos, mv, &next);
            pos = next;
            assert_eq!(a.evaluate(&pos), b.evaluate(&pos), "on {pos}");
        }
        let game = Game::new(Position::start(), GameConfig::default());
        let search = |e: NnEvaluator| {
            let r = Searcher::new(e, SearchConfig::default()).search(&game, Limits::nodes(20_000), |_| {});
            (r.best, r.score, r.nodes, r.pv)
        };
        assert_eq!(search(NnEvaluator::new(net)), search(NnEvaluator::new(wide)));
    }

    #[test]
    fn widening_to_the_same_widths_changes_nothing() {
        let net = random_net(&[12, 4], 1);
        assert_eq!(widen(&net, &[12, 4], 2).unwrap(), net);
    }

    #[test]
    fn shrinking_or_changing_depth_is_refused() {
        let net = random_net(&[16, 8], 3);
        let err = widen(&net, &[8, 8], 1).unwrap_err();
        assert_eq!(err, WidenError { from: vec![16, 8], to: vec![8, 8] });
        assert!(err.to_string().contains("no width may shrink"), "{err}");
        assert!(widen(&net, &[16, 8, 4], 1).unwrap_err().to_string().contains("depth"));
    }
}
