//! The opening atlas: the tree, the per-ply table, and consistency of the
//! values the shipped proofs and atlas give the tree's positions (a position is worth
//! the best of its moves).

use alq_engine::{Hce, HceWeights, Position, RuleSet};
use alq_oracle::atlas::{self, SettleOptions};
use alq_oracle::{Oracle, Value};
use alq_solver::Budget;

fn shipped_oracle() -> Oracle<'static> {
    let oracle =
        Oracle::new(RuleSet::BrainKing, None, Box::new(Hce::new(HceWeights::default())), Budget::nodes(20_000));
    oracle.read_shipped().unwrap();
    oracle
}

fn rank(v: Value) -> i32 {
    match v {
        Value::Win => 1,
        Value::Draw => 0,
        Value::Loss => -1,
        _ => unreachable!("exact values only"),
    }
}

#[test]
fn every_known_position_is_worth_its_best_move() {
    let oracle = shipped_oracle();
    let known = |p: &Position| oracle.known(p).unwrap().map_or(Value::Unknown, |(v, _)| v);
    let tree = atlas::tree(RuleSet::BrainKing, Position::start(), 10);
    let mut checked = 0;
    // Plies 0-9: their moves lead to positions of the tree (plies 1-10).
    for pos in tree.iter().take(10).flatten() {
        let v = known(pos);
        let children: Vec<Value> =
            pos.legal_moves_in(RuleSet::BrainKing).iter().map(|&m| known(&pos.play(m)).for_other_side()).collect();
        if v.is_exact() && children.iter().all(|c| c.is_exact()) {
            let best = children.iter().map(|&c| rank(c)).max().unwrap();
            assert_eq!(rank(v), best, "{pos}");
            checked += 1;
        }
        // No known child is worth more than the position's upper bound.
        let upper = match v {
            Value::Loss => -1,
            Value::Draw | Value::AtMostDraw => 0,
            _ => 1,
        };
        for c in children.iter().filter(|c| c.is_exact()) {
            assert!(rank(*c) <= upper, "{pos}: a move worth {c:?} from a position worth {v:?}");
        }
    }
    // The shipped atlas settles every one of the 32,546 positions: every
    // position of plies 0-9 has its value and all its moves' values.
    eprintln!("{checked} positions of plies 0-9 checked against their best move");
    assert_eq!(checked, 8_214);
    let rows = atlas::ply_table(RuleSet::BrainKing, &tree, &known);
    assert_eq!(rows.iter().map(|r| r.positions).collect::<Vec<_>>(), [1, 4, 5, 6, 12, 27, 96, 386, 1554, 6123, 24332]);
    // The start is a draw, one first move (d2-c3) loses it.
    assert_eq!((rows[0].draws, rows[1].black_wins, rows[1].draws), (1, 1, 3));
    assert_eq!((rows[0].moves, rows[0].moves_keeping), (4, 3));
    for r in &rows {
        assert_eq!(r.white_wins + r.draws + r.black_wins + r.bounds + r.unknown, r.positions);
        assert_eq!((r.bounds, r.unknown), (0, 0), "ply {}: the atlas is complete", r.ply);
    }
}

