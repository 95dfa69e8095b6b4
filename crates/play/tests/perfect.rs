//! The perfect player on small tables: it never loses from a position whose
//! draw (or win) a certificate proves, following the certificate where the
//! oracle knows nothing; it wins positions the tables say are won, against
//! random and greedy; it never plays a move the tables say throws the value
//! away.

use std::path::PathBuf;
use std::sync::OnceLock;

use alq_engine::{Game, GameConfig, Hce, HceWeights, Position, RuleSet};
use alq_play::PlayerSpec;
use alq_solver::{Budget, Goal, Outcome, ThresholdSolver};
use alq_tablebase::{build, BuildOptions, Kind, Tablebase, Wdl};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

// The solver tests' random positions (both sides present).
use crate::common::random_position;

fn tables_dir(pieces: u32, kind: Kind) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("alq-perfect-tb{pieces}-{kind:?}-{}", std::process::id()));
    if !dir.exists() {
        let options = BuildOptions { pieces, shard: None, rules: RuleSet::BrainKing, kind };
        build(&dir, &options, &mut |_| {}).unwrap();
    }
    dir
}

/// ≤ 6-piece tables: the truth.
fn truth() -> &'static Tablebase {
    static TB: OnceLock<Tablebase> = OnceLock::new();
    TB.get_or_init(|| Tablebase::open(&tables_dir(6, Kind::Wdl)).unwrap())
}

/// ≤ 4-piece distance tables: what the players get.
fn small() -> &'static PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| tables_dir(4, Kind::Distance))
}

/// Plays `perfect` (as the side to move at `start`) against `other`; the
/// game's outcome from the perfect player's view: Some(true) won, Some(false)
/// lost, None drawn or unfinished.
fn play(perfect: &PlayerSpec, other: &PlayerSpec, start: Position, seed: u64) -> (Option<bool>, Game) {
    let config = GameConfig { max_plies: Some(200), ..GameConfig::default() };
    let mut game = Game::new(start, config);
    let me = start.side_to_move();
    let (mut a, mut b) = (perfect.build(), other.build());
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    while !game.is_over() {
        let player = if game.position().side_to_move() == me { &mut a } else { &mut b };
        let Some(choice) = player.choose(&game, &mut rng) else { break };
        let before = game.position();
        game.play(choice.mv).unwrap();
        if before.side_to_move() == me && before.occupied().count() <= 6 {
            // Never a move that throws the value away.
            let was = truth().probe_wdl(&before).unwrap().0;
            let now = truth().probe_wdl(&game.position()).unwrap().0.for_mover();
            assert!(now.beats_or_equals(was), "{before}: {} threw {was:?} away", choice.mv);
        }
    }
    let result = game.outcome().and_then(|o| o.winner).map(|w| w == me);
    (result, game)
}

/// Whether a value kept after the move (`now`, for the player who moved) is
/// at least the value before it (`was`).
trait AtLeast {
    fn beats_or_equals(self, was: Wdl) -> bool;
}

impl AtLeast for Wdl {
    fn beats_or_equals(self, was: Wdl) -> bool {
        let rank = |w: Wdl| match w {
            Wdl::Loss => 0,
            Wdl::Draw => 1,
            Wdl::Win => 2,
        };
        rank(self) >= rank(was)
    }
}

fn spec(text: &str) -> PlayerSpec {
    PlayerSpec::parse(text, alq_engine::Limits::default()).unwrap()
}

#[test]
fn perfect_wins_won_positions_against_random_and_greedy() {
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let perfect = spec(&format!("perfect@tb={},movetime=200", small().display()));
    let mut won = 0;
    while won < 6 {
        let pos = random_position(&mut rng, 6, 6);
        if pos.is_lost_in(RuleSet::BrainKing) || truth().probe_wdl(&pos).unwrap().0 != Wdl::Win {
            continue;
        }
        for other in ["random", "greedy"] {
            let (result, game) = play(&perfect, &spec(other), pos, won as u64);
            assert_eq!(result, Some(true), "{pos} against {other}: {:?} after {:?}", game.outcome(), game.moves());
        }
        won += 1;
    }
}

