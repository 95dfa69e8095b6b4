//! The solver against the tablebases: without tables, `solve` must return
//! exactly the tables' values (distance included) on random positions.

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;
use std::sync::OnceLock;
use std::time::Duration;

use alq_engine::Position;
use alq_engine::Proven;
use alq_solver::{load_state, save_state, Budget, Solver};
use alq_tablebase::{build, BuildOptions, Exact, Tablebase};

use crate::common::random_position;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

/// Tables with ≤ 6 pieces, built once per test binary (about 2 s) in a temp folder.
fn tables() -> &'static Tablebase {
    static TB: OnceLock<Tablebase> = OnceLock::new();
    TB.get_or_init(|| {
        let dir: PathBuf = std::env::temp_dir().join(format!("alq-solver-tb6-{}", std::process::id()));
        build(
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
        let tb = Tablebase::open(&dir).unwrap();
        assert_eq!(tb.max_pieces(), 6);
        tb
    })
}

fn unlimited() -> Budget {
    Budget { nodes: None, time: None, memory_bytes: 1 << 30 }
}

/// `shared`: one solver for every position; `None`: a fresh one each time.
fn check_against_tables(mut shared: Option<&mut Solver<'_>>, seed: u64, count: usize, min: u32, max: u32) -> [u32; 3] {
    let tb = tables();
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut seen = [0u32; 3];
    for _ in 0..count {
        let pos = random_position(&mut rng, min, max);
        let expected = tb.probe(&pos).unwrap();
        let result = match shared.as_deref_mut() {
            Some(solver) => solver.solve(&pos, &unlimited()).unwrap(),
            None => Solver::new(None).solve(&pos, &unlimited()).unwrap(),
        };
        assert_eq!(result.proof, Some(Proven::Exact(expected)), "{pos}: solver {:?}, tables {expected}", result.proof);
        assert!(!result.out_of_budget);
        // The best move keeps the value.
        if let Some(mv) = result.best_move {
            assert_eq!(tb.probe(&pos.play(mv)).unwrap().for_mover(), expected, "{pos}: best move {mv}");
        }
        seen[match expected {
            Exact::Win(_) => 0,
            Exact::Draw => 1,
            Exact::Loss(_) => 2,
        }] += 1;
    }
    seen
}

#[test]
fn solve_without_tables_equals_the_tables_up_to_five_pieces() {
    let seen = check_against_tables(None, 1, 500, 2, 5);
    assert!(seen.iter().all(|&n| n > 50), "wins, draws, losses: {seen:?}");
}

#[test]
fn solve_without_tables_equals_the_tables_with_six_pieces() {
    // One solver for all positions: later searches use the values earlier
    // ones proved (without tables), so every kept value is checked too.
    let mut shared = Solver::new(None);
    let seen = check_against_tables(Some(&mut shared), 2, 300, 6, 6);
    assert!(seen.iter().all(|&n| n > 50), "wins, draws, losses: {seen:?}");
    let tb = tables();
    let state = shared.state();
    assert!(state.proven.len() > 100_000, "{} proven values kept", state.proven.len());
    for &(k, v) in &state.proven {
        assert_eq!(
            tb.probe(&Position::from_key_unchecked(k)).unwrap(),
            v,
            "kept value of {}",
            Position::from_key_unchecked(k)
        );
    }
}

#[test]
fn solve_with_tables_below_the_root_equals_the_tables() {
    // Seven pieces are not in the tables: the root is searched, its
    // successors after a capture are table leaves.
    let tb = tables();
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    let mut solver = Solver::new(Some(tb));
    for _ in 0..300 {
        let pos = random_position(&mut rng, 2, 6);
        let result = solver.solve(&pos, &unlimited()).unwrap();
        assert_eq!(result.proof, Some(Proven::Exact(tb.probe(&pos).unwrap())), "{pos}");
    }
    // The solver kept what it proved, and those values are the tables'.
    assert!(solver.proven_len() > 0);
}

/// A search that scores a repetition on its path as a draw and caches every
/// result by position: the graph-history interaction the solver must avoid.
fn naive(pos: &Position, path: &mut HashSet<u64>, cache: &mut HashMap<u64, Exact>) -> Exact {
    let k = pos.key();
    if let Some(&v) = cache.get(&k) {
        return v;
    }
    if path.contains(&k) {
        return Exact::Draw;
    }
    path.insert(k);
    let v = Exact::from_successors(pos.legal_moves().into_iter().map(|mv| naive(&pos.play(mv), path, cache)));
    path.remove(&k);
    cache.insert(k, v);
    v
}

#[test]
fn repetition_as_a_cached_draw_is_wrong_and_the_solver_is_not() {
    // The naive search recurses as deep as its path: give it a large stack.
    std::thread::Builder::new().stack_size(1 << 30).spawn(naive_against_solver).unwrap().join().unwrap();
}

fn naive_against_solver() {
    let tb = tables();
    let mut rng = ChaCha8Rng::seed_from_u64(4);
    let mut naive_wrong = 0;
    let mut checked = 0;
    while naive_wrong < 5 && checked < 20_000 {
        let pos = random_position(&mut rng, 2, 3);
        checked += 1;
        let expected = tb.probe(&pos).unwrap();
        let wrong = naive(&pos, &mut HashSet::new(), &mut HashMap::new());
        if wrong == expected {
            continue;
        }
        naive_wrong += 1;
        let result = Solver::new(None).solve(&pos, &unlimited()).unwrap();
        assert_eq!(result.proof, Some(Proven::Exact(expected)), "{pos}: naive {wrong}");
    }
    assert_eq!(naive_wrong, 5, "the naive search was right on {checked} positions");
}

