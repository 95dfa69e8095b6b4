//! `alq openings`: every distinct position up to K plies, evaluated, as an
//! opening book; with `--solve`, proven values by the proof search.

use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};

use anyhow::{bail, Context};
use clap::Args;
use indicatif::ProgressBar;

use alq_engine::Proven;
use alq_oracle::Value;
use alq_play::EvalSpec;
use alq_selfplay::book;

#[derive(Args)]
pub struct OpeningsArgs {
    /// Explore every distinct position up to this many plies from the start.
    #[arg(long, value_name = "K", value_parser = clap::value_parser!(u32).range(0..=12))]
    depth: u32,
    /// Nodes per position (the default limit: 20000).
    #[arg(long, value_name = "N", conflicts_with_all = ["search_depth", "movetime"])]
    nodes: Option<u64>,
    /// Search depth per position instead of nodes.
    #[arg(long, value_name = "D", conflicts_with = "movetime")]
    search_depth: Option<u32>,
    /// Milliseconds per position instead of nodes (not reproducible).
    #[arg(long, value_name = "MS")]
    movetime: Option<u64>,
    /// Evaluator (see `alq analyze --help`).
    #[arg(long, value_name = "EVAL", default_value = "hce")]
    eval: String,
    /// The opening book to write (CSV: line, plies, position, score,
    /// best_move, exact_value).
    #[arg(long, value_name = "FILE")]
    out: PathBuf,
    /// Keep only balanced positions: exactly --depth plies deep, game not
    /// over, search score within ±CP centipawns (a balanced book for
    /// measuring strength: lopsided openings decide pairs by themselves).
    #[arg(long, value_name = "CP", conflicts_with = "unbalanced")]
    balanced: Option<u32>,
    /// Keep only unbalanced positions: exactly --depth plies deep, one side
    /// ahead by LO to HI centipawns by the search, and not proven won or lost
    /// (by the tables of --tb, or by --solve): a sharper book, where strong
    /// players still win and lose games.
    #[arg(long, value_name = "LO,HI", value_parser = parse_window)]
    unbalanced: Option<(u32, u32)>,
    /// Worker threads (default: all cores).
    #[arg(long, value_name = "T")]
    threads: Option<usize>,
    /// Prove every position with the proof search (`alq solve`): `exact_value`
    /// becomes the game-theoretic value (`win D`, `loss D`, `draw`, `win ≤ D`
    /// for a bound; side to move's view), empty where the budget does not
    /// suffice.
    #[arg(long)]
    solve: bool,
    /// Endgame tables (a folder built by `alq tb build`): the search of every
    /// position uses them, and so does the proof search of --solve.
    #[arg(long, value_name = "DIR")]
    tb: Option<PathBuf>,
    /// Positions the solver may expand per book position (with --solve).
    #[arg(long, value_name = "N", default_value_t = 100_000, requires = "solve")]
    solve_nodes: u64,
    /// Memory per solver in MiB (one solver per worker thread, with --solve).
    #[arg(long, value_name = "MB", default_value_t = 256, requires = "solve")]
    solve_hash: usize,
    /// With --solve: one-sided threshold proofs instead of exact values, one
    /// search per goal and position (`white-draws`, `black-draws`,
    /// `white-wins`, `black-wins`; comma-separated; the goals run in
    /// parallel, each over the positions deepest first, so that what it
    /// settled serves as leaves higher up). `exact_value` becomes what the
    /// outcomes decide (`win`, `loss`, `draw`, `≥ draw`, `≤ draw`; side to
    /// move's view), and a table of proven positions per ply and goal is
    /// printed.
    #[arg(long, value_name = "GOALS", value_delimiter = ',', requires = "solve")]
    solve_goal: Vec<String>,
    /// With --solve-goal: write, per goal, the certificate of the start to
    /// DIR/start-GOAL.cert, and of each first move's position settled by the
    /// goal to DIR/MOVE-GOAL2.cert (GOAL2 is what the file proves: the goal,
    /// or its opposite where the goal is disproven). Every search then
    /// writes a certificate and uses as leaves only positions certified by
    /// earlier searches of its goal (draw goals), so each file is one proof
    /// that `alq solve --check` verifies.
    #[arg(long, value_name = "DIR", requires = "solve_goal")]
    solve_certificates: Option<PathBuf>,
    /// Evaluator that guides the threshold searches of --solve-goal.
    #[arg(long, value_name = "EVAL", default_value = "hce", requires = "solve_goal")]
    solve_eval: String,
    /// With --solve: proven-position stores (`alq oracle --store`, `alq
    /// atlas --out` or `--save-tree`) that complete `exact_value` where the
    /// proof search left a bound or nothing. Repeatable. The shipped proofs
    /// and the opening atlas are read too, unless --no-shipped.
    #[arg(long, value_name = "FILE", requires = "solve")]
    read_store: Vec<PathBuf>,
    /// With --solve: leave out the shipped proofs and opening atlas (only
    /// the proof search, the tables and --read-store fill `exact_value`).
    #[arg(long, requires = "solve")]
    no_shipped: bool,
    /// No progress bar.
    #[arg(long)]
    quiet: bool,
    #[command(flatten)]
    rules: crate::RulesArg,
}

