//! Matches between two players over paired openings, in parallel, with
//! Elo, pentanomial counts and an optional SPRT that stops the match early.
//! Players may be external engines and play on a clock; a player that
//! fails (crashes, runs out of time, sends an illegal move) loses the game
//! by forfeit and the match goes on.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;
use serde::Serialize;

use alq_engine::{Game, GameConfig, Score, Side};
use alq_records::{GameRecord, OpeningPart};

use crate::openings::{self, Opening};
use crate::players::{Clock, PlayerSpec, TimeControl, ENGINE_MOVE_TIMEOUT};
use alq_stats::{Sprt, SprtDecision, SprtState, Tally};

/// Where the openings of a match come from.
#[derive(Clone, Debug)]
pub enum OpeningSource {
    /// Every distinct position this many plies from the start.
    AllAfter(u32),
    /// This many random plies, drawn per pair from the match seed.
    Random(u32),
    /// Given lines (a book).
    Book(Vec<Opening>),
}

/// Everything that defines a match.
#[derive(Clone, Debug)]
pub struct MatchConfig {
    pub a: PlayerSpec,
    pub b: PlayerSpec,
    /// Number of games; even, since each opening is played with both colours.
    pub games: u64,
    pub openings: OpeningSource,
    pub seed: u64,
    pub sprt: Option<Sprt>,
    pub game: GameConfig,
    /// Both players play on this clock (a player out of time forfeits).
    pub clock: Option<TimeControl>,
    /// How far past its clock or move time a player may go before it
    /// forfeits.
    pub time_margin: Duration,
}

/// The result of a match, first player's view.
#[derive(Clone, Debug, Serialize)]
pub struct MatchReport {
    pub a: String,
    pub b: String,
    pub games: u64,
    pub wins: u64,
    pub draws: u64,
    pub losses: u64,
    pub score: f64,
    pub elo: f64,
    pub elo_ci95: [f64; 2],
    /// Normalized Elo from the pairs and its 95 % interval (see
    /// `Tally::nelo`); none without pairs or when every pair scored the same.
    pub nelo: Option<f64>,
    pub nelo_ci95: Option<[f64; 2]>,
    /// Pairs by the first player's points in the pair: 0, 0.5, 1, 1.5, 2.
    pub pentanomial: [u64; 5],
    /// Wins of the player with White, and of the player with Black.
    pub white_wins: u64,
    pub black_wins: u64,
    pub sprt: Option<SprtReport>,
    pub openings: usize,
    pub seed: u64,
    /// Whether the SPRT stopped the match before all games were played.
    pub stopped_early: bool,
    /// Games lost by forfeit by the first and by the second player.
    pub forfeits: [u64; 2],
    /// One line per forfeit: the game, the player and why.
    pub forfeit_notes: Vec<String>,
    /// Moves a perfect player chose by search because the oracle knew no
    /// value within its budget, of the first and of the second player, and
    /// the games with any (0 for other players).
    pub fallbacks: [u64; 2],
    pub fallback_games: [u64; 2],
}

#[derive(Clone, Debug, Serialize)]
pub struct SprtReport {
    #[serde(flatten)]
    pub params: Sprt,
    #[serde(flatten)]
    pub state: SprtState,
}

