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
    /// from single games otherwise.
    fn mean_and_variance_per_game(&self) -> (f64, f64) {
        let pairs = self.pairs();
        if pairs >= 2 {
            let n = pairs as f64;
            let mean: f64 = (0..5).map(|k| self.pentanomial[k] as f64 * k as f64 / 4.0).sum::<f64>() / n;
            let var: f64 =
                (0..5).map(|k| self.pentanomial[k] as f64 * (k as f64 / 4.0 - mean).powi(2)).sum::<f64>() / n;
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
        let half = 1.959964 * (var / n as f64).sqrt();
        (elo_from_score(mean - half), elo_from_score(mean + half))
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

impl Sprt {
    /// Parses `elo0,elo1[,alpha,beta]` (alpha and beta default to 0.05).
    pub fn parse(text: &str) -> Result<Sprt, String> {
        let parts: Vec<&str> = text.split(',').map(str::trim).collect();
        if parts.len() != 2 && parts.len() != 4 {
            return Err(format!("SPRT {text:?}: expected elo0,elo1 or elo0,elo1,alpha,beta"));
        }
        let mut values = Vec::new();
        for p in &parts {
            values.push(p.parse::<f64>().map_err(|_| format!("SPRT {text:?}: {p:?} is not a number"))?);
        }
        let (alpha, beta) = if values.len() == 4 { (values[2], values[3]) } else { (0.05, 0.05) };
        let sprt = Sprt { elo0: values[0], elo1: values[1], alpha, beta };
        if sprt.elo1 <= sprt.elo0 {
            return Err(format!("SPRT {text:?}: elo1 must be greater than elo0"));
        }
        if !(0.0 < alpha && alpha < 0.5 && 0.0 < beta && beta < 0.5) {
            return Err(format!("SPRT {text:?}: alpha and beta must lie between 0 and 0.5"));
        }
        Ok(sprt)
    }

    /// The log-likelihood ratio of the pairs so far (generalised SPRT on the
    /// pentanomial distribution, normal approximation), with its bounds.
    pub fn state(&self, tally: &Tally) -> SprtState {
        let lower = (self.beta / (1.0 - self.alpha)).ln();
        let upper = ((1.0 - self.beta) / self.alpha).ln();
        let pairs = tally.pairs();
        let llr = if pairs < 2 {
            0.0
        } else {
            let n = pairs as f64;
            let mean: f64 = (0..5).map(|k| tally.pentanomial[k] as f64 * k as f64 / 4.0).sum::<f64>() / n;
            let var: f64 =
                (0..5).map(|k| tally.pentanomial[k] as f64 * (k as f64 / 4.0 - mean).powi(2)).sum::<f64>() / n;
            // With no spread at all the evidence is as strong as one game can
            // be; a small floor keeps the ratio finite.
            let var = var.max(1e-3);
            let (s0, s1) = (score_from_elo(self.elo0), score_from_elo(self.elo1));
            n * (s1 - s0) * (2.0 * mean - s0 - s1) / (2.0 * var)
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
        assert!(Sprt::parse("5,0").is_err());
        assert!(Sprt::parse("0,5,0.9,0.05").is_err());
        assert!(Sprt::parse("x,5").is_err());
        assert_eq!(Sprt::parse("0,5,0.1,0.2").unwrap().beta, 0.2);
    }
}
