//! `alq solve`: the proof search — the exact value of a position.

use std::path::PathBuf;
use std::time::Duration;

use anyhow::{bail, Context};
use clap::Args;

use alq_engine::{Position, RuleSet, Side};
use alq_solver::{load_state, save_state, Budget, Goal, Outcome, Solver, ThresholdSolver};
use alq_tablebase::Tablebase;

mod check;

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
///
/// With `--goal`, it answers a one-sided question instead, far more cheaply:
/// `white-draws` asks whether White gets at least a draw (infinite play
/// counts as a draw), `white-wins` whether White wins; likewise for Black.
/// The last line is `proven GOAL`, `disproven GOAL` or `unknown GOAL`.
/// `--goal wdl` asks both win questions and prints the value without its
/// distance (`value win`, `value draw`, `value loss`, side to move's view).
#[derive(Args)]
pub struct SolveArgs {
    /// Position text, ranks 5 to 1 then the side to move (default: the start).
    #[arg(long, value_name = "TEXT")]
    position: Option<String>,
    /// Moves to play from the position first, space-separated (`d2-c3 d4xd2`):
    /// solve the position a game line reaches.
    #[arg(long, value_name = "LINE")]
    moves: Option<String>,
    /// What to prove: `value` (the exact value with its distance, the
    /// default), `white-wins`, `white-draws`, `black-wins`, `black-draws`
    /// (one side gets at least that outcome), or `wdl` (win, draw or loss
    /// without the distance, from the two win questions).
    #[arg(long, value_name = "GOAL", default_value = "value")]
    goal: String,
    /// Evaluator that guides a `--goal` search (new positions scored far in
    /// the prover's favour are tried first): `nn` (the shipped network),
    /// `hce`, or a network file.
    #[arg(long, value_name = "EVAL", default_value = "hce")]
    eval: String,
    /// With `--goal`: leave out of the attacker's disproof-number sums the
    /// positions whose defences all lead around cycles (their disproof number
    /// is ∞ when relaxed from ∞), so the guidance still sees a way to the
    /// defender's draw. Guidance only: the answers are the same.
    #[arg(long)]
    cycle_aware: bool,
    /// Tablebase folder: positions it covers are leaves with their exact
    /// value (a `--goal` search also uses win/draw/loss tables).
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
    /// State file: read it if it exists, write it at the end (atomically), so
    /// a rerun continues. With `--goal value`: proven values become leaves and
    /// expanded positions are expanded again without counting. With one
    /// threshold `--goal`: the whole search graph, saved when the budget runs
    /// out before the goal is settled (and every `--checkpoint` minutes),
    /// removed once it is settled; a state of another position, goal, rule
    /// set or tables is refused.
    #[arg(long, value_name = "FILE")]
    resume: Option<PathBuf>,
    /// With `--goal` and `--resume`: also save the search state every this
    /// many minutes, so a killed run loses at most that much work.
    #[arg(long, value_name = "MIN", default_value_t = 30, value_parser = clap::value_parser!(u64).range(1..))]
    checkpoint: u64,
    /// With one `--goal`: write the proof, once the goal is settled, to this
    /// file (a certificate of the goal if proven, of its opposite if
    /// disproven; format in crates/solver/README.md). Positions proven by
    /// earlier searches are then not used as leaves.
    #[arg(long, value_name = "FILE")]
    certificate: Option<PathBuf>,
    /// With `--goal`: a proven-position store. Read it if it exists (its
    /// positions are leaves, unless a certificate is being written), and
    /// write back, atomically, its positions merged with what this run
    /// settled, so later runs and other goals start from them.
    #[arg(long, value_name = "FILE")]
    store: Option<PathBuf>,
    /// With `--goal`: proven-position stores read as leaves and never
    /// written (a cluster job reads the shared store this way and writes its
    /// own with `--store`). Repeatable.
    #[arg(long, value_name = "FILE")]
    read_store: Vec<PathBuf>,
    /// Merge these proven-position stores into `--store` (created if
    /// missing) and exit; a contradiction between them is an error and
    /// nothing is written. A certificate (`.cert`) adds what it proves of
    /// every position in it once it is checked (its table leaves over
    /// `--tb` when the tables hold them, else not probed, and said so); an
    /// opening book (`.csv`, `alq openings --solve`) adds its exact values.
    /// The shipped store is made so: `--merge data/proofs/*.cert
    /// docs/results/opening-tree-ply6-threshold.csv --store
    /// data/proofs/shipped.store`.
    #[arg(long, value_name = "FILE", num_args = 1.., requires = "store", conflicts_with_all = ["certificate", "resume", "check"])]
    merge: Vec<PathBuf>,
    /// Split instead of solving: write the distinct positions K plies after
    /// the position that are not already settled (no legal move, or in the
    /// `--tb` tables), one job per line (`position TEXT<TAB>moves LINE`), to
    /// `--jobs` or stdout. Each job is solved on its own (scripts/cluster/).
    #[arg(long, value_name = "K", conflicts_with_all = ["certificate", "resume", "check", "reachable"])]
    split: Option<u32>,
    /// With `--split`: the job file (written atomically).
    #[arg(long, value_name = "FILE", requires = "split")]
    jobs: Option<PathBuf>,
    /// Check a certificate file instead of searching: every step with the
    /// move generator, table leaves' values in the `--tb` tables (without
    /// them, everything else, and the last line says `checked GOAL except
    /// its N table leaves' values` instead of `proven GOAL`). The position is the certificate's
    /// root unless --position or --moves name one. Prints what is proven:
    /// the root, the goal, the rules, the tables leaned on, the entries and
    /// how many of them the root does not reach; with `--out FILE`, writes
    /// the certificate with only the entries the root reaches (checked
    /// first; atomically, gzip-compressed when FILE ends in `.gz`).
    #[arg(long, value_name = "FILE", conflicts_with_all = ["certificate", "resume", "nodes", "movetime"])]
    check: Option<PathBuf>,
    /// With `--check` of a win certificate: also whether it wins under the
    /// no-progress rule of games (a draw after PLIES plies in a row without a
    /// capture or a forward move; 60 when the value is left out). Measures
    /// the longest run of plies without progress that the opponent can force
    /// inside the certificate from the root or a progress move, each table
    /// leaf adding its distance to progress from the dtz tables in `--tb`
    /// (`alq tb build --kind dtz`), and prints it with its line. Exit 2 when
    /// a run is longer than the rule (an error: the certificate does not show
    /// the win under it, though the position may still be won another way).
    #[arg(long, value_name = "PLIES", requires_all = ["check", "tb"], num_args = 0..=1, default_missing_value = "60", value_parser = clap::value_parser!(u32).range(1..=60))]
    no_progress: Option<u32>,
    /// Deepen a certificate instead of searching: re-prove each of its table
    /// leaves with more pieces than the `--tb` tables hold (K, their largest
    /// piece count) by its own proof of the certificate's goal over the ≤ K
    /// tables, and write one certificate with `tables K` to `--out`, checked
    /// before it is written. `--nodes`/`--movetime` are the budget per leaf,
    /// `--hash` the search graph per worker (each worker also keeps the
    /// positions it proved); the sub-proofs are kept in `--parts` as they are
    /// found, so a killed or budget-limited run is continued by a rerun.
    /// Parts over smaller tables serve too: rerun a deepening over ≤ 8 whose
    /// leaves resist with `--tb` of ≤ 10 tables and the same `--parts`, and
    /// only the resisting leaves are proven over ≤ 10 (the certificate says
    /// `tables 10`, and cites the larger tables only where the smaller did
    /// not serve). Leaves that resist the budget, or are disproven (the
    /// input does not hold), are listed by key, and nothing is written
    /// (exit 2).
    #[arg(long, value_name = "CERT", requires_all = ["out", "tb"], conflicts_with_all = ["certificate", "resume", "check", "reachable", "split", "merge", "position", "moves", "goal", "store", "read_store", "cycle_aware"])]
    deepen: Option<PathBuf>,
    /// With `--deepen`: the deepened certificate; with `--check`: the
    /// checked certificate without unreachable entries (written
    /// atomically).
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
    /// With `--deepen`: the folder of sub-proofs (one `KEY.part` a leaf,
    /// default: the `--out` path with `.parts` appended).
    #[arg(long, value_name = "DIR", requires = "deepen")]
    parts: Option<PathBuf>,
    /// With `--deepen`: worker threads, each with its own solver (default:
    /// all cores).
    #[arg(long, value_name = "T", requires = "deepen", value_parser = clap::value_parser!(u32).range(1..))]
    threads: Option<u32>,
    /// Count instead of solving: how many distinct positions legal play
    /// reaches from the position, by piece count from the top down, as far as
    /// `--hash` holds (one layer's positions at a time, about 10–20 bytes
    /// each; captures into lower layers are kept, 8 bytes each).
    #[arg(long, conflicts_with_all = ["goal", "certificate", "store", "resume", "nodes", "movetime"])]
    reachable: bool,
    /// With `--reachable`: the lowest piece count to count.
    #[arg(long, value_name = "N", default_value_t = 1, requires = "reachable")]
    min_pieces: u32,
    /// No progress lines on stderr.
    #[arg(long)]
    quiet: bool,
    #[command(flatten)]
    rules: crate::RulesArg,
}

