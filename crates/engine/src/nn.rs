//! The neural value network: its file format, a plain-Rust forward pass, and
//! [`NnEvaluator`], which keeps the first layer up to date incrementally as
//! the search makes and takes back moves (the NNUE idea).
//!
//! # Inputs
//!
//! [`INPUTS`] = 50 features, seen from one side (the *perspective*): feature
//! `q` is an own piece on point `q`, feature `25 + q` an opponent piece, where
//! `q` is the point itself for White's perspective and the point mirrored
//! top-bottom (`rank -> 6 - rank`) for Black's, so that "own pieces move up"
//! for both. The network is evaluated from the side to move's perspective.
//!
//! # Architecture
//!
//! `50 -> h1 -> ... -> 1` or `50 -> h1 -> ... -> 3`: every layer is affine,
//! every hidden layer is followed by a clipped ReLU (`clamp(x, 0, 1)`).
//!
//! - A *scalar* network (last width 1) outputs a logit of the side to move's
//!   expected score.
//! - A *win/draw/loss* network (last width 3) outputs the logits of the side
//!   to move's win, draw and loss; its expected score is
//!   `E = p_win + p_draw / 2` under their softmax, and its logit is
//!   `ln((e^w + e^d / 2) / (e^l + e^d / 2))`.
//!
//! The engine's centipawns are the expected score's logit times
//! `SCORE_SCALE`, matching the trainer's target `sigmoid(cp / SCORE_SCALE)`.
//!
//! # File format (version 1, little-endian)
//!
//! | bytes | content |
//! |---|---|
//! | 8 | magic `ALQNET\x1a\n` |
//! | 4 | format version, `1` |
//! | 4 | length `n` of the architecture description |
//! | n | description, UTF-8: `inputs=50;layers=128,32,1;activation=crelu;scale=200`, then `;rules=NAME` for a network trained under other rules than BrainKing's |
//! | 8 | architecture hash: FNV-1a 64 of the description |
//! | … | per layer: weights as f32, `[inputs][outputs]` (input-major, burn's layout), then the biases |
//! | 8 | checksum: FNV-1a 64 of every byte before it |
//!
//! # Extra heads (format version 2)
//!
//! A network may have an *exact* head (three logits: the exact win, draw and
//! loss of the side to move) and a *policy* head (50 logits ordering moves),
//! each one affine layer on the last hidden layer (see [`Heads`]). Its file
//! is version 2: the description adds `;heads=exact,policy` (those present)
//! and, with an exact head, `;confidence=C`, the probability from which the
//! evaluator trusts its win or loss; the heads' weights follow the value
//! layers', exact first. A network without heads is written as version 1, so
//! the files and ids of older networks do not change, and both versions are
//! read.

use std::fmt;
use std::sync::Arc;

mod format;
mod heads;

pub use format::HEADS_FORMAT_VERSION;
pub use heads::{perspective_point, Heads, EXACT_OUTPUTS, POLICY_OUTPUTS, RANK_STEP};

use thiserror::Error;

use crate::eval::Evaluator;
use crate::moves::Move;
use crate::position::Position;
use crate::rules::RuleSet;
use crate::search::MAX_PLY;
use crate::types::{Point, Side};

/// Number of input features.
pub const INPUTS: usize = 50;
/// Centipawns per unit of the network's output logit.
pub const SCORE_SCALE: f32 = 200.0;
/// The file's first bytes.
pub const MAGIC: &[u8; 8] = b"ALQNET\x1a\n";
/// The format version this engine reads and writes.
pub const FORMAT_VERSION: u32 = 1;

/// The network shipped with the program (trained by `alq pipeline` with
/// `configs/full.toml`), embedded at compile time.
pub const DEFAULT_NETWORK: &[u8] = include_bytes!("../../../data/networks/default.alqnet");

/// The shipped network ([`DEFAULT_NETWORK`]), read once and shared.
///
/// # Errors
///
/// The [`NetworkError`] of [`Network::from_bytes`] if the embedded file is
/// not a valid network (the engine's tests make sure it is); every call
/// returns the same result.
///
/// # Examples
///
/// ```
/// use alq_engine::{default_network, Evaluator, NnEvaluator, Position};
///
/// let net = default_network().unwrap();
/// assert_eq!(net.layers[0].inputs, alq_engine::INPUTS);
/// let mut eval = NnEvaluator::new(net.clone());
/// assert_eq!(eval.describe(), format!("nn:{}", net.id()));
/// let start = Position::start();
/// eval.reset(&start);
/// assert!(eval.evaluate(&start).abs() < 200, "the start is roughly level");
/// ```
pub fn default_network() -> Result<Arc<Network>, NetworkError> {
    static NET: std::sync::OnceLock<Result<Arc<Network>, NetworkError>> = std::sync::OnceLock::new();
    NET.get_or_init(|| Network::from_bytes(DEFAULT_NETWORK).map(Arc::new)).clone()
}