/// ≤ 5-piece distance and distance-to-progress tables in one folder.
fn with_dtz() -> &'static PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = tables_dir(5, Kind::Distance);
        build(&dir, &BuildOptions { pieces: 5, shard: None, rules: RuleSet::BrainKing, kind: Kind::Dtz }, &mut |_| {})
            .unwrap();
        dir
    })
}

#[test]
fn perfect_converts_wins_within_the_no_progress_rule() {
    // Games shuffled without progress until the count is high (40 to 52)
    // and the side to move still wins under the 60-ply rule at that count:
    // the perfect player, given the dtz tables, takes over and wins against
    // random and greedy, every move of its keeping the win under the rule
    // at the game's count. (In these ≤ 5-piece endgames the fastest wins by
    // distance to the end keep it too: 40 such starts had none where they
    // did not.)
    let tb = Tablebase::open(with_dtz()).unwrap();
    let perfect = spec(&format!("perfect@tb={},movetime=200", with_dtz().display()));
    let mut rng = ChaCha8Rng::seed_from_u64(60);
    let mut won = 0;
    while won < 12 {
        let mut game = Game::new(random_position(&mut rng, 5, 5), GameConfig::default());
        // Quiet moves to fresh positions while there are any.
        while !game.is_over() && game.quiet_plies() < 52 {
            let here = game.position();
            let quiet: Vec<_> = game
                .legal_moves()
                .into_iter()
                .filter(|m| !m.is_progress(here.side_to_move()) && game.occurrences(&here.play(*m)) == 0)
                .collect();
            let Some(&mv) = quiet.get(rng.gen_range(0..quiet.len().max(1))) else { break };
            game.play(mv).unwrap();
        }
        let (start, count) = (game.position(), game.quiet_plies());
        let value = tb.probe_dtz(&start).unwrap();
        if game.is_over() || count < 40 || !matches!(value, alq_tablebase::Dtz::Win(d) if d > 1 && count + d <= 60) {
            continue;
        }
        let me = start.side_to_move();
        for other in ["random", "greedy"] {
            let mut game = game.clone();
            let (mut a, mut b) = (perfect.build(), spec(other).build());
            let mut rng = ChaCha8Rng::seed_from_u64(won as u64);
            while !game.is_over() {
                let mine = game.position().side_to_move() == me;
                let player = if mine { &mut a } else { &mut b };
                let choice = player.choose(&game, &mut rng).unwrap();
                game.play(choice.mv).unwrap();
                if mine && !game.is_over() {
                    let (count, now) = (game.quiet_plies(), game.position());
                    let kept = matches!(tb.probe_dtz(&now), Ok(alq_tablebase::Dtz::Loss(d)) if count + d <= 60);
                    assert!(
                        kept,
                        "{start} against {other}: {} to {now} at count {count} lets the rule's win go",
                        choice.mv
                    );
                }
            }
            let winner = game.outcome().and_then(|o| o.winner);
            assert_eq!(winner, Some(me), "{start} at count {count} against {other}: {:?}", game.outcome());
        }
        won += 1;
    }
}

