//! Every seed of a run, from one function: each stage of each generation
//! has its own, fixed by the config and the generation, so that a run and
//! its resumption play the same games.

use crate::config::PipelineConfig;

/// What a seed is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SeedUse {
    /// The generation's self-play.
    Selfplay,
    /// The re-search of the generation's self-play positions.
    Rescore,
    /// The training of the generation's candidate.
    Training,
    /// The candidate against the best player so far.
    Gate,
    /// The candidate against the `index`-th anchor of `anchors`.
    Anchor { index: usize },
    /// The best player's games from the standard start.
    FromStart,
    /// The endgame positions of `[accuracy]` (the same every generation).
    Accuracy,
    /// The best player's games from the start for `[errors]`.
    Errors,
}

/// The seed of `what` in generation `generation`: `[selfplay] seed + g` for
/// self-play and rescoring, `[train] seed + g` for training, `1000 + g` for
/// the gate, `2000 + g + 100 i` against anchor `i`, `3000 + g` from the
/// start, `4000 + g` for `[errors]`, and `[accuracy] seed` for the endgame positions.
pub fn seed(config: &PipelineConfig, what: SeedUse, generation: usize) -> u64 {
    let g = generation as u64;
    match what {
        SeedUse::Selfplay | SeedUse::Rescore => config.selfplay.seed + g,
        SeedUse::Training => config.train.seed + g,
        SeedUse::Gate => 1000 + g,
        SeedUse::Anchor { index } => 2000 + g + 100 * index as u64,
        SeedUse::FromStart => 3000 + g,
        SeedUse::Accuracy => config.accuracy.seed,
        SeedUse::Errors => 4000 + g,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seeds_are_the_historical_numbers() {
        let mut config = PipelineConfig::default();
        config.selfplay.seed = 7;
        config.train.seed = 11;
        config.accuracy.seed = 5;
        for g in [0, 1, 2, 17] {
            let n = g as u64;
            assert_eq!(seed(&config, SeedUse::Selfplay, g), 7 + n);
            assert_eq!(seed(&config, SeedUse::Rescore, g), 7 + n);
            assert_eq!(seed(&config, SeedUse::Training, g), 11 + n);
            assert_eq!(seed(&config, SeedUse::Gate, g), 1000 + n);
            for i in 0..3 {
                assert_eq!(seed(&config, SeedUse::Anchor { index: i }, g), 2000 + n + 100 * i as u64);
            }
            assert_eq!(seed(&config, SeedUse::FromStart, g), 3000 + n);
            assert_eq!(seed(&config, SeedUse::Accuracy, g), 5);
            assert_eq!(seed(&config, SeedUse::Errors, g), 4000 + n);
        }
        // Generation 3: the gate, the second anchor and the start.
        assert_eq!(seed(&config, SeedUse::Gate, 3), 1003);
        assert_eq!(seed(&config, SeedUse::Anchor { index: 1 }, 3), 2103);
        assert_eq!(seed(&config, SeedUse::FromStart, 3), 3003);
    }
}