/// Why a network file was refused.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum NetworkError {
    #[error("not an Alquerque Lab network file (bad magic bytes)")]
    BadMagic,
    #[error("network format version {found} is not supported (this engine reads version {FORMAT_VERSION})")]
    Version { found: u32 },
    #[error("the network file is truncated: {0}")]
    Truncated(String),
    #[error("bad architecture description {description:?}: {problem}")]
    Architecture { description: String, problem: String },
    #[error("architecture hash mismatch: the file says {found:016x}, its description hashes to {expected:016x}")]
    ArchitectureHash { found: u64, expected: u64 },
    #[error("checksum mismatch: the file is damaged (stored {found:016x}, computed {expected:016x})")]
    Checksum { found: u64, expected: u64 },
    #[error("{0} trailing bytes after the checksum")]
    Trailing(usize),
}

/// FNV-1a, 64 bits.
pub fn fnv1a64(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// One affine layer: `out[o] = bias[o] + sum_i in[i] * weights[i * outputs + o]`.
#[derive(Clone, Debug, PartialEq)]
pub struct Layer {
    pub inputs: usize,
    pub outputs: usize,
    /// `[inputs][outputs]`, input-major.
    pub weights: Vec<f32>,
    pub bias: Vec<f32>,
}

impl Layer {
    /// A layer of `inputs` to `outputs` with every weight and bias 0.
    pub fn zeros(inputs: usize, outputs: usize) -> Layer {
        Layer { inputs, outputs, weights: vec![0.0; inputs * outputs], bias: vec![0.0; outputs] }
    }
}

/// A value network: its layers (see the module documentation for the
/// architecture and file format) and the rule set it was trained under.
///
/// # Examples
///
/// ```
/// use alq_engine::{features, Network, NetworkError, Position};
///
/// let net = Network::zeros(&[16, 8]);
/// assert_eq!(net.hidden(), [16, 8]);
/// assert_eq!(net.description(), "inputs=50;layers=16,8,1;activation=crelu;scale=200");
/// assert_eq!(net.forward(&features(&Position::start())), 0.0);
///
/// let bytes = net.to_bytes();
/// assert_eq!(Network::from_bytes(&bytes), Ok(net));
/// let mut damaged = bytes.clone();
/// damaged[100] ^= 1;
/// assert!(matches!(Network::from_bytes(&damaged), Err(NetworkError::Checksum { .. })));
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Network {
    pub layers: Vec<Layer>,
    /// The rule set of the games it was trained on.
    pub rules: RuleSet,
    /// Its extra heads, if any (exact value, move policy).
    pub heads: Heads,
}

impl Network {
    /// A network of zeros with hidden widths `hidden` (the output layer of
    /// width 1 is added).
    pub fn zeros(hidden: &[usize]) -> Network {
        let mut sizes = vec![INPUTS];
        sizes.extend_from_slice(hidden);
        sizes.push(1);
        Network {
            layers: sizes.windows(2).map(|w| Layer::zeros(w[0], w[1])).collect(),
            rules: RuleSet::BrainKing,
            heads: Heads::default(),
        }
    }

    /// The hidden widths, e.g. `[128, 32]`.
    ///
    /// # Panics
    ///
    /// When `layers` is empty (never so for a network read or made by this
    /// crate).
    pub fn hidden(&self) -> Vec<usize> {
        self.layers[..self.layers.len() - 1].iter().map(|l| l.outputs).collect()
    }

    /// A short identity for records and logs: the checksum of its bytes.
    pub fn id(&self) -> String {
        let bytes = self.to_bytes();
        format!("{:016x}", u64::from_le_bytes(bytes[bytes.len() - 8..].try_into().expect("eight bytes")))
    }

    /// Whether the network has a win/draw/loss output (three logits).
    pub fn is_wdl(&self) -> bool {
        self.layers.last().map(|l| l.outputs) == Some(3)
    }

    /// The logit of the expected score for a feature vector of length
    /// [`INPUTS`] (0 or 1 each), computed from scratch.
    ///
    /// # Panics
    ///
    /// When the network has no layers, when `features` is longer than the
    /// first layer's inputs, when a layer's `weights` or `bias` is shorter
    /// than its `inputs` and `outputs` say, or when the last layer's width is
    /// neither 1 nor 3 (never so for a network read by
    /// [`Network::from_bytes`] or made by [`Network::zeros`]).
    pub fn forward(&self, features: &[f32]) -> f32 {
        self.forward_from_first(&self.first_layer(features))
    }

    /// The first layer's pre-activations for a feature vector.
    fn first_layer(&self, features: &[f32]) -> Vec<f32> {
        let first = &self.layers[0];
        let mut acc = first.bias.clone();
        for (i, &x) in features.iter().enumerate() {
            if x != 0.0 {
                for (a, w) in acc.iter_mut().zip(&first.weights[i * first.outputs..(i + 1) * first.outputs]) {
                    *a += x * w;
                }
            }
        }
        acc
    }

    /// The rest of the network after the first layer's pre-activations.
    fn forward_from_first(&self, first: &[f32]) -> f32 {
        let hidden = self.last_hidden(first);
        score_logit(&apply(&hidden, self.layers.last().expect("an output layer")))
    }

    /// The last hidden layer's activations from the first layer's
    /// pre-activations.
    fn last_hidden(&self, first: &[f32]) -> Vec<f32> {
        let mut current: Vec<f32> = first.iter().map(|&v| v.clamp(0.0, 1.0)).collect();
        for layer in &self.layers[1..self.layers.len() - 1] {
            current = apply(&current, layer).into_iter().map(|v| v.clamp(0.0, 1.0)).collect();
        }
        current
    }

    /// Every head's output for a feature vector, computed from scratch: the
    /// value logit (as [`Network::forward`]), the exact head's three logits
    /// and the policy head's [`POLICY_OUTPUTS`] logits where the network has
    /// them.
    ///
    /// # Panics
    ///
    /// As [`Network::forward`].
    ///
    /// # Examples
    ///
    /// ```
    /// use alq_engine::{features, Heads, Layer, Network, Position, POLICY_OUTPUTS};
    ///
    /// let mut net = Network::zeros(&[16, 8]);
    /// let mut policy = Layer::zeros(8, POLICY_OUTPUTS);
    /// policy.bias[12] = 1.0;
    /// net.heads = Heads { policy: Some(policy), ..Heads::default() };
    /// let out = net.outputs(&features(&Position::start()));
    /// assert_eq!(out.value, 0.0);
    /// assert_eq!(out.exact, None);
    /// assert_eq!(out.policy.unwrap()[12], 1.0);
    /// // Extra heads are written as format version 2 and read back.
    /// assert_eq!(net.format_version(), 2);
    /// assert_eq!(Network::from_bytes(&net.to_bytes()), Ok(net));
    /// ```
    pub fn outputs(&self, features: &[f32]) -> Outputs {
        let hidden = self.last_hidden(&self.first_layer(features));
        Outputs {
            value: score_logit(&apply(&hidden, self.layers.last().expect("an output layer"))),
            exact: self.heads.exact.as_ref().map(|l| apply(&hidden, l).try_into().expect("three logits")),
            policy: self.heads.policy.as_ref().map(|l| apply(&hidden, l)),
        }
    }
}

/// What [`Network::outputs`] gives.
#[derive(Clone, Debug, PartialEq)]
pub struct Outputs {
    /// The logit of the side to move's expected score (the value head).
    pub value: f32,
    /// The exact head's win, draw and loss logits.
    pub exact: Option<[f32; EXACT_OUTPUTS]>,
    /// The policy head's logits (see [`Heads::move_logit`]).
    pub policy: Option<Vec<f32>>,
}

/// `out = layer.bias + input · layer.weights` on the evaluator's kernels.
#[inline(always)]
fn head(input: &[f32], layer: &Layer, out: &mut [f32], nonzero: &mut [u16]) {
    out.copy_from_slice(&layer.bias);
    kernels::dense(input, layer, out, nonzero);
}

/// `layer` applied to `input`: its biases plus the weighted inputs.
fn apply(input: &[f32], layer: &Layer) -> Vec<f32> {
    let mut out = layer.bias.clone();
    dense(input, layer, &mut out);
    out
}

/// The logit of the side to move's expected score from the output layer:
/// the output itself for a scalar network, and for win/draw/loss logits
/// `ln((e^w + e^d / 2) / (e^l + e^d / 2))`, computed without overflow.
///
/// # Panics
///
/// When `output` has other than 1 or 3 values.
///
/// # Examples
///
/// ```
/// use alq_engine::score_logit;
///
/// assert_eq!(score_logit(&[0.75]), 0.75);
/// // Equal win and loss logits: an even expected score, logit 0.
/// assert!(score_logit(&[1.0, 3.0, 1.0]).abs() < 1e-6);
/// assert!(score_logit(&[5.0, 0.0, -5.0]) > 0.0);
/// ```
#[inline]
pub fn score_logit(output: &[f32]) -> f32 {
    match *output {
        [logit] => logit,
        [w, d, l] => {
            let m = w.max(d).max(l);
            let (w, d, l) = ((w - m).exp(), (d - m).exp(), (l - m).exp());
            ((w + 0.5 * d) / (l + 0.5 * d)).ln()
        }
        _ => unreachable!("networks have 1 or 3 outputs (checked when read)"),
    }
}

/// `out += input · layer.weights` (input-major weights), with the baseline
/// loops: every output adds its terms in input order, skipping zero inputs,
/// as the evaluator's vector loops do.
#[inline]
fn dense(input: &[f32], layer: &Layer, out: &mut [f32]) {
    let mut nonzero = vec![0u16; input.len()];
    kernels::dense(input, layer, out, &mut nonzero);
}

/// The evaluator's inner loops, written once (`#[inline(always)]`) and
/// compiled for the CPU features found at run time: AVX2 or the baseline
/// (AVX-512 measured no faster than AVX2 at these widths). They use only
/// element-wise adds and multiplies in a fixed order per element (no fused
/// multiply-add), so their results are bit-identical on every path and
/// every machine.
mod kernels {
    use super::Layer;

    /// The widest instruction set this CPU offers the kernels.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub enum Level {
        Baseline,
        #[cfg(target_arch = "x86_64")]
        Avx2,
    }

    impl Level {
        pub fn name(self) -> &'static str {
            match self {
                Level::Baseline => "baseline",
                #[cfg(target_arch = "x86_64")]
                Level::Avx2 => "avx2",
            }
        }

        pub fn detect() -> Level {
            #[cfg(target_arch = "x86_64")]
            {
                if std::arch::is_x86_feature_detected!("avx2") {
                    return Level::Avx2;
                }
            }
            Level::Baseline
        }
    }

    /// `out += input · layer.weights` over the nonzero inputs; `nonzero` is
    /// scratch of at least `input.len()` entries.
    #[inline(always)]
    pub fn dense(input: &[f32], layer: &Layer, out: &mut [f32], nonzero: &mut [u16]) {
        let mut n = 0;
        for (i, &x) in input.iter().enumerate() {
            nonzero[n] = i as u16;
            n += (x != 0.0) as usize;
        }
        let nonzero = &nonzero[..n];
        let outputs = layer.outputs;
        let mut o = 0;
        o = blocks::<32>(input, layer, out, nonzero, o);
        o = blocks::<16>(input, layer, out, nonzero, o);
        o = blocks::<8>(input, layer, out, nonzero, o);
        for (o, a) in out.iter_mut().enumerate().skip(o) {
            for &i in nonzero {
                *a += input[i as usize] * layer.weights[i as usize * outputs + o];
            }
        }
    }

    /// Outputs `o..` in blocks of `B` held in registers while the inputs
    /// stream past; returns the first output not done.
    #[inline(always)]
    fn blocks<const B: usize>(input: &[f32], layer: &Layer, out: &mut [f32], nonzero: &[u16], mut o: usize) -> usize {
        let outputs = layer.outputs;
        while o + B <= outputs {
            let mut acc: [f32; B] = out[o..o + B].try_into().expect("B outputs");
            for &i in nonzero {
                let x = input[i as usize];
                let start = i as usize * outputs + o;
                let row: &[f32; B] = layer.weights[start..start + B].try_into().expect("B weights");
                for j in 0..B {
                    acc[j] += x * row[j];
                }
            }
            out[o..o + B].copy_from_slice(&acc);
            o += B;
        }
        o
    }

    /// `dst = src - sub + add`, element by element in that order.
    #[inline(always)]
    pub fn moved(src: &[f32], dst: &mut [f32], sub: &[f32], add: &[f32]) {
        for (((d, &s), &a), &b) in dst.iter_mut().zip(src).zip(sub).zip(add) {
            *d = s - a + b;
        }
    }

    /// `dst -= sub`.
    #[inline(always)]
    pub fn remove(dst: &mut [f32], sub: &[f32]) {
        for (d, &a) in dst.iter_mut().zip(sub) {
            *d -= a;
        }
    }

    /// `dst = clamp(src, 0, 1)`.
    #[inline(always)]
    pub fn crelu(src: &[f32], dst: &mut [f32]) {
        for (d, &s) in dst.iter_mut().zip(src) {
            *d = s.clamp(0.0, 1.0);
        }
    }
}

