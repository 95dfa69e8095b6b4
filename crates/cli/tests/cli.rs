//! End-to-end checks of the `alq` binary: output formats and exit codes.

use std::process::Command;

use crate::common::{alq, fresh_dir, stdout};

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
        &["serve", "--games", "no-such-games.csv", "--port", "0"],
        &["serve", "--games", "Cargo.toml", "--port", "0", "--eval", "none"],
        &["serve", "--games", "x.csv", "--eval", "nope"],
        &["serve", "--games", "x.csv", "--max-plies", "0"],
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
    assert!(first.lines().any(|l| l == "eval hce"), "{first}");
    // Another evaluator is named on its own line; a missing one is refused
    // before any work.
    let out = alq(&["bench", "--eval", "no-such-network.alqnet"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("no-such-network.alqnet"));
}

#[test]
fn analyze_prints_iterations_then_bestmove() {
    let out = alq(&["analyze", "--depth", "4"]);
    assert!(out.status.success());
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 5, "{text}");
    for (i, line) in lines[..4].iter().enumerate() {
        assert!(line.starts_with(&format!("info depth {} score ", i + 1)), "{line}");
        assert!(line.contains(" nodes ") && line.contains(" nps ") && line.contains(" time ") && line.contains(" pv "));
    }
    assert!(
        ["bestmove b2-c3", "bestmove c2-c3", "bestmove d2-c3", "bestmove d3-c3"].contains(&lines[4]),
        "{}",
        lines[4]
    );
    let lost = alq(&["analyze", "--depth", "3", "--position", "W.W.W/...../...../...../BBBBB w"]);
    assert_eq!(stdout(&lost), "bestmove none\n");
    // A forced win is reported as such.
    let win = alq(&["analyze", "--depth", "3", "--position", "..WB./...../...../...../B.... w"]);
    assert!(stdout(&win).contains("score win 1"), "{}", stdout(&win));
    assert_eq!(alq(&["analyze"]).status.code(), Some(2), "a limit is required");
    assert_eq!(alq(&["analyze", "--depth", "2", "--eval", "magic"]).status.code(), Some(2));
}

