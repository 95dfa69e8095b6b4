//! Table sanity: trivial facts, internal consistency of every value with its
//! successors' values, and agreement with a plain forward fixed point, under
//! both rule sets.

use std::collections::HashMap;

use alq_check::{legal_moves_in, Pos, Rules, Tables, Wdl};

use crate::common::parse;

fn value(tables: &Tables, text: &str) -> Wdl {
    tables.probe(&parse(text).unwrap()).unwrap()
}

#[test]
fn trivial_facts() {
    let t = Tables::build(3, 2, false).unwrap();
    // No pieces to move: lost, even with no pieces at all.
    assert_eq!(value(&t, "...../...../...../...../W.... b"), Wdl::Loss);
    assert_eq!(value(&t, "...../...../...../...../..... w"), Wdl::Loss);
    // A lone piece that can move wins (the opponent has nothing); on its last row it cannot.
    assert_eq!(value(&t, "...../...../..W../...../..... w"), Wdl::Win);
    assert_eq!(value(&t, "W..../...../...../...../..... w"), Wdl::Loss);
    // c3 takes c4 and wins at once; Black to move there takes c3 first.
    assert_eq!(value(&t, "...../..B../..W../...../..... w"), Wdl::Win);
    assert_eq!(value(&t, "...../..B../..W../...../..... b"), Wdl::Win);
    // From the vectors: White on its last row, Black to the side: c5xe5 wins.
    assert_eq!(value(&t, "..WB./...../...../...../..... w"), Wdl::Win);
    let mut n = 0;
    t.for_each(&mut |_, _| n += 1);
    assert_eq!(n, 2 * (1 + 25 * 2 + 300 * 4 + 2300 * 8));
    // Not built: more pieces than the tables.
    assert_eq!(t.probe(&parse("...../..BB./..W../..W../..... w").unwrap()), None);
}

#[test]
fn classic_trivial_facts() {
    let t = Tables::build_classes(Rules::Classic, &Tables::up_to(3), 2, false).unwrap();
    // A lone piece on its last row can move: it wins (BrainKing: lost).
    assert_eq!(value(&t, "W..../...../...../...../..... w"), Wdl::Win);
    // d4 takes d3 backward and wins at once.
    assert_eq!(value(&t, "...../...W./...B./...../..... w"), Wdl::Win);
}

/// Every position of ≤ 4 pieces: its value agrees with its successors' values.
#[test]
fn values_are_consistent_with_successors_and_a_forward_fixed_point() {
    consistent_with_a_forward_fixed_point(Rules::BrainKing);
}

#[test]
fn classic_values_are_consistent_with_successors_and_a_forward_fixed_point() {
    consistent_with_a_forward_fixed_point(Rules::Classic);
}

fn consistent_with_a_forward_fixed_point(rules: Rules) {
    let legal_moves = |p: &Pos| legal_moves_in(rules, p);
    let t = Tables::build_classes(rules, &Tables::up_to(4), 2, false).unwrap();
    let mut keys = Vec::new();
    t.for_each(&mut |k, v| keys.push((k, v)));
    // Every placement of up to 4 pieces of two colours, both sides to move.
    let placements: usize = (0..=4usize).map(|k| (0..k).fold(1, |c, i| c * (25 - i) / (i + 1)) << k).sum();
    assert_eq!(keys.len(), 2 * placements);
    let (mut wins, mut draws, mut losses) = (0, 0, 0);
    for &(k, v) in &keys {
        let pos = Pos::from_key(k).unwrap();
        let kids: Vec<Wdl> = legal_moves(&pos).iter().map(|m| t.probe(&pos.play(m)).unwrap()).collect();
        match v {
            Wdl::Win => {
                assert!(kids.contains(&Wdl::Loss), "{}", pos.text());
                wins += 1;
            }
            Wdl::Loss => {
                assert!(kids.iter().all(|&c| c == Wdl::Win), "{}", pos.text());
                losses += 1;
            }
            Wdl::Draw => {
                assert!(kids.contains(&Wdl::Draw) && !kids.contains(&Wdl::Loss), "{}", pos.text());
                draws += 1;
            }
        }
    }
    assert!(wins > 1000 && draws > 1000 && losses > 1000, "{wins} {draws} {losses}");
    // The brief's definition, computed forward over the whole set: iterate
    // "some move to a loss: win; every move to a win: loss" to a fixed point,
    // the rest are draws. It must give the same values.
    let index: HashMap<u64, usize> = keys.iter().enumerate().map(|(i, &(k, _))| (k, i)).collect();
    let succ: Vec<Vec<usize>> = keys
        .iter()
        .map(|&(k, _)| {
            let pos = Pos::from_key(k).unwrap();
            legal_moves(&pos).iter().map(|m| index[&pos.play(m).key()]).collect()
        })
        .collect();
    let mut known: Vec<Option<Wdl>> = vec![None; keys.len()];
    loop {
        let mut changed = false;
        for i in 0..keys.len() {
            if known[i].is_some() {
                continue;
            }
            if succ[i].iter().any(|&j| known[j] == Some(Wdl::Loss)) {
                known[i] = Some(Wdl::Win);
                changed = true;
            } else if succ[i].iter().all(|&j| known[j] == Some(Wdl::Win)) {
                known[i] = Some(Wdl::Loss);
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    for (i, &(k, v)) in keys.iter().enumerate() {
        assert_eq!(known[i].unwrap_or(Wdl::Draw), v, "{}", Pos::from_key(k).unwrap().text());
    }
}

#[test]
fn colours_mirror() {
    mirror(Rules::BrainKing);
    mirror(Rules::Classic);
}

fn mirror(rules: Rules) {
    // Swapping colours and flipping the board gives the same value.
    let t = Tables::build_classes(rules, &Tables::up_to(4), 2, false).unwrap();
    let flip = |x: u32| (0..25).filter(|p| x >> p & 1 == 1).map(|p| 1u32 << (24 - p)).sum::<u32>();
    let mut n = 0;
    t.for_each(&mut |k, v| {
        let p = Pos::from_key(k).unwrap();
        let m = Pos { white: flip(p.black), black: flip(p.white), black_to_move: !p.black_to_move };
        assert_eq!(t.probe(&m), Some(v), "{} / {}", p.text(), m.text());
        n += 1;
    });
    assert!(n > 400_000);
}