/// The feature index of a `piece` side's piece on `point`, seen from `perspective`.
///
/// # Examples
///
/// ```
/// use alq_engine::{feature, Point, Side};
///
/// let b2 = Point::parse("b2").unwrap();
/// assert_eq!(feature(Side::White, Side::White, b2), 6);
/// assert_eq!(feature(Side::White, Side::Black, b2), 31);
/// // Seen from Black, b2 is b4 of an own-pieces-move-up board.
/// assert_eq!(feature(Side::Black, Side::Black, b2), 16);
/// ```
#[inline]
pub fn feature(perspective: Side, piece: Side, point: Point) -> usize {
    let q = perspective_point(perspective, point);
    if piece == perspective {
        q
    } else {
        25 + q
    }
}

/// The input features of `pos` from the side to move's perspective.
pub fn features(pos: &Position) -> [f32; INPUTS] {
    let mut f = [0.0; INPUTS];
    let me = pos.side_to_move();
    for side in Side::BOTH {
        for p in pos.pieces(side) {
            f[feature(me, side, p)] = 1.0;
        }
    }
    f
}

/// The vector instructions the evaluator's loops use on this CPU: `avx2` or
/// `baseline`.
pub fn vector_instructions() -> &'static str {
    kernels::Level::detect().name()
}

