//! The engine protocol driven in-process through `alq_play::serve`, as the
//! Python package and other tools drive it: lines in, lines out.

use std::io::{Cursor, Write};
use std::sync::{Arc, Mutex};

use alq_engine::{Position, RuleSet};

/// A writer whose bytes the test reads afterwards.
#[derive(Clone, Default)]
struct Shared(Arc<Mutex<Vec<u8>>>);

impl Write for Shared {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

fn session(rules: RuleSet, script: &str) -> Vec<String> {
    let out = Shared::default();
    alq_play::serve(rules, Cursor::new(script.as_bytes().to_vec()), out.clone()).unwrap();
    let bytes = out.0.lock().unwrap().clone();
    String::from_utf8(bytes).unwrap().lines().map(str::to_string).collect()
}

#[test]
fn a_script_gets_its_answers_in_order_and_legal_best_moves() {
    // The second `position` and `go` wait for the first search: its best
    // move is Black's after c2-c3, the second White's at the start.
    let lines = session(
        RuleSet::BrainKing,
        "uci\nisready\nsetoption name Eval value hce\nposition startpos moves c2-c3\ngo nodes 500\n\
         position startpos\ngo depth 2\n",
    );
    assert_eq!(lines[0], format!("id name alq {}", env!("CARGO_PKG_VERSION")));
    let uciok = lines.iter().position(|l| l == "uciok").expect("uciok");
    assert_eq!(lines[uciok + 1], "readyok", "{lines:?}");
    let best: Vec<&str> = lines.iter().filter_map(|l| l.strip_prefix("bestmove ")).collect();
    assert_eq!(best.len(), 2, "{lines:?}");
    let first = lines.iter().position(|l| l.starts_with("bestmove ")).unwrap();
    assert!(lines[uciok..first].iter().any(|l| l.starts_with("info depth ")), "{lines:?}");
    let start = Position::start();
    let after = start.play(start.parse_move("c2-c3").unwrap());
    assert!(after.legal_moves().iter().any(|m| m.to_string() == best[0]), "{} is not legal after c2-c3", best[0]);
    assert!(start.legal_moves().iter().any(|m| m.to_string() == best[1]), "{} is not legal at the start", best[1]);
}

#[test]
fn bad_commands_are_answered_and_the_engine_goes_on() {
    let lines = session(
        RuleSet::BrainKing,
        "frobnicate\nsetoption name Hash value lots\nposition startpos moves z9-z8\nposition fen\ngo depth x\n\
         setoption name Eval value hce\ngo depth 2\n",
    );
    let errors = lines.iter().filter(|l| l.starts_with("info string")).count();
    assert_eq!(errors, 5, "{lines:?}");
    assert!(lines.iter().any(|l| l.contains("unknown command \"frobnicate\"")), "{lines:?}");
    assert!(lines.iter().any(|l| l.contains("z9-z8")), "{lines:?}");
    assert!(lines.last().unwrap().starts_with("bestmove "), "{lines:?}");
}

#[test]
fn the_classic_rules_start_with_the_handcrafted_evaluator() {
    let lines = session(RuleSet::Classic, "position startpos\ngo depth 2\n");
    let best = lines.last().unwrap().trim_start_matches("bestmove ").to_string();
    let start = Position::start_of(RuleSet::Classic);
    assert!(start.legal_moves_in(RuleSet::Classic).iter().any(|m| m.to_string() == best), "{lines:?}");
    // The shipped network is BrainKing's: Eval nn is refused under classic rules.
    let lines = session(RuleSet::Classic, "setoption name Eval value nn\n");
    assert!(lines.iter().any(|l| l.starts_with("info string error: option Eval")), "{lines:?}");
}

#[test]
fn commands_take_effect_in_the_order_received_and_quit_comes_last() {
    // Sent at once, as a match program or a pipe does (issue 29's exchange).
    let lines = session(
        RuleSet::BrainKing,
        "uci\nisready\nucinewgame\nposition startpos moves c2-c3 c4xc2\ngo nodes 3000\n\
         position startpos moves a1-a9\nisready\nposition fen B.B.B/.BBB./B.BWW/W.W.W/WW.WW w\ngo depth 6\nquit\n",
    );
    assert_eq!(lines.iter().filter(|l| *l == "readyok").count(), 2, "{lines:?}");
    let best: Vec<usize> = (0..lines.len()).filter(|&i| lines[i].starts_with("bestmove ")).collect();
    assert_eq!(best.len(), 2, "both searches print their best move: {lines:?}");
    // The first search is White's after c2-c3 c4xc2; the illegal line is
    // refused after it, and the second search is of the pasted position.
    let after: Position = {
        let start = Position::start();
        let p = start.play(start.parse_move("c2-c3").unwrap());
        p.play(p.parse_move("c4xc2").unwrap())
    };
    let first = lines[best[0]].strip_prefix("bestmove ").unwrap();
    assert!(after.legal_moves().iter().any(|m| m.to_string() == first), "{lines:?}");
    let refused =
        lines.iter().position(|l| l.starts_with("info string error") && l.contains("a1-a9")).expect("refused");
    assert!(best[0] < refused && refused < best[1], "{lines:?}");
    let pasted: Position = "B.B.B/.BBB./B.BWW/W.W.W/WW.WW w".parse().unwrap();
    let second = lines[best[1]].strip_prefix("bestmove ").unwrap();
    assert!(pasted.legal_moves().iter().any(|m| m.to_string() == second), "{lines:?}");
    assert_eq!(best[1], lines.len() - 1, "quit exits after the last best move: {lines:?}");
}

#[test]
fn quit_during_a_search_still_prints_its_best_move() {
    let lines = session(RuleSet::BrainKing, "setoption name Eval value hce\ngo depth 60\nquit\n");
    assert_eq!(lines.iter().filter(|l| l.starts_with("bestmove ")).count(), 1, "{lines:?}");
}
