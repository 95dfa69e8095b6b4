//! # alq-oracle
//!
//! The exact value of a position for its side to move: `win`, `draw` or
//! `loss`; a one-sided bound (`≥draw`: the mover does not lose, `≤draw`: the
//! mover does not win) when only one of the two deciding questions was
//! settled; or `unknown` when the budget ran out. Never a guess. Values mean
//! what the tables and the solver mean: the value of the infinite game
//! (repetition and no-progress rules of games are not part of it).
//!
//! An [`Oracle`] asks, in this order, and says which answered ([`Source`]):
//! 1. the position itself: no legal move is a loss (`end`);
//! 2. the endgame tables, any kind, for positions they cover (`table`);
//! 3. what is proven already: by a checked certificate (`proof`: the
//!    shipped ones, and any given with [`Oracle::read_certificate`]); by
//!    searches, without a certificate (`store`: the shipped opening tree's
//!    and atlas's values, the user's stores, everything this oracle settled
//!    since);
//! 4. threshold searches of the two win questions that decide the value
//!    ("does the mover win?", "does the opponent win?"), sharing what they
//!    prove, within the oracle's [`Budget`] (`search`); a stored bound has
//!    its open question searched too (unless
//!    [`Oracle::set_settle_bounds`] says not to), keeping the store as
//!    its source when the search adds nothing.
//!
//! What a search settles (every position of its graph whose question it
//! answered, not only the root) is kept for later questions and, with
//! [`Oracle::use_store`], written back to the user's store after each
//! search: merged with the file as it is then, atomically.
//!
//! An oracle is `Sync`: threads may share it (searches take turns, and a
//! store answer waits for a running search; end and table answers never
//! wait).
//!
//! ```
//! use alq_engine::{Hce, Position};
//! use alq_oracle::{Oracle, Source, Value};
//! use alq_solver::Budget;
//!
//! let oracle = Oracle::new(alq_engine::RuleSet::BrainKing, None, Box::new(Hce::new(alq_engine::HceWeights::default())), Budget::nodes(10_000));
//! // White's last piece can still jump Black's: White to move wins.
//! let pos: Position = "...../...../..B../..W../..... w".parse().unwrap();
//! let answer = oracle.value(&pos).unwrap();
//! assert_eq!((answer.value, answer.source), (Value::Win, Source::Search));
//! // Asked again, the answer is stored.
//! assert_eq!(oracle.value(&pos).unwrap().source, Source::Store);
//! ```

pub mod atlas;
pub mod atlas_certificate;
pub mod label;
mod shipped;
pub mod tried;
mod value;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, RwLock};
use std::time::{Duration, Instant, SystemTime};

use alq_engine::{Evaluator, Move, Position, RuleSet, Side};
use alq_solver::{Budget, Goal, Outcome, ProvenStore, SolveError, ThresholdSolver};
use alq_tablebase::{Tablebase, TbError};
use thiserror::Error;

pub use shipped::{
    atlas_certificates, shipped_atlas, shipped_certificates, shipped_proven, shipped_store, ATLAS_CERTIFICATES,
    ATLAS_CERTIFIED_DEPTH, ATLAS_STORE, SHIPPED_STORE, SHIPPED_TEXT,
};
pub use value::{trap_share, Source, Value};

