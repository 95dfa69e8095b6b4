//! # alquerque_lab._core
//!
//! The native half of the Python package `alquerque_lab`: thin pyo3
//! wrappers over the library crates (engine, records, tablebase, solver,
//! play). Everything a user calls is documented in the package's type stubs
//! (`python/alquerque_lab/_core.pyi`); the pure-Python half adds the
//! PettingZoo environment and the OpenSpiel game on top.
//!
//! Errors never panic across the boundary: every failure of the libraries
//! becomes one of the package's exceptions (all `ValueError` subclasses),
//! carrying the library's message, which is the message the CLI prints.

use pyo3::create_exception;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

// The allocator the CLI uses, so that searches from Python run at the CLI's
// speed (the search allocates its principal variations and move lists).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

mod actions;
mod board;
mod convert;
mod engine;
mod oracle;
mod records;
mod tables;

create_exception!(alquerque_lab, AlquerqueError, PyValueError, "Base class of the package's errors (a ValueError).");
create_exception!(alquerque_lab, PositionError, AlquerqueError, "Position text that cannot be read.");
create_exception!(
    alquerque_lab,
    MoveError,
    AlquerqueError,
    "A malformed or illegal move, or a move after the game ended."
);
create_exception!(
    alquerque_lab,
    ActionError,
    AlquerqueError,
    "An action id out of range or not legal in the position."
);
create_exception!(alquerque_lab, RulesError, AlquerqueError, "An unknown rule set, or data made under other rules.");
create_exception!(alquerque_lab, RecordError, AlquerqueError, "A records file that is missing, unreadable or damaged.");
create_exception!(
    alquerque_lab,
    TablebaseError,
    AlquerqueError,
    "Endgame tables that are missing, damaged or do not cover a position."
);
create_exception!(alquerque_lab, EvalError, AlquerqueError, "An evaluator spec or network file that cannot be used.");
create_exception!(alquerque_lab, SolveError, AlquerqueError, "A solver run that could not be done.");
create_exception!(
    alquerque_lab,
    ArgumentError,
    AlquerqueError,
    "An argument the package cannot use: a point or side name, a limit, a budget or an option value."
);

/// Adds exception classes to the module under their own names.
macro_rules! exceptions {
    ($m:ident, $py:ident, $($name:ident),+) => {
        $($m.add(stringify!($name), $py.get_type::<$name>())?;)+
    };
}

/// Alquerque Lab's native core.
#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("AlquerqueError", py.get_type::<AlquerqueError>())?;
    exceptions!(
        m,
        py,
        PositionError,
        MoveError,
        ActionError,
        RulesError,
        RecordError,
        TablebaseError,
        EvalError,
        SolveError,
        ArgumentError
    );
    m.add("START_TEXT", alq_engine::START_TEXT)?;
    m.add("INPUTS", alq_engine::INPUTS)?;
    m.add("SCORE_SCALE", alq_engine::SCORE_SCALE)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    board::register(m)?;
    actions::register(m)?;
    board::register_private(m)?;
    engine::register(m)?;
    tables::register(m)?;
    records::register(m)?;
    oracle::register(m)?;
    Ok(())
}
