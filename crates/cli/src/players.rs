//! Parsing evaluator names and table folders given on the command line.

use alq_engine::{Evaluator, RuleSet, Searcher};
use alq_play::{EvalSpec, TablesSpec};

/// `hce`, `hce@name=value,...` with handcrafted weights, `nn` or a network
/// file; a network trained for other rules than `rules` is refused.
pub fn parse_evaluator(spec: &str, rules: RuleSet) -> anyhow::Result<Box<dyn Evaluator>> {
    let eval = EvalSpec::parse(spec)?;
    eval.check_rules(rules).map_err(|e| {
        let own = eval.rules().unwrap_or_default();
        anyhow::anyhow!("evaluator {spec}: {e} (pass --rules {own}, or a network trained for {rules})")
    })?;
    Ok(eval.build())
}

/// Opens `--tb DIR`, if given; tables built for other rules than `rules`
/// are refused.
pub fn open_tables(dir: Option<&std::path::Path>, rules: RuleSet) -> anyhow::Result<Option<TablesSpec>> {
    let Some(dir) = dir else { return Ok(None) };
    let spec = TablesSpec::open(&dir.to_string_lossy()).map_err(anyhow::Error::msg)?;
    spec.check_rules(rules).map_err(|e| anyhow::anyhow!("{e} (pass --rules {})", spec.tables.rules()))?;
    Ok(Some(spec))
}

/// Opens a tablebase folder for the exact-value tools (`solve`, `tb`, the
/// report's and the book's exact values); with a rule set, tables built for
/// another are refused.
pub fn open_tablebase(dir: &std::path::Path, rules: Option<RuleSet>) -> anyhow::Result<alq_tablebase::Tablebase> {
    use anyhow::Context;
    let tb = alq_tablebase::Tablebase::open(dir)
        .with_context(|| format!("cannot open the tablebase in {}", dir.display()))?;
    if let Some(rules) = rules {
        tb.expect_rules(rules)?;
    }
    Ok(tb)
}

/// Gives a searcher the tables of `--tb`, if any.
pub fn attach_tables<E: Evaluator>(searcher: &mut Searcher<E>, tables: Option<&TablesSpec>) {
    searcher.set_tables(tables.map(|t| std::sync::Arc::clone(&t.tables)));
}

/// Tables for an oracle beside a player's or searcher's: the process-wide
/// copy of `dir` ([`alq_tablebase::Tablebase::shared`]), so they are read
/// once; tables of other rules than `rules` are refused.
pub fn shared_tablebase(
    dir: Option<&std::path::Path>,
    rules: RuleSet,
) -> anyhow::Result<Option<std::sync::Arc<alq_tablebase::Tablebase>>> {
    let Some(dir) = dir else { return Ok(None) };
    let tb = alq_tablebase::Tablebase::shared(dir)
        .map_err(|e| anyhow::anyhow!("cannot open the tablebase in {}: {e}", dir.display()))?;
    tb.expect_rules(rules)?;
    Ok(Some(tb))
}

/// The oracle of `alq oracle`, `analyze` and `play`: over `tb`, guided by
/// `eval`, with the shipped proofs unless `shipped` is false and the user's
/// store (read, then written back); returns it with the store's positions.
/// An oracle that only looks up (it is never asked to search): the tables,
/// the shipped proofs and atlas when `shipped`, and `stores`. Also returns
/// whether shipped proofs were read (none under the classic rules).
pub fn lookup_oracle<'a>(
    rules: RuleSet,
    tb: Option<&'a alq_tablebase::Tablebase>,
    shipped: bool,
    stores: &[std::path::PathBuf],
) -> anyhow::Result<(alq_oracle::Oracle<'a>, bool)> {
    let (oracle, _) = open_oracle(rules, tb, "hce", alq_solver::Budget::nodes(1), false, None)?;
    let read_shipped = shipped && oracle.read_shipped()? > 0;
    for file in stores {
        oracle.read_store(file)?;
    }
    Ok((oracle, read_shipped))
}

pub fn open_oracle<'a>(
    rules: RuleSet,
    tb: Option<&'a alq_tablebase::Tablebase>,
    eval: &str,
    budget: alq_solver::Budget,
    shipped: bool,
    store: Option<&std::path::Path>,
) -> anyhow::Result<(alq_oracle::Oracle<'a>, usize)> {
    let mut oracle = alq_oracle::Oracle::new(rules, tb, parse_evaluator(eval, rules)?, budget);
    if shipped {
        oracle.read_shipped()?;
    }
    let read = match store {
        Some(file) => oracle.use_store(file)?,
        None => 0,
    };
    Ok((oracle, read))
}
