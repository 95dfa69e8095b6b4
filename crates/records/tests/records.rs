//! Records: writing and reading back, validation errors, samples.

use std::path::{Path, PathBuf};

use alq_engine::{Game, GameConfig, Position, Score};
use alq_records::{GameRecord, RecordError, RecordReader, RecordWriter, SampleOptions, Samples};
use proptest::prelude::*;

fn tmp(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("records-tests");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    let _ = std::fs::remove_file(&path);
    path
}

/// A finished game from seeded pseudo-random moves.
fn random_game(seed: u64, max_plies: u32) -> (Game, Vec<Option<Score>>) {
    let mut game = Game::new(
        Position::start(),
        GameConfig { no_progress_limit: Some(20), max_plies: Some(max_plies), ..GameConfig::default() },
    );
    let mut state = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
    let mut scores = Vec::new();
    while !game.is_over() {
        state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        let moves = game.legal_moves();
        let mv = moves[(state >> 33) as usize % moves.len()];
        game.play(mv).unwrap();
        scores.push(match state % 5 {
            0 => None,
            1 => Some(Score::Cp((state % 500) as i32 - 250)),
            2 => Some(Score::Win((state % 9) as u32 + 1)),
            3 => Some(Score::Draw),
            _ => Some(Score::Loss((state % 9) as u32 + 1)),
        });
    }
    (game, scores)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(40))]
    #[test]
    fn records_round_trip(seed in any::<u64>(), cap in 1u32..120) {
        let (game, scores) = random_game(seed, cap);
        let record = GameRecord::from_game(seed % 1000, seed, "random", "hce@nodes=10", &game, 1.min(game.plies() as u32), &scores);
        let path = tmp(&format!("rt-{seed}.csv"));
        RecordWriter::append(&path).unwrap().write(&record).unwrap();
        let read: Vec<_> = RecordReader::open(&path).unwrap().collect::<Result<_, _>>().unwrap();
        prop_assert_eq!(read.len(), 1);
        prop_assert_eq!(&read[0].record, &record);
        prop_assert_eq!(&read[0].scores, &scores);
        prop_assert_eq!(read[0].game.moves(), game.moves());
        std::fs::remove_file(&path).unwrap();
    }
}

fn written(records: &[GameRecord], name: &str) -> PathBuf {
    let path = tmp(name);
    let mut w = RecordWriter::append(&path).unwrap();
    for r in records {
        w.write(r).unwrap();
    }
    path
}

fn first_error(path: &Path) -> String {
    let err = RecordReader::open(path).unwrap().find_map(|r| r.err()).expect("an error");
    err.to_string()
}

#[test]
fn bad_games_are_refused_with_file_and_line() {
    let (game, scores) = random_game(7, 200);
    let good = GameRecord::from_game(0, 7, "a", "b", &game, 0, &scores);

    let mut illegal = good.clone();
    illegal.id = 1;
    illegal.moves = illegal.moves.replacen(&game.moves()[0].to_string(), "a1-a2", 1);
    let path = written(&[good.clone(), illegal], "illegal.csv");
    let msg = first_error(&path);
    assert!(msg.contains("illegal.csv:3:") && msg.contains("move 1") && msg.contains("not legal"), "{msg}");

    let mut wrong_result = good.clone();
    wrong_result.result = if good.result == "1-0" { "0-1".into() } else { "1-0".into() };
    let msg = first_error(&written(&[wrong_result], "result.csv"));
    assert!(msg.contains("result.csv:2:") && msg.contains("does not follow"), "{msg}");

    let mut short = good.clone();
    short.moves = game.moves()[..game.plies() - 1].iter().map(|m| m.to_string()).collect::<Vec<_>>().join(" ");
    short.plies -= 1;
    short.scores = short.scores.rsplit_once(' ').map(|(a, _)| a.to_string()).unwrap_or_default();
    let msg = first_error(&written(&[short], "short.csv"));
    assert!(msg.contains("not over"), "{msg}");

    let path = tmp("malformed.csv");
    let header = alq_records::COLUMNS.join(",");
    std::fs::write(&path, format!("{header}\n0,1,brainking,,a,b,1-0,no_moves,many,0,,,,60,,2\n")).unwrap();
    let msg = first_error(&path);
    assert!(msg.contains("malformed.csv:2:"), "{msg}");

    let path = tmp("foreign.csv");
    std::fs::write(&path, "name,score\nx,1\n").unwrap();
    let msg = first_error(&path);
    assert!(msg.contains("missing column") && msg.contains("moves"), "{msg}");

    assert!(matches!(RecordReader::open(&tmp("absent.csv")), Err(RecordError::Io { .. })));
}

