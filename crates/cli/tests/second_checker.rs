//! Cross-checks of the second certificate checker (tools/alq-check, which
//! shares no code with the workspace) against the workspace: its tables
//! against alq-tablebase on every position of up to 6 pieces, its moves
//! against alq-engine's, and `alq solve` certificates checked by it.

use std::path::PathBuf;

use alq_engine::Position;
use alq_tablebase::{build, BuildOptions, Kind, Tablebase, Wdl};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::common::{alq, fresh_dir};

#[test]
fn tables_agree_with_the_tablebase_on_every_position_up_to_six_pieces() {
    tables_agree_up_to_six_pieces(alq_engine::RuleSet::BrainKing, alq_check::Rules::BrainKing, "second-checker-tb6");
}

#[test]
fn classic_tables_agree_with_the_tablebase_on_every_position_up_to_six_pieces() {
    tables_agree_up_to_six_pieces(
        alq_engine::RuleSet::Classic,
        alq_check::Rules::Classic,
        "second-checker-tb6-classic",
    );
}

/// alq-check's ≤ 6-piece tables under `ours` against `alq tb build`'s under
/// `rules`, on every position.
fn tables_agree_up_to_six_pieces(rules: alq_engine::RuleSet, ours: alq_check::Rules, name: &str) {
    let dir: PathBuf = fresh_dir(name);
    let options = BuildOptions { pieces: 6, shard: None, rules, kind: Kind::Wdl };
    build(&dir, &options, &mut |_| {}).unwrap();
    let tb = Tablebase::open(&dir).unwrap();
    assert_eq!(tb.rules(), rules);
    let ours = alq_check::Tables::build_classes(ours, &alq_check::Tables::up_to(6), 2, false).unwrap();
    let mut n = 0usize;
    ours.for_each(&mut |key, v| {
        let pos = Position::from_key(key).unwrap();
        let theirs = match tb.probe_wdl(&pos).unwrap_or_else(|e| panic!("{pos}: {e}")).0 {
            Wdl::Win => alq_check::Wdl::Win,
            Wdl::Draw => alq_check::Wdl::Draw,
            Wdl::Loss => alq_check::Wdl::Loss,
        };
        assert_eq!(v, theirs, "{pos}");
        n += 1;
    });
    // Every placement of up to 6 pieces of two colours, both sides to move.
    let placements: usize = (0..=6usize).map(|k| (0..k).fold(1, |c, i| c * (25 - i) / (i + 1)) << k).sum();
    assert_eq!(n, 2 * placements);
}

/// Positions from random games, and random placements.
fn sample(rng: &mut ChaCha8Rng) -> Vec<Position> {
    let mut out = Vec::new();
    for _ in 0..60 {
        let mut pos = Position::start();
        for _ in 0..120 {
            out.push(pos);
            let moves = pos.legal_moves();
            if moves.is_empty() {
                break;
            }
            let mv = moves[rng.gen_range(0..moves.len())];
            pos = pos.play(mv);
        }
    }
    while out.len() < 8000 {
        let (mut white, mut black) = (0u64, 0u64);
        let pieces = rng.gen_range(2..=20);
        for _ in 0..pieces {
            let p = 1u64 << rng.gen_range(0..25);
            if (white | black) & p == 0 {
                if rng.gen_bool(0.5) && white.count_ones() < 12 {
                    white |= p
                } else if black.count_ones() < 12 {
                    black |= p
                }
            }
        }
        let key = white | black << 25 | u64::from(rng.gen_bool(0.5)) << 50;
        out.push(Position::from_key(key).unwrap());
    }
    out
}

#[test]
fn legal_moves_agree_with_the_engine() {
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let positions = sample(&mut rng);
    let mut moves = 0;
    for pos in &positions {
        let mut theirs: Vec<String> = pos.legal_moves().iter().map(|m| m.to_string()).collect();
        theirs.sort();
        assert_eq!(alq_check::legal_move_texts(pos.key()), theirs, "{pos}");
        // And they lead to the same positions.
        let mine = alq_check::Pos::from_key(pos.key()).unwrap();
        let mut a: Vec<u64> = alq_check::legal_moves(&mine).iter().map(|m| mine.play(m).key()).collect();
        let mut b: Vec<u64> = pos.legal_moves().iter().map(|&m| pos.play(m).key()).collect();
        a.sort();
        b.sort();
        assert_eq!(a, b, "{pos}");
        moves += theirs.len();
    }
    assert!(positions.len() >= 8000 && moves > 20_000, "{} positions, {moves} moves", positions.len());
}

#[test]
fn alq_solve_certificates_are_accepted_and_tampered_ones_refused() {
    let dir = fresh_dir("second-checker-solve");
    let tb = dir.join("tb4");
    let out = alq(&["tb", "build", "--pieces", "4", "--kind", "wdl", "--out", tb.to_str().unwrap(), "--threads", "2"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    // alq-check's own tables for the leaves (the certificates' leaves have at most 4 pieces).
    let tables = alq_check::Tables::build(4, 2, false).unwrap();
    let (mut accepted, mut with_leaves) = (0, 0);
    for (i, pos) in
        ["..B../.B.B./...../.W.W./..W.. w", "...../.BB../..W../.W.B./..... b", "B...B/...../..W../.W.W./..... w"]
            .iter()
            .enumerate()
    {
        for goal in ["white-wins", "white-draws", "black-wins", "black-draws"] {
            let file = dir.join(format!("p{i}-{goal}.cert"));
            let f = file.to_str().unwrap();
            let args = ["solve", "--position", pos, "--goal", goal, "--certificate", f, "--tb"];
            let out = alq(&[&args[..], &[tb.to_str().unwrap(), "--quiet"]].concat());
            assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
            let text = std::fs::read_to_string(&file).unwrap();
            let report = alq_check::check_with(&text, &tables).unwrap_or_else(|e| panic!("{pos} {goal}: {e}\n{text}"));
            assert!(text.contains(&format!("goal {}", report.goal)));
            accepted += 1;
            if report.table_leaves > 0 {
                with_leaves += 1;
            }
            // Tampered: a non-root entry dropped (count fixed), a table value changed.
            let lines: Vec<&str> = text.lines().collect();
            let root_key = lines[3].split(' ').nth(1).unwrap();
            if let Some(victim) = (6..6 + report.entries).find(|&i| !lines[i].starts_with(root_key)) {
                let mut bad: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
                bad.remove(victim);
                bad[5] = format!("entries {}", report.entries - 1);
                assert!(
                    alq_check::check_with(&(bad.join("\n") + "\n"), &tables).is_err(),
                    "{pos} {goal}: an entry dropped"
                );
            }
            if let Some(l) = lines.iter().find(|l| l.contains(" table ")) {
                let other = if l.ends_with(" draw") {
                    l.replace(" draw", " win")
                } else {
                    format!("{} draw", &l[..l.rfind(' ').unwrap()])
                };
                assert!(
                    alq_check::check_with(&text.replace(l, &other), &tables).is_err(),
                    "{pos} {goal}: {l} -> {other}"
                );
            }
            // Truncated, and the root's text naming another position.
            assert!(alq_check::check_with(&text[..text.len() / 2], &tables).is_err());
            let root_line = lines[3];
            let misleading = format!("root {root_key} {}", Position::start());
            let err = alq_check::check_with(&text.replace(root_line, &misleading), &tables).unwrap_err();
            assert_eq!(err.line, Some(4), "{err}");
        }
    }
    assert!(accepted == 12 && with_leaves > 0, "{accepted} accepted, {with_leaves} with table leaves");
}
