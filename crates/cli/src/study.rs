//! `alq study`: White's first-move advantage as a function of playing
//! strength. The games come from `alq_selfplay::run_study`, the summary
//! from `alq_report::StudySummary`; this module parses flags and draws bars.

use std::path::PathBuf;
use std::sync::Mutex;

use anyhow::Context;
use clap::Args;
use indicatif::MultiProgress;

use alq_report::StudySummary;
use alq_selfplay::{run_study, StudyConfig, StudyEvent};

#[derive(Args)]
pub struct StudyArgs {
    /// Study description (TOML): the ladder of players, games per rung, the
    /// ply cap and the near-best sampling of the first plies. See
    /// configs/study.toml (the defaults, 15 minutes on 2 cores) and
    /// configs/study-quick.toml (under 3 minutes). Without it the defaults apply.
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// Output folder (default: the config's `out`): one folder of games per
    /// rung, then study.json, study.csv, study.svg, study.html and study.md.
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Endgame tables (a folder built by `alq tb build`; overrides the
    /// config's `tablebase`): players search with them and play perfect
    /// endgames once a game reaches them, and the summary shows per rung how
    /// often games entered the tables won, drawn or lost for White.
    #[arg(long, value_name = "DIR")]
    tb: Option<PathBuf>,
    /// Folder of proof certificates (`*.cert` or `*.cert.gz`, e.g.
    /// data/proofs, or data/proofs/classic for a classic study): the summary states
    /// what they prove about the start and each first move.
    #[arg(long, value_name = "DIR")]
    proofs: Option<PathBuf>,
    /// After the games, grade every move of each rung's games from the start
    /// against perfect play (as `alq accuracy`: the oracle over the study's
    /// tables, the shipped proofs and atlas, then searches of
    /// --grade-movetime a position) into the rung's grades.json; the summary
    /// then shows where each rung's games were lost: the first value-losing
    /// move by side, its mean ply, and errors.svg, the share of games still
    /// drawn by exact value after each ply. A rerun grades only rungs whose
    /// games changed.
    #[arg(long)]
    grade: bool,
    /// Grading search budget per position, in milliseconds.
    #[arg(long, value_name = "MS", default_value_t = 100, requires = "grade", value_parser = clap::value_parser!(u64).range(1..))]
    grade_movetime: u64,
    /// The rule set (overrides the config's `rules`; default brainking).
    #[command(flatten)]
    job: crate::JobArgs,
    #[command(flatten)]
    rules: crate::RulesArg,
}

pub fn run(args: StudyArgs) -> anyhow::Result<()> {
    let mut config: StudyConfig = crate::load_toml(args.config.as_deref())?;
    if let Some(t) = args.job.threads {
        config.threads = t;
    }
    if let Some(dir) = &args.tb {
        config.tablebase = dir.to_string_lossy().into_owned();
    }
    config.rules = args.rules.or(config.rules);
    let out = args.out.clone().unwrap_or_else(|| PathBuf::from(&config.out));
    let where_from =
        args.config.as_ref().map_or("the default study".to_string(), |p| format!("config {}", p.display()));
    let runs = config.runs().with_context(|| where_from.clone())?;
    // Read before the games are played, so a bad folder fails at once.
    let tables = Some(std::path::Path::new(&config.tablebase)).filter(|p| !p.as_os_str().is_empty());
    let proofs = args.proofs.as_deref().map(|dir| crate::solve::read_proofs(dir, config.rules, tables)).transpose()?;
    let total: u64 = runs.iter().map(|r| r.games).sum();
    let pool = crate::thread_pool((config.threads > 0).then_some(config.threads))?;
    let multi = MultiProgress::new();
    let top = crate::progress::bar_in(
        &multi,
        args.job.quiet,
        total,
        "[{elapsed_precise}] {bar:30} {pos}/{len} games of the study, eta {eta}",
    );
    let bar =
        crate::progress::bar_in(&multi, args.job.quiet, 0, "  {prefix} {bar:30} {pos}/{len} games ({per_sec}), {msg}");
    // Games finished in earlier runs of the study, for the overall bar.
    let before = Mutex::new(0u64);
    let started = std::time::Instant::now();
    let runs = pool.install(|| {
        run_study(&config, &out, args.job.resume, |event| match event {
            StudyEvent::RunStart { index, count, run } => {
                let done: u64 = runs[..index].iter().map(|r| r.games).sum();
                *before.lock().unwrap_or_else(|e| e.into_inner()) = done;
                top.set_position(done);
                let from = run.first_move.as_ref().map(|m| format!(" from {m}")).unwrap_or_default();
                bar.set_prefix(format!("run {}/{count}: {}{from}", index + 1, run.player));
                bar.set_length(run.games);
                bar.set_position(0);
                bar.reset_eta();
            }
            StudyEvent::Game(done) => {
                bar.set_position(done.done);
                bar.set_message(format!("last: {} {}", done.record.result, done.record.termination));
                top.set_position(*before.lock().unwrap_or_else(|e| e.into_inner()) + done.done);
            }
        })
    })?;
    bar.finish_and_clear();
    top.finish_and_clear();
    if args.grade {
        grade_runs(&config, &out, &runs, args.grade_movetime, args.job.quiet)?;
    }
    let mut summary = pool.install(|| StudySummary::from_runs(&out, &runs, config.rules))?;
    if let Some(dir) = &proofs {
        summary.set_proofs(dir);
    }
    summary.write(&out)?;
    eprintln!(
        "{} games in {} run(s) in {:.0} s; summary: {}",
        total,
        runs.len(),
        started.elapsed().as_secs_f64(),
        out.join("study.html").display()
    );
    println!("rung player games white_wins draws black_wins unfinished white_score lo hi");
    for r in &summary.rungs {
        let g = &r.results;
        println!(
            "{} {} {} {} {} {} {} {:.4} {:.4} {:.4}",
            r.rung + 1,
            r.player,
            g.games,
            g.white_wins,
            g.draws,
            g.black_wins,
            g.unfinished,
            g.white_score,
            g.rates.white_score.ci95[0],
            g.rates.white_score.ci95[1]
        );
    }
    Ok(())
}

/// `--grade`: each run from the start graded into its `grades.json`,
/// unless that is newer than its games.
fn grade_runs(
    config: &StudyConfig,
    out: &std::path::Path,
    runs: &[alq_records::StudyRun],
    movetime: u64,
    quiet: bool,
) -> anyhow::Result<()> {
    let rules = config.rules;
    let tb = match config.tablebase.trim() {
        "" => None,
        dir => Some(crate::players::open_tablebase(std::path::Path::new(dir), Some(rules))?),
    };
    let grading = crate::accuracy::GradeOracleArgs {
        store: None,
        read_store: Vec::new(),
        grade_hash: 1024,
        grade_eval: "hce".to_string(),
        no_shipped: false,
        rules_values: false,
    };
    let budget = grading.budget(Some(movetime), None);
    let oracle = grading.open(rules, tb.as_ref(), budget)?;
    let modified = |p: &std::path::Path| std::fs::metadata(p).and_then(|m| m.modified()).ok();
    for run in runs.iter().filter(|r| r.first_move.is_none()) {
        let games = run.games_file(out);
        let grades = games.with_file_name(alq_report::GRADES_FILE);
        if matches!((modified(&grades), modified(&games)), (Some(g), Some(m)) if g >= m) {
            continue;
        }
        eprintln!("grading {} against perfect play", run.player);
        let (replayed, _) = alq_records::read_all(std::slice::from_ref(&games), false)?;
        let records: Vec<_> = replayed.into_iter().map(|g| g.record).collect();
        let (report, graded) = crate::accuracy::grade_records(&oracle, &records, budget, grading.values(), quiet)?;
        let json = crate::accuracy::grades_json(&report, &graded)?;
        alq_records::write_atomic(&grades, (json.to_string() + "\n").as_bytes())
            .with_context(|| format!("cannot write {}", grades.display()))?;
    }
    Ok(())
}
