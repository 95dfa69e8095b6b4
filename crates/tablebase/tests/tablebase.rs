//! Tablebase tests: values against an independent brute-force solver,
//! symmetries, verification, damaged files and shard byte-identity.
//!
//! Builds go to Cargo's temporary folder for integration tests and are shared
//! between the tests of this file.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use alq_engine::{Bitboard, Position, Side};
use alq_tablebase::{
    build, build_with, class_stats, value_from_byte, value_to_byte, verify, BuildOptions, Event, Exact, Kind, Layout,
    Material, Outcome, Scheme, Shard, Solver, Tablebase, TbError, VerifyEvent, Wdl,
};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

#[path = "tablebase/dtz.rs"]
mod dtz;

fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("tb-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The ≤ 6-piece tablebase, built once on one machine.
fn six() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = scratch("six");
        let outcome = build(
            &dir,
            &BuildOptions {
                pieces: 6,
                shard: None,
                rules: alq_engine::RuleSet::BrainKing,
                kind: alq_tablebase::Kind::Distance,
            },
            &mut |_| {},
        )
        .unwrap();
        assert_eq!(outcome, Outcome::Complete);
        dir
    })
}

/// An independent solver: every position with at most `max` pieces (both
/// sides to move) enumerated from scratch, successors found with the engine's
/// `legal_moves` and `play`, and values found by the definition, distance by
/// distance: a position loses in 0 without moves, wins in d (odd) when a
/// successor loses in d - 1, loses in d (even) when every successor wins and
/// the longest in d - 1. Whatever is left is a draw.
struct Naive {
    ids: HashMap<(u32, u32, bool), usize>,
    values: Vec<Option<Exact>>,
}

impl Naive {
    fn solve(max: u32, rules: alq_engine::RuleSet) -> Naive {
        let mut positions = Vec::new();
        // All pairs of disjoint sets with at most `max` points in all.
        for white in 0u32..(1 << 25) {
            let nw = white.count_ones();
            if nw > max {
                continue;
            }
            let rest = max - nw;
            // Black sets: subsets of the other points with at most `rest` points.
            let free: Vec<u32> = (0..25).filter(|p| white & (1 << p) == 0).collect();
            let mut stack = vec![(0usize, 0u32, 0u32)];
            while let Some((start, black, n)) = stack.pop() {
                positions.push((white, black, false));
                positions.push((white, black, true));
                if n < rest {
                    for (i, p) in free.iter().enumerate().skip(start) {
                        stack.push((i + 1, black | (1 << p), n + 1));
                    }
                }
            }
        }
        let ids: HashMap<(u32, u32, bool), usize> = positions.iter().enumerate().map(|(i, &k)| (k, i)).collect();
        let successors: Vec<Vec<usize>> = positions
            .iter()
            .map(|&(w, b, black)| {
                let side = if black { Side::Black } else { Side::White };
                let pos = Position::from_parts(Bitboard(w), Bitboard(b), side);
                pos.legal_moves_in(rules)
                    .iter()
                    .map(|&mv| {
                        let next = pos.play(mv);
                        let key = (
                            next.pieces(Side::White).0,
                            next.pieces(Side::Black).0,
                            next.side_to_move() == Side::Black,
                        );
                        ids[&key]
                    })
                    .collect()
            })
            .collect();
        let mut values: Vec<Option<Exact>> = vec![None; positions.len()];
        for (i, s) in successors.iter().enumerate() {
            if s.is_empty() {
                values[i] = Some(Exact::Loss(0));
            }
        }
        let mut d = 1u32;
        loop {
            let mut found = Vec::new();
            for (i, s) in successors.iter().enumerate() {
                if values[i].is_some() {
                    continue;
                }
                let decided = if d % 2 == 1 {
                    s.iter().any(|&t| values[t] == Some(Exact::Loss(d - 1)))
                } else {
                    s.iter().all(|&t| matches!(values[t], Some(Exact::Win(e)) if e < d))
                        && s.iter().any(|&t| values[t] == Some(Exact::Win(d - 1)))
                };
                if decided {
                    found.push(i);
                }
            }
            if found.is_empty() {
                break;
            }
            for i in found {
                values[i] = Some(if d % 2 == 1 { Exact::Win(d) } else { Exact::Loss(d) });
            }
            d += 1;
        }
        Naive { ids, values }
    }

    fn value(&self, pos: &Position) -> Exact {
        let key = (pos.pieces(Side::White).0, pos.pieces(Side::Black).0, pos.side_to_move() == Side::Black);
        self.values[self.ids[&key]].unwrap_or(Exact::Draw)
    }
}

