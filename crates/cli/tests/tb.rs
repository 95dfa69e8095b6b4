//! End-to-end checks of `alq tb`: build, probe, stats, verify, bad input.

use std::path::{Path, PathBuf};

use crate::common::{alq, fresh_dir, stdout};

fn built(name: &str, pieces: u32) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("cli-tb-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    let out = alq(&["tb", "build", "--pieces", &pieces.to_string(), "--out", dir.to_str().unwrap(), "--threads", "2"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(stdout(&out).starts_with("complete: up to"), "{}", stdout(&out));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("estimate"), "the build prints an estimate first: {stderr}");
    dir
}

#[test]
fn probe_prints_the_value_then_every_move_best_first() {
    let dir = built("probe", 4);
    let tb = dir.to_str().unwrap();
    // White's only piece walks on; Black, without pieces, then has no move.
    let out = alq(&["tb", "probe", "--tb", tb, "--position", "...../...../...../...../..W.. w"]);
    assert!(out.status.success());
    assert_eq!(stdout(&out), "value win 1\nc1-b1 win 1\nc1-b2 win 1\nc1-c2 win 1\nc1-d1 win 1\nc1-d2 win 1\n");
    let out = alq(&["tb", "probe", "--tb", tb, "--position", "...../...../...../...../..W.. b"]);
    assert_eq!(stdout(&out), "value loss 0\n");
    // A 4-piece position: one line per legal move, the first as good as the position.
    let pos = "..B../...../.W.B./..W../..... w";
    let out = alq(&["tb", "probe", "--tb", tb, "--position", pos]);
    assert!(out.status.success());
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    let value = lines[0].strip_prefix("value ").expect("value line");
    let moves = stdout(&alq(&["moves", "--position", pos]));
    assert_eq!(lines.len() - 1, moves.lines().count());
    let best = lines[1].split_once(' ').unwrap().1;
    assert_eq!(best, value, "{text}");
    for line in &lines[1..] {
        let (mv, v) = line.split_once(' ').unwrap();
        assert!(moves.lines().any(|m| m == mv), "{mv}");
        assert!(v == "draw" || v.starts_with("win ") || v.starts_with("loss "), "{line}");
    }
}

