//! Exact training targets: the values the endgame tables and proven-position
//! stores give a position, wherever they give one.

use std::path::Path;

use alq_engine::{EndgameTables, Hce, HceWeights, Position, RuleSet};
use alq_oracle::Oracle;
use alq_solver::Budget;
use alq_tablebase::Tablebase;

use crate::error::TrainError;

/// Where a run's exact targets come from: tables, stores, both or neither.
pub struct Labels<'a> {
    tables: Option<&'a dyn EndgameTables>,
    /// An oracle over the stores only; it is asked what it knows and never
    /// searches.
    stores: Option<Oracle<'a>>,
}

impl<'a> Labels<'a> {
    /// No exact targets.
    pub fn none() -> Labels<'static> {
        Labels { tables: None, stores: None }
    }

    /// The exact values of `tables` (none when `None`).
    pub fn tables(tables: Option<&'a dyn EndgameTables>) -> Labels<'a> {
        Labels { tables, stores: None }
    }

    /// The exact values of `tables` and of the proven-position stores at
    /// `stores` (files as `alq label`, `alq oracle --store` and `alq atlas`
    /// write them), under `rules`.
    ///
    /// # Errors
    ///
    /// A store that is missing, damaged, of other rules, or that contradicts
    /// another, naming the file and the `stores` key.
    pub fn open(rules: RuleSet, tables: Option<&'a Tablebase>, stores: &[String]) -> Result<Labels<'a>, TrainError> {
        let dyn_tables = tables.map(|t| t as &dyn EndgameTables);
        if stores.is_empty() {
            return Ok(Labels::tables(dyn_tables));
        }
        let oracle = Oracle::new(rules, None, Box::new(Hce::new(HceWeights::default())), Budget::nodes(1));
        for store in stores {
            oracle.read_store(Path::new(store.trim())).map_err(|e| TrainError::Config(format!("stores: {e}")))?;
        }
        Ok(Labels { tables: dyn_tables, stores: Some(oracle) })
    }

    /// Positions the stores settle a question of (0 without stores).
    pub fn stored_positions(&self) -> usize {
        self.stores.as_ref().map_or(0, |o| o.known_positions())
    }

    /// The exact value of `pos` for its side to move (win 1, draw 0.5, loss
    /// 0) where the tables or a store give one; `None` elsewhere, and for a
    /// one-sided bound.
    pub fn exact(&self, pos: &Position) -> Option<f32> {
        if let Some(exact) = alq_records::exact_target(self.tables, pos) {
            return Some(exact);
        }
        let (value, _) = self.stores.as_ref()?.known(pos).ok()??;
        value.wdl().map(alq_records::wdl_target)
    }
}
