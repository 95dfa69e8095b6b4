//! Interval estimates and tests: rates, scores, differences of proportions.

use serde::Serialize;

/// z for a two-sided 95 % interval.
pub const Z95: f64 = 1.959_963_984_540_054;

/// A rate with its Wilson 95 % interval.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, serde::Deserialize)]
pub struct Rate {
    pub rate: f64,
    pub ci95: [f64; 2],
}

/// The Wilson score interval for `successes` out of `n` (successes may be
/// fractional, as for a score that counts draws as halves).
pub fn wilson(successes: f64, n: u64) -> Rate {
    if n == 0 {
        return Rate { rate: 0.0, ci95: [0.0, 1.0] };
    }
    let n = n as f64;
    let p = successes / n;
    let z2 = Z95 * Z95;
    let denom = 1.0 + z2 / n;
    let center = (p + z2 / (2.0 * n)) / denom;
    let half = Z95 * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt() / denom;
    Rate { rate: p, ci95: [(center - half).max(0.0), (center + half).min(1.0)] }
}

/// White's score (wins plus half the draws, over `wins + draws + losses`
/// games) with a 95 % interval that fits a result with three outcomes.
///
/// A Wilson interval on "points over games" treats every game as a win or a
/// loss and is too wide when draws are common (with every game drawn it
/// still gives about ±0.1 at 100 games). This is a normal interval on the
/// per-game trinomial variance, `(w + d/4)/n - s^2`, after adding z²/4
/// pseudo-wins and z²/4 pseudo-losses (about 0.96 each, the Agresti–Coull
/// idea): without draws it is close to Wilson's, with many draws it narrows
/// as it should, and it never collapses to zero width on a sample where
/// every game ended alike (100 draws: 0.5 ± 0.013).
pub fn score_interval(wins: u64, draws: u64, losses: u64) -> Rate {
    let n = wins + draws + losses;
    if n == 0 {
        return Rate { rate: 0.0, ci95: [0.0, 1.0] };
    }
    let rate = (wins as f64 + 0.5 * draws as f64) / n as f64;
    let a = Z95 * Z95 / 4.0;
    let (w, d) = (wins as f64 + a, draws as f64);
    let n2 = n as f64 + 2.0 * a;
    let mean = (w + 0.5 * d) / n2;
    let variance = ((w + 0.25 * d) / n2 - mean * mean).max(0.0);
    let half = Z95 * (variance / n2).sqrt();
    Rate { rate, ci95: [(mean - half).max(0.0), (mean + half).min(1.0)] }
}

/// A difference of two independent scores with its 95 % interval (from the
/// two intervals' standard errors).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, serde::Deserialize)]
pub struct Difference {
    pub difference: f64,
    pub ci95: [f64; 2],
}

pub fn difference(a: Rate, b: Rate) -> Difference {
    let se = |r: Rate| (r.ci95[1] - r.ci95[0]) / (2.0 * Z95);
    let d = a.rate - b.rate;
    let half = Z95 * (se(a).powi(2) + se(b).powi(2)).sqrt();
    Difference { difference: d, ci95: [d - half, d + half] }
}

/// The standard normal distribution function.
pub fn normal_cdf(x: f64) -> f64 {
    0.5 * erfc(-x / std::f64::consts::SQRT_2)
}

/// Complementary error function (Numerical Recipes' `erfcc`, fractional
/// error below 1.2e-7 everywhere).
fn erfc(x: f64) -> f64 {
    let z = x.abs();
    let t = 1.0 / (1.0 + 0.5 * z);
    let poly = -z * z - 1.265_512_23
        + t * (1.000_023_68
            + t * (0.374_091_96
                + t * (0.096_784_18
                    + t * (-0.186_288_06
                        + t * (0.278_868_07
                            + t * (-1.135_203_98 + t * (1.488_515_87 + t * (-0.822_152_23 + t * 0.170_872_77))))))));
    let r = t * poly.exp();
    if x >= 0.0 {
        r
    } else {
        2.0 - r
    }
}

/// A two-proportion z-test (pooled), two-sided.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct TwoProportion {
    /// First proportion minus second.
    pub difference: f64,
    pub z: f64,
    pub p_value: f64,
}

