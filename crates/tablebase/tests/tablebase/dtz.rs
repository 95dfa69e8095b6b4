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
    build, build_dtz_with_limit, verify, BuildOptions, Dtz, Kind, Outcome, Solver, Tablebase, Wdl, NO_PROGRESS_PLIES,
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
        build_dtz_with_limit(&short, &options(Kind::Dtz), Solver::Auto, 4, &mut |_| {}).unwrap();
        let (changed, decided) = compare(&short, 4, &positions(4, 600, &[4, 5]));
        assert!(changed >= 5, "only {changed} cursed wins or blessed losses under a 4-ply rule");
        assert!(decided > 150, "only {decided} positions won or lost under a 4-ply rule");
    };
    std::thread::Builder::new().stack_size(512 << 20).spawn(run).unwrap().join().unwrap();
}

/// The classic rules' game with its count, solved by brute force: every
/// position reachable from `sample` with each count from 0 to `limit`, a
/// pair's value from its moves' pairs (a progress move to count 0, any
/// other to count + 1; at the limit a draw unless the side to move has no
/// move), swept until nothing changes. Under the classic rules a forward
/// move (progress) can be taken back by a backward one, so progress moves
/// do not order the game as they do BrainKing's, and the recursion of
/// [`Counter`] would not end; pairs never decided are draws (endless play).
fn classic_pair_values(sample: &[Position], limit: u32) -> HashMap<u64, Vec<Wdl>> {
    let rules = RuleSet::Classic;
    let mut index: HashMap<u64, usize> = HashMap::new();
    let mut positions: Vec<Position> = Vec::new();
    for pos in sample {
        if index.insert(pos.key(), positions.len()).is_none() {
            positions.push(*pos);
        }
    }
    let mut moves: Vec<Vec<(usize, bool)>> = Vec::new();
    let mut next = 0;
    while next < positions.len() {
        let pos = positions[next];
        let mut list = Vec::new();
        for mv in pos.legal_moves_in(rules) {
            let child = pos.play(mv);
            let j = *index.entry(child.key()).or_insert_with(|| {
                positions.push(child);
                positions.len() - 1
            });
            list.push((j, mv.is_progress(pos.side_to_move())));
        }
        moves.push(list);
        next += 1;
    }
    let width = limit as usize + 1;
    // 1 win, -1 loss, 0 not yet known, for the side to move.
    let mut value = vec![0i8; positions.len() * width];
    loop {
        let mut changed = false;
        for (i, list) in moves.iter().enumerate() {
            for c in 0..width {
                if value[i * width + c] != 0 {
                    continue;
                }
                let v = if list.is_empty() {
                    -1
                } else if c == limit as usize {
                    continue;
                } else {
                    let after = |&(j, progress): &(usize, bool)| value[j * width + if progress { 0 } else { c + 1 }];
                    if list.iter().any(|m| after(m) == -1) {
                        1
                    } else if list.iter().all(|m| after(m) == 1) {
                        -1
                    } else {
                        continue;
                    }
                };
                value[i * width + c] = v;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    let wdl = |v: i8| [Wdl::Loss, Wdl::Draw, Wdl::Win][(v + 1) as usize];
    sample
        .iter()
        .map(|p| (p.key(), value[index[&p.key()] * width..][..width].iter().map(|&v| wdl(v)).collect()))
        .collect()
}

#[test]
fn classic_dtz_values_are_the_counted_games_values() {
    let classic = |kind| BuildOptions { pieces: 4, shard: None, rules: RuleSet::Classic, kind };
    for (limit, sizes, seed) in [(NO_PROGRESS_PLIES, &[3usize][..], 3u64), (4, &[4][..], 4)] {
        let dir = crate::scratch(&format!("dtz-classic-{limit}"));
        assert_eq!(build(&dir, &classic(Kind::Distance), &mut |_| {}).unwrap(), Outcome::Complete);
        build_dtz_with_limit(&dir, &classic(Kind::Dtz), Solver::Auto, limit, &mut |_| {}).unwrap();
        let tb = Tablebase::open(&dir).unwrap();
        let sample = positions(seed, 200, sizes);
        let truth = classic_pair_values(&sample, limit);
        let (mut cursed_seen, mut decided) = (0, 0);
        for pos in &sample {
            let dtz = tb.probe_dtz(pos).unwrap();
            let infinite = Wdl::from(tb.probe(pos).unwrap());
            assert_eq!(dtz.infinite(), infinite, "{pos}: {dtz} against the distance tables' {infinite}");
            for (count, &want) in truth[&pos.key()].iter().enumerate() {
                let got = dtz.under_limit(limit, count as u32);
                assert_eq!(got, want, "{pos}, rule {limit}, {count} counted: tables {dtz}, by the rules {want}");
            }
            let cursed = matches!(dtz, Dtz::CursedWin | Dtz::BlessedLoss);
            assert_eq!(cursed, truth[&pos.key()][0] != infinite, "{pos}: {dtz}");
            cursed_seen += u32::from(cursed);
            decided += u32::from(matches!(dtz, Dtz::Win(_) | Dtz::Loss(_)));
        }
        // Measured: 180 and 97 of 200 decided, 0 and 53 cursed.
        assert!(decided >= 50, "rule {limit}: only {decided} of 200 positions won or lost under the rule");
        if limit == 4 {
            assert!(cursed_seen >= 10, "only {cursed_seen} cursed wins or blessed losses under a 4-ply rule");
        } else {
            // The builder's own check (the local rule of the 60-ply tables,
            // and the infinite values).
            let mut tb = Tablebase::open(&dir).unwrap();
            assert!(verify(&mut tb, &mut |_| {}).unwrap() > 0);
        }
    }
}

#[test]
fn both_dtz_solvers_write_the_same_brainking_tables() {
    // The classic rules' solver (thresholds raised to a fixed point) works
    // for BrainKing's too; the slice solver must agree with it byte for
    // byte, under the game's rule and under a short one with cursed wins.
    for limit in [NO_PROGRESS_PLIES, 3] {
        let (a, b) = (crate::scratch(&format!("dtz-slices-{limit}")), crate::scratch(&format!("dtz-passes-{limit}")));
        build_dtz_with_limit(&a, &options(Kind::Dtz), Solver::Auto, limit, &mut |_| {}).unwrap();
        build_dtz_with_limit(&b, &options(Kind::Dtz), Solver::Passes, limit, &mut |_| {}).unwrap();
        let mut files = 0;
        for entry in std::fs::read_dir(&a).unwrap() {
            let path = entry.unwrap().path();
            let other = b.join(path.file_name().unwrap());
            assert_eq!(std::fs::read(&path).unwrap(), std::fs::read(&other).unwrap(), "{}", path.display());
            files += 1;
        }
        assert!(files >= 20, "only {files} files");
    }
}
