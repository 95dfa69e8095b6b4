//! Search from Python: an `Engine` holding an evaluator, a transposition
//! table and optional endgame tables; `search` returns one result with the
//! GIL released, `analyze` streams the iterations from a worker thread.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use pyo3::prelude::*;

use alq_engine::{
    Evaluator, Game as EngineGame, GameConfig, Iteration, Limits, RuleSet, Score, SearchConfig, Searcher,
};
use alq_play::EvalSpec;
use alq_tablebase::Tablebase as Tables;

use crate::board::{parse_position, Game, Move, Position};
use crate::convert::{Depth, HashMb, Nodes, Seconds, Threads, Wrap};
use crate::tables::{expect_rules, TablesArg};
use crate::{ArgumentError, EvalError, RulesError};

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Engine>()?;
    m.add_class::<SearchResult>()?;
    m.add_class::<Info>()?;
    m.add_class::<Analysis>()?;
    m.add_function(wrap_pyfunction!(search, m)?)?;
    m.add_function(wrap_pyfunction!(analyze, m)?)?;
    Ok(())
}

type BoxSearcher = Searcher<Box<dyn Evaluator>>;

/// `("cp", 35)`, `("win", 12)`, `("loss", 7)` or `("draw", None)`.
fn score_parts(score: Score) -> (&'static str, Option<i64>) {
    match score {
        Score::Cp(cp) => ("cp", Some(cp as i64)),
        Score::Win(d) => ("win", Some(d as i64)),
        Score::Loss(d) => ("loss", Some(d as i64)),
        Score::Draw => ("draw", None),
    }
}

/// The score in pawns for an evaluation (`cp`), `None` for a proven one.
fn pawns_of(kind: &str, value: Option<i64>) -> Option<f64> {
    (kind == "cp").then(|| value.unwrap_or(0) as f64 / 100.0)
}

