//! `alq serve`: the opening explorer in the browser.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::Context;
use clap::Args;

use alq_engine::{Position, RuleSet};
use alq_explorer::{Explorer, Index, Known, Settler};

/// Index games, then serve the explorer page and its JSON API.
#[derive(Args)]
pub struct ServeArgs {
    /// Games files to index (records format; games from the standard start).
    #[arg(long, value_name = "PATH", num_args = 1.., required = true)]
    games: Vec<PathBuf>,
    /// Index positions up to this many plies into each game.
    #[arg(long, value_name = "N", default_value_t = 40, value_parser = clap::value_parser!(u32).range(1..=400))]
    max_plies: u32,
    /// An opening book (`alq openings` CSV): its scores and exact values are
    /// shown for the positions it holds.
    #[arg(long, value_name = "FILE")]
    book: Option<PathBuf>,
    /// Endgame tables: exact values of the positions they cover, and
    /// `/api/tablebase`.
    #[arg(long, value_name = "DIR")]
    tb: Option<PathBuf>,
    /// A folder of proof certificates (like data/proofs): the lines they
    /// settle show their proven value. Each is checked first and refused
    /// by name if it does not hold (table leaves over `--tb` when it holds
    /// them; else they are not probed, and the value says so).
    #[arg(long, value_name = "DIR")]
    proofs: Option<PathBuf>,
    /// The user's proven-position store for the oracle: read, and what the
    /// oracle settles is written back (merged, atomically).
    #[arg(long, value_name = "FILE")]
    store: Option<PathBuf>,
    /// How long a request waits for the oracle's exact values of the
    /// position and its moves; values still open are marked pending and
    /// the page asks again.
    #[arg(long, value_name = "MS", default_value_t = 300)]
    oracle_wait: u64,
    /// The oracle's search budget for each position it settles in the
    /// background (0: only values known without a search: the tables, the
    /// shipped proofs, the store).
    #[arg(long, value_name = "MS", default_value_t = 5000)]
    oracle_movetime: u64,
    /// No oracle: exact values only from the tables, `--book` and `--proofs`.
    #[arg(long)]
    no_oracle: bool,
    /// Evaluator for the engine's scores and `/api/eval`: `nn`, `hce` or a
    /// network file; `none` shows no engine scores.
    #[arg(long, value_name = "EVAL", default_value = "nn")]
    eval: String,
    /// Nodes per position for the scores in the moves table (cached).
    #[arg(long, value_name = "N", default_value_t = 2000, value_parser = clap::value_parser!(u64).range(1..))]
    eval_nodes: u64,
    /// Port (0: any free port).
    #[arg(long, default_value_t = 8080)]
    port: u16,
    /// Address to listen on; the default serves this machine only.
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1")]
    bind: String,
    /// Worker threads answering requests.
    #[arg(long, value_name = "T", default_value_t = 16, value_parser = clap::value_parser!(u32).range(1..=256))]
    threads: u32,
    /// No progress bar.
    #[arg(long)]
    quiet: bool,
    #[command(flatten)]
    rules: crate::RulesArg,
}

static STOP: AtomicBool = AtomicBool::new(false);

extern "C" fn on_signal(_: libc::c_int) {
    STOP.store(true, Ordering::SeqCst);
}

pub fn run(args: ServeArgs) -> anyhow::Result<()> {
    let rules = args.rules.get();
    let eval = match args.eval.as_str() {
        "none" => None,
        spec => {
            let e = alq_play::EvalSpec::parse(spec)?;
            e.check_rules(rules).map_err(|e| anyhow::anyhow!("evaluator {spec}: {e}"))?;
            Some(e)
        }
    };
    let tables = crate::players::shared_tablebase(args.tb.as_deref(), rules)?;
    let mut known = Known::default();
    if let Some(book) = &args.book {
        read_book(book, &mut known)?;
    }
    if let Some(dir) = &args.proofs {
        for (line, value) in crate::solve::read_proofs(dir, rules, args.tb.as_deref())? {
            let pos = replay(&line, rules).with_context(|| format!("a proven line of {}", dir.display()))?;
            let (statement, label) = value.split_once(" (proof").unwrap_or((&value, ""));
            // The certificates' table leaves unprobed (no --tb holding them): said so.
            let source = if label.contains("leaves not checked") { "proof (leaves not checked)" } else { "proof" };
            if let Some(v) = side_to_move_view(statement, pos.side_to_move()) {
                known.exact.insert(pos.key(), (v.to_string(), source));
            }
        }
    }
    let started = Instant::now();
    let bar = crate::progress::bar(args.quiet, 0, "{pos} games indexed ({per_sec}) {msg}");
    let mut done = 0;
    let mut current = PathBuf::new();
    let index = Index::build(&args.games, rules, args.max_plies, |file, read| {
        // `read` counts the games of `file` so far.
        if file != current {
            done = bar.position();
            current = file.to_path_buf();
            bar.set_message(file.display().to_string());
        }
        bar.set_position(done + read);
    })?;
    bar.finish_and_clear();
    let s = index.stats();
    eprintln!(
        "indexed {} games ({} from other starts left out) in {:.1} s: {} positions, {} moves, {:.1} MiB",
        s.games,
        s.other_starts,
        started.elapsed().as_secs_f64(),
        s.positions,
        s.moves,
        s.bytes as f64 / (1 << 20) as f64
    );
    let mut explorer = Explorer::new(index, tables, known, eval, args.eval_nodes);
    // Kept to write what it settled to --store when the server stops.
    let mut kept_oracle = None;
    if !args.no_oracle {
        let tb = match &args.tb {
            Some(dir) => Some(alq_tablebase::Tablebase::shared_static(dir)?),
            None => None,
        };
        let budget = alq_solver::Budget {
            nodes: (args.oracle_movetime == 0).then_some(0),
            time: Some(Duration::from_millis(args.oracle_movetime)),
            memory_bytes: 1 << 30,
        };
        let (oracle, read) = crate::players::open_oracle(rules, tb, "hce", budget, true, args.store.as_deref())?;
        if let Some(file) = &args.store {
            eprintln!("store {}: {read} positions", file.display());
        }
        let oracle = Arc::new(oracle);
        kept_oracle = Some(Arc::clone(&oracle));
        explorer = explorer.with_oracle(Settler::start(oracle, Duration::from_millis(args.oracle_wait)));
    }
    let explorer = Arc::new(explorer);
    let addr = format!("{}:{}", args.bind, args.port);
    let running = alq_explorer::start(explorer, &addr, args.threads as usize).map_err(anyhow::Error::msg)?;
    let url = match running.addr() {
        std::net::SocketAddr::V6(a) => format!("http://[{}]:{}/", a.ip(), a.port()),
        a => format!("http://{a}/"),
    };
    println!("serving {url} (Ctrl-C stops)");
    // Ctrl-C (and SIGTERM) set a flag; a watcher stops the server.
    #[cfg(unix)]
    // SAFETY: the handler only stores to an atomic, which is signal-safe.
    unsafe {
        libc::signal(libc::SIGINT, on_signal as *const () as libc::sighandler_t);
        libc::signal(libc::SIGTERM, on_signal as *const () as libc::sighandler_t);
    }
    let stop = running.stopper();
    std::thread::spawn(move || {
        while !STOP.load(Ordering::SeqCst) {
            std::thread::sleep(Duration::from_millis(100));
        }
        stop();
    });
    running.join();
    if let Some(oracle) = kept_oracle {
        oracle.save()?;
    }
    eprintln!("stopped");
    Ok(())
}

