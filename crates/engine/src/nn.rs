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

use std::fmt;
use std::sync::Arc;

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
}

impl Network {
    /// A network of zeros with hidden widths `hidden` (the output layer of
    /// width 1 is added).
    pub fn zeros(hidden: &[usize]) -> Network {
        let mut sizes = vec![INPUTS];
        sizes.extend_from_slice(hidden);
        sizes.push(1);
        Network { layers: sizes.windows(2).map(|w| Layer::zeros(w[0], w[1])).collect(), rules: RuleSet::BrainKing }
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

    /// The architecture description written into the file.
    pub fn description(&self) -> String {
        let layers: Vec<String> = self.layers.iter().map(|l| l.outputs.to_string()).collect();
        let mut text = format!("inputs={INPUTS};layers={};activation=crelu;scale={}", layers.join(","), SCORE_SCALE);
        // BrainKing networks name no rules, so their files and ids are those
        // of the networks written before rule sets existed.
        if self.rules != RuleSet::BrainKing {
            text += &format!(";rules={}", self.rules);
        }
        text
    }

    /// The architecture hash (FNV-1a of the description).
    pub fn architecture_hash(&self) -> u64 {
        fnv1a64(self.description().as_bytes())
    }

    /// The network as file bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        let description = self.description();
        let mut out = Vec::new();
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
        out.extend_from_slice(&(description.len() as u32).to_le_bytes());
        out.extend_from_slice(description.as_bytes());
        out.extend_from_slice(&fnv1a64(description.as_bytes()).to_le_bytes());
        for layer in &self.layers {
            for w in layer.weights.iter().chain(&layer.bias) {
                out.extend_from_slice(&w.to_le_bytes());
            }
        }
        let checksum = fnv1a64(&out);
        out.extend_from_slice(&checksum.to_le_bytes());
        out
    }

    /// Reads file bytes, refusing anything that is not exactly a valid network.
    ///
    /// # Errors
    ///
    /// [`NetworkError::BadMagic`] when the bytes do not start with the magic
    /// `ALQNET\x1a\n`; [`NetworkError::Version`] for a format version other
    /// than 1; [`NetworkError::Truncated`] when they end early;
    /// [`NetworkError::Architecture`] for a description that is over 4,096
    /// bytes, not UTF-8, or not an architecture this engine evaluates (other
    /// than [`INPUTS`] inputs, an output width other than 1 or 3, a width
    /// of 0 or over 4,096, another activation or scale, an unknown key or
    /// rule set); [`NetworkError::ArchitectureHash`] when the stored hash is
    /// not the description's; [`NetworkError::Checksum`] when the bytes are
    /// damaged; [`NetworkError::Trailing`] for bytes after the checksum.
    ///
    /// # Examples
    ///
    /// ```
    /// use alq_engine::{Network, NetworkError, DEFAULT_NETWORK};
    ///
    /// let net = Network::from_bytes(DEFAULT_NETWORK).unwrap();
    /// assert_eq!(net.to_bytes(), DEFAULT_NETWORK);
    /// assert_eq!(Network::from_bytes(b"not a network"), Err(NetworkError::BadMagic));
    /// let short = &DEFAULT_NETWORK[..100];
    /// assert!(matches!(Network::from_bytes(short), Err(NetworkError::Truncated(_))));
    /// ```
    pub fn from_bytes(bytes: &[u8]) -> Result<Network, NetworkError> {
        let mut r = Reader { bytes, at: 0 };
        if r.take(8, "magic")? != MAGIC {
            return Err(NetworkError::BadMagic);
        }
        let version = r.u32("version")?;
        if version != FORMAT_VERSION {
            return Err(NetworkError::Version { found: version });
        }
        let len = r.u32("description length")? as usize;
        if len > 4096 {
            return Err(NetworkError::Architecture {
                description: String::new(),
                problem: format!("{len} bytes long"),
            });
        }
        let description = String::from_utf8(r.take(len, "description")?.to_vec())
            .map_err(|_| NetworkError::Architecture { description: String::new(), problem: "not UTF-8".to_string() })?;
        let found = r.u64("architecture hash")?;
        let expected = fnv1a64(description.as_bytes());
        if found != expected {
            return Err(NetworkError::ArchitectureHash { found, expected });
        }
        let (sizes, rules) = parse_description(&description)?;
        let mut layers = Vec::new();
        for w in sizes.windows(2) {
            let mut layer = Layer::zeros(w[0], w[1]);
            for v in layer.weights.iter_mut().chain(layer.bias.iter_mut()) {
                *v = f32::from_le_bytes(r.take(4, "weights")?.try_into().expect("four bytes"));
            }
            layers.push(layer);
        }
        let body_end = r.at;
        let stored = r.u64("checksum")?;
        let computed = fnv1a64(&bytes[..body_end]);
        if stored != computed {
            return Err(NetworkError::Checksum { found: stored, expected: computed });
        }
        if r.at != bytes.len() {
            return Err(NetworkError::Trailing(bytes.len() - r.at));
        }
        Ok(Network { layers, rules })
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
        let first = &self.layers[0];
        let mut acc = first.bias.clone();
        for (i, &x) in features.iter().enumerate() {
            if x != 0.0 {
                for (a, w) in acc.iter_mut().zip(&first.weights[i * first.outputs..(i + 1) * first.outputs]) {
                    *a += x * w;
                }
            }
        }
        self.forward_from_first(&acc)
    }