/// Evaluates with a [`Network`], keeping both perspectives' first-layer sums
/// for every ply of the search, updated from the move instead of recomputed.
/// Its loops run with the widest vector instructions the CPU has (checked
/// once, when it is made) and give the same bits on every CPU.
///
/// A caller driving it by hand calls [`Evaluator::reset`] at the root, then
/// [`Evaluator::make`] and [`Evaluator::unmake`] in step with the moves.
///
/// # Panics
///
/// [`Evaluator::make`] panics when more than [`MAX_PLY`]` + 1` moves are
/// made below the root without being taken back, which a
/// [`crate::Searcher`] never does.
///
/// # Examples
///
/// ```
/// use alq_engine::{default_network, features, Evaluator, NnEvaluator, Position, SCORE_SCALE};
///
/// let net = default_network().unwrap();
/// let mut eval = NnEvaluator::new(net.clone());
/// let start = Position::start();
/// let mv = start.legal_moves()[0];
/// let next = start.play(mv);
/// eval.reset(&start);
/// eval.make(&start, mv, &next);
/// // The incremental first layer agrees with the forward pass from scratch.
/// let scratch = (net.forward(&features(&next)) * SCORE_SCALE).round() as i32;
/// assert!((eval.evaluate(&next) - scratch).abs() <= 1);
/// eval.unmake();
///
/// let mut portable = NnEvaluator::portable(net);
/// portable.reset(&start);
/// assert_eq!(portable.instruction_set(), "baseline");
/// eval.reset(&start);
/// assert_eq!(portable.evaluate(&start), eval.evaluate(&start), "the same bits on every path");
/// ```
pub struct NnEvaluator {
    net: Arc<Network>,
    width: usize,
    /// `(MAX_PLY + 2)` frames of `[white perspective; black perspective]`.
    stack: Vec<f32>,
    top: usize,
    scratch: Vec<f32>,
    scratch2: Vec<f32>,
    nonzero: Vec<u16>,
    level: kernels::Level,
    /// Whether the exact head (if any) ranks positions.
    use_exact: bool,
    /// Whether the policy head (if any) orders moves.
    use_policy: bool,
}

