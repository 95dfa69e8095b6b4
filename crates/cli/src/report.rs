//! `alq report`: first-move advantage and openings from game records.

use std::path::PathBuf;

use anyhow::{bail, Context};
use clap::Args;

#[derive(Args)]
pub struct ReportArgs {
    /// Games files, or folders searched recursively for files named games.csv.
    #[arg(long, value_name = "PATH", num_args = 1.., required = true)]
    games: Vec<PathBuf>,
    /// Output folder: summary.json, openings.csv, *.svg, report.html, report.md.
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
    /// Depth of the opening tree in real choices: a ply with a single legal
    /// move (a forced capture) is folded into the choice before it.
    #[arg(long, value_name = "CHOICES", default_value_t = 6)]
    depth: usize,
    /// A study folder written by `alq study`: the report gains its curve of
    /// White's score by playing strength.
    #[arg(long, value_name = "DIR")]
    study: Option<PathBuf>,
    /// A solved opening book (`alq openings --solve`): its proven values fill
    /// `exact_value` of the first-move table and openings.csv.
    #[arg(long, value_name = "FILE")]
    book: Option<PathBuf>,
    /// Tablebase folder: lines whose position it covers get the table's value.
    #[arg(long, value_name = "DIR")]
    tb: Option<PathBuf>,
    /// Folder of proof certificates (`alq solve --certificate`, `*.cert` or
    /// `*.cert.gz`, e.g. data/proofs, or data/proofs/classic with `--rules
    /// classic`): the start and the first moves they settle get the proven
    /// statement (`Black wins (proof)`, `White holds at least a draw (proof)`),
    /// unless the book or the tables give an exact value. Each certificate
    /// is checked first (refused by name if it does not hold); its table
    /// leaves over `--tb` when the tables hold them, else the statements
    /// say `(proof, leaves not checked)`.
    #[arg(long, value_name = "DIR")]
    proofs: Option<PathBuf>,
    /// The opening explorer's address (`alq serve`, e.g.
    /// http://127.0.0.1:8080/): the page links each first move to it.
    #[arg(long, value_name = "URL")]
    explorer: Option<String>,
    /// The exact opening atlas's section to this many plies (the shipped
    /// atlas and --read-store; BrainKing's rules): per ply the positions won,
    /// drawn and lost, how many moves keep the value, and the traps of each
    /// holding first move. Its exact values also fill the opening lines that
    /// --proofs left without one (--tb and --book come after it).
    /// 0 leaves the section out.
    #[arg(long, value_name = "PLIES", default_value_t = 10, value_parser = clap::value_parser!(u32).range(0..=12))]
    atlas_depth: u32,
    /// Proven-position stores added to the shipped atlas (`alq atlas --out`
    /// or `--save-tree`, `alq oracle --store`). Repeatable.
    #[arg(long, value_name = "FILE")]
    read_store: Vec<PathBuf>,
    /// Worker threads for replaying games (default: all cores).
    #[arg(long, value_name = "T")]
    threads: Option<usize>,
    /// No progress display.
    #[arg(long)]
    quiet: bool,
    #[command(flatten)]
    rules: crate::RulesArg,
}

