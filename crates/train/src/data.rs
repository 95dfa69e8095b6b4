//! Streaming training data: games are read and replayed file by file, split
//! into training and validation by game, turned into (features, target)
//! samples, and shuffled through a bounded buffer.

use std::path::PathBuf;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use alq_engine::{features, perspective_point, Move, Point, Position, RuleSet, Side, INPUTS};
use alq_records::{blend, is_validation, score_target, RecordError, RecordReader, SampleOptions, Samples};

use crate::config::TrainConfig;
use crate::labels::Labels;

/// Which games a pass reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Part {
    Train,
    Validation,
}

/// A batch: `features` is `[n][INPUTS]` flattened; `results`, `scores` and
/// `exact` are `[n]`: the game's result for the side to move (1, 0.5, 0),
/// the squashed search score (the result where there is none), and the
/// exact value where the tables or stores give one (and the value head
/// takes it, see `exact_draws`). `exact_classes` and `policy` are the extra
/// heads' targets, empty when the config trains no such head.
pub struct Batch<'a> {
    pub features: &'a [f32],
    pub results: &'a [f32],
    pub scores: &'a [f32],
    pub exact: &'a [Option<f32>],
    /// The exact value's class (win 0, draw 1, loss 2) wherever the tables
    /// or stores give one, draws included.
    pub exact_classes: &'a [Option<u8>],
    /// The policy targets, one per sample.
    pub policy: &'a [PolicyTarget],
}

/// A position's policy target: each legal move's origin and end as the
/// policy head's outputs index them (side to move's perspective, after any
/// mirroring; the end's index counts from 25) and the probability the
/// target gives it. Empty where the position has no target.
pub type PolicyTarget = Vec<(u8, u8, f32)>;

/// The policy target of `pos` (before mirroring): the moves that keep its
/// exact value where `labels` settle every move, each with an equal part
/// of `1 - ultra`, and `ultra` shared by the perfect player's ultra-strong
/// choices among them (the keepers after which the largest share of the
/// opponent's replies is known to lose value, [`alq_oracle::trap_share`]);
/// else the searched move `played`; else none. Each move as (origin, end,
/// share).
pub fn policy_target(
    pos: &Position,
    played: Option<Move>,
    labels: &Labels,
    rules: RuleSet,
    ultra: f32,
) -> Vec<(Point, Point, f32)> {
    let moves = pos.legal_moves_in(rules);
    if moves.len() < 2 {
        return Vec::new();
    }
    // A child's exact value is the opponent's: the keepers minimise it.
    let children: Option<Vec<f32>> = moves.iter().map(|&mv| labels.exact(&pos.play(mv))).collect();
    let shares: Vec<f32> = match (children, played) {
        (Some(values), _) => {
            let best = values.iter().copied().fold(f32::INFINITY, f32::min);
            let keep: Vec<bool> = values.iter().map(|&v| v == best).collect();
            let n = keep.iter().filter(|&&k| k).count() as f32;
            // A single keeper takes the whole target: no traps to count.
            let traps: Vec<f64> = if ultra > 0.0 && n > 1.0 {
                let kept = value_of(1.0 - best);
                let known = |after: &Position| labels.exact(after).map(value_of);
                moves
                    .iter()
                    .zip(&keep)
                    .map(|(&mv, &k)| if k { alq_oracle::trap_share(pos, mv, kept, rules, known) } else { -1.0 })
                    .collect()
            } else {
                keep.iter().map(|&k| if k { 0.0 } else { -1.0 }).collect()
            };
            let top = traps.iter().copied().fold(f64::MIN, f64::max);
            let ties = traps.iter().filter(|&&t| t == top).count() as f32;
            keep.iter()
                .zip(&traps)
                .map(|(&k, &t)| match (k, t == top) {
                    (false, _) => 0.0,
                    (true, false) => (1.0 - ultra) / n,
                    (true, true) => (1.0 - ultra) / n + ultra / ties,
                })
                .collect()
        }
        (None, Some(p)) if moves.contains(&p) => moves.iter().map(|&mv| if mv == p { 1.0 } else { 0.0 }).collect(),
        (None, _) => return Vec::new(),
    };
    moves.iter().zip(shares).map(|(mv, share)| (mv.from(), mv.to(), share)).collect()
}

