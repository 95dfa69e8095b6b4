//! Endgame tables and the exact solver from Python.

use std::path::Path;
use std::sync::Arc;

use pyo3::prelude::*;

use alq_engine::{Exact, Proven, RuleSet, Wdl};
use alq_solver::{Budget, Solver};
use alq_tablebase::{Kind, Tablebase as Tables};

use crate::board::{Move, Position};
use crate::convert::{HashMb, Nodes, Seconds, Wrap};
use crate::{ArgumentError, RulesError, SolveError, TablebaseError};

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Value>()?;
    m.add_class::<Tablebase>()?;
    m.add_class::<SolveResult>()?;
    m.add_function(wrap_pyfunction!(solve, m)?)?;
    Ok(())
}

/// An exact value, side to move's view: `kind` is `"win"`, `"loss"` or
/// `"draw"`; `plies` the distance to the end with perfect play where known
/// (distance tables, solver) and `None` for a draw or a win/draw/loss-only
/// table. `str()` is the CLI's text (`win 12`, `loss 7`, `draw`, `win`).
/// Values sort from worst to best for the side to move: losses (the
/// quickest first), draws, wins (the quickest last); a distance not known
/// sorts as the longest.
#[pyclass(frozen, eq, ord, hash, get_all, module = "alquerque_lab")]
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Value {
    kind: &'static str,
    plies: Option<u32>,
}

impl PartialOrd for Value {
    fn partial_cmp(&self, other: &Value) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Value {
    fn cmp(&self, other: &Value) -> std::cmp::Ordering {
        self.rank().cmp(&other.rank())
    }
}

impl Value {
    /// The sort key: kind, then the distance's worth (a longer loss is
    /// better, a longer win worse; unknown counts as the longest).
    fn rank(&self) -> (u8, i64) {
        let plies = self.plies.map_or(i64::from(u32::MAX) + 1, i64::from);
        match self.kind {
            "loss" => (0, plies),
            "draw" => (1, 0),
            _ => (2, -plies),
        }
    }

    pub(crate) fn exact(value: Exact) -> Value {
        match value {
            Exact::Win(d) => Value { kind: "win", plies: Some(d) },
            Exact::Loss(d) => Value { kind: "loss", plies: Some(d) },
            Exact::Draw => Value { kind: "draw", plies: None },
        }
    }

    fn wdl(value: Wdl) -> Value {
        let kind = match value {
            Wdl::Win => "win",
            Wdl::Draw => "draw",
            Wdl::Loss => "loss",
        };
        Value { kind, plies: None }
    }
}

#[pymethods]
impl Value {
    fn __str__(&self) -> String {
        match self.plies {
            Some(d) => format!("{} {d}", self.kind),
            None => self.kind.to_string(),
        }
    }

    fn __repr__(&self) -> String {
        format!("Value('{}')", self.__str__())
    }

    /// 1.0 for a win, 0.5 for a draw, 0.0 for a loss (the trainer's target).
    #[getter]
    fn score(&self) -> f64 {
        match self.kind {
            "win" => 1.0,
            "draw" => 0.5,
            _ => 0.0,
        }
    }
}

/// A folder of endgame tables (built by `alq tb build`), opened once and
/// probed from memory or disk.
#[pyclass(frozen, module = "alquerque_lab")]
pub struct Tablebase {
    tb: Arc<Tables>,
}

impl Tablebase {
    fn check(&self, position: &Position) -> PyResult<()> {
        expect_rules(&self.tb, position.rules)?;
        let pieces = position.pos.occupied().count();
        if pieces > self.tb.max_pieces() {
            return Err(TablebaseError::new_err(format!(
                "{}: {pieces} pieces, the tables in {} cover at most {}",
                position.pos,
                self.tb.dir().display(),
                self.tb.max_pieces()
            )));
        }
        Ok(())
    }

