//! Notation parsing and its errors, and the game's end rules.

use alq_engine::{Game, GameConfig, MoveError, Position, PositionError, Side, Termination};

#[test]
fn any_path_of_a_move_parses_to_the_canonical_one() {
    let pos: Position = "....B/...../...B./..B.B/WB.B. w".parse().unwrap();
    let canonical = pos.parse_move("a1xc1xe1xe3xc3xc1").unwrap();
    let other = pos.parse_move("a1xc1xc3xe3xe1xc1").unwrap();
    assert_eq!(canonical, other);
    assert_eq!(other.to_string(), "a1xc1xe1xe3xc3xc1");
    assert_eq!(other.jumps(), 5);
}

#[test]
fn incomplete_or_impossible_captures_are_illegal() {
    let pos: Position = "....B/...../...B./..B.B/WB.B. w".parse().unwrap();
    for text in ["a1xc1", "a1xc1xe1", "a1xa3", "b2xb4", "a1-a2"] {
        match pos.parse_move(text) {
            Err(MoveError::Illegal { legal, .. }) => assert_eq!(legal, ["a1xc1xe1xe3xc3xc1"], "{text}"),
            other => panic!("{text}: expected Illegal, got {other:?}"),
        }
    }
}

#[test]
fn malformed_moves_say_why() {
    let pos = Position::start();
    for text in ["", "d3", "d3-c3-b3", "z9-c3", "d3xc3-b3", "d3--c3"] {
        let err = pos.parse_move(text).unwrap_err();
        assert!(matches!(err, MoveError::Malformed { .. }), "{text}: {err}");
    }
    let err = pos.parse_move("a1-a2").unwrap_err();
    assert_eq!(err.to_string(), "move \"a1-a2\" is not legal here; legal moves: b2-c3 c2-c3 d2-c3 d3-c3");
}

#[test]
fn position_errors_name_the_problem() {
    let cases: [(&str, fn(&PositionError) -> bool); 7] = [
        ("BBBBB/BBBBB/BB.WW/WWWWW w", |e| matches!(e, PositionError::RankCount { found: 4, .. })),
        ("BBBBB/BBBB/BB.WW/WWWWW/WWWWW w", |e| matches!(e, PositionError::RankLength { rank: 4, found: 4, .. })),
        (
            "BBBBB/BBBBB/BB.WX/WWWWW/WWWWW w",
            |e| matches!(e, PositionError::UnknownCharacter { found: 'X', point, .. } if point == "e3"),
        ),
        ("BBBBB/BBBBB/BB.WW/WWWWW/WWWWW", |e| matches!(e, PositionError::MissingSide { .. })),
        ("BBBBB/BBBBB/BB.WW/WWWWW/WWWWW x", |e| matches!(e, PositionError::BadSide { .. })),
        ("BBBBB/BBBBB/BB.WW/WWWWW/WWWWW w b", |e| matches!(e, PositionError::BadSide { .. })),
        ("BBBBB/BBBBB/BBBWW/WWWWW/WWWWW w", |e| {
            matches!(e, PositionError::TooManyPieces { side: Side::Black, count: 13, .. })
        }),
    ];
    for (text, check) in cases {
        let err = text.parse::<Position>().unwrap_err();
        assert!(check(&err), "{text}: {err}");
        assert!(err.to_string().contains(text), "the message quotes the input: {err}");
    }
}

#[test]
fn side_without_moves_loses() {
    let game = Game::new("W.W.W/...../...../...../BBBBB w".parse().unwrap(), GameConfig::default());
    let outcome = game.outcome().unwrap();
    assert_eq!(outcome.winner, Some(Side::Black));
    assert_eq!(outcome.termination, Termination::NoMoves);
    assert_eq!(outcome.result_text(), "0-1");
}

#[test]
fn third_repetition_draws_and_undo_restores() {
    // Two pieces each, shuffling sideways: no captures possible.
    let start: Position = "B...B/...../...../...../W...W w".parse().unwrap();
    let config = GameConfig { no_progress_limit: None, max_plies: None, ..GameConfig::default() };
    let mut game = Game::new(start, config);
    let cycle = ["a1-b1", "a5-b5", "b1-a1", "b5-a5"];
    for (i, text) in cycle.iter().chain(cycle.iter()).enumerate() {
        assert!(!game.is_over(), "over too early at ply {i}");
        game.play_text(text).unwrap();
    }
    let outcome = game.outcome().unwrap();
    assert_eq!((outcome.winner, outcome.termination), (None, Termination::Repetition));
    assert_eq!(game.repetition_count(), 3);
    assert!(game.play_text("a1-b1").is_err(), "no moves after the end");
    game.undo().unwrap();
    assert!(!game.is_over());
    assert_eq!(game.plies(), 7);
    assert_eq!(game.occurrences(&start), 2);
}

#[test]
fn no_progress_counts_only_sideways_moves() {
    let start: Position = "B...B/...../...../...../W...W w".parse().unwrap();
    let mut game =
        Game::new(start, GameConfig { no_progress_limit: Some(3), max_plies: None, ..GameConfig::default() });
    game.play_text("a1-b1").unwrap();
    game.play_text("a5-b5").unwrap();
    assert_eq!(game.quiet_plies(), 2);
    game.play_text("b1-b2").unwrap(); // forward: progress
    assert_eq!(game.quiet_plies(), 0);
    game.play_text("b5-a5").unwrap();
    game.play_text("b2-c2").unwrap();
    assert!(!game.is_over());
    game.play_text("e5-d5").unwrap();
    let outcome = game.outcome().unwrap();
    assert_eq!((outcome.winner, outcome.termination), (None, Termination::NoProgress));
}

#[test]
fn ply_cap_draws_after_the_other_rules() {
    let mut game = Game::new(
        Position::start(),
        GameConfig { no_progress_limit: Some(60), max_plies: Some(2), ..GameConfig::default() },
    );
    game.play_text("d3-c3").unwrap();
    assert!(!game.is_over());
    game.play_text("b3xd3").unwrap();
    assert_eq!(game.outcome().unwrap().termination, Termination::MaxPlies);
    assert_eq!(Termination::from_name("max_plies"), Some(Termination::MaxPlies));
}
