//! Match statistics: score, Elo with a 95 % interval from game pairs
//! (pentanomial model), and the sequential probability ratio test.

use serde::{Deserialize, Serialize};

/// Logistic Elo difference for an expected score in (0, 1).
pub fn elo_from_score(score: f64) -> f64 {
    let s = score.clamp(1e-6, 1.0 - 1e-6);
    -400.0 * (1.0 / s - 1.0).log10()
}

/// Expected score for a logistic Elo difference.
pub fn score_from_elo(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// Results of a match from the first player's point of view.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Tally {
    pub wins: u64,
    pub draws: u64,
    pub losses: u64,
    /// Game pairs (same opening, colours swapped) by the first player's total
    /// points in the pair: 0, 0.5, 1, 1.5, 2.
    pub pentanomial: [u64; 5],
}

impl Tally {
    pub fn games(&self) -> u64 {
        self.wins + self.draws + self.losses
    }

    pub fn pairs(&self) -> u64 {
        self.pentanomial.iter().sum()
    }

    /// Adds one finished pair; points are the first player's, each 0, 0.5 or 1.
    pub fn add_pair(&mut self, first: f64, second: f64) {
        for p in [first, second] {
            self.add_game(p);
        }
        self.pentanomial[((first + second) * 2.0).round() as usize] += 1;
    }

    /// Adds one game outside a pair (only wins, draws, losses change).
    pub fn add_game(&mut self, points: f64) {
        if points >= 1.0 {
            self.wins += 1;
        } else if points > 0.0 {
            self.draws += 1;
        } else {
            self.losses += 1;
        }
    }

    /// Points over games, 0..1; 0.5 with no games.
    pub fn score(&self) -> f64 {
        let n = self.games();
        if n == 0 {
            0.5
        } else {
            (self.wins as f64 + 0.5 * self.draws as f64) / n as f64
        }
    }

    pub fn elo(&self) -> f64 {
        elo_from_score(self.score())
    }

    /// Mean and variance of the per-game score, estimated from pairs when
    /// there are any (which accounts for the correlation within a pair), or
    /// from single games otherwise. The pair counts get z²/4 pseudo-pairs at
    /// each extreme (as the Wilson interval does for a proportion), so that
    /// a match whose pairs all scored alike still has an interval of honest
    /// width; their weight fades as pairs accumulate.
    fn mean_and_variance_per_game(&self) -> (f64, f64) {
        let pairs = self.pairs();
        if pairs >= 2 {
            let pseudo = crate::Z95.powi(2) / 4.0;
            let mut counts: [f64; 5] = self.pentanomial.map(|c| c as f64);
            counts[0] += pseudo;
            counts[4] += pseudo;
            let n: f64 = counts.iter().sum();
            let mean: f64 = (0..5).map(|k| counts[k] * k as f64 / 4.0).sum::<f64>() / n;
            let var: f64 = (0..5).map(|k| counts[k] * (k as f64 / 4.0 - mean).powi(2)).sum::<f64>() / n;
            // A pair's average has the variance of two games' mean.
            (mean, var * 2.0)
        } else {
            let n = self.games().max(1) as f64;
            let mean = self.score();
            let var = (self.wins as f64 * (1.0 - mean).powi(2)
                + self.draws as f64 * (0.5 - mean).powi(2)
                + self.losses as f64 * mean.powi(2))
                / n;
            (mean, var)
        }
    }

    /// 95 % interval of the Elo difference.
    pub fn elo_ci95(&self) -> (f64, f64) {
        let n = self.games();
        if n == 0 {
            return (f64::NEG_INFINITY, f64::INFINITY);
        }
        let (mean, var) = self.mean_and_variance_per_game();
        let half = crate::Z95 * (var / n as f64).sqrt();
        (elo_from_score(mean - half), elo_from_score(mean + half))
    }