#[test]
fn match_writes_json() {
    let dir = fresh_dir("match");
    let json = dir.join("m.json");
    let out = alq(&[
        "match",
        "--a",
        "hce@nodes=300",
        "--b",
        "random",
        "--games",
        "8",
        "--openings",
        "3",
        "--quiet",
        "--out",
        json.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let value: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    for key in ["wins", "draws", "losses", "elo", "elo_ci95", "nelo", "nelo_ci95", "games", "pentanomial"] {
        assert!(value.get(key).is_some(), "missing {key}");
    }
    assert_eq!(value["games"], 8);
    // nElo is a number with an interval around it, or null with no spread.
    match (value["nelo"].as_f64(), value["nelo_ci95"].as_array()) {
        (Some(v), Some(ci)) => {
            let (lo, hi) = (ci[0].as_f64().unwrap(), ci[1].as_f64().unwrap());
            assert!(lo <= v && v <= hi, "{v} [{lo}, {hi}]");
            assert!(stdout(&out).contains("nelo "), "{}", stdout(&out));
        }
        _ => assert!(value["nelo"].is_null() && value["nelo_ci95"].is_null()),
    }
    // 4 pairs over the 6 positions 3 plies deep: no note.
    assert!(!String::from_utf8_lossy(&out.stderr).contains("repeated opening"));
    // 6 pairs over the 5 positions 2 plies deep: the match plays, and says
    // that its interval counts repeated games.
    let out =
        alq(&["match", "--a", "hce@nodes=50", "--b", "hce@nodes=60", "--games", "12", "--openings", "2", "--quiet"]);
    assert!(out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("6 pairs over 5 openings"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(alq(&["match", "--a", "hce", "--b", "nobody", "--games", "2"]).status.code(), Some(2));
    assert_eq!(alq(&["match", "--a", "hce", "--b", "random", "--games", "3"]).status.code(), Some(2));
    assert_eq!(alq(&["match", "--a", "hce", "--b", "random", "--sprt", "5,1"]).status.code(), Some(2));
}

#[test]
fn selfplay_records_and_stats() {
    let dir = fresh_dir("selfplay");
    let out = dir.join("run");
    let run = alq(&[
        "selfplay",
        "--config",
        "../../configs/selfplay.toml",
        "--out",
        out.to_str().unwrap(),
        "--games",
        "6",
        "--nodes",
        "200",
        "--quiet",
    ]);
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    assert!(out.join("run.toml").exists());
    let stats = stdout(&alq(&["records", "stats", out.join("games.csv").to_str().unwrap()]));
    assert!(stats.starts_with("games 6\n"), "{stats}");
    assert!(stats.contains("average_plies ") && stats.contains("positions "));
    // Running again into the same folder without --resume is refused.
    let again = alq(&["selfplay", "--out", out.to_str().unwrap(), "--games", "6", "--nodes", "200", "--quiet"]);
    assert_eq!(again.status.code(), Some(2));

    // The blunder table's unbalanced-book config, with the player given as
    // a flag: each game starts with its line of the book, then the player's own moves.
    let unbalanced = dir.join("unbalanced");
    let run = alq(&[
        "selfplay",
        "--config",
        "../../configs/blunder-unbalanced.toml",
        "--player",
        "greedy",
        "--games",
        "4",
        "--out",
        unbalanced.to_str().unwrap(),
        "--quiet",
    ]);
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    let (games, _) = alq_records::read_all(&[unbalanced.join("games.csv")], false).unwrap();
    let book = std::fs::read_to_string("../../configs/unbalanced-10.csv").unwrap();
    let first_line = book.lines().nth(1).unwrap().split(',').next().unwrap().trim_matches('"').to_string();
    assert_eq!(games.len(), 4);
    assert!(games.iter().all(|g| g.record.white == "greedy" && g.record.opening_plies == 10), "{:?}", games[0].record);
    let played: Vec<String> = games[0].game.moves().iter().take(10).map(|m| m.to_string()).collect();
    assert_eq!(played.join(" "), first_line);
    let bad = alq(&["selfplay", "--player", "nobody", "--games", "2", "--out", dir.join("y").to_str().unwrap()]);
    assert_eq!(bad.status.code(), Some(2));

    let bad_config = dir.join("bad.toml");
    std::fs::write(&bad_config, "games = 4\nnodez = 10\n").unwrap();
    let bad = alq(&["selfplay", "--config", bad_config.to_str().unwrap(), "--out", dir.join("x").to_str().unwrap()]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("nodez"));

    let broken = dir.join("broken.csv");
    std::fs::write(&broken, "id,seed\n1,2\n").unwrap();
    let bad = alq(&["records", "stats", broken.to_str().unwrap()]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("missing column"));

    // Rescoring: the same games, a record of how, and refusals.
    let games = out.join("games.csv");
    let rescored = dir.join("rescored.csv");
    let rescore = |extra: &[&str]| {
        let mut args =
            vec!["records", "rescore", games.to_str().unwrap(), "--out", rescored.to_str().unwrap(), "--quiet"];
        args.extend_from_slice(extra);
        alq(&args)
    };
    let run = rescore(&["--player", "hce@nodes=1000", "--fraction", "0.5"]);
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    assert!(String::from_utf8_lossy(&run.stderr).contains("positions re-searched by hce@nodes=1000"));
    assert!(stdout(&alq(&["records", "stats", rescored.to_str().unwrap()])).starts_with("games 6\n"));
    assert!(std::fs::read_to_string(dir.join("rescored.rescore.toml")).unwrap().contains("fraction = 0.5"));
    for (extra, says) in [
        (&["--player", "hce@nodes=1000", "--fraction", "0.5"][..], "--resume"),
        (&["--player", "hce@nodes=1000", "--fraction", "0.25", "--resume"], "other settings"),
        (&["--player", "greedy", "--fraction", "0.5", "--resume"], "searching player"),
    ] {
        let bad = rescore(extra);
        assert_eq!(bad.status.code(), Some(2), "{extra:?}");
        assert!(
            String::from_utf8_lossy(&bad.stderr).contains(says),
            "{extra:?}: {}",
            String::from_utf8_lossy(&bad.stderr)
        );
    }
}

#[test]
fn play_takes_moves_and_saves_finished_games() {
    use std::io::Write;
    let dir = fresh_dir("play");
    let save = dir.join("games.csv");
    let mut child = Command::new(env!("CARGO_BIN_EXE_alq"))
        .args([
            "play",
            "--depth",
            "2",
            "--position",
            "...../...../...../...B./..W.. w",
            "--save",
            save.to_str().unwrap(),
        ])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.as_mut().unwrap().write_all(b"c1-c2\nmoves\nc1xe3\n").unwrap();
    let out = child.wait_with_output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("not legal here; legal moves: c1xe3"), "{text}");
    assert!(text.contains("result 1-0 (no_moves)"), "{text}");
    let (games, _) = alq_records::read_all(&[save], false).unwrap();
    assert_eq!(games.len(), 1);
}

#[test]
fn report_shows_the_exact_opening_atlas() {
    let dir = fresh_dir("report-atlas");
    let games = "../report/tests/data/match.csv";
    let run_with = |name: &str, extra: &[&str]| {
        let out = dir.join(name);
        let mut args = vec!["report", "--games", games, "--out", out.to_str().unwrap(), "--quiet"];
        args.extend_from_slice(extra);
        let run = alq(&args);
        (run, out)
    };
    let (run, out) = run_with("default", &[]);
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    let plies = summary["atlas"]["plies"].as_array().unwrap();
    // Plies 0-10 of the tree: the start drawn, d2-c3 lost for White.
    assert_eq!(plies.len(), 11);
    assert_eq!(plies[10]["positions"], 24332);
    assert_eq!((plies[0]["draws"].as_u64(), plies[1]["black_wins"].as_u64()), (Some(1), Some(1)));
    let traps: Vec<&str> =
        summary["atlas"]["traps"].as_array().unwrap().iter().map(|t| t["first_move"].as_str().unwrap()).collect();
    assert_eq!(traps, ["b2-c3", "c2-c3", "d3-c3"]);
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(md.contains("## The exact opening atlas") && md.contains("most practical holding first move"), "{md}");
    assert!(std::fs::read_to_string(out.join("report.html")).unwrap().contains("<h2 id=\"atlas\">"));
    // Shallower, or left out.
    let (run, out) = run_with("shallow", &["--atlas-depth", "3"]);
    assert!(run.status.success());
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    assert_eq!(summary["atlas"]["plies"].as_array().unwrap().len(), 4);
    let (run, out) = run_with("none", &["--atlas-depth", "0"]);
    assert!(run.status.success());
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    assert!(summary.get("atlas").is_none());
    // A missing store is named, exit 2.
    let (run, _) = run_with("missing", &["--read-store", "no-such.store"]);
    assert_eq!(run.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&run.stderr).contains("no-such.store"));
}

#[test]
fn report_and_openings_write_their_files() {
    let dir = fresh_dir("report");
    let out = dir.join("report");
    // The fixture folder holds no file named games.csv: nothing to report is an error.
    let run = alq(&["report", "--games", "../report/tests/data", "--out", out.to_str().unwrap(), "--quiet"]);
    assert_eq!(run.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&run.stderr).contains("no games files"));
    let run = alq(&[
        "report",
        "--games",
        "../report/tests/data/selfplay.csv",
        "../report/tests/data/match.csv",
        "--out",
        out.to_str().unwrap(),
        "--quiet",
    ]);
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    let text = stdout(&run);
    assert!(text.starts_with("from_start games 0 ") && text.contains("\nrandomised games 40 "), "{text}");
    assert!(text.contains("No game in this report was played from the standard start"), "{text}");
    // With the explorer's address, the first moves link to it; a bad address is refused.
    let linked = dir.join("linked");
    let games = ["../report/tests/data/selfplay.csv", "../report/tests/data/match.csv"];
    let run = alq(&[
        "report",
        "--games",
        games[0],
        games[1],
        "--out",
        linked.to_str().unwrap(),
        "--quiet",
        "--explorer",
        "http://127.0.0.1:8080/",
    ]);
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    let bad =
        alq(&["report", "--games", games[0], "--out", linked.to_str().unwrap(), "--quiet", "--explorer", "localhost"]);
    assert_eq!(bad.status.code(), Some(2));
    for name in ["summary.json", "openings.csv", "report.html", "report.md", "game_length.svg"] {
        assert!(out.join(name).exists(), "{name}");
    }
    let book = dir.join("book.csv");
    let run = alq(&["openings", "--depth", "3", "--nodes", "500", "--out", book.to_str().unwrap(), "--quiet"]);
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    let text = std::fs::read_to_string(&book).unwrap();
    // The start, then 4, 5 and 6 distinct positions after 1, 2 and 3 plies.
    assert_eq!(text.lines().count(), 1 + 1 + 4 + 5 + 6, "{text}");
    assert!(text.starts_with("line,plies,position,score,best_move,exact_value\n"));
    let m = alq(&[
        "match",
        "--a",
        "hce@nodes=200",
        "--b",
        "random",
        "--games",
        "4",
        "--book",
        book.to_str().unwrap(),
        "--quiet",
    ]);
    assert!(m.status.success(), "{}", String::from_utf8_lossy(&m.stderr));
    // The shipped books by name: 4 games are 2 pairs from the unbalanced book.
    let json = dir.join("unbalanced.json");
    let m = alq(&[
        "match",
        "--a",
        "hce@nodes=200",
        "--b",
        "random",
        "--games",
        "4",
        "--book",
        "unbalanced",
        "--out",
        json.to_str().unwrap(),
        "--quiet",
    ]);
    assert!(m.status.success(), "{}", String::from_utf8_lossy(&m.stderr));
    let report: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(report["openings"], 4915, "{report}");
    assert_eq!(
        alq(&["match", "--a", "hce", "--b", "random", "--games", "4", "--book", "unbalance"]).status.code(),
        Some(2)
    );
    assert_eq!(alq(&["report", "--games", "no-such-file.csv", "--out", out.to_str().unwrap()]).status.code(), Some(2));
}

#[test]
fn pipeline_runs_resumes_and_protects_its_folder() {
    let dir = fresh_dir("pipeline");
    let config = dir.join("tiny.toml");
    std::fs::write(
        &config,
        "generations = 1\nreplay_window = 1\n[selfplay]\ngames = 60\nnodes = 100\n[train]\nhidden = [8]\nepochs = 2\n\
         [gate]\ngames = 20\nnodes = 100\nopenings = 2\nsprt = \"0,50\"\n[evaluation]\ngames = 10\nnodes = 100\nopenings = 2\n\
         [start]\ngames = 6\nnodes = 100\n",
    )
    .unwrap();
    let out = dir.join("run");
    let run = alq(&["pipeline", "--config", config.to_str().unwrap(), "--out", out.to_str().unwrap(), "--quiet"]);
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    for file in [
        "pipeline.toml",
        "summary.json",
        "summary.md",
        "gen-000/games.csv",
        "gen-001/games.csv",
        "gen-001/candidate.alqnet",
        "gen-001/match.json",
        "gen-001/elo.json",
        "gen-001/metrics.csv",
        "gen-000/start/games.csv",
        "gen-001/start/games.csv",
        "report/report.html",
    ] {
        assert!(out.join(file).exists(), "{file}");
    }
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    assert_eq!(summary.as_array().unwrap().len(), 2);
    assert!(summary[1]["promoted"].is_boolean());
    assert!(summary[1]["elo_vs_gen0_ci95"].is_array());
    // Each generation's best player from the standard start: White / draw / Black.
    for g in 0..2 {
        let start = &summary[g]["start"];
        let sum =
            ["white_wins", "draws", "black_wins", "unfinished"].iter().map(|k| start[k].as_u64().unwrap()).sum::<u64>();
        assert_eq!(sum, 6, "{start}");
    }
    assert!(std::fs::read_to_string(out.join("summary.md")).unwrap().contains("White / draw / Black"));
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("report/summary.json")).unwrap()).unwrap();
    assert_eq!(report["from_start"]["totals"]["games"], 12, "the start games are the report's games from the start");
    let before = std::fs::read(out.join("gen-001/games.csv")).unwrap();
    // Resuming a finished run changes nothing; without --resume it is refused.
    let again =
        alq(&["pipeline", "--config", config.to_str().unwrap(), "--out", out.to_str().unwrap(), "--resume", "--quiet"]);
    assert!(again.status.success(), "{}", String::from_utf8_lossy(&again.stderr));
    assert_eq!(std::fs::read(out.join("gen-001/games.csv")).unwrap(), before);
    let refused = alq(&["pipeline", "--config", config.to_str().unwrap(), "--out", out.to_str().unwrap(), "--quiet"]);
    assert_eq!(refused.status.code(), Some(2));
    std::fs::write(&config, "generations = 1\ngenerashuns = 2\n").unwrap();
    let bad = alq(&["pipeline", "--config", config.to_str().unwrap(), "--out", dir.join("x").to_str().unwrap()]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("generashuns"));
}

