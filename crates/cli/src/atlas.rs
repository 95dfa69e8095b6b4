//! `alq atlas`: the exact value of every position of the opening tree.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use anyhow::{bail, Context};
use clap::Args;

use alq_engine::Position;
use alq_oracle::atlas::{self, PlyProgress, PlyRow, SettleOptions, Shard};
use alq_oracle::tried::TriedLog;
use alq_oracle::{Oracle, Value};
use alq_solver::Budget;

/// The exact value of every position of the opening tree (every distinct
/// position within --depth plies of the start), and how narrow each is.
///
/// Positions are settled by the oracle (tables, the shipped proofs, the
/// stores, then threshold searches within --movetime or --nodes each), the
/// deepest ply first, so that what a ply settled is a leaf of the searches
/// above it. Everything the searches settle goes to the --work store,
/// saved as the run goes: a rerun (or a run with a larger budget and
/// --retry) skips what is known. Each worker thread has its own oracle;
/// they share the work store after every ply.
///
/// At the end the atlas itself, the tree's positions and their values only,
/// is written to --out (a store the oracle reads with --read-store), and a
/// table per ply is printed: positions, won for White / drawn / won for
/// Black, bounds and unknowns, the share already decided (won by either
/// side), the positions judged (exact, with every move's value known), the
/// share of their moves that keep the value, and how many of them have a
/// single move that keeps it; then, for each
/// first move that keeps the start's value, the share of the opponent's
/// positions below it where most moves lose (the traps it sets).
///
/// On a cluster, settle one ply at a time, deepest first: an array of jobs
/// with --only-ply K and --shard I/N (the I-th of N contiguous blocks of the
/// ply) each,
/// their work stores merged with `alq solve --merge` before the next ply;
/// then a run without either writes the atlas
/// (scripts/cluster/atlas-slurm.sh).
#[derive(Args)]
pub struct AtlasArgs {
    /// Plies from the start.
    #[arg(long, value_name = "K", default_value_t = 10)]
    depth: u32,
    /// Endgame tables (any kind): positions they cover are valued at once and
    /// are leaves of the searches.
    #[arg(long, value_name = "DIR")]
    tb: Option<PathBuf>,
    /// The work store: read if it exists, written (merged, atomically) as
    /// the run goes, with every position the searches settled.
    #[arg(long, value_name = "FILE", default_value = "data/atlas/work.store")]
    work: PathBuf,
    /// Proven-position stores read and never written. Repeatable.
    #[arg(long, value_name = "FILE")]
    read_store: Vec<PathBuf>,
    /// The atlas: a store of the tree's positions and their values only.
    #[arg(long, value_name = "FILE", default_value = "data/atlas/atlas.store")]
    out: PathBuf,
    /// Also a CSV, a row per position: ply, position, value (side to move's
    /// view), white_value, moves, keeping (moves that keep the value, when
    /// all are known).
    #[arg(long, value_name = "FILE")]
    csv: Option<PathBuf>,
    /// Search budget per position in milliseconds (default 20,000 when
    /// --nodes is not given).
    #[arg(long, value_name = "MS", conflicts_with = "nodes", value_parser = clap::value_parser!(u64).range(1..))]
    movetime: Option<u64>,
    /// Search budget per position, in expanded positions.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    nodes: Option<u64>,
    /// Memory for each worker's search graph in MiB.
    #[arg(long, value_name = "MB", default_value_t = 2000, value_parser = clap::value_parser!(u64).range(1..))]
    hash: u64,
    /// Evaluator that guides the searches: `hce`, `nn` or a network file.
    #[arg(long, value_name = "EVAL", default_value = "hce")]
    eval: String,
    /// Search again the positions the stores hold only a bound for (or
    /// nothing): by default a rerun skips every position it has searched.
    #[arg(long)]
    retry: bool,
    /// A log of the searches that left positions open, with their budgets
    /// and --hash (a line each, appended as the run goes): positions it
    /// holds with at least this run's budget and --hash are not searched
    /// again, with --retry or without (a search also stops when its graph
    /// fills --hash, so more memory is a larger budget). A long --retry
    /// pass can so be stopped and resumed, on another machine too (the log
    /// is small: commit it beside the --save-tree store).
    #[arg(long, value_name = "FILE")]
    tried: Option<PathBuf>,
    /// Take the I-th (0-based) of N contiguous blocks of each ply, a job of a
    /// cluster array: `I/N` (blocks keep siblings, which a search often
    /// settles on the way, in one job). The atlas is not written.
    #[arg(long, value_name = "I/N")]
    shard: Option<String>,
    /// Search this ply only (the others are read from the stores): a step of
    /// a cluster run that settles the tree one ply at a time, deepest first.
    #[arg(long, value_name = "K")]
    only_ply: Option<u32>,
    /// Only print the table of what the stores know (no search).
    #[arg(long)]
    table_only: bool,
    /// Leave out the shipped proofs.
    #[arg(long)]
    no_shipped: bool,
    /// Worker threads, each with its own oracle (default: all cores).
    #[arg(long, value_name = "T")]
    threads: Option<usize>,
    /// Write the work store at most every this many seconds while searching
    /// (and after every ply): a large store takes seconds to merge and
    /// write; a killed run loses at most this much work.
    #[arg(long, value_name = "S", default_value_t = 120)]
    save_every: u64,
    /// Positions each worker's store keeps at most (about 30 bytes each in
    /// memory, 8 on disk); past it, only the tree's positions are added.
    #[arg(long, value_name = "N", default_value_t = 100_000_000)]
    max_store: usize,
    /// Also write what the stores know of the tree's positions (values and
    /// bounds: a few hundred KB through ply 10, where the work store grows to
    /// gigabytes) to FILE: after the search, after a part (--only-ply,
    /// --shard), or with --table-only. It carries a long run's progress to
    /// another machine, where `--read-store FILE` skips what it settled.
    #[arg(long, value_name = "FILE")]
    save_tree: Option<PathBuf>,
    /// Certify the atlas instead of searching: for each threshold goal
    /// (white-wins, white-draws, black-wins, black-draws), a certificate of
    /// many roots holding every tree position of plies ≤ --depth that the
    /// stores say meets it, written to DIR/atlas-dK-GOAL.cert.gz (K:
    /// --depth) and checked over the --tb tables (required) before it is
    /// written. The tree's part
    /// follows the atlas's values; the last ply's positions, and those
    /// whose moves are not all known, are proven by their own searches over
    /// the tables (--nodes/--movetime each, the sub-proofs kept in
    /// DIR/atlas-dK-GOAL.parts, so a rerun resumes). A leaf that resists
    /// the budget is split into its moves (the atlas's step: the move it
    /// keeps, or every move), whose positions are proven instead, as long
    /// as the atlas knows them (to ply 10); the split positions are kept in
    /// DIR/atlas-dK-GOAL.split. A goal with leaves that still resist is not
    /// written; they are listed. The shipped certificates are cited, and
    /// the stores read (--read-store, --work) guide the draw goals'
    /// searches (the positions they say the opponent wins are left out).
    #[arg(long, value_name = "DIR", conflicts_with_all = ["only_ply", "shard", "retry"])]
    certify: Option<PathBuf>,
    /// No progress bars.
    #[arg(long)]
    quiet: bool,
}

