//! External engines: a program that speaks the `alq engine` protocol
//! (UCI-style, see docs/protocol.md), run as a child process for one game.

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use alq_engine::{Game, Move, Position, Score};

/// How long an engine may take to start and answer `uci` and `isready`.
pub const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);

/// How many of the engine's last stderr lines a forfeit note carries.
const STDERR_LINES: usize = 5;
/// Longest stderr line kept (characters; the rest is cut with `…`).
const STDERR_LINE_CHARS: usize = 200;

/// A running engine process.
pub struct EngineProcess {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
    /// Option names the engine announced after `uci`.
    options: Vec<String>,
    /// The last lines the engine wrote to stderr (a crash's traceback) or
    /// as `info string`.
    stderr: Arc<Mutex<VecDeque<String>>>,
    /// The thread reading stderr: done once the engine closed it.
    stderr_reader: Option<std::thread::JoinHandle<()>>,
}

/// Why an external engine (or player) forfeits: the message a match records.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Forfeit {
    #[error("cannot start {command:?}: {reason}")]
    Start { command: String, reason: String },
    #[error("crashed (cannot write to it: {reason}){stderr}")]
    Write { reason: String, stderr: String },
    #[error("no {what} in time")]
    Timeout { what: String },
    /// `stderr`: the engine's last stderr lines as the note shows them
    /// (`; the engine wrote: …`), empty when it wrote none.
    #[error("crashed before {what} ({status}){stderr}")]
    Crashed { what: String, status: String, stderr: String },
    #[error("malformed bestmove line (no move)")]
    NoMove,
    #[error("illegal or malformed move {text:?}: {reason}")]
    BadMove { text: String, reason: String },
    #[error("the engine announces no Rules option, so it cannot be asked to play the {0} rules")]
    NoRules(alq_engine::RuleSet),
}

/// What an engine answered to `go`.
#[derive(Clone, Debug)]
pub struct EngineMove {
    pub mv: Move,
    /// The score of its last `info ... score` line, if any.
    pub score: Option<Score>,
}

impl EngineProcess {
    /// Starts `command` (run by `sh -c`), sends `uci` and waits for `uciok`.
    pub fn start(command: &str) -> Result<EngineProcess, Forfeit> {
        let mut child = Command::new("sh")
            .arg("-c")
            .arg(format!("exec {command}"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| Forfeit::Start { command: command.to_string(), reason: e.to_string() })?;
        let pipe = |what: &str| Forfeit::Start { command: command.to_string(), reason: format!("no {what}") };
        let stdin = child.stdin.take().ok_or_else(|| pipe("stdin"))?;
        let stdout = child.stdout.take().ok_or_else(|| pipe("stdout"))?;
        let errors = child.stderr.take().ok_or_else(|| pipe("stderr"))?;
        let stderr = Arc::new(Mutex::new(VecDeque::new()));
        let kept = Arc::clone(&stderr);
        let stderr_reader = std::thread::spawn(move || {
            for line in BufReader::new(errors).lines() {
                let Ok(line) = line else { break };
                keep_line(&kept, &line);
            }
        });
        let (tx, lines) = mpsc::channel();
        let kept = Arc::clone(&stderr);
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                // What the engine says outside the protocol (the example
                // engine reports a failed import this way) is kept as well.
                if let Some(said) = line.strip_prefix("info string ") {
                    keep_line(&kept, said);
                }
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let mut engine =
            EngineProcess { child, stdin, lines, options: Vec::new(), stderr, stderr_reader: Some(stderr_reader) };
        engine.send("uci")?;
        let deadline = Instant::now() + HANDSHAKE_TIMEOUT;
        let mut options = Vec::new();
        engine.wait_for(deadline, "uciok", |line| {
            if let Some(rest) = line.strip_prefix("option name ") {
                if let Some((name, _)) = rest.split_once(" type") {
                    options.push(name.trim().to_string());
                }
            }
            (line.trim() == "uciok").then_some(())
        })?;
        engine.options = options;
        Ok(engine)
    }

    /// Whether the engine announced an option of this name.
    pub fn has_option(&self, name: &str) -> bool {
        self.options.iter().any(|o| o.eq_ignore_ascii_case(name))
    }

    /// Sets options, starts a new game and waits until the engine is ready.
    pub fn new_game(&mut self, options: &[(String, String)]) -> Result<(), Forfeit> {
        for (name, value) in options {
            self.send(&format!("setoption name {name} value {value}"))?;
        }
        self.send("ucinewgame")?;
        self.send("isready")?;
        self.wait_for(Instant::now() + HANDSHAKE_TIMEOUT, "readyok", |l| (l.trim() == "readyok").then_some(()))
    }

    /// Sends the game's moves and `go ARGS`, and reads the best move until
    /// `deadline`. Errors say why the engine forfeits: it exited, did not
    /// answer in time, or sent a malformed or illegal move.
    pub fn go(&mut self, game: &Game, args: &str, deadline: Instant) -> Result<EngineMove, Forfeit> {
        let moves: Vec<String> = game.moves().iter().map(|m| m.to_string()).collect();
        let setup = if game.start() == Position::start_of(game.rules()) {
            "startpos".to_string()
        } else {
            format!("fen {}", game.start())
        };
        let moves = if moves.is_empty() { String::new() } else { format!(" moves {}", moves.join(" ")) };
        self.send(&format!("position {setup}{moves}"))?;
        self.send(&format!("go {args}"))?;
        let mut score = None;
        let text = self.wait_for(deadline, "bestmove", |line| {
            let mut words = line.split_whitespace();
            match words.next() {
                Some("info") => {
                    if let Some(s) = parse_info_score(line) {
                        score = Some(s);
                    }
                    None
                }
                Some("bestmove") => Some(words.next().unwrap_or("").to_string()),
                _ => None,
            }
        })?;
        if text.is_empty() {
            return Err(Forfeit::NoMove);
        }
        let mv = game
            .position()
            .parse_move_in(game.rules(), &text)
            .map_err(|e| Forfeit::BadMove { text: text.clone(), reason: e.to_string() })?;
        Ok(EngineMove { mv, score })
    }

    fn send(&mut self, line: &str) -> Result<(), Forfeit> {
        writeln!(self.stdin, "{line}")
            .and_then(|_| self.stdin.flush())
            .map_err(|e| Forfeit::Write { reason: e.to_string(), stderr: self.last_stderr() })
    }

    /// The engine's last stderr (and `info string`) lines for a forfeit
    /// note: `; the engine wrote: A | B`, or empty. Waits up to a second
    /// for the engine to exit and close stderr, so that a crash's last
    /// words are in.
    fn last_stderr(&mut self) -> String {
        let until = Instant::now() + Duration::from_secs(1);
        while Instant::now() < until && !self.stderr_reader.as_ref().is_none_or(|t| t.is_finished()) {
            std::thread::sleep(Duration::from_millis(5));
        }
        let kept = self.stderr.lock().unwrap_or_else(|p| p.into_inner());
        if kept.is_empty() {
            String::new()
        } else {
            format!("; the engine wrote: {}", kept.iter().cloned().collect::<Vec<_>>().join(" | "))
        }
    }

    /// Reads lines until `done` returns a value or the deadline passes.
    fn wait_for<T>(
        &mut self,
        deadline: Instant,
        what: &str,
        mut done: impl FnMut(&str) -> Option<T>,
    ) -> Result<T, Forfeit> {
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => {
                    if let Some(value) = done(&line) {
                        return Ok(value);
                    }
                }
                Err(RecvTimeoutError::Timeout) => return Err(Forfeit::Timeout { what: what.to_string() }),
                Err(RecvTimeoutError::Disconnected) => {
                    let status =
                        self.child.try_wait().ok().flatten().map_or("closed its output".to_string(), |s| s.to_string());
                    let stderr = self.last_stderr();
                    let status = match status.as_str() {
                        "closed its output" => self.child.try_wait().ok().flatten().map_or(status, |s| s.to_string()),
                        _ => status,
                    };
                    return Err(Forfeit::Crashed { what: what.to_string(), status, stderr });
                }
            }
        }
    }
}