    /// Normalized Elo from the pairs, with its 95 % interval: nElo = (μ −
    /// 0.5) / (√2 σ) × 800 / ln 10, with μ and σ the mean and standard
    /// deviation of the pair score (a pair's points over 2), as fishtest and
    /// fastchess compute it; the interval is μ ± 1.96 σ / √pairs, mapped the
    /// same way. `None` without pairs or when every pair scored the same
    /// (σ = 0: the scale is undefined).
    pub fn nelo(&self) -> Option<(f64, (f64, f64))> {
        let n = self.pairs();
        if n == 0 {
            return None;
        }
        let score = |k: usize| k as f64 / 4.0;
        let mean: f64 = self.pentanomial.iter().enumerate().map(|(k, &c)| score(k) * c as f64).sum::<f64>() / n as f64;
        let var: f64 =
            self.pentanomial.iter().enumerate().map(|(k, &c)| (score(k) - mean).powi(2) * c as f64).sum::<f64>()
                / n as f64;
        if var <= 0.0 {
            return None;
        }
        let sigma = var.sqrt();
        let to_nelo = |mu: f64| (mu - 0.5) / (std::f64::consts::SQRT_2 * sigma) * 800.0 / std::f64::consts::LN_10;
        let half = crate::Z95 * sigma / (n as f64).sqrt();
        Some((to_nelo(mean), (to_nelo(mean - half), to_nelo(mean + half))))
    }
}

/// Parameters of a sequential probability ratio test.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Sprt {
    pub elo0: f64,
    pub elo1: f64,
    pub alpha: f64,
    pub beta: f64,
}

/// What the SPRT says so far.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SprtDecision {
    /// H1 accepted: the first player is at least `elo1` stronger.
    AcceptH1,
    /// H0 accepted: the first player is at most `elo0` stronger.
    AcceptH0,
    Continue,
}

#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct SprtState {
    pub llr: f64,
    pub lower: f64,
    pub upper: f64,
    pub decision: SprtDecision,
}

/// Why an SPRT description (`elo0,elo1[,alpha,beta]`) was refused.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum SprtError {
    #[error("SPRT {text:?}: expected elo0,elo1 or elo0,elo1,alpha,beta")]
    Shape { text: String },
    #[error("SPRT {text:?}: {part:?} is not a number")]
    NotANumber { text: String, part: String },
    #[error("SPRT {text:?}: elo1 must be greater than elo0")]
    Bounds { text: String },
    #[error("SPRT {text:?}: alpha and beta must lie between 0 and 0.5")]
    Risks { text: String },
}

impl Sprt {
    /// Parses `elo0,elo1[,alpha,beta]` (alpha and beta default to 0.05).
    pub fn parse(text: &str) -> Result<Sprt, SprtError> {
        let text_owned = || text.to_string();
        let parts: Vec<&str> = text.split(',').map(str::trim).collect();
        if parts.len() != 2 && parts.len() != 4 {
            return Err(SprtError::Shape { text: text_owned() });
        }
        let mut values = Vec::new();
        for p in &parts {
            values
                .push(p.parse::<f64>().map_err(|_| SprtError::NotANumber { text: text_owned(), part: p.to_string() })?);
        }
        let (alpha, beta) = if values.len() == 4 { (values[2], values[3]) } else { (0.05, 0.05) };
        let sprt = Sprt { elo0: values[0], elo1: values[1], alpha, beta };
        if sprt.elo1 <= sprt.elo0 {
            return Err(SprtError::Bounds { text: text_owned() });
        }
        if !(0.0 < alpha && alpha < 0.5 && 0.0 < beta && beta < 0.5) {
            return Err(SprtError::Risks { text: text_owned() });
        }
        Ok(sprt)
    }

