//! Exact values for training: the positions of self-play games valued by
//! the oracle within a small budget each, what the searches settle written
//! to one store that the trainer reads (`stores` under `[train]`).

use std::path::Path;
use std::sync::Mutex;

use alq_engine::Position;
use alq_solver::Budget;

use crate::atlas::{settle, PlyProgress, SettleOptions};
use crate::{Oracle, OracleError};

/// What a labelling run found.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct LabelReport {
    /// Positions asked about.
    pub positions: u64,
    /// Of those, known before any search (the end, the tables, the stores,
    /// earlier runs into the same store).
    pub known_before: u64,
    /// Of those, done so far (known before, or searched).
    pub done: u64,
    /// Of those, with an exact value (win, draw or loss): so far while the
    /// run goes, and at its end as the store knows them (a search settles
    /// other positions besides its own).
    pub exact: u64,
}

impl LabelReport {
    /// The share of the positions with an exact value (0 when there are none).
    pub fn exact_share(&self) -> f64 {
        self.exact as f64 / self.positions.max(1) as f64
    }
}

impl From<&PlyProgress> for LabelReport {
    fn from(p: &PlyProgress) -> LabelReport {
        LabelReport {
            positions: p.positions as u64,
            known_before: p.known_before as u64,
            done: p.done as u64,
            exact: p.exact as u64,
        }
    }
}

/// Values every position of `positions` with one of `oracles` (one per
/// worker thread, each using `store` as its store: see
/// [`crate::atlas::settle`]), each search within `budget`; positions the
/// oracles know already (exact or a bound) are not searched again, so a
/// rerun after a kill continues. At the end `store` exists and holds every
/// oracle's answers. `on_progress` is called after each position with the
/// counts so far.
///
/// # Errors
///
/// A table that cannot be read, or a store that cannot be written.
pub fn label(
    oracles: &[Oracle<'_>],
    store: &Path,
    positions: &[Position],
    budget: Budget,
    on_progress: &(dyn Fn(&LabelReport) + Sync),
) -> Result<LabelReport, OracleError> {
    let last = Mutex::new(LabelReport { positions: positions.len() as u64, ..LabelReport::default() });
    let tree = vec![positions.to_vec()];
    settle(oracles, Some(store), &tree, 0..=0, SettleOptions::new(budget), &|p| {
        let report = LabelReport::from(p);
        *last.lock().unwrap_or_else(|e| e.into_inner()) = report;
        on_progress(&report);
    })?;
    // Every oracle writes once more, one after the other, each merging with
    // the file: it then holds all of their answers (and exists, even when
    // nothing was settled); the first oracle reads it back.
    for oracle in oracles {
        oracle.save_now()?;
    }
    oracles[0].read_store(store)?;
    // A search settles more than the position it was asked about: count
    // again from what the store holds.
    let mut report = last.into_inner().unwrap_or_else(|e| e.into_inner());
    report.exact = 0;
    for pos in positions {
        if oracles[0].known(pos)?.is_some_and(|(v, _)| v.is_exact()) {
            report.exact += 1;
        }
    }
    Ok(report)
}
