//! `alq accuracy`: every move of every game graded against perfect play.

use std::path::PathBuf;
use std::time::Duration;

use anyhow::{bail, Context};
use clap::Args;

use alq_oracle::Oracle;
use alq_play::{grade_game_by, GradeReport, GradedGame, Phase, ValueCache};
use alq_records::GameRecord;
use alq_solver::Budget;

/// Grades every move of every game against perfect play: the oracle values
/// the position before each move and after it, and the move kept the
/// mover's exact value, threw away half a point (a win to a draw, a draw to
/// a loss), a whole point (a win to a loss), or is `unknown` when the
/// oracle cannot tell within the budget (never guessed).
///
/// The oracle answers from the `--tb` tables, the shipped proofs and the
/// stores, then by search within `--movetime` (or `--nodes`) per position.
/// Book and random opening moves of the records are not the players' and
/// are not graded.
///
/// Output, per player (by the names in the records): moves, kept, half and
/// full points lost, unknown; the error rate among the known moves and the
/// errors per game with 95 % intervals; the errors at least a game (those
/// found, plus one for each stretch between two known values over which the
/// player's value fell without an error of its found there: a game from a
/// drawn start that the player lost holds one); how often the player made the
/// game's first error, and at which ply on average; and the same counts per
/// phase (opening: plies 1–10; endgame: ≤ 12 pieces on the board; middle:
/// the rest). `--json` prints one object instead.
#[derive(Args)]
pub struct AccuracyArgs {
    /// Games files (records format, as written by `alq selfplay`, `alq
    /// match --save-games` or `alq study`).
    #[arg(long, value_name = "FILE", num_args = 1.., required = true)]
    games: Vec<PathBuf>,
    /// Skip records that do not replay (they are counted and named) instead
    /// of stopping at the first.
    #[arg(long)]
    skip_bad: bool,
    /// Endgame tables (any kind): positions they cover are valued at once,
    /// and are leaves of the grading searches.
    #[arg(long, value_name = "DIR")]
    tb: Option<PathBuf>,
    #[command(flatten)]
    oracle: GradeOracleArgs,
    /// Search budget per position, in milliseconds (default 1,000 when
    /// --nodes is not given).
    #[arg(long, value_name = "MS", conflicts_with = "nodes", value_parser = clap::value_parser!(u64).range(1..))]
    movetime: Option<u64>,
    /// Search budget per position, in expanded positions.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    nodes: Option<u64>,
    /// One JSON object: {"games", "values" ("infinite", or "rule" with
    /// --rules-values), "players": {NAME: {"games", "moves",
    /// "kept", "half_lost", "full_lost", "unknown", "phases": {PHASE: {…}},
    /// "errors_per_game", "implied_errors", "errors_at_least_per_game",
    /// "error_rate", "first_errors", …}}, "first_errors":
    /// [{"game", "ply", "side", "player", "verdict", "phase", "pieces"} or
    /// null, one per game]}.
    #[arg(long)]
    json: bool,
    /// No progress bar.
    #[arg(long)]
    quiet: bool,
    #[command(flatten)]
    rules: crate::RulesArg,
}

/// Where the grading oracle's answers come from (shared by `alq accuracy`
/// and `alq match --grade`).
#[derive(Args, Clone)]
pub struct GradeOracleArgs {
    /// The user's proven-position store: read if it exists, written back
    /// with what the grading's searches settled.
    #[arg(long, value_name = "FILE")]
    pub store: Option<PathBuf>,
    /// Proven-position stores read and never written. Repeatable.
    #[arg(long, value_name = "FILE")]
    pub read_store: Vec<PathBuf>,
    /// Memory for a grading search's graph in MiB.
    #[arg(long, value_name = "MB", default_value_t = 1024, value_parser = clap::value_parser!(u64).range(1..))]
    pub grade_hash: u64,
    /// Evaluator that guides the grading searches: `hce`, `nn` or a network
    /// file.
    #[arg(long, value_name = "EVAL", default_value = "hce")]
    pub grade_eval: String,
    /// Leave out the shipped proofs (the grading oracle's).
    #[arg(long)]
    pub no_shipped: bool,
    /// Judge moves by values under the 60-ply no-progress rule, at the
    /// game's own count of plies without a capture or forward move, where
    /// the `--tb` folder holds distance-to-progress tables covering the
    /// position (`alq tb build --kind dtz`; a win the rule turns into a draw
    /// counts as a draw); elsewhere by the infinite game's values, as
    /// without the flag. Up to 10 pieces (either rule set) the two differ
    /// only where the count is already high: no endgame changes value at
    /// count 0.
    #[arg(long)]
    pub rules_values: bool,
}

