//! The integration tests of `crates/oracle`, one test binary: each file beside this
//! one is a module (one binary links the dependency tree once, where a
//! binary per file linked it once per file). A new test file must be named
//! here; `scripts/house-rules.py` (run by scripts/test) fails when one is not.

// The solver's test helpers (random positions), shared.
mod atlas;
mod budget;
#[path = "../../solver/tests/common/mod.rs"]
mod common;
mod oracle;
