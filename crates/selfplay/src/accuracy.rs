//! Endgame accuracy: an absolute yardstick for players. Random positions of
//! a fixed number of pieces where the side to move can go wrong, each
//! answered by the player; the endgame tables say whether its move kept the
//! win or the draw.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use alq_engine::{Bitboard, EndgameTables, Game, GameConfig, Position, Side, Wdl};

use alq_play::players::PlayerSpec;

/// One test position: a win or a draw for the side to move, with at least
/// one move that changes the value.
#[derive(Clone, Debug, PartialEq)]
pub struct AccuracyPosition {
    pub position: Position,
    /// Win or draw (only the kind matters: distances are not judged, and
    /// win/draw/loss tables have none).
    pub value: Wdl,
}

/// A count with its rate and Wilson 95 % interval.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Kept {
    pub kept: u64,
    pub positions: u64,
    pub rate: f64,
    pub ci95: [f64; 2],
}

impl Kept {
    pub fn new(kept: u64, positions: u64) -> Kept {
        let r = alq_stats::wilson(kept as f64, positions);
        Kept { kept, positions, rate: r.rate, ci95: r.ci95 }
    }

    /// `93.4 % [91.0, 95.2] (467 of 500)`.
    pub fn text(&self) -> String {
        format!(
            "{:.1} % [{:.1}, {:.1}] ({} of {})",
            100.0 * self.rate,
            100.0 * self.ci95[0],
            100.0 * self.ci95[1],
            self.kept,
            self.positions
        )
    }
}

/// The result of one accuracy run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AccuracyReport {
    pub player: String,
    /// The tables the positions were judged by.
    pub tables: String,
    pub pieces: u32,
    pub seed: u64,
    /// Won positions where the player's move still wins.
    pub wins: Kept,
    /// Drawn positions where the player's move still draws.
    pub draws: Kept,
    /// Both together.
    pub all: Kept,
}

impl AccuracyReport {
    /// Three lines for a terminal or a log.
    pub fn text(&self) -> String {
        format!(
            "{} on {}-piece positions (seed {}, judged by {}):\nwins kept  {}\ndraws kept {}\nall kept   {}",
            self.player,
            self.pieces,
            self.seed,
            self.tables,
            self.wins.text(),
            self.draws.text(),
            self.all.text()
        )
    }
}

/// `n` positions with exactly `pieces` pieces, both sides present, that the
/// tables value as a win or a draw for the side to move and where some
/// legal move changes that value. The same seed gives the same positions.
/// `None` when the tables (distance or win/draw/loss) do not cover `pieces`.
pub fn sample_positions(tables: &dyn EndgameTables, pieces: u32, n: usize, seed: u64) -> Option<Vec<AccuracyPosition>> {
    if !(2..=24).contains(&pieces) || pieces > tables.wdl_max_pieces() {
        return None;
    }
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut out = Vec::with_capacity(n);
    // Positions are drawn uniformly (a random set of points, a random owner
    // for each, a random side to move) and kept when they qualify.
    let mut tries = 0u64;
    while out.len() < n && tries < 1_000_000 * n as u64 {
        tries += 1;
        let mut points: Vec<u32> = (0..25).collect();
        for i in 0..pieces as usize {
            let j = rng.gen_range(i..25);
            points.swap(i, j);
        }
        let (mut white, mut black) = (0u32, 0u32);
        for &p in &points[..pieces as usize] {
            if rng.gen_bool(0.5) {
                white |= 1 << p;
            } else {
                black |= 1 << p;
            }
        }
        let side = if rng.gen_bool(0.5) { Side::White } else { Side::Black };
        if white == 0 || black == 0 {
            continue;
        }
        let position = Position::from_parts(Bitboard(white), Bitboard(black), side);
        let Some(value) = tables.probe_wdl(&position) else { continue };
        if value == Wdl::Loss {
            continue;
        }
        let moves = position.legal_moves_in(tables.rules());
        let after: Option<Vec<Wdl>> =
            moves.iter().map(|&mv| tables.probe_wdl(&position.play(mv)).map(Wdl::for_mover)).collect();
        let Some(after) = after else { continue };
        if after.iter().any(|&v| v != value) {
            out.push(AccuracyPosition { position, value });
        }
    }
    Some(out)
}

/// Whether each position's move by the player keeps its value (a win still
/// wins, a draw still draws), in order. The player sees each position as a
/// fresh game with the default draw rules, under the tables' rule set.
pub fn judge(player: &PlayerSpec, tables: &dyn EndgameTables, positions: &[AccuracyPosition], seed: u64) -> Vec<bool> {
    positions
        .par_iter()
        .enumerate()
        .map(|(i, p)| {
            let mut rng = ChaCha8Rng::seed_from_u64(seed ^ (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15));
            let game = Game::new(p.position, GameConfig::with_rules(tables.rules()));
            let Some(choice) = player.build().choose(&game, &mut rng) else { return false };
            tables.probe_wdl(&p.position.play(choice.mv)).is_some_and(|after| after.for_mover() == p.value)
        })
        .collect()
}

/// Samples the positions and judges the player on them.
pub fn measure(
    player: &PlayerSpec,
    tables: &dyn EndgameTables,
    pieces: u32,
    n: usize,
    seed: u64,
) -> Result<AccuracyReport, String> {
    if player.tables.as_ref().is_some_and(|t| t.tables.wdl_max_pieces() >= pieces) {
        return Err(format!(
            "the player's own tables cover {pieces}-piece positions, so it would play them perfectly; give it tables of fewer pieces"
        ));
    }
    let positions = sample_positions(tables, pieces, n, seed)
        .ok_or_else(|| format!("the tables ({}) do not cover {pieces} pieces", tables.describe()))?;
    if positions.len() < n {
        return Err(format!(
            "found only {} of {n} positions with {pieces} pieces where a move changes the value",
            positions.len()
        ));
    }
    let kept = judge(player, tables, &positions, seed);
    let count = |win: bool| {
        let of_kind = positions.iter().zip(&kept).filter(|(p, _)| (p.value == Wdl::Win) == win);
        let (n, k) = of_kind.fold((0, 0), |(n, k), (_, &ok)| (n + 1, k + u64::from(ok)));
        Kept::new(k, n)
    };
    let (wins, draws) = (count(true), count(false));
    Ok(AccuracyReport {
        player: player.to_string(),
        tables: tables.describe(),
        pieces,
        seed,
        wins,
        draws,
        all: Kept::new(wins.kept + draws.kept, wins.positions + draws.positions),
    })
}
