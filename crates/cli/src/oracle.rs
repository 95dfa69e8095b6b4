//! `alq oracle`: the exact value of a position and of each of its moves.

use std::path::PathBuf;
use std::time::Duration;

use anyhow::bail;
use clap::Args;

use alq_oracle::{Answer, Oracle};
use alq_solver::Budget;

/// The exact win/draw/loss value of a position for its side to move, and
/// the value each legal move gives the side that plays it (a best move's
/// value is the position's).
///
/// Asked in this order: a position without a legal move is lost (`end`);
/// the `--tb` tables, for the positions they cover (`table`); the shipped
/// proofs, the stores of `--store` and `--read-store` and what this run
/// settled (`store`); then
/// threshold searches of the two win questions that decide the value
/// (`search`), within `--nodes` or `--movetime` for the whole answer (the
/// position first with half of it, then its moves sharing the rest). A value
/// is `win`, `draw`, `loss`, a bound (`≥draw`: the mover does not lose;
/// `≤draw`: the mover does not win), or `unknown` when the budget ran out:
/// never a guess. Values are those of the infinite game, as the tables'
/// (repetition and no-progress rules of games are not part of them).
///
/// Output: `value V source S nodes N time T s`, then one `MOVE V` line per
/// legal move, sorted as `alq moves` sorts; `--json` prints one object.
/// Where `--tb` holds distance-to-progress tables (`alq tb build --kind
/// dtz`) that cover the position, a `rule V` line gives its value under the
/// 60-ply no-progress rule (`win N`/`loss N`: N plies to the next capture or
/// forward move; `cursed-win`, `blessed-loss`, `draw`) and each move line
/// ends with its own (`"rule"` in JSON).
#[derive(Args)]
pub struct OracleArgs {
    /// Position text, ranks 5 to 1 then the side to move (default: the start).
    #[arg(long, value_name = "TEXT")]
    position: Option<String>,
    /// Moves to play from the position first, space-separated (`d2-c3 d4xd2`).
    #[arg(long, value_name = "LINE")]
    moves: Option<String>,
    /// Tablebase folder (any kind, any size present): positions it covers are
    /// answered by it and are leaves of the searches.
    #[arg(long, value_name = "DIR")]
    tb: Option<PathBuf>,
    /// The user's proven-position store: read if it exists, and written back
    /// (merged with the file as it is then, atomically) when searches
    /// settled something, at most every 10 s and at the end, so the next
    /// run's question is instant.
    #[arg(long, value_name = "FILE")]
    store: Option<PathBuf>,
    /// Proven-position stores read and never written (a shared store).
    /// Repeatable.
    #[arg(long, value_name = "FILE")]
    read_store: Vec<PathBuf>,
    /// Search budget of the whole answer in milliseconds: the position is
    /// asked with half of it, then its moves share what is left; a search
    /// stops early enough to end within it (see the margin in
    /// docs/tablebases-and-solving.md). Default 10,000 when --nodes is not
    /// given. With --positions, the budget of each position.
    #[arg(long, value_name = "MS", conflicts_with = "nodes")]
    movetime: Option<u64>,
    /// Search budget of the whole answer in expanded positions (shared as
    /// --movetime is). With --positions, the budget of each position.
    #[arg(long, value_name = "N")]
    nodes: Option<u64>,
    /// Memory for a search's graph in MiB.
    #[arg(long, value_name = "MB", default_value_t = 1024, value_parser = clap::value_parser!(u64).range(1..))]
    hash: u64,
    /// Evaluator that guides the searches: `hce`, `nn` or a network file.
    #[arg(long, value_name = "EVAL", default_value = "hce")]
    eval: String,
    /// Leave out the shipped proofs (data/proofs/shipped.store, embedded:
    /// what the start's and the first moves' certificates and the ply-6
    /// opening tree prove).
    #[arg(long)]
    no_shipped: bool,
    /// Only the position's value, not its moves'.
    #[arg(long)]
    no_moves: bool,
    /// Ask for every position of this file instead (one position text a
    /// line, anything after a tab ignored; `-` reads standard input): one
    /// `value V source S nodes N time T s position P` line each, then the
    /// latency figures (median, 90th and 99th percentile, the share settled
    /// within 0.1, 1, 10 and 60 s, the time past --movetime at the 99th
    /// percentile and at most) and the count by value and by source.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["position", "moves", "json"])]
    positions: Option<PathBuf>,
    /// One JSON object instead of lines: {"position", "value", "source",
    /// "nodes", "ms", "moves": [{"move", "value", "source", "nodes", "ms"}]},
    /// with "rule": {"value", "plies"} where distance-to-progress tables
    /// cover a position.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    rules: crate::RulesArg,
}

