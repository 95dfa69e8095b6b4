//! `alq tb`: endgame tablebases — build, probe, stats, verify.

use std::path::PathBuf;
use std::time::Instant;

use anyhow::Context;
use clap::{Args, Subcommand};
use indicatif::ProgressBar;

use alq_tablebase::{
    build_with, class_stats, estimate, BuildOptions, Event, Kind, Material, Outcome, Phase, Shard, Solver, Tablebase,
    VerifyEvent,
};

#[derive(Subcommand)]
pub enum TbCommand {
    /// Build the tables for every position with up to N pieces (resumable, shardable).
    Build(BuildArgs),
    /// Print a position's value, then each legal move with its value, best first.
    Probe(ProbeArgs),
    /// Per material class: positions, wins, draws, losses and the longest win (Markdown).
    Stats(TbArgs),
    /// Re-check every stored value against the values of its successors.
    /// Progress is kept in DIR/verify.progress (one line per consistent
    /// class), so `--resume` continues a killed run.
    Verify(VerifyArgs),
    /// Check tables against independent code: every entry up to the
    /// --against tables' size against them, then random positions with more
    /// pieces solved by the proof search (`alq solve`) with --against as
    /// leaves. Exits 2 on the first disagreement.
    Crosscheck(CrosscheckArgs),
    /// Probe speed: random K-piece positions probed one after another on one
    /// thread, from tables read into memory or (--disk) from the files.
    Bench(BenchArgs),
    /// Endgame accuracy of a player: random K-piece positions where a move
    /// can spoil the value; how often its move keeps a win or a draw.
    Accuracy(AccuracyArgs),
}

#[derive(Args)]
pub struct AccuracyArgs {
    /// Tablebase folder that covers K pieces (judges the moves).
    #[arg(long, value_name = "DIR")]
    tb: PathBuf,
    /// Pieces in every test position (both sides present).
    #[arg(long, value_name = "K", value_parser = clap::value_parser!(u32).range(2..=24))]
    pieces: u32,
    /// Number of positions: won or drawn for the side to move, each with at
    /// least one move that changes its value.
    #[arg(long, value_name = "N", default_value_t = 1000, value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
    positions: u64,
    /// The player, as in `alq match`: e.g. `nn@nodes=1000`, `hce@nodes=10000`,
    /// or with tables of fewer pieces `nn@nodes=1000,tb=data/tb6`.
    #[arg(long, value_name = "SPEC")]
    player: String,
    /// Seed: the positions depend only on it (and K and N).
    #[arg(long, value_name = "S", default_value_t = 1)]
    seed: u64,
    /// Also write the result as JSON.
    #[arg(long, value_name = "FILE.json")]
    out: Option<PathBuf>,
    /// Worker threads (default: all cores).
    #[arg(long, value_name = "T")]
    threads: Option<usize>,
    #[command(flatten)]
    rules: crate::RulesArg,
}

#[derive(Args)]
pub struct BenchArgs {
    /// Tablebase folder.
    #[arg(long, value_name = "DIR")]
    tb: PathBuf,
    /// Pieces in every probed position (default: the most the tables cover).
    #[arg(long, value_name = "K")]
    pieces: Option<u32>,
    /// Number of probes.
    #[arg(long, value_name = "N", default_value_t = 1_000_000)]
    probes: usize,
    /// Probe the files where they lie (one read a probe; the page cache
    /// serves what it holds) instead of reading the tables in first.
    #[arg(long)]
    disk: bool,
    /// Seed of the random positions.
    #[arg(long, value_name = "S", default_value_t = 1)]
    seed: u64,
    #[command(flatten)]
    rules: crate::RulesArg,
}