impl SolveArgs {
    fn budget(&self) -> Budget {
        Budget {
            nodes: self.nodes,
            time: self.movetime.map(Duration::from_millis),
            memory_bytes: self.hash.saturating_mul(1 << 20),
        }
    }
}

pub fn run(args: SolveArgs) -> anyhow::Result<()> {
    if args.out.is_some() && args.check.is_none() && args.deepen.is_none() {
        bail!("--out goes with --check (a lean copy of the certificate) or --deepen");
    }
    if let Some(file) = &args.check {
        return check::run_check(&args, file);
    }
    if let Some(file) = &args.deepen {
        return run_deepen(&args, file);
    }
    let rules = args.rules.get();
    let pos = match args.position.as_deref() {
        None => alq_engine::Position::start_of(rules),
        Some(text) => crate::parse_position(Some(text))?,
    };
    let pos = crate::play_line(pos, rules, args.moves.as_deref())?;
    if args.hash == 0 {
        bail!("--hash must be at least 1 MiB");
    }
    if args.reachable {
        return run_reachable(&args, rules, &pos);
    }
    if !args.merge.is_empty() {
        return run_merge(&args, rules);
    }
    if let Some(plies) = args.split {
        let tb = args.tb.as_deref().map(|dir| crate::players::open_tablebase(dir, Some(rules))).transpose()?;
        return run_split(&args, rules, &pos, plies, tb.as_ref());
    }
    let goals: Option<Vec<Goal>> = match args.goal.as_str() {
        "value" => None,
        "wdl" => Some(vec![Goal::WhiteWins, Goal::BlackWins]),
        other => Some(vec![other.parse::<Goal>().map_err(|e| anyhow::anyhow!("--goal: {e}, value or wdl"))?]),
    };
    let tb = args.tb.as_deref().map(|dir| crate::players::open_tablebase(dir, Some(rules))).transpose()?;
    if goals.is_none() && (args.store.is_some() || args.certificate.is_some()) {
        bail!("--store and --certificate work with a threshold --goal (white-wins, white-draws, black-wins, black-draws, wdl)");
    }
    if let Some(goals) = goals {
        if args.resume.is_some() && goals.len() != 1 {
            bail!("--resume needs one goal (white-wins, white-draws, black-wins or black-draws), or --goal value");
        }
        if args.certificate.is_some() && goals.len() != 1 {
            bail!("--certificate needs one goal (white-wins, white-draws, black-wins or black-draws)");
        }
        return run_goals(&args, rules, &pos, tb.as_ref(), &goals);
    }
    let mut solver = Solver::new(tb.as_ref());
    solver.set_rules(rules);
    if let Some(file) = &args.resume {
        solver.keep_expanded(true);
        if file.exists() {
            let state = load_state(file)?;
            if state.rules != rules {
                bail!("{} holds proofs under the {} rules, not {rules}", file.display(), state.rules);
            }
            eprintln!(
                "resumed from {}: {} proven, {} expanded positions",
                file.display(),
                state.proven.len(),
                state.expanded.len()
            );
            solver.restore(state);
        }
    }
    let budget = args.budget();
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
        Some(mv) if result.proof.is_some() => println!("bestmove {mv}"),
        _ => println!("bestmove (none proven)"),
    }
    match result.proof {
        Some(proof) => println!("value {proof}"),
        None => println!("value unknown"),
    }
    Ok(())
}

