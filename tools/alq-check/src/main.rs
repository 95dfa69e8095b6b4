//! `alq-check [--threads T] [--build-tables K] [--no-progress] CERT...`: checks
//! proof certificates (plain or gzip-compressed; BrainKing or classic rules)
//! with its own move generator and tables (`--build-tables`: BrainKing's).
//! `--no-progress`: each win certificate must also win under the 60-ply
//! no-progress rule (its runs without progress measured, table leaves by its
//! own values under the rule). Exit 0 when every certificate holds, 2 on the
//! first fault of any (or bad arguments, or an unreadable file).

use std::process::ExitCode;
use std::time::Instant;

use alq_check::cert::read_file;
use alq_check::tables::class_size;
use alq_check::{Certificate, Report, Rules, Tables};

const USAGE: &str = "usage: alq-check [--threads T] [--build-tables K] [--no-progress] CERT...";

fn main() -> ExitCode {
    let ok = run().unwrap_or_else(|e| {
        eprintln!("alq-check: {e}");
        false
    });
    ExitCode::from(if ok { 0 } else { 2 })
}

/// Whether every certificate holds.
fn run() -> Result<bool, String> {
    let mut threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut build_k: Option<usize> = None;
    let mut no_progress = false;
    let mut files = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut number = |name: &str| -> Result<usize, String> {
            let v = args.next().ok_or(format!("{name} needs a number\n{USAGE}"))?;
            v.parse().map_err(|_| format!("{name}: bad number {v:?}\n{USAGE}"))
        };
        match a.as_str() {
            "--threads" => threads = number("--threads")?.clamp(1, 64),
            "--build-tables" => build_k = Some(number("--build-tables")?.min(alq_check::cert::MAX_TABLES)),
            "--no-progress" => no_progress = true,
            "-h" | "--help" => return Err(USAGE.into()),
            _ if a.starts_with('-') => return Err(format!("unknown option {a:?}\n{USAGE}")),
            _ => files.push(a),
        }
    }
    if files.is_empty() && build_k.is_none() {
        return Err(USAGE.into());
    }
    // Read every certificate first; the tables are built once for all.
    let mut certs = Vec::new();
    for f in &files {
        let cert = read_file(f.as_ref()).and_then(|text| Certificate::parse(&text));
        match cert.and_then(|c| c.within_reach().map(|()| c)) {
            Ok(c) => certs.push((f, c)),
            Err(e) => eprintln!("{f}: {e}"),
        }
    }
    let mut ok = certs.len() == files.len();
    // One table set per rule set (BrainKing's always, as before; classic's when a certificate needs it), each
    // built once for all its certificates and dropped before the next.
    for rules in [Rules::BrainKing, Rules::Classic] {
        let certs: Vec<_> = certs.iter().filter(|(_, c)| c.rules == rules).collect();
        if rules == Rules::Classic && certs.is_empty() {
            continue;
        }
        let label = if rules == Rules::Classic { "classic tables" } else { "tables" };
        let mut classes: Vec<(usize, usize)> = certs.iter().flat_map(|(_, c)| c.table_classes()).collect();
        if rules == Rules::BrainKing {
            classes.extend(build_k.map_or(vec![], Tables::up_to));
        }
        let plan = Tables::plan(&classes);
        let planned: usize = plan.iter().map(|&(w, b)| 2 * class_size(w, b)).sum();
        // Each class built with w > b serves its flipped class (b, w) too.
        let covered: usize = plan.iter().map(|&(w, b)| 2 * class_size(w, b) * if w == b { 1 } else { 2 }).sum();
        eprintln!("{label}: {} classes, {planned} positions, one byte each ({covered} with the flipped)", plan.len());
        let start = Instant::now();
        let tables = Tables::build_classes(rules, &classes, threads, true)?;
        eprintln!("{label}: built in {:.2}s on {threads} threads", start.elapsed().as_secs_f64());
        if let (Some(k), Rules::BrainKing) = (build_k, rules) {
            println!("built tables of up to {k} pieces: {covered} positions");
        }
        // Values under the no-progress rule, built once for every win certificate of these rules.
        let counted = (no_progress && certs.iter().any(|(_, c)| c.win)).then(|| {
            let start = Instant::now();
            let classes: Vec<_> = certs.iter().filter(|(_, c)| c.win).flat_map(|(_, c)| c.table_classes()).collect();
            let counted = alq_check::counted::Counted::build(rules, &classes, 60);
            eprintln!(
                "{label}: values under the 60-ply rule built in {:.2}s (one thread)",
                start.elapsed().as_secs_f64()
            );
            counted
        });
        for (f, cert) in certs {
            let start = Instant::now();
            match cert.check(&tables) {
                Ok(Report { goal, entries, table_leaves, end_leaves, unreachable }) => {
                    let (root, secs) = (cert.root.text(), start.elapsed().as_secs_f64());
                    let (rules, k) = (cert.rules.name(), cert.tables);
                    println!("{f}: rules {rules}, root {:016x} {root}, goal {goal}, tables {k}", cert.root.key());
                    println!("{f}: {entries} entries ({unreachable} not reached from the root), {table_leaves} table leaves, {end_leaves} end leaves, checked in {secs:.2}s");
                    println!("proven {goal}");
                    if let (Some(counted), true) = (&counted, cert.win) {
                        let start = Instant::now();
                        match cert.no_progress(counted) {
                            Ok(runs) if runs.over == 0 => {
                                let secs = start.elapsed().as_secs_f64();
                                println!("{f}: longest run without progress {} plies from {} ({} reset positions), {secs:.2}s", runs.longest, runs.worst.text(), runs.resets);
                                println!("no-progress rule 60: holds");
                            }
                            Ok(runs) => {
                                eprintln!("{f}: no-progress rule 60 not shown: {} of {} reset positions have longer runs (from {})", runs.over, runs.resets, runs.worst.text());
                                ok = false;
                            }
                            Err(e) => {
                                eprintln!("{f}: no-progress: {e}");
                                ok = false;
                            }
                        }
                    }
                }
                Err(e) => {
                    eprintln!("{f}: does not hold: {e}");
                    ok = false;
                }
            }
        }
    }
    Ok(ok)
}