#[test]
fn network_evaluators_are_used_and_bad_files_refused() {
    let dir = fresh_dir("nn");
    let out = alq(&["analyze", "--depth", "3", "--eval", "nn"]);
    assert!(out.status.success());
    assert!(stdout(&out).lines().last().unwrap().starts_with("bestmove "));
    let bad = dir.join("bad.alqnet");
    std::fs::write(&bad, b"not a network").unwrap();
    let out = alq(&["analyze", "--depth", "3", "--eval", bad.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("magic"), "{}", String::from_utf8_lossy(&out.stderr));
    let out =
        alq(&["match", "--a", "nn@nodes=200", "--b", "hce@nodes=200", "--games", "4", "--openings", "2", "--quiet"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(stdout(&out).starts_with("match nn:"), "{}", stdout(&out));
}

#[test]
fn study_grade_shows_where_each_rungs_games_were_lost() {
    let dir = fresh_dir("study-grade");
    let config = dir.join("study.toml");
    std::fs::write(&config, "[[rung]]\nplayer = \"random\"\ngames = 12\n[[rung]]\nplayer = \"greedy\"\ngames = 8\n")
        .unwrap();
    let out = dir.join("run");
    let args = ["study", "--config", config.to_str().unwrap(), "--out", out.to_str().unwrap(), "--quiet"];
    let run = alq(&[&args[..], &["--grade", "--grade-movetime", "20"]].concat());
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    let study: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("study.json")).unwrap()).unwrap();
    for (rung, games) in study["rungs"].as_array().unwrap().iter().zip([12, 8]) {
        let e = &rung["errors"];
        let n = |k: &str| e[k].as_u64().unwrap();
        assert_eq!(n("games"), games, "{e}");
        assert_eq!(n("white_errs_first") + n("black_errs_first") + n("games_without_error"), games, "{e}");
        // Random and greedy throw the start's draw away within the shipped
        // atlas's plies, where every value is known.
        assert!(n("white_errs_first") + n("black_errs_first") > 0, "{e}");
        let drawn = e["drawn_after"].as_array().unwrap();
        assert_eq!(drawn[0], serde_json::json!([games, games, games]), "the start is a known draw");
        // Errors a game, from the rung's grades: at least those found.
        let (found, least) = (e["errors_per_game"].as_f64().unwrap(), e["errors_at_least_per_game"].as_f64().unwrap());
        assert!(found > 0.0 && least >= found, "{e}");
    }
    let grades = out.join("rung-01-random/grades.json");
    assert!(grades.exists() && out.join("errors.svg").exists());
    let html = std::fs::read_to_string(out.join("study.html")).unwrap();
    assert!(html.contains("Where games are lost") && html.contains("errors.svg"), "the page shows them");
    let md = std::fs::read_to_string(out.join("study.md")).unwrap();
    assert!(md.contains("## Where games are lost") && md.contains("errors a game: found / at least"), "{md}");
    // A rerun grades only what changed: nothing here.
    let before = std::fs::metadata(&grades).unwrap().modified().unwrap();
    let again = alq(&[&args[..], &["--resume", "--grade"]].concat());
    assert!(again.status.success(), "{}", String::from_utf8_lossy(&again.stderr));
    assert_eq!(std::fs::metadata(&grades).unwrap().modified().unwrap(), before);
    // A damaged grades file is refused by name.
    std::fs::write(&grades, "{").unwrap();
    let bad = alq(&[&args[..], &["--resume"]].concat());
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("grades.json"), "{}", String::from_utf8_lossy(&bad.stderr));
}