/// `alq solve --goal`: threshold proofs, one line per goal at the end.
fn run_goals(
    args: &SolveArgs,
    rules: RuleSet,
    pos: &Position,
    tb: Option<&Tablebase>,
    goals: &[Goal],
) -> anyhow::Result<()> {
    let eval = crate::players::parse_evaluator(&args.eval, rules)?;
    let mut solver = ThresholdSolver::new(tb, Some(eval));
    solver.set_rules(rules);
    solver.want_certificates(args.certificate.is_some());
    solver.cycle_aware = args.cycle_aware;
    if let Some(file) = args.store.as_deref().filter(|f| f.exists()) {
        let store = load_store(file, rules)?;
        solver.add_store(&store).map_err(|e| anyhow::anyhow!("{}: {e}", file.display()))?;
        eprintln!("store {}: {} positions read", file.display(), store.entries.len());
    }
    for file in &args.read_store {
        let store = load_store(file, rules)?;
        solver.add_store(&store).map_err(|e| anyhow::anyhow!("{}: {e}", file.display()))?;
        eprintln!("store {} (read only): {} positions read", file.display(), store.entries.len());
    }
    let budget = args.budget();
    let mut resume = None;
    if let Some(file) = &args.resume {
        if file.exists() {
            let state = alq_solver::SearchState::load(file)?;
            eprintln!("resuming {}: {} positions expanded in earlier runs", file.display(), state.nodes);
            resume = Some(state);
        }
        solver.checkpoint(file, Duration::from_secs(args.checkpoint * 60));
    }
    println!("position {pos}");
    if let Some(tb) = tb {
        println!("tablebase {} (win/draw/loss to {} pieces)", tb.dir().display(), tb.wdl_max_pieces());
    }
    let mut outcomes = Vec::new();
    for &goal in goals {
        let quiet = args.quiet;
        let (result, state) = solver
            .solve_resumable(pos, goal, &budget, resume.take(), &mut |p| {
                if !quiet {
                    let n = |x: u32| if x == u32::MAX { "inf".to_string() } else { x.to_string() };
                    eprintln!(
                        "round: {goal} nodes {} graph {} pn {} dn {} time {:.1} s",
                        p.nodes,
                        p.graph_nodes,
                        n(p.proof_number),
                        n(p.disproof_number),
                        p.elapsed.as_secs_f64()
                    );
                }
            })
            .map_err(|e| match (&args.resume, e) {
                (Some(file), alq_solver::SolveError::StateMismatch(why)) => {
                    anyhow::anyhow!("{}: the saved search does not match: {why}", file.display())
                }
                (_, e) => e.into(),
            })?;
        if let Some(file) = &args.resume {
            match &state {
                Some(state) => {
                    state.save(file)?;
                    eprintln!("state saved to {}: {} positions expanded in all", file.display(), state.nodes);
                }
                None if file.exists() => {
                    std::fs::remove_file(file).with_context(|| format!("removing {}", file.display()))?;
                    eprintln!("{} removed: {goal} is settled", file.display());
                }
                None => {}
            }
        }
        if result.resumed_nodes > 0 {
            println!("resumed after {} positions expanded in earlier runs", result.resumed_nodes);
        }
        println!(
            "nodes {} graph {} slots {} bytes/node {:.1} tbhits {} storehits {} time {:.3} s memory {:.1} MiB peak-rss {} rounds {}{}",
            result.nodes,
            result.graph_nodes,
            result.slots,
            result.memory_bytes as f64 / result.graph_nodes.max(1) as f64,
            result.tb_hits,
            result.store_hits,
            result.elapsed.as_secs_f64(),
            result.memory_bytes as f64 / (1 << 20) as f64,
            peak_rss().map_or("unknown".to_string(), |kb| format!("{:.1} MiB", kb as f64 / 1024.0)),
            result.rounds,
            if result.out_of_budget { " (budget spent)" } else { "" }
        );
        match result.best_move {
            Some(mv) => println!("bestmove {mv}"),
            None => println!("bestmove (none: the side with the proven strategy is not to move, or nothing proven)"),
        }
        if let (Some(file), Some(cert)) = (&args.certificate, &result.certificate) {
            cert.write(file)?;
            println!("certificate {} ({} positions, proves {})", file.display(), cert.entries.len(), cert.goal);
        }
        println!("{} {goal}", result.outcome);
        outcomes.push((goal, result.outcome));
        if goals.len() == 2 && result.outcome == Outcome::Proven {
            break; // one side wins: the other cannot
        }
    }
    if let Some(file) = &args.store {
        // Merge with the file as it is now (another run may have added to it).
        let mut store = solver.proven_store();
        if file.exists() {
            store
                .merge(&alq_solver::ProvenStore::load(file)?)
                .map_err(|e| anyhow::anyhow!("{}: {e}", file.display()))?;
        }
        store.save(file)?;
        eprintln!("store {}: {} positions written", file.display(), store.entries.len());
    }
    if goals.len() == 2 {
        // `wdl`: White wins, Black wins, or neither (a draw).
        let mover = pos.side_to_move();
        let of = |g: Goal| outcomes.iter().find(|(x, _)| *x == g).map(|x| x.1);
        let white = of(Goal::WhiteWins);
        let black = of(Goal::BlackWins);
        let value = match (white, black) {
            (Some(Outcome::Proven), _) => Some(if mover == Side::White { "win" } else { "loss" }),
            (_, Some(Outcome::Proven)) => Some(if mover == Side::Black { "win" } else { "loss" }),
            (Some(Outcome::Disproven), Some(Outcome::Disproven)) => Some("draw"),
            _ => None,
        };
        println!("value {}", value.unwrap_or("unknown"));
    }
    Ok(())
}

