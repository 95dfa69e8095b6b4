//! End-to-end checks of `alq solve`, `alq openings --solve` and
//! `alq report --book`: values, output, resume, bad input.

use std::process::Output;

use crate::common::{alq, fresh_dir, stdout};

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
    // A store made under the classic rules is refused under BrainKing's, by
    // name, whether read and written, read only, or merged.
    std::fs::remove_file(&file).unwrap();
    let classic =
        alq(&["solve", "--rules", "classic", "--position", pos, "--goal", "white-draws", "--store", f, "--quiet"]);
    assert!(classic.status.success(), "{}", String::from_utf8_lossy(&classic.stderr));
    let other = dir.join("other.store");
    for args in [
        vec!["solve", "--position", pos, "--goal", "white-draws", "--store", f],
        vec!["solve", "--position", pos, "--goal", "white-draws", "--read-store", f],
        vec!["solve", "--store", other.to_str().unwrap(), "--merge", f],
    ] {
        let out = alq(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("proven.store") && err.contains("classic"), "{args:?}: {err}");
    }
    assert!(!other.exists());
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
    let out = alq(&[
        "openings",
        "--depth",
        "1",
        "--nodes",
        "200",
        "--solve",
        "--solve-nodes",
        "2000",
        "--no-shipped",
        "--quiet",
        "--out",
        book.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = std::fs::read_to_string(&book).unwrap();
    assert!(text.starts_with("line,plies,position,score,best_move,exact_value\n"), "{text}");
    // 2,000 nodes prove nothing from the start: without the shipped atlas
    // every exact value is empty.
    assert_eq!(text.lines().count(), 6, "{text}");
    assert!(text.lines().skip(1).all(|l| l.ends_with(',')), "{text}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("ply 1: 0 of 4 positions proven (0 from the stores)"));
    // With it (the default), the atlas completes every row to ply 2: the
    // start is drawn, d2-c3 loses for White (Black to move wins).
    let out = alq(&[
        "openings",
        "--depth",
        "2",
        "--nodes",
        "200",
        "--solve",
        "--solve-nodes",
        "2000",
        "--quiet",
        "--out",
        book.to_str().unwrap(),
    ]);
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(out.status.success(), "{err}");
    assert!(err.contains("ply 2: 5 of 5 positions proven"), "{err}");
    let text = std::fs::read_to_string(&book).unwrap();
    let value = |line: &str| {
        let row = text.lines().find(|l| l.starts_with(&format!("{line},"))).unwrap_or_else(|| panic!("{text}"));
        row.rsplit(',').next().unwrap().to_string()
    };
    assert_eq!(value(""), "draw");
    assert_eq!(value("d2-c3"), "win");
    assert_eq!(text.lines().count(), 11, "{text}");
    assert!(text.lines().skip(1).all(|l| !l.ends_with(',')), "{text}");
    // --tb without --solve is refused.
    let out = alq(&["openings", "--depth", "1", "--tb", "x", "--out", book.to_str().unwrap()]);
    assert!(!out.status.success());
}

#[test]
fn openings_solve_goals_prints_a_table_per_ply_and_goal() {
    let dir = fresh_dir("cli-openings-goals");
    let book = dir.join("book.csv");
    let b = book.to_str().unwrap();
    let out = alq(&[
        "openings",
        "--depth",
        "1",
        "--nodes",
        "200",
        "--solve",
        "--solve-nodes",
        "500",
        "--solve-goal",
        "white-draws,black-draws",
        "--quiet",
        "--out",
        b,
    ]);
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(out.status.success(), "{err}");
    assert!(err.contains("| ply | positions | white-draws | black-draws | value known |"), "{err}");
    // 500 nodes settle nothing this close to the start.
    assert!(err.contains("| 0 | 1 | 0 / 0 | 0 / 0 | 0 |"), "{err}");
    assert!(err.contains("| 1 | 4 | 0 / 0 | 0 / 0 | 0 |"), "{err}");
    let text = std::fs::read_to_string(&book).unwrap();
    assert_eq!(text.lines().count(), 6, "{text}");
    // A misspelled goal is named, exit 2.
    let out = alq(&["openings", "--depth", "1", "--solve", "--solve-goal", "white-drawz", "--quiet", "--out", b]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--solve-goal") && err.contains("white-drawz"), "{err}");
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
    std::fs::write(&book, format!("line,plies,position,score,best_move,exact_value\n{line},1,x,cp 0,,loss 40\n"))
        .unwrap();
    let run =
        alq(&["report", "--games", games, "--book", book.to_str().unwrap(), "--out", out.to_str().unwrap(), "--quiet"]);
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

#[test]
fn a_goal_search_saves_its_state_and_the_next_run_continues_it() {
    let dir = fresh_dir("cli-solve-goal-resume");
    let file = dir.join("search.state");
    let f = file.to_str().unwrap();
    let pos = "B...B/...../..B../.W.W./W.... w"; // about 1,000 expansions
    let out = alq(&["solve", "--position", pos, "--goal", "white-wins", "--nodes", "20", "--resume", f, "--quiet"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(stdout(&out).ends_with("unknown white-wins\n"), "{}", stdout(&out));
    assert!(file.exists() && String::from_utf8_lossy(&out.stderr).contains("state saved"));
    // Another goal cannot continue it: exit 2, the file named.
    let out = alq(&["solve", "--position", pos, "--goal", "white-draws", "--resume", f, "--quiet"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("search.state") && err.contains("does not match"), "{err}");
    // The same goal continues to the answer, and the state is removed.
    let out = alq(&["solve", "--position", pos, "--goal", "white-wins", "--resume", f, "--quiet"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = stdout(&out);
    assert!(text.contains("resumed after 20 positions"), "{text}");
    let last = text.lines().last().unwrap();
    assert!(last == "proven white-wins" || last == "disproven white-wins", "{text}");
    let fresh = alq(&["solve", "--position", pos, "--goal", "white-wins", "--quiet"]);
    assert_eq!(stdout(&fresh).lines().last(), Some(last), "the resumed search agrees with a fresh one");
    assert!(!file.exists());
    // Two goals at once cannot be resumed; a damaged state is named.
    let out = alq(&["solve", "--position", pos, "--goal", "wdl", "--resume", f]);
    assert_eq!(out.status.code(), Some(2));
    std::fs::write(&file, b"ALQTHRS\nshort").unwrap();
    let out = alq(&["solve", "--position", pos, "--goal", "white-wins", "--resume", f]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("search.state"));
}

#[test]
fn split_jobs_are_solved_into_stores_that_merge_and_settle_the_root() {
    let dir = fresh_dir("cli-solve-split");
    let jobs = dir.join("jobs.txt");
    let pos = "...../.B.B./...../.W.W./..... w";
    let out = alq(&["solve", "--position", pos, "--split", "2", "--jobs", jobs.to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = std::fs::read_to_string(&jobs).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines.len() >= 2, "{text}");
    let mut stores = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let (job, moves) = line.split_once('\t').unwrap();
        assert_eq!(moves.split_whitespace().count(), 2, "{line}");
        let store = dir.join(format!("job-{i}.store"));
        let out =
            alq(&["solve", "--position", job, "--goal", "white-draws", "--store", store.to_str().unwrap(), "--quiet"]);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        stores.push(store.to_str().unwrap().to_string());
    }
    let shared = dir.join("shared.store");
    let mut args = vec!["solve", "--store", shared.to_str().unwrap(), "--merge"];
    args.extend(stores.iter().map(|s| s.as_str()));
    let out = alq(&args);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(stdout(&out).starts_with("store "), "{}", stdout(&out));
    // The root, with the merged store read only: the same answer as alone,
    // from fewer expansions; the store is not written.
    let before = std::fs::read(&shared).unwrap();
    let with = alq(&[
        "solve",
        "--position",
        pos,
        "--goal",
        "white-draws",
        "--read-store",
        shared.to_str().unwrap(),
        "--quiet",
    ]);
    let alone = alq(&["solve", "--position", pos, "--goal", "white-draws", "--quiet"]);
    assert_eq!(stdout(&with).lines().last(), stdout(&alone).lines().last());
    let nodes = |o: &Output| {
        stdout(o).lines().find(|l| l.starts_with("nodes ")).unwrap().split(' ').nth(1).unwrap().parse::<u64>().unwrap()
    };
    assert!(nodes(&with) <= nodes(&alone), "{} > {}", nodes(&with), nodes(&alone));
    assert_eq!(std::fs::read(&shared).unwrap(), before);
    // A damaged store in a merge: exit 2, nothing written.
    let bad = dir.join("bad.store");
    std::fs::write(&bad, b"not a store").unwrap();
    let out = alq(&["solve", "--store", shared.to_str().unwrap(), "--merge", bad.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("bad.store"));
    assert_eq!(std::fs::read(&shared).unwrap(), before);
}

#[test]
fn reachable_counts_layers_and_stops_at_its_memory() {
    let out = alq(&["solve", "--reachable", "--min-pieces", "22"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = stdout(&out);
    assert!(text.contains("\n24 5 1 0 ") && text.contains("\n23 5 5 0 ") && text.contains("\n22 16 5 0 "), "{text}");
    assert!(text.contains("total 26 positions in 3 layers"), "{text}");
    let out = alq(&["solve", "--reachable", "--hash", "1"]);
    assert!(out.status.success());
    assert!(stdout(&out).contains("stopped at "), "{}", stdout(&out));
}

/// `alq solve --deepen`: a shipped ≤ 10-piece certificate re-proven over
/// ≤ 6 tables with a one-node budget: leaves resist (listed by key,
/// nothing written, exit 2); bad combinations and inputs are refused. (The
/// library's tests, crates/solver/tests/deepen.rs, run whole deepenings.)
#[test]
fn deepen_lists_resisting_leaves_then_writes_a_certificate_over_small_tables() {
    let dir = fresh_dir("deepen");
    let tb = dir.join("tb6w");
    let tb_arg = tb.to_str().unwrap();
    let built = alq(&["tb", "build", "--pieces", "6", "--kind", "wdl", "--out", tb_arg]);
    assert!(built.status.success(), "{}", String::from_utf8_lossy(&built.stderr));
    let cert = concat!(env!("CARGO_MANIFEST_DIR"), "/../../data/proofs/d2-c3-black-draws.cert");
    let out_file = dir.join("d2c3.cert.gz");
    let out_arg = out_file.to_str().unwrap();
    let deepen =
        |nodes: &str| alq(&["solve", "--deepen", cert, "--tb", tb_arg, "--out", out_arg, "--nodes", nodes, "--quiet"]);
    let first = deepen("1");
    assert_eq!(first.status.code(), Some(2), "{}", stdout(&first));
    let text = stdout(&first);
    assert!(text.contains("\nresisting ") && !out_file.exists(), "{text}");
    assert!(String::from_utf8_lossy(&first.stderr).contains("leaves not proven"));
    // Bad combinations and inputs.
    for bad in [
        vec!["solve", "--deepen", cert, "--tb", tb_arg, "--out", out_arg, "--goal", "white-wins"],
        vec!["solve", "--deepen", cert, "--out", out_arg],
        vec!["solve", "--deepen", "no-such.cert", "--tb", tb_arg, "--out", out_arg],
    ] {
        assert_eq!(alq(&bad).status.code(), Some(2), "{bad:?}");
    }
}

#[test]
fn no_progress_measures_the_runs_inside_a_win_certificate() {
    let dir = fresh_dir("cli-solve-no-progress");
    let tb = dir.join("tb");
    let t = tb.to_str().unwrap();
    let out = alq(&["tb", "build", "--pieces", "4", "--kind", "wdl", "--out", t]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    // A White win whose certificate has a table leaf of ≤ 4 pieces.
    let pos = "...../..B../B..../.W.W./..W.. w";
    let cert = dir.join("win.cert");
    let f = cert.to_str().unwrap();
    let out = alq(&["solve", "--position", pos, "--goal", "white-wins", "--certificate", f, "--tb", t, "--quiet"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    // Without dtz tables the leaves' distances to progress are missing: named.
    let out = alq(&["solve", "--check", f, "--tb", t, "--no-progress"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--kind dtz"), "{}", String::from_utf8_lossy(&out.stderr));
    let out = alq(&["tb", "build", "--pieces", "4", "--kind", "dtz", "--out", t]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    // The longest run: two plies (a sideways move, then a capture) from the root.
    let out = alq(&["solve", "--check", f, "--tb", t, "--no-progress"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = stdout(&out);
    assert!(text.contains(&format!("longest run without progress 2 plies from {pos}: ")), "{text}");
    assert!(text.contains("no-progress rule 60: holds"), "{text}");
    assert!(text.contains("repetition: no position comes back"), "{text}");
    assert_eq!(text.lines().last(), Some("proven white-wins"), "{text}");
    // A rule of 1 ply: that run does not fit, exit 2.
    let out = alq(&["solve", "--check", f, "--tb", t, "--no-progress", "1"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no-progress rule 1: not shown"), "{}", stdout(&out));
    // A draw goal holds under the rule as it is.
    let draw = dir.join("draw.cert");
    let d = draw.to_str().unwrap();
    let out = alq(&["solve", "--position", pos, "--goal", "white-draws", "--certificate", d, "--tb", t, "--quiet"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = stdout(&alq(&["solve", "--check", d, "--tb", t, "--no-progress"]));
    assert!(text.contains("holds under it too"), "{text}");
    // --no-progress needs --check and --tb.
    assert_eq!(alq(&["solve", "--check", f, "--no-progress"]).status.code(), Some(2));

    // Classic: a forward move can be taken back, so repetition is covered
    // only with distance tables beside the dtz ones (the leaves played on
    // by the fastest wins).
    let classic = dir.join("classic");
    let c = classic.to_str().unwrap();
    let cert = dir.join("classic.cert");
    let cf = cert.to_str().unwrap();
    for kind in ["wdl", "dtz"] {
        let out = alq(&["tb", "build", "--rules", "classic", "--pieces", "4", "--kind", kind, "--out", c]);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    }
    let out = alq(&[
        "solve",
        "--rules",
        "classic",
        "--position",
        pos,
        "--goal",
        "white-wins",
        "--certificate",
        cf,
        "--tb",
        c,
        "--quiet",
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = stdout(&alq(&["solve", "--check", cf, "--tb", c, "--no-progress"]));
    assert!(text.contains("no-progress rule 60: holds") && text.contains("repetition: not covered"), "{text}");
    let out = alq(&["tb", "build", "--rules", "classic", "--pieces", "4", "--kind", "distance", "--out", c]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = stdout(&alq(&["solve", "--check", cf, "--tb", c, "--no-progress"]));
    assert!(text.contains("table leaves by their distance to the end"), "{text}");
    assert!(text.contains("no-progress rule 60 and repetition: hold"), "{text}");
}
