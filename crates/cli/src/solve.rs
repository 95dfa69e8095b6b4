//! `alq solve`: the proof search — the exact value of a position.

use std::path::PathBuf;
use std::time::Duration;

use anyhow::{bail, Context};
use clap::Args;

use alq_solver::{load_state, save_state, Budget, Proof, Solver};

/// Proves the game-theoretic value of a position: `win D`, `loss D` (D in
/// plies to the end, where the side to move has no legal move; `≤ D` marks an
/// upper bound), `draw` (neither side can force the end), or `unknown` when
/// the budget runs out. Values mean what the tablebases mean: repetition and
/// no-progress rules of games are not part of them.
///
/// The search expands the game graph position by position and runs a
/// retrograde analysis over it with every unexpanded position counted once
/// as the best and once as the worst case; repetitions are therefore never
/// scored by path (see crates/solver/README.md).
#[derive(Args)]
pub struct SolveArgs {
    /// Position text, ranks 5 to 1 then the side to move (default: the start).
    #[arg(long, value_name = "TEXT")]
    position: Option<String>,
    /// Moves to play from the position first, space-separated (`d2-c3 d4xd2`):
    /// solve the position a game line reaches.
    #[arg(long, value_name = "LINE")]
    moves: Option<String>,
    /// Tablebase folder: positions it covers are leaves with their exact value.
    #[arg(long, value_name = "DIR")]
    tb: Option<PathBuf>,
    /// Memory for the explored graph in MiB (the search stops when it is full).
    #[arg(long, value_name = "MB", default_value_t = 256)]
    hash: usize,
    /// Stop after expanding this many positions.
    #[arg(long, value_name = "N", conflicts_with = "movetime")]
    nodes: Option<u64>,
    /// Stop after this many milliseconds.
    #[arg(long, value_name = "MS")]
    movetime: Option<u64>,
    /// State file: read it if it exists (proven values become leaves, expanded
    /// positions are expanded again without counting), write it at the end
    /// (atomically), so a rerun continues.
    #[arg(long, value_name = "FILE")]
    resume: Option<PathBuf>,
    /// No progress lines on stderr.
    #[arg(long)]
    quiet: bool,
    #[command(flatten)]
    rules: crate::RulesArg,
}

pub fn run(args: SolveArgs) -> anyhow::Result<()> {
    let rules = args.rules.get();
    let mut pos = match args.position.as_deref() {
        None => alq_engine::Position::start_of(rules),
        Some(text) => crate::parse_position(Some(text))?,
    };
    for (i, text) in args.moves.as_deref().unwrap_or("").split_whitespace().enumerate() {
        let mv = pos.parse_move_in(rules, text).with_context(|| format!("--moves: move {} ({text:?})", i + 1))?;
        pos = pos.play(mv);
    }
    if args.hash == 0 {
        bail!("--hash must be at least 1 MiB");
    }
    let tb = args.tb.as_deref().map(|dir| crate::players::open_tablebase(dir, Some(rules))).transpose()?;
    let mut solver = Solver::new(tb.as_ref());
    solver.set_rules(rules);
    if let Some(file) = &args.resume {
        solver.keep_expanded(true);
        if file.exists() {
            let state = load_state(file)?;
            if state.rules != rules {
                bail!("{} holds proofs under the {} rules, not {rules}", file.display(), state.rules);
            }
            eprintln!("resumed from {}: {} proven, {} expanded positions", file.display(), state.proven.len(), state.expanded.len());
            solver.restore(state);
        }
    }
    let budget = Budget {
        nodes: args.nodes,
        time: args.movetime.map(Duration::from_millis),
        memory_bytes: args.hash.saturating_mul(1 << 20),
    };
    let quiet = args.quiet;
    let result = solver.solve_with(&pos, &budget, &mut |p| {
        if !quiet {
            eprintln!(
                "round: nodes {} graph {} bounds {} .. {} time {:.1} s",
                p.nodes,
                p.graph_nodes,
                p.lower,
                p.upper,
                p.elapsed.as_secs_f64()
            );
        }
    })?;
    if let Some(file) = &args.resume {
        save_state(file, &solver.state())?;
        eprintln!("state saved to {}: {} proven positions", file.display(), solver.proven_len());
    }
    println!("position {pos}");
    if let Some(tb) = &tb {
        println!("tablebase {} (≤ {} pieces), {} leaves probed", tb.dir().display(), tb.max_pieces(), result.tb_hits);
    }
    println!(
        "nodes {} restored {} graph {} time {:.3} s memory {:.1} MiB rounds {}{}",
        result.nodes,
        result.restored,
        result.graph_nodes,
        result.elapsed.as_secs_f64(),
        result.memory_bytes as f64 / (1 << 20) as f64,
        result.rounds,
        if result.out_of_budget { " (budget spent)" } else { "" }
    );
    println!("bounds {} .. {}", result.lower, result.upper);
    match result.best_move {
        Some(mv) if result.proof != Proof::Unknown => println!("bestmove {mv}"),
        _ => println!("bestmove (none proven)"),
    }
    println!("value {}", result.proof);
    Ok(())
}
