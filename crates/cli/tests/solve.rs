//! End-to-end checks of `alq solve`, `alq openings --solve` and
//! `alq report --book`: values, output, resume, bad input.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn alq(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_alq")).args(args).output().expect("the alq binary runs")
}

fn stdout(out: &Output) -> String {
    String::from_utf8(out.stdout.clone()).expect("utf-8 output")
}

/// An empty folder for one test.
fn fresh_dir(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn solve_prints_the_value_last_with_nodes_time_memory_and_move() {
    let out = alq(&["solve", "--position", "...../..B../...../.W.W./..... w", "--quiet"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = stdout(&out);
    assert_eq!(text.lines().last(), Some("value win 7"), "{text}");
    assert!(text.contains("\nnodes ") && text.contains(" time ") && text.contains(" memory "), "{text}");
    assert!(text.contains("bestmove "), "{text}");
    // --moves plays a line first: after the line the position is printed.
    let out = alq(&["solve", "--moves", "d2-c3 d4xd2", "--nodes", "10", "--quiet"]);
    assert!(stdout(&out).starts_with("position BBBBB/BBB.B/BBW.W/WWWBW/WWWWW w\n"), "{}", stdout(&out));
    // A budget too small for the start.
    let out = alq(&["solve", "--nodes", "500", "--quiet"]);
    assert!(out.status.success());
    assert!(stdout(&out).ends_with("value unknown\n"), "{}", stdout(&out));
}

#[test]
fn goals_end_with_proven_disproven_or_unknown() {
    // `...../..B../...../.W.W./..... w` is a White win (value win 7).
    let pos = "...../..B../...../.W.W./..... w";
    for (goal, last) in [
        ("white-wins", "proven white-wins"),
        ("white-draws", "proven white-draws"),
        ("black-wins", "disproven black-wins"),
        ("black-draws", "disproven black-draws"),
        ("wdl", "value win"),
    ] {
        let out = alq(&["solve", "--position", pos, "--goal", goal, "--quiet"]);
        assert!(out.status.success(), "{goal}: {}", String::from_utf8_lossy(&out.stderr));
        let text = stdout(&out);
        assert_eq!(text.lines().last(), Some(last), "{goal}: {text}");
        assert!(text.contains("\nnodes ") && text.contains(" time ") && text.contains(" peak-rss "), "{text}");
    }
    // White to move wins, so the winning side's move is given.
    let out = alq(&["solve", "--position", pos, "--goal", "white-wins", "--quiet", "--eval", "nn"]);
    assert!(stdout(&out).contains("bestmove "), "{}", stdout(&out));
    // The start cannot be settled in 300 positions.
    let out = alq(&["solve", "--goal", "white-draws", "--nodes", "300", "--quiet"]);
    assert!(out.status.success());
    assert!(stdout(&out).ends_with("unknown white-draws\n"), "{}", stdout(&out));
    // A misspelled goal is named, exit status 2.
    let out = alq(&["solve", "--goal", "white-draw"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("\"white-draw\""), "{err}");
}

#[test]
fn certificates_are_written_checked_and_tampering_is_caught() {
    let dir = fresh_dir("cli-solve-certificate");
    let file = dir.join("proof.cert");
    let f = file.to_str().unwrap();
    let pos = "...../..B../...../.W.W./..... w";
    let out = alq(&["solve", "--position", pos, "--goal", "black-draws", "--certificate", f, "--quiet"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(stdout(&out).contains("proves white-wins"), "{}", stdout(&out));
    let out = alq(&["solve", "--check", f]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(stdout(&out).lines().last(), Some("proven white-wins"));
    // Checking it for another position fails.
    let out = alq(&["solve", "--check", f, "--position", "...../..B../...../.W.W./..... b"]);
    assert_eq!(out.status.code(), Some(2));
    // An entry removed (count fixed so that the file parses): rejected, the file named.
    let text = std::fs::read_to_string(&file).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let entries: usize = lines[5].strip_prefix("entries ").unwrap().parse().unwrap();
    let root_key = lines[3].split(' ').nth(1).unwrap();
    let victim = (6..6 + entries).find(|&i| !lines[i].starts_with(root_key)).unwrap();
    let mut tampered: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
    tampered.remove(victim);
    tampered[5] = format!("entries {}", entries - 1);
    std::fs::write(&file, tampered.join("\n") + "\n").unwrap();
    let out = alq(&["solve", "--check", f]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("proof.cert") && err.contains("does not hold"), "{err}");
    // Truncated: refused as such.
    std::fs::write(&file, &text[..text.len() / 2]).unwrap();
    let out = alq(&["solve", "--check", f]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("proof.cert"));
}

#[test]
fn the_store_is_written_read_by_the_next_run_and_damage_is_named() {
    let dir = fresh_dir("cli-solve-store");
    let file = dir.join("proven.store");
    let f = file.to_str().unwrap();
    let pos = "...../B.B../..W../...../W.... w";
    let first = alq(&["solve", "--position", pos, "--goal", "white-draws", "--store", f, "--quiet"]);
    assert!(first.status.success(), "{}", String::from_utf8_lossy(&first.stderr));
    assert!(String::from_utf8_lossy(&first.stderr).contains("positions written"));
    let second = alq(&["solve", "--position", pos, "--goal", "black-wins", "--store", f, "--quiet"]);
    assert!(second.status.success());
    assert!(String::from_utf8_lossy(&second.stderr).contains("positions read"));
    // The same question, answered the other way round.
    let (a, b) = (stdout(&first), stdout(&second));
    let (a, b) = (a.lines().last().unwrap(), b.lines().last().unwrap());
    assert_eq!(a.starts_with("proven"), b.starts_with("disproven"), "{a} / {b}");
    // A damaged store is refused by name, exit status 2; --store needs a goal.
    std::fs::write(&file, b"ALQPROV\nrubbish").unwrap();
    let out = alq(&["solve", "--position", pos, "--goal", "white-draws", "--store", f]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("proven.store"));
    let out = alq(&["solve", "--position", pos, "--store", f]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn solve_refuses_bad_input_without_panicking() {
    for args in [
        &["solve", "--position", "BBBBB/BBBBB w"][..],
        &["solve", "--tb", "/no/such/folder"],
        &["solve", "--hash", "0"],
        &["solve", "--nodes", "5", "--movetime", "5"],
        &["solve", "--moves", "d2-c3 c3-c4"],
    ] {
        let out = alq(args);
        assert!(!out.status.success(), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        assert!(!err.trim().is_empty(), "{args:?}");
    }
}

#[test]
fn resume_file_is_written_and_continues_the_proof() {
    let dir = fresh_dir("cli-solve-resume");
    let file = dir.join("state.bin");
    let f = file.to_str().unwrap();
    let pos = "...../..B../...../.W.W./..... w";
    let out = alq(&["solve", "--position", pos, "--nodes", "300", "--resume", f, "--quiet"]);
    assert!(out.status.success());
    assert!(stdout(&out).ends_with("value unknown\n"), "{}", stdout(&out));
    assert!(file.exists());
    let out = alq(&["solve", "--position", pos, "--resume", f, "--quiet"]);
    let text = stdout(&out);
    assert!(text.ends_with("value win 7\n"), "{text}");
    assert!(!text.contains("restored 0 "), "the second run expands the saved positions again: {text}");
    std::fs::write(&file, b"garbage").unwrap();
    let out = alq(&["solve", "--position", pos, "--resume", f]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("not a solver state file"));
}

#[test]
fn openings_solve_fills_exact_values_and_report_reads_them() {
    let dir = fresh_dir("cli-openings-solve");
    let book = dir.join("book.csv");
    let out = alq(&["openings", "--depth", "1", "--nodes", "200", "--solve", "--solve-nodes", "2000", "--quiet", "--out", book.to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = std::fs::read_to_string(&book).unwrap();
    assert!(text.starts_with("line,plies,position,score,best_move,exact_value\n"), "{text}");
    // 2,000 nodes prove nothing from the start: every exact value is empty.
    assert_eq!(text.lines().count(), 6, "{text}");
    assert!(text.lines().skip(1).all(|l| l.ends_with(',')), "{text}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("ply 1: 0 of 4 positions proven"));
    // --tb without --solve is refused.
    let out = alq(&["openings", "--depth", "1", "--tb", "x", "--out", book.to_str().unwrap()]);
    assert!(!out.status.success());
}

#[test]
fn report_fills_exact_values_from_a_book() {
    let dir = fresh_dir("cli-report-book");
    let out = dir.join("report");
    let games = "../report/tests/data/selfplay.csv";
    let run = alq(&["report", "--games", games, "--out", out.to_str().unwrap(), "--quiet"]);
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    let csv = std::fs::read_to_string(out.join("openings.csv")).unwrap();
    let line = csv.lines().nth(1).and_then(|l| l.split(',').next()).expect("an opening line").to_string();
    // A book that knows the value of that line (what `openings --solve` writes).
    let book = dir.join("book.csv");
    std::fs::write(&book, format!("line,plies,position,score,best_move,exact_value\n{line},1,x,cp 0,,loss 40\n")).unwrap();
    let run = alq(&["report", "--games", games, "--book", book.to_str().unwrap(), "--out", out.to_str().unwrap(), "--quiet"]);
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    let csv = std::fs::read_to_string(out.join("openings.csv")).unwrap();
    let row = csv.lines().find(|l| l.starts_with(&format!("{line},"))).unwrap();
    assert!(row.ends_with(",loss 40"), "{row}");
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(md.contains("loss 40") || csv.contains("loss 40"));
    // A file that is not a book is refused, and so is a missing one.
    let bad = dir.join("bad.csv");
    std::fs::write(&bad, "a,b\n1,2\n").unwrap();
    for book in [bad, dir.join("missing.csv")] {
        let run = alq(&["report", "--games", games, "--book", book.to_str().unwrap(), "--out", out.to_str().unwrap()]);
        assert_eq!(run.status.code(), Some(2));
        assert!(!String::from_utf8_lossy(&run.stderr).contains("panicked"));
    }
}