    fn distance_covers(&self, position: &Position) -> bool {
        self.tb.coverage(Kind::Distance).is_some_and(|n| position.pos.occupied().count() <= n)
    }
}

/// Refuses tables built for other rules than `rules`.
pub(crate) fn expect_rules(tb: &Tables, rules: RuleSet) -> PyResult<()> {
    if tb.rules() != rules {
        return Err(RulesError::new_err(format!(
            "the tables in {} were built for the {} rules, not {}",
            tb.dir().display(),
            tb.rules().name(),
            rules.name()
        )));
    }
    Ok(())
}

fn tb_err(pos: &alq_engine::Position, e: alq_tablebase::TbError) -> PyErr {
    TablebaseError::new_err(format!("probing {pos}: {e}"))
}

#[pymethods]
impl Tablebase {
    /// Opens the tables in `dir`; with `rules`, tables built for other rules
    /// are refused.
    #[new]
    #[pyo3(signature = (dir, *, rules = None))]
    fn py_new(py: Python<'_>, dir: std::path::PathBuf, rules: Option<Wrap<RuleSet>>) -> PyResult<Tablebase> {
        let tb = py
            .detach(move || Tables::shared(Path::new(&dir)))
            .map_err(|e| TablebaseError::new_err(format!("tablebase: {e}")))?;
        if let Some(Wrap(wanted)) = rules {
            expect_rules(&tb, wanted)?;
        }
        Ok(Tablebase { tb })
    }

    fn __repr__(&self) -> String {
        format!("Tablebase('{}', max_pieces={})", self.tb.dir().display(), self.tb.max_pieces())
    }

    /// Every position with at most this many pieces is covered.
    #[getter]
    fn max_pieces(&self) -> u32 {
        self.tb.max_pieces()
    }

    /// Up to this many pieces the tables give distances (`win 12`); beyond,
    /// win/draw/loss only.
    #[getter]
    fn distance_max_pieces(&self) -> Option<u32> {
        self.tb.coverage(Kind::Distance)
    }

    #[getter]
    fn rules(&self) -> &'static str {
        self.tb.rules().name()
    }

    #[getter]
    fn dir(&self) -> String {
        self.tb.dir().display().to_string()
    }

    /// Whether the tables cover the position.
    fn covers(&self, position: PyRef<'_, Position>) -> bool {
        position.rules == self.tb.rules() && position.pos.occupied().count() <= self.tb.max_pieces()
    }

    /// The position's exact value, side to move's view (as `alq tb probe`
    /// prints it: with the distance where distance tables cover it).
    fn probe(&self, py: Python<'_>, position: PyRef<'_, Position>) -> PyResult<Value> {
        self.check(&position)?;
        let (pos, tb, distance) = (position.pos, Arc::clone(&self.tb), self.distance_covers(&position));
        py.detach(move || {
            if distance {
                tb.probe(&pos).map(Value::exact)
            } else {
                tb.probe_wdl(&pos).map(|(v, _)| Value::wdl(v))
            }
        })
        .map_err(|e| tb_err(&position.pos, e))
    }

    /// Every legal move with the value of the position it leads to, from the
    /// mover's view (the lines `alq tb probe` prints after the value).
    fn probe_moves(&self, py: Python<'_>, position: PyRef<'_, Position>) -> PyResult<Vec<(Move, Value)>> {
        self.check(&position)?;
        let (pos, tb, distance, rules) =
            (position.pos, Arc::clone(&self.tb), self.distance_covers(&position), position.rules);
        let values: Result<Vec<(alq_engine::Move, Value)>, _> = py.detach(move || {
            if distance {
                tb.probe_moves(&pos).map(|v| v.into_iter().map(|(m, x)| (m, Value::exact(x))).collect())
            } else {
                tb.probe_moves_wdl(&pos).map(|v| v.into_iter().map(|(m, x)| (m, Value::wdl(x))).collect())
            }
        });
        Ok(values.map_err(|e| tb_err(&position.pos, e))?.into_iter().map(|(m, v)| (Move::new(m, rules), v)).collect())
    }
}

