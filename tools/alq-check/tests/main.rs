//! The integration tests of `tools/alq-check`, one test binary: each file beside this
//! one is a module (one binary links the dependency tree once, where a
//! binary per file linked it once per file). A new test file must be named
//! here; `scripts/house-rules.py` (run by scripts/test) fails when one is not.

mod binary;
mod certs;
mod common;
mod counted;
mod moves;
mod tables;
