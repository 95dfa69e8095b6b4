//! Grading against perfect play on small tables: a planted value-losing
//! move is graded as the half or whole point it throws away, every other
//! move as the tables say, and the perfect player's games grade as 0 errors.

use std::path::PathBuf;
use std::sync::OnceLock;

use alq_engine::{Game, GameConfig, Hce, HceWeights, Position, RuleSet};
use alq_oracle::{Oracle, Value};
use alq_play::{grade_game, grade_game_by, GradeReport, PlayerSpec, ValueCache, Values, Verdict};
use alq_records::GameRecord;
use alq_solver::Budget;
use alq_tablebase::{build, BuildOptions, Kind, Tablebase, Wdl};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::common::random_position;

/// ≤ 5-piece distance tables (they answer win/draw/loss too).
fn tables_dir() -> &'static PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("alq-grade-tb5-{}", std::process::id()));
        let options = BuildOptions { pieces: 5, shard: None, rules: RuleSet::BrainKing, kind: Kind::Distance };
        build(&dir, &options, &mut |_| {}).unwrap();
        dir
    })
}

fn tables() -> &'static Tablebase {
    static TB: OnceLock<Tablebase> = OnceLock::new();
    TB.get_or_init(|| Tablebase::open(tables_dir()).unwrap())
}

fn oracle(budget: Budget) -> Oracle<'static> {
    Oracle::new(RuleSet::BrainKing, Some(tables()), Box::new(Hce::new(HceWeights::default())), budget)
}

/// The mover's value by the tables (every position here has ≤ 5 pieces).
fn truth(pos: &Position) -> Wdl {
    tables().probe_wdl(pos).unwrap().0
}

fn rank(w: Wdl) -> i32 {
    match w {
        Wdl::Loss => 0,
        Wdl::Draw => 1,
        Wdl::Win => 2,
    }
}

/// The verdict the tables give a move from `before` to `after`.
fn true_verdict(before: &Position, after: &Position) -> Verdict {
    let was = truth(before);
    let now = if after.is_lost_in(RuleSet::BrainKing) { Wdl::Win } else { opposite(truth(after)) };
    match rank(was) - rank(now) {
        0 => Verdict::Kept,
        1 => Verdict::HalfLost,
        2 => Verdict::FullLost,
        d => panic!("{before}: a move cannot gain value ({d})"),
    }
}

fn opposite(w: Wdl) -> Wdl {
    match w {
        Wdl::Win => Wdl::Loss,
        Wdl::Loss => Wdl::Win,
        Wdl::Draw => Wdl::Draw,
    }
}

/// A move of `pos` that keeps the mover's value by the tables.
fn best_move(pos: &Position) -> alq_engine::Move {
    let moves = pos.legal_moves_in(RuleSet::BrainKing);
    *moves.iter().find(|&&m| true_verdict(pos, &pos.play(m)) == Verdict::Kept).expect("some move keeps the value")
}

#[test]
fn a_planted_losing_move_is_graded_as_the_value_it_throws_away() {
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    let oracle = oracle(Budget::nodes(1));
    let mut cache = ValueCache::default();
    let (mut half, mut full) = (0, 0);
    let mut games = 0;
    while games < 30 {
        let pos = random_position(&mut rng, 4, 5);
        if pos.is_lost_in(RuleSet::BrainKing) || truth(&pos) == Wdl::Loss {
            continue;
        }
        // The planted move: one that throws value away, if there is one.
        let moves = pos.legal_moves_in(RuleSet::BrainKing);
        let losing: Vec<_> = moves.iter().filter(|&&m| true_verdict(&pos, &pos.play(m)) != Verdict::Kept).collect();
        if losing.is_empty() {
            continue;
        }
        let planted = *losing[rng.gen_range(0..losing.len())];
        let mut game = Game::new(pos, GameConfig { max_plies: Some(40), ..GameConfig::default() });
        game.play(planted).unwrap();
        while !game.is_over() {
            game.play(best_move(&game.position())).unwrap();
        }
        let (white, black) =
            if pos.side_to_move() == alq_engine::Side::White { ("planter", "other") } else { ("other", "planter") };
        let record = GameRecord::from_game(games, 0, white, black, &game, 0, &vec![None; game.plies()]);
        let graded = grade_game(&oracle, &mut cache, &record, Budget::nodes(1)).unwrap();
        let expected = true_verdict(&pos, &pos.play(planted));
        assert!(expected.is_error());
        assert_eq!(graded.moves[0].verdict, expected, "{pos}: {planted}");
        assert_eq!(graded.first_error().map(|m| m.ply), Some(1));
        assert_eq!(graded.player(graded.moves[0].side), "planter");
        // Every later move by the tables: kept.
        let positions = game.positions();
        for (i, m) in graded.moves.iter().enumerate() {
            assert_eq!(m.verdict, true_verdict(&positions[i], &positions[i + 1]), "{} ply {}", positions[i], m.ply);
        }
        // The values after every ply agree with the tables, for White.
        for (p, v) in positions.iter().zip(&graded.white_values) {
            let mover = if p.is_lost_in(RuleSet::BrainKing) { Wdl::Loss } else { truth(p) };
            let white = if p.side_to_move() == alq_engine::Side::White { mover } else { opposite(mover) };
            assert_eq!(Some(white), v.wdl(), "{p}");
        }
        match expected {
            Verdict::HalfLost => half += 1,
            _ => full += 1,
        }
        let mut report = GradeReport::default();
        report.add(&graded);
        let planter = &report.players["planter"];
        assert_eq!(planter.counts.half_lost + planter.counts.full_lost, 1);
        assert_eq!(planter.first_errors, 1);
        games += 1;
    }
    // Both kinds were planted.
    assert!(half > 0 && full > 0, "half {half} full {full}");
}

