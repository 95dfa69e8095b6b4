//! A network's extra heads: the exact win/draw/loss value and the move
//! policy, each one affine layer reading the last hidden layer's
//! activations (the value output's input too).
//!
//! - The *exact* head gives three logits for the side to move's exact
//!   (table or proof) win, draw and loss. The evaluator trusts it only where
//!   its most likely class is a win or a loss with a softmax probability of
//!   at least the network's `confidence` (measured by the trainer on held-out
//!   positions, written into the file), and then ranks the position above
//!   (below) every unconfident one; the value head orders positions within
//!   each rank ([`Heads::rank`]).
//! - The *policy* head gives [`POLICY_OUTPUTS`] = 50 logits seen from the
//!   side to move as the features are (points mirrored top-bottom for
//!   Black): 25 for the point a move leaves and 25 for the point it ends on.
//!   A move's logit is the sum of its two ([`Heads::move_logit`]); the search
//!   orders moves by it.

use super::Layer;
use crate::moves::Move;
use crate::types::{Point, Side};

/// Outputs of the exact head: win, draw and loss logits.
pub const EXACT_OUTPUTS: usize = 3;
/// Outputs of the policy head: a logit per origin point, then one per end
/// point, from the side to move's perspective.
pub const POLICY_OUTPUTS: usize = 50;

/// A network's extra heads (none in a version 1 file). Two are equal when
/// their layers are, and their confidences where they have an exact head
/// (the file keeps a confidence only with one).
#[derive(Clone, Debug)]
pub struct Heads {
    /// The exact head: last hidden width to [`EXACT_OUTPUTS`].
    pub exact: Option<Layer>,
    /// The probability from which the exact head's win or loss is trusted
    /// (0.5–1; written with the exact head).
    pub confidence: f32,
    /// The policy head: last hidden width to [`POLICY_OUTPUTS`].
    pub policy: Option<Layer>,
}

impl PartialEq for Heads {
    fn eq(&self, other: &Heads) -> bool {
        self.exact == other.exact
            && self.policy == other.policy
            && (self.exact.is_none() || self.confidence == other.confidence)
    }
}

impl Default for Heads {
    fn default() -> Heads {
        Heads { exact: None, confidence: Heads::DEFAULT_CONFIDENCE, policy: None }
    }
}

/// How far apart the evaluator puts positions the exact head is confident
/// about from the others, in centipawns; the value head's score is clamped
/// to less than half of it, so ranks never mix.
pub const RANK_STEP: i32 = 10_000;

impl Heads {
    /// The confidence of a freshly made exact head, before the trainer has
    /// measured one.
    pub const DEFAULT_CONFIDENCE: f32 = 0.95;

    /// Whether there are no extra heads.
    pub fn is_empty(&self) -> bool {
        self.exact.is_none() && self.policy.is_none()
    }

    /// The heads' layers in file order: exact, then policy.
    pub fn layers(&self) -> impl Iterator<Item = &Layer> {
        self.exact.iter().chain(self.policy.iter())
    }

    /// The description's part for the heads: empty without heads, else
    /// `;heads=exact,policy` (the ones present) and, with an exact head,
    /// `;confidence=C`.
    pub fn description(&self) -> String {
        let names: Vec<&str> = [("exact", self.exact.is_some()), ("policy", self.policy.is_some())]
            .into_iter()
            .filter_map(|(name, present)| present.then_some(name))
            .collect();
        if names.is_empty() {
            return String::new();
        }
        let mut text = format!(";heads={}", names.join(","));
        if self.exact.is_some() {
            text += &format!(";confidence={}", self.confidence);
        }
        text
    }

    /// The rank of a position from the exact head's logits: `1` for a
    /// confident win of the side to move, `-1` for a confident loss, `0`
    /// otherwise (a draw, or no class trusted).
    ///
    /// # Examples
    ///
    /// ```
    /// use alq_engine::Heads;
    ///
    /// let heads = Heads { confidence: 0.9, ..Heads::default() };
    /// assert_eq!(heads.rank([5.0, 0.0, 0.0]), 1);
    /// assert_eq!(heads.rank([0.0, 0.0, 5.0]), -1);
    /// // A likely win, but not likely enough.
    /// assert_eq!(heads.rank([2.0, 0.0, 0.0]), 0);
    /// // A confident draw ranks with the unsure.
    /// assert_eq!(heads.rank([0.0, 9.0, 0.0]), 0);
    /// // Confidence 1: no threshold was measured right; nothing is trusted.
    /// let unsure = Heads { confidence: 1.0, ..Heads::default() };
    /// assert_eq!(unsure.rank([40.0, 0.0, 0.0]), 0);
    /// ```
    pub fn rank(&self, logits: [f32; EXACT_OUTPUTS]) -> i32 {
        let [w, d, l] = logits;
        // A draw at least as likely as the win and the loss leaves each of
        // them at most one half, below any confidence (at least 0.5): no
        // exponentials needed, and most leaves are such.
        if d >= w && d >= l {
            return 0;
        }
        // Confidence 1 is what the trainer writes when no threshold was
        // right often enough: nothing is trusted (in f32 a far-leading
        // logit's share rounds to 1 and would pass).
        if self.confidence >= 1.0 {
            return 0;
        }
        let m = logits.iter().fold(f32::NEG_INFINITY, |a, &b| a.max(b));
        let e = logits.map(|l| (l - m).exp());
        let total: f32 = e.iter().sum();
        if e[0] >= self.confidence * total {
            1
        } else if e[2] >= self.confidence * total {
            -1
        } else {
            0
        }
    }

    /// A move's policy logit from the policy head's outputs for the side to
    /// move `me`.
    #[inline]
    pub fn move_logit(policy: &[f32], me: Side, mv: Move) -> f32 {
        policy[perspective_point(me, mv.from())] + policy[25 + perspective_point(me, mv.to())]
    }
}

/// A point's index seen from `me` (mirrored top-bottom for Black, as the
/// features are).
#[inline]
pub fn perspective_point(me: Side, point: Point) -> usize {
    match me {
        Side::White => point.index(),
        Side::Black => (4 - point.rank() as usize) * 5 + point.file() as usize,
    }
}

/// The evaluator's score from the value head's centipawns and the exact
/// head's rank: `rank * RANK_STEP` plus the value clamped to less than
/// half a step.
#[inline]
pub fn ranked(cp: f32, rank: i32) -> i32 {
    let limit = (RANK_STEP / 2 - 1) as f32;
    rank * RANK_STEP + cp.clamp(-limit, limit).round() as i32
}