impl GradeOracleArgs {
    /// The values moves are judged by.
    pub fn values(&self) -> alq_play::Values {
        if self.rules_values {
            alq_play::Values::Rule
        } else {
            alq_play::Values::Infinite
        }
    }

    /// The budget per position: `nodes` or `ms` milliseconds.
    pub fn budget(&self, ms: Option<u64>, nodes: Option<u64>) -> Budget {
        crate::oracle::budget(nodes, ms, Duration::from_millis(1000), self.grade_hash)
    }

    /// The oracle over `tb`, with the shipped proofs and the stores read.
    pub fn open<'a>(
        &self,
        rules: alq_engine::RuleSet,
        tb: Option<&'a alq_tablebase::Tablebase>,
        budget: Budget,
    ) -> anyhow::Result<Oracle<'a>> {
        let (oracle, read) =
            crate::players::open_oracle(rules, tb, &self.grade_eval, budget, !self.no_shipped, self.store.as_deref())?;
        if let Some(file) = &self.store {
            eprintln!("store {}: {read} positions", file.display());
        }
        for file in &self.read_store {
            let n = oracle.read_store(file)?;
            eprintln!("store {} (read only): {n} positions", file.display());
        }
        Ok(oracle)
    }
}

/// Grades `records` with `oracle`, a bar counting games unless `quiet`.
pub fn grade_records(
    oracle: &Oracle<'_>,
    records: &[GameRecord],
    budget: Budget,
    values: alq_play::Values,
    quiet: bool,
) -> anyhow::Result<(GradeReport, Vec<GradedGame>)> {
    let bar = crate::progress::bar(quiet, records.len() as u64, "{bar:30} {pos}/{len} games graded, {msg} (eta {eta})");
    let mut cache = ValueCache::default();
    let mut report = GradeReport::default();
    let mut graded = Vec::with_capacity(records.len());
    for record in records {
        let game = grade_game_by(oracle, &mut cache, record, budget, values)?;
        report.add(&game);
        graded.push(game);
        bar.inc(1);
        let moves: u64 = report.players.values().map(|p| p.counts.moves).sum();
        let unknown: u64 = report.players.values().map(|p| p.counts.unknown).sum();
        bar.set_message(format!("{moves} moves, {unknown} unknown"));
        oracle.save_if_due()?;
    }
    bar.finish_and_clear();
    oracle.save()?;
    Ok((report, graded))
}

/// The grades as one JSON object (see `alq accuracy --json`).
pub fn grades_json(report: &GradeReport, games: &[GradedGame]) -> anyhow::Result<serde_json::Value> {
    let mut out = serde_json::to_value(report)?;
    out["first_errors"] = games
        .iter()
        .map(|g| match g.first_error() {
            None => serde_json::Value::Null,
            Some(m) => serde_json::json!({
                "game": g.id,
                "ply": m.ply,
                "side": m.side.name(),
                "player": g.player(m.side),
                "verdict": m.verdict.name(),
                "phase": m.phase.name(),
                "pieces": m.pieces,
            }),
        })
        .collect();
    Ok(out)
}

