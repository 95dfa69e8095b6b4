//! Parsing evaluator names given on the command line.

use alq_engine::{Evaluator, Searcher};
use alq_selfplay::{EvalSpec, TablesSpec};

/// `hce` or `hce@name=value,...` with handcrafted weights.
pub fn parse_evaluator(spec: &str) -> anyhow::Result<Box<dyn Evaluator>> {
    Ok(EvalSpec::parse(spec)?.build())
}

/// Opens `--tb DIR`, if given.
pub fn open_tables(dir: Option<&std::path::Path>) -> anyhow::Result<Option<TablesSpec>> {
    dir.map(|d| TablesSpec::open(&d.to_string_lossy()).map_err(anyhow::Error::msg)).transpose()
}

/// Gives a searcher the tables of `--tb`, if any.
pub fn attach_tables<E: Evaluator>(searcher: &mut Searcher<E>, tables: Option<&TablesSpec>) {
    searcher.set_tables(tables.map(|t| std::sync::Arc::clone(&t.tables)));
}
