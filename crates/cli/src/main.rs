//! `alq`: the Alquerque Lab command line. Each subcommand parses its
//! arguments, then calls into the library crates and prints; the work itself
//! (trees, proofs, matches, files) is the libraries'.
//!
//! Naming: the module of subcommand `alq NAME` enters at `NAME::run(args)`;
//! a module with subcommands or modes of its own (`tb`, `records`, `solve`)
//! dispatches from `run` to private `run_MODE` functions.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

// The trainer allocates many short-lived tensor buffers; mimalloc keeps freed
// memory instead of returning it, which made training about 1.6 times faster
// than with the system allocator (see docs/figures.md).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

mod accuracy;
mod analyze;
mod atlas;
mod bench;
mod engine;
mod label;
mod matchcmd;
mod moves;
mod openings;
mod oracle;
mod perft;
mod pipeline;
mod play;
mod players;
mod progress;
mod records;
mod report;
mod selfplay;
mod serve;
mod solve;
mod study;
mod tb;
mod train;

/// Alquerque Lab: engine, self-play, training and reports for Alquerque
/// played by BrainKing's rules (or the classic rules: `--rules classic`).
#[derive(Parser)]
#[command(name = "alq", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Print the legal moves of a position, one per line, sorted.
    Moves(moves::MovesArgs),
    /// Count the leaf moves of the move tree for each depth 1..N.
    Perft(perft::PerftArgs),
    /// Search a position and print one `info` line per iteration, then `bestmove`.
    ///
    /// Each line reads `info depth D score S nodes N nps X [tbhits T] time MS
    /// pv MOVES`. The score S is the side to move's: `cp N` (centipawns, a
    /// piece is about 100), `win P` or `loss P` (proven: the game ends in P
    /// plies), or `draw` (proven drawn by the endgame tables given with
    /// --tb: neither side can force the end). With --tb, a position whose
    /// moves all lead into the tables is answered by them at once, with their
    /// exact distance, unless the no-progress rule could end the game first.
    Analyze(analyze::AnalyzeArgs),
    /// Speak a UCI-style text protocol on stdin/stdout, for match programs and other tools.
    ///
    /// Commands: uci, isready, ucinewgame, setoption name N value V (Hash,
    /// Threads, Eval, Tablebases, NoProgress, Rules), position startpos|fen TEXT
    /// [moves ...], go [depth D] [nodes N] [movetime MS] [wtime MS btime MS
    /// winc MS binc MS movestogo N] [infinite], stop, quit. See docs/protocol.md.
    // The doc text is the --help text; `[infinite]` is protocol syntax, not a link.
    #[allow(rustdoc::broken_intra_doc_links)]
    Engine(engine::EngineArgs),
    /// Play a game against the engine in the terminal.
    Play(play::PlayArgs),
    /// Play two players against each other over paired openings; Elo and SPRT.
    Match(matchcmd::MatchArgs),
    /// Grade every move of games against perfect play (the oracle): value
    /// kept, half or whole point lost, or unknown; per player and phase.
    Accuracy(accuracy::AccuracyArgs),
    /// Run generations of self-play, training and gating (the main job).
    Pipeline(pipeline::PipelineArgs),
    /// Generate self-play games into DIR/games.csv (reproducible, resumable, shardable).
    Selfplay(selfplay::SelfplayArgs),
    /// Work with game record files: merge shards, statistics.
    #[command(subcommand)]
    Records(records::RecordsCommand),
    /// White's first-move advantage by playing strength: a ladder of players, each playing itself from the start.
    Study(study::StudyArgs),
    /// Report on White's advantage and the openings: JSON, CSV, SVG plots, HTML and Markdown.
    Report(report::ReportArgs),
    /// Evaluate every position up to K plies and write an opening book (CSV).
    Openings(openings::OpeningsArgs),
    /// Train the value network on games (burn) and export it for the engine.
    Train(train::TrainArgs),
    /// Run a fixed, deterministic workload and print its node count and speed.
    Bench(bench::BenchArgs),
    /// Prove a position's exact value (win/loss distance or draw) by a proof search.
    Solve(solve::SolveArgs),
    /// The exact win/draw/loss value of a position and of each of its moves,
    /// from the tables, proven-position stores and threshold searches.
    Oracle(oracle::OracleArgs),
    /// The exact value of every position of the opening tree (deepest ply
    /// first, resumable), and how narrow each is.
    Atlas(atlas::AtlasArgs),
    /// Value the positions of games exactly (the oracle within a small
    /// budget each) into a store, for training on exact targets.
    Label(label::LabelArgs),
    /// Endgame tablebases: build, probe, stats, verify.
    #[command(subcommand)]
    Tb(tb::TbCommand),
    /// The opening explorer in the browser: index games, then serve a page and a JSON API.
    ///
    /// Indexes every position the games reach (up to --max-plies) with the
    /// games through it and per move played there (White wins, draws, Black
    /// wins, average length), then serves http://BIND:PORT/: a board to click
    /// through, the moves table with the engine's scores and exact values
    /// (tables, proofs, book), and the API /api/explorer, /api/eval (search
    /// iterations as server-sent events) and /api/tablebase. See
    /// docs/explorer.md.
    Serve(serve::ServeArgs),
}