/// Why the oracle could not answer. File errors name the file.
#[derive(Debug, Error)]
pub enum OracleError {
    #[error(transparent)]
    Solve(#[from] SolveError),
    #[error(transparent)]
    Tables(#[from] TbError),
    /// A store of another rule set.
    #[error("{}: a store of the {found} rules, not {expected}", path.display())]
    ForeignStore { path: PathBuf, found: RuleSet, expected: RuleSet },
    /// A store that contradicts what the oracle knows.
    #[error("{}: {source}", path.display())]
    StoreContradiction { path: PathBuf, source: SolveError },
    /// The log of searches that left positions open.
    #[error(transparent)]
    Tried(#[from] tried::TriedError),
}

/// An answer: the value for the side to move, where it came from, and what
/// finding it cost.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Answer {
    pub value: Value,
    pub source: Source,
    /// Positions the searches of this question expanded (0 unless
    /// `source` is `search`, or a search ran and left the value unknown).
    pub nodes: u64,
    pub elapsed: Duration,
}

/// The oracle: see the crate documentation.
pub struct Oracle<'a> {
    rules: RuleSet,
    tb: Option<&'a Tablebase>,
    budget: Budget,
    solver: Mutex<ThresholdSolver<'a>>,
    /// What checked certificates prove (answered with source `proof`; the
    /// solver's store holds it too).
    certified: RwLock<ProvenStore>,
    /// The user's store: read at [`Oracle::use_store`], written after every
    /// search that settled something new.
    store_file: Option<PathBuf>,
    /// Whether searches settled answers the user's store does not hold yet.
    unsaved: AtomicBool,
    /// The store file as this oracle last wrote it (modified time, length)
    /// and when: a file nobody changed since is not read again to merge.
    saved: Mutex<Option<(SystemTime, u64, Instant)>>,
    /// Whether a stored bound (`≥draw`, `≤draw`) is searched further for
    /// the exact value (the default), or answered as it is.
    settle_bounds: bool,
    /// How old the last write of the user's store must be before a search
    /// writes it again ([`SAVE_EVERY`] unless set).
    save_every: Duration,
}

/// Held while a store file is read, merged and written, so that oracles of
/// one process sharing a file never drop each other's answers.
static SAVING: Mutex<()> = Mutex::new(());

/// After a search, the user's store is written when the last write is at
/// least this old (and always when the oracle is dropped, or by
/// [`Oracle::save`]): a large store takes a second or more to write.
pub const SAVE_EVERY: Duration = Duration::from_secs(10);

impl<'a> Oracle<'a> {
    /// An oracle under `rules` over the tables `tb` (which must be of the
    /// same rules), whose searches are guided by `eval` and each question
    /// may spend `budget` (shared by its two searches).
    pub fn new(rules: RuleSet, tb: Option<&'a Tablebase>, eval: Box<dyn Evaluator>, budget: Budget) -> Oracle<'a> {
        let mut solver = ThresholdSolver::new(tb, Some(eval));
        solver.set_rules(rules);
        Oracle {
            rules,
            tb,
            budget,
            solver: Mutex::new(solver),
            certified: RwLock::new(ProvenStore::new(rules)),
            store_file: None,
            unsaved: AtomicBool::new(false),
            saved: Mutex::new(None),
            settle_bounds: true,
            save_every: SAVE_EVERY,
        }
    }

    pub fn rules(&self) -> RuleSet {
        self.rules
    }

    pub fn budget(&self) -> Budget {
        self.budget
    }

    /// Whether a bound found in a store is searched further for the exact
    /// value within the budget (`true`, the default), or answered at once
    /// (a player that needs only to know which moves hold).
    pub fn set_settle_bounds(&mut self, settle: bool) {
        self.settle_bounds = settle;
    }

    /// Each question's budget from now on.
    pub fn set_budget(&mut self, budget: Budget) {
        self.budget = budget;
    }

    /// Reads a proven-position store (the shipped one, or a cluster's) as
    /// known answers, without ever writing it; returns its positions. A
    /// certificate file (`alq solve --certificate`, plain or gzip) is read
    /// by [`Oracle::read_certificate`]: checked first, answered as `proof`.
    ///
    /// # Errors
    ///
    /// A missing, damaged or truncated file, a store of other rules, or one
    /// that contradicts what the oracle knows, each naming the file; a
    /// certificate that does not hold.
    pub fn read_store(&self, path: &Path) -> Result<usize, OracleError> {
        if alq_solver::certificate::is_certificate_file(path) {
            return Ok(self.read_certificate(path)?.0);
        }
        let store = self.load_own(path)?;
        self.add_known(path, &store)?;
        Ok(store.entries.len())
    }

    /// Takes in the shipped proofs ([`shipped_store`]: what the shipped
    /// certificates prove) and the shipped opening atlas
    /// ([`shipped_atlas`]); BrainKing's rules only, nothing for others.
    /// Returns the positions they settle a question of (a position in both
    /// counts twice).
    ///
    /// # Errors
    ///
    /// A shipped proof contradicting what the oracle knows.
    pub fn read_shipped(&self) -> Result<usize, OracleError> {
        if self.rules != RuleSet::BrainKing {
            return Ok(0);
        }
        let (store, atlas) = (shipped_store(), shipped_atlas());
        self.add_known(Path::new("the shipped proofs"), store)?;
        self.add_known(Path::new("the shipped atlas"), atlas)?;
        self.add_certified(shipped_proven());
        Ok(store.entries.len() + atlas.entries.len())
    }

    /// Reads a certificate, checks it (its table leaves over the oracle's
    /// tables when they hold them, else every other step), and takes what
    /// it proves as known: answered with source `proof` when its table
    /// leaves were probed (or it has none), else `store`. Returns the
    /// positions it settles a question of and whether its leaves were
    /// probed.
    ///
    /// # Errors
    ///
    /// An unreadable file, a certificate that does not hold or of other
    /// rules, or one contradicting what the oracle knows, each naming the
    /// file.
    pub fn read_certificate(&self, path: &Path) -> Result<(usize, bool), OracleError> {
        let tables = self.tb.filter(|t| t.rules() == self.rules);
        let (cert, report) = alq_solver::Certificate::read_checked(path, tables)?;
        if cert.rules != self.rules {
            return Err(OracleError::ForeignStore {
                path: path.to_path_buf(),
                found: cert.rules,
                expected: self.rules,
            });
        }
        let store = ProvenStore::from_certificate(&cert);
        self.add_known(path, &store)?;
        let probed = report.leaves_checked();
        if probed {
            self.add_certified(&store);
        }
        Ok((store.entries.len(), probed))
    }

    /// Adds `store`'s answers to what certificates prove (already known to
    /// the solver, so no contradiction can arise here).
    fn add_certified(&self, store: &ProvenStore) {
        let mut certified = self.certified.write().unwrap_or_else(|p| p.into_inner());
        // Both were merged into the solver's store without contradiction.
        let _ = certified.merge(store);
    }

    /// The source of a stored `value` of `pos`: `proof` when checked
    /// certificates alone give that value, `store` otherwise.
    fn stored_source(&self, pos: &Position, value: Value) -> Source {
        let certified = self.certified.read().unwrap_or_else(|p| p.into_inner());
        let mover = pos.side_to_move();
        let proven = Value::from_questions(certified.answer(pos, mover), certified.answer(pos, mover.opponent()));
        if proven == value {
            Source::Proof
        } else {
            Source::Store
        }
    }

    /// Reads the store at `path`, refusing one of other rules.
    fn load_own(&self, path: &Path) -> Result<ProvenStore, OracleError> {
        let store = ProvenStore::load(path)?;
        if store.rules != self.rules {
            return Err(OracleError::ForeignStore {
                path: path.to_path_buf(),
                found: store.rules,
                expected: self.rules,
            });
        }
        Ok(store)
    }

    /// Takes `store`'s answers as known; a contradiction names `from`.
    fn add_known(&self, from: &Path, store: &ProvenStore) -> Result<(), OracleError> {
        self.lock()
            .add_store(store)
            .map_err(|source| OracleError::StoreContradiction { path: from.to_path_buf(), source })
    }

    /// The user's store: read now if it exists, and from now on written
    /// back (merged, atomically) when searches settle something, at most
    /// every [`SAVE_EVERY`] and when the oracle is dropped.
    /// Returns the positions read.
    ///
    /// # Errors
    ///
    /// As [`Oracle::read_store`] for an existing file.
    pub fn use_store(&mut self, path: &Path) -> Result<usize, OracleError> {
        if alq_solver::certificate::is_certificate_file(path) {
            // Written back as a store, it would be overwritten: refused.
            return Err(OracleError::Solve(SolveError::BadStore {
                path: path.to_path_buf(),
                reason: "a certificate, not a store: give it to --read-store, which checks it".into(),
            }));
        }
        let read = if path.exists() { self.read_store(path)? } else { 0 };
        self.store_file = Some(path.to_path_buf());
        Ok(read)
    }

    /// The most pieces of the tables what the oracle knows may lean on
    /// (its own and the stores' it read; `None` when a store did not say).
    pub fn table_pieces(&self) -> Option<u32> {
        self.lock().store_tables()
    }

    /// Positions whose win questions the oracle knows (stores read and
    /// searches since).
    pub fn known_positions(&self) -> usize {
        self.lock().store_len()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, ThresholdSolver<'a>> {
        // A search that panicked leaves nothing half-written that later
        // questions could misread: its store holds only settled answers.
        self.solver.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// What is known of `pos` without searching: the end, the tables, the
    /// stores (`None`: a search would be needed). Never waits for more than
    /// a running search's hold on the store.
    ///
    /// # Errors
    ///
    /// A table that cannot be read.
    pub fn known(&self, pos: &Position) -> Result<Option<(Value, Source)>, OracleError> {
        if let Some(answer) = self.end_or_table(pos)? {
            return Ok(Some(answer));
        }
        let value = self.stored(&self.lock(), pos);
        Ok((value != Value::Unknown).then(|| (value, self.stored_source(pos, value))))
    }

    /// The answer of the end or of the tables, which never wait.
    fn end_or_table(&self, pos: &Position) -> Result<Option<(Value, Source)>, OracleError> {
        if pos.is_lost_in(self.rules) {
            return Ok(Some((Value::Loss, Source::End)));
        }
        if let Some(tb) = self.tb {
            if pos.occupied().count() <= tb.wdl_max_pieces() {
                return Ok(Some((Value::from(tb.probe_wdl(pos)?.0), Source::Table)));
            }
        }
        Ok(None)
    }

    /// As [`Oracle::known`], but never waits: `Ok(None)` when the store is
    /// held by a running search (ask again later), `Ok(Some(None))` when a
    /// search would be needed. For servers that must answer at once.
    ///
    /// # Errors
    ///
    /// A table that cannot be read.
    pub fn known_now(&self, pos: &Position) -> Result<Option<Option<(Value, Source)>>, OracleError> {
        if let Some(answer) = self.end_or_table(pos)? {
            return Ok(Some(Some(answer)));
        }
        let solver = match self.solver.try_lock() {
            Ok(guard) => guard,
            Err(std::sync::TryLockError::Poisoned(p)) => p.into_inner(),
            Err(std::sync::TryLockError::WouldBlock) => return Ok(None),
        };
        let value = self.stored(&solver, pos);
        drop(solver);
        Ok(Some((value != Value::Unknown).then(|| (value, self.stored_source(pos, value)))))
    }

    /// The value the stored answers of `solver` give `pos`.
    fn stored(&self, solver: &ThresholdSolver<'_>, pos: &Position) -> Value {
        let mover = pos.side_to_move();
        Value::from_questions(solver.stored(pos, mover), solver.stored(pos, mover.opponent()))
    }

    /// The value of `pos` for its side to move under the 60-ply no-progress
    /// rule with the count at 0, where the oracle's tables hold
    /// distance-to-progress tables that cover it (`alq tb build --kind
    /// dtz`); `None` elsewhere. See [`alq_tablebase::Dtz`] (`at_count` for a
    /// game's count).
    pub fn rule_value(&self, pos: &Position) -> Option<alq_tablebase::Dtz> {
        self.tb.and_then(|t| t.probe_dtz(pos).ok())
    }

    /// The value of `pos` for its side to move.
    ///
    /// # Errors
    ///
    /// A table that cannot be read, or a store that cannot be written.
    pub fn value(&self, pos: &Position) -> Result<Answer, OracleError> {
        self.value_within(pos, self.budget)
    }

    /// As [`Oracle::value`], with `budget` for this question instead of the
    /// oracle's (a player asking again, longer, before it gives up).
    ///
    /// # Errors
    ///
    /// As [`Oracle::value`].
    pub fn value_within(&self, pos: &Position, budget: Budget) -> Result<Answer, OracleError> {
        let start = Instant::now();
        let known = self.known(pos)?;
        if let Some((value, source)) = known.filter(|(v, _)| v.is_exact() || !self.settle_bounds) {
            return Ok(Answer { value, source, nodes: 0, elapsed: start.elapsed() });
        }
        // Nothing known, or a bound: search what is open (a stored answer
        // is not asked again).
        let (value, nodes, settled) = self.search(pos, start, budget)?;
        if settled {
            self.unsaved.store(true, Ordering::SeqCst);
            self.save_if_due()?;
        }
        let source = match (value, known) {
            (Value::Unknown, _) => Source::None,
            // The search added nothing to the stored bound.
            (v, Some((known, source))) if v == known => source,
            _ => Source::Search,
        };
        Ok(Answer { value, source, nodes, elapsed: start.elapsed() })
    }

    /// The two win questions within the budget, the mover's first (with
    /// half of it), then the opponent's, then the mover's again with what
    /// is left when only the opponent's was settled. Returns the value,
    /// the nodes spent and whether anything new was settled.
    fn search(&self, pos: &Position, start: Instant, budget: Budget) -> Result<(Value, u64, bool), OracleError> {
        let mut solver = self.lock();
        let before = solver.store_len();
        let mover = pos.side_to_move();
        let mut nodes = 0;
        // A search that settles its question adds an answer, perhaps to a
        // position already stored with the other one (the count stays).
        let mut answered = false;
        // `parts`: the question takes 1 / parts of what is left.
        let mut ask = |solver: &mut ThresholdSolver<'a>, side: Side, parts: usize| -> Result<Outcome, OracleError> {
            if let Some(known) = solver.stored(pos, side) {
                return Ok(if known { Outcome::Proven } else { Outcome::Disproven });
            }
            let budget = budget.share(nodes, start, parts);
            if budget.is_spent() {
                return Ok(Outcome::Unknown);
            }
            let result = solver.solve(pos, Goal::wins_of(side), &budget, &mut |_| {})?;
            nodes += result.nodes;
            answered |= result.outcome != Outcome::Unknown;
            Ok(result.outcome)
        };
        let mut ours = ask(&mut solver, mover, 2)?;
        let mut theirs = Outcome::Unknown;
        if ours != Outcome::Proven {
            theirs = ask(&mut solver, mover.opponent(), 1)?;
            if ours == Outcome::Unknown && theirs == Outcome::Disproven {
                ours = ask(&mut solver, mover, 1)?;
            }
        }
        let settled = |o: Outcome| match o {
            Outcome::Proven => Some(true),
            Outcome::Disproven => Some(false),
            Outcome::Unknown => None,
        };
        let value = Value::from_questions(settled(ours), settled(theirs));
        let grew = solver.store_len() > before;
        Ok((value, nodes, grew || answered))
    }

    /// Every legal move of `pos` with the value it gives the side that
    /// plays it (so a best move's value is the position's), in the order of
    /// `alq moves` (sorted as text), all within the oracle's budget: each
    /// open move is asked with an equal share of what is left (time or
    /// nodes one move leaves over passes to the next).
    ///
    /// # Errors
    ///
    /// As [`Oracle::value`].
    pub fn move_values(&self, pos: &Position) -> Result<Vec<(Move, Answer)>, OracleError> {
        self.move_values_within(pos, self.budget)
    }

    /// As [`Oracle::move_values`], every move with the whole of the
    /// oracle's budget for itself (a player whose budget is per position
    /// asked: up to one budget for each move).
    ///
    /// # Errors
    ///
    /// As [`Oracle::value`].
    pub fn move_values_each(&self, pos: &Position) -> Result<Vec<(Move, Answer)>, OracleError> {
        self.sorted_moves(pos).into_iter().map(|mv| self.move_answer(pos, mv, self.budget)).collect()
    }

    /// The value of `pos` and of each of its moves (as
    /// [`Oracle::move_values`]), all within the oracle's budget: the
    /// position is asked first with half of it (its proof often settles
    /// moves on the way), then the moves share what is left.
    ///
    /// # Errors
    ///
    /// As [`Oracle::value`].
    pub fn value_and_moves(&self, pos: &Position) -> Result<(Answer, Vec<(Move, Answer)>), OracleError> {
        let start = Instant::now();
        let value = self.value_within(pos, self.budget.share(0, start, 2))?;
        let left = self.budget.share(value.nodes, start, 1);
        Ok((value, self.move_values_within(pos, left)?))
    }

    /// Every move's value, all within `budget` (see [`Oracle::move_values`]).
    fn move_values_within(&self, pos: &Position, budget: Budget) -> Result<Vec<(Move, Answer)>, OracleError> {
        let start = Instant::now();
        let moves = self.sorted_moves(pos);
        let mut nodes = 0;
        let mut out = Vec::with_capacity(moves.len());
        for (i, &mv) in moves.iter().enumerate() {
            let answer = self.move_answer(pos, mv, budget.share(nodes, start, moves.len() - i))?;
            nodes += answer.1.nodes;
            out.push(answer);
        }
        Ok(out)
    }

    fn sorted_moves(&self, pos: &Position) -> Vec<Move> {
        let mut moves: Vec<Move> = pos.legal_moves_in(self.rules).into_iter().collect();
        moves.sort_by_cached_key(|m| m.to_string());
        moves
    }

    /// The value `mv` gives the side that plays it, asked within `budget`.
    fn move_answer(&self, pos: &Position, mv: Move, budget: Budget) -> Result<(Move, Answer), OracleError> {
        let answer = self.value_within(&pos.play(mv), budget)?;
        Ok((mv, Answer { value: answer.value.for_other_side(), ..answer }))
    }

    /// How many positions' answers the oracle keeps at most (50 million by
    /// default); past it, only the positions asked about and those of
    /// [`Oracle::keep_always`].
    pub fn set_max_store(&mut self, positions: usize) {
        self.lock().set_max_store(positions);
    }

    /// Positions (keys) whose answers are kept even when the store is full:
    /// an atlas run's tree, whose positions a search often settles on the
    /// way to another's.
    pub fn keep_always(&mut self, keys: std::sync::Arc<std::collections::HashSet<u64>>) {
        self.lock().keep_always(keys);
    }

    /// How often searches write the user's store at most (a store of
    /// millions of positions takes seconds to merge and write: long runs
    /// write it less often, and lose at most that much work when killed).
    pub fn set_save_every(&mut self, every: Duration) {
        self.save_every = every;
    }

    /// [`Oracle::save`] when the last write is at least [`SAVE_EVERY`] old
    /// (or there was none).
    ///
    /// # Errors
    ///
    /// As [`Oracle::save`].
    pub fn save_if_due(&self) -> Result<(), OracleError> {
        let due = self.saved_lock().is_none_or(|(_, _, at)| at.elapsed() >= self.save_every);
        if due {
            self.save()?;
        }
        Ok(())
    }

    fn saved_lock(&self) -> std::sync::MutexGuard<'_, Option<(SystemTime, u64, Instant)>> {
        self.saved.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// [`Oracle::save`] whether or not anything new was settled: the file
    /// then holds everything this oracle knows from its searches and the
    /// file, and exists (empty if need be) afterwards.
    ///
    /// # Errors
    ///
    /// As [`Oracle::save`].
    pub fn save_now(&self) -> Result<(), OracleError> {
        self.unsaved.store(true, Ordering::SeqCst);
        self.save()
    }

    /// Writes what the oracle settled to the user's store, merged with the
    /// file as it is now (another process may have added to it; a file
    /// unchanged since this oracle wrote it is not read again); nothing
    /// without [`Oracle::use_store`] or when nothing new was settled. Runs
    /// by itself after searches at most every [`SAVE_EVERY`], and when the
    /// oracle is dropped.
    ///
    /// # Errors
    ///
    /// The store file cannot be read, merged or written.
    pub fn save(&self) -> Result<(), OracleError> {
        let Some(path) = &self.store_file else { return Ok(()) };
        if !self.unsaved.swap(false, Ordering::SeqCst) {
            return Ok(());
        }
        // The oracles of one run (one per worker thread) share a store file:
        // two read-merge-writes at once would drop the first one's answers.
        let _one_at_a_time = SAVING.lock().unwrap_or_else(|e| e.into_inner());
        let mut saved = self.saved_lock();
        let mut store = self.lock().proven_store();
        let stamp = |p: &Path| std::fs::metadata(p).ok().and_then(|m| Some((m.modified().ok()?, m.len())));
        let unchanged = matches!((stamp(path), *saved), (Some((t, n)), Some((t0, n0, _))) if t == t0 && n == n0);
        if path.exists() && !unchanged {
            let on_disk = self.load_own(path)?;
            store.merge(&on_disk).map_err(|source| OracleError::StoreContradiction { path: path.clone(), source })?;
        }
        let result = store.save(path);
        if result.is_err() {
            self.unsaved.store(true, Ordering::SeqCst);
        }
        result?;
        *saved = stamp(path).map(|(t, n)| (t, n, Instant::now()));
        Ok(())
    }
}

impl Drop for Oracle<'_> {
    fn drop(&mut self) {
        if let Err(e) = self.save() {
            eprintln!("oracle: the store was not written: {e}");
        }
    }
}
