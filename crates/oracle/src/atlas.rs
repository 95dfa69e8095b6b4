//! The opening atlas: the exact value of every position of the opening tree
//! (every distinct position reached from the start within a number of
//! plies), found deepest first so that what a ply settled serves the plies
//! above it, and how narrow each position is: how many of the mover's moves
//! keep its value.
//!
//! The work is shared through a store file (every position the searches
//! settled, read back by a rerun, which then skips what is known), and the
//! result is a small store of the tree's positions only
//! ([`atlas_store`]), which the oracle reads like any other.

use std::collections::HashMap;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use alq_engine::{Position, RuleSet, Side};
use alq_solver::{Budget, ProvenStore};

use crate::tried::TriedLog;
use crate::{Oracle, OracleError, Value};

/// The distinct positions of the opening tree, ply by ply: `tree[k]` holds
/// the positions `k` plies from `start` (a position reached at two plies is
/// listed at both), in a fixed order.
pub fn tree(rules: RuleSet, start: Position, depth: u32) -> Vec<Vec<Position>> {
    let mut plies = vec![vec![start]];
    for _ in 0..depth {
        let mut seen = std::collections::HashSet::new();
        let mut next = Vec::new();
        for pos in plies.last().expect("the start is there") {
            for &mv in pos.legal_moves_in(rules).iter() {
                let child = pos.play(mv);
                if seen.insert(child) {
                    next.push(child);
                }
            }
        }
        plies.push(next);
    }
    plies
}

/// Which positions of a ply a worker takes: all, or the `index`-th of
/// `count` contiguous blocks (a job of a cluster array). Blocks keep
/// siblings together: a search often settles its siblings on the way, and
/// a job's own store then answers them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    pub index: usize,
    pub count: usize,
}

impl Shard {
    pub const ALL: Shard = Shard { index: 0, count: 1 };

    /// Parses `I/N` (0 ≤ I < N).
    pub fn parse(text: &str) -> Option<Shard> {
        let (i, n) = text.split_once('/')?;
        let (index, count) = (i.trim().parse().ok()?, n.trim().parse().ok()?);
        (index < count).then_some(Shard { index, count })
    }

    /// Whether the job takes the `i`-th of `len` positions.
    fn takes(self, i: usize, len: usize) -> bool {
        i * self.count / len.max(1) == self.index
    }
}

/// How many consecutive positions a worker takes at a time, at most.
const RUN: usize = 16;

/// The run a worker takes: [`RUN`] positions, unless there are too few
/// for every worker to get a run of them. Then runs of half an even
/// share, so that a retry of a small residue (25 positions of minutes
/// each, say) keeps every worker busy to the end instead of leaving one
/// with 16 and the other with 9. Whole plies keep their runs of siblings,
/// whose searches settle one another on the way.
fn run_length(todo: usize, workers: usize) -> usize {
    let workers = workers.max(1);
    if todo >= RUN * workers {
        RUN
    } else {
        todo.div_ceil(2 * workers).max(1)
    }
}

/// What happened at one ply of an atlas run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PlyProgress {
    pub ply: u32,
    /// The ply's positions this run (or shard) takes.
    pub positions: usize,
    /// Of those, known before the run (stores, tables, the end), or left
    /// open by an earlier search as long (in the tried log).
    pub known_before: usize,
    /// Of those, skipped because the tried log holds them.
    pub tried_before: usize,
    /// Done so far (known before, or searched).
    pub done: usize,
    /// Exact (win, draw or loss) so far.
    pub exact: usize,
}

/// How [`settle`] searches: the budget of each position, the part of each
/// ply it takes, whether bounds are searched again, and the log of searches
/// that left positions open.
#[derive(Clone, Copy)]
pub struct SettleOptions<'t> {
    pub budget: Budget,
    pub shard: Shard,
    /// Search the positions the stores hold only a bound for, too.
    pub retry: bool,
    /// Positions searched with at least `budget` and left open, by this run
    /// or an earlier one, are not searched again; this run's are added.
    pub tried: Option<&'t TriedLog>,
}

impl SettleOptions<'_> {
    /// Every position of each ply, within `budget`, known ones skipped.
    pub fn new(budget: Budget) -> SettleOptions<'static> {
        SettleOptions { budget, shard: Shard::ALL, retry: false, tried: None }
    }
}

