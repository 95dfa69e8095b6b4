//! `alq label`: exact values for training, written to a store that `alq
//! train` reads.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use anyhow::Context;
use clap::Args;

use alq_oracle::label::{label, LabelReport};
use alq_records::SampleOptions;
use alq_train::TrainConfig;

/// Value the positions of games exactly, for training on exact targets.
///
/// Every distinct position the trainer would sample from the games (as
/// `alq train` with --config does: the opening plies and forced captures
/// left out by default) is valued by the oracle: the end, the --tb tables,
/// the store, then a threshold search within --movetime or --nodes. What
/// the searches settle is written to --store (merged, atomically, as the
/// run goes: a rerun continues where a kill stopped; the store exists at
/// the end even when nothing was settled). Train on it with
/// `stores = ["FILE"]` under `[train]` (and `tablebase` for the positions
/// the tables cover, which the store does not repeat); `exact_weight` sets
/// how much the exact values weigh.
///
/// Most middle-game positions stay unknown within a small budget; those
/// near the tables or already decided settle. --max-pieces spends the
/// budget where it settles. The summary gives the share labelled.
#[derive(Args)]
pub struct LabelArgs {
    /// Games files (records format, as `alq selfplay` writes them).
    #[arg(long, value_name = "FILE", num_args = 1.., required = true)]
    games: Vec<PathBuf>,
    /// The store the labels go to: read if it exists, written as the run goes.
    #[arg(long, value_name = "FILE")]
    store: PathBuf,
    /// Endgame tables (any kind): positions they cover are valued at once
    /// and are leaves of the searches (default: the config's `tablebase`).
    #[arg(long, value_name = "DIR")]
    tb: Option<PathBuf>,
    /// Training settings (TOML, as for `alq train`): which positions are
    /// sampled (skip_opening, skip_forced_captures) and the rules.
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// Search budget per position in milliseconds (default 20 when --nodes
    /// is not given).
    #[arg(long, value_name = "MS", conflicts_with = "nodes", value_parser = clap::value_parser!(u64).range(1..))]
    movetime: Option<u64>,
    /// Search budget per position, in expanded positions.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    nodes: Option<u64>,
    /// Value only positions with at most this many pieces.
    #[arg(long, value_name = "K", value_parser = clap::value_parser!(u32).range(1..=24))]
    max_pieces: Option<u32>,
    /// Memory for each worker's search graph in MiB.
    #[arg(long, value_name = "MB", default_value_t = 256, value_parser = clap::value_parser!(u64).range(1..))]
    hash: u64,
    /// Evaluator that guides the searches: `hce`, `nn` or a network file.
    #[arg(long, value_name = "EVAL", default_value = "hce")]
    eval: String,
    /// Worker threads, each with its own oracle (default: all cores).
    #[arg(long, value_name = "T")]
    threads: Option<usize>,
    /// No progress bar.
    #[arg(long)]
    quiet: bool,
    #[command(flatten)]
    rules: crate::RulesArg,
}

pub fn run(args: LabelArgs) -> anyhow::Result<()> {
    let mut config: TrainConfig = crate::load_toml(args.config.as_deref())?;
    config.rules = args.rules.or(config.rules);
    let rules = config.rules;
    let threads = crate::worker_threads(args.threads)?;
    let budget = crate::oracle::budget(args.nodes, args.movetime, Duration::from_millis(20), args.hash);
    // The tables: --tb, else the config's `tablebase` (those the trainer
    // will read beside the store).
    let tb_dir = args.tb.clone().or_else(|| {
        let dir = config.tablebase.trim();
        (!dir.is_empty()).then(|| PathBuf::from(dir))
    });
    let tb = tb_dir.as_deref().map(|dir| crate::players::open_tablebase(dir, Some(rules))).transpose()?;
    let files = alq_report::game_files(&args.games).context("cannot list the games")?;
    let options = SampleOptions {
        skip_opening: config.skip_opening,
        skip_forced_captures: config.skip_forced_captures,
        dedup: true,
    };
    let positions = alq_records::sampled_positions(&files, rules, options, args.max_pieces)?;
    if let Some(dir) = args.store.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    }
    let oracles = (0..threads)
        .map(|_| -> anyhow::Result<_> {
            let (oracle, _) =
                crate::players::open_oracle(rules, tb.as_ref(), &args.eval, budget, false, Some(&args.store))?;
            Ok(oracle)
        })
        .collect::<anyhow::Result<Vec<_>>>()?;
    eprintln!(
        "{} distinct positions to value; the store {} holds {} positions",
        positions.len(),
        args.store.display(),
        oracles[0].known_positions()
    );
    let started = Instant::now();
    let bar =
        crate::progress::bar(args.quiet, positions.len() as u64, "{bar:30} {pos}/{len} positions, {msg} (eta {eta})");
    let report = label(&oracles, &args.store, &positions, budget, &|r: &LabelReport| {
        bar.set_position(r.done);
        bar.set_message(format!("{} exact", r.exact));
    })?;
    bar.finish_and_clear();
    println!("{}", describe(&report, started.elapsed()));
    Ok(())
}

/// The run's summary line.
fn describe(r: &LabelReport, elapsed: Duration) -> String {
    format!(
        "{} positions: {} exact ({:.1} %), {} known before the run; {:.1} s",
        r.positions,
        r.exact,
        100.0 * r.exact_share(),
        r.known_before,
        elapsed.as_secs_f64()
    )
}
