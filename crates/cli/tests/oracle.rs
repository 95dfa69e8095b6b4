//! End-to-end checks of `alq oracle` and of the `perfect` player in
//! `alq match`: values with their source, move lines sorted as `alq moves`,
//! the JSON object, the user's store answering a second run, bad input.

use crate::common::{alq, fresh_dir, stdout};

/// `...../..B../...../.W.W./..... w` is a White win in 7 (alq solve).
const WON: &str = "...../..B../...../.W.W./..... w";

#[test]
fn oracle_prints_the_value_then_every_move_sorted_as_alq_moves() {
    let out = alq(&["oracle", "--position", WON, "--nodes", "20000"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = stdout(&out);
    let mut lines = text.lines();
    let first = lines.next().unwrap();
    assert!(first.starts_with("value win source search nodes "), "{text}");
    let moves: Vec<&str> = lines.collect();
    let listed = stdout(&alq(&["moves", "--position", WON]));
    let names: Vec<&str> = moves.iter().map(|l| l.split(' ').next().unwrap()).collect();
    assert_eq!(names, listed.lines().collect::<Vec<_>>(), "{text}");
    // The best move's value is the position's; every value is a known word.
    assert!(moves.iter().any(|l| l.ends_with(" win")), "{text}");
    for l in &moves {
        let v = l.split(' ').nth(1).unwrap();
        assert!(["win", "draw", "loss", "≥draw", "≤draw", "unknown"].contains(&v), "{l}");
    }
    // A position without a move is lost at its end.
    let out = alq(&["oracle", "--position", "...../...../...../...../..B.. w", "--json"]);
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!((json["value"].as_str(), json["source"].as_str()), (Some("loss"), Some("end")));
    assert_eq!(json["moves"].as_array().map(Vec::len), Some(0));
}

#[test]
fn the_users_store_makes_the_second_question_instant() {
    let dir = fresh_dir("oracle-store");
    let store = dir.join("user.store");
    let s = store.to_str().unwrap();
    let first = alq(&["oracle", "--position", WON, "--nodes", "20000", "--store", s, "--no-moves"]);
    assert!(first.status.success(), "{}", String::from_utf8_lossy(&first.stderr));
    assert!(store.exists());
    let second = alq(&["oracle", "--position", WON, "--nodes", "1", "--store", s, "--json", "--no-moves"]);
    let json: serde_json::Value = serde_json::from_slice(&second.stdout).unwrap();
    assert_eq!((json["value"].as_str(), json["source"].as_str()), (Some("win"), Some("store")), "{json}");
    // A damaged store is refused by name, exit 2.
    std::fs::write(&store, b"not a store").unwrap();
    let out = alq(&["oracle", "--position", WON, "--store", s]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("user.store"));
}

#[test]
fn bad_oracle_input_is_refused() {
    for args in [
        &["oracle", "--position", "xyz"][..],
        &["oracle", "--moves", "a1-a9"],
        &["oracle", "--nodes", "0"],
        &["oracle", "--nodes", "5", "--movetime", "5"],
    ] {
        let out = alq(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(!out.stderr.is_empty(), "{args:?}");
    }
}

#[test]
fn perfect_plays_a_match_and_never_loses() {
    let out = alq(&[
        "match",
        "--a",
        "perfect@movetime=20",
        "--b",
        "random",
        // One game with each colour.
        "--games",
        "2",
        "--random-plies",
        "0",
        "--seed",
        "3",
    ]);
    let text = stdout(&out);
    assert!(out.status.success(), "{text}{}", String::from_utf8_lossy(&out.stderr));
    assert!(text.contains("match perfect@movetime=20 vs random"), "{text}");
    // Perfect's view: no game lost (with either colour, from the start).
    let results = text.lines().find(|l| l.starts_with("wins ")).unwrap();
    assert!(results.ends_with("losses 0 (first player's view)"), "{text}");
}

#[test]
fn analyze_prints_the_exact_value_first_with_a_store() {
    let dir = fresh_dir("oracle-analyze");
    let store = dir.join("a.store");
    let out =
        alq(&["analyze", "--position", WON, "--nodes", "500", "--eval", "hce", "--store", store.to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = stdout(&out);
    assert!(text.starts_with("exact win source search nodes "), "{text}");
    assert!(text.lines().last().unwrap().starts_with("bestmove "), "{text}");
    // Without tables or a store nothing is added.
    let plain = stdout(&alq(&["analyze", "--position", WON, "--nodes", "500", "--eval", "hce"]));
    assert!(plain.starts_with("info depth 1 "), "{plain}");
}

/// `alq play` with a store, fed `input` on standard input: its output.
fn play_with_store(store: &std::path::Path, input: &[u8]) -> String {
    play_with(&["--store", store.to_str().unwrap()], input)
}

/// `alq play --nodes 500 --eval hce ARGS`, fed `input`: its output.
fn play_with(args: &[&str], input: &[u8]) -> String {
    use std::io::Write;
    let mut child = std::process::Command::new(crate::common::ALQ)
        .args(["play", "--nodes", "500", "--eval", "hce"])
        .args(args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(input).unwrap();
    let out = child.wait_with_output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(out.status.success(), "{text}");
    text
}

#[test]
fn play_hint_shows_exact_values_with_a_store() {
    let dir = fresh_dir("oracle-play");
    let store = dir.join("p.store");
    // After d2-c3 (it loses) the engine replies; nothing asked, no exact line.
    let text = play_with_store(&store, b"d2-c3\nquit\n");
    assert!(!text.contains("exact:"), "{text}");
    let text = play_with_store(&store, b"hint\nquit\n");
    assert!(text.contains("exact: the position is draw for you (proof);"), "{text}");
}

#[test]
fn play_against_the_perfect_player_keeps_its_win() {
    // d2-c3 loses: the perfect player (Black) answers with a move that keeps
    // Black's win, by the oracle.
    let text = play_with(&["--opponent", "perfect@movetime=50"], b"d2-c3\nquit\n");
    let reply = text
        .lines()
        .find_map(|l| l.strip_prefix("perfect@movetime=50 plays "))
        .unwrap_or_else(|| panic!("no reply in {text}"))
        .trim()
        .to_string();
    let line = format!("d2-c3 {reply}");
    let value = stdout(&alq(&["oracle", "--moves", &line, "--no-moves", "--nodes", "1"]));
    assert!(value.starts_with("value loss "), "{line}: {value}");
    let bad = alq(&["play", "--opponent", "perfect@colour=red"]);
    assert_eq!(bad.status.code(), Some(2));
}

#[test]
fn accuracy_grades_every_move_and_match_grade_adds_it() {
    let dir = fresh_dir("accuracy");
    let games = dir.join("games.csv");
    let json_file = dir.join("match.json");
    let out = alq(&[
        "match",
        "--a",
        "greedy",
        "--b",
        "random",
        "--games",
        "4",
        "--random-plies",
        "0",
        "--save-games",
        games.to_str().unwrap(),
        "--out",
        json_file.to_str().unwrap(),
        "--grade",
        "--grade-movetime",
        "20",
        "--quiet",
    ]);
    let text = stdout(&out);
    assert!(out.status.success(), "{text}{}", String::from_utf8_lossy(&out.stderr));
    assert!(text.contains("graded 4 games"), "{text}");
    let matched: serde_json::Value = serde_json::from_slice(&std::fs::read(&json_file).unwrap()).unwrap();
    assert_eq!(matched["grades"]["games"].as_u64(), Some(4), "{matched}");

    let out = alq(&["accuracy", "--games", games.to_str().unwrap(), "--nodes", "2000", "--json", "--quiet"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["games"].as_u64(), Some(4));
    assert_eq!(json["first_errors"].as_array().map(Vec::len), Some(4));
    let players = json["players"].as_object().unwrap();
    assert_eq!(players.len(), 2, "{json}");
    let (mut total, mut at_least) = (0, 0.0);
    for (name, p) in players {
        let n = |k: &str| p[k].as_u64().unwrap();
        assert_eq!(n("moves"), n("kept") + n("half_lost") + n("full_lost") + n("unknown"), "{name}: {p}");
        assert_eq!(n("games"), 4, "{name}");
        let phases = p["phases"].as_object().unwrap();
        assert_eq!(phases.keys().collect::<Vec<_>>(), ["endgame", "middle", "opening"]);
        // The opening phase is plies 1-10: five moves a side a game at most.
        assert!(phases["opening"]["moves"].as_u64().unwrap() <= 20, "{p}");
        // The shipped proofs value every position to ply 6: the first moves
        // of each side are graded, not unknown.
        assert!(phases["opening"]["kept"].as_u64().unwrap() + phases["opening"]["half_lost"].as_u64().unwrap() >= 8);
        total += n("moves");
        let f = |k: &str| p[k].as_f64().unwrap();
        assert!(f("errors_at_least_per_game") >= f("errors_per_game"), "{name}: {p}");
        at_least += f("errors_at_least_per_game") * 4.0;
    }
    // The start is a draw: each decisive game holds an error at least.
    let results = std::fs::read_to_string(&games).unwrap();
    let decisive = results.lines().filter(|l| l.contains(",1-0,") || l.contains(",0-1,")).count() as f64;
    assert!(decisive > 0.0 && at_least + 1e-9 >= decisive, "{at_least} errors at least, {decisive} decisive games");
    // Every move of every game was graded, by one side or the other.
    let mut reader = csv::Reader::from_path(&games).unwrap();
    let column = reader.headers().unwrap().iter().position(|h| h == "plies").unwrap();
    let plies: u64 = reader.records().map(|r| r.unwrap()[column].parse::<u64>().unwrap()).sum();
    assert_eq!(total, plies);

    // Bad input: a missing file, a damaged file, a zero budget.
    let bad = dir.join("bad.csv");
    std::fs::write(&bad, "not,a,games,file\n1,2,3,4\n").unwrap();
    for args in [
        &["accuracy", "--games", "/nonexistent/games.csv"][..],
        &["accuracy", "--games", bad.to_str().unwrap()],
        &["accuracy", "--games", games.to_str().unwrap(), "--movetime", "0"],
    ] {
        let out = alq(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(!out.stderr.is_empty(), "{args:?}");
    }
    // --rules-values without distance-to-progress tables: named.
    let out = alq(&["accuracy", "--games", games.to_str().unwrap(), "--nodes", "10", "--rules-values"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--kind dtz"), "{}", String::from_utf8_lossy(&out.stderr));
    // With them (≤ 4 pieces: the start's games reach none, but the values
    // are named in the output).
    let tb = dir.join("tb");
    let out = alq(&["tb", "build", "--pieces", "4", "--kind", "dtz", "--out", tb.to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let out = alq(&[
        "accuracy",
        "--games",
        games.to_str().unwrap(),
        "--nodes",
        "10",
        "--rules-values",
        "--tb",
        tb.to_str().unwrap(),
        "--json",
        "--quiet",
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["values"], "rule", "{json}");
    assert_eq!(json["games"].as_u64(), Some(4));
}

#[test]
fn atlas_writes_the_trees_values_and_refuses_bad_arguments() {
    let dir = fresh_dir("atlas");
    let (work, out, csv) = (dir.join("work.store"), dir.join("atlas.store"), dir.join("atlas.csv"));
    let run = alq(&[
        "atlas",
        "--depth",
        "2",
        "--nodes",
        "1000",
        "--work",
        work.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--csv",
        csv.to_str().unwrap(),
        "--quiet",
    ]);
    let text = stdout(&run);
    assert!(run.status.success(), "{text}{}", String::from_utf8_lossy(&run.stderr));
    // The shipped proofs settle plies 0-2: the start is drawn, d2-c3 loses.
    let rows: Vec<&str> = text.lines().filter(|l| l.trim_start().starts_with(char::is_numeric)).collect();
    assert_eq!(rows.len(), 3, "{text}");
    let fields: Vec<&str> = rows[1].split_whitespace().collect();
    assert_eq!(fields[..7], ["1", "4", "0", "3", "1", "0", "0"], "{text}");
    assert!(text.contains("traps after c2-c3"), "{text}");
    assert!(!text.contains("traps after d2-c3"), "{text}");
    // The atlas: the 10 distinct positions of plies 0-2; the CSV a row each.
    let rows = std::fs::read_to_string(&csv).unwrap();
    assert_eq!(rows.lines().count(), 11, "{rows}");
    assert!(rows.lines().nth(1).unwrap().starts_with("0,"), "{rows}");
    let first = rows.lines().nth(1).unwrap();
    assert!(first.ends_with(",draw,draw,4,3"), "{first}");
    let start = alq(&["oracle", "--read-store", out.to_str().unwrap(), "--no-shipped", "--nodes", "1", "--no-moves"]);
    assert!(stdout(&start).starts_with("value draw source store"), "{}", stdout(&start));
    // --save-tree after a part (--only-ply) and with --table-only: what the
    // stores know of the tree, which another machine reads back.
    let tree = dir.join("tree.store");
    let save_tree = |extra: &[&str]| {
        let mut args = vec!["atlas", "--depth", "2", "--work", work.to_str().unwrap(), "--quiet"];
        args.extend_from_slice(&["--save-tree", tree.to_str().unwrap()]);
        args.extend_from_slice(extra);
        let run = alq(&args);
        assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
        assert!(
            String::from_utf8_lossy(&run.stderr).contains("tree store"),
            "{}",
            String::from_utf8_lossy(&run.stderr)
        );
        let start =
            alq(&["oracle", "--read-store", tree.to_str().unwrap(), "--no-shipped", "--nodes", "1", "--no-moves"]);
        assert!(stdout(&start).starts_with("value draw source store"), "{extra:?}: {}", stdout(&start));
        std::fs::remove_file(&tree).unwrap();
    };
    save_tree(&["--only-ply", "2", "--nodes", "1000"]);
    save_tree(&["--table-only"]);
    // A damaged tried log is refused, naming the file and the line.
    let tried = dir.join("atlas.tried");
    std::fs::write(&tried, "00000000000000ff ms:4000\nnot a record\n00000000000000fe ms:1\n").unwrap();
    let run = alq(&[
        "atlas",
        "--depth",
        "1",
        "--nodes",
        "10",
        "--work",
        work.to_str().unwrap(),
        "--quiet",
        "--tried",
        tried.to_str().unwrap(),
    ]);
    let err = String::from_utf8_lossy(&run.stderr);
    assert!(!run.status.success() && err.contains("atlas.tried, line 2"), "{err}");
    for args in [
        &["atlas", "--shard", "2/2"][..],
        &["atlas", "--threads", "0"],
        &["atlas", "--nodes", "0"],
        &["atlas", "--certify", "x", "--only-ply", "1"],
        &["atlas", "--certify", "x", "--retry"],
    ] {
        let out = alq(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(!out.stderr.is_empty(), "{args:?}");
    }
    // --certify needs the tables its leaves are proven over, and refuses a
    // damaged list of split positions, naming the file and the line.
    let certs = dir.join("certs");
    let certify = |extra: &[&str]| {
        let mut args = vec!["atlas", "--depth", "1", "--work", work.to_str().unwrap(), "--quiet"];
        args.extend_from_slice(&["--certify", certs.to_str().unwrap()]);
        args.extend_from_slice(extra);
        alq(&args)
    };
    let run = certify(&[]);
    let err = String::from_utf8_lossy(&run.stderr);
    assert!(!run.status.success() && err.contains("--certify needs --tb"), "{err}");
    let tb = dir.join("tb2");
    assert!(alq(&["tb", "build", "--pieces", "2", "--kind", "wdl", "--out", tb.to_str().unwrap()]).status.success());
    std::fs::create_dir_all(&certs).unwrap();
    std::fs::write(certs.join("atlas-d1-white-wins.split"), "0000000000000001\nnot a key\n").unwrap();
    let run = certify(&["--tb", tb.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&run.stderr);
    assert!(!run.status.success() && err.contains("atlas-d1-white-wins.split line 2"), "{err}");
}

#[test]
fn label_values_training_positions_into_a_store_the_trainer_reads() {
    let dir = fresh_dir("label");
    let store = dir.join("labels.store");
    let s = store.to_str().unwrap();
    let games = "../report/tests/data/selfplay.csv";
    let run = |extra: &[&str]| {
        let mut args = vec!["label", "--games", games, "--store", s, "--nodes", "3000", "--threads", "2", "--quiet"];
        args.extend_from_slice(extra);
        alq(&args)
    };
    let out = run(&[]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let numbers = |text: &str| -> (u64, u64, u64) {
        // "N positions: E exact (P %), K known before the run; T s"
        let words: Vec<&str> = text.split_whitespace().collect();
        (words[0].parse().unwrap(), words[2].parse().unwrap(), words[6].parse().unwrap())
    };
    let (positions, exact, known) = numbers(&stdout(&out));
    assert!(exact > 0 && exact < positions, "{}", stdout(&out));
    assert!(store.exists());
    // Rerun: everything searched is known, nothing is lost.
    let again = run(&[]);
    let (positions2, exact2, known2) = numbers(&stdout(&again));
    assert_eq!(positions2, positions);
    assert!(exact2 >= exact && known2 > known, "{} then {}", stdout(&out), stdout(&again));
    // The trainer counts the store's exact values.
    let config = dir.join("train.toml");
    std::fs::write(&config, format!("hidden = [8]\nepochs = 1\nstores = [{s:?}]\nexact_weight = 0.5\n")).unwrap();
    let out = alq(&[
        "train",
        "--config",
        config.to_str().unwrap(),
        "--data",
        games,
        "--out",
        dir.join("net").to_str().unwrap(),
        "--quiet",
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let printed = String::from_utf8_lossy(&out.stderr);
    assert!(printed.contains("with exact values from the tables or stores (weight 0.5): "), "{printed}");
    assert!(printed.contains(" in the game"), "{printed}");
    let resolved = std::fs::read_to_string(dir.join("net/config.toml")).unwrap();
    assert!(resolved.contains("labels.store") && resolved.contains("exact_weight = 0.5"), "{resolved}");
    // A run that settles nothing still writes its store, so that a
    // training config naming it works.
    let empty = dir.join("empty.store");
    let out = alq(&["label", "--games", games, "--store", empty.to_str().unwrap(), "--max-pieces", "2", "--quiet"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(stdout(&out).starts_with("0 positions: 0 exact"), "{}", stdout(&out));
    assert!(empty.exists());
    // Bad input: a missing games file, no budget left, a damaged store.
    for args in [
        &["label", "--games", "/no/such.csv", "--store", s][..],
        &["label", "--games", games, "--store", s, "--nodes", "0"],
        &["label", "--games", games, "--store", s, "--threads", "0"],
    ] {
        let out = alq(args);
        assert_ne!(out.status.code(), Some(0), "{args:?}");
        assert!(!out.stderr.is_empty(), "{args:?}");
    }
    std::fs::write(&store, b"not a store").unwrap();
    let out = run(&[]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("labels.store"));
}
