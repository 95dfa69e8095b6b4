//! The oracle (`alq oracle`) and the players of `alq match` (among them
//! `perfect`) for Python.

use pyo3::prelude::*;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, MutexGuard};

use alq_engine::{Hce, HceWeights, Limits, RuleSet};
use alq_oracle::OracleError;
use alq_solver::Budget;
use alq_tablebase::Tablebase as Tables;

use crate::board::{Game, Move};
use crate::convert::{Nodes, Seconds, Wrap};
use crate::engine::Searchable;
use crate::tables::TablesArg;
use crate::{ArgumentError, EvalError, RulesError, SolveError, TablebaseError};

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Oracle>()?;
    m.add_class::<OracleAnswer>()?;
    m.add_class::<Player>()?;
    Ok(())
}

fn oracle_err(e: OracleError) -> PyErr {
    match e {
        OracleError::Tables(e) => TablebaseError::new_err(e.to_string()),
        e @ OracleError::ForeignStore { .. } => RulesError::new_err(e.to_string()),
        e => SolveError::new_err(e.to_string()),
    }
}

/// The oracle's answer for a position, side to move's view.
#[pyclass(frozen, get_all, module = "alquerque_lab")]
#[derive(Clone)]
pub struct OracleAnswer {
    /// `win`, `draw`, `loss`, `≥draw` (the mover does not lose), `≤draw`
    /// (the mover does not win) or `unknown` (the budget ran out).
    value: &'static str,
    /// `end`, `table`, `proof` (a checked certificate), `store` (settled by
    /// searches, no certificate), `search`, or `none` for `unknown`.
    source: &'static str,
    /// Positions the searches of this question expanded.
    nodes: u64,
    /// Seconds.
    time: f64,
}

#[pymethods]
impl OracleAnswer {
    fn __repr__(&self) -> String {
        format!("OracleAnswer(value='{}', source='{}', nodes={})", self.value, self.source, self.nodes)
    }

    fn __str__(&self) -> &'static str {
        self.value
    }

    /// Whether the value is win, draw or loss (not a bound, not unknown).
    #[getter]
    fn is_exact(&self) -> bool {
        matches!(self.value, "win" | "draw" | "loss")
    }
}

impl From<alq_oracle::Answer> for OracleAnswer {
    fn from(a: alq_oracle::Answer) -> OracleAnswer {
        OracleAnswer { value: a.value.name(), source: a.source.name(), nodes: a.nodes, time: a.elapsed.as_secs_f64() }
    }
}

/// The exact value of positions (as `alq oracle`): the end, the tables, the
/// shipped proofs and the store, then threshold searches within the budget.
/// What a search settles is kept, and written back to `store` when given.
/// Safe to share between threads; questions run without the GIL.
#[pyclass(frozen, module = "alquerque_lab")]
pub struct Oracle {
    oracle: Arc<alq_oracle::Oracle<'static>>,
    rules: RuleSet,
}