fn random_position(rng: &mut ChaCha8Rng, max_pieces: u32) -> Position {
    let n = rng.gen_range(1..=max_pieces);
    let (mut w, mut b) = (0u32, 0u32);
    while (w | b).count_ones() < n {
        let p = rng.gen_range(0..25);
        if (w | b) & (1 << p) == 0 {
            if rng.gen_bool(0.5) {
                w |= 1 << p;
            } else {
                b |= 1 << p;
            }
        }
    }
    let side = if rng.gen_bool(0.5) { Side::White } else { Side::Black };
    Position::from_parts(Bitboard(w), Bitboard(b), side)
}

#[test]
fn values_equal_an_independent_brute_force_solver() {
    let naive = Naive::solve(5, alq_engine::RuleSet::BrainKing);
    let tb = Tablebase::open(six()).unwrap();
    // Every position with at most 5 pieces, and in particular random ones.
    let mut checked = 0;
    for (&(w, b, black), _) in naive.ids.iter() {
        let pos = Position::from_parts(Bitboard(w), Bitboard(b), if black { Side::Black } else { Side::White });
        assert_eq!(tb.probe(&pos).unwrap(), naive.value(&pos), "{pos}");
        checked += 1;
    }
    assert!(checked > 3_000_000);
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    let mut seen = [0u32; 3];
    for _ in 0..5000 {
        let pos = random_position(&mut rng, 5);
        let v = tb.probe(&pos).unwrap();
        assert_eq!(v, naive.value(&pos), "{pos}");
        seen[match v {
            Exact::Win(_) => 0,
            Exact::Draw => 1,
            Exact::Loss(_) => 2,
        }] += 1;
    }
    assert!(seen.iter().all(|&n| n > 0), "wins, draws and losses all occur: {seen:?}");
}

/// The classic rules' tables: built by the same code from other move tables,
/// checked against the brute-force solver, named in every file, and refused
/// where BrainKing's are expected (and the other way round).
#[test]
fn classic_tables_equal_the_brute_force_solver_and_keep_to_their_rules() {
    use alq_engine::RuleSet;
    let dir = scratch("classic4");
    let outcome = build(
        &dir,
        &BuildOptions { pieces: 4, shard: None, rules: RuleSet::Classic, kind: alq_tablebase::Kind::Distance },
        &mut |_| {},
    )
    .unwrap();
    assert_eq!(outcome, Outcome::Complete);
    let tb = Tablebase::open(&dir).unwrap();
    assert_eq!(tb.rules(), RuleSet::Classic);
    assert_eq!(tb.max_pieces(), 4);
    let naive = Naive::solve(4, RuleSet::Classic);
    let brainking = Tablebase::open(six()).unwrap();
    let mut differ = 0;
    for (&(w, b, black), _) in naive.ids.iter() {
        let pos = Position::from_parts(Bitboard(w), Bitboard(b), if black { Side::Black } else { Side::White });
        let v = tb.probe(&pos).unwrap();
        assert_eq!(v, naive.value(&pos), "{pos}");
        differ += usize::from(v != brainking.probe(&pos).unwrap());
    }
    // The rule sets give different games, even with four pieces.
    assert!(differ > 10_000, "{differ} positions differ");
    let mut verified = Tablebase::open(&dir).unwrap();
    assert!(verify(&mut verified, &mut |_| {}).unwrap() > 0);
    // One folder, one rule set: a BrainKing build into it is refused, and the
    // tables refuse to stand in for BrainKing's.
    let err = build(
        &dir,
        &BuildOptions { pieces: 4, shard: None, rules: RuleSet::BrainKing, kind: alq_tablebase::Kind::Distance },
        &mut |_| {},
    )
    .unwrap_err();
    assert!(matches!(err, TbError::Rules { .. }), "{err}");
    let err = tb.expect_rules(RuleSet::BrainKing).unwrap_err().to_string();
    assert!(err.contains("classic") && err.contains("brainking"), "{err}");
    let m = Material { mover: 1, other: 1 };
    assert!(matches!(alq_tablebase::read_table(&dir, RuleSet::BrainKing, m), Err(TbError::Rules { .. })));
}

