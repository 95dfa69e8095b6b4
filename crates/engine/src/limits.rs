//! [`Limits`]: when a search stops, and how long to think on a clock.

use std::fmt;
use std::time::Duration;

/// When to stop searching. With only `depth` or `nodes` set the search is
/// deterministic; `movetime` depends on the machine. With nothing set the
/// search runs to [`MAX_PLY`](crate::MAX_PLY) or until it proves the result.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Limits {
    pub depth: Option<u32>,
    pub nodes: Option<u64>,
    pub movetime: Option<Duration>,
}

impl Limits {
    /// Search to `depth` plies (forced captures at the horizon not counted).
    pub fn depth(depth: u32) -> Limits {
        Limits { depth: Some(depth), ..Limits::default() }
    }

    /// Stop once about `nodes` nodes are searched (after depth 1).
    pub fn nodes(nodes: u64) -> Limits {
        Limits { nodes: Some(nodes), ..Limits::default() }
    }

    /// Stop after `time` (after depth 1); see [`time_for_move`].
    pub fn movetime(time: Duration) -> Limits {
        Limits { movetime: Some(time), ..Limits::default() }
    }
}

impl fmt::Display for Limits {
    /// `nodes=N`, `depth=D`, `movetime=MS`, comma-separated.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut parts = Vec::new();
        if let Some(d) = self.depth {
            parts.push(format!("depth={d}"));
        }
        if let Some(n) = self.nodes {
            parts.push(format!("nodes={n}"));
        }
        if let Some(t) = self.movetime {
            parts.push(format!("movetime={}", t.as_millis()));
        }
        f.write_str(&parts.join(","))
    }
}

/// Time to spend on one move when playing on a clock: `remaining` on the
/// mover's clock, `increment` added after each move, `moves_to_go` moves
/// until the next time control (none: sudden death, planned as 30 moves).
/// Spends about `remaining / moves_to_go` plus three quarters of the
/// increment, never more than 40 % of what is left (80 % with one move to
/// go), less 20 ms kept for reading and writing moves, and at least 1 ms.
/// Used as [`Limits::movetime`], which ends an iteration early when half of
/// it is gone, the search does not run over it by more than a few
/// milliseconds.
///
/// # Panics
///
/// When `remaining` or `increment` is so large (over about 146 billion
/// years) that multiplying it by 4 or 3 overflows a [`Duration`].
///
/// # Examples
///
/// ```
/// use std::time::Duration;
/// use alq_engine::time_for_move;
///
/// let ms = Duration::from_millis;
/// // One minute, sudden death: planned as 30 moves, 2 s less 20 ms each.
/// assert_eq!(time_for_move(ms(60_000), ms(0), None), ms(1_980));
/// // One move to go: at most 80 % of the clock.
/// assert_eq!(time_for_move(ms(1_000), ms(0), Some(1)), ms(780));
/// // Nearly out of time: still 1 ms.
/// assert_eq!(time_for_move(ms(10), ms(0), None), ms(1));
/// ```
pub fn time_for_move(remaining: Duration, increment: Duration, moves_to_go: Option<u32>) -> Duration {
    let overhead = Duration::from_millis(20);
    let to_go = moves_to_go.unwrap_or(30).clamp(1, 200);
    let share = remaining / to_go + increment * 3 / 4;
    let cap = if to_go == 1 { remaining * 4 / 5 } else { remaining * 2 / 5 };
    share.min(cap).saturating_sub(overhead).max(Duration::from_millis(1))
}