pub fn run(args: OpeningsArgs) -> anyhow::Result<()> {
    let rules = args.rules.get();
    let eval = EvalSpec::parse(&args.eval)?;
    eval.check_rules(rules).map_err(|e| anyhow::anyhow!("--eval {}: {e}", args.eval))?;
    solve_goals(&args)?;
    let limits = match (args.nodes, args.search_depth, args.movetime) {
        (_, Some(d), _) => alq_engine::Limits::depth(d.max(1)),
        (_, _, Some(ms)) => alq_engine::Limits::movetime(std::time::Duration::from_millis(ms.max(1))),
        (n, _, _) => alq_engine::Limits::nodes(n.unwrap_or(20_000).max(1)),
    };
    let total = book::positions(rules, args.depth).len() as u64;
    let bar = crate::progress::bar(args.quiet, total, "{bar:30} {pos}/{len} positions, eta {eta}");
    let done = AtomicU64::new(0);
    let pool = crate::thread_pool(args.threads)?;
    let tables = crate::players::open_tables(args.tb.as_deref(), rules)?;
    let entries = pool.install(|| {
        book::build(rules, args.depth, &eval, limits, tables.as_ref(), || {
            bar.set_position(done.fetch_add(1, Ordering::Relaxed) + 1);
        })
    });
    bar.finish_and_clear();
    let mut entries = entries;
    if args.solve {
        solve_book(&args, rules, &mut entries, &pool)?;
    }
    let depth = args.depth as usize;
    if let Some(cp) = args.balanced {
        entries.retain(|e| book::in_window(e, depth, 0, cp, false));
        if entries.is_empty() {
            bail!("no position {depth} plies deep scores within ±{cp} cp");
        }
    }
    if let Some((lo, hi)) = args.unbalanced {
        entries.retain(|e| book::in_window(e, depth, lo, hi, true));
        if entries.is_empty() {
            bail!("no open position {depth} plies deep has one side ahead by {lo} to {hi} cp");
        }
    }
    alq_records::write_atomic(&args.out, book::to_csv(&entries).as_bytes())
        .with_context(|| format!("cannot write {}", args.out.display()))?;
    let proven = entries.iter().filter(|e| e.exact_value.is_some()).count();
    eprintln!("{} positions ({proven} with a proven value) written to {}", entries.len(), args.out.display());
    Ok(())
}

/// The goals of `--solve-goal`.
fn solve_goals(args: &OpeningsArgs) -> anyhow::Result<Vec<alq_solver::Goal>> {
    args.solve_goal
        .iter()
        .map(|g| g.parse::<alq_solver::Goal>().map_err(|e| anyhow::anyhow!("--solve-goal: {e}")))
        .collect()
}

