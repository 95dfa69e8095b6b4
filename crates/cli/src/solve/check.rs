//! `alq solve --check FILE [--no-progress [PLIES]]`: a certificate checked,
//! and a win certificate's runs without progress measured against the
//! no-progress rule of games.

use alq_engine::Position;
use anyhow::bail;

use super::SolveArgs;

/// `alq solve --check FILE`: verifies a certificate.
pub(super) fn run_check(args: &SolveArgs, file: &std::path::Path) -> anyhow::Result<()> {
    let cert = alq_solver::Certificate::read(file)?;
    if args.rules.rules.is_some_and(|r| r != cert.rules) {
        bail!("{} is a certificate under the {} rules", file.display(), cert.rules);
    }
    let pos = match args.position.as_deref() {
        Some(text) => crate::parse_position(Some(text))?,
        None if args.moves.is_some() => Position::start_of(cert.rules),
        None => Position::from_key_unchecked(cert.root),
    };
    let pos = crate::play_line(pos, cert.rules, args.moves.as_deref())?;
    let tb = args.tb.as_deref().map(|dir| crate::players::open_tablebase(dir, Some(cert.rules))).transpose()?;
    let start = std::time::Instant::now();
    // Without tables, every step but the table leaves' values.
    let report = match &tb {
        Some(tb) => alq_solver::check_certificate(&cert, &pos, Some(tb)),
        None => alq_solver::check_structure(&cert, &pos),
    }
    .map_err(|e| anyhow::anyhow!("{}: the certificate does not hold: {e}", file.display()))?;
    println!("certificate {}", file.display());
    println!("rules {}", cert.rules);
    println!("root {:016x} {pos}", pos.key());
    println!("goal {}", cert.goal);
    println!("{}", leaves_text(&cert, args.tb.as_deref()));
    println!(
        "checked {} entries ({} table leaves, {} without a legal move, {} not reached from the root) in {:.3} s",
        report.entries,
        report.table_leaves,
        report.end_leaves,
        report.unreachable,
        start.elapsed().as_secs_f64()
    );
    if let Some(out) = &args.out {
        let lean = cert.lean();
        lean.write(out)?;
        println!("certificate {} ({} entries, only those the root reaches)", out.display(), lean.entries.len());
    }
    if let (Some(limit), Some(tb)) = (args.no_progress, &tb) {
        if !report.leaves_checked() {
            bail!(
                "the no-progress check needs the table leaves probed: give --tb with the ≤ {} tables",
                cert.table_pieces
            );
        }
        no_progress(&cert, tb, limit)?;
    }
    if !report.leaves_checked() {
        // Not "proven": the leaves' values are the tables' to confirm.
        println!(
            "checked {} except its {} table leaves' values (give --tb with the ≤ {} tables)",
            cert.goal, report.table_leaves, cert.table_pieces
        );
    } else {
        println!("proven {}", cert.goal);
    }
    Ok(())
}

/// `--no-progress`: the runs without progress inside a checked certificate,
/// the table leaves adding their distance to progress; under rules where a
/// progress move can be taken back (classic), also with their distance to
/// the end where the folder has distance tables, which covers repetition.
fn no_progress(cert: &alq_solver::Certificate, tb: &alq_tablebase::Tablebase, limit: u32) -> anyhow::Result<()> {
    use alq_solver::Leaves;
    let start = std::time::Instant::now();
    let report = match alq_solver::check_no_progress(cert, tb, limit, Leaves::Progress) {
        Err(alq_solver::NoProgressError::DrawGoal { goal }) => {
            println!("no-progress rule {limit}: {goal} holds under it too (the rule only adds draws)");
            return Ok(());
        }
        other => other?,
    };
    print_runs(&report, "distance to progress", start.elapsed().as_secs_f64());
    if !report.holds() {
        bail!(
            "no-progress rule {limit}: not shown ({} of {} reset positions have a longer run; the certificate does not show {} under the rule)",
            report.over,
            report.resets,
            cert.goal
        );
    }
    println!("no-progress rule {limit}: holds ({} with at most {limit} plies between progress moves)", cert.goal);
    if cert.rules == alq_engine::RuleSet::BrainKing {
        println!("repetition: no position comes back on these lines (progress moves are never taken back, the distances to progress fall between them)");
        return Ok(());
    }
    if tb.coverage(alq_tablebase::Kind::Distance).is_none_or(|n| n < cert.table_pieces) {
        println!(
            "repetition: not covered (a forward move can be taken back under the {} rules; give distance tables of ≤ {} pieces in the same folder to check the runs with distances to the end)",
            cert.rules, cert.table_pieces
        );
        return Ok(());
    }
    let start = std::time::Instant::now();
    let report = alq_solver::check_no_progress(cert, tb, limit, Leaves::End)?;
    print_runs(&report, "distance to the end", start.elapsed().as_secs_f64());
    if report.holds() {
        println!(
            "no-progress rule {limit} and repetition: hold (with the tables' fastest wins after each leaf no position occurs more than twice, and no run reaches {limit})"
        );
    } else {
        println!(
            "repetition: not covered ({} of {} reset positions have runs over {limit} with the distances to the end)",
            report.over, report.resets
        );
    }
    Ok(())
}

fn print_runs(report: &alq_solver::NoProgressReport, leaves: &str, seconds: f64) {
    let length = |n: u32| {
        if n == alq_solver::no_progress::CURSED {
            "unbounded (a cursed table leaf)".to_string()
        } else {
            format!("{n} plies")
        }
    };
    println!(
        "no-progress runs, table leaves by their {leaves}: {} reset positions (the root and every position after a progress move), {} table leaves (longest {}), {seconds:.3} s",
        report.resets, report.table_leaves, report.longest_leaf
    );
    let line: Vec<String> = report.line.iter().map(ToString::to_string).collect();
    let line = if line.is_empty() { format!("(the table leaf's own {leaves})") } else { line.join(" ") };
    println!("longest run without progress {} from {}: {line}", length(report.longest), report.worst);
}

/// What a certificate's table leaves lean on, for the check's report.
fn leaves_text(cert: &alq_solver::Certificate, tb: Option<&std::path::Path>) -> String {
    match (cert.table_pieces, tb) {
        (0, _) => "tables none (no table leaves)".to_string(),
        (k, Some(dir)) => format!("tables {k} (leaves probed in {})", dir.display()),
        (k, None) => format!("tables {k} (leaves not probed: no --tb)"),
    }
}
