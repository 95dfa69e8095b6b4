//! The integration tests of `crates/play`, one test binary: each file beside this
//! one is a module (one binary links the dependency tree once, where a
//! binary per file linked it once per file). A new test file must be named
//! here; `scripts/house-rules.py` (run by scripts/test) fails when one is not.

// The solver's test helpers (random positions), shared.
mod books;
#[path = "../../solver/tests/common/mod.rs"]
mod common;
mod grade;
mod perfect;
mod protocol;
mod specs;
