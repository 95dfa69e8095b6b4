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
        let over_nodes = self.nodes.is_some_and(|n| nodes >= n);
        let over_time = nodes.is_multiple_of(256) && self.time.is_some_and(|t| start.elapsed() >= t);
        over_nodes || over_time || memory >= self.memory_bytes
    }
}