/// An exact target (win 1, draw 0.5, loss 0) as the oracle's value.
fn value_of(target: f32) -> alq_oracle::Value {
    use alq_oracle::Value;
    [Value::Win, Value::Draw, Value::Loss][class(target)]
}

/// A policy target in the policy head's indexes for the side to move `me`,
/// with the points mirrored left-right when the sample was.
fn indexed(target: &[(Point, Point, f32)], me: Side, mirrored: bool) -> PolicyTarget {
    let view = |p: Point| perspective_point(me, if mirrored { p.mirror() } else { p }) as u8;
    target.iter().map(|&(from, to, share)| (view(from), 25 + view(to), share)).collect()
}

impl Batch<'_> {
    pub fn len(&self) -> usize {
        self.results.len()
    }

    pub fn is_empty(&self) -> bool {
        self.results.is_empty()
    }

    /// The scalar targets: `result_weight * result + (1 - result_weight) *
    /// score`, mixed with the exact value where there is one:
    /// `exact_weight * exact + (1 - exact_weight) * that`.
    pub fn targets(&self, result_weight: f32, exact_weight: f32) -> Vec<f32> {
        (0..self.len())
            .map(|i| {
                let usual = blend(self.results[i], self.scores[i], result_weight);
                mix(self.exact[i], usual, exact_weight)
            })
            .collect()
    }

    /// The squashed scores mixed with the exact values as [`Batch::targets`]
    /// mixes its targets (a win/draw/loss network's score part).
    pub fn exact_scores(&self, exact_weight: f32) -> Vec<f32> {
        self.scores.iter().zip(self.exact).map(|(&s, &e)| mix(e, s, exact_weight)).collect()
    }

    /// The class probabilities (win, draw, loss) a win/draw/loss network is
    /// fitted to: the result's class, mixed with the exact value's class
    /// where there is one, `exact_weight` to `1 - exact_weight`.
    pub fn classes(&self, exact_weight: f32) -> Vec<f32> {
        let one_hot = |v: f32| {
            let mut classes = [0.0; 3];
            classes[class(v)] = 1.0;
            classes
        };
        self.results
            .iter()
            .zip(self.exact)
            .flat_map(|(&r, &e)| {
                let usual = one_hot(r);
                match e {
                    None => usual,
                    Some(e) => {
                        let exact = one_hot(e);
                        std::array::from_fn(|k| exact_weight * exact[k] + (1.0 - exact_weight) * usual[k])
                    }
                }
            })
            .collect()
    }
}

/// `exact_weight * exact + (1 - exact_weight) * usual` where there is an
/// exact value, `usual` elsewhere.
fn mix(exact: Option<f32>, usual: f32, exact_weight: f32) -> f32 {
    match exact {
        Some(e) => exact_weight * e + (1.0 - exact_weight) * usual,
        None => usual,
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
    labels: &Labels,
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
    let mut buffer: Vec<Sampled> = Vec::with_capacity(capacity);
    let mut xs = Vec::with_capacity(config.batch_size * INPUTS);
    let mut rs = Vec::with_capacity(config.batch_size);
    let mut ss = Vec::with_capacity(config.batch_size);
    let mut es = Vec::with_capacity(config.batch_size);
    let mut cs = Vec::new();
    let mut ps = Vec::new();
    let mut count = 0u64;
    let mut emit = |buffer: &mut Vec<Sampled>, rng: &mut ChaCha8Rng, all: bool| -> Result<(), E> {
        while buffer.len() >= capacity || (all && !buffer.is_empty()) {
            xs.clear();
            rs.clear();
            ss.clear();
            es.clear();
            cs.clear();
            ps.clear();
            let mut take = |s: Sampled| {
                xs.extend_from_slice(&s.features);
                rs.push(s.result);
                ss.push(s.score);
                es.push(s.exact);
                if config.exact_head {
                    cs.push(s.exact_class);
                }
                if config.policy_head {
                    ps.push(s.policy);
                }
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
            on_batch(Batch { features: &xs, results: &rs, scores: &ss, exact: &es, exact_classes: &cs, policy: &ps })?;
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
                // Exact values and policy targets are looked up before
                // mirroring: the stores hold positions as games reach them
                // (mirrored, the value is the same).
                let wanted = config.exact_weight > 0.0 || config.exact_head;
                let raw = if wanted { labels.exact(&s.position) } else { None };
                let exact = raw.filter(|&e| config.exact_weight > 0.0 && (config.exact_draws || e != 0.5));
                let target = if config.policy_head {
                    policy_target(&s.position, s.played, labels, config.rules, config.policy_ultra)
                } else {
                    Vec::new()
                };
                let mirrored = train && config.mirror && rng.gen_bool(0.5);
                let pos = if mirrored { s.position.mirror() } else { s.position };
                buffer.push(Sampled {
                    features: features(&pos),
                    result: s.result,
                    score: score_target(s.result, s.score),
                    exact,
                    exact_class: raw.map(|e| class(e) as u8),
                    policy: indexed(&target, pos.side_to_move(), mirrored),
                });
                if buffer.len() >= capacity {
                    emit(&mut buffer, &mut rng, false)?;
                }
            }
        }
    }
    emit(&mut buffer, &mut rng, true)?;
    Ok(count)
}

/// A sample as buffered (see [`Batch`]).
struct Sampled {
    features: [f32; INPUTS],
    result: f32,
    score: f32,
    exact: Option<f32>,
    exact_class: Option<u8>,
    policy: PolicyTarget,
}

/// Sample counts of a run's data.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    pub train: u64,
    pub validation: u64,
    /// Samples of both parts with an exact value (from the tables or
    /// stores), counted whatever `exact_weight` is.
    pub exact: u64,
    /// Those samples by exact value and by the game's result, both for the
    /// side to move: `[exact][result]`, each indexed win 0, draw 1, loss 2.
    /// Off the diagonal, the game ended otherwise than perfect play from
    /// the position would have: what an exact target overrules.
    pub exact_by_result: [[u64; 3]; 3],
}