/// A match that cannot start.
#[derive(Clone, Debug, thiserror::Error)]
pub enum MatchError {
    #[error("the number of games must be even and at least 2 (each opening is played with both colours), not {0}")]
    Games(u64),
    #[error("no openings to play from")]
    NoOpenings,
    #[error(transparent)]
    Rules(#[from] crate::players::SpecError),
}

/// Progress after each finished pair.
#[derive(Clone, Debug)]
pub struct Progress {
    pub tally: Tally,
    pub pairs_done: u64,
    pub sprt: Option<SprtState>,
}

/// One finished game.
struct GameResult {
    /// The first player's points.
    points: f64,
    winner: Option<Side>,
    record: GameRecord,
    /// Whether the first player forfeited, and why, when a player did.
    forfeit: Option<(bool, String)>,
    /// The first and the second player's fallback moves.
    fallbacks: [u32; 2],
}

fn play_game(config: &MatchConfig, opening: &Opening, a_is_white: bool, index: u64) -> GameResult {
    let seed = game_seed(config.seed, index);
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut game: Game = opening.game(config.game);
    let mut scores: Vec<Option<Score>> = vec![None; game.plies()];
    // Plies whose moves were a perfect player's fallback searches.
    let mut fallback_plies: Vec<u32> = Vec::new();
    // Freshly built players start with empty tables: each game stands alone.
    let mut a = config.a.build();
    let mut b = config.b.build();
    let mut clock = config.clock.map(Clock::new);
    // The side that forfeited and why.
    let mut forfeit: Option<(Side, String)> = None;
    // External engines start before the clocks do: their start-up and
    // handshake are not charged to their first move. One that fails to
    // start forfeits when it is first to move (a record's forfeit is the
    // side to move's).
    let mut start_errors: [Option<String>; 2] = [None, None];
    if !game.is_over() {
        for (player, error) in [&mut a, &mut b].into_iter().zip(start_errors.iter_mut()) {
            *error = player.prepare(&game).err().map(|reason| reason.to_string());
        }
    }
    while !game.is_over() {
        let side = game.position().side_to_move();
        let a_to_move = (side == Side::White) == a_is_white;
        if let Some(reason) = start_errors[usize::from(!a_to_move)].take() {
            forfeit = Some((side, reason));
            break;
        }
        let player = if a_to_move { &mut a } else { &mut b };
        let allowed = match &clock {
            Some(c) => c.remaining[side.index()],
            None => player.spec().limits.movetime.unwrap_or(ENGINE_MOVE_TIMEOUT),
        };
        let started = Instant::now();
        let fallbacks_before = player.fallbacks();
        let choice = match player.play(&game, &mut rng, clock.as_ref(), started + allowed + config.time_margin) {
            Ok(Some(choice)) => choice,
            Ok(None) => break,
            Err(reason) => {
                forfeit = Some((side, reason.to_string()));
                break;
            }
        };
        let used = started.elapsed();
        let over = match (&clock, player.spec().limits.movetime) {
            (Some(c), _) => used > c.remaining[side.index()] + config.time_margin,
            (None, Some(t)) => player.spec().is_external() && used > t + config.time_margin,
            (None, None) => false,
        };
        if over {
            forfeit = Some((
                side,
                format!("lost on time ({} ms for the move, {} ms allowed)", used.as_millis(), allowed.as_millis()),
            ));
            break;
        }
        if let Some(c) = &mut clock {
            let left = &mut c.remaining[side.index()];
            *left = left.saturating_sub(used) + c.increment;
        }
        if let Err(e) = game.play(choice.mv) {
            forfeit = Some((side, format!("illegal move {}: {e}", choice.mv)));
            break;
        }
        scores.push(choice.score);
        if player.fallbacks() > fallbacks_before {
            fallback_plies.push(game.plies() as u32);
        }
    }
    let (a_name, b_name) = (config.a.to_string(), config.b.to_string());
    let (white, black) = if a_is_white { (&a_name, &b_name) } else { (&b_name, &a_name) };
    let plies = opening.moves.len() as u32;
    let part = match config.openings {
        OpeningSource::Random(_) => OpeningPart::Random(plies),
        OpeningSource::AllAfter(_) | OpeningSource::Book(_) => OpeningPart::Book(plies),
    };
    let record = GameRecord::from_game(index, seed, white, black, &game, plies, &scores)
        .with_opening(&[part])
        .with_fallbacks(&fallback_plies);
    // Where the game entered the tables, by the larger of the players' tables.
    let tables = [&config.a.tables, &config.b.tables].into_iter().flatten().max_by_key(|t| t.max_pieces());
    let record = match tables {
        Some(t) => t.mark_entry(&game, record),
        None => record,
    };
    let record = match &forfeit {
        Some((side, _)) => record.with_forfeit(*side),
        None => record,
    };
    let winner = match &forfeit {
        Some((side, _)) => Some(side.opponent()),
        None => game.outcome().and_then(|o| o.winner),
    };
    let a_side = if a_is_white { Side::White } else { Side::Black };
    let points = match winner {
        Some(w) if w == a_side => 1.0,
        Some(_) => 0.0,
        None => 0.5,
    };
    let forfeit = forfeit.map(|(side, reason)| {
        let a_forfeits = (side == Side::White) == a_is_white;
        let name = if a_forfeits { &a_name } else { &b_name };
        (a_forfeits, format!("game {index}: {name} ({side}) forfeits at ply {}: {reason}", game.plies()))
    });
    GameResult { points, winner, record, forfeit, fallbacks: [a.fallbacks(), b.fallbacks()] }
}

/// A per-game seed from the match seed and the game's place in it.
pub fn game_seed(seed: u64, index: u64) -> u64 {
    let mut z = seed ^ index.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The openings of the match's pairs, in pair order.
fn pair_openings(config: &MatchConfig, pairs: u64) -> Result<(Vec<Opening>, usize), MatchError> {
    let pool = match &config.openings {
        OpeningSource::AllAfter(k) => openings::all_after(config.game.rules, *k),
        OpeningSource::Book(book) => book.clone(),
        OpeningSource::Random(k) => {
            let list: Vec<Opening> = (0..pairs)
                .map(|i| {
                    openings::random(
                        config.game.rules,
                        *k,
                        &mut ChaCha8Rng::seed_from_u64(game_seed(config.seed, i) ^ 0x0BE7),
                    )
                })
                .collect();
            let n = list.len();
            return Ok((list, n));
        }
    };
    if pool.is_empty() {
        return Err(MatchError::NoOpenings);
    }
    // Spread the pairs over the whole set, in a seeded order, so that a short
    // match does not only play the first lines.
    let mut order: Vec<usize> = (0..pool.len()).collect();
    rand::seq::SliceRandom::shuffle(&mut order[..], &mut ChaCha8Rng::seed_from_u64(config.seed));
    let n = pool.len();
    Ok(((0..pairs).map(|i| pool[order[i as usize % n]].clone()).collect(), n))
}

/// Plays the match on the current rayon pool. `on_pair` is called after each
/// finished pair (from worker threads). Without SPRT the result depends only
/// on the config, not on the number of threads.
pub fn run_match(config: &MatchConfig, on_pair: impl Fn(&Progress) + Sync) -> Result<MatchReport, MatchError> {
    run_match_with_games(config, on_pair).map(|(report, _)| report)
}

/// Refuses a number of games that is odd or below 2: each opening is
/// played twice, colours swapped.
pub fn check_games(games: u64) -> Result<(), MatchError> {
    if games < 2 || !games.is_multiple_of(2) {
        return Err(MatchError::Games(games));
    }
    Ok(())
}

/// [`run_match`], also returning the games as records in game order (the
/// opening moves count as `opening_plies`).
pub fn run_match_with_games(
    config: &MatchConfig,
    on_pair: impl Fn(&Progress) + Sync,
) -> Result<(MatchReport, Vec<GameRecord>), MatchError> {
    check_games(config.games)?;
    config.a.check_rules(config.game.rules)?;
    config.b.check_rules(config.game.rules)?;
    let pairs = config.games / 2;
    let (pair_openings, opening_count) = pair_openings(config, pairs)?;
    let stop = AtomicBool::new(false);
    let state = Mutex::new((Tally::default(), 0u64, 0u64, 0u64));
    let forfeits = Mutex::new(([0u64; 2], Vec::new()));
    let fallbacks = Mutex::new([[0u64; 2]; 2]);
    let records = Mutex::new(Vec::new());
    (0..pairs).into_par_iter().for_each(|i| {
        if stop.load(Ordering::Relaxed) {
            return;
        }
        let opening = &pair_openings[i as usize];
        let first = play_game(config, opening, true, 2 * i);
        let second = play_game(config, opening, false, 2 * i + 1);
        let mut guard = state.lock().unwrap_or_else(|e| e.into_inner());
        let (tally, done, white_wins, black_wins) = &mut *guard;
        tally.add_pair(first.points, second.points);
        *done += 1;
        for g in [&first, &second] {
            match g.winner {
                Some(Side::White) => *white_wins += 1,
                Some(Side::Black) => *black_wins += 1,
                None => {}
            }
        }
        let sprt = config.sprt.map(|s| s.state(tally));
        if sprt.is_some_and(|s| s.decision != SprtDecision::Continue) {
            stop.store(true, Ordering::Relaxed);
        }
        on_pair(&Progress { tally: tally.clone(), pairs_done: *done, sprt });
        drop(guard);
        for g in [&first, &second] {
            let mut fb = fallbacks.lock().unwrap_or_else(|e| e.into_inner());
            for (player, &n) in g.fallbacks.iter().enumerate() {
                fb[0][player] += u64::from(n);
                fb[1][player] += u64::from(n > 0);
            }
            drop(fb);
            if let Some((a_forfeits, note)) = &g.forfeit {
                let mut f = forfeits.lock().unwrap_or_else(|e| e.into_inner());
                f.0[usize::from(!a_forfeits)] += 1;
                f.1.push((g.record.id, note.clone()));
            }
        }
        let mut list = records.lock().unwrap_or_else(|e| e.into_inner());
        list.push(first.record);
        list.push(second.record);
    });
    let mut records = records.into_inner().unwrap_or_else(|e| e.into_inner());
    records.sort_by_key(|r| r.id);
    let (tally, done, white_wins, black_wins) = state.into_inner().unwrap_or_else(|e| e.into_inner());
    let (lo, hi) = tally.elo_ci95();
    let (forfeit_counts, mut notes) = forfeits.into_inner().unwrap_or_else(|e| e.into_inner());
    notes.sort();
    let fallbacks_done = fallbacks.into_inner().unwrap_or_else(|e| e.into_inner());
    let report = MatchReport {
        a: config.a.to_string(),
        b: config.b.to_string(),
        games: tally.games(),
        wins: tally.wins,
        draws: tally.draws,
        losses: tally.losses,
        score: tally.score(),
        elo: tally.elo(),
        elo_ci95: [lo, hi],
        nelo: tally.nelo().map(|(v, _)| v),
        nelo_ci95: tally.nelo().map(|(_, (lo, hi))| [lo, hi]),
        pentanomial: tally.pentanomial,
        white_wins,
        black_wins,
        sprt: config.sprt.map(|params| SprtReport { params, state: params.state(&tally) }),
        openings: opening_count,
        seed: config.seed,
        stopped_early: done < pairs,
        forfeits: forfeit_counts,
        forfeit_notes: notes.into_iter().map(|(_, n)| n).collect(),
        fallbacks: fallbacks_done[0],
        fallback_games: fallbacks_done[1],
    };
    Ok((report, records))
}

#[cfg(test)]
mod tests {
    use super::*;
    use alq_engine::Limits;

    fn config(a: &str, b: &str, games: u64) -> MatchConfig {
        MatchConfig {
            a: PlayerSpec::parse(a, Limits::nodes(300)).unwrap(),
            b: PlayerSpec::parse(b, Limits::nodes(300)).unwrap(),
            games,
            openings: OpeningSource::AllAfter(4),
            seed: 7,
            sprt: None,
            game: GameConfig { no_progress_limit: Some(60), max_plies: Some(400), ..GameConfig::default() },
            clock: None,
            time_margin: Duration::from_millis(500),
        }
    }

    #[test]
    fn search_beats_random_and_counts_add_up() {
        let report = run_match(&config("hce", "random", 20), |_| {}).unwrap();
        assert_eq!(report.games, 20);
        assert_eq!(report.wins + report.draws + report.losses, 20);
        assert_eq!(report.pentanomial.iter().sum::<u64>(), 10);
        assert!(report.score > 0.8, "{report:?}");
        assert_eq!(report.white_wins + report.black_wins + report.draws, 20);
    }

    #[test]
    fn matches_are_reproducible_across_thread_counts() {
        let c = config("hce@nodes=200", "greedy", 8);
        let one =
            rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap().install(|| run_match(&c, |_| {}).unwrap());
        let two =
            rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap().install(|| run_match(&c, |_| {}).unwrap());
        assert_eq!(
            (one.wins, one.draws, one.losses, one.pentanomial),
            (two.wins, two.draws, two.losses, two.pentanomial)
        );
    }

    #[test]
    fn searcher_crushes_greedy() {
        // A seeded, smaller version of the strength check in the README
        // (2,000 nodes per move, 200 games: 97 % or more).
        let mut c = config("hce@nodes=2000", "greedy", 40);
        c.seed = 3;
        let report = run_match(&c, |_| {}).unwrap();
        assert!(report.score >= 0.9, "{report:?}");
    }

    #[test]
    fn odd_game_counts_are_refused() {
        assert!(matches!(run_match(&config("hce", "random", 3), |_| {}), Err(MatchError::Games(3))));
    }
}
