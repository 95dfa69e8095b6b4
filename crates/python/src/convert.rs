//! Arguments converted from Python by their type, once, as polars' `Wrap<T>`
//! does: a method that takes `Wrap<RuleSet>` gets the engine's rule set, or
//! the caller gets the package's error for a name that is not one, before
//! the method runs.
//!
//! pyo3 writes a signature's default into `__text_signature__` only when it
//! is a literal, and a default here is a `Wrap`: the methods with one give
//! their `text_signature` by hand (`rules="brainking"`), which `stubtest`
//! checks against the stubs in CI.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use alq_engine::{Point, RuleSet, Side};

use crate::RulesError;

/// An argument converted from Python to the library's type `T`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Wrap<T>(pub(crate) T);

impl Wrap<RuleSet> {
    /// The default of every `rules` argument that has one.
    pub(crate) const BRAINKING: Wrap<RuleSet> = Wrap(RuleSet::BrainKing);
}

/// A rule-set name, `brainking` or `classic`; another name is a `RulesError`.
impl FromPyObject<'_, '_> for Wrap<RuleSet> {
    type Error = PyErr;

    fn extract(obj: Borrowed<'_, '_, PyAny>) -> PyResult<Self> {
        let name: &str = obj.extract()?;
        RuleSet::from_name(name)
            .map(Wrap)
            .ok_or_else(|| RulesError::new_err(format!("unknown rules {name:?} (expected brainking or classic)")))
    }
}

/// A side, `white` / `w` or `black` / `b`; another name is a `ValueError`.
impl FromPyObject<'_, '_> for Wrap<Side> {
    type Error = PyErr;

    fn extract(obj: Borrowed<'_, '_, PyAny>) -> PyResult<Self> {
        let name: &str = obj.extract()?;
        match name {
            "white" | "w" => Ok(Wrap(Side::White)),
            "black" | "b" => Ok(Wrap(Side::Black)),
            _ => Err(PyValueError::new_err(format!("unknown side {name:?} (expected white or black)"))),
        }
    }
}

/// A point's name, `a1` … `e5`; another text is a `ValueError`.
impl FromPyObject<'_, '_> for Wrap<Point> {
    type Error = PyErr;

    fn extract(obj: Borrowed<'_, '_, PyAny>) -> PyResult<Self> {
        let name: &str = obj.extract()?;
        Point::parse(name).map(Wrap).ok_or_else(|| PyValueError::new_err(format!("{name:?} is not a point (a1 … e5)")))
    }
}