#[test]
fn symmetric_positions_have_equal_values() {
    let tb = Tablebase::open(six()).unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    for _ in 0..20_000 {
        let pos = random_position(&mut rng, 6);
        let v = tb.probe(&pos).unwrap();
        assert_eq!(tb.probe(&pos.mirror()).unwrap(), v, "mirror of {pos}");
        let rot = |bb: Bitboard| Bitboard(bb.0.reverse_bits() >> 7);
        let twin = Position::from_parts(
            rot(pos.pieces(Side::Black)),
            rot(pos.pieces(Side::White)),
            pos.side_to_move().opponent(),
        );
        assert_eq!(tb.probe(&twin).unwrap(), v, "colour-flipped twin of {pos}");
        let moves = tb.probe_moves(&pos).unwrap();
        if let Some((_, best)) = moves.first() {
            assert_eq!(*best, v, "best move of {pos}");
        }
    }
}

#[test]
fn verify_passes_on_six_pieces() {
    let mut tb = Tablebase::open(six()).unwrap();
    assert_eq!(tb.max_pieces(), 6);
    let checked = verify(&mut tb, &mut |_| {}).unwrap();
    let expected: u64 = Material::up_to(6).iter().map(|m| m.slots(Scheme::Mirror)).sum();
    assert_eq!(checked, expected);
    // The mirror index about halves the files: 13,256,611 entries before it,
    // 7,073,679 with it (a mover's set that is its own mirror image keeps its
    // whole block, which weighs more the fewer the pieces).
    assert_eq!(Material::up_to(6).iter().map(|m| m.positions()).sum::<u64>(), 13_256_611);
    assert_eq!(expected, 7_073_679);
}

#[test]
fn a_verification_resumes_where_it_stopped() {
    // A copy of the six-piece tables, so the progress file is this test's own.
    let dir = scratch("verify-resume");
    for entry in std::fs::read_dir(six()).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "alqtb") {
            std::fs::copy(&path, dir.join(path.file_name().unwrap())).unwrap();
        }
    }
    let progress = dir.join("verify.progress");
    let mut tb = Tablebase::open(&dir).unwrap();
    let count = |tb: &mut Tablebase, resume: bool| {
        let (mut checked, mut skipped) = (0, 0);
        let total = alq_tablebase::verify_resuming(tb, &progress, resume, &mut |e| match e {
            VerifyEvent::ClassDone { .. } => checked += 1,
            VerifyEvent::ClassSkipped { .. } => skipped += 1,
            VerifyEvent::ClassStart { .. } => {}
        })
        .unwrap();
        (total, checked, skipped)
    };
    let (total, checked, skipped) = count(&mut tb, false);
    let classes = Material::up_to(6).len();
    assert_eq!((checked, skipped), (classes, 0));
    assert_eq!(std::fs::read_to_string(&progress).unwrap().lines().count(), classes);
    // Killed after 10 classes: the rest is checked, the 10 are skipped.
    let text = std::fs::read_to_string(&progress).unwrap();
    let kept: String = text.lines().take(10).map(|l| format!("{l}\n")).collect();
    std::fs::write(&progress, kept).unwrap();
    assert_eq!(count(&mut tb, true), (total, classes - 10, 10));
    assert_eq!(count(&mut tb, true), (total, 0, classes));
    // A listed file whose checksum changed (a rebuilt file) is checked again.
    let first = text.lines().next().unwrap().to_string();
    let changed = text.replacen(&first, &format!("{} 0000000000000000", first.split(' ').next().unwrap()), 1);
    std::fs::write(&progress, changed).unwrap();
    assert_eq!(count(&mut tb, true), (total, 1, classes - 1));
    // Without --resume every class is checked again.
    assert_eq!(count(&mut tb, false), (total, classes, 0));
}

#[test]
fn verify_finds_a_wrong_value() {
    let dir = scratch("wrong");
    for m in Material::up_to(4) {
        std::fs::copy(six().join(m.file_name()), dir.join(m.file_name())).unwrap();
    }
    let m = Material { mover: 2, other: 2 };
    let mut values = alq_tablebase::read_table(&dir, alq_engine::RuleSet::BrainKing, m).unwrap().data().to_vec();
    let i = values.iter().position(|&b| value_from_byte(b) == Exact::Win(1)).unwrap();
    values[i] = value_to_byte(Exact::Win(3)).unwrap();
    alq_tablebase::write_table(&dir, alq_engine::RuleSet::BrainKing, m, Layout::current(Kind::Distance), &values)
        .unwrap();
    let mut tb = Tablebase::open(&dir).unwrap();
    let err = verify(&mut tb, &mut |_| {}).unwrap_err();
    assert!(matches!(err, TbError::Inconsistent { .. }), "{err}");
    assert!(err.to_string().contains("2v2.alqtb"), "{err}");
}