/// Settles the value of every position of `tree`, the deepest ply first,
/// each position searched within the options' budget by one of `oracles`
/// (one per worker thread; they should use one store file, which each
/// writes as its searches settle positions (merged with the file,
/// atomically) and which this writes from every oracle and reads into
/// every oracle after each ply so that they share what the ply settled).
/// Positions the oracles already know are skipped, exact or not, unless
/// `retry` is set for bounds and unknowns; so are those the `tried` log
/// says were searched as long and left open. Only the plies in `plies` are
/// searched. `on_progress` is called after each position.
pub fn settle(
    oracles: &[Oracle<'_>],
    store_file: Option<&Path>,
    tree: &[Vec<Position>],
    plies: std::ops::RangeInclusive<u32>,
    options: SettleOptions<'_>,
    on_progress: &(dyn Fn(&PlyProgress) + Sync),
) -> Result<(), OracleError> {
    let SettleOptions { budget, shard, retry, tried } = options;
    assert!(!oracles.is_empty(), "at least one oracle");
    for (ply, positions) in tree.iter().enumerate().rev().filter(|(ply, _)| plies.contains(&(*ply as u32))) {
        let mine: Vec<&Position> =
            positions.iter().enumerate().filter(|(i, _)| shard.takes(*i, positions.len())).map(|(_, p)| p).collect();
        let mut todo = Vec::new();
        let mut progress = PlyProgress { ply: ply as u32, positions: mine.len(), ..PlyProgress::default() };
        for &pos in &mine {
            match oracles[0].known(pos)? {
                Some((v, _)) if v.is_exact() || !retry => {
                    progress.known_before += 1;
                    progress.exact += usize::from(v.is_exact());
                }
                _ if tried.is_some_and(|log| log.covers(pos.key(), &budget)) => {
                    progress.known_before += 1;
                    progress.tried_before += 1;
                }
                _ => todo.push(*pos),
            }
        }
        progress.done = progress.known_before;
        on_progress(&progress);
        let state = Mutex::new(progress);
        let next = AtomicUsize::new(0);
        let run_len = run_length(todo.len(), oracles.len());
        let result: Result<(), OracleError> = std::thread::scope(|scope| {
            let workers: Vec<_> = oracles
                .iter()
                .map(|oracle| {
                    let (todo, next, state) = (&todo, &next, &state);
                    scope.spawn(move || -> Result<(), OracleError> {
                        // Workers take runs of consecutive positions, so
                        // that siblings a search settles on the way are
                        // answered by the same worker's store.
                        loop {
                            let first = next.fetch_add(run_len, Ordering::Relaxed);
                            let Some(run) = todo.get(first..(first + run_len).min(todo.len())) else { return Ok(()) };
                            for pos in run {
                                // The oracle writes its store itself when a search
                                // settled something and its last write is old enough.
                                let answer = oracle.value_within(pos, budget)?;
                                if let (false, Some(log)) = (answer.value.is_exact(), tried) {
                                    log.record(pos.key(), &budget)?;
                                }
                                let mut s = state.lock().unwrap_or_else(|e| e.into_inner());
                                s.done += 1;
                                s.exact += usize::from(answer.value.is_exact());
                                on_progress(&s);
                            }
                        }
                    })
                })
                .collect();
            workers.into_iter().try_for_each(|w| w.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic)))
        });
        result?;
        // Share the ply's results: every oracle writes, then every oracle
        // reads what the others wrote.
        if let Some(file) = store_file {
            for oracle in oracles {
                oracle.save()?;
            }
            if oracles.len() > 1 && file.exists() {
                for oracle in oracles {
                    oracle.read_store(file)?;
                }
            }
        }
    }
    Ok(())
}

/// The atlas's result: the tree's positions and what `oracle` knows of each
/// (stores and tables; nothing is searched), as a store of those positions
/// only.
pub fn atlas_store(oracle: &Oracle<'_>, tree: &[Vec<Position>]) -> Result<ProvenStore, OracleError> {
    let mut store = ProvenStore::new(oracle.rules());
    store.tables = oracle.table_pieces();
    for pos in tree.iter().flatten() {
        let value = oracle.known(pos)?.map_or(Value::Unknown, |(v, _)| v);
        let (mover_wins, opponent_wins) = value.questions();
        store.add_answers(pos, mover_wins, opponent_wins)?;
    }
    Ok(store)
}

/// One ply of the atlas's table.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct PlyRow {
    pub ply: u32,
    pub positions: usize,
    /// Exact values, from White's view.
    pub white_wins: usize,
    pub draws: usize,
    pub black_wins: usize,
    /// A bound only, or nothing.
    pub bounds: usize,
    pub unknown: usize,
    /// Over the positions the mover wins or draws whose moves' values are
    /// all exact too (from a lost position every move keeps the loss): their
    /// moves, and how many keep the position's value.
    pub moves: usize,
    pub moves_keeping: usize,
    /// Those positions, and how many have one move only that keeps the value.
    pub judged: usize,
    pub single_keeper: usize,
}

impl PlyRow {
    /// The share of the judged positions' moves that keep the value.
    pub fn keep_share(&self) -> Option<f64> {
        (self.moves > 0).then(|| self.moves_keeping as f64 / self.moves as f64)
    }

    /// The share of the positions already won by one side.
    pub fn decided_share(&self) -> Option<f64> {
        (self.positions > 0).then(|| (self.white_wins + self.black_wins) as f64 / self.positions as f64)
    }
}

/// How many of `pos`'s moves keep its value, and how many moves it has,
/// when its value and all its moves' values are exact in `value`.
pub fn keepers(rules: RuleSet, pos: &Position, value: &impl Fn(&Position) -> Value) -> Option<(usize, usize)> {
    let v = value(pos);
    if !v.is_exact() {
        return None;
    }
    let moves = pos.legal_moves_in(rules);
    let mut keep = 0;
    for &mv in moves.iter() {
        let after = value(&pos.play(mv)).for_other_side();
        if !after.is_exact() {
            return None;
        }
        keep += usize::from(after == v);
    }
    Some((keep, moves.len()))
}

