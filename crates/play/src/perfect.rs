//! The perfect player (`perfect`): plays only moves that keep the position's
//! exact value wherever it is known, wins what the opponent gives away, and
//! falls back to search only where nothing is known.
//!
//! In a position where it is to move, in this order:
//! 1. positions whose every move the tables cover: the tables' best move
//!    (fastest win, a draw, the slowest loss; see [`crate::TablesSpec`]);
//! 2. the oracle's value of every move (tables, stores, threshold searches
//!    within the `movetime` budget of each position asked);
//! 3. a move that wins, if one is known: a win proof's move where the
//!    position is in one (a shipped one: Black's win after `d2-c3`), else
//!    one chosen to make progress: a move
//!    that ends the game, else the fewest plies to the end by distance
//!    tables, else a move that does not repeat a position of the game, then
//!    the most captures, then a forward move before a sideways one (under
//!    BrainKing's rules captures and forward moves never come back, so a
//!    won game cannot circle as long as such moves keep the win);
//! 4. else the move of a drawing strategy of its side (the shipped
//!    certificates, [`alq_oracle::shipped_certificates`], among them
//!    `start-white-draws` and `start-black-draws`, and a `cert=FILE` of
//!    its own): each covers every reply of
//!    the other side, so from the start the player never leaves it until
//!    the tables take over; it never loses from the start by construction;
//! 5. else a move known to keep at least a draw, at random among them;
//! 6. else, nothing known: a search (hce) among the moves not proven to
//!    lose, counted as a fallback (`Player::fallbacks`, and a line on
//!    standard error when the player is dropped).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use rand::seq::SliceRandom;
use rand::Rng;

use alq_engine::{Evaluator, Game, Hce, HceWeights, Limits, Move, Position, RuleSet, Score, Searcher, Side};
use alq_oracle::{Oracle, Value};
use alq_solver::certificate::Step;
use alq_solver::{Budget, Certificate};
use alq_tablebase::{Exact, Tablebase};

use crate::players::Choice;

/// The search budget of each position the perfect player asks the oracle
/// about, when its spec names none (`movetime=MS`).
pub const DEFAULT_MOVETIME: Duration = Duration::from_millis(500);

/// The settings of a perfect player (`perfect@tb=DIR,store=FILE,cert=FILE,movetime=MS`).
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct PerfectSettings {
    /// The user's proven-position store, read and written back.
    pub store: Option<PathBuf>,
    /// A certificate of the player's own, followed beside the shipped ones.
    pub certificate: Option<PathBuf>,
}

/// Moves of winning and drawing strategies by position key, per side:
/// `(move, whether it is a win strategy's)`; a win strategy's move replaces
/// a draw strategy's.
#[derive(Default)]
struct Strategies {
    moves: [HashMap<u64, (Move, bool)>; 2],
}

impl Strategies {
    fn add(&mut self, cert: &Certificate) {
        let side = cert.goal.side();
        let win = cert.goal.is_win();
        for e in &cert.entries {
            if let Step::Move(mv) = e.step {
                if alq_engine::key_side(e.key) == side {
                    let slot = self.moves[side.index()].entry(e.key).or_insert((mv, win));
                    if win && !slot.1 {
                        *slot = (mv, win);
                    }
                }
            }
        }
    }

    fn get(&self, pos: &Position) -> Option<(Move, bool)> {
        self.moves[pos.side_to_move().index()].get(&pos.key()).copied()
    }
}

fn shipped(rules: RuleSet) -> Result<Arc<Strategies>, String> {
    static SHIPPED: OnceLock<Result<Arc<Strategies>, String>> = OnceLock::new();
    if rules != RuleSet::BrainKing {
        return Ok(Arc::new(Strategies::default()));
    }
    SHIPPED
        .get_or_init(|| {
            let mut s = Strategies::default();
            for cert in alq_oracle::shipped_certificates() {
                s.add(cert);
            }
            Ok(Arc::new(s))
        })
        .clone()
}

type OracleKey = (RuleSet, Option<PathBuf>, Option<PathBuf>, Duration);

/// One oracle per process for each (rules, tables, store, budget): every
/// perfect player of a match shares what the others settled.
fn shared_oracle(
    rules: RuleSet,
    tb: Option<&'static Tablebase>,
    store: Option<&Path>,
    movetime: Duration,
) -> Result<Arc<Oracle<'static>>, String> {
    static OPEN: Mutex<Vec<(OracleKey, Arc<Oracle<'static>>)>> = Mutex::new(Vec::new());
    let key: OracleKey = (rules, tb.map(|t| t.dir().to_path_buf()), store.map(Path::to_path_buf), movetime);
    let mut open = OPEN.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((_, o)) = open.iter().find(|(k, _)| *k == key) {
        return Ok(Arc::clone(o));
    }
    let eval: Box<dyn Evaluator> = Box::new(Hce::new(HceWeights::default()));
    let mut oracle =
        Oracle::new(rules, tb, eval, Budget { nodes: None, time: Some(movetime), memory_bytes: 512 << 20 });
    oracle.read_shipped().map_err(|e| e.to_string())?;
    if let Some(file) = store {
        oracle.use_store(file).map_err(|e| e.to_string())?;
    }
    let oracle = Arc::new(oracle);
    open.push((key, Arc::clone(&oracle)));
    Ok(oracle)
}