/// Policy hints are move logits times this, in the search's ordering keys.
const POLICY_HINT_SCALE: f32 = 1024.0;
/// The largest policy hint in absolute value, below the killers' keys.
pub const MAX_POLICY_HINT: i32 = 1 << 20;

impl NnEvaluator {
    /// An evaluator of `net`, on the widest instruction set this CPU offers
    /// ([`vector_instructions`]).
    ///
    /// # Panics
    ///
    /// When `net` has no layers (never so for a network read or made by this
    /// crate).
    pub fn new(net: Arc<Network>) -> NnEvaluator {
        let width = net.layers[0].outputs;
        let widest = net.layers.iter().chain(net.heads.layers()).map(|l| l.outputs).max().unwrap_or(1);
        NnEvaluator {
            width,
            stack: vec![0.0; (MAX_PLY + 2) * 2 * width],
            top: 0,
            scratch: vec![0.0; widest],
            scratch2: vec![0.0; widest],
            nonzero: vec![0; widest],
            level: kernels::Level::detect(),
            use_exact: true,
            use_policy: true,
            net,
        }
    }

    /// Switches the network's extra heads on or off for this evaluator: the
    /// exact head's ranking of leaves and the policy head's move order
    /// (both on by default where the network has them; off, it evaluates as
    /// the value network alone).
    pub fn with_heads(mut self, exact: bool, policy: bool) -> NnEvaluator {
        self.use_exact = exact;
        self.use_policy = policy;
        self
    }