impl Counts {
    /// Exact samples whose game ended otherwise than their exact value.
    pub fn exact_overruled(&self) -> u64 {
        let m = &self.exact_by_result;
        (0..3).flat_map(|e| (0..3).map(move |r| (e, r))).filter(|(e, r)| e != r).map(|(e, r)| m[e][r]).sum()
    }
}

/// A value for the side to move as an index: win 0, draw 1, loss 2.
fn class(v: f32) -> usize {
    match v {
        v if v > 0.75 => 0,
        v if v > 0.25 => 1,
        _ => 2,
    }
}

/// Counts the samples of each part without building them (for progress and
/// the learning-rate schedule), and those with an exact value.
pub fn count(files: &[PathBuf], config: &TrainConfig, labels: &Labels) -> Result<Counts, RecordError> {
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
            for s in &of_game {
                if let Some(exact) = labels.exact(&s.position) {
                    counts.exact += 1;
                    counts.exact_by_result[class(exact)][class(s.result)] += 1;
                }
            }
            if is_validation(&game.record, config.validation_fraction) {
                counts.validation += n;
            } else {
                counts.train += n;
            }
        }
    }
    Ok(counts)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_values_mix_into_every_target_by_their_weight() {
        let features = vec![0.0; 3 * INPUTS];
        // A won game, a lost one whose position is exactly drawn, and a
        // drawn one whose position is exactly won.
        let (results, scores) = ([1.0, 0.0, 0.5], [0.8, 0.2, 0.6]);
        let exact = [None, Some(0.5), Some(1.0)];
        let b = Batch {
            features: &features,
            results: &results,
            scores: &scores,
            exact: &exact,
            exact_classes: &[],
            policy: &[],
        };
        let close = |a: &[f32], b: &[f32]| a.len() == b.len() && a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-6);
        // Weight 0: the usual targets.
        assert!(close(&b.targets(0.5, 0.0), &[0.9, 0.1, 0.55]));
        // Weight 1: the exact value wherever there is one.
        assert!(close(&b.targets(0.5, 1.0), &[0.9, 0.5, 1.0]));
        // Half and half.
        assert!(close(&b.targets(0.5, 0.5), &[0.9, 0.3, 0.775]));
        assert!(close(&b.exact_scores(0.5), &[0.8, 0.35, 0.8]));
        let classes = b.classes(0.25);
        assert!(close(&classes[..3], &[1.0, 0.0, 0.0]));
        assert!(close(&classes[3..6], &[0.0, 0.25, 0.75]));
        assert!(close(&classes[6..], &[0.25, 0.75, 0.0]));
        // Each row is a distribution.
        assert!(classes.chunks(3).all(|c| (c.iter().sum::<f32>() - 1.0).abs() < 1e-6));
    }
}
