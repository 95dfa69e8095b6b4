//! `alq analyze`: search one position and print the iterations.

use std::time::Duration;

use clap::Args;

use alq_engine::{Game, GameConfig, Limits, SearchConfig, Searcher, START_TEXT};

use crate::players::{attach_tables, open_tables, parse_evaluator};

/// How long to search: exactly one of depth, nodes or time per move.
#[derive(Args, Clone, Debug)]
#[group(required = true, multiple = false)]
pub struct LimitArgs {
    /// Search to this depth (plies; forced captures are searched beyond it).
    #[arg(long, value_name = "D", value_parser = clap::value_parser!(u32).range(1..=100))]
    pub depth: Option<u32>,
    /// Stop after about this many nodes (deterministic).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub nodes: Option<u64>,
    /// Stop after this many milliseconds (depends on the machine).
    #[arg(long, value_name = "MS", value_parser = clap::value_parser!(u64).range(1..))]
    pub movetime: Option<u64>,
}

impl LimitArgs {
    pub fn limits(&self) -> Limits {
        Limits { depth: self.depth, nodes: self.nodes, movetime: self.movetime.map(Duration::from_millis) }
    }
}

#[derive(Args)]
pub struct AnalyzeArgs {
    /// Position text, ranks 5 to 1 then the side to move.
    #[arg(long, value_name = "TEXT", default_value = START_TEXT)]
    position: String,
    #[command(flatten)]
    limits: LimitArgs,
    /// Evaluator: `nn` (the shipped network), a network file (`.alqnet`), or
    /// `hce` (handcrafted), optionally with weights, e.g. `hce@mobility=4`.
    #[arg(long, value_name = "EVAL", default_value = "nn")]
    eval: String,
    /// Transposition table size in MiB.
    #[arg(long, value_name = "MB", default_value_t = 64)]
    hash: usize,
    /// Search threads: helpers search the same position into a shared
    /// transposition table (Lazy SMP). With more than one, node- and
    /// depth-limited searches are no longer reproducible.
    #[arg(long, value_name = "T", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=256))]
    threads: u32,
    /// Endgame tables (a folder built by `alq tb build`): positions they
    /// cover get their exact value, and a position whose moves all lead into
    /// them is answered by them (`score win D`, `loss D` or `draw` with the
    /// tables' exact distance).
    #[arg(long, value_name = "DIR")]
    tb: Option<std::path::PathBuf>,
    /// A proven-position store for the oracle (read, and written back with
    /// what it settles; see `alq oracle`).
    #[arg(long, value_name = "FILE")]
    store: Option<std::path::PathBuf>,
    /// With `--tb` or `--store`: the oracle's budget for the position's
    /// exact value, printed first (`exact VALUE source S nodes N time T s`).
    #[arg(long, value_name = "MS", default_value_t = 1000, value_parser = clap::value_parser!(u64).range(1..))]
    oracle_ms: u64,
    #[command(flatten)]
    rules: crate::RulesArg,
}

pub fn run(args: AnalyzeArgs) -> anyhow::Result<()> {
    let pos = crate::parse_position(Some(&args.position))?;
    let rules = args.rules.get();
    let eval = parse_evaluator(&args.eval, rules)?;
    let mut searcher = Searcher::new(eval, SearchConfig { hash_mb: args.hash.max(1) });
    searcher.set_threads(args.threads as usize);
    attach_tables(&mut searcher, open_tables(args.tb.as_deref(), rules)?.as_ref());
    if args.tb.is_some() || args.store.is_some() {
        print_exact(&args, &pos, rules)?;
    }
    let game = Game::new(pos, GameConfig::with_rules(rules));
    let result = searcher.search(&game, args.limits.limits(), |it| println!("{}", alq_play::info_line(it)));
    println!("{}", alq_play::bestmove_line(&result));
    Ok(())
}

/// The oracle's exact value of `pos` beside the search (with `--tb` or
/// `--store`).
fn print_exact(args: &AnalyzeArgs, pos: &alq_engine::Position, rules: alq_engine::RuleSet) -> anyhow::Result<()> {
    let tb = crate::players::shared_tablebase(args.tb.as_deref(), rules)?;
    let budget = alq_solver::Budget {
        nodes: None,
        time: Some(Duration::from_millis(args.oracle_ms)),
        memory_bytes: alq_solver::Budget::DEFAULT_MEMORY,
    };
    let (oracle, _) = crate::players::open_oracle(rules, tb.as_deref(), "hce", budget, true, args.store.as_deref())?;
    let a = oracle.value(pos)?;
    println!("exact {} source {} nodes {} time {:.3} s", a.value, a.source, a.nodes, a.elapsed.as_secs_f64());
    Ok(())
}
