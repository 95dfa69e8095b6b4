//! `alq engine` (the text protocol) and external engines in `alq match`:
//! the example Python bot, and engines that crash, hang or play illegal
//! moves, which forfeit.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::common::{alq, fresh_dir, stdout, ALQ};

/// An `alq engine` process fed line by line.
struct Session {
    child: std::process::Child,
    input: std::process::ChildStdin,
    output: BufReader<std::process::ChildStdout>,
}

impl Session {
    fn start() -> Session {
        let mut child = Command::new(ALQ).arg("engine").stdin(Stdio::piped()).stdout(Stdio::piped()).spawn().unwrap();
        let input = child.stdin.take().unwrap();
        let output = BufReader::new(child.stdout.take().unwrap());
        Session { child, input, output }
    }

    fn send(&mut self, line: &str) {
        writeln!(self.input, "{line}").unwrap();
        self.input.flush().unwrap();
    }

    /// Lines up to and including the first that starts with `last`.
    fn until(&mut self, last: &str) -> Vec<String> {
        let mut lines = Vec::new();
        loop {
            let mut line = String::new();
            assert!(self.output.read_line(&mut line).unwrap() > 0, "the engine ended; got {lines:?}");
            let line = line.trim_end().to_string();
            let done = line.starts_with(last);
            lines.push(line);
            if done {
                return lines;
            }
        }
    }
}

#[test]
fn engine_speaks_the_protocol_and_survives_bad_input() {
    let mut s = Session::start();
    s.send("uci");
    let hello = s.until("uciok");
    assert!(hello[0].starts_with("id name alq "), "{hello:?}");
    for option in ["Hash", "Threads", "Eval", "Tablebases", "NoProgress", "Rules"] {
        assert!(hello.iter().any(|l| l.starts_with(&format!("option name {option} type "))), "{option}: {hello:?}");
    }
    // Bad input: each gives an error line and the engine goes on.
    for bad in [
        "position startpos moves d3-c3 a1-a2",
        "position fen BBBBB/BBBBB w",
        "position sideways",
        "setoption name Hash value lots",
        "setoption name Eval value magic",
        "setoption name Colour value blue",
        "go depth many",
    ] {
        s.send(bad);
        s.send("isready");
        let lines = s.until("readyok");
        assert!(lines[0].starts_with("info string error: "), "{bad}: {lines:?}");
    }
    s.send("frobnicate");
    assert!(s.until("info string")[0].contains("unknown command"));
    // After the illegal move the position is still the start.
    s.send("setoption name Eval value hce");
    s.send("setoption name Threads value 2");
    s.send("position startpos moves d3-c3");
    s.send("go depth 5");
    let lines = s.until("bestmove");
    assert_eq!(lines.last().unwrap(), "bestmove b3xd3", "the only reply: {lines:?}");
    let depth5 = &lines[lines.len() - 2];
    assert!(
        depth5.starts_with("info depth 5 score cp ") && depth5.contains(" nodes ") && depth5.contains(" pv b3xd3"),
        "{depth5}"
    );
    // `stop` ends an infinite search at once, with a legal move.
    s.send("position startpos");
    s.send("go infinite");
    std::thread::sleep(Duration::from_millis(200));
    let stopped = Instant::now();
    s.send("stop");
    let best = s.until("bestmove").pop().unwrap();
    assert!(stopped.elapsed() < Duration::from_secs(2), "stop took {:?}", stopped.elapsed());
    assert!(
        ["bestmove b2-c3", "bestmove c2-c3", "bestmove d2-c3", "bestmove d3-c3"].contains(&best.as_str()),
        "{best}"
    );
    // The engine keeps to its clock: 300 ms left is not lost.
    s.send("go wtime 300 btime 300 winc 0 binc 0");
    let started = Instant::now();
    s.until("bestmove");
    assert!(started.elapsed() < Duration::from_millis(300), "{:?}", started.elapsed());
    s.send("position fen W.W.W/...../...../...../BBBBB w");
    s.send("go depth 3");
    assert_eq!(s.until("bestmove").pop().unwrap(), "bestmove none");
    // Lines sent all at once, without waiting for bestmove, keep their order:
    // the second search starts after the first, and `stop` ends it.
    s.send("position startpos\ngo depth 3\nposition startpos moves d3-c3\ngo infinite\nstop\nisready");
    let mut lines = s.until("readyok");
    if lines.iter().filter(|l| l.starts_with("bestmove")).count() < 2 {
        // `isready` is answered during the stopped search, before its bestmove.
        lines.extend(s.until("bestmove"));
    }
    let best: Vec<&String> = lines.iter().filter(|l| l.starts_with("bestmove")).collect();
    assert_eq!(best.len(), 2, "{lines:?}");
    assert_eq!(best[1], "bestmove b3xd3", "{lines:?}");
    s.send("quit");
    assert!(s.child.wait().unwrap().success());
}

fn have_python() -> bool {
    Command::new("python3").arg("--version").output().is_ok_and(|o| o.status.success())
}