/// `alq solve --deepen CERT --tb DIR --out FILE`: a certificate over
/// smaller tables (see `alq_solver::deepen`).
fn run_deepen(args: &SolveArgs, file: &std::path::Path) -> anyhow::Result<()> {
    let cert = alq_solver::Certificate::read(file)?;
    if args.rules.rules.is_some_and(|r| r != cert.rules) {
        bail!("{} is a certificate under the {} rules", file.display(), cert.rules);
    }
    let dir = args.tb.as_deref().expect("clap requires --tb");
    let out = args.out.as_deref().expect("clap requires --out");
    if args.hash == 0 {
        bail!("--hash must be at least 1 MiB");
    }
    let tb = crate::players::open_tablebase(dir, Some(cert.rules))?;
    let k = tb.wdl_max_pieces();
    if k >= cert.table_pieces {
        bail!(
            "{} leans on tables of {} pieces, and {} holds {k}: nothing to deepen",
            file.display(),
            cert.table_pieces,
            dir.display()
        );
    }
    // Each worker builds its own evaluator from the spec, checked once here.
    crate::players::parse_evaluator(&args.eval, cert.rules)?;
    let make_eval = || crate::players::parse_evaluator(&args.eval, cert.rules).expect("checked above");
    let parts = args.parts.clone().unwrap_or_else(|| {
        let mut p = out.as_os_str().to_owned();
        p.push(".parts");
        PathBuf::from(p)
    });
    let threads =
        args.threads.map_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()), |t| t as usize);
    let leaves = alq_solver::deepen::deep_leaves(&cert, k).len();
    println!(
        "certificate {}: {} {} positions, tables {}; {leaves} table leaves above {k} pieces to prove over {}",
        file.display(),
        cert.goal,
        cert.entries.len(),
        cert.table_pieces,
        dir.display()
    );
    let bar = crate::progress::bar(args.quiet, leaves as u64, "{bar:30} {pos}/{len} leaves, eta {eta}");
    let start = std::time::Instant::now();
    let (merged, report) =
        alq_solver::deepen::deepen(&cert, &tb, &make_eval, &args.budget(), &parts, threads, &|done, _| {
            bar.set_position(done as u64)
        })?;
    bar.finish_and_clear();
    println!(
        "leaves {}: {} proven before (parts in {}), {} proven now, {} resisting, {} disproven; {} positions expanded in {:.1} s",
        report.deep_leaves,
        report.resumed,
        parts.display(),
        report.proven,
        report.resisting.len(),
        report.disproven.len(),
        report.nodes,
        start.elapsed().as_secs_f64()
    );
    if report.shallow > 0 {
        println!(
            "{} leaves of {k} pieces or fewer use their proofs over smaller tables from {}",
            report.shallow,
            parts.display()
        );
    }
    for &key in &report.resisting {
        println!("resisting {key:016x} {}", Position::from_key_unchecked(key));
    }
    for &key in &report.disproven {
        println!(
            "disproven {key:016x} {} (the input certificate's table value does not hold?)",
            Position::from_key_unchecked(key)
        );
    }
    let Some(merged) = merged else {
        if !report.disproven.is_empty() {
            bail!(
                "{} leaves disproven over {}: the input certificate does not hold (check it with --check over its own tables)",
                report.disproven.len(),
                dir.display()
            );
        }
        bail!(
            "{} of {} leaves not proven: rerun with a larger --nodes/--movetime or --hash (the {} proven are kept in {})",
            report.resisting.len(),
            report.deep_leaves,
            report.resumed + report.proven,
            parts.display()
        );
    };
    let root = Position::from_key_unchecked(merged.root);
    let checked = alq_solver::check_certificate(&merged, &root, Some(&tb))
        .map_err(|e| anyhow::anyhow!("the deepened certificate does not hold (nothing written): {e}"))?;
    merged.write(out)?;
    println!(
        "certificate {} ({} positions, {} table leaves, tables {k}, checked), proves {} from {root}",
        out.display(),
        merged.entries.len(),
        checked.table_leaves,
        merged.goal
    );
    Ok(())
}

