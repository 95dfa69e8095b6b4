//! The value network in burn, and its export to the engine's format.

use burn::module::Param;
use burn::nn::{Linear, LinearConfig};
use burn::prelude::*;
use burn::tensor::activation::relu;

use alq_engine::{Layer, Network, INPUTS};

/// `INPUTS -> hidden... -> 1` (a score logit) or `-> 3` (win, draw and loss
/// logits), clipped ReLU after every hidden layer. The same function as
/// `alq_engine::Network`'s layers.
#[derive(Module, Debug)]
pub struct ValueNet {
    layers: Vec<Linear>,
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
        ValueNet { layers: sizes.windows(2).map(|w| LinearConfig::new(w[0], w[1]).init(device)).collect() }
    }

    /// A model holding the weights of `net`, to train further from them.
    pub fn from_network(net: &Network, device: &Device) -> ValueNet {
        ValueNet {
            layers: net
                .layers
                .iter()
                .map(|l| Linear {
                    weight: Param::from_tensor(Tensor::<2>::from_data(
                        TensorData::new(l.weights.clone(), [l.inputs, l.outputs]),
                        device,
                    )),
                    bias: Some(Param::from_tensor(Tensor::<1>::from_data(
                        TensorData::new(l.bias.clone(), [l.outputs]),
                        device,
                    ))),
                })
                .collect(),
        }
    }

    /// `[batch, INPUTS]` features to `[batch, outputs]` logits.
    pub fn forward(&self, x: Tensor<2>) -> Tensor<2> {
        let last = self.layers.len() - 1;
        let mut x = x;
        for (i, layer) in self.layers.iter().enumerate() {
            x = layer.forward(x);
            if i < last {
                // clamp(x, 0, 1) written as relu(x) - relu(x - 1): the same
                // function, but its gradient is much cheaper on the flex
                // backend than clamp's masked fill.
                x = relu(x.clone()) - relu(x.sub_scalar(1.0));
            }
        }
        x
    }

    /// The weights in the engine's format (burn's `[in, out]` layout is the
    /// engine's input-major layout, so no transpose is needed).
    pub fn export(&self) -> Network {
        let layers = self
            .layers
            .iter()
            .map(|l| {
                let [inputs, outputs] = l.weight.val().dims();
                let weights: Vec<f32> = l.weight.val().try_into_vec_as::<f32>().expect("f32 weights");
                let bias: Vec<f32> = match &l.bias {
                    Some(b) => b.val().try_into_vec_as::<f32>().expect("f32 biases"),
                    None => vec![0.0; outputs],
                };
                Layer { inputs, outputs, weights, bias }
            })
            .collect();
        Network { layers, rules: alq_engine::RuleSet::BrainKing }
    }
}