/// The grades as a table, a row per player and one per phase under it.
pub fn print_grades(report: &GradeReport) {
    println!(
        "graded {} games: {} without a value-losing move, {} with an unknown move before the first error found",
        report.games, report.games_without_error, report.games_with_unknown_first
    );
    println!(
        "first errors: White {} Black {} nobody {} (mean ply {})",
        report.white_errs_first,
        report.black_errs_first,
        report.games_without_error,
        report.mean_first_error_ply.map_or("-".to_string(), |v| format!("{v:.1}"))
    );
    let marks: Vec<String> = [0usize, 2, 4, 6, 8, 10, 15, 20, 30, 40, 60]
        .iter()
        .filter_map(|&k| report.drawn_after.get(k).map(|[d, known, going]| format!("{k}: {d}/{known}/{going}")))
        .collect();
    println!("drawn by exact value after ply k (drawn/known/still going): {}", marks.join("  "));
    println!(
        "{:<28} {:>6} {:>7} {:>7} {:>6} {:>6} {:>7}  {:<24} {:<22} {:<22} {:>6} {:>6}",
        "player",
        "games",
        "moves",
        "kept",
        "half",
        "full",
        "unknown",
        "error rate [95%]",
        "errors/game [95%]",
        "at least/game [95%]",
        "first",
        "ply"
    );
    for (name, p) in &report.players {
        let c = &p.counts;
        let r = c.error_rate();
        println!(
            "{:<28} {:>6} {:>7} {:>7} {:>6} {:>6} {:>7}  {:<24} {:<22} {:<22} {:>6} {:>6}",
            name,
            p.games,
            c.moves,
            c.kept,
            c.half_lost,
            c.full_lost,
            c.unknown,
            percent(&r),
            format!("{:.3} [{:.3}, {:.3}]", p.errors_per_game, p.errors_per_game_ci95[0], p.errors_per_game_ci95[1]),
            format!(
                "{:.3} [{:.3}, {:.3}]",
                p.errors_at_least_per_game, p.errors_at_least_per_game_ci95[0], p.errors_at_least_per_game_ci95[1]
            ),
            p.first_errors,
            p.mean_first_error_ply.map_or("-".to_string(), |v| format!("{v:.1}")),
        );
        for phase in Phase::ALL {
            let c = &p.phases[phase.name()];
            println!(
                "  {:<26} {:>6} {:>7} {:>7} {:>6} {:>6} {:>7}  {:<24}",
                phase.name(),
                "",
                c.moves,
                c.kept,
                c.half_lost,
                c.full_lost,
                c.unknown,
                percent(&c.error_rate()),
            );
        }
    }
}

/// A rate in percent with its interval.
fn percent(r: &alq_stats::Rate) -> String {
    format!("{:.2}% [{:.2}, {:.2}]", 100.0 * r.rate, 100.0 * r.ci95[0], 100.0 * r.ci95[1])
}

pub fn run(args: AccuracyArgs) -> anyhow::Result<()> {
    let (games, bad) = alq_records::read_all(&args.games, args.skip_bad)?;
    for e in &bad {
        eprintln!("skipped: {e}");
    }
    // The rules: --rules, else those of the first game.
    let rules = match (args.rules.rules, games.first()) {
        (Some(rules), _) => rules,
        (None, Some(g)) => g.game.rules(),
        (None, None) => args.rules.get(),
    };
    let mut records = Vec::with_capacity(games.len());
    for g in games {
        g.record.expect_rules(rules).with_context(|| format!("game {}", g.record.id))?;
        records.push(g.record);
    }
    if records.is_empty() {
        bail!(
            "no games to grade in {}",
            args.games.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(", ")
        );
    }
    let budget = args.oracle.budget(args.movetime, args.nodes);
    let tb = args.tb.as_deref().map(|dir| crate::players::open_tablebase(dir, Some(rules))).transpose()?;
    let oracle = args.oracle.open(rules, tb.as_ref(), budget)?;
    if args.oracle.rules_values && tb.as_ref().is_none_or(|t| t.coverage(alq_tablebase::Kind::Dtz).is_none()) {
        bail!("--rules-values needs distance-to-progress tables in --tb (alq tb build --kind dtz)");
    }
    let (report, graded) = grade_records(&oracle, &records, budget, args.oracle.values(), args.quiet)?;
    let values = if args.oracle.rules_values { "rule" } else { "infinite" };
    if args.json {
        let mut json = grades_json(&report, &graded)?;
        json["values"] = values.into();
        println!("{json}");
    } else {
        if args.oracle.rules_values {
            let n = tb.as_ref().and_then(|t| t.coverage(alq_tablebase::Kind::Dtz)).unwrap_or(0);
            println!("values: under the 60-ply no-progress rule at each game's count where the dtz tables (≤ {n} pieces) cover the position, the infinite game's elsewhere");
        }
        print_grades(&report);
    }
    Ok(())
}