#[test]
fn stats_and_verify_run_and_damage_is_reported_by_file_name() {
    let dir = built("verify", 4);
    let tb = dir.to_str().unwrap();
    let out = alq(&["tb", "stats", "--tb", tb]);
    assert!(out.status.success());
    let text = stdout(&out);
    assert!(text.starts_with("| material | positions | wins | draws | losses | longest win |"), "{text}");
    assert!(text.contains("| 2v2 | 75900 |"), "{text}");
    let out = alq(&["tb", "verify", "--tb", tb]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    // 222,051 stored forms up to 4 pieces; the mirror index keeps 128,011 entries.
    assert!(stdout(&out).starts_with("ok: 128011 entries up to 4 pieces consistent"), "{}", stdout(&out));
    // Damage one value: verify and probe name the file and exit with 2.
    let path = dir.join("2v2.alqtb");
    let mut bytes = std::fs::read(&path).unwrap();
    bytes[1000] ^= 1;
    std::fs::write(&path, &bytes).unwrap();
    for args in [
        &["tb", "verify", "--tb", tb][..],
        &["tb", "probe", "--tb", tb, "--position", "...../.B.B./...../..W../..W.. w"],
    ] {
        let out = alq(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("2v2.alqtb") && err.contains("checksum"), "{err}");
    }
}

#[test]
fn bad_input_exits_with_2() {
    let dir = built("bad", 2);
    let tb = dir.to_str().unwrap();
    for args in [
        &["tb", "probe", "--tb", tb, "--position", "...../.B.B./...../..W../..W.. w"][..],
        &["tb", "probe", "--tb", tb, "--position", "nonsense"],
        &["tb", "probe", "--tb", "/nonexistent/tb", "--position", "...../...../...../...../..W.. w"],
        &["tb", "build", "--pieces", "2", "--out", tb, "--shard", "3/3"],
        &["tb", "build", "--pieces", "2", "--out", tb, "--threads", "0"],
    ] {
        let out = alq(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(!out.stderr.is_empty());
    }
}

#[test]
fn analyze_with_tables_prints_the_exact_value_and_accuracy_measures_players() {
    let dir = built("exact", 5);
    let tb = dir.to_str().unwrap();
    // Every move of a 4-piece position leads into the tables: the answer is
    // the tables' value with its exact distance, and a best move by them.
    let pos = "..B../...../.W.B./..W../..... w";
    let probe = stdout(&alq(&["tb", "probe", "--tb", tb, "--position", pos]));
    let value = probe.lines().next().unwrap().strip_prefix("value ").unwrap().to_string();
    let out = alq(&["analyze", "--tb", tb, "--position", pos, "--depth", "3", "--eval", "hce"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = stdout(&out);
    assert!(text.contains(&format!("score {value} ")), "{value}: {text}");
    let best = text.lines().last().unwrap().strip_prefix("bestmove ").unwrap();
    assert!(probe.lines().skip(1).any(|l| l == format!("{best} {value}")), "{best} is a best move: {probe}");
    // A drawn position prints `score draw`.
    let drawn = "B..../...../...../...../....W w";
    assert_eq!(stdout(&alq(&["tb", "probe", "--tb", tb, "--position", drawn])).lines().next(), Some("value draw"));
    let text = stdout(&alq(&["analyze", "--tb", tb, "--position", drawn, "--depth", "3", "--eval", "hce"]));
    assert!(text.contains("score draw "), "{text}");

    // Endgame accuracy: reproducible, written as JSON, refuses players whose
    // own tables cover the positions and tables that do not.
    let json = dir.join("accuracy.json");
    let run = |player: &str| {
        alq(&[
            "tb",
            "accuracy",
            "--tb",
            tb,
            "--pieces",
            "5",
            "--positions",
            "60",
            "--player",
            player,
            "--out",
            json.to_str().unwrap(),
        ])
    };
    let out = run("hce@depth=1");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let first = std::fs::read_to_string(&json).unwrap();
    assert!(first.contains("\"wins\"") && first.contains("\"draws\"") && first.contains("\"pieces\": 5"), "{first}");
    let text = stdout(&out);
    assert!(text.contains("wins kept") && text.contains("draws kept"), "{text}");
    assert!(run("hce@depth=1").status.success());
    assert_eq!(std::fs::read_to_string(&json).unwrap(), first, "the same seed gives the same result");
    // Random moves spoil more positions than a searcher does.
    let kept = |text: &str| -> u64 {
        let v: serde_json::Value = serde_json::from_str(text).unwrap();
        v["all"]["kept"].as_u64().unwrap()
    };
    assert!(run("random").status.success());
    assert!(kept(&std::fs::read_to_string(&json).unwrap()) < kept(&first), "random keeps fewer values than search");
    let own = run(&format!("hce@depth=1,tb={tb}"));
    assert_eq!(own.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&own.stderr).contains("own tables cover"));
    let big = alq(&["tb", "accuracy", "--tb", tb, "--pieces", "6", "--positions", "5", "--player", "hce@depth=1"]);
    assert_eq!(big.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&big.stderr).contains("do not cover 6 pieces"));
    let missing = alq(&["analyze", "--tb", "/no/such/folder", "--depth", "1"]);
    assert_eq!(missing.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&missing.stderr).contains("/no/such/folder"));
}

/// `alq tb crosscheck`: win/draw/loss tables up to 6 pieces against distance
/// tables up to 4, entry by entry up to 4 pieces and on random 5- and
/// 6-piece positions proven by the proof search; a planted wrong value is
/// found and named.
#[test]
fn crosscheck_compares_entries_and_proves_random_positions() {
    let small = built("cross-small", 4);
    let wdl = Path::new(env!("CARGO_TARGET_TMPDIR")).join("cli-tb-cross-wdl");
    let _ = std::fs::remove_dir_all(&wdl);
    let out = alq(&["tb", "build", "--pieces", "6", "--kind", "wdl", "--out", wdl.to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let args =
        ["tb", "crosscheck", "--tb", wdl.to_str().unwrap(), "--against", small.to_str().unwrap(), "--positions", "60"];
    let out = alq(&args);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = stdout(&out);
    assert!(text.starts_with("equal: 128011 wdl entries up to 4 pieces"), "{text}");
    assert!(
        text.contains("agree: 60 random 5-piece positions") && text.contains("agree: 60 random 6-piece positions"),
        "{text}"
    );
    // A wrong value in a 5-piece wdl table: flip every code of one byte
    // from win to loss or back; some random position meets it, or the
    // checksum refuses the file first. Either way: exit 2, the file named.
    let path = wdl.join("3v2.wdl.alqtb");
    let mut bytes = std::fs::read(&path).unwrap();
    for b in &mut bytes[48..] {
        *b ^= 0xff;
    }
    let n = bytes.len();
    let sum = alq_tablebase::checksum(&[&bytes[..40], &bytes[48..n]]);
    bytes[40..48].copy_from_slice(&sum.to_le_bytes());
    std::fs::write(&path, &bytes).unwrap();
    let out = alq(&[
        "tb",
        "crosscheck",
        "--tb",
        wdl.to_str().unwrap(),
        "--against",
        small.to_str().unwrap(),
        "--positions",
        "200",
        "--pieces",
        "5",
    ]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("proof search") && err.contains("proves"), "{err}");
    // Bad arguments name the problem.
    let out = alq(&[
        "tb",
        "crosscheck",
        "--tb",
        wdl.to_str().unwrap(),
        "--against",
        small.to_str().unwrap(),
        "--pieces",
        "3",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--pieces 3"));
}

/// `alq tb bench` probes the same random positions from memory and from
/// disk, with the same values; bad arguments are refused.
#[test]
fn bench_probes_from_memory_and_from_disk_alike() {
    let dir = built("bench", 4);
    let tb = dir.to_str().unwrap();
    let tally = |text: &str| text.split_once("(wins").map(|(_, t)| t.to_string()).expect("a tally");
    let memory = stdout(&alq(&["tb", "bench", "--tb", tb, "--probes", "5000"]));
    assert!(
        memory.starts_with("5000 probes of random 4-piece positions from memory, distance tables (≤ 4 pieces)"),
        "{memory}"
    );
    let disk = stdout(&alq(&["tb", "bench", "--tb", tb, "--probes", "5000", "--disk"]));
    assert!(disk.contains("from disk"), "{disk}");
    assert_eq!(tally(&memory), tally(&disk));
    let out = alq(&["tb", "bench", "--tb", tb, "--pieces", "5"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--pieces 5"));
}

#[test]
fn dtz_tables_are_built_probed_counted_verified_and_read_by_the_oracle() {
    let dir = fresh_dir("tb-dtz");
    let tb = dir.to_str().unwrap();
    for kind in ["wdl", "dtz"] {
        let out = alq(&["tb", "build", "--pieces", "5", "--kind", kind, "--out", tb, "--threads", "2"]);
        assert!(out.status.success(), "{kind}: {}", String::from_utf8_lossy(&out.stderr));
    }
    // 2v2, White to move: won in the infinite game and under the rule.
    let pos = "...../...../B.B../...../WW... w";
    let probe = stdout(&alq(&["tb", "probe", "--tb", tb, "--position", pos]));
    let rule = probe.lines().find_map(|l| l.strip_prefix("under the 60-ply rule ")).expect(&probe);
    assert!(rule.starts_with("win "), "{probe}");
    // The oracle prints the same, and each move's value for its mover.
    let text = stdout(&alq(&["oracle", "--tb", tb, "--position", pos, "--nodes", "1000"]));
    assert_eq!(text.lines().nth(1), Some(format!("rule {rule}").as_str()), "{text}");
    assert!(text.lines().skip(2).all(|l| l.contains(" rule ")), "{text}");
    let d: u32 = rule[4..].parse().unwrap();
    assert!(text.lines().any(|l| l.ends_with(&format!(" rule win {}", d)) || l.ends_with(" rule win 1")), "{text}");
    let json: serde_json::Value =
        serde_json::from_slice(&alq(&["oracle", "--tb", tb, "--position", pos, "--nodes", "1000", "--json"]).stdout)
            .unwrap();
    assert_eq!(json["rule"]["value"], "win", "{json}");
    assert_eq!(json["rule"]["plies"], d, "{json}");
    // Stats: a second table under the rule, no cursed value at ≤ 5 pieces;
    // verify checks the dtz tables too.
    let stats = stdout(&alq(&["tb", "stats", "--tb", tb]));
    let total = stats.lines().filter(|l| l.starts_with("| all ≤ 5 |")).nth(1).expect(&stats);
    let cells: Vec<&str> = total.split('|').map(str::trim).collect();
    assert_eq!((cells[4], cells[6]), ("0", "0"), "cursed wins, blessed losses: {total}");
    let out = alq(&["tb", "verify", "--tb", tb]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(stdout(&out).contains("dtz ≤ 5"), "{}", stdout(&out));
    // The classic rules have them too (their own solver: a forward move can
    // be taken back there), verified against their win/draw/loss tables.
    let classic = fresh_dir("tb-dtz-classic");
    let c = classic.to_str().unwrap();
    for kind in ["wdl", "dtz"] {
        let out = alq(&["tb", "build", "--pieces", "4", "--kind", kind, "--rules", "classic", "--out", c]);
        assert!(out.status.success(), "classic {kind}: {}", String::from_utf8_lossy(&out.stderr));
    }
    let out = alq(&["tb", "verify", "--tb", c]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(stdout(&out).contains("dtz ≤ 4"), "{}", stdout(&out));
    // That 2v2 is a draw under the classic rules (Black's pieces capture
    // backwards too); a 2v1 is a win.
    for (p, rule) in
        [(pos, "under the 60-ply rule draw"), ("...../...../B..../..W../WW... w", "under the 60-ply rule win ")]
    {
        let probe = stdout(&alq(&["tb", "probe", "--tb", c, "--rules", "classic", "--position", p]));
        assert!(probe.lines().any(|l| l.starts_with(rule)), "{probe}");
    }
}
