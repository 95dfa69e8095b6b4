//! The integration tests of `crates/engine`, one test binary: each file beside this
//! one is a module (one binary links the dependency tree once, where a
//! binary per file linked it once per file). A new test file must be named
//! here; `scripts/house-rules.py` (run by scripts/test) fails when one is not.

mod actions;
mod classic;
mod heads;
mod nn;
mod notation_and_game;
mod properties;
mod reference;
mod search;
mod vectors;