#[derive(Args)]
pub struct CrosscheckArgs {
    /// The tables to check (win/draw/loss values of either kind).
    #[arg(long, value_name = "DIR")]
    tb: PathBuf,
    /// Distance tables built separately (e.g. `alq tb build --pieces 10`):
    /// the entries both cover are compared, and they are the proof search's
    /// leaves.
    #[arg(long, value_name = "DIR")]
    against: PathBuf,
    /// Piece counts of the random positions (default: every count --tb
    /// covers beyond --against), e.g. `11,12`.
    #[arg(long, value_name = "K,..", value_delimiter = ',')]
    pieces: Vec<u32>,
    /// Random positions to prove per piece count (positions the search
    /// cannot prove within its budget are drawn again and counted apart).
    #[arg(long, value_name = "N", default_value_t = 1000)]
    positions: usize,
    /// The proof search's budget per position, in expanded positions.
    #[arg(long, value_name = "N", default_value_t = 200_000)]
    nodes: u64,
    /// The proof search's memory per position (and per thread), in MiB.
    #[arg(long, value_name = "MB", default_value_t = 256)]
    hash: usize,
    /// Seed of the random positions.
    #[arg(long, value_name = "S", default_value_t = 1)]
    seed: u64,
    /// Skip the entry-by-entry comparison (random positions only).
    #[arg(long)]
    random_only: bool,
    /// Worker threads (default: all cores).
    #[arg(long, value_name = "T")]
    threads: Option<usize>,
    #[command(flatten)]
    rules: crate::RulesArg,
}

#[derive(Args)]
pub struct BuildArgs {
    /// Build every material class with at most this many pieces (both sides).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(0..=24))]
    pieces: u32,
    /// Folder for the table files (created if missing; finished files are kept).
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
    /// Worker threads (default: all cores).
    #[arg(long, value_name = "T")]
    threads: Option<usize>,
    /// Build only share I of K of the current level; rerun when all shards are done.
    #[arg(long, value_name = "I/K")]
    shard: Option<String>,
    /// What the tables hold: `distance` (win, draw or loss with the plies to
    /// the end, one byte a position) or `wdl` (win, draw or loss only, 2 bits
    /// a position, a quarter of the disk and of the memory that captures
    /// read). A folder may hold both kinds; probing uses the distance tables
    /// where they cover the position and the wdl tables beyond. `dtz`:
    /// values under the 60-ply no-progress rule, win (with the plies to the
    /// next capture or forward move), cursed win (won only without the
    /// rule), draw, blessed loss or loss, one byte a position; `alq tb probe`
    /// and `alq tb stats` show them beside the other kinds', and `alq solve
    /// --check --no-progress` reads them. Under the classic rules a forward
    /// move can be taken back, and they are solved by raising each
    /// position's count thresholds to a fixed point (about twice the passes'
    /// time).
    #[arg(long, value_name = "KIND", default_value = "distance", value_parser = ["distance", "wdl", "dtz"])]
    kind: String,
    /// The rule set to solve (`brainking`, the default, or `classic`); a
    /// folder holds the tables of one rule set and its files name it.
    #[command(flatten)]
    rules: crate::RulesArg,
    /// How each unit is solved: `slices` (the default: advancement slices,
    /// solved from the most advanced down with each slice's work in cache;
    /// rules where pieces step back, the classic ones, use the passes) or
    /// `passes` (one pass per distance over the whole unit, the builder
    /// before slices, kept to cross-check them). Both write the same files.
    #[arg(long, value_name = "SOLVER", default_value = "slices", value_parser = ["slices", "passes"])]
    solver: String,
}

#[derive(Args)]
pub struct ProbeArgs {
    /// Tablebase folder.
    #[arg(long, value_name = "DIR")]
    tb: PathBuf,
    /// Position text, ranks 5 to 1 then the side to move.
    #[arg(long, value_name = "TEXT")]
    position: String,
    #[command(flatten)]
    rules: crate::RulesArg,
}

#[derive(Args)]
pub struct TbArgs {
    /// Tablebase folder.
    #[arg(long, value_name = "DIR")]
    tb: PathBuf,
    /// Worker threads (default: all cores).
    #[arg(long, value_name = "T")]
    threads: Option<usize>,
    #[command(flatten)]
    rules: crate::RulesArg,
}

#[derive(Args)]
pub struct VerifyArgs {
    #[command(flatten)]
    tb: TbArgs,
    /// Skip the classes an earlier run found consistent (listed in
    /// DIR/verify.progress with the same file checksum); without it every
    /// class is checked and the progress file starts afresh.
    #[arg(long)]
    resume: bool,
}