#[test]
fn damaged_truncated_and_mismatched_files_are_refused_by_name() {
    let dir = scratch("damaged");
    for m in Material::up_to(3) {
        std::fs::copy(six().join(m.file_name()), dir.join(m.file_name())).unwrap();
    }
    let m = Material { mover: 2, other: 1 };
    let path = dir.join(m.file_name());
    let good = std::fs::read(&path).unwrap();
    let probe_err = |bytes: &[u8]| {
        std::fs::write(&path, bytes).unwrap();
        alq_tablebase::read_table(&dir, alq_engine::RuleSet::BrainKing, m).unwrap_err()
    };
    // One value byte flipped.
    let mut bad = good.clone();
    bad[100] ^= 0x55;
    let err = probe_err(&bad);
    assert!(matches!(err, TbError::Checksum { .. }) && err.to_string().contains("2v1.alqtb"), "{err}");
    // Truncated.
    let err = probe_err(&good[..good.len() - 10]);
    assert!(matches!(err, TbError::Length { .. }) && err.to_string().contains("2v1.alqtb"), "{err}");
    let err = probe_err(&good[..20]);
    assert!(matches!(err, TbError::Length { .. }) && err.to_string().contains("2v1.alqtb"), "{err}");
    // Not a table at all.
    let err = probe_err(b"hello, this is not a tablebase file at all, really not at all");
    assert!(matches!(err, TbError::BadMagic { .. }) && err.to_string().contains("2v1.alqtb"), "{err}");
    // Another class's file under this name.
    let err = probe_err(&std::fs::read(dir.join("1v2.alqtb")).unwrap());
    assert!(matches!(err, TbError::Material { .. }) && err.to_string().contains("2v1.alqtb"), "{err}");
    // Another format version, another rules name.
    let mut bad = good.clone();
    bad[8] = 9;
    assert!(matches!(probe_err(&bad), TbError::Version { found: 9, .. }));
    let mut bad = good.clone();
    bad[12] = b'x';
    assert!(matches!(probe_err(&bad), TbError::Rules { .. }));
    // A probe through the tablebase names the file too.
    std::fs::write(&path, &good[..good.len() - 1]).unwrap();
    std::fs::write(dir.join("0v0.alqtb"), &good).unwrap();
    let err = Tablebase::open(&dir).err().expect("0v0 is damaged");
    assert!(err.to_string().contains("0v0.alqtb"), "{err}");
    // A missing class is named.
    std::fs::remove_file(dir.join("0v0.alqtb")).unwrap();
    let err =
        alq_tablebase::read_table(&dir, alq_engine::RuleSet::BrainKing, Material { mover: 0, other: 0 }).unwrap_err();
    assert!(matches!(err, TbError::Missing { .. }) && err.to_string().contains("0v0.alqtb"), "{err}");
}

#[test]
fn three_shards_give_byte_identical_files() {
    let dir = scratch("shards");
    let mut rounds = 0;
    loop {
        let mut waiting = false;
        for index in 0..3 {
            let shard = Shard { index, count: 3 };
            let outcome = build(
                &dir,
                &BuildOptions {
                    pieces: 6,
                    shard: Some(shard),
                    rules: alq_engine::RuleSet::BrainKing,
                    kind: alq_tablebase::Kind::Distance,
                },
                &mut |_| {},
            )
            .unwrap();
            waiting |= outcome != Outcome::Complete;
        }
        rounds += 1;
        if !waiting {
            break;
        }
        assert!(rounds < 20, "shards make progress");
    }
    assert!(rounds >= 2, "shards wait for each other: {rounds}");
    for m in Material::up_to(6) {
        let a = std::fs::read(six().join(m.file_name())).unwrap();
        let b = std::fs::read(dir.join(m.file_name())).unwrap();
        assert!(a == b, "{m} differs");
    }
    assert_eq!("2/3".parse::<Shard>().unwrap(), Shard { index: 2, count: 3 });
    assert!("3/3".parse::<Shard>().is_err() && "x".parse::<Shard>().is_err());
}

