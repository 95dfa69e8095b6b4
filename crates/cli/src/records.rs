//! `alq records`: merge shards, statistics and rescoring of game record files.

use std::path::PathBuf;

use clap::Subcommand;

use alq_records::{RecordReader, RecordStats};
use alq_selfplay::{merge, run_rescore, RescoreConfig};

#[derive(Subcommand)]
pub enum RecordsCommand {
    /// Combine shard files into the file a single run would have written.
    Merge {
        /// Shard files (games.csv of each shard).
        #[arg(required = true, value_name = "FILE")]
        inputs: Vec<PathBuf>,
        /// The merged file.
        #[arg(long, value_name = "FILE")]
        out: PathBuf,
    },
    /// Games, results, terminations, average length and positions.
    Stats {
        #[arg(required = true, value_name = "FILE")]
        files: Vec<PathBuf>,
        /// Count bad rows and go on, instead of stopping at the first.
        #[arg(long)]
        skip_bad: bool,
        /// The rule set the games must have been played under (default
        /// brainking); games of another are bad rows.
        #[command(flatten)]
        rules: crate::RulesArg,
    },
    /// Deeper training targets: re-search a sample of the scored positions
    /// of games with a stronger search and write the games again with those
    /// scores (moves, results and every other column unchanged); train on
    /// the output. Reproducible from the seed whatever the thread count;
    /// `--resume` completes an interrupted run.
    Rescore {
        /// Games files, read in order.
        #[arg(required = true, value_name = "FILE")]
        inputs: Vec<PathBuf>,
        /// The rescored games file; OUT-stem.rescore.toml beside it says how
        /// it was made.
        #[arg(long, value_name = "FILE")]
        out: PathBuf,
        /// The searching player with its limit, e.g. `nn@nodes=8000`,
        /// `hce@depth=12` or `best.alqnet@nodes=8000`.
        #[arg(long, value_name = "SPEC")]
        player: String,
        /// Share of the scored positions to re-search (the others keep
        /// their self-play scores).
        #[arg(long, value_name = "F", default_value_t = 0.25)]
        fraction: f64,
        /// Seed of the sample.
        #[arg(long, value_name = "S", default_value_t = 1)]
        seed: u64,
        /// The rule set of the games and the player (default brainking).
        #[command(flatten)]
        job: crate::JobArgs,
        #[command(flatten)]
        rules: crate::RulesArg,
    },
}

pub fn run(command: RecordsCommand) -> anyhow::Result<()> {
    match command {
        RecordsCommand::Merge { inputs, out } => {
            let n = merge(&inputs, &out)?;
            eprintln!("{n} games merged into {}", out.display());
        }
        RecordsCommand::Stats { files, skip_bad, rules } => {
            let mut stats = RecordStats::default();
            let mut bad = 0u64;
            for file in &files {
                for item in RecordReader::open(file)?.expecting(rules.get()) {
                    match item {
                        Ok(game) => stats.add(&game),
                        Err(e) if skip_bad => {
                            eprintln!("skipped: {e}");
                            bad += 1;
                        }
                        Err(e) => return Err(e.into()),
                    }
                }
            }
            let pct = |n: u64| if stats.games == 0 { 0.0 } else { 100.0 * n as f64 / stats.games as f64 };
            println!("games {}", stats.games);
            println!("white_wins {} ({:.2}%)", stats.white_wins, pct(stats.white_wins));
            println!("black_wins {} ({:.2}%)", stats.black_wins, pct(stats.black_wins));
            println!("draws {} ({:.2}%)", stats.draws, pct(stats.draws));
            println!("unfinished {} ({:.2}%)", stats.unfinished, pct(stats.unfinished));
            for (t, n) in &stats.terminations {
                println!("termination {t} {n}");
            }
            println!("average_plies {:.1}", stats.average_plies());
            println!("positions {}", stats.positions);
            if skip_bad {
                println!("bad_rows {bad}");
            }
        }
        RecordsCommand::Rescore { inputs, out, player, fraction, seed, job, rules } => {
            let crate::JobArgs { threads, resume, quiet } = job;
            let config = RescoreConfig {
                player,
                fraction,
                seed,
                rules: rules.get(),
                inputs: inputs.iter().map(|p| p.display().to_string()).collect(),
            };
            let pool = crate::thread_pool(threads)?;
            let bar = crate::progress::bar(quiet, 0, "{bar:30} {pos}/{len} games ({per_sec}), eta {eta}");
            let started = std::time::Instant::now();
            let summary = pool.install(|| {
                run_rescore(&config, &out, resume, |done, total| {
                    bar.set_length(total);
                    bar.set_position(done);
                })
            })?;
            bar.finish_and_clear();
            let secs = started.elapsed().as_secs_f64();
            eprintln!(
                "{} games in {} ({} resumed); {} positions re-searched by {} in {secs:.1} s ({:.0} positions/s)",
                summary.games,
                out.display(),
                summary.resumed,
                summary.searched,
                config.player,
                summary.searched as f64 / secs.max(1e-9)
            );
        }
    }
    Ok(())
}