pub fn run(command: TbCommand) -> anyhow::Result<()> {
    match command {
        TbCommand::Build(args) => run_build(args),
        TbCommand::Probe(args) => run_probe(args),
        TbCommand::Stats(args) => run_stats(args),
        TbCommand::Verify(args) => run_verify(args),
        TbCommand::Accuracy(args) => run_accuracy(args),
        TbCommand::Crosscheck(args) => run_crosscheck(args),
        TbCommand::Bench(args) => run_bench(args),
    }
}

/// A uniformly drawn stored form with `pieces` pieces (both sides present,
/// the side to move normalised as the tables store it).
fn random_stored_form(rng: &mut impl rand::Rng, pieces: u32) -> (u32, u32) {
    loop {
        let mut points: Vec<u32> = (0..25).collect();
        let (mut us, mut them) = (0u32, 0u32);
        for i in 0..pieces as usize {
            let j = rng.gen_range(i..25);
            points.swap(i, j);
            if rng.gen_bool(0.5) {
                us |= 1 << points[i];
            } else {
                them |= 1 << points[i];
            }
        }
        if us != 0 && them != 0 && us.count_ones() <= 12 && them.count_ones() <= 12 {
            return (us, them);
        }
    }
}

fn run_bench(args: BenchArgs) -> anyhow::Result<()> {
    use rand::SeedableRng;
    let tb = if args.disk { Tablebase::open_on_disk(&args.tb) } else { Tablebase::open(&args.tb) }
        .with_context(|| format!("opening {}", args.tb.display()))?;
    if let Some(rules) = args.rules.rules {
        tb.expect_rules(rules)?;
    }
    let covered = tb.wdl_max_pieces();
    let k = args.pieces.unwrap_or(covered);
    anyhow::ensure!(
        (2..=covered).contains(&k),
        "--pieces {k}: the tables in {} cover 2 to {covered} pieces",
        args.tb.display()
    );
    anyhow::ensure!(args.probes > 0, "--probes must be at least 1");
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(args.seed);
    let forms: Vec<(u32, u32)> = (0..args.probes).map(|_| random_stored_form(&mut rng, k)).collect();
    let pass = || -> anyhow::Result<(f64, [u64; 3])> {
        let started = Instant::now();
        let mut counts = [0u64; 3];
        for &(us, them) in &forms {
            let (w, _) = tb.wdl_of(us, them)?;
            counts[w as usize] += 1;
        }
        Ok((started.elapsed().as_secs_f64(), counts))
    };
    let source = tb.probe_wdl(&alq_tablebase::denormalize(forms[0].0, forms[0].1))?.1;
    let (first, counts) = pass()?;
    let (seconds, mode) = if args.disk {
        (first, "from disk (one read a probe)")
    } else {
        eprintln!("first pass, reading the tables in: {first:.1} s");
        (pass()?.0, "from memory")
    };
    println!(
        "{} probes of random {k}-piece positions {mode}, {} tables (≤ {} pieces), one thread: {:.3} s, {:.0} probes/s (wins {}, draws {}, losses {})",
        args.probes,
        source.kind,
        source.pieces,
        seconds,
        args.probes as f64 / seconds,
        counts[2],
        counts[1],
        counts[0]
    );
    Ok(())
}

