//! Parsing evaluator names given on the command line.

use anyhow::{bail, Context};

use alq_engine::{Evaluator, Hce, HceWeights};

/// `hce` or `hce@name=value,...` with handcrafted weights.
pub fn parse_evaluator(spec: &str) -> anyhow::Result<Box<dyn Evaluator>> {
    let (name, params) = spec.split_once('@').unwrap_or((spec, ""));
    match name {
        "hce" => {
            let mut weights = HceWeights::default();
            for pair in params.split(',').filter(|p| !p.is_empty()) {
                let (key, value) = pair.split_once('=').with_context(|| format!("evaluator {spec:?}: expected name=value, found {pair:?}"))?;
                let value: i32 = value.parse().with_context(|| format!("evaluator {spec:?}: {value:?} is not an integer"))?;
                if !weights.set(key, value) {
                    bail!("evaluator {spec:?}: unknown weight {key:?} (known: {})", HceWeights::NAMES.join(", "));
                }
            }
            Ok(Box::new(Hce::new(weights)))
        }
        other => bail!("unknown evaluator {other:?}: expected `hce`"),
    }
}
