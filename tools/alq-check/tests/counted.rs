//! Values under the no-progress rule (`alq_check::counted`) against a brute
//! force: every position of ≤ 3 pieces with each count from 0 to the rule's
//! plies, a pair's value from its moves' pairs, swept until nothing changes,
//! under both rule sets, for the game's 60-ply rule and a 2-ply one (where
//! wins the rule turns into draws are common).

use std::collections::HashMap;

use alq_check::counted::{is_progress, Counted};
use alq_check::{legal_moves_in, Pos, Rules, Tables};

/// Win (1), loss (−1) or neither (0) for the side to move, by (position, count).
fn brute(rules: Rules, positions: &[Pos], limit: usize) -> HashMap<(u64, usize), i8> {
    let index: HashMap<u64, usize> = positions.iter().enumerate().map(|(i, p)| (p.key(), i)).collect();
    let moves: Vec<Vec<(usize, bool)>> = positions
        .iter()
        .map(|p| legal_moves_in(rules, p).iter().map(|m| (index[&p.play(m).key()], is_progress(p, m))).collect())
        .collect();
    let width = limit + 1;
    let mut value = vec![0i8; positions.len() * width];
    loop {
        let mut changed = false;
        for (i, list) in moves.iter().enumerate() {
            for c in 0..width {
                if value[i * width + c] != 0 || (c == limit && !list.is_empty()) {
                    continue;
                }
                let after = |&(j, progress): &(usize, bool)| value[j * width + if progress { 0 } else { c + 1 }];
                let v = if list.is_empty() || list.iter().all(|m| after(m) == 1) {
                    -1
                } else if list.iter().any(|m| after(m) == -1) {
                    1
                } else {
                    continue;
                };
                value[i * width + c] = v;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    let mut out = HashMap::new();
    for (i, p) in positions.iter().enumerate() {
        for c in 0..width {
            out.insert((p.key(), c), value[i * width + c]);
        }
    }
    out
}

#[test]
fn counted_values_are_the_counted_games_values() {
    for rules in [Rules::BrainKing, Rules::Classic] {
        let tables = Tables::build_classes(rules, &Tables::up_to(3), 2, false).unwrap();
        let mut positions = Vec::new();
        tables.for_each(&mut |key, _| positions.push(Pos::from_key(key).unwrap()));
        for limit in [60usize, 2] {
            let counted = Counted::build(rules, &Tables::up_to(3), limit as u8);
            let truth = brute(rules, &positions, limit);
            let (mut decided, mut cursed) = (0, 0);
            for p in &positions {
                let d = counted.distance(p);
                for c in 0..=limit {
                    let want = truth[&(p.key(), c)];
                    let got = match d {
                        Some(Ok(d)) if c + d as usize <= limit => 1,
                        Some(Err(d)) if c + d as usize <= limit => -1,
                        _ => 0,
                    };
                    assert_eq!(got, want, "{} {}: {d:?} at count {c}, rule {limit}", rules.name(), p.text());
                }
                decided += usize::from(d.is_some());
                cursed += usize::from(d.is_none() && tables.probe(p) != Some(alq_check::Wdl::Draw));
            }
            assert!(
                decided > positions.len() / 4,
                "{} rule {limit}: only {decided} of {} decided",
                rules.name(),
                positions.len()
            );
            if limit == 2 {
                assert!(cursed > 100, "{}: only {cursed} wins or losses the 2-ply rule turns into draws", rules.name());
            } else {
                assert_eq!(cursed, 0, "{}: the ≤ 3 endgames keep their values under the 60-ply rule", rules.name());
            }
        }
    }
}