fn run_crosscheck(args: CrosscheckArgs) -> anyhow::Result<()> {
    use rand::SeedableRng;
    use rayon::prelude::*;
    let pool = crate::thread_pool(args.threads)?;
    let tb = open(&args.tb, args.rules)?;
    let against = open(&args.against, args.rules)?;
    anyhow::ensure!(
        tb.rules() == against.rules(),
        "{} and {} hold tables of different rules",
        args.tb.display(),
        args.against.display()
    );
    let leaves = against
        .coverage(Kind::Distance)
        .with_context(|| format!("{} holds no distance tables", args.against.display()))?;
    let covered = tb.wdl_max_pieces();
    let kind = if tb.coverage(Kind::Wdl).is_some() { Kind::Wdl } else { Kind::Distance };
    let started = Instant::now();
    if !args.random_only {
        let up_to = leaves.min(tb.coverage(kind).unwrap_or(0));
        let total: u64 = Material::up_to(up_to).iter().map(|&m| tb.entries(m, kind)).sum();
        let b = bar(total, "entries");
        b.set_prefix(format!("compare ≤ {up_to}"));
        let compared = pool.install(|| {
            alq_tablebase::compare_wdl(&tb, kind, &against, up_to, &mut |event| {
                if let VerifyEvent::ClassDone { positions, .. } = event {
                    b.inc(positions);
                }
            })
        });
        b.finish_and_clear();
        let compared =
            compared.with_context(|| format!("comparing {} with {}", args.tb.display(), args.against.display()))?;
        println!(
            "equal: {compared} {kind} entries up to {up_to} pieces equal the win/draw/loss of {} ({:.1} s)",
            args.against.display(),
            started.elapsed().as_secs_f64()
        );
    }
    let pieces = if args.pieces.is_empty() { (leaves + 1..=covered).collect() } else { args.pieces.clone() };
    for &k in &pieces {
        anyhow::ensure!(
            k > leaves && k <= covered,
            "--pieces {k}: must be above the {leaves} pieces of --against and at most the {covered} of --tb"
        );
        let started = Instant::now();
        let mut rng =
            rand_chacha::ChaCha8Rng::seed_from_u64(args.seed ^ u64::from(k).wrapping_mul(0x9E37_79B9_7F4A_7C15));
        let (mut agree, mut unknown) = (0usize, 0usize);
        let b = bar(args.positions as u64, "positions");
        b.set_prefix(format!("{k} pieces"));
        let budget =
            alq_solver::Budget { nodes: Some(args.nodes), time: None, memory_bytes: args.hash.saturating_mul(1 << 20) };
        while agree < args.positions {
            anyhow::ensure!(
                unknown <= 20 * args.positions,
                "{k} pieces: {unknown} positions not proven within --nodes {}; raise it",
                args.nodes
            );
            let batch: Vec<(u32, u32)> =
                (0..(args.positions - agree).min(64)).map(|_| random_stored_form(&mut rng, k)).collect();
            let results: Vec<anyhow::Result<Option<(alq_engine::Position, alq_tablebase::Wdl, alq_tablebase::Exact)>>> =
                pool.install(|| {
                    batch
                        .par_iter()
                        .map(|&(us, them)| {
                            let pos = alq_tablebase::denormalize(us, them);
                            let mut solver = alq_solver::Solver::new(Some(&against));
                            solver.set_rules(against.rules());
                            let result = solver.solve(&pos, &budget)?;
                            let Some(alq_engine::Proven::Exact(value)) = result.proof else { return Ok(None) };
                            let (stored, _) = tb.probe_wdl(&pos)?;
                            Ok(Some((pos, stored, value)))
                        })
                        .collect()
                });
            for r in results {
                match r? {
                    None => unknown += 1,
                    Some((_, stored, value)) if stored == alq_tablebase::Wdl::from(value) => {
                        agree += 1;
                        b.inc(1);
                    }
                    Some((pos, stored, value)) => {
                        b.finish_and_clear();
                        anyhow::bail!(
                            "{pos}: {} says {stored}, the proof search over {} proves {value}",
                            args.tb.display(),
                            args.against.display()
                        );
                    }
                }
            }
        }
        b.finish_and_clear();
        println!(
            "agree: {agree} random {k}-piece positions proven by the search over {} (≤ {leaves}) equal {}; {unknown} not proven within {} nodes ({:.1} s)",
            args.against.display(),
            args.tb.display(),
            args.nodes,
            started.elapsed().as_secs_f64()
        );
    }
    Ok(())
}

fn run_accuracy(args: AccuracyArgs) -> anyhow::Result<()> {
    let judge = crate::players::open_tables(Some(&args.tb), args.rules.get())?.expect("a folder was given");
    let player = alq_play::PlayerSpec::parse(&args.player, alq_engine::Limits::default())?;
    player.check_rules(args.rules.get())?;
    let pool = crate::thread_pool(args.threads)?;
    let started = Instant::now();
    let report = pool
        .install(|| {
            alq_selfplay::accuracy::measure(
                &player,
                judge.tables.as_ref(),
                args.pieces,
                args.positions as usize,
                args.seed,
            )
        })
        .map_err(anyhow::Error::msg)?;
    println!("{}", report.text());
    println!("time {:.1} s", started.elapsed().as_secs_f64());
    if let Some(path) = &args.out {
        let json = serde_json::to_string_pretty(&report)? + "\n";
        alq_records::write_atomic(path, json.as_bytes()).with_context(|| format!("cannot write {}", path.display()))?;
    }
    Ok(())
}