    /// The log-likelihood ratio of the pairs so far, with its bounds: the
    /// generalised SPRT on the pentanomial distribution as fishtest computes
    /// it. The pair counts are regularised (an empty category counts 10⁻³),
    /// and for each hypothesis the distribution of largest likelihood whose
    /// mean is that hypothesis' expected score is found exactly
    /// ([`constrained_mle`]); the ratio compares the two.
    pub fn state(&self, tally: &Tally) -> SprtState {
        let lower = (self.beta / (1.0 - self.alpha)).ln();
        let upper = ((1.0 - self.beta) / self.alpha).ln();
        let llr = if tally.pairs() == 0 {
            0.0
        } else {
            let counts: [f64; 5] = tally.pentanomial.map(|c| if c == 0 { 1e-3 } else { c as f64 });
            let n: f64 = counts.iter().sum();
            let p = counts.map(|c| c / n);
            let (s0, s1) = (score_from_elo(self.elo0), score_from_elo(self.elo1));
            let (q0, q1) = (constrained_mle(&p, s0), constrained_mle(&p, s1));
            (0..5).map(|k| counts[k] * (q1[k] / q0[k]).ln()).sum()
        };
        let decision = if llr >= upper {
            SprtDecision::AcceptH1
        } else if llr <= lower {
            SprtDecision::AcceptH0
        } else {
            SprtDecision::Continue
        };
        SprtState { llr, lower, upper, decision }
    }
}

/// Whether a gate match promotes the candidate: with an SPRT, only when it
/// accepts H1 (a match that ends undecided does not promote, so that wrong
/// promotions stay at the test's alpha); a fixed-length match without one
/// promotes when the Elo interval lies above zero.
pub fn gate_passes(decision: Option<SprtDecision>, elo_ci95: (f64, f64)) -> bool {
    match decision {
        Some(d) => d == SprtDecision::AcceptH1,
        None => elo_ci95.0 > 0.0,
    }
}

/// Pair scores per game, for the pentanomial categories 0, ½, 1, 1½, 2 points.
const PAIR_SCORES: [f64; 5] = [0.0, 0.25, 0.5, 0.75, 1.0];

