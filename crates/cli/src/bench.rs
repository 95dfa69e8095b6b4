//! `alq bench`: a fixed workload whose node count changes only when the
//! engine's behaviour does.

use std::time::Instant;

use clap::Args;

use alq_engine::{perft, Limits, Position, RuleSet, SearchConfig, Searcher};

use crate::players::parse_evaluator;

/// Positions and depths of the perft part of the workload.
const PERFT_WORK: [(&str, u32); 4] = [
    ("BBBBB/BBBBB/BB.WW/WWWWW/WWWWW w", 12),
    ("BBBBB/BB.BB/W..WW/W..WW/WWBWW b", 7),
    ("BB.../BBB.B/B.B../WWW.W/W.W.W b", 7),
    ("B.B.B/BBB.B/...../.WWW./WWW.W w", 7),
];

/// Positions of the search part: the start and middlegames, each searched
/// to a fixed depth with a fresh 16 MiB table.
const SEARCH_WORK: [(&str, u32); 4] = [
    ("BBBBB/BBBBB/BB.WW/WWWWW/WWWWW w", 16),
    ("BBBBB/BB.BB/W..WW/W..WW/WWBWW b", 14),
    ("BB.../BBB.B/B.B../WWW.W/W.W.W b", 14),
    ("B.B.B/BBB.B/...../.WWW./WWW.W w", 12),
];

#[derive(Args)]
pub struct BenchArgs {
    /// Evaluator of the search part: `hce` (handcrafted), `nn` (the shipped
    /// network) or a network file (`.alqnet`), with `@heads=value` (or
    /// `exact`, `policy`) for a network with extra heads to search without
    /// some. Compare the `search_nps` lines of two evaluators to see what a
    /// network costs in speed, and the `search_nodes` lines to see what a
    /// policy head saves in nodes to the same depths.
    #[arg(long, default_value = "hce")]
    eval: String,
}

pub fn run(args: BenchArgs) -> anyhow::Result<()> {
    // Read once, before the timed work starts, so a bad name fails at once;
    // each search gets a fresh copy.
    let evaluator = parse_evaluator(&args.eval, RuleSet::BrainKing)?;
    let fresh = || evaluator.fork().expect("the evaluators of parse_evaluator fork");
    let started = Instant::now();
    let mut nodes = 0u64;
    for (text, depth) in PERFT_WORK {
        let pos: Position = text.parse()?;
        let count = perft(&pos, depth);
        eprintln!("  perft {depth} {text}: {count}");
        nodes += count;
    }
    let perft_secs = started.elapsed().as_secs_f64();
    let search_started = Instant::now();
    let mut search_nodes = 0u64;
    for (text, depth) in SEARCH_WORK {
        let pos: Position = text.parse()?;
        let mut searcher = Searcher::new(fresh(), SearchConfig { hash_mb: 16 });
        let r = searcher.search_position(&pos, Limits::depth(depth));
        let best = r.best.map_or("none".to_string(), |m| m.to_string());
        eprintln!("  search depth {depth} {text}: {} nodes, {best} {}", r.nodes, r.score);
        search_nodes += r.nodes;
    }
    let search_secs = search_started.elapsed().as_secs_f64();
    let secs = started.elapsed().as_secs_f64();
    let rate = |n: u64, s: f64| (n as f64 / s.max(1e-9)).round() as u64;
    println!("eval {}", evaluator.describe());
    println!("vector_instructions {}", alq_engine::vector_instructions());
    println!("perft_nodes {nodes}");
    println!("perft_nps {}", rate(nodes, perft_secs));
    println!("search_nodes {search_nodes}");
    println!("search_nps {}", rate(search_nodes, search_secs));
    println!("nodes {}", nodes + search_nodes);
    println!("time_ms {}", (secs * 1000.0).round() as u64);
    println!("nps {}", rate(nodes + search_nodes, secs));
    Ok(())
}