/// The proven result (`win`, `draw`, `loss`), `None` for an evaluation.
fn value_of(kind: &'static str) -> Option<&'static str> {
    (kind != "cp").then_some(kind)
}

/// What a search found.
#[pyclass(frozen, get_all, module = "alquerque_lab")]
pub struct SearchResult {
    /// `"cp"` (centipawns), `"win"` / `"loss"` (proven, in plies) or `"draw"`.
    score_kind: &'static str,
    /// Centipawns or plies; `None` for a draw.
    score_value: Option<i64>,
    /// The score in pawns (centipawns / 100, a float) when it is an
    /// evaluation; `None` when it is proven.
    pawns: Option<f64>,
    /// `"win"`, `"draw"` or `"loss"` for the side to move when the score is
    /// proven (tables or search to the end); `None` for an evaluation.
    value: Option<&'static str>,
    /// The score as the CLI prints it (`cp 35`, `win 12`, `draw`).
    score: String,
    /// The move to play; `None` when the side to move has no legal move.
    best_move: Option<Move>,
    pv: Vec<Move>,
    depth: u32,
    nodes: u64,
    /// Seconds.
    time: f64,
    /// Nodes per second.
    nps: f64,
    tb_hits: u64,
}

#[pymethods]
impl SearchResult {
    fn __repr__(&self) -> String {
        let best = self.best_move.map_or("none".to_string(), |m| m.mv.to_string());
        format!("SearchResult(best_move='{best}', score='{}', depth={}, nodes={})", self.score, self.depth, self.nodes)
    }
}

fn result_of(r: &alq_engine::SearchResult, rules: RuleSet) -> SearchResult {
    let (kind, value) = score_parts(r.score);
    let time = r.elapsed.as_secs_f64();
    SearchResult {
        score_kind: kind,
        score_value: value,
        pawns: pawns_of(kind, value),
        value: value_of(kind),
        score: r.score.to_string(),
        best_move: r.best.map(|m| Move::new(m, rules)),
        pv: r.pv.iter().map(|&m| Move::new(m, rules)).collect(),
        depth: r.depth,
        nodes: r.nodes,
        time,
        nps: r.nodes as f64 / time.max(1e-9),
        tb_hits: r.tb_hits,
    }
}

/// One completed iteration of an analysis.
#[pyclass(frozen, get_all, module = "alquerque_lab")]
pub struct Info {
    depth: u32,
    score_kind: &'static str,
    score_value: Option<i64>,
    pawns: Option<f64>,
    value: Option<&'static str>,
    score: String,
    nodes: u64,
    time: f64,
    nps: f64,
    pv: Vec<Move>,
    tb_hits: u64,
    /// The line `alq analyze` and the engine protocol print.
    line: String,
}

#[pymethods]
impl Info {
    fn __repr__(&self) -> String {
        format!("Info('{}')", self.line)
    }

    fn __str__(&self) -> String {
        self.line.clone()
    }
}

fn info_of(it: &Iteration, rules: RuleSet) -> Info {
    let (kind, value) = score_parts(it.score);
    let time = it.elapsed.as_secs_f64();
    Info {
        depth: it.depth,
        score_kind: kind,
        score_value: value,
        pawns: pawns_of(kind, value),
        value: value_of(kind),
        score: it.score.to_string(),
        nodes: it.nodes,
        time,
        nps: it.nodes as f64 / time.max(1e-6),
        pv: it.pv.iter().map(|&m| Move::new(m, rules)).collect(),
        tb_hits: it.tb_hits,
        line: alq_play::info_line(it),
    }
}

/// A position to search: a `Position`, a `Game` (its history counts for
/// repetitions) or position text.
#[derive(FromPyObject)]
pub(crate) enum Searchable<'py> {
    #[pyo3(transparent, annotation = "Position")]
    Position(PyRef<'py, Position>),
    #[pyo3(transparent, annotation = "Game")]
    Game(PyRef<'py, Game>),
    #[pyo3(transparent, annotation = "str")]
    Text(String),
}

impl Searchable<'_> {
    pub(crate) fn game(&self, rules: RuleSet) -> PyResult<EngineGame> {
        let game = match self {
            Searchable::Position(p) => EngineGame::new(p.pos, GameConfig::with_rules(p.rules)),
            Searchable::Game(g) => g.game.clone(),
            Searchable::Text(t) => EngineGame::new(parse_position(t)?, GameConfig::with_rules(rules)),
        };
        if game.rules() != rules {
            return Err(RulesError::new_err(format!(
                "the position is under the {} rules, the engine under {} (make the engine with rules={:?})",
                game.rules().name(),
                rules.name(),
                game.rules().name()
            )));
        }
        Ok(game)
    }
}

/// The search limits: at least one of them, each already checked by its
/// type (`Nodes`, `Depth`, `Seconds`).
fn limits(nodes: Option<Nodes>, depth: Option<Depth>, movetime: Option<Seconds>) -> PyResult<Limits> {
    if nodes.is_none() && depth.is_none() && movetime.is_none() {
        return Err(ArgumentError::new_err("give a limit: nodes=N, depth=D or movetime=SECONDS (one or more)"));
    }
    Ok(Limits {
        depth: depth.map(|Depth(d)| d.min(alq_engine::MAX_PLY as u32 - 1)),
        nodes: nodes.map(|Nodes(n)| n),
        movetime: movetime.map(Seconds::duration),
    })
}

/// A searching engine: an evaluator (`"nn"`, the shipped network; `"hce"`,
/// optionally with weights as `"hce@mobility=4"`; or a network file), a
/// transposition table of `hash` MiB kept between searches, optional endgame
/// tables, and `threads` search threads (Lazy SMP; with more than one,
/// searches limited by nodes or depth are no longer reproducible). To
/// search many positions, make one `Engine` and call its `search`: the
/// module's `search()` builds an engine and its hash on every call
/// (1,000-node searches of the start, measured: 0.96 ms a call with the
/// default 64 MiB, 0.20 ms with `hash=1`, 0.15 ms on a kept `Engine`).
#[pyclass(frozen, module = "alquerque_lab")]
pub struct Engine {
    searcher: Arc<Mutex<BoxSearcher>>,
    rules: RuleSet,
    description: String,
}

impl Engine {
    fn build(eval: &str, tb: Option<Arc<Tables>>, threads: usize, hash: usize, rules: RuleSet) -> PyResult<Engine> {
        let spec = EvalSpec::parse(eval).map_err(|e| EvalError::new_err(e.to_string()))?;
        spec.check_rules(rules).map_err(|e| RulesError::new_err(format!("evaluator {eval}: {e}")))?;
        let mut searcher = Searcher::new(spec.build(), SearchConfig { hash_mb: hash.max(1) });
        searcher.set_threads(threads);
        let mut description = spec.describe();
        if let Some(tables) = tb {
            expect_rules(&tables, rules)?;
            description.push_str(&format!(" tb {} (≤ {} pieces)", tables.dir().display(), tables.max_pieces()));
            searcher.set_tables(Some(tables as Arc<dyn alq_engine::EndgameTables>));
        }
        Ok(Engine { searcher: Arc::new(Mutex::new(searcher)), rules, description })
    }

    fn start(&self, position: &Searchable<'_>, limits: Limits) -> PyResult<Analysis> {
        let game = position.game(self.rules)?;
        let stop = Arc::new(AtomicBool::new(false));
        if let Some(over) = finished(&game) {
            return Ok(Analysis {
                rx: Mutex::new(None),
                stop,
                worker: Mutex::new(None),
                result: Arc::new(Mutex::new(Some(over))),
                ended: Arc::new(AtomicBool::new(true)),
                rules: self.rules,
            });
        }
        let searcher = Arc::clone(&self.searcher);
        let (tx, rx) = mpsc::channel();
        let flag = Arc::clone(&stop);
        let result = Arc::new(Mutex::new(None));
        let slot = Arc::clone(&result);
        let ended = Arc::new(AtomicBool::new(false));
        let guard = Ended(Arc::clone(&ended));
        let rules = self.rules;
        let worker = std::thread::spawn(move || {
            let _guard = guard;
            let mut s = searcher.lock().unwrap_or_else(|e| e.into_inner());
            s.set_stop_flag(Some(flag));
            let r = s.search(&game, limits, |it| {
                let _ = tx.send(info_of(it, rules));
            });
            s.set_stop_flag(None);
            // The result is in place before the channel closes, so whoever
            // sees the iterations end finds it.
            *slot.lock().unwrap_or_else(|e| e.into_inner()) = Some(r);
            drop(tx);
        });
        Ok(Analysis { rx: Mutex::new(Some(rx)), stop, worker: Mutex::new(Some(worker)), result, ended, rules })
    }

    /// Searches on a worker thread and waits for it with the GIL released,
    /// checking for Ctrl-C (KeyboardInterrupt stops the search).
    fn run(&self, py: Python<'_>, position: &Searchable<'_>, limits: Limits) -> PyResult<SearchResult> {
        let analysis = self.start(position, limits)?;
        while analysis.__next__(py)?.is_some() {}
        analysis.finish(py);
        analysis.result().ok_or_else(|| pyo3::exceptions::PyRuntimeError::new_err("the search ended without a result"))
    }
}

/// Marks the worker's end, however it ends.
struct Ended(Arc<AtomicBool>);

impl Drop for Ended {
    fn drop(&mut self) {
        self.0.store(true, Ordering::SeqCst);
    }
}

/// The result of searching a finished game: no move, the game's value.
fn finished(game: &EngineGame) -> Option<alq_engine::SearchResult> {
    let outcome = game.outcome()?;
    let score = match outcome.winner {
        None => Score::Draw,
        Some(_) => Score::Loss(0),
    };
    let r = alq_engine::SearchResult {
        best: None,
        score,
        depth: 0,
        nodes: 0,
        elapsed: Duration::ZERO,
        pv: Vec::new(),
        tb_hits: 0,
    };
    Some(r)
}

#[pymethods]
impl Engine {
    #[new]
    #[pyo3(
        signature = (*, eval = "nn", tb = None, threads = Threads(1), hash = HashMb(64), rules = Wrap::BRAINKING),
        text_signature = "(*, eval=\"nn\", tb=None, threads=1, hash=64, rules=\"brainking\")"
    )]
    fn py_new(
        py: Python<'_>,
        eval: &str,
        tb: Option<TablesArg<'_>>,
        threads: Threads,
        hash: HashMb,
        rules: Wrap<RuleSet>,
    ) -> PyResult<Engine> {
        let tables = tb.map(|t| t.open(py)).transpose()?;
        Engine::build(eval, tables, threads.0, hash.0, rules.0)
    }

    fn __repr__(&self) -> String {
        format!("Engine('{}', rules='{}')", self.description, self.rules.name())
    }

    #[getter]
    fn rules(&self) -> &'static str {
        self.rules.name()
    }

    /// The evaluator (and tables) as matches and records name them.
    #[getter]
    fn description(&self) -> String {
        self.description.clone()
    }

    /// Searches with the GIL released. Limits: `nodes`, `depth`, `movetime`
    /// (seconds); the search stops at the first one reached.
    #[pyo3(signature = (position, *, nodes = None, depth = None, movetime = None))]
    fn search(
        &self,
        py: Python<'_>,
        position: Searchable<'_>,
        nodes: Option<Nodes>,
        depth: Option<Depth>,
        movetime: Option<Seconds>,
    ) -> PyResult<SearchResult> {
        self.run(py, &position, limits(nodes, depth, movetime)?)
    }

    /// Starts a search in the background and returns an iterator over its
    /// iterations (`Info`); `.result` holds the final result once the
    /// iterator is exhausted, `.stop()` ends it early.
    #[pyo3(signature = (position, *, nodes = None, depth = None, movetime = None))]
    fn analyze(
        &self,
        position: Searchable<'_>,
        nodes: Option<Nodes>,
        depth: Option<Depth>,
        movetime: Option<Seconds>,
    ) -> PyResult<Analysis> {
        self.start(&position, limits(nodes, depth, movetime)?)
    }

    /// Forgets the transposition table (a new game).
    fn clear(&self, py: Python<'_>) {
        let searcher = Arc::clone(&self.searcher);
        py.detach(move || searcher.lock().unwrap_or_else(|e| e.into_inner()).clear());
    }
}