/// The distribution `q` over the pentanomial categories that maximises the
/// likelihood of the observed frequencies `p` subject to a mean score of
/// `s`: `q_k = p_k / (1 + λ (x_k - s))`, with λ the root of
/// `Σ p_k (x_k - s) / (1 + λ (x_k - s)) = 0` (found by bisection: the sum
/// falls as λ grows, between the poles where a weight would turn negative).
/// Needs every `p_k > 0` and `0 < s < 1`.
pub fn constrained_mle(p: &[f64; 5], s: f64) -> [f64; 5] {
    let x = PAIR_SCORES;
    let f = |lambda: f64| (0..5).map(|k| p[k] * (x[k] - s) / (1.0 + lambda * (x[k] - s))).sum::<f64>();
    // 1 + λ (x - s) > 0 for x in [0, 1]: λ in (-1 / (1 - s), 1 / s).
    let (mut lo, mut hi) = (-1.0 / (1.0 - s), 1.0 / s);
    let margin = 1e-12;
    lo += margin * (hi - lo);
    hi -= margin * (hi - lo);
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if f(mid) > 0.0 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    let lambda = 0.5 * (lo + hi);
    let q: [f64; 5] = std::array::from_fn(|k| p[k] / (1.0 + lambda * (x[k] - s)));
    let total: f64 = q.iter().sum();
    q.map(|v| v / total)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn elo_and_score_are_inverse() {
        for elo in [-400.0, -50.0, 0.0, 100.0, 300.0] {
            assert!((elo_from_score(score_from_elo(elo)) - elo).abs() < 1e-9);
        }
        assert!((elo_from_score(0.75) - 190.848).abs() < 0.01);
    }

    #[test]
    fn tally_counts_and_interval() {
        let mut t = Tally::default();
        for _ in 0..30 {
            t.add_pair(1.0, 0.5);
            t.add_pair(1.0, 0.0);
        }
        assert_eq!((t.wins, t.draws, t.losses), (60, 30, 30));
        assert_eq!(t.pentanomial, [0, 0, 30, 30, 0]);
        assert!((t.score() - 0.625).abs() < 1e-12);
        let (lo, hi) = t.elo_ci95();
        assert!(lo < t.elo() && t.elo() < hi);
        assert!(lo > 0.0, "a clearly winning record has its interval above zero: {lo}");
        // Pair scores 0.5 and 0.75: per-pair sd 0.125, so the interval is narrow.
        assert!(hi - lo < 60.0, "{lo}..{hi}");
    }

    #[test]
    fn sprt_decides_both_ways() {
        let sprt = Sprt::parse("0,20").unwrap();
        let mut strong = Tally::default();
        let mut even = Tally::default();
        // About 450 pairs of an even score are needed to accept H0 at 0,20.
        for i in 0..1000 {
            strong.add_pair(1.0, if i % 3 == 0 { 0.0 } else { 0.5 });
            even.add_pair(if i % 2 == 0 { 1.0 } else { 0.0 }, 0.5);
        }
        assert_eq!(sprt.state(&strong).decision, SprtDecision::AcceptH1);
        assert_eq!(sprt.state(&even).decision, SprtDecision::AcceptH0);
        assert!(matches!(Sprt::parse("5,0"), Err(SprtError::Bounds { .. })));
        assert!(matches!(Sprt::parse("0,5,0.9,0.05"), Err(SprtError::Risks { .. })));
        assert_eq!(
            Sprt::parse("x,5").unwrap_err().to_string(),
            "SPRT \"x,5\": \"x\" is not a number",
            "the message names the text and the part"
        );
        assert!(matches!(Sprt::parse("1,2,3"), Err(SprtError::Shape { .. })));
        assert_eq!(Sprt::parse("0,5,0.1,0.2").unwrap().beta, 0.2);
    }

    #[test]
    fn a_few_alike_pairs_decide_nothing() {
        // Found in a review: two pairs of 1.5 points accepted H1 at 0,5, and
        // hce against greedy stopped after 3 pairs.
        let mut t = Tally::default();
        t.add_pair(1.0, 0.5);
        t.add_pair(0.5, 1.0);
        assert_eq!(t.pentanomial, [0, 0, 0, 2, 0]);
        let sprt = Sprt::parse("0,5").unwrap();
        assert_eq!(sprt.state(&t).decision, SprtDecision::Continue, "{:?}", sprt.state(&t));
        let mut sweep = Tally::default();
        for _ in 0..3 {
            sweep.add_pair(1.0, 1.0);
        }
        assert_eq!(sprt.state(&sweep).decision, SprtDecision::Continue);
        // Many such pairs do decide (at 0,5 the test weighs a score near 0.5
        // against one 5 Elo higher: a sweep needs about 300 pairs).
        for _ in 0..300 {
            sweep.add_pair(1.0, 1.0);
        }
        assert_eq!(sprt.state(&sweep).decision, SprtDecision::AcceptH1);
    }

    #[test]
    fn constrained_mle_has_the_asked_mean_and_keeps_the_shape() {
        let p = [0.1, 0.2, 0.4, 0.2, 0.1];
        for s in [0.3, 0.5, 0.62] {
            let q = constrained_mle(&p, s);
            let mean: f64 = (0..5).map(|k| q[k] * PAIR_SCORES[k]).sum();
            assert!((mean - s).abs() < 1e-9, "{s}: {mean}");
            assert!((q.iter().sum::<f64>() - 1.0).abs() < 1e-12);
        }
        // Asking for the observed mean returns the observation.
        let q = constrained_mle(&p, 0.5);
        assert!(p.iter().zip(q).all(|(a, b)| (a - b).abs() < 1e-9), "{q:?}");
    }

    #[test]
    fn alike_pairs_get_an_interval_of_honest_width() {
        let mut t = Tally::default();
        for _ in 0..100 {
            t.add_pair(0.5, 0.5);
        }
        let (lo, hi) = t.elo_ci95();
        assert!(lo < -5.0 && hi > 5.0, "100 drawn pairs do not pin the Elo to zero: [{lo}, {hi}]");
        assert!(lo > -60.0 && hi < 60.0, "but they narrow it: [{lo}, {hi}]");
    }

    /// Plays `runs` seeded gate matches of at most `max_pairs` pairs whose
    /// pair results are drawn from `dist` (pentanomial probabilities), and
    /// returns the share that promoted the candidate.
    fn promotion_rate(sprt: Sprt, dist: [f64; 5], runs: usize, max_pairs: usize, seed: u64) -> f64 {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        let mut promoted = 0;
        for _ in 0..runs {
            let mut t = Tally::default();
            let mut decision = SprtDecision::Continue;
            for _ in 0..max_pairs {
                let mut u: f64 = rng.gen();
                let k = (0..5).find(|&k| {
                    u -= dist[k];
                    u < 0.0
                });
                t.pentanomial[k.unwrap_or(4)] += 1;
                decision = sprt.state(&t).decision;
                if decision != SprtDecision::Continue {
                    break;
                }
            }
            let (lo, hi) = t.elo_ci95();
            if gate_passes(Some(decision), (lo, hi)) {
                promoted += 1;
            }
        }
        promoted as f64 / runs as f64
    }

    #[test]
    fn the_gate_promotes_a_candidate_no_better_than_elo0_at_most_alpha_of_the_time() {
        // Draw-heavy pairs with mean 0.5 (true Elo 0 = elo0), as in the
        // pipeline's gate: 0,20, at most 200 pairs (400 games).
        let sprt = Sprt::parse("0,20").unwrap();
        let even = [0.03, 0.17, 0.6, 0.17, 0.03];
        let runs = 2000;
        let rate = promotion_rate(sprt, even, runs, 200, 7);
        let sigma = (0.05f64 * 0.95 / runs as f64).sqrt();
        assert!(rate <= 0.05 + 3.0 * sigma, "wrong promotions {rate} exceed alpha");
        // Without truncation the error rate is alpha itself, within sampling error.
        let untruncated = promotion_rate(sprt, even, runs, 20_000, 8);
        assert!((untruncated - 0.05).abs() < 3.0 * sigma + 0.01, "{untruncated}");
        // A clearly stronger candidate (about +70 Elo) is promoted nearly always.
        let strong = [0.01, 0.09, 0.55, 0.27, 0.08];
        assert!(promotion_rate(sprt, strong, 300, 200, 9) > 0.9);
    }

    #[test]
    fn normalized_elo_matches_values_computed_by_hand() {
        // 500 pairs 0 / 13 / 422 / 65 / 0: μ = 263/500 = 0.526, σ² =
        // (13·0.276² + 422·0.026² + 65·0.224²)/500 = 0.009074, so nElo =
        // 0.026 / (√2 · 0.0952575) · 347.436 = 67.06, and μ ± 1.96 σ/√500 =
        // 0.526 ± 0.0083495 gives [45.52, 88.59].
        let t = Tally { wins: 0, draws: 0, losses: 0, pentanomial: [0, 13, 422, 65, 0] };
        let (v, (lo, hi)) = t.nelo().unwrap();
        assert!((v - 67.06).abs() < 0.01, "{v}");
        assert!((lo - 45.52).abs() < 0.01 && (hi - 88.59).abs() < 0.01, "[{lo}, {hi}]");
        // Symmetric counts: 0, with a symmetric interval.
        let even = Tally { pentanomial: [5, 10, 30, 10, 5], ..Tally::default() };
        let (v, (lo, hi)) = even.nelo().unwrap();
        assert!(v.abs() < 1e-12 && (lo + hi).abs() < 1e-9, "{v} [{lo}, {hi}]");
        // 2 pairs 1.5 and 3 pairs 1 (points): μ = (2·0.75 + 3·0.5)/5 = 0.6,
        // σ² = (2·0.15² + 3·0.1²)/5 = 0.015, nElo = 0.1/(√2·0.122474)·347.436 = 200.59.
        let few = Tally { pentanomial: [0, 0, 3, 2, 0], ..Tally::default() };
        assert!((few.nelo().unwrap().0 - 200.59).abs() < 0.01, "{:?}", few.nelo());
        // No pairs, or no spread: undefined.
        assert_eq!(Tally::default().nelo(), None);
        assert_eq!(Tally { pentanomial: [0, 0, 7, 0, 0], ..Tally::default() }.nelo(), None);
    }
}