#[test]
fn settling_fills_the_work_store_and_a_rerun_skips_what_is_known() {
    let dir = std::env::temp_dir().join(format!("alq-atlas-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let work = dir.join("work.store");
    let _ = std::fs::remove_file(&work);
    // A small position (a White win in 7) and the tree below it: every
    // position is settled within the budget.
    let start: Position = "...../..B../...../.W.W./..... w".parse().unwrap();
    let tree = atlas::tree(RuleSet::BrainKing, start, 3);
    let make = || {
        let mut o =
            Oracle::new(RuleSet::BrainKing, None, Box::new(Hce::new(HceWeights::default())), Budget::nodes(2_000));
        o.use_store(&work).unwrap();
        o
    };
    let oracles = [make(), make()];
    let searched = std::sync::Mutex::new(Vec::new());
    atlas::settle(&oracles, Some(&work), &tree, 0..=3, SettleOptions::new(Budget::nodes(2_000)), &|p| {
        searched.lock().unwrap().push(*p)
    })
    .unwrap();
    drop(oracles);
    let first = searched.lock().unwrap().clone();
    // Every ply reported, deepest first, each finished.
    let last_of = |ply: u32, runs: &[atlas::PlyProgress]| *runs.iter().rfind(|p| p.ply == ply).unwrap();
    for ply in 0..4 {
        let p = last_of(ply, &first);
        assert_eq!((p.done, p.positions), (p.positions, tree[ply as usize].len()));
    }
    assert_eq!(first[0].ply, 3);
    assert!(work.exists());
    // A rerun knows every position it searched (exact or not) before it starts.
    let again = [make()];
    let runs = std::sync::Mutex::new(Vec::new());
    atlas::settle(&again, Some(&work), &tree, 0..=3, SettleOptions::new(Budget::nodes(2_000)), &|p| {
        runs.lock().unwrap().push(*p)
    })
    .unwrap();
    let runs = runs.lock().unwrap().clone();
    for ply in 0..4 {
        let (p, was) = (last_of(ply, &runs), last_of(ply, &first));
        assert_eq!(was.exact, was.positions, "{was:?}");
        assert_eq!(p.known_before, p.positions, "{p:?}");
    }
    // The atlas holds the tree's positions only, each with its value.
    let store = atlas::atlas_store(&again[0], &tree).unwrap();
    let distinct: std::collections::HashSet<_> = tree.iter().flatten().collect();
    assert_eq!(store.entries.len(), distinct.len());
    let rows = atlas::ply_table(RuleSet::BrainKing, &tree, &|p: &Position| {
        again[0].known(p).unwrap().map_or(Value::Unknown, |(v, _)| v)
    });
    assert_eq!(rows[0].white_wins, 1);
    assert!(rows[0].moves_keeping >= 1 && rows[0].moves_keeping <= rows[0].moves);
}

#[test]
fn the_tried_log_spares_a_rerun_the_searches_that_failed_at_its_budget() {
    let dir = std::env::temp_dir().join(format!("alq-atlas-tried-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let (work, log_path) = (dir.join("work.store"), dir.join("progress").join("atlas.tried"));
    // The start and its moves: far too hard for a search of 50 positions,
    // with no shipped proofs to answer them.
    let tree = atlas::tree(RuleSet::BrainKing, Position::start(), 1);
    let tiny = Budget::nodes(50);
    let run = |budget: Budget, retry: bool| {
        let log = alq_oracle::tried::TriedLog::open(&log_path).unwrap();
        let mut o = Oracle::new(RuleSet::BrainKing, None, Box::new(Hce::new(HceWeights::default())), budget);
        o.use_store(&work).unwrap();
        let runs = std::sync::Mutex::new(Vec::new());
        let options = SettleOptions { retry, tried: Some(&log), ..SettleOptions::new(budget) };
        atlas::settle(&[o], Some(&work), &tree, 0..=1, options, &|p| runs.lock().unwrap().push(*p)).unwrap();
        let last = |ply: u32| *runs.lock().unwrap().iter().rfind(|p| p.ply == ply).unwrap();
        (last(1), last(0), log.len())
    };
    let (ply1, ply0, logged) = run(tiny, false);
    assert_eq!((ply1.positions, ply1.tried_before, ply1.exact), (4, 0, 0), "{ply1:?}");
    assert_eq!(logged, 5, "every open position is logged");
    // A rerun with the same budget searches none of them again, with
    // --retry or without.
    for retry in [false, true] {
        let (ply1, ply0, _) = run(tiny, retry);
        assert_eq!((ply1.tried_before, ply1.known_before, ply1.done), (4, 4, 4), "{ply1:?}");
        assert_eq!(ply0.tried_before, 1, "{ply0:?}");
    }
    // A larger budget searches them again.
    let (ply1, _, _) = run(Budget::nodes(60), true);
    assert_eq!(ply1.tried_before, 0, "{ply1:?}");
    assert_eq!(ply0.positions, 1);
}