fn oracle<'a>(
    args: &AtlasArgs,
    tb: Option<&'a alq_tablebase::Tablebase>,
    budget: Budget,
    keep: Arc<HashSet<u64>>,
) -> anyhow::Result<Oracle<'a>> {
    let rules = alq_engine::RuleSet::BrainKing;
    let (mut oracle, _) = crate::players::open_oracle(rules, tb, &args.eval, budget, !args.no_shipped, None)?;
    for file in &args.read_store {
        oracle.read_store(file)?;
    }
    if let Some(dir) = args.work.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    }
    oracle.use_store(&args.work)?;
    oracle.set_save_every(Duration::from_secs(args.save_every));
    oracle.set_max_store(args.max_store);
    oracle.keep_always(keep);
    Ok(oracle)
}

pub fn run(args: AtlasArgs) -> anyhow::Result<()> {
    let shard = match args.shard.as_deref() {
        None => Shard::ALL,
        Some(text) => Shard::parse(text).with_context(|| format!("--shard {text:?}: expected I/N with 0 ≤ I < N"))?,
    };
    let threads = crate::worker_threads(args.threads)?;
    let budget = crate::oracle::budget(args.nodes, args.movetime, Duration::from_secs(20), args.hash);
    let rules = alq_engine::RuleSet::BrainKing;
    let tb = args.tb.as_deref().map(|dir| crate::players::open_tablebase(dir, Some(rules))).transpose()?;
    let tree = atlas::tree(rules, Position::start(), args.depth);
    eprintln!(
        "opening tree to ply {}: {} positions ({})",
        args.depth,
        tree.iter().map(Vec::len).sum::<usize>(),
        tree.iter().map(|p| p.len().to_string()).collect::<Vec<_>>().join(", ")
    );
    // Every tree position a search settles is kept, however full the store.
    let keep: Arc<HashSet<u64>> = Arc::new(tree.iter().flatten().map(Position::key).collect());
    let table_only = args.table_only || args.certify.is_some();
    let oracles = (0..if table_only { 1 } else { threads })
        .map(|_| oracle(&args, tb.as_ref(), budget, keep.clone()))
        .collect::<anyhow::Result<Vec<_>>>()?;
    eprintln!(
        "known at the start (shipped proofs, --read-store, work store {}): {} positions",
        args.work.display(),
        oracles[0].known_positions()
    );
    if let Some(dir) = &args.certify {
        let tb = tb.as_ref().context("--certify needs --tb: the tables its leaves are proven over")?;
        return certify(&args, dir, &oracles[0], &tree, tb, budget, threads);
    }
    if !table_only {
        let started = std::time::Instant::now();
        let bar: Mutex<Option<(u32, indicatif::ProgressBar)>> = Mutex::new(None);
        let quiet = args.quiet;
        let plies = match args.only_ply {
            Some(k) if k > args.depth => bail!("--only-ply {k} is deeper than --depth {}", args.depth),
            Some(k) => k..=k,
            None => 0..=args.depth,
        };
        let tried = args.tried.as_deref().map(TriedLog::open).transpose()?;
        if let (Some(log), Some(path)) = (&tried, &args.tried) {
            eprintln!("tried log {}: {} positions left open before", path.display(), log.len());
        }
        let options = SettleOptions { budget, shard, retry: args.retry, tried: tried.as_ref() };
        atlas::settle(&oracles, Some(&args.work), &tree, plies, options, &|p: &PlyProgress| {
            let mut bar = bar.lock().unwrap_or_else(|e| e.into_inner());
            if bar.as_ref().is_none_or(|(ply, _)| *ply != p.ply) {
                if let Some((_, old)) = bar.take() {
                    old.finish();
                }
                let b = crate::progress::bar(
                    quiet,
                    p.positions as u64,
                    &format!("ply {:>2}: {{bar:30}} {{pos}}/{{len}} positions, {{msg}} (eta {{eta}})", p.ply),
                );
                *bar = Some((p.ply, b));
            }
            let (_, b) = bar.as_ref().expect("set above");
            b.set_position(p.done as u64);
            let tried =
                if p.tried_before > 0 { format!(" ({} of them tried as long)", p.tried_before) } else { String::new() };
            b.set_message(format!("{} exact, {} known before{tried}", p.exact, p.known_before));
        })?;
        if let Some((_, b)) = bar.lock().unwrap_or_else(|e| e.into_inner()).take() {
            b.finish();
        }
        eprintln!("settled in {:.1} s", started.elapsed().as_secs_f64());
        if shard != Shard::ALL || args.only_ply.is_some() {
            if let Some(path) = &args.save_tree {
                gather(&args, &oracles)?;
                save_store(path, &atlas::atlas_store(&oracles[0], &tree)?, "tree store")?;
            }
            eprintln!("part done; merge the work stores (alq solve --merge) and go on, or rerun without --shard and --only-ply to write the atlas");
            return Ok(());
        }
    }
    gather(&args, &oracles)?;
    let first = &oracles[0];
    // The atlas and the tree store hold the same: the tree's positions the
    // stores know.
    let store =
        if args.save_tree.is_some() || !args.table_only { Some(atlas::atlas_store(first, &tree)?) } else { None };
    if let (Some(path), Some(store)) = (&args.save_tree, &store) {
        save_store(path, store, "tree store")?;
    }
    let known = |pos: &Position| -> Value { first.known(pos).ok().flatten().map_or(Value::Unknown, |(v, _)| v) };
    let rows = atlas::ply_table(rules, &tree, &known);
    print_table(&rows);
    for (mv, trapped, judged) in atlas::traps(rules, &tree, &known) {
        let share = if judged > 0 { format!("{:.1} %", 100.0 * trapped as f64 / judged as f64) } else { "-".into() };
        println!("traps after {mv}: {trapped} of {judged} judged positions of the opponent's ({share}) have most moves losing");
    }
    if let (false, Some(store)) = (args.table_only, &store) {
        save_store(&args.out, store, "atlas")?;
    }
    if let Some(path) = &args.csv {
        write_csv(path, rules, &tree, &known)?;
    }
    Ok(())
}