fn gib(bytes: u64) -> String {
    format!("{:.2} GiB", bytes as f64 / (1u64 << 30) as f64)
}

fn bar(len: u64, unit: &str) -> ProgressBar {
    let bar = ProgressBar::new(len);
    let template =
        format!("{{prefix}} [{{bar:30}}] {{human_pos}}/{{human_len}} {unit} {{elapsed_precise}} (eta {{eta}}) {{msg}}");
    crate::progress::style(&bar, &template);
    bar.set_style(bar.style().progress_chars("=> "));
    bar
}

fn run_build(args: BuildArgs) -> anyhow::Result<()> {
    let shard = args.shard.as_deref().map(str::parse::<Shard>).transpose()?;
    let pool = crate::thread_pool(args.threads)?;
    let threads = pool.current_num_threads();
    let kind = Kind::from_name(&args.kind).expect("clap checks the kind");
    eprintln!(
        "estimate for {kind} tables up to {} pieces on {threads} thread(s) (entries: positions with the side to move normalised, mirror images sharing one):",
        args.pieces
    );
    eprintln!("{:>6} {:>16} {:>12} {:>12} {:>10}", "pieces", "entries", "memory", "disk", "time");
    let solver: Solver = args.solver.parse()?;
    let levels = estimate(args.pieces, kind, threads, solver.uses_slices(args.rules.get()));
    for level in &levels {
        eprintln!(
            "{:>6} {:>16} {:>12} {:>12} {:>9.0}s",
            level.pieces,
            level.positions,
            gib(level.memory_bytes),
            gib(level.disk_bytes),
            level.seconds
        );
    }
    let total_disk: u64 = levels.iter().map(|l| l.disk_bytes).sum();
    let peak = levels.iter().map(|l| l.memory_bytes).max().unwrap_or(0);
    let total_secs: f64 = levels.iter().map(|l| l.seconds).sum();
    eprintln!(
        "{:>6} {:>16} {:>12} {:>12} {:>9.0}s",
        "all",
        levels.iter().map(|l| l.positions).sum::<u64>(),
        gib(peak),
        gib(total_disk),
        total_secs
    );
    let options = BuildOptions { pieces: args.pieces, shard, rules: args.rules.get(), kind };
    let started = Instant::now();
    let mut current: Option<ProgressBar> = None;
    let mut finished = 0u64;
    let outcome = pool
        .install(|| {
            build_with(&args.out, &options, solver, &mut |event| match event {
                Event::StaleRemoved { files } => eprintln!("removed {files} temporary file(s) of an interrupted build"),
                Event::LevelComplete { pieces } => eprintln!("level {pieces}: complete already"),
                Event::LevelStart { pieces, units, mine, positions } => {
                    let b = bar(positions, "entries");
                    b.set_prefix(format!("level {pieces:>2} ({mine} of {units} units)"));
                    finished = 0;
                    current = Some(b);
                }
                Event::UnitStart { unit, .. } => {
                    if let Some(b) = &current {
                        b.set_message(unit);
                    }
                }
                Event::Unit(Phase::Sweep { done, .. }) => {
                    if let Some(b) = &current {
                        b.set_position(finished + done);
                    }
                }
                Event::Unit(Phase::Settled { distance }) => {
                    if let Some(b) = &current {
                        b.set_message(format!("distance {distance}"));
                    }
                }
                Event::Unit(Phase::Advancement { level, levels }) => {
                    if let Some(b) = &current {
                        b.set_message(format!("advancement {} of {levels}", level + 1));
                    }
                }
                Event::UnitDone { unit, positions, seconds, passes } => {
                    finished += positions;
                    let steps = if solver.uses_slices(args.rules.get()) { "advancement levels" } else { "passes" };
                    let line = format!("  {unit}: {positions} entries, {passes} {steps}, {seconds:.1} s");
                    match &current {
                        Some(b) if !b.is_hidden() => {
                            b.set_position(finished);
                            b.println(line);
                        }
                        _ => eprintln!("{line}"),
                    }
                }
                Event::LevelDone { pieces, seconds } => {
                    if let Some(b) = current.take() {
                        b.finish_and_clear();
                    }
                    eprintln!("level {pieces}: done in {seconds:.1} s");
                }
            })
        })
        .with_context(|| format!("building the tablebase in {}", args.out.display()))?;
    match outcome {
        Outcome::Complete => println!(
            "complete: up to {} pieces in {} ({kind} tables, {:.1} s)",
            args.pieces,
            args.out.display(),
            started.elapsed().as_secs_f64()
        ),
        Outcome::Waiting { pieces, missing } => println!(
            "shard done: level {pieces} still needs {} from other shards; run the same command again when they finish",
            missing.join(" ")
        ),
    }
    Ok(())
}