impl OracleArgs {
    fn budget(&self) -> Budget {
        budget(self.nodes, self.movetime, Duration::from_secs(10), self.hash)
    }
}

/// An oracle's budget per position: `nodes` and/or `movetime_ms`, or
/// `default_time` when neither is given; `hash_mb` of graph memory.
pub fn budget(nodes: Option<u64>, movetime_ms: Option<u64>, default_time: Duration, hash_mb: u64) -> Budget {
    let mut budget = Budget::limits(nodes, movetime_ms, hash_mb);
    if nodes.is_none() && movetime_ms.is_none() {
        budget.time = Some(default_time);
    }
    budget
}

fn answer_json(a: &Answer) -> serde_json::Value {
    serde_json::json!({
        "value": a.value.name(),
        "source": a.source.name(),
        "nodes": a.nodes,
        "ms": a.elapsed.as_secs_f64() * 1000.0,
    })
}

pub fn run(args: OracleArgs) -> anyhow::Result<()> {
    let rules = args.rules.get();
    let pos = match args.position.as_deref() {
        None => alq_engine::Position::start_of(rules),
        Some(text) => crate::parse_position(Some(text))?,
    };
    let pos = crate::play_line(pos, rules, args.moves.as_deref())?;
    if args.movetime == Some(0) || args.nodes == Some(0) {
        bail!("--movetime and --nodes must be at least 1");
    }
    let tb = args.tb.as_deref().map(|dir| crate::players::open_tablebase(dir, Some(rules))).transpose()?;
    let (oracle, read) = crate::players::open_oracle(
        rules,
        tb.as_ref(),
        &args.eval,
        args.budget(),
        !args.no_shipped,
        args.store.as_deref(),
    )?;
    for file in &args.read_store {
        let n = oracle.read_store(file)?;
        eprintln!("store {} (read only): {n} positions", file.display());
    }
    if let Some(file) = &args.store {
        eprintln!("store {}: {read} positions", file.display());
    }
    if let Some(file) = &args.positions {
        return run_positions(&oracle, file, args.budget().time);
    }
    let (value, moves) =
        if args.no_moves { (oracle.value(&pos)?, Vec::new()) } else { oracle.value_and_moves(&pos)? };
    // Under the 60-ply no-progress rule, where distance-to-progress tables
    // cover the position (a move's: the value for the side that plays it).
    let rule = |p: &alq_engine::Position| oracle.rule_value(p);
    let rule_of_move =
        |mv: alq_engine::Move| rule(&pos.play(mv)).map(|r| r.for_mover(mv.is_progress(pos.side_to_move())));
    if args.json {
        let mut out = answer_json(&value);
        out["position"] = pos.to_string().into();
        if let Some(r) = rule(&pos) {
            out["rule"] = rule_json(r);
        }
        out["moves"] = moves
            .iter()
            .map(|(mv, a)| {
                let mut m = answer_json(a);
                m["move"] = mv.to_string().into();
                if let Some(r) = rule_of_move(*mv) {
                    m["rule"] = rule_json(r);
                }
                m
            })
            .collect();
        println!("{out}");
    } else {
        println!(
            "value {} source {} nodes {} time {:.3} s",
            value.value,
            value.source,
            value.nodes,
            value.elapsed.as_secs_f64()
        );
        if let Some(r) = rule(&pos) {
            println!("rule {r}");
        }
        for (mv, a) in &moves {
            match rule_of_move(*mv) {
                Some(r) => println!("{mv} {} rule {r}", a.value),
                None => println!("{mv} {}", a.value),
            }
        }
    }
    Ok(())
}

