//! Parsing evaluator names given on the command line.

use alq_engine::Evaluator;
use alq_selfplay::EvalSpec;

/// `hce` or `hce@name=value,...` with handcrafted weights.
pub fn parse_evaluator(spec: &str) -> anyhow::Result<Box<dyn Evaluator>> {
    Ok(EvalSpec::parse(spec)?.build())
}