impl Drop for EngineProcess {
    /// Sends `quit`, gives the engine a moment to leave, then kills it.
    fn drop(&mut self) {
        let _ = writeln!(self.stdin, "quit").and_then(|_| self.stdin.flush());
        let until = Instant::now() + Duration::from_millis(200);
        while Instant::now() < until {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Keeps a line the engine wrote (stderr, or an `info string`), the last
/// `STDERR_LINES` of them, each cut to `STDERR_LINE_CHARS` characters.
fn keep_line(kept: &Mutex<VecDeque<String>>, line: &str) {
    let line = line.trim();
    if line.is_empty() {
        return;
    }
    let mut kept = kept.lock().unwrap_or_else(|p| p.into_inner());
    if kept.len() == STDERR_LINES {
        kept.pop_front();
    }
    kept.push_back(shortened(line));
}

/// A line cut to `STDERR_LINE_CHARS` characters.
fn shortened(line: &str) -> String {
    match line.char_indices().nth(STDERR_LINE_CHARS) {
        Some((cut, _)) => format!("{}…", &line[..cut]),
        None => line.to_string(),
    }
}

/// The score of an `info` line: `score cp N`, `win P`, `loss P` or `draw`.
pub fn parse_info_score(line: &str) -> Option<Score> {
    let mut words = line.split_whitespace().skip_while(|w| *w != "score").skip(1);
    let kind = words.next()?;
    let mut number = || words.next()?.parse::<i64>().ok();
    match kind {
        "cp" => number().map(|n| Score::Cp(n.clamp(-20_000, 20_000) as i32)),
        "win" => number().map(|n| Score::Win(n.clamp(0, 1_000) as u32)),
        "loss" => number().map(|n| Score::Loss(n.clamp(0, 1_000) as u32)),
        "draw" => Some(Score::Draw),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn info_scores_parse() {
        assert_eq!(parse_info_score("info depth 3 score cp -35 nodes 9 pv a"), Some(Score::Cp(-35)));
        assert_eq!(parse_info_score("info depth 9 score win 7 nodes 9"), Some(Score::Win(7)));
        assert_eq!(parse_info_score("info depth 9 score draw"), Some(Score::Draw));
        assert_eq!(parse_info_score("info string hello"), None);
        assert_eq!(parse_info_score("info score cp x"), None);
    }
}