pub fn two_proportion(x1: u64, n1: u64, x2: u64, n2: u64) -> Option<TwoProportion> {
    if n1 == 0 || n2 == 0 {
        return None;
    }
    let (p1, p2) = (x1 as f64 / n1 as f64, x2 as f64 / n2 as f64);
    let pooled = (x1 + x2) as f64 / (n1 + n2) as f64;
    let se = (pooled * (1.0 - pooled) * (1.0 / n1 as f64 + 1.0 / n2 as f64)).sqrt();
    if se == 0.0 {
        return None;
    }
    let z = (p1 - p2) / se;
    // erfc keeps its relative precision far into the tail, where 1 - cdf would round to 0.
    Some(TwoProportion { difference: p1 - p2, z, p_value: erfc(z.abs() / std::f64::consts::SQRT_2) })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wilson_matches_a_known_value() {
        // 4,781 of 8,426: 0.5674 with interval about [0.5568, 0.5780].
        let r = wilson(4781.0, 8426);
        assert!((r.rate - 0.56741).abs() < 1e-4);
        assert!((r.ci95[0] - 0.5568).abs() < 2e-4 && (r.ci95[1] - 0.5780).abs() < 2e-4, "{r:?}");
        let edge = wilson(0.0, 10);
        assert_eq!(edge.ci95[0], 0.0);
        assert!((edge.ci95[1] - 0.2775).abs() < 1e-3);
    }

    #[test]
    fn score_interval_handles_draws() {
        // Every game drawn: centred on 0.5, narrow, but not of zero width.
        let all_draws = score_interval(0, 100, 0);
        assert_eq!(all_draws.rate, 0.5);
        let width = all_draws.ci95[1] - all_draws.ci95[0];
        assert!(width > 0.01 && width < 0.04, "{all_draws:?}");
        // No draws: close to Wilson's interval.
        let w = wilson(60.0, 100);
        let s = score_interval(60, 0, 40);
        assert!((s.ci95[0] - w.ci95[0]).abs() < 0.005 && (s.ci95[1] - w.ci95[1]).abs() < 0.005, "{s:?} {w:?}");
        // 24 % draws: narrower than Wilson on points, by about the ratio of
        // the standard deviations (the trinomial one is sqrt(0.19) against 0.5).
        let s = score_interval(50, 24, 26);
        let w = wilson(62.0, 100);
        let ratio = (s.ci95[1] - s.ci95[0]) / (w.ci95[1] - w.ci95[0]);
        assert!(ratio > 0.8 && ratio < 0.92, "{ratio}");
        // All wins: the interval reaches 1 and stays below the point only a little.
        let s = score_interval(100, 0, 0);
        assert!(s.ci95[1] == 1.0 && s.ci95[0] > 0.95 && s.ci95[0] < 0.99, "{s:?}");
        assert_eq!(score_interval(0, 0, 0).ci95, [0.0, 1.0]);
    }

    #[test]
    fn differences_combine_both_errors() {
        let a = score_interval(600, 0, 400);
        let b = score_interval(500, 0, 500);
        let d = difference(a, b);
        assert!((d.difference - 0.1).abs() < 1e-12);
        // sqrt(0.24/1000 + 0.25/1000) * 1.96 = 0.0434
        assert!(((d.ci95[1] - d.ci95[0]) / 2.0 - 0.0434).abs() < 0.002, "{d:?}");
    }

    #[test]
    fn normal_cdf_and_z_test() {
        assert!((normal_cdf(1.959964) - 0.975).abs() < 1e-6);
        assert!((normal_cdf(0.0) - 0.5).abs() < 1e-7);
        let t = two_proportion(600, 1000, 500, 1000).unwrap();
        assert!((t.z - 4.4947).abs() < 1e-3, "{t:?}");
        assert!((t.p_value - 6.97e-6).abs() < 1e-7, "{t:?}");
        let far = two_proportion(300, 1000, 600, 1000).unwrap();
        assert!(far.p_value > 0.0 && far.p_value < 1e-30, "{far:?}");
        let same = two_proportion(50, 100, 500, 1000).unwrap();
        assert!(same.z.abs() < 1e-12 && (same.p_value - 1.0).abs() < 1e-6);
    }
}
