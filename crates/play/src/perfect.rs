//! The perfect player (`perfect`): plays only moves that keep the position's
//! exact value wherever it is known, wins what the opponent gives away, and
//! falls back to search only where nothing is known.
//!
//! In a position where it is to move, in this order:
//! 1. positions whose every move the tables cover: the tables' best move
//!    (fastest win, a draw, the slowest loss; with distance-to-progress
//!    tables and the 60-ply rule, by the values under the rule at the
//!    game's count; see [`crate::TablesSpec`]);
//! 2. the oracle's value of every move (tables, stores, threshold searches
//!    within the `movetime` budget of each position asked);
//! 3. a move that wins, if one is known: a win proof's move where the
//!    position is in one (a shipped one: Black's win after `d2-c3`, or one
//!    it proved in the game: the first time it stands in a won position
//!    with more pieces than the distance tables hold, it proves the win
//!    with a certificate whose leaves are distance-table positions, within
//!    twenty times its budget, and follows its ranks), else
//!    one chosen to make progress: a move
//!    that ends the game, else (where distance-to-progress tables cover
//!    it, `alq tb build --kind dtz`, and the game plays the 60-ply
//!    no-progress rule) a move that keeps the win under the rule at the
//!    game's count with the fewest plies to the next capture or forward
//!    move, else the fewest plies to the end by distance
//!    tables, else a capture or a forward move (under BrainKing's rules
//!    they never come back, so a won game cannot circle as long as such
//!    moves keep the win), then a move that does not repeat a position of
//!    the game, then the most captures;
//! 4. else a move that keeps at least a draw: the move of a drawing
//!    strategy of its side (the shipped certificates,
//!    [`alq_oracle::shipped_certificates`], among them `start-white-draws`
//!    and `start-black-draws`, and a `cert=FILE` of its own; each covers
//!    every reply of the other side, so from the start the player never
//!    needs to leave it until the tables take over, and never loses by
//!    construction), or a move the oracle proved to keep at least a draw.
//!    Among these it chooses by [`Choosing`]: by default ("ultra-strong")
//!    the one after which most of the opponent's replies are known to lose
//!    (the replies whose positions the oracle knows without a search), ties to the strategy's
//!    move, then at random; `choice=uniform` picks uniformly;
//! 5. else, every move known to lose: the move after which most replies
//!    are known to let the draw or the win back (ultra-strong), or one at
//!    random (uniform);
//! 6. else, nothing known even when asked again ten times longer (the
//!    position, whose proof often settles a move, then each open move): a
//!    search (hce) among the moves not proven to
//!    lose, counted as a fallback ([`crate::Player::fallbacks`], the match
//!    report's `fallbacks`, and the game record's `fallback_plies`).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use rand::seq::SliceRandom;
use rand::Rng;

use alq_engine::{Evaluator, Game, Hce, HceWeights, Limits, Move, Position, RuleSet, Score, Searcher, Side};
use alq_oracle::{Oracle, Value};
use alq_solver::certificate::Step;
use alq_solver::{Budget, Certificate, Goal, Outcome, ThresholdSolver};
use alq_tablebase::{Dtz, Exact, Kind, Tablebase, NO_PROGRESS_PLIES};

use crate::choice::Choice;

/// The search budget of each position the perfect player asks the oracle
/// about, when its spec names none (`movetime=MS`).
pub const DEFAULT_MOVETIME: Duration = Duration::from_millis(500);

/// How a perfect player chooses among moves that keep the value
/// (`choice=ultra|uniform`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Choosing {
    /// "Ultra-strong" play (Gévay and Danner's term for Nine Men's Morris):
    /// the move that leaves the opponent the largest share of replies known
    /// to lose value.
    #[default]
    Ultra,
    /// Uniformly at random (the strategy's move when the position is in a
    /// drawing strategy and no other move is known to hold).
    Uniform,
}

impl Choosing {
    pub fn name(self) -> &'static str {
        match self {
            Choosing::Ultra => "ultra",
            Choosing::Uniform => "uniform",
        }
    }
}

impl std::str::FromStr for Choosing {
    type Err = String;

    fn from_str(text: &str) -> Result<Choosing, String> {
        match text {
            "ultra" => Ok(Choosing::Ultra),
            "uniform" => Ok(Choosing::Uniform),
            other => Err(format!("choice {other:?} is not ultra or uniform")),
        }
    }
}