#[test]
fn the_perfect_players_games_grade_as_no_error() {
    let mut rng = ChaCha8Rng::seed_from_u64(9);
    let perfect =
        PlayerSpec::parse(&format!("perfect@tb={},movetime=200", tables_dir().display()), Default::default()).unwrap();
    let random = PlayerSpec::parse("random", Default::default()).unwrap();
    let grader = oracle(Budget::nodes(200_000));
    let mut cache = ValueCache::default();
    let mut report = GradeReport::default();
    let mut games = 0;
    while games < 6 {
        let pos = random_position(&mut rng, 6, 6);
        if pos.is_lost_in(RuleSet::BrainKing) {
            continue;
        }
        let mut game = Game::new(pos, GameConfig { max_plies: Some(80), ..GameConfig::default() });
        let me = pos.side_to_move();
        let (mut a, mut b) = (perfect.build(), random.build());
        while !game.is_over() {
            let player = if game.position().side_to_move() == me { &mut a } else { &mut b };
            let choice = player.choose(&game, &mut rng).expect("a move");
            game.play(choice.mv).unwrap();
        }
        let (white, black) = if me == alq_engine::Side::White { ("perfect", "random") } else { ("random", "perfect") };
        let record = GameRecord::from_game(games, 0, white, black, &game, 0, &vec![None; game.plies()]);
        report.add(&grade_game(&grader, &mut cache, &record, Budget::nodes(200_000)).unwrap());
        games += 1;
    }
    let p = &report.players["perfect"];
    assert_eq!((p.counts.half_lost, p.counts.full_lost), (0, 0), "{p:?}");
    assert!(p.counts.kept > 20 && p.counts.kept + p.counts.unknown == p.counts.moves, "{p:?}");
    // The grader does find errors: random throws value away.
    let r = &report.players["random"];
    assert!(r.counts.half_lost + r.counts.full_lost > 0, "{r:?}");
    assert_eq!(report.games, 6);
}

#[test]
fn rule_values_grade_by_the_no_progress_rule_at_each_games_count() {
    // ≤ 5-piece distance and distance-to-progress tables; random games from
    // 5-piece positions under the 60-ply rule, long enough that counts run
    // high. Graded by the rule's values, every verdict is the one the dtz
    // tables give at the count the game had reached (counted here from the
    // moves); some differ from the infinite game's verdicts.
    let dir = std::env::temp_dir().join(format!("alq-grade-dtz5-{}", std::process::id()));
    for kind in [Kind::Distance, Kind::Dtz] {
        build(&dir, &BuildOptions { pieces: 5, shard: None, rules: RuleSet::BrainKing, kind }, &mut |_| {}).unwrap();
    }
    let tb = Box::leak(Box::new(Tablebase::open(&dir).unwrap()));
    let oracle = Oracle::new(RuleSet::BrainKing, Some(tb), Box::new(Hce::new(HceWeights::default())), Budget::nodes(1));
    let (mut rule_cache, mut cache) = (ValueCache::default(), ValueCache::default());
    let mut rng = ChaCha8Rng::seed_from_u64(61);
    let (mut moves, mut differ) = (0, 0);
    for id in 0..100 {
        let pos = random_position(&mut rng, 5, 5);
        let mut game = Game::new(pos, GameConfig::default());
        while !game.is_over() {
            // Shuffle without progress while a fresh position allows it,
            // so that counts run high; else any move.
            let here = game.position();
            let legal = game.legal_moves();
            let quiet: Vec<_> = legal
                .iter()
                .filter(|m| !m.is_progress(here.side_to_move()) && game.occurrences(&here.play(**m)) == 0)
                .collect();
            let mv = if quiet.is_empty() {
                legal[rng.gen_range(0..legal.len())]
            } else {
                *quiet[rng.gen_range(0..quiet.len())]
            };
            game.play(mv).unwrap();
        }
        let record = GameRecord::from_game(id, 0, "white", "black", &game, 0, &vec![None; game.plies()]);
        let by_rule = grade_game_by(&oracle, &mut rule_cache, &record, Budget::nodes(1), Values::Rule).unwrap();
        let infinite = grade_game(&oracle, &mut cache, &record, Budget::nodes(1)).unwrap();
        let positions = game.positions();
        let mut count = 0;
        let mut counts = vec![0];
        for (i, mv) in game.moves().iter().enumerate() {
            count = if mv.is_progress(positions[i].side_to_move()) { 0 } else { count + 1 };
            counts.push(count);
        }
        let rule = |i: usize| Value::from(tb.probe_dtz(&positions[i]).unwrap().under_rule(counts[i]));
        for (m, inf) in by_rule.moves.iter().zip(&infinite.moves) {
            let i = m.ply as usize - 1;
            let expected = Verdict::of(rule(i), rule(i + 1).for_other_side());
            assert_eq!(m.verdict, expected, "game {id} ply {}: {} at count {}", m.ply, positions[i], counts[i]);
            moves += 1;
            differ += usize::from(m.verdict != inf.verdict);
        }
    }
    assert!(moves > 400, "only {moves} moves");
    // Measured: 3 of 1,601 (the winner, late in a run, no longer wins by the rule).
    assert!(differ > 0, "no verdict changed by the rule in {moves} moves");
}