/// `alq openings --solve --solve-goal`: threshold proofs over the book.
#[allow(clippy::too_many_arguments)]
fn solve_book_goals(
    args: &OpeningsArgs,
    rules: alq_engine::RuleSet,
    entries: &mut [book::BookEntry],
    pool: &rayon::ThreadPool,
    tb: Option<&alq_tablebase::Tablebase>,
    budget: &alq_solver::Budget,
    bar: ProgressBar,
    started: std::time::Instant,
) -> anyhow::Result<()> {
    let goals = solve_goals(args)?;
    let eval = EvalSpec::parse(&args.solve_eval)?;
    eval.check_rules(rules).map_err(|e| anyhow::anyhow!("--solve-eval {}: {e}", args.solve_eval))?;
    bar.set_length((entries.len() * goals.len()) as u64);
    let certify = args.solve_certificates.is_some();
    let book::SolvedGoals { outcomes, certificates, below, nodes } =
        pool.install(|| book::solve_goals(rules, entries, tb, &eval, &goals, budget, certify, || bar.inc(1)))?;
    bar.finish_and_clear();
    if let Some(dir) = &args.solve_certificates {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
        // The solver's certificates hold only what their root reaches.
        let write = |name: &str, cert: &alq_solver::Certificate| -> anyhow::Result<()> {
            let file = dir.join(format!("{name}-{}.cert", cert.goal));
            cert.write(&file)?;
            eprintln!("certificate {} ({} positions, proves {})", file.display(), cert.entries.len(), cert.goal);
            Ok(())
        };
        for ((goal, cert), below) in goals.iter().zip(&certificates).zip(&below) {
            match cert {
                Some(cert) => write("start", cert)?,
                None => eprintln!("no certificate for {goal}: the shallowest position is not settled"),
            }
            // Each first move's position settled for this goal has its own.
            for (i, cert) in below {
                let line = &entries[*i].line;
                let name = line.rsplit(' ').next().unwrap_or(line);
                write(name, cert)?;
            }
        }
    }
    let spent: Vec<String> = goals.iter().zip(&nodes).map(|(g, n)| format!("{g} {n}")).collect();
    eprintln!("positions expanded in all: {}", spent.join(", "));
    eprintln!(
        "solved in {:.1} s ({} nodes per position and goal; proven / disproven / positions):",
        started.elapsed().as_secs_f64(),
        args.solve_nodes
    );
    let mut header = String::from("| ply | positions |");
    for g in &goals {
        header.push_str(&format!(" {g} |"));
    }
    header.push_str(" value known |");
    eprintln!("{header}");
    eprintln!("|{}", " --- |".repeat(goals.len() + 3));
    let max_ply = entries.iter().map(|e| e.plies).max().unwrap_or(0);
    for ply in 0..=max_ply {
        let at: Vec<usize> = (0..entries.len()).filter(|&i| entries[i].plies == ply).collect();
        if at.is_empty() {
            continue;
        }
        let mut row = format!("| {ply} | {} |", at.len());
        for g in 0..goals.len() {
            let count = |o| at.iter().filter(|&&i| outcomes[i].get(g) == Some(&o)).count();
            row.push_str(&format!(
                " {} / {} |",
                count(alq_solver::Outcome::Proven),
                count(alq_solver::Outcome::Disproven)
            ));
        }
        let known = at.iter().filter(|&&i| entries[i].exact_value.and_then(alq_engine::Proven::wdl).is_some()).count();
        row.push_str(&format!(" {known} |"));
        eprintln!("{row}");
    }
    Ok(())
}