    /// The same evaluator on the baseline instruction set whatever the CPU
    /// offers (for tests and benchmarks of the vector paths).
    ///
    /// # Panics
    ///
    /// As [`NnEvaluator::new`], when `net` has no layers.
    pub fn portable(net: Arc<Network>) -> NnEvaluator {
        NnEvaluator { level: kernels::Level::Baseline, ..NnEvaluator::new(net) }
    }

    /// The instruction set its loops run with: `avx2` or `baseline`.
    pub fn instruction_set(&self) -> &'static str {
        self.level.name()
    }

    /// The network it evaluates with.
    pub fn network(&self) -> &Network {
        &self.net
    }

    fn refresh(&mut self, index: usize, pos: &Position) {
        let w = self.width;
        let first = &self.net.layers[0];
        for perspective in Side::BOTH {
            let start = (index * 2 + perspective.index()) * w;
            let frame = &mut self.stack[start..start + w];
            frame.copy_from_slice(&first.bias);
            for side in Side::BOTH {
                for p in pos.pieces(side) {
                    let f = feature(perspective, side, p);
                    for (a, c) in frame.iter_mut().zip(&first.weights[f * w..(f + 1) * w]) {
                        *a += c;
                    }
                }
            }
        }
    }

    /// Leaves the last hidden layer's activations of the position on top of
    /// the stack, seen from `me`, in `self.scratch` and returns their width.
    #[inline(always)]
    fn hidden_generic(&mut self, me: Side) -> usize {
        let w = self.width;
        let start = (self.top * 2 + me.index()) * w;
        let layers = &self.net.layers;
        let (cur, next) = (&mut self.scratch, &mut self.scratch2);
        kernels::crelu(&self.stack[start..start + w], &mut cur[..w]);
        let mut width = w;
        for layer in &layers[1..layers.len() - 1] {
            next[..layer.outputs].copy_from_slice(&layer.bias);
            kernels::dense(&cur[..width], layer, &mut next[..layer.outputs], &mut self.nonzero);
            for v in &mut next[..layer.outputs] {
                *v = v.clamp(0.0, 1.0);
            }
            std::mem::swap(cur, next);
            width = layer.outputs;
        }
        width
    }

    #[inline(always)]
    fn evaluate_generic(&mut self, pos: &Position) -> i32 {
        let width = self.hidden_generic(pos.side_to_move());
        let net = &*self.net;
        let value = net.layers.last().expect("an output layer");
        let hidden = &self.scratch[..width];
        let out = &mut self.scratch2;
        head(hidden, value, &mut out[..value.outputs], &mut self.nonzero);
        let cp = score_logit(&out[..value.outputs]) * SCORE_SCALE;
        match net.heads.exact.as_ref().filter(|_| self.use_exact) {
            Some(exact) => {
                head(hidden, exact, &mut out[..EXACT_OUTPUTS], &mut self.nonzero);
                let logits: [f32; EXACT_OUTPUTS] = out[..EXACT_OUTPUTS].try_into().expect("three logits");
                heads::ranked(cp, net.heads.rank(logits))
            }
            // Keep clear of the proven-result range.
            None => cp.clamp(-crate::eval::MAX_EVAL as f32, crate::eval::MAX_EVAL as f32).round() as i32,
        }
    }

    #[inline(always)]
    fn policy_generic(&mut self, pos: &Position, moves: &[Move], hints: &mut [i32]) -> bool {
        if !self.use_policy || self.net.heads.policy.is_none() {
            return false;
        }
        let me = pos.side_to_move();
        let width = self.hidden_generic(me);
        let policy = self.net.heads.policy.as_ref().expect("checked above");
        let logits = &mut self.scratch2[..POLICY_OUTPUTS];
        head(&self.scratch[..width], policy, logits, &mut self.nonzero);
        for (hint, &mv) in hints.iter_mut().zip(moves) {
            *hint = (Heads::move_logit(logits, me, mv) * POLICY_HINT_SCALE)
                .clamp(-(MAX_POLICY_HINT as f32), MAX_POLICY_HINT as f32) as i32;
        }
        true
    }

    #[inline(always)]
    fn make_generic(&mut self, before: &Position, mv: Move) {
        let w = self.width;
        let first = &self.net.layers[0];
        let column = |f: usize| &first.weights[f * w..(f + 1) * w];
        let (done, rest) = self.stack.split_at_mut((self.top + 1) * 2 * w);
        let src = &done[self.top * 2 * w..];
        let dst = &mut rest[..2 * w];
        let mover = before.side_to_move();
        for perspective in Side::BOTH {
            let at = perspective.index() * w;
            let dst = &mut dst[at..at + w];
            kernels::moved(
                &src[at..at + w],
                dst,
                column(feature(perspective, mover, mv.from())),
                column(feature(perspective, mover, mv.to())),
            );
            for c in mv.captured() {
                kernels::remove(dst, column(feature(perspective, mover.opponent(), c)));
            }
        }
        self.top += 1;
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    fn evaluate_avx2(&mut self, pos: &Position) -> i32 {
        self.evaluate_generic(pos)
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    fn policy_avx2(&mut self, pos: &Position, moves: &[Move], hints: &mut [i32]) -> bool {
        self.policy_generic(pos, moves, hints)
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    fn make_avx2(&mut self, before: &Position, mv: Move) {
        self.make_generic(before, mv)
    }
}

impl fmt::Debug for NnEvaluator {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "NnEvaluator({})", self.net.description())
    }
}

