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