#[test]
fn study_plays_its_ladder_and_the_report_shows_the_curve() {
    let dir = fresh_dir("study");
    let config = dir.join("study.toml");
    std::fs::write(
        &config,
        "games = 6\nfirst_moves = true\nfirst_move_games = 2\n\
         [[rung]]\nplayer = \"random\"\ngames = 10\n[[rung]]\nplayer = \"greedy\"\n[[rung]]\nplayer = \"hce\"\nnodes = 100\n",
    )
    .unwrap();
    let out = dir.join("run");
    let run = alq(&["study", "--config", config.to_str().unwrap(), "--out", out.to_str().unwrap(), "--quiet"]);
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    let text = stdout(&run);
    assert!(text.lines().nth(1).is_some_and(|l| l.starts_with("1 random 10 ")), "{text}");
    assert!(text.contains("\n3 hce@nodes=100 6 "), "{text}");
    for name in [
        "study.toml",
        "study.json",
        "study.csv",
        "study.svg",
        "study.html",
        "study.md",
        "rung-01-random/games.csv",
        "rung-03-hce-100/games.csv",
        "rung-03-hce-100/first-d3-c3/games.csv",
    ] {
        assert!(out.join(name).exists(), "{name}");
    }
    let study: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("study.json")).unwrap()).unwrap();
    let rungs = study["rungs"].as_array().unwrap();
    assert_eq!(rungs.len(), 3);
    assert_eq!(rungs[2]["from_first_move"].as_array().unwrap().len(), 4);
    assert!(rungs[2]["best_first_move"].is_string());
    assert_eq!(std::fs::read_to_string(out.join("study.csv")).unwrap().lines().count(), 4);
    // Again without --resume: refused; with it: nothing to do, same summary.
    let again = alq(&["study", "--config", config.to_str().unwrap(), "--out", out.to_str().unwrap(), "--quiet"]);
    assert_eq!(again.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&again.stderr).contains("--resume"));
    let before = std::fs::read(out.join("study.json")).unwrap();
    let again =
        alq(&["study", "--config", config.to_str().unwrap(), "--out", out.to_str().unwrap(), "--resume", "--quiet"]);
    assert!(again.status.success());
    assert_eq!(std::fs::read(out.join("study.json")).unwrap(), before);

    // The report of the study's games, with its curve.
    let report = dir.join("report");
    let run = alq(&[
        "report",
        "--games",
        out.to_str().unwrap(),
        "--study",
        out.to_str().unwrap(),
        "--out",
        report.to_str().unwrap(),
        "--quiet",
        "--explorer",
        "http://127.0.0.1:8080/",
    ]);
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    let html = std::fs::read_to_string(report.join("report.html")).unwrap();
    assert!(html.contains("White's advantage by playing strength") && report.join("strength.svg").exists());
    assert!(
        html.contains("<a href=\"http://127.0.0.1:8080/?moves=c2-c3\">c2-c3</a>"),
        "first moves link to the explorer"
    );
    // The strength plot's axis stops at 1 and its legend sits below the chart.
    let svg = std::fs::read_to_string(report.join("strength.svg")).unwrap();
    let labels: Vec<&str> = svg.lines().map(str::trim).collect();
    assert!(labels.contains(&"1.0") && !labels.contains(&"1.2") && !labels.contains(&"1.4"), "the axis ends at 1.0");
    assert!(!html.contains("developer guide") && html.contains("BrainKing.com, the game statistics page"));
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(report.join("summary.json")).unwrap()).unwrap();
    // Games from the start (every rung's own) apart from those with a fixed first move.
    assert_eq!(summary["from_start"]["totals"]["games"], 10 + 6 + 6);
    assert_eq!(summary["randomised"]["totals"]["games"], 3 * 4 * 2);
    // No White's score pooled across strengths: per pairing only.
    assert!(summary["from_start"]["totals"].get("white_score").is_none(), "{}", summary["from_start"]);
    assert!(summary["from_start"]["pairings"].as_array().unwrap().iter().all(|p| p["white_score"].is_number()));
    let printed = stdout(&run);
    let pooled = printed.lines().find(|l| l.starts_with("from_start games ")).unwrap();
    assert!(!pooled.contains("white_score"), "{printed}");
    assert_eq!(printed.lines().filter(|l| l.starts_with("from_start pairing ")).count(), 3, "{printed}");
    assert_eq!(summary["human_comparison"].as_array().unwrap().len(), 3);

    // With the shipped proofs: the start's and the first moves' proven values.
    let proofs = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/proofs");
    let report_with = |dir: &std::path::Path| {
        let run = alq(&[
            "report",
            "--games",
            out.to_str().unwrap(),
            "--study",
            out.to_str().unwrap(),
            "--proofs",
            dir.to_str().unwrap(),
            "--out",
            report.to_str().unwrap(),
            "--quiet",
        ]);
        assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
        std::fs::read_to_string(report.join("report.html")).unwrap()
    };
    let html = report_with(&proofs);
    assert!(html.contains("Exact value of the start position: draw (proof, leaves not checked)."), "start value");
    assert!(html.contains("after d2-c3: Black wins (proof, leaves not checked)"), "first-move statements");
    assert!(html.contains("after c2-c3: draw (proof, leaves not checked)"), "first-move statements");
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(report.join("summary.json")).unwrap()).unwrap();
    let d2c3 = summary["first_moves"].as_array().unwrap().iter().find(|m| m["first_move"] == "d2-c3").unwrap();
    // Without --tb the certificates' table leaves are not probed, and the
    // statements say so.
    assert_eq!(d2c3["exact_value"], "Black wins (proof, leaves not checked)");
    // Gzip-compressed certificates are read too (data/proofs/small holds only those).
    let html = report_with(&proofs.join("small"));
    assert!(
        html.contains("Exact value of the start position: draw (proof, leaves not checked)."),
        "start value from .cert.gz"
    );
    assert!(
        html.contains("after d2-c3: Black wins (proof, leaves not checked)"),
        "first-move statements from .cert.gz"
    );
    let bad = alq(&[
        "report",
        "--games",
        out.to_str().unwrap(),
        "--proofs",
        dir.join("none").to_str().unwrap(),
        "--out",
        report.to_str().unwrap(),
    ]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("proofs folder"));

    // Bad input: an unknown key, a study folder without a summary.
    std::fs::write(&config, "gamez = 3\n").unwrap();
    let bad = alq(&["study", "--config", config.to_str().unwrap(), "--out", dir.join("x").to_str().unwrap()]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("gamez"));
    let bad = alq(&[
        "report",
        "--games",
        out.to_str().unwrap(),
        "--study",
        dir.to_str().unwrap(),
        "--out",
        report.to_str().unwrap(),
    ]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("study.json"));
}