/// The slice solver (the default, which built `six()` and `six_wdl()`) and
/// the pass solver write the same files, byte for byte, for both kinds.
#[test]
fn slices_and_passes_give_byte_identical_files() {
    for (kind, reference) in [(Kind::Distance, six()), (Kind::Wdl, six_wdl())] {
        let dir = scratch(&format!("passes-{kind}"));
        let options = BuildOptions { pieces: 6, shard: None, rules: alq_engine::RuleSet::BrainKing, kind };
        let mut passes = 0;
        let outcome = build_with(&dir, &options, Solver::Passes, &mut |e| {
            if let Event::UnitDone { passes: p, .. } = e {
                passes = passes.max(p);
            }
        });
        assert_eq!(outcome.unwrap(), Outcome::Complete);
        assert!(passes > 10, "the pass solver ran: {passes} passes");
        for m in Material::up_to(6) {
            let name = match kind {
                Kind::Distance => m.file_name(),
                Kind::Wdl | Kind::Dtz => alq_tablebase::table_path_of(Path::new(""), kind, m).display().to_string(),
            };
            let a = std::fs::read(reference.join(&name)).unwrap();
            let b = std::fs::read(dir.join(&name)).unwrap();
            assert!(a == b, "{kind} {m} differs");
        }
    }
    assert_eq!("passes".parse::<Solver>().unwrap(), Solver::Passes);
    assert!("fast".parse::<Solver>().unwrap_err().to_string().contains("unknown solver"));
}

/// The search given the tables: a position whose moves all lead into them is
/// answered with the tables' exact value and a best move by the tables; in
/// bigger positions every proven result the search claims agrees with the
/// tables of the bigger size.
#[test]
fn search_with_tables_plays_and_scores_by_them() {
    use alq_engine::{Game, GameConfig, Hce, Limits, Score, SearchConfig, Searcher};
    use std::sync::Arc;
    let full = Arc::new(Tablebase::open(six()).unwrap());
    let small_dir = scratch("search-four");
    for m in Material::up_to(4) {
        std::fs::copy(six().join(m.file_name()), small_dir.join(m.file_name())).unwrap();
    }
    let small = Arc::new(Tablebase::open(&small_dir).unwrap());
    assert_eq!(small.max_pieces(), 4);
    let no_rules = GameConfig { no_progress_limit: None, max_plies: None, ..GameConfig::default() };
    let mut rng = ChaCha8Rng::seed_from_u64(44);
    let (mut answered, mut claims) = (0, 0);
    for _ in 0..300 {
        let pos = random_position(&mut rng, 6);
        if pos.legal_moves().is_empty() {
            continue;
        }
        let exact = full.probe(&pos).unwrap();
        // With the full tables: the exact value at once, and a best move.
        let mut searcher = Searcher::new(Hce::default(), SearchConfig { hash_mb: 1 });
        searcher.set_tables(Some(full.clone()));
        let r = searcher.search(&Game::new(pos, no_rules), Limits::depth(3), |_| {});
        let want = match exact {
            Exact::Win(d) => Score::Win(d),
            Exact::Loss(d) => Score::Loss(d),
            Exact::Draw => Score::Draw,
        };
        assert_eq!(r.score, want, "{pos}");
        let after = full.probe(&pos.play(r.best.unwrap())).unwrap().for_mover();
        assert_eq!(after, exact, "{pos}: {} is not a best move by the tables", r.best.unwrap());
        answered += 1;
        // With the ≤ 4 tables only: what the search proves must be true.
        let mut searcher = Searcher::new(Hce::default(), SearchConfig { hash_mb: 1 });
        searcher.set_tables(Some(small.clone()));
        let r = searcher.search(&Game::new(pos, no_rules), Limits::depth(6), |_| {});
        match r.score {
            Score::Win(p) => {
                claims += 1;
                assert!(matches!(exact, Exact::Win(d) if d <= p), "{pos}: claimed win {p}, tables {exact}");
            }
            Score::Loss(p) => {
                claims += 1;
                assert!(matches!(exact, Exact::Loss(d) if d <= p), "{pos}: claimed loss {p}, tables {exact}");
            }
            Score::Draw => {
                claims += 1;
                assert_eq!(exact, Exact::Draw, "{pos}");
            }
            Score::Cp(_) => {}
        }
    }
    assert!(answered > 200 && claims > 50, "answered {answered}, claims {claims}");
    // A long table win is not claimed where the no-progress rule could
    // end the game first: the search falls back to searching.
    let long = (0..20_000)
        .map(|_| random_position(&mut rng, 5))
        .find(|p| matches!(full.probe(p), Ok(Exact::Win(d)) if d >= 15) && !p.legal_moves().is_empty())
        .expect("a long win among random positions");
    let Exact::Win(d) = full.probe(&long).unwrap() else { unreachable!() };
    let mut searcher = Searcher::new(Hce::default(), SearchConfig { hash_mb: 1 });
    searcher.set_tables(Some(full.clone()));
    let tight = GameConfig { no_progress_limit: Some(d - 1), max_plies: None, ..GameConfig::default() };
    let r = searcher.search(&Game::new(long, tight), Limits::depth(2), |_| {});
    assert_ne!(r.score, Score::Win(d), "{long}: win {d} claimed under a no-progress limit of {}", d - 1);
    let loose = GameConfig { no_progress_limit: Some(d), max_plies: None, ..GameConfig::default() };
    assert_eq!(searcher.search(&Game::new(long, loose), Limits::depth(2), |_| {}).score, Score::Win(d));
}

