//! `alq perft`: move-tree counts per depth, for checking the move generator.

use std::time::Instant;

use anyhow::Context;
use clap::Args;

use alq_engine::{perft_parallel, PerftCount, START_TEXT};

#[derive(Args)]
pub struct PerftArgs {
    /// Position text, ranks 5 to 1 then the side to move.
    #[arg(long, value_name = "TEXT", default_value = START_TEXT)]
    position: String,
    /// Deepest depth to count; every depth from 1 up to it is printed.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=40))]
    depth: u32,
    /// Worker threads (default: all cores).
    #[arg(long, value_name = "T", value_parser = clap::value_parser!(u32).range(1..=1024))]
    threads: Option<u32>,
    /// Count distinct jump paths instead of distinct moves: two capture
    /// paths with the same origin, end and captured set count twice (and
    /// each is followed on its own). Other Alquerque implementations count
    /// this way; the default counts moves as RULES.md defines them.
    #[arg(long)]
    paths: bool,
    #[command(flatten)]
    rules: crate::RulesArg,
}

pub fn run(args: PerftArgs) -> anyhow::Result<()> {
    let pos = crate::parse_position(Some(&args.position))?;
    let mut builder = rayon::ThreadPoolBuilder::new();
    if let Some(t) = args.threads {
        builder = builder.num_threads(t as usize);
    }
    let pool = builder.build().context("cannot start the worker threads")?;
    let threads = pool.current_num_threads();
    let rules = args.rules.get();
    let count = if args.paths { PerftCount::Paths } else { PerftCount::Moves };
    pool.install(|| {
        for depth in 1..=args.depth {
            let started = Instant::now();
            let count = perft_parallel(rules, count, &pos, depth);
            let secs = started.elapsed().as_secs_f64();
            println!("perft {depth} {count}");
            eprintln!(
                "  depth {depth}: {:.3} s, {:.1} M leaf moves/s, {threads} thread(s)",
                secs,
                count as f64 / secs.max(1e-9) / 1e6
            );
        }
    });
    Ok(())
}