#[test]
fn rules_flag_plays_classic_and_refuses_mixing_rule_sets() {
    let lone = "B..../...../..W../...../..... w";
    let classic = stdout(&alq(&["moves", "--rules", "classic", "--position", lone]));
    assert_eq!(classic, "c3-b2\nc3-b3\nc3-b4\nc3-c2\nc3-c4\nc3-d2\nc3-d3\nc3-d4\n");
    assert_eq!(stdout(&alq(&["moves", "--position", lone])).lines().count(), 5);
    let perft = stdout(&alq(&["perft", "--rules", "classic", "--depth", "6"]));
    assert!(perft.ends_with("perft 6 107\n"), "{perft}");
    let paths = stdout(&alq(&["perft", "--rules", "classic", "--paths", "--depth", "6"]));
    assert!(paths.ends_with("perft 6 109\n"), "{paths}");
    let bad = alq(&["moves", "--rules", "checkers"]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("classic"));
    // The shipped network was trained on BrainKing games.
    let nn = alq(&["analyze", "--rules", "classic", "--eval", "nn", "--depth", "2"]);
    assert_eq!(nn.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&nn.stderr).contains("trained for the brainking rules"));
    let hce = alq(&["analyze", "--rules", "classic", "--eval", "hce", "--depth", "3"]);
    assert!(hce.status.success());

    let dir = fresh_dir("classic");
    let out = dir.join("run");
    let run = alq(&[
        "selfplay",
        "--rules",
        "classic",
        "--out",
        out.to_str().unwrap(),
        "--games",
        "4",
        "--nodes",
        "100",
        "--quiet",
    ]);
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    let games = out.join("games.csv");
    let refused =
        alq(&["report", "--games", games.to_str().unwrap(), "--out", dir.join("r1").to_str().unwrap(), "--quiet"]);
    assert_eq!(refused.status.code(), Some(2));
    let message = String::from_utf8_lossy(&refused.stderr);
    assert!(message.contains("classic") && message.contains("--rules classic"), "{message}");
    let report = alq(&[
        "report",
        "--rules",
        "classic",
        "--games",
        games.to_str().unwrap(),
        "--out",
        dir.join("r2").to_str().unwrap(),
        "--quiet",
    ]);
    assert!(report.status.success(), "{}", String::from_utf8_lossy(&report.stderr));
}