/// A perfect player in one game.
pub(crate) struct Perfect {
    oracle: Arc<Oracle<'static>>,
    tb: Option<&'static Tablebase>,
    shipped: Arc<Strategies>,
    own: Option<Arc<Strategies>>,
    /// Moves chosen by search because nothing was known.
    pub(crate) fallbacks: u32,
}

impl Perfect {
    pub(crate) fn new(
        settings: &PerfectSettings,
        rules: RuleSet,
        tables_dir: Option<&str>,
        movetime: Duration,
    ) -> Result<Perfect, String> {
        let tb = tables_dir.map(|d| Tablebase::shared_static(Path::new(d)).map_err(|e| e.to_string())).transpose()?;
        let oracle = shared_oracle(rules, tb, settings.store.as_deref(), movetime)?;
        let own = match &settings.certificate {
            Some(file) => {
                let cert = Certificate::read(file).map_err(|e| e.to_string())?;
                if cert.rules != rules {
                    return Err(format!(
                        "{}: a certificate under the {} rules, not {rules}",
                        file.display(),
                        cert.rules
                    ));
                }
                let mut s = Strategies::default();
                s.add(&cert);
                Some(Arc::new(s))
            }
            None => None,
        };
        Ok(Perfect { oracle, tb, shipped: shipped(rules)?, own, fallbacks: 0 })
    }

    /// The move of a strategy the player follows, if `pos` is in one, and
    /// whether the strategy wins.
    fn strategy_move(&self, pos: &Position) -> Option<(Move, bool)> {
        self.own.as_ref().and_then(|s| s.get(pos)).or_else(|| self.shipped.get(pos))
    }

    /// How much a winning move advances the win (larger is better).
    fn progress(&self, game: &Game, mv: Move) -> (bool, std::cmp::Reverse<u32>, bool, usize, bool) {
        let pos = game.position();
        let child = pos.play(mv);
        let ends = child.is_lost_in(game.rules());
        let distance = self
            .tb
            .filter(|t| child.occupied().count() <= t.max_pieces())
            .and_then(|t| t.probe(&child).ok())
            .map_or(u32::MAX, |v| match v {
                Exact::Loss(d) => d,
                _ => u32::MAX,
            });
        let fresh = game.occurrences(&child) == 0;
        let forward = match pos.side_to_move() {
            Side::White => mv.to().rank() > mv.from().rank(),
            Side::Black => mv.to().rank() < mv.from().rank(),
        };
        (ends, std::cmp::Reverse(distance), fresh, mv.jumps(), forward)
    }

    /// Chooses a move (see the module documentation); `searcher` serves the
    /// fallback with `limits`.
    pub(crate) fn choose(
        &mut self,
        game: &Game,
        rng: &mut impl Rng,
        searcher: &mut Searcher<Box<dyn Evaluator>>,
        limits: Limits,
    ) -> Option<Choice> {
        let pos = game.position();
        let values: Vec<(Move, Value)> = match self.oracle.move_values(&pos) {
            Ok(v) => v.into_iter().map(|(m, a)| (m, a.value)).collect(),
            Err(e) => {
                eprintln!("perfect: the oracle failed ({e}); searching instead");
                game.legal_moves().iter().map(|&m| (m, Value::Unknown)).collect()
            }
        };
        if values.is_empty() {
            return None;
        }
        let strategy = self.strategy_move(&pos).filter(|(m, _)| values.iter().any(|(x, _)| x == m));
        if let Some((mv, true)) = strategy {
            // A win proof's move: its ranks fall with every move, so the
            // win cannot circle.
            return Some(Choice { mv, score: None });
        }
        let wins: Vec<Move> = values.iter().filter(|(_, v)| *v == Value::Win).map(|(m, _)| *m).collect();
        if let Some(&mv) = wins.iter().max_by_key(|&&m| self.progress(game, m)) {
            return Some(Choice { mv, score: None });
        }
        if let Some((mv, _)) = strategy {
            return Some(Choice { mv, score: None });
        }
        let holds: Vec<Move> =
            values.iter().filter(|(_, v)| matches!(v, Value::Draw | Value::AtLeastDraw)).map(|(m, _)| *m).collect();
        if let Some(&mv) = holds.choose(rng) {
            return Some(Choice { mv, score: None });
        }
        // Nothing known to hold: search among the moves not proven lost
        // (all of them when every move loses).
        self.fallbacks += 1;
        let open: Vec<Move> = values.iter().filter(|(_, v)| *v != Value::Loss).map(|(m, _)| *m).collect();
        let candidates = if open.is_empty() { values.iter().map(|(m, _)| *m).collect() } else { open };
        let result = searcher.search(game, limits, |_| {});
        if let Some(best) = result.best.filter(|b| candidates.contains(b)) {
            return Some(Choice { mv: best, score: Some(result.score) });
        }
        // The search preferred a move proven lost: the best of the others
        // by a search of each.
        let share = Limits { nodes: limits.nodes.map(|n| (n / candidates.len() as u64).max(1)), ..limits };
        let mut best: Option<(Move, Score)> = None;
        for &mv in &candidates {
            let mut child = game.clone();
            child.play(mv).ok()?;
            let score = searcher.search(&child, share, |_| {}).score.negate();
            if best.is_none_or(|(_, s)| score.to_internal() > s.to_internal()) {
                best = Some((mv, score));
            }
        }
        best.map(|(mv, score)| Choice { mv, score: Some(score) })
    }
}