/// The ≤ 6-piece win/draw/loss tables, built once.
fn six_wdl() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = scratch("six-wdl");
        let options = BuildOptions { pieces: 6, shard: None, rules: alq_engine::RuleSet::BrainKing, kind: Kind::Wdl };
        assert_eq!(build(&dir, &options, &mut |_| {}).unwrap(), Outcome::Complete);
        dir
    })
}

/// A win/draw/loss build, made without any distance, gives every position of
/// up to 6 pieces the kind of value the distance tables give it; its files
/// are a quarter of the distance tables' size and verify on their own.
#[test]
fn wdl_tables_equal_the_distance_tables_win_draw_loss() {
    let wdl = Tablebase::open(six_wdl()).unwrap();
    let full = Tablebase::open(six()).unwrap();
    assert_eq!((wdl.coverage(Kind::Wdl), wdl.coverage(Kind::Distance)), (Some(6), None));
    assert!(matches!(wdl.probe(&"...../...../...../...../..W.. w".parse().unwrap()), Err(TbError::NotCovered { .. })));
    for m in Material::up_to(6) {
        let d = full.table(m).unwrap();
        let w = wdl.table_of(m, Kind::Wdl).unwrap();
        assert_eq!(w.data().len(), d.data().len().div_ceil(4), "{m}");
        // Every entry of the class, slot by slot (spare slots too).
        let (dv, wv) = (d.view(), w.view());
        for i in 0..m.slots(Scheme::Mirror) {
            assert_eq!(wv.wdl(i), Wdl::from(dv.value(i)), "{m} entry {i}");
        }
        let (ds, ws) = (class_stats(&full, m, Kind::Distance).unwrap(), class_stats(&wdl, m, Kind::Wdl).unwrap());
        // Counted position by position, as the scheme-1 files did.
        assert_eq!(ds.positions, m.positions(), "{m}");
        assert_eq!((ws.positions, ws.wins, ws.draws, ws.losses), (ds.positions, ds.wins, ds.draws, ds.losses), "{m}");
    }
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    for _ in 0..5_000 {
        let pos = random_position(&mut rng, 6);
        let (value, source) = wdl.probe_wdl(&pos).unwrap();
        assert_eq!(value, Wdl::from(full.probe(&pos).unwrap()), "{pos}");
        assert_eq!(source.kind, Kind::Wdl);
        assert_eq!(wdl.probe_wdl(&pos.mirror()).unwrap().0, value, "mirror of {pos}");
        let moves = wdl.probe_moves_wdl(&pos).unwrap();
        if let Some((_, best)) = moves.first() {
            assert_eq!(*best, value, "best move of {pos}");
        }
    }
    // Probing the files where they lie gives the same values.
    let disk = Tablebase::open_on_disk(six_wdl()).unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(12);
    for _ in 0..2_000 {
        let pos = random_position(&mut rng, 6);
        assert_eq!(disk.probe_wdl(&pos).unwrap(), wdl.probe_wdl(&pos).unwrap(), "{pos}");
    }
    let mut tb = Tablebase::open(six_wdl()).unwrap();
    let expected: u64 = Material::up_to(6).iter().map(|m| m.slots(Scheme::Mirror)).sum();
    assert_eq!(verify(&mut tb, &mut |_| {}).unwrap(), expected);
}

