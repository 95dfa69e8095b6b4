//! Arguments converted from Python by their type, once, as polars' `Wrap<T>`
//! does: a method that takes `Wrap<RuleSet>` gets the engine's rule set, or
//! the caller gets the package's error for a name that is not one, before
//! the method runs.
//!
//! pyo3 writes a signature's default into `__text_signature__` only when it
//! is a literal, and a default here is a `Wrap`: the methods with one give
//! their `text_signature` by hand (`rules="brainking"`), which `stubtest`
//! checks against the stubs in CI.

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyFloat, PyInt};

use alq_engine::{Point, RuleSet, Side};

use crate::{ArgumentError, RulesError};

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

/// A side, `white` / `w` or `black` / `b`; another name is an `ArgumentError`.
impl FromPyObject<'_, '_> for Wrap<Side> {
    type Error = PyErr;

    fn extract(obj: Borrowed<'_, '_, PyAny>) -> PyResult<Self> {
        let Ok(name) = obj.extract::<&str>() else {
            return Err(ArgumentError::new_err(format!(
                "side: {} is not a side (expected white or black)",
                described(&obj)
            )));
        };
        match name {
            "white" | "w" => Ok(Wrap(Side::White)),
            "black" | "b" => Ok(Wrap(Side::Black)),
            _ => Err(ArgumentError::new_err(format!("side: unknown side {name:?} (expected white or black)"))),
        }
    }
}

/// A point's name, `a1` … `e5`; another text is an `ArgumentError`.
impl FromPyObject<'_, '_> for Wrap<Point> {
    type Error = PyErr;

    fn extract(obj: Borrowed<'_, '_, PyAny>) -> PyResult<Self> {
        let Ok(name) = obj.extract::<&str>() else {
            return Err(ArgumentError::new_err(format!("point: {} is not a point (a1 … e5)", described(&obj))));
        };
        Point::parse(name)
            .map(Wrap)
            .ok_or_else(|| ArgumentError::new_err(format!("point: {name:?} is not a point (a1 … e5)")))
    }
}

/// A short description of a Python value for an error message: its `repr`
/// and, where that does not show it, its type (`31.0`, `'x'`, `[1] (list)`).
pub(crate) fn described(obj: &Borrowed<'_, '_, PyAny>) -> String {
    let repr = obj.repr().map(|r| r.to_string()).unwrap_or_else(|_| "?".to_string());
    let repr =
        if repr.chars().count() > 40 { format!("{}…", repr.chars().take(40).collect::<String>()) } else { repr };
    let shown = obj.is_instance_of::<PyInt>() || obj.is_instance_of::<PyFloat>() || obj.is_none();
    match obj.get_type().name() {
        Ok(name) if !shown => format!("{repr} ({name})"),
        _ => repr,
    }
}

/// A whole number of at least `min`, read as the argument `name`: a bool, a
/// float, a negative number or one too large is an `ArgumentError` naming
/// the argument and the value.
fn whole_number(obj: &Borrowed<'_, '_, PyAny>, name: &str, min: u64) -> PyResult<u64> {
    let refuse =
        || ArgumentError::new_err(format!("{name} must be a whole number of at least {min}, not {}", described(obj)));
    if obj.is_instance_of::<PyBool>() || !obj.is_instance_of::<PyInt>() {
        // numpy's integers are not `int`s but convert losslessly.
        if obj.is_instance_of::<PyBool>() || obj.hasattr("__index__").ok() != Some(true) {
            return Err(refuse());
        }
    }
    match obj.extract::<u64>() {
        Ok(n) if n >= min => Ok(n),
        // A whole number, but past what the library counts in.
        Err(_) if obj.call_method1("__ge__", (min,)).and_then(|b| b.extract::<bool>()).unwrap_or(false) => Err(
            ArgumentError::new_err(format!("{name} must be at most {} (2^64 - 1), not {}", u64::MAX, described(obj))),
        ),
        _ => Err(refuse()),
    }
}

/// Newtypes for the counted arguments, each knowing its own name and least
/// value, so that `search(nodes=-5)` and `Engine(threads=0)` are refused
/// with one line naming the argument (not pyo3's `OverflowError`).
macro_rules! counts {
    ($($(#[$doc:meta])* $ty:ident($inner:ty) = $name:literal, min $min:literal;)+) => {
        $(
            $(#[$doc])*
            #[derive(Clone, Copy, Debug, PartialEq, Eq)]
            pub(crate) struct $ty(pub(crate) $inner);

            impl FromPyObject<'_, '_> for $ty {
                type Error = PyErr;

                fn extract(obj: Borrowed<'_, '_, PyAny>) -> PyResult<Self> {
                    let n = whole_number(&obj, $name, $min)?;
                    <$inner>::try_from(n).map($ty).map_err(|_| {
                        ArgumentError::new_err(format!("{} {n} is too large", $name))
                    })
                }
            }
        )+
    };
}

counts! {
    /// `nodes=`: a node (or expanded-position) budget, at least 1.
    Nodes(u64) = "nodes", min 1;
    /// `depth=`: a search depth in plies, at least 1.
    Depth(u32) = "depth", min 1;
    /// `threads=`: search threads, at least 1.
    Threads(usize) = "threads", min 1;
    /// `hash=`: MiB for a transposition table or a proof graph (0 counts as 1).
    HashMb(usize) = "hash", min 0;
}

/// `movetime=`: a positive, finite number of seconds (an int or a float).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Seconds(pub(crate) f64);

impl FromPyObject<'_, '_> for Seconds {
    type Error = PyErr;

    fn extract(obj: Borrowed<'_, '_, PyAny>) -> PyResult<Self> {
        let number = if obj.is_instance_of::<PyBool>() { None } else { obj.extract::<f64>().ok() };
        match number {
            Some(s) if s > 0.0 && s.is_finite() => Ok(Seconds(s)),
            _ => Err(ArgumentError::new_err(format!(
                "movetime must be a positive number of seconds, not {}",
                described(&obj)
            ))),
        }
    }
}

impl Seconds {
    pub(crate) fn duration(self) -> std::time::Duration {
        std::time::Duration::from_secs_f64(self.0)
    }
}

/// A one-dimensional array (or list) of whole numbers, as keys or actions:
/// any integer dtype is converted to `T`; an array of another dtype (float,
/// string, bool, object) is a `TypeError` naming it, never cast silently (a
/// float key would round to another position). An empty list is fine.
pub(crate) struct Integers<'py, T: numpy::Element>(pub(crate) numpy::PyArrayLike1<'py, T, numpy::AllowTypeChange>);

macro_rules! integers {
    ($t:ty) => {
        impl<'a, 'py> FromPyObject<'a, 'py> for Integers<'py, $t> {
            type Error = PyErr;

            fn extract(obj: Borrowed<'a, 'py, PyAny>) -> PyResult<Self> {
                let array = obj.py().import("numpy")?.call_method1("asarray", (obj,))?;
                let dtype = array.getattr("dtype")?;
                let kind: String = dtype.getattr("kind")?.extract()?;
                let size: usize = array.getattr("size")?.extract()?;
                if size > 0 && kind != "i" && kind != "u" {
                    return Err(PyTypeError::new_err(format!(
                        "expected whole numbers (an integer array or a list of ints), not an array of dtype {dtype}"
                    )));
                }
                Ok(Integers(array.extract().map_err(PyErr::from)?))
            }
        }
    };
}

integers!(u64);
integers!(i32);