/// The atlas's table and traps to `depth` plies, by `value`, for the report.
pub fn summary(
    rules: alq_engine::RuleSet,
    depth: u32,
    value: &impl Fn(&Position) -> Value,
    source: String,
) -> alq_report::AtlasSummary {
    let tree = atlas::tree(rules, Position::start_of(rules), depth);
    let plies = atlas::ply_table(rules, &tree, value);
    let traps = atlas::traps(rules, &tree, value)
        .into_iter()
        .map(|(mv, trapped, judged)| alq_report::AtlasTraps { first_move: mv.to_string(), trapped, judged })
        .collect();
    alq_report::AtlasSummary { source, plies, traps }
}

/// The depth of the shipped atlas.
const ATLAS_DEPTH: usize = 10;

/// `--certify`: a certificate of each goal over the tree, checked, and how
/// much of the atlas they certify.
fn certify(
    args: &AtlasArgs,
    dir: &Path,
    oracle: &Oracle<'_>,
    tree: &[Vec<Position>],
    tb: &alq_tablebase::Tablebase,
    budget: Budget,
    threads: usize,
) -> anyhow::Result<()> {
    use alq_oracle::atlas_certificate::{certified_value, seed};
    use alq_solver::{Certificate, Goal, ProvenStore};
    let rules = alq_engine::RuleSet::BrainKing;
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    // The roots are the plies ≤ --depth; hard leaves are split along the
    // atlas's values to its full depth.
    let depth = tree.len() - 1;
    let full = atlas::tree(rules, Position::start(), depth.max(ATLAS_DEPTH) as u32);
    let tree = &full[..];
    let store = atlas::atlas_store(oracle, tree)?;
    let cite: Vec<&Certificate> = alq_oracle::shipped_certificates().iter().collect();
    crate::players::parse_evaluator(&args.eval, rules)?;
    let make_eval = || crate::players::parse_evaluator(&args.eval, rules).expect("checked above");
    let k = tb.wdl_max_pieces();
    // What the searches know guides the draw goals' proofs (the positions
    // the opponent wins are leaves the prover never enters).
    let mut known = store.clone();
    for file in args.read_store.iter().chain(std::iter::once(&args.work).filter(|w| w.exists())) {
        known.merge(&ProvenStore::load(file)?).with_context(|| format!("{}", file.display()))?;
    }
    eprintln!("guidance: {} positions known", known.entries.len());
    let guidance = alq_solver::deepen::Guidance { known: Some(&known), cite_wins: true };
    let mut proven = ProvenStore::new(rules);
    let mut open = Vec::new();
    for goal in Goal::ALL {
        let name = format!("atlas-d{}-{goal}", args.depth);
        let parts = dir.join(format!("{name}.parts"));
        // Leaves that resist are split into their moves, and those proven;
        // the split positions are kept beside the parts for a rerun.
        let split_file = dir.join(format!("{name}.split"));
        let mut expand = read_split(&split_file)?;
        let merged = loop {
            let Some(seed) = seed(rules, tree, &store, Some(tb), goal, depth, &expand, &cite)? else {
                break None;
            };
            println!(
                "{goal}: {} tree positions of plies ≤ {depth}, {} leaves to prove over the ≤ {k} tables ({} positions split)",
                seed.positions,
                seed.to_prove,
                expand.len()
            );
            let bar = crate::progress::bar(args.quiet, seed.to_prove as u64, "{bar:30} {pos}/{len} leaves, eta {eta}");
            let started = std::time::Instant::now();
            let (merged, report) = alq_solver::deepen::deepen_with(
                &seed.certificate,
                tb,
                &make_eval,
                &budget,
                &parts,
                threads,
                &guidance,
                &|done, _| bar.set_position(done as u64),
            )?;
            bar.finish_and_clear();
            println!(
                "{goal}: leaves {}: {} proven before, {} proven now, {} resisting, {} disproven; {} positions expanded in {:.1} s",
                report.deep_leaves,
                report.resumed,
                report.proven,
                report.resisting.len(),
                report.disproven.len(),
                report.nodes,
                started.elapsed().as_secs_f64()
            );
            if !report.disproven.is_empty() {
                bail!(
                    "{goal}: {} leaves disproven over the tables: the atlas contradicts them",
                    report.disproven.len()
                );
            }
            if merged.is_some() {
                break merged;
            }
            let fresh: Vec<u64> = report.resisting.iter().copied().filter(|key| !expand.contains(key)).collect();
            if fresh.is_empty() {
                for &key in &report.resisting {
                    println!("{goal}: open {key:016x} {}", Position::from_key_unchecked(key));
                }
                open.push(goal);
                break None;
            }
            println!("{goal}: splitting {} resisting leaves into their moves", fresh.len());
            expand.extend(fresh);
            let mut keys: Vec<u64> = expand.iter().copied().collect();
            keys.sort_unstable();
            let text: String = keys.iter().map(|k| format!("{k:016x}\n")).collect();
            alq_records::write_atomic(&split_file, text.as_bytes())
                .with_context(|| format!("cannot write {}", split_file.display()))?;
        };
        let Some(cert) = merged else { continue };
        let checked = std::time::Instant::now();
        let root = Position::from_key_unchecked(cert.root);
        let check = alq_solver::check_certificate(&cert, &root, Some(tb))
            .map_err(|e| anyhow::anyhow!("{goal}: the merged certificate does not check: {e}"))?;
        let path = dir.join(format!("{name}.cert.gz"));
        cert.write(&path)?;
        let bytes = std::fs::metadata(&path).map_or(0, |m| m.len());
        println!(
            "{goal}: {} ({} entries, {} table leaves, {} bytes), checked in {:.1} s",
            path.display(),
            check.entries,
            check.table_leaves,
            bytes,
            checked.elapsed().as_secs_f64()
        );
        proven.merge(&ProvenStore::from_certificate(&cert))?;
    }
    // How much of the atlas the certificates hold.
    println!("{:>4} {:>9} {:>9} {:>9}", "ply", "positions", "valued", "certified");
    for (ply, positions) in tree.iter().enumerate().take(depth + 1) {
        let valued = positions.iter().filter(|p| store.entries.contains_key(&p.key())).count();
        let certified = positions
            .iter()
            .filter(|p| store.entries.contains_key(&p.key()) && certified_value(p, &store, &proven))
            .count();
        println!("{ply:>4} {:>9} {valued:>9} {certified:>9}", positions.len());
    }
    if !open.is_empty() {
        bail!(
            "{} goals not certified within the budget ({}): rerun with a larger --nodes or --movetime (the parts are kept)",
            open.len(),
            open.iter().map(|g| g.name()).collect::<Vec<_>>().join(", ")
        );
    }
    Ok(())
}