/// A running analysis: iterate for `Info` per completed depth.
#[pyclass(frozen, module = "alquerque_lab")]
pub struct Analysis {
    rx: Mutex<Option<Receiver<Info>>>,
    stop: Arc<AtomicBool>,
    worker: Mutex<Option<JoinHandle<()>>>,
    result: Arc<Mutex<Option<alq_engine::SearchResult>>>,
    /// Set when the worker has ended (also when it failed).
    ended: Arc<AtomicBool>,
    rules: RuleSet,
}

impl Analysis {
    /// Waits for the worker (GIL released) and keeps its result.
    fn finish(&self, py: Python<'_>) {
        let handle = self.worker.lock().unwrap_or_else(|e| e.into_inner()).take();
        if let Some(handle) = handle {
            let _ = py.detach(move || handle.join());
        }
        // Another thread may be joining the worker: wait for the result.
        py.detach(|| {
            while self.result.lock().unwrap_or_else(|e| e.into_inner()).is_none() && !self.ended.load(Ordering::SeqCst)
            {
                std::thread::sleep(Duration::from_millis(1));
            }
        });
        self.rx.lock().unwrap_or_else(|e| e.into_inner()).take();
    }
}

#[pymethods]
impl Analysis {
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__(&self, py: Python<'_>) -> PyResult<Option<Info>> {
        loop {
            let received = py.detach(|| {
                let guard = self.rx.lock().unwrap_or_else(|e| e.into_inner());
                guard.as_ref().map(|rx| rx.recv_timeout(Duration::from_millis(50)))
            });
            let Some(received) = received else { return Ok(None) };
            match received {
                Ok(info) => return Ok(Some(info)),
                Err(RecvTimeoutError::Disconnected) => {
                    self.finish(py);
                    return Ok(None);
                }
                Err(RecvTimeoutError::Timeout) => {
                    if let Err(e) = py.check_signals() {
                        self.stop.store(true, Ordering::Relaxed);
                        self.finish(py);
                        return Err(e);
                    }
                }
            }
        }
    }

