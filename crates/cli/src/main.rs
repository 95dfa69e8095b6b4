//! `alq`: the Alquerque Lab command line. Each subcommand parses its
//! arguments, then calls into the library crates.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod analyze;
mod bench;
mod perft;
mod players;

/// Alquerque Lab: engine, self-play, training and reports for Alquerque
/// played by BrainKing's rules.
#[derive(Parser)]
#[command(name = "alq", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Print the legal moves of a position, one per line, sorted.
    Moves(perft::MovesArgs),
    /// Count the leaf moves of the move tree for each depth 1..N.
    Perft(perft::PerftArgs),
    /// Search a position and print one `info` line per iteration, then `bestmove`.
    Analyze(analyze::AnalyzeArgs),
    /// Run a fixed, deterministic workload and print its node count and speed.
    Bench(bench::BenchArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Moves(args) => perft::moves(args),
        Command::Perft(args) => perft::perft(args),
        Command::Bench(args) => bench::bench(args),
        Command::Analyze(args) => analyze::analyze(args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error:#}");
            ExitCode::from(2)
        }
    }
}

/// Parses `--position` text, defaulting to the start position.
pub fn parse_position(text: Option<&str>) -> anyhow::Result<alq_engine::Position> {
    match text {
        None => Ok(alq_engine::Position::start()),
        Some(text) => Ok(text.parse()?),
    }
}