impl Evaluator for NnEvaluator {
    fn evaluate(&mut self, pos: &Position) -> i32 {
        match self.level {
            kernels::Level::Baseline => self.evaluate_generic(pos),
            // SAFETY: `Level::detect` found the feature on this CPU.
            #[cfg(target_arch = "x86_64")]
            kernels::Level::Avx2 => unsafe { self.evaluate_avx2(pos) },
        }
    }

    fn fork(&self) -> Option<Box<dyn Evaluator>> {
        Some(Box::new(NnEvaluator {
            level: self.level,
            use_exact: self.use_exact,
            use_policy: self.use_policy,
            ..NnEvaluator::new(self.net.clone())
        }))
    }

    fn policy(&mut self, pos: &Position, moves: &[Move], hints: &mut [i32]) -> bool {
        match self.level {
            kernels::Level::Baseline => self.policy_generic(pos, moves, hints),
            // SAFETY: `Level::detect` found the feature on this CPU.
            #[cfg(target_arch = "x86_64")]
            kernels::Level::Avx2 => unsafe { self.policy_avx2(pos, moves, hints) },
        }
    }

    fn describe(&self) -> String {
        let mut text = format!("nn:{}", self.net.id());
        if self.net.heads.exact.is_some() && !self.use_exact {
            text += ",no-exact";
        }
        if self.net.heads.policy.is_some() && !self.use_policy {
            text += ",no-policy";
        }
        text
    }

    fn make(&mut self, before: &Position, mv: Move, _after: &Position) {
        match self.level {
            kernels::Level::Baseline => self.make_generic(before, mv),
            // SAFETY: `Level::detect` found the feature on this CPU.
            #[cfg(target_arch = "x86_64")]
            kernels::Level::Avx2 => unsafe { self.make_avx2(before, mv) },
        }
    }

    fn unmake(&mut self) {
        self.top = self.top.saturating_sub(1);
    }

    fn reset(&mut self, root: &Position) {
        self.top = 0;
        self.refresh(0, root);
    }
}