/// Tables given as a `Tablebase` or as the folder's path.
#[derive(FromPyObject)]
pub(crate) enum TablesArg<'py> {
    #[pyo3(transparent, annotation = "Tablebase")]
    Opened(PyRef<'py, Tablebase>),
    #[pyo3(transparent, annotation = "str | os.PathLike")]
    Dir(std::path::PathBuf),
}

impl TablesArg<'_> {
    pub(crate) fn open(self, py: Python<'_>) -> PyResult<Arc<Tables>> {
        match self {
            TablesArg::Opened(t) => Ok(Arc::clone(&t.tb)),
            TablesArg::Dir(dir) => Ok(Tablebase::py_new(py, dir, None)?.tb),
        }
    }
}

/// What the exact solver proved (`alq solve`'s output as fields).
#[pyclass(frozen, get_all, module = "alquerque_lab")]
pub struct SolveResult {
    /// What was proven, as `alq solve` prints it (`win 12`, `draw`, or a
    /// bound such as `win ≤ 14`), or `None` within the budget.
    value: Option<String>,
    /// The exact value with its distance, when that is what was proven.
    exact: Option<Value>,
    /// Proven bounds on the value (`str()` as `alq solve` prints them).
    lower: Value,
    upper: Value,
    /// A move that achieves the proven value (`None` when nothing is proven
    /// or there is no legal move).
    best_move: Option<Move>,
    nodes: u64,
    graph_nodes: usize,
    tb_hits: u64,
    /// Seconds.
    time: f64,
    out_of_budget: bool,
}

#[pymethods]
impl SolveResult {
    fn __repr__(&self) -> String {
        let value = self.value.as_deref().unwrap_or("unknown");
        format!("SolveResult(value='{value}', nodes={})", self.nodes)
    }
}

/// Solves a position exactly (`alq solve --goal value`): the value with its
/// distance, or bounds when the budget (`nodes` expanded positions,
/// `movetime` seconds, `hash` MiB for the graph) runs out first. Leaves in
/// `tb`'s tables get their exact value. Runs without the GIL.
#[pyfunction]
#[pyo3(
    signature = (position, *, nodes = None, movetime = None, tb = None, hash = HashMb(256)),
    text_signature = "(position, *, nodes=None, movetime=None, tb=None, hash=256)"
)]
fn solve(
    py: Python<'_>,
    position: PyRef<'_, Position>,
    nodes: Option<Nodes>,
    movetime: Option<Seconds>,
    tb: Option<TablesArg<'_>>,
    hash: HashMb,
) -> PyResult<SolveResult> {
    let rules: RuleSet = position.rules;
    let tables = tb.map(|t| t.open(py)).transpose()?;
    if let Some(t) = &tables {
        expect_rules(t, rules)?;
    }
    let time = movetime.map(Seconds::duration);
    let nodes = nodes.map(|Nodes(n)| n);
    if nodes.is_none() && time.is_none() {
        return Err(ArgumentError::new_err("give a budget: nodes=N or movetime=SECONDS"));
    }
    let budget = Budget { nodes, time, memory_bytes: hash.0.max(1).saturating_mul(1 << 20) };
    let pos = position.pos;
    let result = py.detach(move || {
        let mut solver = Solver::new(tables.as_deref());
        solver.set_rules(rules);
        solver.solve(&pos, &budget)
    });
    let r = result.map_err(|e| SolveError::new_err(e.to_string()))?;
    Ok(SolveResult {
        value: r.proof.map(|p| p.to_string()),
        exact: r.proof.and_then(|p| match p {
            Proven::Exact(e) => Some(Value::exact(e)),
            _ => None,
        }),
        lower: Value::exact(r.lower),
        upper: Value::exact(r.upper),
        best_move: r.best_move.filter(|_| r.proof.is_some()).map(|m| Move::new(m, rules)),
        nodes: r.nodes,
        graph_nodes: r.graph_nodes,
        tb_hits: r.tb_hits,
        time: r.elapsed.as_secs_f64(),
        out_of_budget: r.out_of_budget,
    })
}
