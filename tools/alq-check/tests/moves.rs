//! The move generator against the independent vectors of
//! crates/engine/tests/data/moves.txt: sorted legal moves and perft counts;
//! the classic rules against hand-made positions, one per rule that differs.

use alq_check::{for_each_path, legal_move_texts, legal_moves, legal_moves_in, Pos, Rules};

use crate::common::parse;

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
    for_each_path(Rules::BrainKing, &loop_pos, &mut |_| paths += 1);
    assert!(paths > 1);
}

#[test]
fn classic_perft_from_the_start_agrees_with_the_rules_notes() {
    // docs/rules-notes.md, "Rule variants": perft of moves and of jump paths from the start, depths 1 to 8.
    fn count(pos: &Pos, depth: u32, paths: bool) -> u64 {
        let mut moves = vec![];
        match (depth, paths) {
            (0, _) => return 1,
            (_, true) => for_each_path(Rules::Classic, pos, &mut |m| moves.push(*m)),
            (_, false) => moves = legal_moves_in(Rules::Classic, pos),
        }
        moves.iter().map(|m| count(&pos.play(m), depth - 1, paths)).sum()
    }
    let start = parse("BBBBB/BBBBB/BB.WW/WWWWW/WWWWW w").unwrap();
    let moves: Vec<u64> = (1..=8).map(|d| count(&start, d, false)).collect();
    assert_eq!(moves, [4, 5, 6, 12, 29, 107, 523, 2521]);
    let paths: Vec<u64> = (1..=8).map(|d| count(&start, d, true)).collect();
    assert_eq!(paths, [4, 5, 6, 12, 29, 109, 541, 2730]);
}

/// The sorted move texts of a position under `rules`.
fn moves(rules: Rules, text: &str) -> Vec<String> {
    let mut v: Vec<String> = legal_moves_in(rules, &parse(text).unwrap()).iter().map(|m| m.text()).collect();
    v.sort();
    v
}

#[test]
fn classic_simple_moves_go_along_every_line_backward_included() {
    // White b2 (a strong point: eight lines), Black far away on e5.
    let p = "....B/...../...../.W.../..... w";
    let all = ["b2-a1", "b2-a2", "b2-a3", "b2-b1", "b2-b3", "b2-c1", "b2-c2", "b2-c3"];
    assert_eq!(moves(Rules::Classic, p), all);
    assert_eq!(moves(Rules::BrainKing, p), ["b2-a2", "b2-a3", "b2-b3", "b2-c2", "b2-c3"]);
    // Black's backward is towards rank 5; d3 is a weak point: four lines only.
    let b = "...../...../...B./...../W.... b";
    assert_eq!(moves(Rules::Classic, b), ["d3-c3", "d3-d2", "d3-d4", "d3-e3"]);
    assert_eq!(moves(Rules::BrainKing, b), ["d3-c3", "d3-d2", "d3-e3"]);
}

#[test]
fn classic_first_jumps_go_backward() {
    // White d4, Black d3, d2 empty: only classic has the (straight backward) capture, which is then compulsory.
    let p = "...../...W./...B./...../..... w";
    assert_eq!(moves(Rules::Classic, p), ["d4xd2"]);
    assert!(moves(Rules::BrainKing, p).iter().all(|m| m.contains('-')));
    // Diagonally backward: Black c3, b2 empty.
    assert_eq!(moves(Rules::Classic, "...../...W./..B../...../..... w"), ["d4xb2"]);
    // Black jumps backward (up the board): c3 over c4 to c5.
    assert_eq!(moves(Rules::Classic, "...../..W../..B../...../..... b"), ["c3xc5"]);
    assert!(moves(Rules::BrainKing, "...../..W../..B../...../..... b").iter().all(|m| m.contains('-')));
}

#[test]
fn classic_last_row_is_like_any_other() {
    // White on c5 (its last row), one Black piece in each of c5's five directions: classic captures all five ways,
    // BrainKing only sideways.
    for (board, jump, sideways) in [
        (".BW../...../...../...../..... w", "c5xa5", true),
        ("..WB./...../...../...../..... w", "c5xe5", true),
        ("..W../..B../...../...../..... w", "c5xc3", false),
        ("..W../.B.../...../...../..... w", "c5xa3", false),
        ("..W../...B./...../...../..... w", "c5xe3", false),
    ] {
        assert_eq!(moves(Rules::Classic, board), [jump], "{board}");
        let brainking: Vec<&str> = if sideways { vec![jump] } else { vec![] };
        assert_eq!(moves(Rules::BrainKing, board), brainking, "{board}");
    }
    // Black on its last row (rank 1) jumps up the board in classic only.
    assert_eq!(moves(Rules::Classic, "...../...../...../.W.../B.... b"), ["a1xc3"]);
    assert!(moves(Rules::BrainKing, "...../...../...../.W.../B.... b").is_empty());
    // Simple moves from the last row: every line in classic, none in BrainKing (a lost position there).
    assert_eq!(moves(Rules::Classic, "W..../...../...../...../....B w"), ["a5-a4", "a5-b4", "a5-b5"]);
    assert!(moves(Rules::BrainKing, "W..../...../...../...../....B w").is_empty());
}

#[test]
fn classic_captures_may_loop_back_to_their_start() {
    // c1 jumps round the diamond, d2 d4 b4 b2 (or the other way), and lands on c1 again.
    let p = parse("....B/.B.B./...../.B.B./..W.. w").unwrap();
    let classic = legal_moves_in(Rules::Classic, &p);
    assert_eq!(classic.iter().map(|m| m.text()).collect::<Vec<_>>(), ["c1xa3xc5xe3xc1"]);
    assert_eq!((classic[0].from, classic[0].to, classic[0].captured.count_ones()), (2, 2, 4));
    assert_eq!(p.play(&classic[0]).text(), "....B/...../...../...../..W.. b");
    // Two paths, one move.
    let mut paths = vec![];
    for_each_path(Rules::Classic, &p, &mut |m| paths.push(m.text()));
    paths.sort();
    assert_eq!(paths, ["c1xa3xc5xe3xc1", "c1xe3xc5xa3xc1"]);
    // BrainKing never lands on the origin: each way round stops one jump short.
    assert_eq!(moves(Rules::BrainKing, &p.text()), ["c1xa3xc5xe3", "c1xe3xc5xa3"]);
}