/// The statements the certificates in `dir` (`*.cert`, or gzip-compressed
/// `*.cert.gz`) make about the start and the lines one or two plies on:
/// (line, statement), the start as `""`. Each certificate is checked before
/// it is used (`Certificate::read_checked`): over the tables `tb` (a
/// folder) when they hold its leaves, else every step but the table
/// leaves' values, and then the statements say `(proof, leaves not
/// checked)` instead of `(proof)`. A certificate that does not hold is
/// refused, by name.
pub fn read_proofs(
    dir: &std::path::Path,
    rules: RuleSet,
    tb: Option<&std::path::Path>,
) -> anyhow::Result<Vec<(String, String)>> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .with_context(|| format!("cannot read the proofs folder {}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.to_str().is_some_and(|name| name.ends_with(".cert") || name.ends_with(".cert.gz")))
        .collect();
    files.sort();
    let tables = tb.map(|d| crate::players::open_tablebase(d, Some(rules))).transpose()?;
    let mut certs = Vec::new();
    let mut all_probed = true;
    for file in &files {
        let (cert, report) = alq_solver::Certificate::read_checked(file, tables.as_ref())?;
        if cert.rules != rules {
            bail!("{} is a certificate under the {} rules, not {rules}", file.display(), cert.rules);
        }
        all_probed &= report.leaves_checked();
        certs.push(cert);
    }
    let label = if all_probed { "(proof)" } else { "(proof, leaves not checked)" };
    Ok(alq_solver::certificate::proven_lines(&certs)
        .into_iter()
        .map(|(line, goals)| (line, format!("{} {label}", alq_solver::certificate::describe(&goals))))
        .collect())
}

/// Reads a proven-position store and refuses one of other rules.
fn load_store(file: &std::path::Path, rules: RuleSet) -> anyhow::Result<alq_solver::ProvenStore> {
    let store = alq_solver::ProvenStore::load(file)?;
    if store.rules != rules {
        bail!("{} holds answers under the {} rules, not {rules}", file.display(), store.rules);
    }
    Ok(store)
}

/// What a store's tables field says, for people.
pub fn tables_text(tables: Option<u32>) -> String {
    match tables {
        None => "tables not recorded".to_string(),
        Some(0) => "no tables".to_string(),
        Some(k) => format!("over the ≤ {k}-piece tables"),
    }
}

/// The proven values of an opening book (`alq openings --solve`'s CSV:
/// `position` and `exact_value`, side to move's view: `win`, `loss`,
/// `draw`, `≥ draw`, `≤ draw`, or empty) as a store, with the tables of
/// `like` (a book does not say which it used).
fn book_store(
    file: &std::path::Path,
    rules: RuleSet,
    like: &alq_solver::ProvenStore,
) -> anyhow::Result<alq_solver::ProvenStore> {
    use anyhow::Context;
    let mut reader = csv::Reader::from_path(file).with_context(|| format!("cannot read {}", file.display()))?;
    let headers = reader.headers().with_context(|| format!("{}: header", file.display()))?.clone();
    let column = |name: &str| {
        headers.iter().position(|h| h == name).with_context(|| format!("{}: no `{name}` column", file.display()))
    };
    let (pc, vc) = (column("position")?, column("exact_value")?);
    let mut store = alq_solver::ProvenStore::new(rules);
    store.tables = like.tables;
    for (i, row) in reader.records().enumerate() {
        let at = || format!("{}: row {}", file.display(), i + 2);
        let row = row.with_context(at)?;
        let pos: alq_engine::Position = row.get(pc).unwrap_or("").parse().with_context(at)?;
        let text = row.get(vc).unwrap_or("").trim();
        if text.is_empty() {
            continue;
        }
        let Some((mover, opponent)) = alq_solver::ProvenStore::answers_of_value(text) else {
            bail!("{}: exact value {text:?} (expected win, loss, draw, ≥ draw or ≤ draw)", at())
        };
        store.add_answers(&pos, mover, opponent).with_context(at)?;
    }
    Ok(store)
}

/// `alq solve --merge IN... --store OUT`.
fn run_merge(args: &SolveArgs, rules: RuleSet) -> anyhow::Result<()> {
    let out = args.store.as_deref().expect("clap requires --store with --merge");
    let mut merged = alq_solver::ProvenStore::new(rules);
    let inputs = args.merge.iter().map(|p| p.as_path()).chain(Some(out).filter(|o| o.exists()));
    for file in inputs {
        // What the file is, by its first bytes: a store, a certificate
        // (text, or gzip), else a book by its name.
        let is_store = std::fs::File::open(file)
            .and_then(|mut f| {
                let mut magic = [0u8; 8];
                std::io::Read::read_exact(&mut f, &mut magic).map(|()| &magic == b"ALQPROV\n")
            })
            .unwrap_or(false);
        let is_cert = alq_solver::certificate::is_certificate_file(file);
        let store = if !is_store && !is_cert && file.extension().is_some_and(|e| e == "csv") {
            book_store(file, rules, &merged)?
        } else if !is_cert {
            load_store(file, rules)?
        } else {
            // Checked before its answers are taken (leaves over --tb when
            // the tables hold them).
            let tables = args.tb.as_deref().map(|d| crate::players::open_tablebase(d, Some(rules))).transpose()?;
            let (cert, report) = alq_solver::Certificate::read_checked(file, tables.as_ref())?;
            if cert.rules != rules {
                bail!("{}: a certificate under the {} rules, not {rules}", file.display(), cert.rules);
            }
            if !report.leaves_checked() {
                eprintln!(
                    "{}: checked, but its {} table leaves not probed (give --tb with its ≤ {} tables)",
                    file.display(),
                    report.table_leaves,
                    cert.table_pieces
                );
            }
            alq_solver::ProvenStore::from_certificate(&cert)
        };
        merged.merge(&store).map_err(|e| anyhow::anyhow!("{}: {e}", file.display()))?;
        eprintln!("{}: {} positions", file.display(), store.entries.len());
    }
    merged.save(out)?;
    println!("store {} ({} positions, {})", out.display(), merged.entries.len(), tables_text(merged.tables));
    Ok(())
}

/// `alq solve --split K`: the unsettled positions K plies on, as jobs.
fn run_split(
    args: &SolveArgs,
    rules: RuleSet,
    pos: &Position,
    plies: u32,
    tb: Option<&Tablebase>,
) -> anyhow::Result<()> {
    let settled = |p: &Position| p.is_lost_in(rules) || tb.is_some_and(|t| p.occupied().count() <= t.wdl_max_pieces());
    let tree = alq_play::openings::tree_from(*pos, rules, plies, |p| !settled(p));
    let layer: Vec<_> = tree.iter().filter(|(line, _)| line.len() == plies as usize).collect();
    let jobs: Vec<_> = layer.iter().filter(|(_, p)| !settled(p)).collect();
    let mut text = String::new();
    for (line, p) in &jobs {
        let line: Vec<String> = line.iter().map(|m| m.to_string()).collect();
        text.push_str(&format!("{p}\t{}\n", line.join(" ")));
    }
    match &args.jobs {
        Some(file) => {
            alq_fs::write_atomic(file, text.as_bytes()).with_context(|| format!("writing {}", file.display()))?;
            eprintln!(
                "{} jobs ({} positions {plies} plies on, {} settled) written to {}",
                jobs.len(),
                layer.len(),
                layer.len() - jobs.len(),
                file.display()
            );
        }
        None => print!("{text}"),
    }
    Ok(())
}

/// `alq solve --reachable`: positions reachable by piece count.
fn run_reachable(args: &SolveArgs, rules: RuleSet, pos: &Position) -> anyhow::Result<()> {
    println!("position {pos}");
    println!("pieces positions white-to-move ended seconds");
    let start = std::time::Instant::now();
    let (layers, stopped) = alq_solver::reachable::count_reachable(
        pos,
        rules,
        args.min_pieces,
        args.hash.saturating_mul(1 << 20),
        &mut |l| {
            println!("{} {} {} {} {:.1}", l.pieces, l.positions, l.white_to_move, l.ended, l.elapsed.as_secs_f64());
        },
    );
    let total: u64 = layers.iter().map(|l| l.positions).sum();
    println!(
        "total {total} positions in {} layers, {:.1} s, peak-rss {}",
        layers.len(),
        start.elapsed().as_secs_f64(),
        peak_rss().map_or("unknown".to_string(), |kb| format!("{:.1} MiB", kb as f64 / 1024.0))
    );
    if let Some(s) = stopped {
        println!(
            "stopped at {} pieces: {} positions found when the next step would pass --hash {} MiB",
            s.pieces, s.found, args.hash
        );
    }
    Ok(())
}

/// The process's peak resident memory in KiB (Linux: `VmHWM`).
fn peak_rss() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}