/// One folder with distance tables up to 4 pieces and win/draw/loss tables
/// up to 6: probing answers from the distance tables where they cover the
/// position and says so, from the win/draw/loss tables beyond.
#[test]
fn probing_uses_distance_tables_first_then_wdl() {
    let dir = scratch("mixed");
    for m in Material::up_to(6) {
        std::fs::copy(six_wdl().join(Kind::Wdl.file_name(m)), dir.join(Kind::Wdl.file_name(m))).unwrap();
        if m.pieces() <= 4 {
            std::fs::copy(six().join(m.file_name()), dir.join(m.file_name())).unwrap();
        }
    }
    let tb = Tablebase::open(&dir).unwrap();
    assert_eq!((tb.max_pieces(), tb.wdl_max_pieces()), (4, 6));
    let full = Tablebase::open(six()).unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    for _ in 0..2_000 {
        let pos = random_position(&mut rng, 6);
        let (value, source) = tb.probe_wdl(&pos).unwrap();
        let truth = full.probe(&pos).unwrap();
        assert_eq!(value, Wdl::from(truth), "{pos}");
        let small = pos.occupied().count() <= 4;
        assert_eq!(source.kind, if small { Kind::Distance } else { Kind::Wdl }, "{pos}");
        assert_eq!(source.pieces, if small { 4 } else { 6 });
        if small {
            assert_eq!(tb.probe(&pos).unwrap(), truth);
        } else {
            assert!(matches!(tb.probe(&pos), Err(TbError::NotCovered { .. })));
        }
    }
    // Both kinds are verified, each against its own smaller tables.
    let mut tb = Tablebase::open(&dir).unwrap();
    let expected: u64 = Material::up_to(6).iter().map(|m| m.slots(Scheme::Mirror)).sum::<u64>()
        + Material::up_to(4).iter().map(|m| m.slots(Scheme::Mirror)).sum::<u64>();
    assert_eq!(verify(&mut tb, &mut |_| {}).unwrap(), expected);
}

/// Writes a class's distance table in the first builds' format (version 1:
/// one byte for every stored form, index scheme 1), by hand, from the
/// values of `tb`.
fn write_version_1(dir: &Path, tb: &Tablebase, m: Material) {
    let values: Vec<u8> = (0..m.positions())
        .map(|i| {
            let (us, them) = alq_tablebase::position_at(m, i);
            alq_tablebase::value_to_byte(tb.value_of(us, them).unwrap()).unwrap()
        })
        .collect();
    let mut h = [0u8; 48];
    h[0..8].copy_from_slice(b"ALQTB\0\r\n");
    h[8..12].copy_from_slice(&1u32.to_le_bytes());
    h[12..21].copy_from_slice(b"brainking");
    h[28] = m.mover;
    h[29] = m.other;
    h[30] = 1;
    h[31] = 1;
    h[32..40].copy_from_slice(&m.positions().to_le_bytes());
    let sum = alq_tablebase::checksum(&[&h[..40], &values]);
    h[40..48].copy_from_slice(&sum.to_le_bytes());
    std::fs::write(dir.join(m.file_name()), [&h[..], &values].concat()).unwrap();
}

/// Version 1 files (no mirror) are still read, and a build continues on top
/// of them: the new levels are written in version 2 with the same values.
#[test]
fn version_1_files_are_still_read_and_built_on() {
    let dir = scratch("version1");
    let full = Tablebase::open(six()).unwrap();
    for m in Material::up_to(4) {
        write_version_1(&dir, &full, m);
    }
    let old = Tablebase::open(&dir).unwrap();
    assert_eq!(old.max_pieces(), 4);
    assert_eq!(old.table(Material { mover: 2, other: 2 }).unwrap().layout(), Layout::VERSION_1);
    let options = BuildOptions { pieces: 5, shard: None, rules: alq_engine::RuleSet::BrainKing, kind: Kind::Distance };
    assert_eq!(build(&dir, &options, &mut |_| {}).unwrap(), Outcome::Complete);
    for m in Material::with_pieces(5) {
        let (a, b) =
            (std::fs::read(six().join(m.file_name())).unwrap(), std::fs::read(dir.join(m.file_name())).unwrap());
        assert!(a == b, "{m}: the build on version 1 files differs");
    }
    let tb = Tablebase::open(&dir).unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    for _ in 0..2_000 {
        let pos = random_position(&mut rng, 5);
        assert_eq!(tb.probe(&pos).unwrap(), full.probe(&pos).unwrap(), "{pos}");
    }
    let mut tb = tb;
    assert!(verify(&mut tb, &mut |_| {}).is_ok());
}