    /// Stops the search; its result (best so far) is then in `.result`.
    fn stop(&self, py: Python<'_>) {
        self.stop.store(true, Ordering::Relaxed);
        self.finish(py);
    }

    /// The final result once the search has ended (else `None`).
    #[getter]
    fn result(&self) -> Option<SearchResult> {
        self.result.lock().unwrap_or_else(|e| e.into_inner()).as_ref().map(|r| result_of(r, self.rules))
    }
}

impl Drop for Analysis {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

/// One search with a fresh engine and hash (see `Engine` for the
/// arguments; for many searches make one `Engine`, which keeps its hash).
#[pyfunction]
#[pyo3(
    signature = (position, *, nodes = None, depth = None, movetime = None, eval = "nn", tb = None, threads = Threads(1), hash = HashMb(64), rules = None),
    text_signature = "(position, *, nodes=None, depth=None, movetime=None, eval=\"nn\", tb=None, threads=1, hash=64, rules=None)"
)]
#[allow(clippy::too_many_arguments)]
fn search(
    py: Python<'_>,
    position: Searchable<'_>,
    nodes: Option<Nodes>,
    depth: Option<Depth>,
    movetime: Option<Seconds>,
    eval: &str,
    tb: Option<TablesArg<'_>>,
    threads: Threads,
    hash: HashMb,
    rules: Option<Wrap<RuleSet>>,
) -> PyResult<SearchResult> {
    let rules = rules_of(&position, rules);
    let limits = limits(nodes, depth, movetime)?;
    let tables = tb.map(|t| t.open(py)).transpose()?;
    Engine::build(eval, tables, threads.0, hash.0, rules)?.run(py, &position, limits)
}

