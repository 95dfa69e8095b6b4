//! Streaming training data: games are read and replayed file by file, split
//! into training and validation by game, turned into (features, target)
//! samples, and shuffled through a bounded buffer.

use std::path::PathBuf;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use alq_engine::{features, EndgameTables, INPUTS};
use alq_records::{blend, exact_target, is_validation, RecordError, RecordReader, SampleOptions, Samples};

use crate::config::TrainConfig;

/// Which games a pass reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Part {
    Train,
    Validation,
}

/// A batch: `features` is `[n][INPUTS]` flattened; `results` and `scores`
/// are `[n]`: the game's result for the side to move (1, 0.5, 0) and the
/// squashed search score (the result where there is none). Positions the
/// tables cover have their exact value in both.
pub struct Batch<'a> {
    pub features: &'a [f32],
    pub results: &'a [f32],
    pub scores: &'a [f32],
}

impl Batch<'_> {
    pub fn len(&self) -> usize {
        self.results.len()
    }

    pub fn is_empty(&self) -> bool {
        self.results.is_empty()
    }

    /// The scalar targets `result_weight * result + (1 - result_weight) * score`.
    pub fn targets(&self, result_weight: f32) -> Vec<f32> {
        self.results.iter().zip(self.scores).map(|(&r, &s)| blend(r, s, result_weight)).collect()
    }
}

/// Streams one pass over `part` of the games in `files`, calling `on_batch`
/// with batches of `batch_size` (the last may be smaller). Training passes
/// are shuffled through the buffer and mirrored at random, seeded by `seed`;
/// validation passes are neither. Returns the number of samples.
pub fn for_each_batch<E: From<RecordError>>(
    files: &[PathBuf],
    part: Part,
    config: &TrainConfig,
    tables: Option<&dyn EndgameTables>,
    seed: u64,
    mut on_batch: impl FnMut(Batch) -> Result<(), E>,
) -> Result<u64, E> {
    let train = part == Part::Train;
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut samples = Samples::new(SampleOptions {
        skip_opening: config.skip_opening,
        skip_forced_captures: config.skip_forced_captures,
        dedup: false,
    });
    let capacity = if train { config.shuffle_buffer.max(config.batch_size) } else { config.batch_size };
    let mut buffer: Vec<([f32; INPUTS], f32, f32)> = Vec::with_capacity(capacity);
    let mut xs = Vec::with_capacity(config.batch_size * INPUTS);
    let mut rs = Vec::with_capacity(config.batch_size);
    let mut ss = Vec::with_capacity(config.batch_size);
    let mut count = 0u64;
    let mut emit = |buffer: &mut Vec<([f32; INPUTS], f32, f32)>, rng: &mut ChaCha8Rng, all: bool| -> Result<(), E> {
        while buffer.len() >= capacity || (all && !buffer.is_empty()) {
            xs.clear();
            rs.clear();
            ss.clear();
            let mut take = |(f, r, s): ([f32; INPUTS], f32, f32)| {
                xs.extend_from_slice(&f);
                rs.push(r);
                ss.push(s);
            };
            if train {
                for _ in 0..config.batch_size.min(buffer.len()) {
                    take(buffer.swap_remove(rng.gen_range(0..buffer.len())));
                }
            } else {
                let n = config.batch_size.min(buffer.len());
                buffer.drain(..n).for_each(&mut take);
            }
            count += rs.len() as u64;
            on_batch(Batch { features: &xs, results: &rs, scores: &ss })?;
            if !all && buffer.len() < capacity {
                break;
            }
        }
        Ok(())
    };
    for file in files {
        for game in RecordReader::open(file)?.expecting(config.rules) {
            let game = game?;
            if is_validation(&game.record, config.validation_fraction) == train {
                continue;
            }
            for s in samples.of_game(&game) {
                let pos = if train && config.mirror && rng.gen_bool(0.5) { s.position.mirror() } else { s.position };
                let (result, score) = s.training_values(tables);
                buffer.push((features(&pos), result, score));
                if buffer.len() >= capacity {
                    emit(&mut buffer, &mut rng, false)?;
                }
            }
        }
    }
    emit(&mut buffer, &mut rng, true)?;
    Ok(count)
}

/// Sample counts of a run's data.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    pub train: u64,
    pub validation: u64,
    /// Samples of both parts whose target is exact (from the tables).
    pub exact: u64,
}

/// Counts the samples of each part without building them (for progress and
/// the learning-rate schedule), and those the tables give exact targets.
pub fn count(
    files: &[PathBuf],
    config: &TrainConfig,
    tables: Option<&dyn EndgameTables>,
) -> Result<Counts, RecordError> {
    let mut samples = Samples::new(SampleOptions {
        skip_opening: config.skip_opening,
        skip_forced_captures: config.skip_forced_captures,
        dedup: false,
    });
    let mut counts = Counts::default();
    for file in files {
        for game in RecordReader::open(file)?.expecting(config.rules) {
            let game = game?;
            let of_game = samples.of_game(&game);
            let n = of_game.len() as u64;
            counts.exact += of_game.iter().filter(|s| exact_target(tables, &s.position).is_some()).count() as u64;
            if is_validation(&game.record, config.validation_fraction) {
                counts.validation += n;
            } else {
                counts.train += n;
            }
        }
    }
    Ok(counts)
}