/// Damaged and mismatched win/draw/loss files are refused by name: a flipped
/// bit, a truncated file, a distance table under a wdl name and the other way
/// round.
#[test]
fn damaged_and_mismatched_wdl_files_are_refused_by_name() {
    use alq_engine::RuleSet;
    let dir = scratch("damaged-wdl");
    let m = Material { mover: 3, other: 2 };
    let name = Kind::Wdl.file_name(m);
    let good = std::fs::read(six_wdl().join(&name)).unwrap();
    let read = |bytes: &[u8], kind: Kind| {
        std::fs::write(dir.join(kind.file_name(m)), bytes).unwrap();
        alq_tablebase::read_table_of(&dir, RuleSet::BrainKing, m, kind).unwrap_err()
    };
    let mut bad = good.clone();
    bad[200] ^= 0x04;
    let err = read(&bad, Kind::Wdl);
    assert!(matches!(err, TbError::Checksum { .. }) && err.to_string().contains(&name), "{err}");
    let err = read(&good[..good.len() - 1], Kind::Wdl);
    assert!(matches!(err, TbError::Length { .. }) && err.to_string().contains(&name), "{err}");
    let distance = std::fs::read(six().join(m.file_name())).unwrap();
    let err = read(&distance, Kind::Wdl);
    assert!(
        matches!(err, TbError::ValueEncoding { found: 1, expected: 2, .. }) && err.to_string().contains(&name),
        "{err}"
    );
    let err = read(&good, Kind::Distance);
    assert!(matches!(err, TbError::ValueEncoding { found: 2, .. }) && err.to_string().contains("3v2.alqtb"), "{err}");
    let mut bad = good.clone();
    bad[30] = 1;
    assert!(matches!(read(&bad, Kind::Wdl), TbError::IndexScheme { found: 1, expected: 2, .. }));
    std::fs::write(dir.join(&name), &good).unwrap();
    assert!(matches!(alq_tablebase::read_table_of(&dir, RuleSet::Classic, m, Kind::Wdl), Err(TbError::Rules { .. })));
    assert!(alq_tablebase::read_table_of(&dir, RuleSet::BrainKing, m, Kind::Wdl).is_ok());
}

/// A killed build leaves a temporary file; the next build removes it, says
/// so, and finishes the tables.
#[test]
fn a_stale_temporary_file_is_removed_by_the_next_build() {
    let dir = scratch("stale");
    let options = BuildOptions { pieces: 3, shard: None, rules: alq_engine::RuleSet::BrainKing, kind: Kind::Wdl };
    build(&dir, &options, &mut |_| {}).unwrap();
    let last = Material { mover: 2, other: 1 };
    std::fs::remove_file(dir.join(Kind::Wdl.file_name(last))).unwrap();
    let stale = dir.join(format!(".{}.tmp.4242", Kind::Wdl.file_name(last)));
    std::fs::write(&stale, b"half a table").unwrap();
    let mut removed = 0;
    build(&dir, &options, &mut |e| {
        if let Event::StaleRemoved { files } = e {
            removed = files;
        }
    })
    .unwrap();
    assert_eq!(removed, 1);
    assert!(!stale.exists());
    assert!(Tablebase::open(&dir).unwrap().coverage(Kind::Wdl) == Some(3));
}

/// The search given win/draw/loss tables only: every move leads into them,
/// so it scores a won position past every evaluation (`TB_WIN` less the
/// ply), a lost one below, a drawn one 0, and plays a move that keeps the
/// value.
#[test]
fn search_with_wdl_tables_keeps_the_value() {
    use alq_engine::{Game, GameConfig, Hce, Limits, SearchConfig, Searcher, MAX_EVAL, TB_WIN};
    use std::sync::Arc;
    let wdl = Arc::new(Tablebase::open(six_wdl()).unwrap());
    let no_rules = GameConfig { no_progress_limit: None, max_plies: None, ..GameConfig::default() };
    let mut rng = ChaCha8Rng::seed_from_u64(45);
    let mut seen = [0usize; 3];
    for _ in 0..300 {
        let pos = random_position(&mut rng, 6);
        if pos.legal_moves().is_empty() {
            continue;
        }
        let (value, _) = wdl.probe_wdl(&pos).unwrap();
        let mut searcher = Searcher::new(Hce::default(), SearchConfig { hash_mb: 1 });
        searcher.set_tables(Some(wdl.clone()));
        let r = searcher.search(&Game::new(pos, no_rules), Limits::depth(2), |_| {});
        let score = r.score.to_internal();
        match value {
            Wdl::Win => assert!(score > MAX_EVAL && score <= TB_WIN, "{pos}: {score}"),
            Wdl::Loss => assert!((-TB_WIN..-MAX_EVAL).contains(&score), "{pos}: {score}"),
            Wdl::Draw => assert_eq!(score, 0, "{pos}"),
        }
        let after = wdl.probe_wdl(&pos.play(r.best.unwrap())).unwrap().0.for_mover();
        assert_eq!(after, value, "{pos}: {} does not keep the value", r.best.unwrap());
        assert!(r.tb_hits > 0);
        seen[value as usize] += 1;
    }
    assert!(seen.iter().all(|&n| n > 10), "wins, draws and losses all met: {seen:?}");
}