    /// The rest of the network after the first layer's pre-activations.
    fn forward_from_first(&self, first: &[f32]) -> f32 {
        let mut current: Vec<f32> = first.iter().map(|&v| v.clamp(0.0, 1.0)).collect();
        for (k, layer) in self.layers.iter().enumerate().skip(1) {
            let mut next = layer.bias.clone();
            dense(&current, layer, &mut next);
            if k + 1 < self.layers.len() {
                for v in &mut next {
                    *v = v.clamp(0.0, 1.0);
                }
            }
            current = next;
        }
        score_logit(&current)
    }
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

fn parse_description(description: &str) -> Result<(Vec<usize>, RuleSet), NetworkError> {
    let bad = |problem: &str| NetworkError::Architecture {
        description: description.to_string(),
        problem: problem.to_string(),
    };
    let mut inputs = None;
    let mut layers = None;
    let mut rules = RuleSet::BrainKing;
    for part in description.split(';') {
        let (key, value) = part.split_once('=').ok_or_else(|| bad("expected key=value parts"))?;
        match key {
            "inputs" => inputs = Some(value.parse::<usize>().map_err(|_| bad("inputs is not a number"))?),
            "layers" => {
                layers = Some(
                    value
                        .split(',')
                        .map(|v| v.parse::<usize>().map_err(|_| bad("layers are not numbers")))
                        .collect::<Result<Vec<_>, _>>()?,
                )
            }
            "activation" if value == "crelu" => {}
            "activation" => return Err(bad("only the crelu activation is known")),
            "scale" if value.parse::<f32>().ok() == Some(SCORE_SCALE) => {}
            "scale" => return Err(bad(&format!("scale must be {SCORE_SCALE}"))),
            "rules" => rules = value.parse::<RuleSet>().map_err(|e| bad(&e))?,
            _ => return Err(bad(&format!("unknown key {key:?}"))),
        }
    }
    let inputs = inputs.ok_or_else(|| bad("no inputs"))?;
    if inputs != INPUTS {
        return Err(bad(&format!("{inputs} inputs, this engine has {INPUTS} features")));
    }
    let layers = layers.ok_or_else(|| bad("no layers"))?;
    if layers.len() < 2 || !matches!(layers.last(), Some(1 | 3)) || layers.iter().any(|&w| w == 0 || w > 4096) {
        return Err(bad(
            "layers must be hidden widths from 1 to 4096 ending in 1 (a score logit) or 3 (win, draw and loss logits)",
        ));
    }
    let mut sizes = vec![inputs];
    sizes.extend(layers);
    Ok((sizes, rules))
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize, what: &str) -> Result<&'a [u8], NetworkError> {
        let end = self.at.checked_add(n).filter(|&e| e <= self.bytes.len()).ok_or_else(|| {
            NetworkError::Truncated(format!("{} bytes, ended while reading the {what}", self.bytes.len()))
        })?;
        let slice = &self.bytes[self.at..end];
        self.at = end;
        Ok(slice)
    }

    fn u32(&mut self, what: &str) -> Result<u32, NetworkError> {
        Ok(u32::from_le_bytes(self.take(4, what)?.try_into().expect("four bytes")))
    }

    fn u64(&mut self, what: &str) -> Result<u64, NetworkError> {
        Ok(u64::from_le_bytes(self.take(8, what)?.try_into().expect("eight bytes")))
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
    let q = match perspective {
        Side::White => point.index(),
        Side::Black => (4 - point.rank() as usize) * 5 + point.file() as usize,
    };
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
}

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
        let widest = net.layers.iter().map(|l| l.outputs).max().unwrap_or(1);
        NnEvaluator {
            width,
            stack: vec![0.0; (MAX_PLY + 2) * 2 * width],
            top: 0,
            scratch: vec![0.0; widest],
            scratch2: vec![0.0; widest],
            nonzero: vec![0; widest],
            level: kernels::Level::detect(),
            net,
        }
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

    #[inline(always)]
    fn evaluate_generic(&mut self, pos: &Position) -> i32 {
        let w = self.width;
        let start = (self.top * 2 + pos.side_to_move().index()) * w;
        let layers = &self.net.layers;
        let (cur, next) = (&mut self.scratch, &mut self.scratch2);
        kernels::crelu(&self.stack[start..start + w], &mut cur[..w]);
        let mut width = w;
        for (k, layer) in layers.iter().enumerate().skip(1) {
            next[..layer.outputs].copy_from_slice(&layer.bias);
            kernels::dense(&cur[..width], layer, &mut next[..layer.outputs], &mut self.nonzero);
            if k + 1 < layers.len() {
                for v in &mut next[..layer.outputs] {
                    *v = v.clamp(0.0, 1.0);
                }
            }
            std::mem::swap(cur, next);
            width = layer.outputs;
        }
        let cp = score_logit(&cur[..width]) * SCORE_SCALE;
        // Keep clear of the proven-result range.
        cp.clamp(-crate::eval::MAX_EVAL as f32, crate::eval::MAX_EVAL as f32).round() as i32
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
        Some(Box::new(NnEvaluator { level: self.level, ..NnEvaluator::new(self.net.clone()) }))
    }

    fn describe(&self) -> String {
        format!("nn:{}", self.net.id())
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
