//! The value network in burn, and its export to the engine's format.

use burn::module::Param;
use burn::nn::{Linear, LinearConfig};
use burn::prelude::*;
use burn::tensor::activation::relu;

use alq_engine::{Heads, Layer, Network, EXACT_OUTPUTS, INPUTS, POLICY_OUTPUTS};

/// `INPUTS -> hidden... -> 1` (a score logit) or `-> 3` (win, draw and loss
/// logits), clipped ReLU after every hidden layer, and optionally the extra
/// heads (exact value, move policy) on the last hidden layer. The same
/// function as `alq_engine::Network`'s layers and heads.
#[derive(Module, Debug)]
pub struct ValueNet {
    layers: Vec<Linear>,
    exact: Option<Linear>,
    policy: Option<Linear>,
}

/// What [`ValueNet::forward_heads`] gives: `[batch, outputs]` logits of the
/// value head and of the extra heads it has.
pub struct HeadOutputs {
    pub value: Tensor<2>,
    pub exact: Option<Tensor<2>>,
    pub policy: Option<Tensor<2>>,
}

impl ValueNet {
    /// A scalar network: one score logit.
    pub fn new(hidden: &[usize], device: &Device) -> ValueNet {
        ValueNet::with_outputs(hidden, 1, device)
    }

    /// A network with `outputs` outputs: 1 (a score logit) or 3 (win, draw
    /// and loss logits).
    pub fn with_outputs(hidden: &[usize], outputs: usize, device: &Device) -> ValueNet {
        let mut sizes = vec![INPUTS];
        sizes.extend_from_slice(hidden);
        sizes.push(outputs);
        ValueNet {
            layers: sizes.windows(2).map(|w| LinearConfig::new(w[0], w[1]).init(device)).collect(),
            exact: None,
            policy: None,
        }
    }

    /// The same network with fresh extra heads added where asked for and
    /// missing (heads it has are kept).
    pub fn with_heads(mut self, exact: bool, policy: bool, device: &Device) -> ValueNet {
        // The shape without initialising the weights (burn draws them lazily:
        // drawing them here would change a seeded run's numbers).
        let last = self.layers.last().expect("an output layer").weight.lazy_shape()[0];
        if exact && self.exact.is_none() {
            self.exact = Some(LinearConfig::new(last, EXACT_OUTPUTS).init(device));
        }
        if policy && self.policy.is_none() {
            self.policy = Some(LinearConfig::new(last, POLICY_OUTPUTS).init(device));
        }
        self
    }

    /// A model holding the weights of `net` (heads included), to train
    /// further from them.
    pub fn from_network(net: &Network, device: &Device) -> ValueNet {
        let linear = |l: &Layer| Linear {
            weight: Param::from_tensor(Tensor::<2>::from_data(
                TensorData::new(l.weights.clone(), [l.inputs, l.outputs]),
                device,
            )),
            bias: Some(Param::from_tensor(Tensor::<1>::from_data(
                TensorData::new(l.bias.clone(), [l.outputs]),
                device,
            ))),
        };
        ValueNet {
            layers: net.layers.iter().map(linear).collect(),
            exact: net.heads.exact.as_ref().map(linear),
            policy: net.heads.policy.as_ref().map(linear),
        }
    }

    /// `[batch, INPUTS]` features to `[batch, outputs]` value logits.
    pub fn forward(&self, x: Tensor<2>) -> Tensor<2> {
        self.forward_heads(x).value
    }

    /// `[batch, INPUTS]` features to every head's logits.
    pub fn forward_heads(&self, x: Tensor<2>) -> HeadOutputs {
        self.forward_heads_with(x, true)
    }

    /// As [`ValueNet::forward_heads`]; with `shape_trunk` false the extra
    /// heads read the last hidden layer detached, so their losses train only
    /// their own weights.
    pub fn forward_heads_with(&self, x: Tensor<2>, shape_trunk: bool) -> HeadOutputs {
        let last = self.layers.len() - 1;
        let mut x = x;
        for layer in &self.layers[..last] {
            x = layer.forward(x);
            // clamp(x, 0, 1) written as relu(x) - relu(x - 1): the same
            // function, but its gradient is much cheaper on the flex
            // backend than clamp's masked fill.
            x = relu(x.clone()) - relu(x.sub_scalar(1.0));
        }
        let shared = if shape_trunk { x.clone() } else { x.clone().detach() };
        // The value output first: burn draws lazily initialised weights at
        // their first use, so a seeded run from scratch draws the value
        // layer's as it would without heads.
        let value = self.layers[last].forward(x);
        HeadOutputs {
            exact: self.exact.as_ref().map(|l| l.forward(shared.clone())),
            policy: self.policy.as_ref().map(|l| l.forward(shared)),
            value,
        }
    }

    /// Whether it has an exact head and a policy head.
    pub fn heads(&self) -> (bool, bool) {
        (self.exact.is_some(), self.policy.is_some())
    }

    /// The weights in the engine's format (burn's `[in, out]` layout is the
    /// engine's input-major layout, so no transpose is needed).
    /// The exact head's confidence is [`Heads::DEFAULT_CONFIDENCE`] until
    /// the trainer measures one.
    pub fn export(&self) -> Network {
        let layer = |l: &Linear| {
            let [inputs, outputs] = l.weight.val().dims();
            let weights: Vec<f32> = l.weight.val().try_into_vec_as::<f32>().expect("f32 weights");
            let bias: Vec<f32> = match &l.bias {
                Some(b) => b.val().try_into_vec_as::<f32>().expect("f32 biases"),
                None => vec![0.0; outputs],
            };
            Layer { inputs, outputs, weights, bias }
        };
        Network {
            layers: self.layers.iter().map(layer).collect(),
            rules: alq_engine::RuleSet::BrainKing,
            heads: Heads {
                exact: self.exact.as_ref().map(layer),
                confidence: Heads::DEFAULT_CONFIDENCE,
                policy: self.policy.as_ref().map(layer),
            },
        }
    }
}