#[pymethods]
impl Oracle {
    #[new]
    #[pyo3(
        signature = (*, tb = None, store = None, movetime = Some(Seconds(1.0)), nodes = None, shipped = true, rules = Wrap::BRAINKING),
        text_signature = "(*, tb=None, store=None, movetime=1.0, nodes=None, shipped=True, rules='brainking')"
    )]
    fn py_new(
        py: Python<'_>,
        tb: Option<TablesArg<'_>>,
        store: Option<PathBuf>,
        movetime: Option<Seconds>,
        nodes: Option<Nodes>,
        shipped: bool,
        rules: Wrap<RuleSet>,
    ) -> PyResult<Oracle> {
        let Wrap(rules) = rules;
        let time = movetime.map(Seconds::duration);
        let nodes = nodes.map(|Nodes(n)| n);
        if time.is_none() && nodes.is_none() {
            return Err(ArgumentError::new_err("give a budget: movetime=SECONDS or nodes=N"));
        }
        // The oracle keeps its tables for the life of the process (shared
        // with every other user of the same folder).
        let tables: Option<&'static Tables> = match tb {
            Some(t) => {
                let dir = t.open(py)?.dir().to_path_buf();
                let tb = Tables::shared_static(&dir).map_err(|e| TablebaseError::new_err(format!("tablebase: {e}")))?;
                if tb.rules() != rules {
                    return Err(RulesError::new_err(format!(
                        "{}: tables of the {} rules, not {}",
                        dir.display(),
                        tb.rules().name(),
                        rules.name()
                    )));
                }
                Some(tb)
            }
            None => None,
        };
        let budget = Budget { nodes, time, memory_bytes: 1 << 30 };
        let eval = Box::new(Hce::new(HceWeights::default()));
        let mut oracle = alq_oracle::Oracle::new(rules, tables, eval, budget);
        py.detach(|| -> Result<(), OracleError> {
            if shipped {
                oracle.read_shipped()?;
            }
            if let Some(file) = &store {
                oracle.use_store(file)?;
            }
            Ok(())
        })
        .map_err(oracle_err)?;
        Ok(Oracle { oracle: Arc::new(oracle), rules })
    }

    fn __repr__(&self) -> String {
        format!("Oracle(rules='{}', known_positions={})", self.rules.name(), self.oracle.known_positions())
    }

    /// Positions whose win questions the oracle knows (proofs, store and
    /// searches since).
    #[getter]
    fn known_positions(&self) -> usize {
        self.oracle.known_positions()
    }

    /// The value of `position` (a `Position`, a `Game`'s current position,
    /// or position text) for its side to move.
    fn value(&self, py: Python<'_>, position: Searchable<'_>) -> PyResult<OracleAnswer> {
        let pos = position.game(self.rules)?.position();
        let oracle = Arc::clone(&self.oracle);
        py.detach(move || oracle.value(&pos)).map(OracleAnswer::from).map_err(oracle_err)
    }

    /// The value under the 60-ply no-progress rule, for the side to move,
    /// where the oracle's tables include distance-to-progress tables that
    /// cover the position (`alq tb build --kind dtz`), else `None`: `(value,
    /// plies)`, the value `win`, `loss`, `draw`, `cursed-win` (won only
    /// without the rule) or `blessed-loss`, and for a win or a loss the
    /// plies to the next capture or forward move. A `Game` counts the
    /// plies it has played without progress; a position starts at 0.
    fn rule_value(&self, position: Searchable<'_>) -> PyResult<Option<(&'static str, Option<u32>)>> {
        use alq_tablebase::Dtz;
        let game = position.game(self.rules)?;
        Ok(self.oracle.rule_value(&game.position()).map(|d| match d.at_count(game.quiet_plies()) {
            d @ (Dtz::Win(n) | Dtz::Loss(n)) => (d.name(), Some(n)),
            d => (d.name(), None),
        }))
    }

    /// Every legal move with the value it gives the side that plays it (so
    /// a best move's value is the position's), sorted as `alq moves` sorts.
    /// All the moves share the oracle's budget (`movetime` or `nodes`):
    /// each open move is asked with an equal share of what is left.
    fn move_values(&self, py: Python<'_>, position: Searchable<'_>) -> PyResult<Vec<(Move, OracleAnswer)>> {
        let pos = position.game(self.rules)?.position();
        let oracle = Arc::clone(&self.oracle);
        let values = py.detach(move || oracle.move_values(&pos)).map_err(oracle_err)?;
        Ok(values.into_iter().map(|(m, a)| (Move::new(m, self.rules), OracleAnswer::from(a))).collect())
    }
}

/// A player of `alq match` by its spec: `random`, `greedy`, `hce@nodes=N`,
/// `nn@movetime=MS`, a network file, `perfect@tb=DIR,store=FILE,movetime=MS`,
/// or `engine:COMMAND`. `choose` gives its move in a game; use it as the
/// opponent in an environment (`game.push(player.choose(game))`).
#[pyclass(frozen, module = "alquerque_lab")]
pub struct Player {
    state: Mutex<(alq_play::Player, ChaCha8Rng)>,
}

impl Player {
    fn lock(&self) -> MutexGuard<'_, (alq_play::Player, ChaCha8Rng)> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

#[pymethods]
impl Player {
    /// `spec` as `alq match --a` takes it (searchers without a limit get
    /// 2,000 nodes); `seed` for its random choices.
    #[new]
    #[pyo3(signature = (spec, *, seed = 0))]
    fn py_new(spec: &str, seed: u64) -> PyResult<Player> {
        let spec =
            alq_play::PlayerSpec::parse(spec, Limits::nodes(2000)).map_err(|e| EvalError::new_err(e.to_string()))?;
        Ok(Player { state: Mutex::new((spec.build(), ChaCha8Rng::seed_from_u64(seed))) })
    }

    fn __repr__(&self) -> String {
        format!("Player('{}')", self.lock().0.spec())
    }

    /// The spec, as `alq match` prints it.
    #[getter]
    fn spec(&self) -> String {
        self.lock().0.spec().to_string()
    }

    /// Moves a perfect player chose by search because the oracle knew no
    /// value within its budget (0 for other players).
    #[getter]
    fn fallbacks(&self) -> u32 {
        self.lock().0.fallbacks()
    }

    /// The player's move in `game` (a `Game`, so that the draw rules and the
    /// positions played count), or `None` when the game is over or an
    /// external engine failed.
    fn choose(&self, py: Python<'_>, game: PyRef<'_, Game>) -> PyResult<Option<Move>> {
        let g = game.game.clone();
        drop(game);
        let rules = g.rules();
        let choice = py.detach(|| -> Result<Option<alq_play::Choice>, String> {
            let mut state = self.lock();
            let (player, rng) = &mut *state;
            player.spec().check_rules(rules).map_err(|e| e.to_string())?;
            Ok(if g.is_over() { None } else { player.choose(&g, rng) })
        });
        let choice = choice.map_err(RulesError::new_err)?;
        Ok(choice.map(|c| Move::new(c.mv, rules)))
    }
}