/// The settings of a perfect player
/// (`perfect@tb=DIR,store=FILE,cert=FILE,movetime=MS,movecap=MS,choice=ultra|uniform`).
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct PerfectSettings {
    /// The user's proven-position store, read and written back.
    pub store: Option<PathBuf>,
    /// A certificate of the player's own, followed beside the shipped ones.
    pub certificate: Option<PathBuf>,
    /// How it chooses among the moves that keep the value.
    pub choosing: Choosing,
    /// The whole budget of a move (`movecap=MS`), for a fast opponent: the
    /// oracle's questions about the moves share it (rather than each taking
    /// `movetime`), nothing is asked again for longer, no win is proved in
    /// the game, and a fallback search gets what is left. Wins beyond the
    /// distance tables are then played by the progress order alone.
    pub move_cap: Option<Duration>,
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

/// The strategies of a player's own certificate, read and checked once per
/// process for each (file, rules): every game of a match builds its players
/// afresh, and a large certificate's check would cost each its first move.
/// Checked before it is followed: over the tables when they hold its
/// leaves, else every step but the leaves' values (said once on stderr).
fn own_strategies(file: &Path, rules: RuleSet, tb: Option<&Tablebase>) -> Result<Arc<Strategies>, String> {
    type Cache = Mutex<Vec<((PathBuf, RuleSet), Arc<Strategies>)>>;
    static OWN: Cache = Mutex::new(Vec::new());
    let key = (file.to_path_buf(), rules);
    let mut cache = OWN.lock().unwrap_or_else(|p| p.into_inner());
    if let Some((_, s)) = cache.iter().find(|(k, _)| *k == key) {
        return Ok(s.clone());
    }
    let (cert, report) =
        Certificate::read_checked(file, tb.filter(|t| t.rules() == rules)).map_err(|e| e.to_string())?;
    if cert.rules != rules {
        return Err(format!("{}: a certificate under the {} rules, not {rules}", file.display(), cert.rules));
    }
    if !report.leaves_checked() {
        eprintln!(
            "perfect: {}: every step checked, but not its {} table leaves' values (give the player tb= with the ≤ {} tables)",
            file.display(),
            report.table_leaves,
            cert.table_pieces
        );
    }
    let mut s = Strategies::default();
    s.add(&cert);
    let s = Arc::new(s);
    cache.push((key, s.clone()));
    Ok(s)
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
    // A stored bound is enough to know that a move holds: no search for
    // the exact value of every certified move.
    oracle.set_settle_bounds(false);
    oracle.read_shipped().map_err(|e| e.to_string())?;
    if let Some(file) = store {
        oracle.use_store(file).map_err(|e| e.to_string())?;
    }
    let oracle = Arc::new(oracle);
    open.push((key, Arc::clone(&oracle)));
    Ok(oracle)
}

/// The value `mv` gives its mover under the game's no-progress rule, at the
/// count the game has reached (a win in `d` plies to the next progress move,
/// 1 when `mv` is one; a cursed win, a draw, …), from the
/// distance-to-progress tables in `tb`; `None` where the game does not play
/// the 60-ply rule the tables are built for, or they do not cover the
/// position after `mv`.
pub(crate) fn rule_value_of(tb: &Tablebase, game: &Game, mv: Move) -> Option<Dtz> {
    if game.config().no_progress_limit != Some(NO_PROGRESS_PLIES) {
        return None;
    }
    let pos = game.position();
    let progress = mv.is_progress(pos.side_to_move());
    let count = if progress { 0 } else { game.quiet_plies() + 1 };
    let reached = tb.probe_dtz(&pos.play(mv)).ok()?;
    Some(reached.at_count(count).for_mover(progress))
}

/// A perfect player in one game.
pub(crate) struct Perfect {
    oracle: Arc<Oracle<'static>>,
    tb: Option<&'static Tablebase>,
    shipped: Arc<Strategies>,
    own: Option<Arc<Strategies>>,
    /// Win proofs found in this game (with their ranks), followed to the end.
    proofs: Strategies,
    /// Whether a win proof was tried in this game already and failed.
    proof_failed: bool,
    choosing: Choosing,
    /// The whole budget of a move, if capped ([`PerfectSettings::move_cap`]).
    move_cap: Option<Duration>,
    /// Moves chosen by search because nothing was known.
    pub(crate) fallbacks: u32,
}

impl Drop for Perfect {
    /// The shared oracle lives as long as the process: a game's end writes
    /// what it settled to the store when the last write is 10 s old
    /// ([`alq_oracle::SAVE_EVERY`]; a large store takes a second to write).
    fn drop(&mut self) {
        if let Err(e) = self.oracle.save_if_due() {
            eprintln!("perfect: the store was not written: {e}");
        }
    }
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
        let own = settings.certificate.as_deref().map(|file| own_strategies(file, rules, tb)).transpose()?;
        Ok(Perfect {
            oracle,
            tb,
            shipped: shipped(rules)?,
            own,
            proofs: Strategies::default(),
            proof_failed: false,
            choosing: settings.choosing,
            move_cap: settings.move_cap,
            fallbacks: 0,
        })
    }

    /// The move of a strategy the player follows, if `pos` is in one, and
    /// whether the strategy wins.
    fn strategy_move(&self, pos: &Position) -> Option<(Move, bool)> {
        self.proofs.get(pos).or_else(|| self.own.as_ref().and_then(|s| s.get(pos))).or_else(|| self.shipped.get(pos))
    }

    /// A win proof for the side to move at `pos`, with its certificate (the
    /// ranks fall with every move, so following it cannot circle), within
    /// twenty times the oracle's budget; its moves join the strategies the
    /// player follows. Tried once a game: a failure is not asked again.
    fn prove_win(&mut self, pos: &Position) -> Option<Move> {
        if self.proof_failed {
            return None;
        }
        let mut solver = ThresholdSolver::new(self.tb, Some(Box::new(Hce::new(HceWeights::default()))));
        solver.set_rules(self.oracle.rules());
        solver.want_certificates(true);
        // Leaves only where the tables give distances: from there the
        // distances make progress; a win/draw/loss table leaf would not.
        solver.set_leaf_pieces(Some(self.tb.and_then(|t| t.coverage(Kind::Distance)).unwrap_or(0)));
        let b = self.oracle.budget();
        let budget = Budget { time: b.time.map(|t| t * 20), nodes: b.nodes.map(|n| n * 20), ..b };
        match solver.solve(pos, Goal::wins_of(pos.side_to_move()), &budget, &mut |_| {}) {
            Ok(r) if r.outcome == Outcome::Proven && r.certificate.is_some() => {
                self.proofs.add(r.certificate.as_ref().expect("checked"));
                self.proofs.get(pos).map(|(m, _)| m)
            }
            _ => {
                self.proof_failed = true;
                None
            }
        }
    }

    /// Under the game's no-progress rule (see [`rule_value_of`]): whether
    /// `mv` keeps a win the rule allows, and the plies to the next progress
    /// move (1 when it is one); else `(false, MAX)` for every move alike.
    fn rule_progress(&self, game: &Game, mv: Move) -> (bool, std::cmp::Reverse<u32>) {
        match self.tb.and_then(|tb| rule_value_of(tb, game, mv)) {
            Some(Dtz::Win(plies)) => (true, std::cmp::Reverse(plies)),
            _ => (false, std::cmp::Reverse(u32::MAX)),
        }
    }

    /// How much a winning move advances the win (larger is better): a move
    /// that ends the game; one that keeps the win under the no-progress rule
    /// with the fewest plies to the next progress move (where the dtz tables
    /// know); the fewest plies to the end (distance tables); then captures
    /// and forward moves, a position not seen in the game, the most
    /// captures.
    fn progress(
        &self,
        game: &Game,
        mv: Move,
    ) -> (bool, (bool, std::cmp::Reverse<u32>), std::cmp::Reverse<u32>, bool, bool, usize, bool) {
        let pos = game.position();
        let child = pos.play(mv);
        let ends = child.is_lost_in(game.rules());
        let rule = self.rule_progress(game, mv);
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
        // Captures and forward moves never come back: a win kept by them
        // cannot circle, where sideways moves can (a repetition draws).
        let irreversible = mv.jumps() > 0 || forward;
        (ends, rule, std::cmp::Reverse(distance), irreversible, fresh, mv.jumps(), forward)
    }

    /// One of `moves`, which all keep `kept` (for the mover), by the
    /// player's [`Choosing`]; `preferred` wins ties.
    fn pick(&self, pos: &Position, moves: &[Move], kept: Value, preferred: Option<Move>, rng: &mut impl Rng) -> Move {
        if moves.len() == 1 {
            return moves[0];
        }
        if self.choosing == Choosing::Uniform {
            return *moves.choose(rng).expect("moves is not empty");
        }
        let shares: Vec<f64> = moves.iter().map(|&m| self.trap_share(pos, m, kept)).collect();
        let best = shares.iter().copied().fold(f64::MIN, f64::max);
        let ties: Vec<Move> = moves.iter().zip(&shares).filter(|(_, s)| **s == best).map(|(m, _)| *m).collect();
        match preferred.filter(|p| ties.contains(p)) {
            Some(p) => p,
            None => *ties.choose(rng).expect("a best move"),
        }
    }

    /// After `mv` (which keeps `kept` for the mover of `pos`), the share
    /// of the opponent's replies known to hand the mover more than `kept`:
    /// a win when `kept` is a draw, at least a draw when it is a loss.
    /// Known means without a search (the end, the tables, the stores), so
    /// the rule costs a probe per reply; unknown replies count as holding.
    pub(crate) fn trap_share(&self, pos: &Position, mv: Move, kept: Value) -> f64 {
        alq_oracle::trap_share(pos, mv, kept, self.oracle.rules(), |after| {
            self.oracle.known(after).ok().flatten().map(|(v, _)| v)
        })
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
        if let [only] = game.legal_moves().as_slice() {
            // Forced: nothing to ask.
            return Some(Choice { mv: *only, score: None });
        }
        let started = std::time::Instant::now();
        // Capped: the moves share the oracle's budget (the cap), else each has it whole.
        let asked =
            if self.move_cap.is_some() { self.oracle.move_values(&pos) } else { self.oracle.move_values_each(&pos) };
        let values: Vec<(Move, Value)> = match asked {
            Ok(v) => v.into_iter().map(|(m, a)| (m, a.value)).collect(),
            Err(e) => {
                eprintln!("perfect: the oracle failed ({e}); searching instead");
                game.legal_moves().iter().map(|&m| (m, Value::Unknown)).collect()
            }
        };
        if values.is_empty() {
            return None;
        }
        let limits = match self.move_cap {
            // The fallback search gets what the questions left of the cap.
            Some(cap) => Limits {
                nodes: None,
                depth: None,
                movetime: Some(cap.saturating_sub(started.elapsed()).max(Duration::from_millis(1))),
            },
            None => limits,
        };
        self.decide(game, values, self.move_cap.is_some(), rng, searcher, limits)
    }

    /// The choice from the values of every move (`retried`: asked a second
    /// time, longer, already).
    fn decide(
        &mut self,
        game: &Game,
        mut values: Vec<(Move, Value)>,
        retried: bool,
        rng: &mut impl Rng,
        searcher: &mut Searcher<Box<dyn Evaluator>>,
        limits: Limits,
    ) -> Option<Choice> {
        let pos = game.position();
        let strategy = self.strategy_move(&pos).filter(|(m, _)| values.iter().any(|(x, _)| x == m));
        if let Some((mv, true)) = strategy {
            // A win proof's move: its ranks fall with every move, so the
            // win cannot circle.
            return Some(Choice { mv, score: None });
        }
        let wins: Vec<Move> = values.iter().filter(|(_, v)| *v == Value::Win).map(|(m, _)| *m).collect();
        let distances = self.tb.and_then(|t| t.coverage(Kind::Distance)).unwrap_or(0);
        if !wins.is_empty() && pos.occupied().count() > distances && self.move_cap.is_none() {
            // Won beyond the distance tables: a proof with ranks down to
            // them, so that the win does not circle (stores and
            // win/draw/loss tables say only "won", not how).
            if let Some(mv) = self.prove_win(&pos) {
                return Some(Choice { mv, score: None });
            }
        }
        if let Some(&mv) = wins.iter().max_by_key(|&&m| self.progress(game, m)) {
            return Some(Choice { mv, score: None });
        }
        let mut holds: Vec<Move> =
            values.iter().filter(|(_, v)| matches!(v, Value::Draw | Value::AtLeastDraw)).map(|(m, _)| *m).collect();
        let drawing = strategy.map(|(m, _)| m);
        if let Some(m) = drawing.filter(|m| !holds.contains(m)) {
            holds.push(m);
        }
        if !holds.is_empty() {
            return Some(Choice { mv: self.pick(&pos, &holds, Value::Draw, drawing, rng), score: None });
        }
        if values.iter().all(|(_, v)| *v == Value::Loss) {
            let all: Vec<Move> = values.iter().map(|(m, _)| *m).collect();
            return Some(Choice { mv: self.pick(&pos, &all, Value::Loss, None, rng), score: None });
        }
        // Nothing known to hold: ask once more, ten times longer, about the
        // position and the moves still open, then search among the moves
        // not proven lost
        // (all of them when every move loses).
        if !retried {
            // The position's own proof settles a move that keeps its value
            // (its graph holds the answers), often faster than the moves'
            // questions one by one.
            let longer = Budget { time: self.oracle.budget().time.map(|t| t * 10), ..self.oracle.budget() };
            let _ = self.oracle.value_within(&pos, longer);
            let mut changed = false;
            for (mv, value) in values.iter_mut().filter(|(_, v)| !matches!(v, Value::Loss | Value::Win)) {
                let child = pos.play(*mv);
                let now = match self.oracle.known(&child) {
                    Ok(Some((v, _))) => Some(v),
                    _ => self.oracle.value_within(&child, longer).ok().map(|a| a.value),
                };
                if let Some(v) = now.map(Value::for_other_side) {
                    changed |= v != *value;
                    *value = v;
                }
            }
            if changed {
                return self.decide(game, values, true, rng, searcher, limits);
            }
        }
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