#[test]
fn appending_cuts_a_row_left_half_written() {
    let (game, scores) = random_game(3, 200);
    let a = GameRecord::from_game(0, 1, "a", "b", &game, 0, &scores);
    let mut b = a.clone();
    b.id = 1;
    let path = written(&[a.clone(), b.clone()], "partial.csv");
    let full = std::fs::read(&path).unwrap();
    // Simulate a kill in the middle of writing the second row.
    let cut = full.len() - 20;
    std::fs::write(&path, &full[..cut]).unwrap();
    RecordWriter::append(&path).unwrap().write(&b).unwrap();
    assert_eq!(std::fs::read(&path).unwrap(), full);
}

#[test]
fn samples_follow_options() {
    let (game, scores) = random_game(11, 200);
    let record = GameRecord::from_game(5, 1, "a", "b", &game, 3, &scores);
    let replayed = record.replay().unwrap();
    let all = Samples::new(SampleOptions::default()).of_game(&replayed);
    assert_eq!(all.len(), game.plies() + 1);
    assert_eq!(all[1].score, scores[1]);
    let winner = game.outcome().unwrap().winner;
    for s in &all {
        let expected = match winner {
            None => 0.5,
            Some(w) if w == s.position.side_to_move() => 1.0,
            _ => 0.0,
        };
        assert_eq!(s.result, expected);
        assert_eq!(s.game_id, 5);
    }
    let no_opening = Samples::new(SampleOptions { skip_opening: true, ..Default::default() }).of_game(&replayed);
    assert_eq!(no_opening.len(), all.len() - 3);
    assert_eq!(no_opening[0].ply, 3);
    let quiet = Samples::new(SampleOptions { skip_forced_captures: true, ..Default::default() }).of_game(&replayed);
    assert!(quiet.iter().all(|s| !s.position.has_capture(&alq_engine::BRAINKING_RULES)));
    assert!(quiet.len() < all.len());
    let mut dedup = Samples::new(SampleOptions { dedup: true, ..Default::default() });
    assert_eq!(dedup.of_game(&replayed).len(), {
        let set: std::collections::HashSet<_> = game.positions().iter().collect();
        set.len()
    });
    assert!(dedup.of_game(&replayed).is_empty(), "the same game again yields no new positions");

    // The move played is a policy target only where the players' search
    // chose it: not on sampled or random opening plies, even with a score.
    use alq_records::OpeningPart;
    let scored = |parts: &[OpeningPart]| {
        let record = GameRecord::from_game(5, 1, "a", "b", &game, 3, &scores).with_opening(parts);
        let samples = Samples::new(SampleOptions::default()).of_game(&record.replay().unwrap());
        samples.iter().map(|s| s.played.is_some()).collect::<Vec<_>>()
    };
    let searched: Vec<bool> =
        (0..all.len()).map(|ply| scores.get(ply).is_some_and(|s| s.is_some()) && ply < game.plies()).collect();
    assert_eq!(scored(&[OpeningPart::NearBest { plies: 3, cp: 20 }]), searched);
    for parts in [
        vec![OpeningPart::Softmax { plies: 3, temperature: 50.0 }],
        vec![OpeningPart::Random(1), OpeningPart::Softmax { plies: 2, temperature: 50.0 }],
        vec![OpeningPart::Book(3)],
    ] {
        let played = scored(&parts);
        assert_eq!(played[..3], [false; 3], "{parts:?}");
        assert_eq!(played[3..], searched[3..], "{parts:?}");
    }
    assert!(searched[..3].iter().any(|&s| s), "the test's opening plies have scores");
}