fn main() -> ExitCode {
    // Like other Unix tools, end quietly when the reader of our output goes
    // away (`alq moves | head -1`) instead of failing on a broken pipe.
    #[cfg(unix)]
    // SAFETY: restoring the default disposition of SIGPIPE before any thread
    // starts has no other effect.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Moves(args) => moves::run(args),
        Command::Perft(args) => perft::run(args),
        Command::Bench(args) => bench::run(args),
        Command::Analyze(args) => analyze::run(args),
        Command::Serve(args) => serve::run(args),
        Command::Match(args) => matchcmd::run(args),
        Command::Accuracy(args) => accuracy::run(args),
        Command::Play(args) => play::run(args),
        Command::Engine(args) => engine::run(args),
        Command::Selfplay(args) => selfplay::run(args),
        Command::Records(cmd) => records::run(cmd),
        Command::Report(args) => report::run(args),
        Command::Study(args) => study::run(args),
        Command::Pipeline(args) => pipeline::run(args),
        Command::Train(args) => train::run(args),
        Command::Openings(args) => openings::run(args),
        Command::Solve(args) => solve::run(args),
        Command::Oracle(args) => oracle::run(args),
        Command::Atlas(args) => atlas::run(args),
        Command::Label(args) => label::run(args),
        Command::Tb(cmd) => tb::run(cmd),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error:#}");
            if error.chain().any(occupied) {
                eprintln!("(pass --resume to continue it, or choose another --out)");
            }
            ExitCode::from(2)
        }
    }
}

/// Whether `e` is a job refusing an output that already holds a run (the
/// libraries name the place; the command line adds how to resume).
fn occupied(e: &(dyn std::error::Error + 'static)) -> bool {
    let run = e
        .downcast_ref::<alq_records::RunError>()
        .or_else(|| e.downcast_ref::<alq_selfplay::SelfplayError>().and_then(|e| e.run_error()))
        .or_else(|| e.downcast_ref::<alq_train::TrainError>().and_then(|e| e.run_error()))
        .or_else(|| e.downcast_ref::<alq_pipeline::PipelineError>().and_then(|e| e.run_error()));
    matches!(run, Some(alq_records::RunError::Occupied { .. }))
}

/// The flags every long job (self-play, rescoring, studies, training, the
/// pipeline) shares.
#[derive(clap::Args, Clone, Copy, Debug)]
pub struct JobArgs {
    /// Continue the run in the output where it stopped (the same settings
    /// are required; counts of games, generations or epochs may grow).
    /// Without it, an output that already holds a run is refused.
    #[arg(long)]
    pub resume: bool,
    /// Worker threads (default: the config's `threads` where it has one,
    /// else all cores).
    #[arg(long, value_name = "T")]
    pub threads: Option<usize>,
    /// No progress bars.
    #[arg(long)]
    pub quiet: bool,
}

/// `--rules NAME`: the rule set of every command that plays, reads or
/// solves games.
#[derive(clap::Args, Clone, Copy, Debug, Default)]
pub struct RulesArg {
    /// The rule set: `brainking` (BrainKing's Alquerque, RULES.md; the
    /// default) or `classic` (moves and first jumps in every direction, no
    /// last-row freeze, a capture may end on its starting point). Records,
    /// networks and tables of another rule set are refused.
    #[arg(long = "rules", value_name = "NAME")]
    pub rules: Option<alq_engine::RuleSet>,
}

impl RulesArg {
    /// The rule set given, else BrainKing's.
    pub fn get(self) -> alq_engine::RuleSet {
        self.rules.unwrap_or_default()
    }

    /// The rule set given, else the config's.
    pub fn or(self, config: alq_engine::RuleSet) -> alq_engine::RuleSet {
        self.rules.unwrap_or(config)
    }
}

/// Parses `--position` text, defaulting to the start position.
pub fn parse_position(text: Option<&str>) -> anyhow::Result<alq_engine::Position> {
    match text {
        None => Ok(alq_engine::Position::start()),
        Some(text) => Ok(text.parse()?),
    }
}

/// Plays `--moves` text (space-separated moves) from `pos` under `rules`;
/// a bad move is named with its number.
pub fn play_line(
    mut pos: alq_engine::Position,
    rules: alq_engine::RuleSet,
    line: Option<&str>,
) -> anyhow::Result<alq_engine::Position> {
    use anyhow::Context;
    for (i, text) in line.unwrap_or("").split_whitespace().enumerate() {
        let mv = pos.parse_move_in(rules, text).with_context(|| format!("--moves: move {} ({text:?})", i + 1))?;
        pos = pos.play(mv);
    }
    Ok(pos)
}

/// Reads a TOML config file into `T` (unknown keys are refused by `T`), or
/// `T`'s defaults when no file is given.
pub fn load_toml<T: serde::de::DeserializeOwned + Default>(path: Option<&std::path::Path>) -> anyhow::Result<T> {
    use anyhow::Context;
    match path {
        None => Ok(T::default()),
        Some(p) => {
            let text = std::fs::read_to_string(p).with_context(|| format!("cannot read config {}", p.display()))?;
            toml::from_str(&text).with_context(|| format!("config {}", p.display()))
        }
    }
}

/// A rayon pool with `threads` workers (default: all cores).
/// `--threads` for tools that run one worker (with its own oracle) per
/// thread: the number given (at least 1), else all cores.
pub fn worker_threads(threads: Option<usize>) -> anyhow::Result<usize> {
    match threads {
        Some(0) => anyhow::bail!("--threads must be at least 1"),
        Some(t) => Ok(t),
        None => Ok(std::thread::available_parallelism().map_or(1, |n| n.get())),
    }
}

pub fn thread_pool(threads: Option<usize>) -> anyhow::Result<rayon::ThreadPool> {
    let mut builder = rayon::ThreadPoolBuilder::new();
    if let Some(t) = threads {
        if t == 0 {
            anyhow::bail!("--threads must be at least 1");
        }
        builder = builder.num_threads(t);
    }
    Ok(builder.build()?)
}