/// `{"value": "win", "plies": 12}`: a value under the no-progress rule
/// (`plies` to the next progress move, for wins and losses under the rule).
fn rule_json(d: alq_tablebase::Dtz) -> serde_json::Value {
    use alq_tablebase::Dtz;
    match d {
        Dtz::Win(n) | Dtz::Loss(n) => serde_json::json!({ "value": d.name(), "plies": n }),
        _ => serde_json::json!({ "value": d.name() }),
    }
}

/// `--positions FILE`: every position's value and the latency figures.
fn run_positions(oracle: &Oracle<'_>, file: &std::path::Path, time: Option<Duration>) -> anyhow::Result<()> {
    use anyhow::Context;
    use std::collections::BTreeMap;
    let text = if file.as_os_str() == "-" {
        std::io::read_to_string(std::io::stdin()).context("reading standard input")?
    } else {
        std::fs::read_to_string(file).with_context(|| format!("cannot read {}", file.display()))?
    };
    let mut times = Vec::new();
    let mut by_value: BTreeMap<&str, usize> = BTreeMap::new();
    let mut by_source: BTreeMap<&str, usize> = BTreeMap::new();
    for (n, line) in text.lines().enumerate() {
        let field = line.split('\t').next().unwrap_or("").trim();
        if field.is_empty() || field.starts_with('#') {
            continue;
        }
        let pos: alq_engine::Position = field.parse().with_context(|| format!("{}: line {}", file.display(), n + 1))?;
        let a = oracle.value(&pos)?;
        println!(
            "value {} source {} nodes {} time {:.3} s position {pos}",
            a.value,
            a.source,
            a.nodes,
            a.elapsed.as_secs_f64()
        );
        times.push(a.elapsed.as_secs_f64());
        *by_value.entry(a.value.name()).or_default() += 1;
        *by_source.entry(a.source.name()).or_default() += 1;
    }
    if times.is_empty() {
        bail!("{}: no positions", file.display());
    }
    let count = times.len();
    let within = |limit: f64| 100.0 * times.iter().filter(|&&t| t <= limit).count() as f64 / count as f64;
    let (w01, w1, w10, w60) = (within(0.1), within(1.0), within(10.0), within(60.0));
    times.sort_by(f64::total_cmp);
    let pct = |p: f64| times[((p / 100.0 * count as f64).ceil() as usize).clamp(1, count) - 1];
    println!("positions {count}");
    println!("time p50 {:.3} s p90 {:.3} s p99 {:.3} s max {:.3} s", pct(50.0), pct(90.0), pct(99.0), times[count - 1]);
    println!("within 0.1 s {w01:.1} % 1 s {w1:.1} % 10 s {w10:.1} % 60 s {w60:.1} %");
    if let Some(limit) = time.map(|t| t.as_secs_f64()) {
        // Time past the budget, over every position (0 for those answered
        // within it): how well the searches keep their budget.
        let over = |t: f64| (t - limit).max(0.0);
        let past = times.iter().filter(|&&t| t > limit).count();
        println!(
            "over budget p99 {:.3} s max {:.3} s ({past} positions past {limit:.3} s)",
            over(pct(99.0)),
            over(times[count - 1])
        );
    }
    let list = |m: &BTreeMap<&str, usize>| m.iter().map(|(k, v)| format!("{k} {v}")).collect::<Vec<_>>().join(" ");
    println!("values {}", list(&by_value));
    println!("sources {}", list(&by_source));
    Ok(())
}