fn bot() -> String {
    format!("engine:python3 {}/../../scripts/example_bot.py", env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn the_example_bot_plays_greedy_and_its_games_replay() {
    if !have_python() {
        eprintln!("skipped: python3 is not installed, so the example bot cannot run");
        return;
    }
    let dir = fresh_dir("bot");
    let games = dir.join("games.csv");
    let out = alq(&[
        "match",
        "--a",
        &bot(),
        "--b",
        "greedy",
        "--games",
        "4",
        "--tc",
        "20+0.2",
        "--threads",
        "2",
        "--quiet",
        "--save-games",
        games.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let report = stdout(&out);
    assert!(report.contains("games 4 "), "{report}");
    assert!(report.contains("forfeits 0 by the first player, 0 by the second"), "{report}");
    // Every game was played out by the rules and replays.
    let stats = alq(&["records", "stats", games.to_str().unwrap()]);
    assert!(stats.status.success(), "{}", String::from_utf8_lossy(&stats.stderr));
    assert!(stdout(&stats).contains("games 4"), "{}", stdout(&stats));
    assert!(!stdout(&stats).contains("forfeit"), "{}", stdout(&stats));
}

#[test]
fn engines_that_fail_forfeit_and_the_match_goes_on() {
    let dir = fresh_dir("forfeits");
    // Answers the handshake, then an illegal move / nothing / exits.
    let fake = |on_go: &str| {
        format!(
            "engine:sh -c 'while read l; do case $l in uci) echo uciok;; isready) echo readyok;; go*) {on_go};; quit) exit 0;; esac; done'"
        )
    };
    for (spec, why) in [
        (fake("echo bestmove a1-a5"), "illegal or malformed move"),
        (fake("echo bestmove"), "malformed bestmove"),
        (fake("exit 3"), "crashed"),
        (fake("sleep 5"), "no bestmove in time"),
        ("engine:/nonexistent/engine".to_string(), "crashed"),
        // A crash's last stderr lines are in the note (a Python engine run
        // by an interpreter without the package, say).
        (
            "engine:sh -c 'echo Traceback >&2; echo ModuleNotFoundError: No module named alquerque_lab >&2; exit 1'"
                .to_string(),
            "the engine wrote: Traceback | ModuleNotFoundError: No module named alquerque_lab",
        ),
        ("engine:/nonexistent/engine".to_string(), "the engine wrote: "),
    ] {
        let games = dir.join(format!("{}.csv", why.replace(' ', "-")));
        let _ = std::fs::remove_file(&games);
        let out = alq(&[
            "match",
            "--a",
            "greedy",
            "--b",
            &spec,
            "--games",
            "2",
            "--movetime",
            "100",
            "--time-margin",
            "200",
            "--quiet",
            "--save-games",
            games.to_str().unwrap(),
        ]);
        assert!(out.status.success(), "{spec}: {}", String::from_utf8_lossy(&out.stderr));
        let report = stdout(&out);
        assert!(report.contains("wins 2 draws 0 losses 0"), "{spec}: {report}");
        assert!(report.contains("forfeits 0 by the first player, 2 by the second"), "{spec}: {report}");
        assert!(report.contains(why), "{spec}: {report}");
        let stats = alq(&["records", "stats", games.to_str().unwrap()]);
        assert!(stats.status.success(), "{spec}: {}", String::from_utf8_lossy(&stats.stderr));
        assert!(stdout(&stats).contains("termination forfeit 2"), "{}", stdout(&stats));
    }
}

/// An engine that takes a second to start is not charged for it: the
/// clock of its first move starts after the handshake, so at 100 ms a move
/// it forfeits nothing (before, every game was lost on its first move).
#[test]
fn engine_start_up_is_not_charged_to_the_first_move() {
    let slow = format!("engine:sh -c 'sleep 1; exec {ALQ} engine'");
    let out = alq(&[
        "match",
        "--a",
        "greedy",
        "--b",
        &slow,
        "--games",
        "2",
        "--movetime",
        "100",
        "--time-margin",
        "200",
        "--max-plies",
        "8",
        "--threads",
        "2",
        "--quiet",
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let report = stdout(&out);
    assert!(report.contains("forfeits 0 by the first player, 0 by the second"), "{report}");
}

#[test]
fn engine_plays_the_rules_it_is_told() {
    let mut s = Session::start();
    // The default network is a BrainKing network: classic needs another Eval first.
    s.send("setoption name Rules value classic");
    s.send("isready");
    let refused = s.until("readyok");
    assert!(refused[0].contains("trained for the brainking rules"), "{refused:?}");
    s.send("setoption name Eval value hce");
    s.send("setoption name Rules value classic");
    // White's fifth move steps back: legal only under the classic rules.
    s.send("position startpos moves d2-c3 b4xd2 e1xc3 d4xd2xb4 e2-e1");
    s.send("go depth 2");
    let lines = s.until("bestmove");
    assert!(lines.iter().all(|l| !l.starts_with("info string error")), "{lines:?}");
    assert_ne!(lines.last().unwrap(), "bestmove none");
    s.send("setoption name Rules value brainking");
    s.send("position startpos moves d2-c3 b4xd2 e1xc3 d4xd2xb4 e2-e1");
    s.send("isready");
    let lines = s.until("readyok");
    assert!(lines[0].starts_with("info string error: ") && lines[0].contains("e2-e1"), "{lines:?}");
    s.send("quit");
    s.child.wait().unwrap();
}
