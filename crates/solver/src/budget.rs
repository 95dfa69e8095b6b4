//! What a search may spend.

use std::time::{Duration, Instant};

/// How much the search may spend. The search stops at whichever limit comes
/// first; without node and time limits it runs until the value is exact or
/// the memory limit is reached.
#[derive(Clone, Copy, Debug)]
pub struct Budget {
    /// Positions expanded (their moves generated) in this call.
    pub nodes: Option<u64>,
    pub time: Option<Duration>,
    /// Bytes the explored graph may take (see [`crate::SolveResult::memory_bytes`]).
    pub memory_bytes: usize,
}

impl Budget {
    /// Default memory limit: 256 MiB.
    pub const DEFAULT_MEMORY: usize = 256 << 20;

    pub fn nodes(nodes: u64) -> Budget {
        Budget { nodes: Some(nodes), time: None, memory_bytes: Budget::DEFAULT_MEMORY }
    }

    pub fn time(time: Duration) -> Budget {
        Budget { nodes: None, time: Some(time), memory_bytes: Budget::DEFAULT_MEMORY }
    }

    /// `nodes` and/or `movetime_ms` milliseconds a search, with `hash_mb`
    /// MiB of graph memory: the limits as the tools' `--nodes`,
    /// `--movetime` and `--hash` (or a config's keys) give them.
    pub fn limits(nodes: Option<u64>, movetime_ms: Option<u64>, hash_mb: u64) -> Budget {
        Budget {
            nodes,
            time: movetime_ms.map(Duration::from_millis),
            memory_bytes: usize::try_from(hash_mb).unwrap_or(usize::MAX).saturating_mul(1 << 20),
        }
    }

    /// Whether a search that has expanded `nodes` positions since `start`
    /// and would next hold `memory` bytes must stop (the clock is read
    /// every 256 nodes).
    pub(crate) fn spent(&self, nodes: u64, start: Instant, memory: usize) -> bool {
        self.spent_keeping(nodes, start, memory, Duration::ZERO)
    }

    /// As [`Budget::spent`], stopping early enough to keep `reserve` of the
    /// time for the work that must follow the last expansion (the analysis
    /// of the graph and keeping what it settled), so that the whole search
    /// ends within its time.
    pub(crate) fn spent_keeping(&self, nodes: u64, start: Instant, memory: usize, reserve: Duration) -> bool {
        let over_nodes = self.nodes.is_some_and(|n| nodes >= n);
        let over_time =
            nodes.is_multiple_of(256) && self.time.is_some_and(|t| start.elapsed().saturating_add(reserve) >= t);
        over_nodes || over_time || memory >= self.memory_bytes
    }

    /// The share `1 / parts` of what is left of this budget after `nodes`
    /// spent since `start`: the budget of one of `parts` questions still to
    /// ask that share one budget (time left over by one passes to the
    /// next). A limit used up gives 0.
    pub fn share(&self, nodes: u64, start: Instant, parts: usize) -> Budget {
        let parts = parts.max(1);
        Budget {
            nodes: self.nodes.map(|n| n.saturating_sub(nodes).div_ceil(parts as u64)),
            time: self.time.map(|t| t.saturating_sub(start.elapsed()) / u32::try_from(parts).unwrap_or(u32::MAX)),
            memory_bytes: self.memory_bytes,
        }
    }

    /// Whether nothing is left of a limit (a question with this budget is
    /// not asked).
    pub fn is_spent(&self) -> bool {
        self.nodes == Some(0) || self.time == Some(Duration::ZERO)
    }
}
