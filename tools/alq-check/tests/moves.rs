//! The move generator against the independent vectors of
//! crates/engine/tests/data/moves.txt: sorted legal moves and perft counts.

use alq_check::{for_each_path, legal_move_texts, legal_moves, Pos};

mod common;
use common::parse;

/// Move-path enumeration: the number of move sequences of `depth` plies.
fn perft(pos: &Pos, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    legal_moves(pos).iter().map(|m| perft(&pos.play(m), depth - 1)).sum()
}

#[test]
fn moves_and_perft_agree_with_the_vectors() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../crates/engine/tests/data/moves.txt");
    let text = std::fs::read_to_string(path).unwrap();
    let (mut id, mut pos) = (String::new(), None);
    let (mut blocks, mut perfts) = (0, 0);
    for line in text.lines().filter(|l| !l.starts_with('#') && !l.trim().is_empty()) {
        let (word, rest) = line.split_once(' ').unwrap_or((line, ""));
        match word {
            "id" => id = rest.to_string(),
            "position" => pos = Some(parse(rest).unwrap_or_else(|e| panic!("{id}: {e}"))),
            "moves" => {
                let pos = pos.unwrap();
                let mut want: Vec<&str> = rest.split_whitespace().collect();
                want.sort();
                assert_eq!(legal_move_texts(pos.key()), want, "{id}: {}", pos.text());
                blocks += 1;
            }
            "perft" => {
                let (depth, count) = rest.split_once(' ').unwrap();
                let count: u64 = count.parse().unwrap();
                // The largest counts in the file are under a million: all run.
                assert_eq!(perft(&pos.unwrap(), depth.parse().unwrap()), count, "{id} perft {depth}");
                perfts += 1;
            }
            _ => panic!("unknown line {line:?}"),
        }
    }
    assert!(blocks >= 70 && perfts >= 270, "{blocks} blocks, {perfts} perft lines");
}

#[test]
fn texts_and_keys_round_trip() {
    let start = parse("BBBBB/BBBBB/BB.WW/WWWWW/WWWWW w").unwrap();
    assert_eq!(start.key(), 0x0003ff18000063ff);
    assert_eq!(Pos::from_key(start.key()).unwrap(), start);
    assert_eq!(start.text(), "BBBBB/BBBBB/BB.WW/WWWWW/WWWWW w");
    let c3 = parse("...../...../..B../...../..W.. w").unwrap();
    assert_eq!(c3.key(), 1 << 2 | 1 << (25 + 12));
    assert!(Pos::from_key(1 | 1 << 25).is_err(), "a point of both sides");
    assert!(Pos::from_key(1 << 51).is_err(), "a bit above 50");
    assert!(parse("BBBBB/BBBBB/BB.WW/WWWWW/WWWWW x").is_err());
    assert!(parse("BBBBB/BBBBB/BB.WW/WWWWW w").is_err());
    // Two paths of one capture form one move (rule-1 of the vectors).
    let loop_pos = parse("....B/...../...B./..B.B/WB.B. w").unwrap();
    assert_eq!(legal_moves(&loop_pos).len(), 1);
    let mut paths = 0;
    for_each_path(&loop_pos, &mut |_| paths += 1);
    assert!(paths > 1);
}
