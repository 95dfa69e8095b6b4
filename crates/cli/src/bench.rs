//! `alq bench`: a fixed workload whose node count changes only when the
//! engine's behaviour does.

use std::time::Instant;

use clap::Args;

use alq_engine::{perft, Position};

/// Positions and depths of the perft part of the workload.
const PERFT_WORK: [(&str, u32); 4] = [
    ("BBBBB/BBBBB/BB.WW/WWWWW/WWWWW w", 12),
    ("BBBBB/BB.BB/W..WW/W..WW/WWBWW b", 7),
    ("BB.../BBB.B/B.B../WWW.W/W.W.W b", 7),
    ("B.B.B/BBB.B/...../.WWW./WWW.W w", 7),
];

#[derive(Args)]
pub struct BenchArgs {}

pub fn bench(_args: BenchArgs) -> anyhow::Result<()> {
    let started = Instant::now();
    let mut nodes = 0u64;
    for (text, depth) in PERFT_WORK {
        let pos: Position = text.parse()?;
        let count = perft(&pos, depth);
        eprintln!("  perft {depth} {text}: {count}");
        nodes += count;
    }
    let secs = started.elapsed().as_secs_f64();
    println!("nodes {nodes}");
    println!("time_ms {}", (secs * 1000.0).round() as u64);
    println!("nps {}", (nodes as f64 / secs.max(1e-9)).round() as u64);
    Ok(())
}