pub fn run(args: ReportArgs) -> anyhow::Result<()> {
    if args.depth == 0 || args.depth > 40 {
        bail!("--depth must be between 1 and 40");
    }
    let files = alq_report::game_files(&args.games).context("cannot list the games")?;
    if files.is_empty() {
        bail!("no games files found (folders are searched for files named games.csv)");
    }
    let pool = crate::thread_pool(args.threads)?;
    let bar = crate::progress::bar(args.quiet, 0, "{pos} games read ({per_sec})");
    let started = std::time::Instant::now();
    let rules = args.rules.get();
    let collected = pool.install(|| alq_report::collect(&files, rules, args.depth, |n| bar.set_position(n)))?;
    bar.finish_and_clear();
    let mut report = alq_report::Report::new(&collected, &files, &Default::default());
    let proofs =
        args.proofs.as_deref().map(|dir| crate::solve::read_proofs(dir, rules, args.tb.as_deref())).transpose()?;
    if let Some(proofs) = &proofs {
        report.fill_exact(&proofs.iter().cloned().collect());
    }
    if args.atlas_depth > 0 {
        if let Some(atlas) = atlas_section(&mut report, rules, args.atlas_depth, &args.read_store)? {
            report = report.with_atlas(atlas);
        }
    }
    fill_exact(&mut report, rules, args.book.as_deref(), args.tb.as_deref())?;
    if let Some(dir) = &args.study {
        let mut study = alq_report::StudySummary::read(dir)?;
        if let Some(proofs) = &proofs {
            study.set_proofs(proofs);
        }
        if study.rules != rules {
            bail!(
                "the study in {} was played under the {} rules, not {rules} (pass --rules {})",
                dir.display(),
                study.rules,
                study.rules
            );
        }
        report = report.with_study(study);
    }
    if let Some(url) = &args.explorer {
        if !(url.starts_with("http://") || url.starts_with("https://")) {
            anyhow::bail!(
                "--explorer {url:?}: expected an http:// or https:// address, such as http://127.0.0.1:8080/"
            );
        }
        report = report.with_explorer(url);
    }
    report.write(&args.out)?;
    eprintln!(
        "{} games from {} file(s) in {:.1} s; report in {}",
        report.games,
        files.len(),
        started.elapsed().as_secs_f64(),
        args.out.join("report.html").display()
    );
    // Totals pool every pairing: counts only. White's score is per pairing
    // (players of one strength), never pooled across strengths.
    for (kind, s) in [("from_start", &report.from_start), ("randomised", &report.randomised)] {
        let g = &s.results;
        println!(
            "{kind} games {} white_wins {} black_wins {} draws {} unfinished {} pairings {}",
            g.games,
            g.white_wins,
            g.black_wins,
            g.draws,
            g.unfinished,
            s.pairings.len()
        );
        for p in &s.pairings {
            let r = &p.results;
            println!(
                "{kind} pairing {} games {} white_wins {} black_wins {} draws {} white_score {:.4} [{:.4}, {:.4}]",
                p.label().replace(' ', "_"),
                r.games,
                r.white_wins,
                r.black_wins,
                r.draws,
                r.white_score,
                r.rates.white_score.ci95[0],
                r.rates.white_score.ci95[1]
            );
        }
    }
    println!("{}", report.headline);
    Ok(())
}

/// `alq report --book/--tb`: exact values of the opening lines (the book's
/// first, the tables' where the book has none).
fn fill_exact(
    report: &mut alq_report::Report,
    rules: alq_engine::RuleSet,
    book: Option<&std::path::Path>,
    tb: Option<&std::path::Path>,
) -> anyhow::Result<()> {
    if let Some(dir) = tb {
        let tb = crate::players::open_tablebase(dir, Some(rules))?;
        report.fill_exact(&alq_report::exact_from_tables(report, &tb)?);
    }
    if let Some(path) = book {
        report.fill_exact(&alq_report::exact_from_book(path)?);
    }
    Ok(())
}

/// The atlas's section from the shipped atlas and `stores` (none when they
/// know nothing of the start, as under the classic rules without a store),
/// and the exact values it gives the report's opening lines.
fn atlas_section(
    report: &mut alq_report::Report,
    rules: alq_engine::RuleSet,
    depth: u32,
    stores: &[PathBuf],
) -> anyhow::Result<Option<alq_report::AtlasSummary>> {
    let (oracle, shipped) = crate::players::lookup_oracle(rules, None, true, stores)?;
    let value =
        |pos: &alq_engine::Position| oracle.known(pos).ok().flatten().map_or(alq_oracle::Value::Unknown, |(v, _)| v);
    if value(&alq_engine::Position::start_of(rules)) == alq_oracle::Value::Unknown {
        return Ok(None);
    }
    let exact = alq_report::exact_from_lines(report, rules, |pos| {
        Some(value(pos)).filter(|v| v.is_exact()).and_then(|v| v.proven()).map(|p| p.to_string())
    });
    report.fill_missing_exact(&exact);
    let mut source = match (shipped, stores.len()) {
        (true, 0) => "the shipped opening atlas".to_string(),
        (true, _) => "the shipped opening atlas and ".to_string(),
        (false, _) => String::new(),
    };
    if !stores.is_empty() {
        let names: Vec<String> = stores.iter().map(|p| p.display().to_string()).collect();
        source += &names.join(", ");
    }
    Ok(Some(crate::atlas::summary(rules, depth, &value, source)))
}