/// Opens a tablebase folder; with `--rules`, tables of other rules are refused.
fn open(dir: &std::path::Path, rules: crate::RulesArg) -> anyhow::Result<Tablebase> {
    crate::players::open_tablebase(dir, rules.rules)
}

fn run_probe(args: ProbeArgs) -> anyhow::Result<()> {
    let pos = crate::parse_position(Some(&args.position))?;
    let tb = open(&args.tb, args.rules)?;
    let pieces = pos.occupied().count();
    // Distance tables where they cover the position; win/draw/loss beyond.
    let source = if tb.coverage(Kind::Distance).is_some_and(|n| pieces <= n) {
        let value = tb.probe(&pos).with_context(|| format!("probing {pos}"))?;
        println!("value {value}");
        for (mv, v) in tb.probe_moves(&pos).with_context(|| format!("probing the moves of {pos}"))? {
            println!("{mv} {v}");
        }
        Kind::Distance
    } else {
        let (value, source) = tb.probe_wdl(&pos).with_context(|| format!("probing {pos}"))?;
        println!("value {value}");
        for (mv, v) in tb.probe_moves_wdl(&pos).with_context(|| format!("probing the moves of {pos}"))? {
            println!("{mv} {v}");
        }
        source.kind
    };
    let covered = tb.coverage(source).expect("the kind answered");
    eprintln!("from the {source} tables (≤ {covered} pieces) in {}", args.tb.display());
    if tb.coverage(Kind::Dtz).is_some_and(|n| pieces <= n) {
        let rule = tb.probe_dtz(&pos).with_context(|| format!("probing {pos}"))?;
        println!("under the 60-ply rule {rule}");
    }
    Ok(())
}

fn run_stats(args: TbArgs) -> anyhow::Result<()> {
    let pool = crate::thread_pool(args.threads)?;
    let mut tb = open(&args.tb, args.rules)?;
    // The distance tables, then the win/draw/loss tables beyond them.
    let distance = tb.coverage(Kind::Distance);
    let wdl = tb.coverage(Kind::Wdl).filter(|&w| distance.is_none_or(|d| w > d));
    println!("| material | positions | wins | draws | losses | longest win | example (White to move) |");
    println!("| --- | ---: | ---: | ---: | ---: | ---: | --- |");
    let mut total = [0u64; 4];
    let classes = distance
        .map(|d| Material::up_to(d).into_iter().map(|m| (m, Kind::Distance)).collect::<Vec<_>>())
        .unwrap_or_default()
        .into_iter()
        .chain(
            wdl.map(|w| {
                let from = distance.map_or(0, |d| d + 1);
                (from..=w).flat_map(Material::with_pieces).map(|m| (m, Kind::Wdl)).collect::<Vec<_>>()
            })
            .unwrap_or_default(),
        );
    for (material, kind) in classes {
        let s = pool.install(|| class_stats(&tb, material, kind))?;
        let (longest, example) = match &s.longest_win {
            Some((d, pos)) => (d.to_string(), format!("`{pos}`")),
            None if kind == Kind::Wdl => ("(wdl)".to_string(), String::new()),
            None => ("-".to_string(), String::new()),
        };
        println!(
            "| {} | {} | {} | {} | {} | {longest} | {example} |",
            s.material, s.positions, s.wins, s.draws, s.losses
        );
        for (t, x) in total.iter_mut().zip([s.positions, s.wins, s.draws, s.losses]) {
            *t += x;
        }
        // Each class is counted on its own: keep one table in memory at a time.
        tb.release();
    }
    println!("| all ≤ {} | {} | {} | {} | {} | | |", tb.wdl_max_pieces(), total[0], total[1], total[2], total[3]);
    if let Some(d) = tb.coverage(Kind::Dtz) {
        dtz_stats(&mut tb, &pool, d)?;
    }
    Ok(())
}