#[test]
fn a_budget_that_runs_out_gives_unknown_or_a_bound() {
    let start = Position::start();
    let result = Solver::new(None).solve(&start, &Budget::nodes(2000)).unwrap();
    assert_eq!(result.proof, None);
    assert!(result.out_of_budget);
    assert_eq!(result.nodes, 2000);
    let result = Solver::new(None).solve(&start, &Budget::time(Duration::from_millis(50))).unwrap();
    assert_eq!(result.proof, None);
    assert!(result.elapsed < Duration::from_secs(5));
    // No budget at all: the root stays unexpanded.
    let result = Solver::new(None).solve(&start, &Budget::nodes(0)).unwrap();
    assert_eq!((result.lower, result.upper, result.best_move), (Exact::Loss(0), Exact::Win(1), None));
    // A tiny memory limit stops the search too.
    let tiny = Budget { nodes: None, time: None, memory_bytes: 100_000 };
    let result = Solver::new(None).solve(&start, &tiny).unwrap();
    assert!(result.out_of_budget && result.proof.is_none());
}

#[test]
fn bounds_are_sound_when_the_budget_runs_out() {
    // With a small budget the proof may only be a bound; the tables must lie
    // inside it, every time.
    let tb = tables();
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    let mut bounded = 0;
    for _ in 0..300 {
        let pos = random_position(&mut rng, 5, 6);
        let truth = tb.probe(&pos).unwrap();
        let r = Solver::new(None).solve(&pos, &Budget::nodes(40)).unwrap();
        assert!(
            r.lower.preference(&truth).is_le() && truth.preference(&r.upper).is_le(),
            "{pos}: {} ≤ {truth} ≤ {}",
            r.lower,
            r.upper
        );
        match r.proof {
            Some(Proven::Exact(v)) => assert_eq!(v, truth, "{pos}"),
            Some(Proven::WinWithin(d)) => {
                assert!(matches!(truth, Exact::Win(t) if t <= d), "{pos}: {truth} vs win ≤ {d}")
            }
            Some(Proven::LossWithin(d)) => {
                assert!(matches!(truth, Exact::Loss(t) if t <= d), "{pos}: {truth} vs loss ≤ {d}")
            }
            Some(other) => panic!("{pos}: the exact solver does not give {other}"),
            None => bounded += 1,
        }
    }
    assert!(bounded > 0, "every position was proven with 40 nodes");
}

#[test]
fn a_resumed_search_continues_from_the_saved_state() {
    let tb = tables();
    let dir = std::env::temp_dir().join(format!("alq-solver-resume-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("state.bin");
    // A six-piece position that needs a few thousand nodes.
    let mut rng = ChaCha8Rng::seed_from_u64(6);
    let (pos, full) = loop {
        let pos = random_position(&mut rng, 6, 6);
        let r = Solver::new(None).solve(&pos, &unlimited()).unwrap();
        if r.nodes > 3000 {
            break (pos, r);
        }
    };
    let truth = Some(Proven::Exact(tb.probe(&pos).unwrap()));
    // Half the nodes, saved, then resumed: the expanded positions come back
    // without counting, and the proof completes.
    let mut first = Solver::new(None);
    first.keep_expanded(true);
    let r1 = first.solve(&pos, &Budget::nodes(full.nodes / 2)).unwrap();
    assert!(r1.out_of_budget && r1.proof != truth);
    save_state(&file, &first.state()).unwrap();
    let mut second = Solver::new(None);
    second.restore(load_state(&file).unwrap());
    let r2 = second.solve(&pos, &unlimited()).unwrap();
    assert_eq!(r2.proof, truth, "{pos}");
    assert!(r2.restored > 0);
    // After a complete proof the saved state proves the root at once: only
    // the root is expanded, its successors are saved values.
    save_state(&file, &second.state()).unwrap();
    let mut third = Solver::new(None);
    third.restore(load_state(&file).unwrap());
    let r3 = third.solve(&pos, &unlimited()).unwrap();
    assert_eq!((r3.proof, r3.nodes), (truth, 1), "{pos}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Under the classic rules, too, the solver without tables returns exactly
/// the classic tables' values.
#[test]
fn classic_solver_matches_the_classic_tables() {
    use alq_engine::RuleSet;
    let dir: PathBuf = std::env::temp_dir().join(format!("alq-solver-classic4-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    build(
        &dir,
        &BuildOptions { pieces: 4, shard: None, rules: RuleSet::Classic, kind: alq_tablebase::Kind::Distance },
        &mut |_| {},
    )
    .unwrap();
    let tb = Tablebase::open(&dir).unwrap();
    assert_eq!(tb.rules(), RuleSet::Classic);
    let mut rng = ChaCha8Rng::seed_from_u64(15);
    let mut seen = [0u32; 3];
    let mut differs_from_brainking = 0;
    for _ in 0..400 {
        let pos = random_position(&mut rng, 2, 4);
        let expected = tb.probe(&pos).unwrap();
        let mut solver = Solver::new(None);
        solver.set_rules(RuleSet::Classic);
        let result = solver.solve(&pos, &unlimited()).unwrap();
        assert_eq!(
            result.proof,
            Some(Proven::Exact(expected)),
            "{pos}: solver {:?}, classic tables {expected}",
            result.proof
        );
        differs_from_brainking += usize::from(tables().probe(&pos).unwrap() != expected);
        seen[match expected {
            Exact::Win(_) => 0,
            Exact::Draw => 1,
            Exact::Loss(_) => 2,
        }] += 1;
    }
    assert!(seen.iter().all(|&n| n > 0), "{seen:?}");
    assert!(differs_from_brainking > 0);
    let _ = std::fs::remove_dir_all(&dir);
}
