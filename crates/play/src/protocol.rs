//! The engine protocol: a UCI-style text protocol over lines in and lines
//! out, so that match programs, scripts and other tools can drive the
//! searcher (docs/protocol.md lists the commands). `alq engine` serves it on
//! standard input and output; [`serve`] serves it on any reader and writer.
//!
//! A reader thread turns input lines into events; a search runs on its own
//! thread and reports back on the same channel, so `stop`, `isready` and
//! `quit` are answered while it searches.

use std::io::{BufRead, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use alq_engine::{
    time_for_move, Evaluator, Game, GameConfig, Iteration, Limits, Position, RuleSet, SearchConfig, SearchResult,
    Searcher, Side,
};

use crate::players::{EvalSpec, SpecError, TablesSpec};

/// Where the engine's lines go: shared by the protocol loop and the search
/// thread; each line is flushed as it is written.
#[derive(Clone)]
struct Output(Arc<Mutex<Box<dyn Write + Send>>>);

impl Output {
    fn send(&self, line: &str) {
        let mut out = self.0.lock().unwrap_or_else(|e| e.into_inner());
        // A closed output (the other side went away) is not an error here:
        // the input side ends the loop.
        let _ = writeln!(out, "{line}").and_then(|_| out.flush());
    }
}

type BoxSearcher = Searcher<Box<dyn Evaluator>>;

enum Event {
    Line(String),
    /// Standard input is closed: finish what was asked, then quit.
    Closed,
    /// A search finished; the searcher comes back with its result.
    Done(Box<BoxSearcher>, SearchResult),
}

/// The protocol's options and their current values.
struct Options {
    hash_mb: usize,
    threads: usize,
    eval: EvalSpec,
    tables: Option<TablesSpec>,
    /// 0: the no-progress rule is off.
    no_progress: u32,
    rules: RuleSet,
}

const DEFAULT_NO_PROGRESS: u32 = 60;

/// What `uci` prints between the `id` lines and `uciok`.
const OPTION_LINES: [&str; 6] = [
    "option name Hash type spin default 16 min 1 max 65536",
    "option name Threads type spin default 1 min 1 max 256",
    "option name Eval type string default nn",
    "option name Tablebases type string default <empty>",
    "option name NoProgress type spin default 60 min 0 max 1000",
    "option name Rules type combo default brainking var brainking var classic",
];

/// A search in progress.
struct Running {
    /// `go infinite`: the best move is only given after `stop`.
    infinite: bool,
    /// A result that arrived before `stop` in an infinite search.
    held: Option<SearchResult>,
}

struct Engine {
    options: Options,
    /// `None` while a search holds it, or before the first search after an
    /// option changed (it is built on demand).
    searcher: Option<Box<BoxSearcher>>,
    game: Game,
    stop: Arc<AtomicBool>,
    running: Option<Running>,
    events: Sender<Event>,
    /// Lines that arrived during a search and wait for its end.
    deferred: std::collections::VecDeque<String>,
    out: Output,
}

/// Serves the protocol: reads commands from `input` line by line and writes
/// the engine's lines to `output`, starting under `rules` (the `Rules`
/// option changes them; under rules other than BrainKing's the default Eval
/// is `hce`, since the shipped network was trained on BrainKing games).
/// Returns after `quit`, or once `input` ends and what was asked is done.
pub fn serve(
    rules: RuleSet,
    input: impl BufRead + Send + 'static,
    output: impl Write + Send + 'static,
) -> Result<(), SpecError> {
    let (tx, rx) = mpsc::channel();
    let reader = tx.clone();
    std::thread::spawn(move || {
        // Bytes that are not UTF-8 are replaced, not fatal.
        for line in input.split(b'\n') {
            let Ok(line) = line else { break };
            if reader.send(Event::Line(String::from_utf8_lossy(&line).into_owned())).is_err() {
                return;
            }
        }
        let _ = reader.send(Event::Closed);
    });
    let options = Options {
        hash_mb: 16,
        threads: 1,
        eval: EvalSpec::parse(if rules == RuleSet::BrainKing { "nn" } else { "hce" })?,
        tables: None,
        no_progress: DEFAULT_NO_PROGRESS,
        rules,
    };
    let mut engine = Engine {
        game: Game::new(Position::start_of(rules), game_config(options.no_progress, rules)),
        options,
        searcher: None,
        stop: Arc::new(AtomicBool::new(false)),
        running: None,
        events: tx,
        deferred: Default::default(),
        out: Output(Arc::new(Mutex::new(Box::new(output)))),
    };
    engine.serve(rx);
    Ok(())
}

fn game_config(no_progress: u32, rules: RuleSet) -> GameConfig {
    GameConfig { no_progress_limit: (no_progress > 0).then_some(no_progress), max_plies: None, rules }
}

fn first_word(line: &str) -> &str {
    line.split_whitespace().next().unwrap_or("")
}

/// Commands that change the position or the searcher wait for a running
/// search to end.
fn waits_for_search(word: &str) -> bool {
    matches!(word, "ucinewgame" | "setoption" | "position" | "go")
}

/// The `info` line of one iteration: `info depth D score S nodes N nps X
/// [tbhits T] time MS pv MOVES` (shared by `alq analyze`).
pub fn info_line(it: &Iteration) -> String {
    let ms = it.elapsed.as_millis();
    let nps = (it.nodes as f64 / it.elapsed.as_secs_f64().max(1e-6)) as u64;
    let pv: Vec<String> = it.pv.iter().map(|m| m.to_string()).collect();
    let tb = if it.tb_hits > 0 { format!(" tbhits {}", it.tb_hits) } else { String::new() };
    format!("info depth {} score {} nodes {} nps {nps}{tb} time {ms} pv {}", it.depth, it.score, it.nodes, pv.join(" "))
}

/// `bestmove M`, or `bestmove none` when there is no legal move.
pub fn bestmove_line(result: &SearchResult) -> String {
    match result.best {
        Some(mv) => format!("bestmove {mv}"),
        None => "bestmove none".to_string(),
    }
}

impl Engine {
    fn send(&self, line: &str) {
        self.out.send(line);
    }

    fn error(&self, message: &str) {
        self.send(&format!("info string error: {message}"));
    }

    fn serve(&mut self, rx: Receiver<Event>) {
        // Input closed: finish what was asked first (a script piped into the
        // engine gets every best move), then quit. An infinite search is
        // stopped, as `stop` would.
        let mut closed = false;
        while let Ok(event) = rx.recv() {
            match event {
                Event::Line(line) => {
                    if !self.command(&line) {
                        break;
                    }
                }
                Event::Closed => closed = true,
                Event::Done(searcher, result) => {
                    self.finished(searcher, result);
                    if !self.run_deferred() {
                        break;
                    }
                }
            }
            if closed {
                match &self.running {
                    None if self.deferred.is_empty() => break,
                    Some(r) if r.infinite => self.stop.store(true, Ordering::Relaxed),
                    _ => {}
                }
            }
        }
        // Quit: end a running search and wait for it, without a best move.
        if self.running.is_some() {
            self.stop.store(true, Ordering::Relaxed);
            while let Ok(event) = rx.recv() {
                if let Event::Done(..) = event {
                    break;
                }
            }
        }
    }

    /// Handles one input line; `false` on `quit`.
    ///
    /// Commands take effect in the order received, as Stockfish's do:
    /// `isready` and `stop` are answered at once, but a command that needs
    /// the running search to end (`position`, `go`, ...) waits for it and
    /// everything after it waits behind it. `quit` ends the running search
    /// (its best move is still printed) once the commands before it have
    /// taken effect, and then exits.
    fn command(&mut self, line: &str) -> bool {
        let line = line.trim();
        if self.running.is_some() && !self.deferred.is_empty() {
            // Keep the order: nothing overtakes a line already held back.
            self.deferred.push_back(line.to_string());
            return true;
        }
        if first_word(line) == "quit" && self.running.is_some() {
            self.stop_search();
            if self.running.is_some() {
                // Its best move comes when it ends; then quit.
                self.deferred.push_back(line.to_string());
                return true;
            }
        }
        self.execute(line)
    }

    /// Carries out one command; `false` on `quit`.
    fn execute(&mut self, line: &str) -> bool {
        let (word, rest) = line.split_once(char::is_whitespace).unwrap_or((line, ""));
        let rest = rest.trim();
        let searching = self.running.is_some();
        match word {
            "" => {}
            "quit" => return false,
            "uci" => {
                self.send(&format!("id name alq {}", env!("CARGO_PKG_VERSION")));
                self.send("id author the Alquerque Lab authors");
                for option in OPTION_LINES {
                    self.send(option);
                }
                self.send("uciok");
            }
            "isready" => self.send("readyok"),
            "stop" => self.stop_search(),
            // These wait for the search to end (as a GUI should have done).
            _ if searching && waits_for_search(word) => self.deferred.push_back(line.to_string()),
            "ucinewgame" => {
                if let Some(searcher) = &mut self.searcher {
                    searcher.clear();
                }
                self.game = self.new_game();
            }
            "setoption" => {
                if let Err(e) = self.set_option(rest) {
                    self.error(&e);
                }
            }
            "position" => match self.parse_position(rest) {
                Ok(game) => self.game = game,
                Err(e) => self.error(&e),
            },
            "go" => {
                if let Err(e) = self.go(rest) {
                    self.error(&e);
                }
            }
            other => self.send(&format!("info string unknown command {other:?}")),
        }
        true
    }

    /// Handles the lines held back during a search, in order, until one
    /// has to wait for a search they started; `false` on `quit`.
    fn run_deferred(&mut self) -> bool {
        while let Some(line) = self.deferred.front() {
            let word = first_word(line);
            if self.running.is_some() && (waits_for_search(word) || word == "quit") {
                if word == "quit" {
                    // Every command before it has taken effect: end the
                    // search one of them started; its best move comes next.
                    self.stop_search();
                    if self.running.is_none() {
                        continue;
                    }
                }
                break;
            }
            let line = self.deferred.pop_front().unwrap_or_default();
            if !self.execute(&line) {
                return false;
            }
        }
        true
    }

    fn set_option(&mut self, text: &str) -> Result<(), String> {
        let usage = "expected setoption name NAME value VALUE";
        let text = text.strip_prefix("name").ok_or(usage)?.trim();
        let (name, value) = match text.split_once(" value") {
            Some((n, v)) => (n.trim(), v.trim()),
            None => (text, ""),
        };
        let number = |min: u64, max: u64| -> Result<u64, String> {
            match value.parse::<u64>() {
                Ok(v) if (min..=max).contains(&v) => Ok(v),
                _ => Err(format!("option {name}: {value:?} is not a whole number from {min} to {max}")),
            }
        };
        match name.to_ascii_lowercase().as_str() {
            "hash" => {
                self.options.hash_mb = number(1, 65536)? as usize;
                self.searcher = None;
            }
            "threads" => {
                self.options.threads = number(1, 256)? as usize;
                if let Some(s) = &mut self.searcher {
                    s.set_threads(self.options.threads);
                }
            }
            "eval" => {
                let eval = EvalSpec::parse(value).map_err(|e| format!("option Eval: {}", e.problem))?;
                eval.check_rules(self.options.rules).map_err(|e| format!("option Eval: {e}"))?;
                self.options.eval = eval;
                self.searcher = None;
            }
            "tablebases" => {
                let tables = match value {
                    "" | "<empty>" => None,
                    dir => Some(TablesSpec::open(dir).map_err(|e| format!("option Tablebases: {e}"))?),
                };
                if let Some(t) = &tables {
                    t.check_rules(self.options.rules).map_err(|e| format!("option Tablebases: {e}"))?;
                }
                self.options.tables = tables;
                if let Some(s) = &mut self.searcher {
                    s.set_tables(self.options.tables.as_ref().map(|t| Arc::clone(&t.tables)));
                }
            }
            "noprogress" => {
                self.options.no_progress = number(0, 1000)? as u32;
                // The current position keeps its moves under the new rule.
                let mut game = Game::new(self.game.start(), self.game_config());
                for &mv in self.game.moves() {
                    if game.play(mv).is_err() {
                        break;
                    }
                }
                self.game = game;
            }
            "rules" => {
                let rules: RuleSet = value.parse().map_err(|e| format!("option Rules: {e}"))?;
                self.options
                    .eval
                    .check_rules(rules)
                    .map_err(|e| format!("option Rules: {e}; set Eval to hce or a {rules} network first"))?;
                if let Some(t) = &self.options.tables {
                    t.check_rules(rules).map_err(|e| format!("option Rules: {e}; clear Tablebases first"))?;
                }
                self.options.rules = rules;
                self.searcher = None;
                self.game = self.new_game();
            }
            _ => {
                return Err(format!(
                    "unknown option {name:?} (options: Hash, Threads, Eval, Tablebases, NoProgress, Rules)"
                ))
            }
        }
        Ok(())
    }

    /// The game rules of the current options.
    fn game_config(&self) -> GameConfig {
        game_config(self.options.no_progress, self.options.rules)
    }

    /// A new game from the start under the current options.
    fn new_game(&self) -> Game {
        Game::new(Position::start_of(self.options.rules), self.game_config())
    }

    /// `startpos [moves ...]` or `fen TEXT [moves ...]`.
    fn parse_position(&self, text: &str) -> Result<Game, String> {
        let (setup, moves) = match text.split_once("moves") {
            Some((setup, moves)) => (setup.trim(), Some(moves)),
            None => (text.trim(), None),
        };
        let start = if setup == "startpos" {
            Position::start_of(self.options.rules)
        } else if let Some(fen) = setup.strip_prefix("fen") {
            let fen = fen.trim();
            if fen.is_empty() {
                return Err("position fen needs a position text".to_string());
            }
            fen.parse::<Position>().map_err(|e| e.to_string())?
        } else {
            return Err(format!("expected position startpos|fen TEXT [moves ...], found {text:?}"));
        };
        let mut game = Game::new(start, self.game_config());
        for (i, mv) in moves.unwrap_or("").split_whitespace().enumerate() {
            if game.is_over() {
                return Err(format!("move {} ({mv}): the game is already over", i + 1));
            }
            game.play_text(mv).map_err(|e| format!("move {} ({mv}): {e}", i + 1))?;
        }
        Ok(game)
    }

    fn go(&mut self, text: &str) -> Result<(), String> {
        let mut limits = Limits::default();
        let mut infinite = false;
        let (mut clock, mut inc, mut to_go) = ([None, None], [Duration::ZERO; 2], None);
        let mut words = text.split_whitespace();
        while let Some(key) = words.next() {
            if key == "infinite" {
                infinite = true;
                continue;
            }
            let value = words.next().ok_or_else(|| format!("go {key}: missing value"))?;
            let n: u64 = value.parse().map_err(|_| format!("go {key}: {value:?} is not a whole number"))?;
            let ms = Duration::from_millis(n);
            match key {
                "depth" => limits.depth = Some(n.clamp(1, 100) as u32),
                "nodes" => limits.nodes = Some(n.max(1)),
                "movetime" => limits.movetime = Some(ms.max(Duration::from_millis(1))),
                "wtime" => clock[0] = Some(ms),
                "btime" => clock[1] = Some(ms),
                "winc" => inc[0] = ms,
                "binc" => inc[1] = ms,
                "movestogo" => to_go = Some(n.clamp(1, 1000) as u32),
                _ => return Err(format!("go: unknown parameter {key:?}")),
            }
        }
        let side = match self.game.position().side_to_move() {
            Side::White => 0,
            Side::Black => 1,
        };
        if let Some(remaining) = clock[side] {
            let budget = time_for_move(remaining, inc[side], to_go);
            limits.movetime = Some(limits.movetime.map_or(budget, |t| t.min(budget)));
        }
        // No limit at all searches until `stop`, as `go infinite` does.
        let infinite = infinite || limits == Limits::default();
        let mut searcher = match self.searcher.take() {
            Some(s) => s,
            None => self.build_searcher(),
        };
        self.stop.store(false, Ordering::Relaxed);
        let game = self.game.clone();
        let events = self.events.clone();
        self.running = Some(Running { infinite, held: None });
        let out = self.out.clone();
        std::thread::spawn(move || {
            let result = searcher.search(&game, limits, |it| out.send(&info_line(it)));
            let _ = events.send(Event::Done(searcher, result));
        });
        Ok(())
    }

    fn build_searcher(&self) -> Box<BoxSearcher> {
        let mut searcher =
            Box::new(Searcher::new(self.options.eval.build(), SearchConfig { hash_mb: self.options.hash_mb }));
        searcher.set_threads(self.options.threads);
        searcher.set_tables(self.options.tables.as_ref().map(|t| Arc::clone(&t.tables)));
        searcher.set_stop_flag(Some(Arc::clone(&self.stop)));
        searcher
    }

    fn stop_search(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(running) = &mut self.running {
            if let Some(result) = running.held.take() {
                self.send(&bestmove_line(&result));
                self.running = None;
            }
        }
    }

    fn finished(&mut self, searcher: Box<BoxSearcher>, result: SearchResult) {
        // An option may have been changed meanwhile (refused), so the
        // searcher is still the current one.
        self.searcher = Some(searcher);
        match &mut self.running {
            Some(running) if running.infinite && !self.stop.load(Ordering::Relaxed) => running.held = Some(result),
            _ => {
                self.send(&bestmove_line(&result));
                self.running = None;
            }
        }
    }
}