/// The values under the 60-ply no-progress rule, class by class.
fn dtz_stats(tb: &mut Tablebase, pool: &rayon::ThreadPool, up_to: u32) -> anyhow::Result<()> {
    println!();
    println!("Under the 60-ply no-progress rule (the dtz tables):");
    println!();
    println!("| material | positions | wins | cursed wins | draws | blessed losses | losses | longest win to progress | example (White to move) |");
    println!("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |");
    let mut total = [0u64; 6];
    let mut longest = 0;
    for material in Material::up_to(up_to) {
        let s = pool.install(|| class_stats(tb, material, Kind::Dtz))?;
        let row = [
            s.positions,
            s.wins - s.cursed_wins,
            s.cursed_wins,
            s.draws,
            s.blessed_losses,
            s.losses - s.blessed_losses,
        ];
        longest = longest.max(s.longest_win.as_ref().map_or(0, |(d, _)| *d));
        let (d, example) =
            s.longest_win.map_or(("-".to_string(), String::new()), |(d, p)| (d.to_string(), format!("`{p}`")));
        println!(
            "| {material} | {} | {} | {} | {} | {} | {} | {d} | {example} |",
            row[0], row[1], row[2], row[3], row[4], row[5]
        );
        for (t, x) in total.iter_mut().zip(row) {
            *t += x;
        }
        tb.release();
    }
    println!(
        "| all ≤ {up_to} | {} | {} | {} | {} | {} | {} | {longest} | |",
        total[0], total[1], total[2], total[3], total[4], total[5]
    );
    Ok(())
}

fn run_verify(verify_args: VerifyArgs) -> anyhow::Result<()> {
    let args = verify_args.tb;
    let pool = crate::thread_pool(args.threads)?;
    let mut tb = open(&args.tb, args.rules)?;
    let started = Instant::now();
    let total: u64 = Kind::ALL
        .into_iter()
        .filter_map(|kind| Some((kind, tb.coverage(kind)?)))
        .map(|(kind, n)| Material::up_to(n).iter().map(|&m| tb.entries(m, kind)).sum::<u64>())
        .sum();
    let b = bar(total, "entries");
    b.set_prefix("verify");
    let progress = args.tb.join("verify.progress");
    let mut skipped = 0u64;
    let checked = pool.install(|| {
        alq_tablebase::verify_resuming(&mut tb, &progress, verify_args.resume, &mut |event| match event {
            VerifyEvent::ClassStart { material, kind, .. } => b.set_message(format!("{material} {kind}")),
            VerifyEvent::ClassDone { material, kind, positions, seconds } => {
                b.inc(positions);
                if b.is_hidden() {
                    eprintln!("  {material} {kind}: {positions} entries consistent, {seconds:.1} s");
                }
            }
            VerifyEvent::ClassSkipped { positions, .. } => {
                skipped += positions;
                b.inc(positions);
            }
        })
    });
    b.finish_and_clear();
    let checked = checked.with_context(|| format!("verifying {}", args.tb.display()))?;
    let kinds: Vec<String> = Kind::ALL.into_iter().filter_map(|k| Some(format!("{k} ≤ {}", tb.coverage(k)?))).collect();
    let earlier = if skipped > 0 { format!(", {skipped} of them checked by an earlier run") } else { String::new() };
    println!(
        "ok: {checked} entries up to {} pieces consistent ({}{earlier}; {:.1} s)",
        tb.wdl_max_pieces(),
        kinds.join(", "),
        started.elapsed().as_secs_f64()
    );
    Ok(())
}
