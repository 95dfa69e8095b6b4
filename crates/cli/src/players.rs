//! Parsing evaluator names and table folders given on the command line.

use alq_engine::{Evaluator, RuleSet, Searcher};
use alq_selfplay::{EvalSpec, TablesSpec};

/// `hce`, `hce@name=value,...` with handcrafted weights, `nn` or a network
/// file; a network trained for other rules than `rules` is refused.
pub fn parse_evaluator(spec: &str, rules: RuleSet) -> anyhow::Result<Box<dyn Evaluator>> {
    let eval = EvalSpec::parse(spec)?;
    if let Some(own) = eval.rules().filter(|&r| r != rules) {
        anyhow::bail!(
            "evaluator {spec}: the network {} was trained for the {own} rules, not {rules} (pass --rules {own}, or a network trained for {rules})",
            eval.describe()
        );
    }
    Ok(eval.build())
}

/// Opens `--tb DIR`, if given; tables built for other rules than `rules`
/// are refused.
pub fn open_tables(dir: Option<&std::path::Path>, rules: RuleSet) -> anyhow::Result<Option<TablesSpec>> {
    let Some(dir) = dir else { return Ok(None) };
    let spec = TablesSpec::open(&dir.to_string_lossy()).map_err(anyhow::Error::msg)?;
    let own = spec.tables.rules();
    if own != rules {
        anyhow::bail!("the tables in {} were built for the {own} rules, not {rules} (pass --rules {own})", dir.display());
    }
    Ok(Some(spec))
}

/// Gives a searcher the tables of `--tb`, if any.
pub fn attach_tables<E: Evaluator>(searcher: &mut Searcher<E>, tables: Option<&TablesSpec>) {
    searcher.set_tables(tables.map(|t| std::sync::Arc::clone(&t.tables)));
}
