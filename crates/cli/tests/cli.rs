//! End-to-end checks of the `alq` binary: output formats and exit codes.

use std::process::{Command, Output};

fn alq(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_alq")).args(args).output().expect("the alq binary runs")
}

fn stdout(out: &Output) -> String {
    String::from_utf8(out.stdout.clone()).expect("utf-8 output")
}

#[test]
fn moves_prints_sorted_moves_only() {
    let out = alq(&["moves"]);
    assert!(out.status.success());
    assert_eq!(stdout(&out), "b2-c3\nc2-c3\nd2-c3\nd3-c3\n");
    let out = alq(&["moves", "--position", "....B/...../...../BB.../WB... w"]);
    assert_eq!(stdout(&out), "a1xa3xc1\na1xc1xa3\na1xc3\n");
}

#[test]
fn perft_prints_one_line_per_depth() {
    let out = alq(&["perft", "--depth", "6", "--threads", "2"]);
    assert!(out.status.success());
    assert_eq!(stdout(&out), "perft 1 4\nperft 2 5\nperft 3 6\nperft 4 12\nperft 5 27\nperft 6 96\n");
}

#[test]
fn bad_input_exits_with_2_and_a_message() {
    for args in [
        &["moves", "--position", "BBBBB/BBBBB/BB.WW/WWWWW w"][..],
        &["moves", "--position", "BBBBB/BBBBB/BB.WW/WWWWW/WWWWW q"],
        &["perft", "--depth", "zero"],
        &["perft"],
        &["perft", "--depth", "3", "--threads", "0"],
        &["frobnicate"],
    ] {
        let out = alq(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(out.stdout.is_empty(), "{args:?}: nothing on stdout");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("error"), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
}

#[test]
fn bench_prints_a_deterministic_node_count() {
    let first = stdout(&alq(&["bench"]));
    let second = stdout(&alq(&["bench"]));
    let nodes = |s: &str| s.lines().find(|l| l.starts_with("nodes ")).map(String::from);
    assert!(nodes(&first).is_some(), "{first}");
    assert_eq!(nodes(&first), nodes(&second));
}