/// An analysis with a fresh engine (see `Engine.analyze`).
#[pyfunction]
#[pyo3(
    signature = (position, *, nodes = None, depth = None, movetime = None, eval = "nn", tb = None, threads = Threads(1), hash = HashMb(64), rules = None),
    text_signature = "(position, *, nodes=None, depth=None, movetime=None, eval=\"nn\", tb=None, threads=1, hash=64, rules=None)"
)]
#[allow(clippy::too_many_arguments)]
fn analyze(
    py: Python<'_>,
    position: Searchable<'_>,
    nodes: Option<Nodes>,
    depth: Option<Depth>,
    movetime: Option<Seconds>,
    eval: &str,
    tb: Option<TablesArg<'_>>,
    threads: Threads,
    hash: HashMb,
    rules: Option<Wrap<RuleSet>>,
) -> PyResult<Analysis> {
    let rules = rules_of(&position, rules);
    let limits = limits(nodes, depth, movetime)?;
    let tables = tb.map(|t| t.open(py)).transpose()?;
    Engine::build(eval, tables, threads.0, hash.0, rules)?.start(&position, limits)
}

/// The rule set: given, or the position's / game's own.
fn rules_of(position: &Searchable<'_>, rules: Option<Wrap<RuleSet>>) -> RuleSet {
    match (rules, position) {
        (Some(Wrap(rules)), _) => rules,
        (None, Searchable::Position(p)) => p.rules,
        (None, Searchable::Game(g)) => g.game.rules(),
        (None, Searchable::Text(_)) => RuleSet::BrainKing,
    }
}