/// The per-ply table of the tree's values, from `value` (a position's value
/// for its mover).
pub fn ply_table(rules: RuleSet, tree: &[Vec<Position>], value: &impl Fn(&Position) -> Value) -> Vec<PlyRow> {
    tree.iter()
        .enumerate()
        .map(|(ply, positions)| {
            let mut row = PlyRow { ply: ply as u32, positions: positions.len(), ..PlyRow::default() };
            for pos in positions {
                let v = value(pos);
                let white = if pos.side_to_move() == Side::White { v } else { v.for_other_side() };
                match white {
                    Value::Win => row.white_wins += 1,
                    Value::Draw => row.draws += 1,
                    Value::Loss => row.black_wins += 1,
                    Value::Unknown => row.unknown += 1,
                    _ => row.bounds += 1,
                }
                if let Some((keep, moves)) = keepers(rules, pos, value).filter(|_| v != Value::Loss) {
                    row.judged += 1;
                    row.moves += moves;
                    row.moves_keeping += keep;
                    row.single_keeper += usize::from(keep == 1);
                }
            }
            row
        })
        .collect()
}

/// For each of the start's moves that keeps the start's value: the share of
/// the opponent's positions below it (plies 2 to the tree's depth, the
/// opponent to move, exact with all moves exact) where more than half the
/// moves lose value — the traps that first move sets.
pub fn traps(
    rules: RuleSet,
    tree: &[Vec<Position>],
    value: &impl Fn(&Position) -> Value,
) -> Vec<(alq_engine::Move, usize, usize)> {
    let start = tree[0][0];
    let v = value(&start);
    let mover = start.side_to_move();
    let mut out = Vec::new();
    for &first in start.legal_moves_in(rules).iter() {
        if value(&start.play(first)).for_other_side() != v || !v.is_exact() {
            continue;
        }
        // The subtree of positions reached through `first`, ply by ply.
        let mut layer: HashMap<Position, ()> = HashMap::from([(start.play(first), ())]);
        let (mut judged, mut trapped) = (0, 0);
        for _ply in 2..tree.len() {
            let mut next = HashMap::new();
            for pos in layer.keys() {
                for &mv in pos.legal_moves_in(rules).iter() {
                    next.insert(pos.play(mv), ());
                }
            }
            for pos in next.keys().filter(|p| p.side_to_move() != mover) {
                if let Some((keep, moves)) = keepers(rules, pos, value).filter(|_| value(pos) != Value::Loss) {
                    judged += 1;
                    trapped += usize::from(2 * (moves - keep) > moves);
                }
            }
            layer = next;
        }
        out.push((first, trapped, judged));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_cut_a_ply_into_contiguous_blocks() {
        for (len, count) in [(10, 3), (7, 7), (5, 8), (24_332, 200)] {
            let owners: Vec<usize> = (0..len)
                .map(|i| {
                    let takers: Vec<usize> = (0..count).filter(|&index| Shard { index, count }.takes(i, len)).collect();
                    assert_eq!(takers.len(), 1, "position {i} of {len}, {count} shards");
                    takers[0]
                })
                .collect();
            // Each shard's positions are one block, in shard order.
            assert!(owners.windows(2).all(|w| w[0] <= w[1]), "{len} {count}");
        }
        assert!(Shard::ALL.takes(0, 1) && Shard::ALL.takes(9, 10));
    }

    #[test]
    fn the_tree_counts_distinct_positions_per_ply() {
        // The independent generator's counts (issue 42): 1, 4, 5, 6, 12, 27, 96.
        let t = tree(RuleSet::BrainKing, Position::start(), 6);
        assert_eq!(t.iter().map(Vec::len).collect::<Vec<_>>(), [1, 4, 5, 6, 12, 27, 96]);
    }

    #[test]
    fn runs_shrink_when_few_positions_are_left() {
        // A whole ply, or enough for every worker: runs of 16 siblings.
        assert_eq!(run_length(24_332, 2), RUN);
        assert_eq!(run_length(32, 2), RUN);
        assert_eq!(run_length(25, 1), RUN);
        // The residue of a retry: both workers get a share.
        assert_eq!(run_length(25, 2), 7);
        assert_eq!(run_length(31, 2), 8);
        assert_eq!(run_length(3, 2), 1);
        assert_eq!(run_length(0, 2), 1);
        assert_eq!(run_length(10, 0), 5);
    }

    #[test]
    fn shards_split_a_ply() {
        assert_eq!(Shard::parse("1/3"), Some(Shard { index: 1, count: 3 }));
        assert_eq!(Shard::parse("3/3"), None);
        assert_eq!(Shard::parse("x"), None);
        let s = Shard { index: 1, count: 3 };
        assert_eq!((0..9).filter(|&i| s.takes(i, 9)).collect::<Vec<_>>(), [3, 4, 5]);
    }
}
