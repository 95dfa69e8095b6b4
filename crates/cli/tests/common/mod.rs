//! Helpers every end-to-end test of the `alq` binary shares: run it, read
//! its output, and give a test an empty folder of its own.

// Each test binary uses its own subset.
#![allow(dead_code)]

use std::path::PathBuf;
use std::process::{Command, Output};

/// The binary under test (also passed to it as `ALQ`, which the example
/// engines use to find it).
pub const ALQ: &str = env!("CARGO_BIN_EXE_alq");

/// Runs `alq ARGS` to the end.
pub fn alq(args: &[&str]) -> Output {
    Command::new(ALQ).args(args).env("ALQ", ALQ).output().expect("the alq binary runs")
}

/// Its standard output, which must be UTF-8.
pub fn stdout(out: &Output) -> String {
    String::from_utf8(out.stdout.clone()).expect("utf-8 output")
}

/// An empty folder for one test, under cargo's temporary folder for tests
/// (`name` is unique across the test files).
pub fn fresh_dir(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("cli-tests").join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}
