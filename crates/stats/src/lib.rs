//! The statistics every part of Alquerque Lab uses, in one place: rates with
//! their Wilson 95 % intervals, score intervals and two-proportion tests for
//! the reports and studies ([`interval`]), and Elo from game pairs with the
//! sequential probability ratio test for matches and gating ([`elo`]).
//! No dependency on the game: numbers in, numbers out.

pub mod elo;
pub mod interval;

pub use elo::{
    constrained_mle, elo_from_score, gate_passes, score_from_elo, Sprt, SprtDecision, SprtError, SprtState, Tally,
};
pub use interval::{
    difference, normal_cdf, score_interval, two_proportion, wilson, Difference, Rate, TwoProportion, Z95,
};