#[test]
fn table_entries_round_trip_and_older_formats_stay_readable() {
    use alq_engine::Exact;
    let (game, scores) = random_game(11, 200);
    let plain = GameRecord::from_game(0, 11, "a", "b", &game, 0, &scores);
    let entered = GameRecord { id: 1, ..plain.clone() }.with_table_entry(5, Exact::Loss(12));
    let path = written(&[plain.clone(), entered.clone()], "tables.csv");
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.lines().nth(2).unwrap().contains(",5,loss 12,"), "{text}");
    let read: Vec<_> = RecordReader::open(&path).unwrap().collect::<Result<_, _>>().unwrap();
    assert_eq!(read[0].record.table_entry(), Ok(None));
    assert_eq!(read[1].record.table_entry(), Ok(Some((5, Exact::Loss(12)))));

    // Half an entry, an entry past the end, or junk: refused with the line.
    let half = GameRecord { tb_value: String::new(), ..entered.clone() };
    assert!(first_error(&written(&[half], "half.csv")).contains("both set or both empty"));
    let late = GameRecord { tb_ply: Some(game.plies() as u32 + 1), ..entered.clone() };
    assert!(first_error(&written(&[late], "late.csv")).contains("exceeds plies"));
    let junk = GameRecord { tb_value: "won".into(), ..entered.clone() };
    assert!(first_error(&written(&[junk], "junk.csv")).contains("bad exact value"));

    // A format-2 file (no tb columns) is read; appending to it is refused.
    let v2_columns: Vec<&str> =
        alq_records::COLUMNS.iter().copied().filter(|c| !c.starts_with("tb_") && *c != "fallback_plies").collect();
    let mut v2 = csv::Writer::from_writer(Vec::new());
    v2.write_record(&v2_columns).unwrap();
    let p = &plain;
    let fields = [
        p.id.to_string(),
        p.seed.to_string(),
        p.rules.clone(),
        p.start.clone(),
        p.white.clone(),
        p.black.clone(),
        p.result.clone(),
        p.termination.clone(),
        p.plies.to_string(),
        p.opening_plies.to_string(),
        p.opening.clone(),
        p.moves.clone(),
        p.scores.replace('d', "0"),
        p.no_progress.map(|v| v.to_string()).unwrap_or_default(),
        p.max_plies.map(|v| v.to_string()).unwrap_or_default(),
        "2".to_string(),
    ];
    v2.write_record(&fields).unwrap();
    let old = tmp("format2.csv");
    std::fs::write(&old, v2.into_inner().unwrap()).unwrap();
    let read: Vec<_> = RecordReader::open(&old).unwrap().collect::<Result<_, _>>().unwrap();
    assert_eq!((read.len(), read[0].record.format, read[0].record.tb_ply), (1, 2, None));
    let err = RecordWriter::append(&old).err().expect("appending to format 2 is refused").to_string();
    assert!(err.contains("another column layout"), "{err}");
}

#[test]
fn fallback_plies_round_trip_and_bad_ones_are_refused() {
    let (game, scores) = random_game(12, 200);
    let plain = GameRecord::from_game(0, 12, "perfect", "b", &game, 0, &scores);
    let marked = GameRecord { id: 1, ..plain.clone() }.with_fallbacks(&[1, 3]);
    let path = written(&[plain.clone(), marked.clone()], "fallbacks.csv");
    let read: Vec<_> = RecordReader::open(&path).unwrap().collect::<Result<_, _>>().unwrap();
    assert_eq!(read[0].record.fallbacks(), Ok(vec![]));
    assert_eq!(read[1].record.fallbacks(), Ok(vec![1, 3]));
    for bad in ["0", "3 1", "1 1", "x", &(game.plies() + 1).to_string()] {
        let wrong = GameRecord { fallback_plies: bad.to_string(), ..plain.clone() };
        assert!(matches!(wrong.replay(), Err(alq_records::GameError::FallbackPlies { .. })), "{bad:?} accepted");
    }
    let older = GameRecord { format: 3, ..marked };
    assert!(matches!(older.replay(), Err(alq_records::GameError::NoFallbackColumn { format: 3 })));
}