#[test]
fn openings_keep_balanced_or_unbalanced_windows() {
    let dir = fresh_dir("openings-windows");
    let book = dir.join("book.csv");
    let rows = |args: &[&str]| -> Vec<(usize, i64)> {
        let mut full = vec!["openings", "--depth", "4", "--nodes", "300", "--quiet", "--out", book.to_str().unwrap()];
        full.extend_from_slice(args);
        let out = alq(&full);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        // line,plies,position,score,best_move,exact_value (no field holds a comma)
        let text = std::fs::read_to_string(&book).unwrap();
        text.lines()
            .skip(1)
            .map(|row| {
                let r: Vec<&str> = row.split(',').collect();
                let cp = r[3].strip_prefix("cp ").expect("a centipawn score").parse().unwrap();
                (r[1].parse().unwrap(), cp)
            })
            .collect()
    };
    let balanced = rows(&["--balanced", "100"]);
    let unbalanced = rows(&["--unbalanced", "101,1000"]);
    assert!(!balanced.is_empty() && !unbalanced.is_empty());
    assert!(balanced.iter().all(|&(plies, cp)| plies == 4 && cp.abs() <= 100), "{balanced:?}");
    assert!(unbalanced.iter().all(|&(plies, cp)| plies == 4 && (101..=1000).contains(&cp.abs())), "{unbalanced:?}");
    // Bad windows are named; the two kinds exclude each other.
    for bad in [&["--unbalanced", "300,100"][..], &["--unbalanced", "x"], &["--balanced", "5", "--unbalanced", "1,2"]] {
        let mut full = vec!["openings", "--depth", "2", "--out", book.to_str().unwrap()];
        full.extend_from_slice(bad);
        let out = alq(&full);
        assert_eq!(out.status.code(), Some(2), "{bad:?}");
    }
}