/// `alq openings --solve`: the proof search over every book position.
fn solve_book(
    args: &OpeningsArgs,
    rules: alq_engine::RuleSet,
    entries: &mut [book::BookEntry],
    pool: &rayon::ThreadPool,
) -> anyhow::Result<()> {
    let tb = args.tb.as_deref().map(|dir| crate::players::open_tablebase(dir, Some(rules))).transpose()?;
    if args.solve_hash == 0 {
        bail!("--solve-hash must be at least 1 MiB");
    }
    let budget = alq_solver::Budget {
        memory_bytes: args.solve_hash.saturating_mul(1 << 20),
        ..alq_solver::Budget::nodes(args.solve_nodes)
    };
    let bar =
        crate::progress::bar(args.quiet, entries.len() as u64, "solving {bar:30} {pos}/{len} positions, eta {eta}");
    let started = std::time::Instant::now();
    if !args.solve_goal.is_empty() {
        solve_book_goals(args, rules, entries, pool, tb.as_ref(), &budget, bar, started)?;
        let completed = complete_from_stores(args, rules, entries, tb.as_ref())?;
        eprintln!("{completed} values completed from the shipped proofs, the atlas and --read-store");
        return Ok(());
    }
    pool.install(|| book::solve_exact(rules, entries, tb.as_ref(), &budget, || bar.inc(1)))?;
    bar.finish_and_clear();
    let solved: Vec<bool> = entries.iter().map(|e| e.exact_value.and_then(Proven::wdl).is_some()).collect();
    let completed = complete_from_stores(args, rules, entries, tb.as_ref())?;
    // Per ply: positions, exact values, and how many of those the stores gave.
    let mut by_depth = std::collections::BTreeMap::<usize, (usize, usize, usize)>::new();
    for (e, &by_search) in entries.iter().zip(&solved) {
        let slot = by_depth.entry(e.plies).or_default();
        let exact = e.exact_value.and_then(Proven::wdl).is_some();
        slot.0 += 1;
        slot.1 += usize::from(exact);
        slot.2 += usize::from(exact && !by_search);
    }
    eprintln!("solved in {:.1} s ({} nodes per position):", started.elapsed().as_secs_f64(), args.solve_nodes);
    for (plies, (n, exact, stored)) in by_depth {
        eprintln!("  ply {plies}: {exact} of {n} positions proven ({stored} from the stores)");
    }
    if completed > 0 {
        eprintln!("{completed} values completed from the shipped proofs, the atlas and --read-store");
    }
    Ok(())
}

/// Completes `exact_value` from what an oracle knows without a search (the
/// shipped proofs and opening atlas unless --no-shipped, --read-store, the
/// tables): where the proof search left a bound or nothing, the two are
/// joined. Returns how many rows changed. A contradiction between the two
/// is an error naming the position.
fn complete_from_stores(
    args: &OpeningsArgs,
    rules: alq_engine::RuleSet,
    entries: &mut [book::BookEntry],
    tb: Option<&alq_tablebase::Tablebase>,
) -> anyhow::Result<usize> {
    let (oracle, _) = crate::players::lookup_oracle(rules, tb, !args.no_shipped, &args.read_store)?;
    let mut changed = 0;
    for e in entries.iter_mut() {
        let Some((known, _)) = oracle.known(&e.position)? else { continue };
        let searched = e.exact_value.map_or(Value::Unknown, Value::from_proven);
        let Some(joined) = searched.join(known) else {
            bail!("{}: the proof search says {searched}, the stores say {known}: a contradiction", e.position);
        };
        if joined != searched && !searched.is_exact() {
            e.exact_value = joined.proven();
            changed += 1;
        }
    }
    Ok(changed)
}

/// `LO,HI` centipawns with `LO <= HI`.
fn parse_window(text: &str) -> Result<(u32, u32), String> {
    let bad = || format!("{text:?}: expected LO,HI in centipawns with LO <= HI, e.g. 100,250");
    let (lo, hi) = text.split_once(',').ok_or_else(bad)?;
    let (lo, hi): (u32, u32) = (lo.trim().parse().map_err(|_| bad())?, hi.trim().parse().map_err(|_| bad())?);
    if lo > hi {
        return Err(bad());
    }
    Ok((lo, hi))
}