/// A proof's outcome (`White wins`, `Black holds at least a draw`, …) from
/// the side to move's view (`win`, `≥ draw`, …); `None` when nothing is proven.
fn side_to_move_view(outcome: &str, to_move: alq_engine::Side) -> Option<&'static str> {
    let mine = |side: &str| (side == "White") == (to_move == alq_engine::Side::White);
    match outcome.split_once(' ') {
        _ if outcome == "draw" => Some("draw"),
        Some((side, "wins")) => Some(if mine(side) { "win" } else { "loss" }),
        Some((side, "holds at least a draw")) => Some(if mine(side) { "≥ draw" } else { "≤ draw" }),
        _ => None,
    }
}

/// The position a line of moves reaches from the start.
fn replay(line: &str, rules: RuleSet) -> anyhow::Result<Position> {
    let mut pos = Position::start_of(rules);
    for word in line.split_whitespace() {
        pos = pos.play(pos.parse_move_in(rules, word)?);
    }
    Ok(pos)
}

/// A book's score: `cp N`, `win N`, `loss N` or `draw`.
fn parse_book_score(text: &str) -> Option<alq_engine::Score> {
    use alq_engine::Score;
    let mut words = text.split_whitespace();
    let kind = words.next()?;
    let n = words.next();
    if words.next().is_some() {
        return None;
    }
    match (kind, n) {
        ("cp", Some(n)) => n.parse().ok().map(Score::Cp),
        ("win", Some(n)) => n.parse().ok().map(Score::Win),
        ("loss", Some(n)) => n.parse().ok().map(Score::Loss),
        ("draw", None) => Some(Score::Draw),
        _ => None,
    }
}

/// Reads an opening book's scores (side to move's view) and exact values.
fn read_book(path: &std::path::Path, known: &mut Known) -> anyhow::Result<()> {
    let mut reader =
        csv::Reader::from_path(path).with_context(|| format!("cannot read the book {}", path.display()))?;
    let headers = reader.headers().with_context(|| format!("{}: no header row", path.display()))?.clone();
    let column = |name: &str| headers.iter().position(|h| h == name);
    let (Some(pos_col), Some(score_col)) = (column("position"), column("score")) else {
        anyhow::bail!("{}: a book needs `position` and `score` columns (alq openings writes them)", path.display());
    };
    let exact_col = column("exact_value");
    for (i, row) in reader.records().enumerate() {
        let line = i + 2;
        let row = row.with_context(|| format!("{}:{line}", path.display()))?;
        let pos: Position = row[pos_col].parse().with_context(|| format!("{}:{line}", path.display()))?;
        let score = parse_book_score(&row[score_col]).ok_or_else(|| {
            anyhow::anyhow!(
                "{}:{line}: score {:?} is not `cp N`, `win N`, `loss N` or `draw`",
                path.display(),
                &row[score_col]
            )
        })?;
        let k = pos.key();
        known.scores.insert(k, score);
        if let Some(value) = exact_col.map(|c| row[c].trim()).filter(|v| !v.is_empty()) {
            known.exact.entry(k).or_insert_with(|| (value.to_string(), "book"));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::side_to_move_view;
    use alq_engine::Side;

    #[test]
    fn proof_outcomes_turn_to_the_side_to_move() {
        assert_eq!(side_to_move_view("draw", Side::White), Some("draw"));
        assert_eq!(side_to_move_view("Black wins", Side::Black), Some("win"));
        assert_eq!(side_to_move_view("Black wins", Side::White), Some("loss"));
        assert_eq!(side_to_move_view("White holds at least a draw", Side::White), Some("≥ draw"));
        assert_eq!(side_to_move_view("White holds at least a draw", Side::Black), Some("≤ draw"));
        assert_eq!(side_to_move_view("nothing proven", Side::White), None);
    }
}
