//! Distance-to-progress tables against a brute-force solver of the game with
//! its no-progress counter, at every count: under the game's 60-ply rule on
//! random 3- and 4-piece positions, and under a 4-ply rule (on 4 and 5 pieces) (tables built
//! for it), where cursed wins and blessed losses are common in small tables
//! (under the 60-ply rule there are none up to 8 pieces): they must be
//! exactly where the infinite game's value (the distance tables) and the
//! rule's disagree.

use std::collections::HashMap;

use alq_engine::{Position, RuleSet};
use alq_tablebase::{
    build, build_dtz_with_limit, verify, BuildOptions, Dtz, Kind, Outcome, Tablebase, Wdl, NO_PROGRESS_PLIES,
};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// The value under a rule of `limit` plies of `pos` with `count` plies
/// already without progress, by the rules' definition (RULES.md, "End of
/// the game"): no legal move loses, checked first; then a count at the
/// limit draws; else the best move, a capture or a forward move starting
/// the count again. Progress moves never come back (BrainKing's pieces
/// never step back) and the count only grows between them, so the
/// recursion ends.
struct Counter {
    limit: u32,
    memo: HashMap<(u64, u32), Wdl>,
}

impl Counter {
    fn value(&mut self, pos: &Position, count: u32) -> Wdl {
        if let Some(&v) = self.memo.get(&(pos.key(), count)) {
            return v;
        }
        let moves = pos.legal_moves_in(RuleSet::BrainKing);
        let value = if moves.is_empty() {
            Wdl::Loss
        } else if count >= self.limit {
            Wdl::Draw
        } else {
            let mut best = Wdl::Loss;
            for mv in moves {
                let next = if mv.is_progress(pos.side_to_move()) { 0 } else { count + 1 };
                best = best.max(self.value(&pos.play(mv), next).for_mover());
                if best == Wdl::Win {
                    break;
                }
            }
            best
        };
        self.memo.insert((pos.key(), count), value);
        value
    }
}

fn options(kind: Kind) -> BuildOptions {
    BuildOptions { pieces: 5, shard: None, rules: RuleSet::BrainKing, kind }
}

/// `count` random positions of the piece counts `sizes` in turn (both
/// sides present, either side to move).
fn positions(seed: u64, count: usize, sizes: &[usize]) -> Vec<Position> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    (0..count)
        .map(|i| {
            let points = rand::seq::index::sample(&mut rng, 25, sizes[i % sizes.len()]);
            let mut sides = [0u32; 2];
            for (k, p) in points.iter().enumerate() {
                let white = k == 0 || (k > 1 && rng.gen_bool(0.5));
                sides[usize::from(!white)] |= 1 << p;
            }
            let side = if rng.gen_bool(0.5) { alq_engine::Side::White } else { alq_engine::Side::Black };
            Position::from_parts(alq_engine::Bitboard(sides[0]), alq_engine::Bitboard(sides[1]), side)
        })
        .collect()
}

/// Compares the tables in `dir` (distance and dtz, ≤ 5) with the brute
/// force under a rule of `limit` plies; the counts of cursed wins and
/// blessed losses, and of positions decided under the rule.
fn compare(dir: &std::path::Path, limit: u32, sample: &[Position]) -> (u32, u32) {
    let tb = Tablebase::open(dir).unwrap();
    assert_eq!(tb.coverage(Kind::Dtz), Some(5));
    let mut counter = Counter { limit, memo: HashMap::new() };
    let (mut changed, mut decided) = (0, 0);
    for pos in sample {
        let dtz = tb.probe_dtz(pos).unwrap();
        let infinite = Wdl::from(tb.probe(pos).unwrap());
        assert_eq!(dtz.infinite(), infinite, "{pos}: {dtz} against the distance tables' {infinite}");
        for count in 0..=limit {
            let truth = counter.value(pos, count);
            let got = dtz.under_limit(limit, count);
            assert_eq!(got, truth, "{pos}, rule {limit}, {count} plies counted: tables {dtz}, by the rules {truth}");
        }
        // Cursed and blessed: exactly where the two games disagree.
        let cursed = matches!(dtz, Dtz::CursedWin | Dtz::BlessedLoss);
        assert_eq!(cursed, counter.value(pos, 0) != infinite, "{pos}: {dtz}");
        changed += u32::from(cursed);
        decided += u32::from(matches!(dtz, Dtz::Win(_) | Dtz::Loss(_)));
    }
    (changed, decided)
}

#[test]
fn dtz_values_are_the_counted_games_values() {
    // The brute force recurses along whole games (up to 61 plies between
    // progress moves): a thread with room for it.
    let run = || {
        let dir = crate::scratch("dtz");
        assert_eq!(build(&dir, &options(Kind::Distance), &mut |_| {}).unwrap(), Outcome::Complete);
        assert_eq!(build(&dir, &options(Kind::Dtz), &mut |_| {}).unwrap(), Outcome::Complete);
        let (changed, decided) = compare(&dir, NO_PROGRESS_PLIES, &positions(62, 120, &[3, 4]));
        assert_eq!(changed, 0, "cursed values where the ≤ 8 tables have none");
        assert!(decided > 60, "only {decided} positions won or lost under the rule");
        // Its own check passes (the local rule, and the distance tables'
        // infinite values).
        let mut tb = Tablebase::open(&dir).unwrap();
        assert!(verify(&mut tb, &mut |_| {}).unwrap() > 0);

        // A 4-ply rule: the longest wins of 3v2 and 2v2 need up to 20 plies
        // to their next progress move, so some are cursed.
        let short = crate::scratch("dtz-4");
        assert_eq!(build(&short, &options(Kind::Distance), &mut |_| {}).unwrap(), Outcome::Complete);
        build_dtz_with_limit(&short, &options(Kind::Dtz), 4, &mut |_| {}).unwrap();
        let (changed, decided) = compare(&short, 4, &positions(4, 600, &[4, 5]));
        assert!(changed >= 5, "only {changed} cursed wins or blessed losses under a 4-ply rule");
        assert!(decided > 150, "only {decided} positions won or lost under a 4-ply rule");
    };
    std::thread::Builder::new().stack_size(512 << 20).spawn(run).unwrap().join().unwrap();
}