#[test]
fn perfect_never_loses_where_a_certificate_holds_the_draw() {
    // A 7-piece position whose draw (or better) for the mover a certificate
    // over the ≤ 4-piece tables proves.
    let tb = Tablebase::open(small()).unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    let dir = std::env::temp_dir().join(format!("alq-perfect-cert-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut tried = 0;
    let (pos, file) = loop {
        tried += 1;
        assert!(tried < 400, "no certifiable 7-piece draw found");
        let pos = random_position(&mut rng, 7, 7);
        if pos.is_lost_in(RuleSet::BrainKing) {
            continue;
        }
        let mut solver = ThresholdSolver::new(Some(&tb), Some(Box::new(Hce::new(HceWeights::default()))));
        solver.want_certificates(true);
        let goal = Goal::draws_of(pos.side_to_move());
        let result = solver.solve(&pos, goal, &Budget::nodes(50_000), &mut |_| {}).unwrap();
        // A proven draw that is not a win: the strategy must hold it.
        let wins = solver.solve(&pos, Goal::wins_of(pos.side_to_move()), &Budget::nodes(50_000), &mut |_| {}).unwrap();
        if result.outcome == Outcome::Proven
            && wins.outcome == Outcome::Disproven
            && result.certificate.as_ref().is_some_and(|c| c.entries.len() > 20)
        {
            let file = dir.join("draw.cert");
            result.certificate.unwrap().write(&file).unwrap();
            break (pos, file);
        }
    };
    // The oracle gets 1 ms a question: the certificate has to carry the play.
    let perfect = spec(&format!("perfect@tb={},cert={},movetime=1", small().display(), file.display()));
    for (i, other) in ["random", "greedy", "hce@nodes=2000"].into_iter().enumerate() {
        for seed in 0..4 {
            let (result, game) = play(&perfect, &spec(other), pos, 10 * i as u64 + seed);
            assert_ne!(result, Some(false), "{pos} against {other}: lost {:?}", game.moves());
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A certificate's text with an entry (not the root's) dropped, the count
/// kept right.
fn drop_an_entry(text: &str) -> String {
    let mut lines: Vec<&str> = text.lines().collect();
    let count: usize = lines[5].strip_prefix("entries ").unwrap().parse().unwrap();
    let root = lines[3].split(' ').nth(1).unwrap().to_string();
    let header = format!("entries {}", count - 1);
    lines[5] = &header;
    let middle = 6 + count / 2;
    lines.remove(if lines[middle].starts_with(&root) { middle + 1 } else { middle });
    lines.join("\n") + "\n"
}

#[test]
fn perfect_specs_parse_print_and_refuse_bad_settings() {
    let s = spec("perfect@movetime=300");
    assert_eq!(s.to_string(), "perfect@movetime=300");
    let e = PlayerSpec::parse("perfect@colour=red", alq_engine::Limits::default()).unwrap_err();
    assert!(e.to_string().contains("unknown key \"colour\""), "{e}");
    let e = PlayerSpec::parse("perfect@cert=/nonexistent/x.cert", alq_engine::Limits::default()).unwrap_err();
    assert!(e.to_string().contains("x.cert"), "{e}");
    // A certificate that does not hold is refused by name: one entry of a
    // shipped proof dropped (every entry is reached from its root).
    let broken = std::env::temp_dir().join(format!("alq-perfect-broken-{}.cert", std::process::id()));
    let text = include_str!("../../../data/proofs/b2-c3-black-draws.cert");
    std::fs::write(&broken, drop_an_entry(text)).unwrap();
    let e =
        PlayerSpec::parse(&format!("perfect@cert={}", broken.display()), alq_engine::Limits::default()).unwrap_err();
    assert!(e.to_string().contains("does not hold") && e.to_string().contains(&broken.display().to_string()), "{e}");
    std::fs::remove_file(&broken).unwrap();
    // The shipped strategies answer at the start without any search.
    let start = Game::new(Position::start(), GameConfig::default());
    let mut p = spec("perfect@movetime=1").build();
    let choice = p.choose(&start, &mut ChaCha8Rng::seed_from_u64(1)).unwrap();
    assert_ne!(choice.mv.to_string(), "d2-c3", "d2-c3 loses");
    assert_eq!(p.fallbacks(), 0);
    // A cap on the whole move: printed back, refused when not a positive
    // number of milliseconds.
    assert_eq!(spec("perfect@movecap=40").to_string(), "perfect@movecap=40");
    for bad in ["perfect@movecap=0", "perfect@movecap=fast"] {
        let e = PlayerSpec::parse(bad, alq_engine::Limits::default()).unwrap_err();
        assert!(e.to_string().contains("movecap"), "{bad}: {e}");
    }
}

#[test]
fn a_capped_perfect_player_still_never_loses_from_the_start() {
    // With a 20 ms cap on each move it follows the shipped drawing
    // strategies and the tables as before: random play never beats it.
    let capped = spec(&format!("perfect@tb={},movecap=20", small().display()));
    for seed in 0..4 {
        let config = GameConfig { max_plies: Some(200), ..GameConfig::default() };
        let mut game = Game::new(Position::start(), config);
        let me = if seed % 2 == 0 { alq_engine::Side::White } else { alq_engine::Side::Black };
        let (mut a, mut b) = (capped.build(), spec("random").build());
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        while !game.is_over() {
            let player = if game.position().side_to_move() == me { &mut a } else { &mut b };
            let Some(choice) = player.choose(&game, &mut rng) else { break };
            game.play(choice.mv).unwrap();
        }
        let winner = game.outcome().and_then(|o| o.winner);
        assert_ne!(winner, Some(me.opponent()), "seed {seed}: lost as {me:?} after {:?}", game.moves());
    }
}

/// The share of the opponent's replies after `mv` that hand the mover a win,
/// by the ≤ 6-piece tables.
fn true_trap_share(pos: &Position, mv: alq_engine::Move) -> f64 {
    let child = pos.play(mv);
    let replies = child.legal_moves_in(RuleSet::BrainKing);
    let errs = replies.iter().filter(|&&r| truth().probe_wdl(&child.play(r)).unwrap().0 == Wdl::Win).count();
    errs as f64 / replies.len().max(1) as f64
}

#[test]
fn ultra_strong_choice_sets_the_most_traps_and_uniform_does_not() {
    // Over the ≤ 6-piece win/draw/loss tables every value is known, so the
    // rule is exact: among the drawing moves, the most replies that lose.
    let dir = tables_dir(6, Kind::Wdl);
    let ultra = spec(&format!("perfect@tb={},movetime=1", dir.display()));
    let uniform = spec(&format!("perfect@tb={},movetime=1,choice=uniform", dir.display()));
    assert_eq!(uniform.to_string(), format!("perfect@movetime=1,choice=uniform,tb={}", dir.display()));
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    let (mut tested, mut uniform_missed) = (0, 0);
    while tested < 12 {
        let pos = random_position(&mut rng, 5, 6);
        if pos.is_lost_in(RuleSet::BrainKing) || truth().probe_wdl(&pos).unwrap().0 != Wdl::Draw {
            continue;
        }
        let drawing: Vec<(alq_engine::Move, f64)> = pos
            .legal_moves_in(RuleSet::BrainKing)
            .into_iter()
            .filter(|&m| truth().probe_wdl(&pos.play(m)).unwrap().0 == Wdl::Draw)
            .map(|m| (m, true_trap_share(&pos, m)))
            .collect();
        let best = drawing.iter().map(|d| d.1).fold(0.0, f64::max);
        if drawing.iter().all(|d| d.1 == best) {
            continue;
        }
        tested += 1;
        let game = Game::new(pos, GameConfig::default());
        for seed in 0..4 {
            let mut seeded = ChaCha8Rng::seed_from_u64(seed);
            let mv = ultra.build().choose(&game, &mut seeded).unwrap().mv;
            assert_eq!(true_trap_share(&pos, mv), best, "{pos}: ultra chose {mv} among {drawing:?}");
            let mv = uniform.build().choose(&game, &mut seeded).unwrap().mv;
            assert!(drawing.iter().any(|d| d.0 == mv), "{pos}: uniform chose {mv}, which does not draw");
            uniform_missed += usize::from(true_trap_share(&pos, mv) < best);
        }
    }
    assert!(uniform_missed > 0, "uniform always chose a best trap: the test tells nothing");
    let e = PlayerSpec::parse("perfect@choice=best", alq_engine::Limits::default()).unwrap_err();
    assert!(e.to_string().contains("not ultra or uniform"), "{e}");
}