#[test]
fn forfeits_replay_only_as_a_loss_of_the_side_to_move() {
    let mut game = Game::new(
        Position::start(),
        GameConfig { no_progress_limit: Some(60), max_plies: Some(400), ..GameConfig::default() },
    );
    game.play_text("d3-c3").unwrap();
    // Black is to move and forfeits: White wins.
    let record = GameRecord::from_game(0, 1, "a", "b", &game, 0, &[None]).with_forfeit(alq_engine::Side::Black);
    assert_eq!((record.result.as_str(), record.termination.as_str()), ("1-0", "forfeit"));
    let replayed = record.replay().unwrap();
    assert_eq!(replayed.winner(), Some(alq_engine::Side::White));
    assert_eq!(replayed.termination(), None);
    assert_eq!(replayed.termination_name(), "forfeit");
    // White was not to move, so White cannot have forfeited.
    let wrong = GameRecord { result: "0-1".to_string(), ..record.clone() };
    assert!(matches!(wrong.replay(), Err(alq_records::GameError::ForfeitResult { .. })));
    // A game the rules ended cannot be forfeited afterwards.
    let mut over = Game::new(
        Position::start(),
        GameConfig { no_progress_limit: Some(60), max_plies: Some(1), ..GameConfig::default() },
    );
    over.play_text("d3-c3").unwrap();
    let late = GameRecord::from_game(0, 1, "a", "b", &over, 0, &[None]).with_forfeit(alq_engine::Side::Black);
    assert!(late.replay().is_err());
}

/// A classic game is recorded as such, replays under the classic rules, and
/// is refused by a reader that expects BrainKing's games (and the other way
/// round).
#[test]
fn records_keep_their_rule_set() {
    use alq_engine::RuleSet;
    let config = GameConfig { no_progress_limit: Some(20), max_plies: Some(300), rules: RuleSet::Classic };
    let mut game = Game::new(Position::start_of(RuleSet::Classic), config);
    let mut state = 7u64;
    let mut backward = 0;
    while !game.is_over() {
        state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        let moves = game.legal_moves();
        let mv = moves[(state >> 33) as usize % moves.len()];
        let side = game.position().side_to_move();
        backward += usize::from(!mv.is_capture() && !mv.is_progress(side) && mv.from().rank() != mv.to().rank());
        game.play(mv).unwrap();
    }
    assert!(backward > 0, "the game uses a classic-only move");
    let record = GameRecord::from_game(1, 7, "random", "random", &game, 0, &vec![None; game.plies()]);
    assert_eq!(record.rules, "classic");
    let path = tmp("classic.csv");
    RecordWriter::append(&path).unwrap().write(&record).unwrap();
    let read: Vec<_> =
        RecordReader::open(&path).unwrap().expecting(RuleSet::Classic).collect::<Result<_, _>>().unwrap();
    assert_eq!(read[0].game.moves(), game.moves());
    assert_eq!(read[0].game.rules(), RuleSet::Classic);
    let err =
        RecordReader::open(&path).unwrap().expecting(RuleSet::BrainKing).find_map(|r| r.err()).unwrap().to_string();
    assert!(err.contains("classic") && err.contains("brainking"), "{err}");
    // The same moves do not replay under BrainKing's rules.
    let relabelled = GameRecord { rules: "brainking".into(), ..record.clone() };
    assert!(relabelled.replay().is_err());
    let unknown = GameRecord { rules: "checkers".into(), ..record };
    assert!(unknown.replay().unwrap_err().to_string().contains("unknown rules"));
}