/// The positions an earlier `--certify` run split (a key in hex a line),
/// none when the file is missing.
fn read_split(path: &Path) -> anyhow::Result<HashSet<u64>> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(HashSet::new()),
        Err(e) => return Err(e).with_context(|| format!("cannot read {}", path.display())),
    };
    text.lines()
        .enumerate()
        .map(|(i, line)| {
            u64::from_str_radix(line.trim(), 16)
                .with_context(|| format!("{} line {}: {line:?} is not a position key in hex", path.display(), i + 1))
        })
        .collect()
}

/// Every oracle wrote the work store; the first reads the others' part.
fn gather(args: &AtlasArgs, oracles: &[Oracle<'_>]) -> anyhow::Result<()> {
    if !args.table_only && oracles.len() > 1 && args.work.exists() {
        oracles[0].read_store(&args.work)?;
    }
    Ok(())
}

/// Writes `store` to `path` (atomically) and says so, as `what`.
fn save_store(path: &Path, store: &alq_solver::ProvenStore, what: &str) -> anyhow::Result<()> {
    store.save(path).with_context(|| format!("cannot write {}", path.display()))?;
    eprintln!("{what} {}: {} positions", path.display(), store.entries.len());
    Ok(())
}

fn print_table(rows: &[PlyRow]) {
    println!(
        "{:>4} {:>9} {:>9} {:>9} {:>9} {:>7} {:>8} {:>8} {:>7} {:>8} {:>7}",
        "ply", "positions", "white", "draw", "black", "bound", "unknown", "decided", "judged", "keeping", "single"
    );
    let pct = |v: Option<f64>| v.map_or("-".to_string(), |v| format!("{:.1}%", 100.0 * v));
    for r in rows {
        println!(
            "{:>4} {:>9} {:>9} {:>9} {:>9} {:>7} {:>8} {:>8} {:>7} {:>8} {:>7}",
            r.ply,
            r.positions,
            r.white_wins,
            r.draws,
            r.black_wins,
            r.bounds,
            r.unknown,
            pct(r.decided_share()),
            r.judged,
            pct(r.keep_share()),
            r.single_keeper
        );
    }
}

fn write_csv(
    path: &Path,
    rules: alq_engine::RuleSet,
    tree: &[Vec<Position>],
    value: &impl Fn(&Position) -> Value,
) -> anyhow::Result<()> {
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record(["ply", "position", "value", "white_value", "moves", "keeping"])?;
    for (ply, positions) in tree.iter().enumerate() {
        for pos in positions {
            let v = value(pos);
            let white = if pos.side_to_move() == alq_engine::Side::White { v } else { v.for_other_side() };
            let keep = atlas::keepers(rules, pos, value);
            w.write_record([
                ply.to_string(),
                pos.to_string(),
                v.name().to_string(),
                white.name().to_string(),
                pos.legal_moves_in(rules).len().to_string(),
                keep.map_or(String::new(), |(k, _)| k.to_string()),
            ])?;
        }
    }
    let bytes = w.into_inner().context("writing the CSV")?;
    alq_records::write_atomic(path, &bytes).with_context(|| format!("cannot write {}", path.display()))
}
