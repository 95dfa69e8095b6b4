//! The games index: for every position the games reached within the first
//! `max_plies` plies, the games through it and, per move played there, the
//! games that played it, each with White's wins, draws, Black's wins and
//! the sum of the games' lengths.
//!
//! Layout: two sorted vectors, no hash map at query time. `nodes` holds one
//! 32-byte entry per distinct position (its packed key and its totals),
//! `edges` one 40-byte entry per distinct (position, move) pair, sorted by
//! the parent's key so that a position's moves are one contiguous run found
//! by binary search. Building collects every (position, next position) step
//! of every game in parallel, sorts and merges runs of equal keys.

use std::path::{Path, PathBuf};

use rayon::prelude::*;

use alq_engine::{Position, RuleSet};
use alq_records::{RecordError, RecordReader};

/// Results of a set of games.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    pub white: u32,
    pub draws: u32,
    pub black: u32,
    /// Sum of the games' lengths in plies.
    pub plies: u64,
}

impl Counts {
    pub fn games(&self) -> u64 {
        self.white as u64 + self.draws as u64 + self.black as u64
    }

    pub fn average_plies(&self) -> f64 {
        self.plies as f64 / self.games().max(1) as f64
    }

    fn add(&mut self, other: &Counts) {
        self.white += other.white;
        self.draws += other.draws;
        self.black += other.black;
        self.plies += other.plies;
    }

    fn of_result(result: &str, plies: u32) -> Counts {
        let mut c = Counts { plies: plies as u64, ..Counts::default() };
        match result {
            "1-0" => c.white = 1,
            "0-1" => c.black = 1,
            _ => c.draws = 1,
        }
        c
    }
}

#[derive(Clone, Copy, Debug)]
struct Node {
    key: u64,
    counts: Counts,
}

#[derive(Clone, Copy, Debug)]
struct Edge {
    parent: u64,
    child: u64,
    counts: Counts,
}

/// What indexing met.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct IndexStats {
    /// Games indexed (from the standard start, under the index's rules).
    pub games: u64,
    /// Games left out because they start elsewhere than the standard start.
    pub other_starts: u64,
    pub positions: usize,
    pub moves: usize,
    /// Bytes of the index.
    pub bytes: usize,
}

/// The indexed games.
pub struct Index {
    rules: RuleSet,
    max_plies: u32,
    nodes: Vec<Node>,
    edges: Vec<Edge>,
    stats: IndexStats,
}

/// Rows replayed in parallel at a time.
const CHUNK: usize = 4096;

impl Index {
    /// Indexes the games of `files` (all played under `rules`; a game of
    /// other rules is an error) up to `max_plies` plies deep, calling
    /// `progress` with the file and the games read from it so far after
    /// each chunk of games.
    pub fn build(
        files: &[PathBuf],
        rules: RuleSet,
        max_plies: u32,
        mut progress: impl FnMut(&Path, u64),
    ) -> Result<Index, RecordError> {
        let start = Position::start_of(rules);
        let mut nodes: Vec<Node> = Vec::new();
        let mut edges: Vec<Edge> = Vec::new();
        let mut stats = IndexStats::default();
        for file in files {
            let mut read = 0u64;
            let mut reader = RecordReader::open(file)?;
            loop {
                let chunk = reader.read_chunk(CHUNK)?;
                if chunk.is_empty() {
                    break;
                }
                read += chunk.len() as u64;
                let parts: Vec<Result<Option<(Vec<Node>, Vec<Edge>)>, RecordError>> = chunk
                    .par_iter()
                    .map(|(line, record)| {
                        let game = alq_records::replay_row(file, *line, record, Some(rules))?;
                        if game.game.start() != start {
                            return Ok(None);
                        }
                        let counts = Counts::of_result(&record.result, record.plies);
                        let positions = game.game.positions();
                        let deep = positions.len().min(max_plies as usize + 1);
                        let mut seen: Vec<u64> = positions[..deep].iter().map(Position::key).collect();
                        let steps: Vec<Edge> =
                            seen.windows(2).map(|w| Edge { parent: w[0], child: w[1], counts }).collect();
                        // A game counts once for a position it repeats.
                        seen.sort_unstable();
                        seen.dedup();
                        let mut steps = steps;
                        steps.sort_unstable_by_key(|e| (e.parent, e.child));
                        steps.dedup_by_key(|e| (e.parent, e.child));
                        Ok(Some((seen.into_iter().map(|key| Node { key, counts }).collect(), steps)))
                    })
                    .collect();
                for part in parts {
                    match part? {
                        Some((n, e)) => {
                            stats.games += 1;
                            nodes.extend(n);
                            edges.extend(e);
                        }
                        None => stats.other_starts += 1,
                    }
                }
                // Merge as we go so that memory follows distinct entries.
                if nodes.len() > 64 << 20 {
                    nodes = merge_nodes(nodes);
                    edges = merge_edges(edges);
                }
                progress(file, read);
            }
        }
        let nodes = merge_nodes(nodes);
        let edges = merge_edges(edges);
        stats.positions = nodes.len();
        stats.moves = edges.len();
        stats.bytes = nodes.len() * std::mem::size_of::<Node>() + edges.len() * std::mem::size_of::<Edge>();
        Ok(Index { rules, max_plies, nodes, edges, stats })
    }

    pub fn rules(&self) -> RuleSet {
        self.rules
    }

    pub fn max_plies(&self) -> u32 {
        self.max_plies
    }

    pub fn stats(&self) -> IndexStats {
        self.stats
    }

    /// The games through `pos` (none if no game reached it).
    pub fn position(&self, pos: &Position) -> Counts {
        let k = pos.key();
        match self.nodes.binary_search_by_key(&k, |n| n.key) {
            Ok(i) => self.nodes[i].counts,
            Err(_) => Counts::default(),
        }
    }

    fn edge_range(&self, parent: u64) -> std::ops::Range<usize> {
        let lo = self.edges.partition_point(|e| e.parent < parent);
        let hi = self.edges.partition_point(|e| e.parent <= parent);
        lo..hi
    }

    /// The games that played the move from `parent` to `child`.
    pub fn edge(&self, parent: &Position, child: &Position) -> Counts {
        let (p, c) = (parent.key(), child.key());
        let range = self.edge_range(p);
        match self.edges[range.clone()].binary_search_by_key(&c, |e| e.child) {
            Ok(i) => self.edges[range.start + i].counts,
            Err(_) => Counts::default(),
        }
    }
}

fn merge_nodes(mut nodes: Vec<Node>) -> Vec<Node> {
    nodes.par_sort_unstable_by_key(|n| n.key);
    let mut out: Vec<Node> = Vec::with_capacity(nodes.len() / 2);
    for n in nodes {
        match out.last_mut() {
            Some(last) if last.key == n.key => last.counts.add(&n.counts),
            _ => out.push(n),
        }
    }
    out.shrink_to_fit();
    out
}

fn merge_edges(mut edges: Vec<Edge>) -> Vec<Edge> {
    edges.par_sort_unstable_by_key(|e| (e.parent, e.child));
    let mut out: Vec<Edge> = Vec::with_capacity(edges.len() / 2);
    for e in edges {
        match out.last_mut() {
            Some(last) if last.parent == e.parent && last.child == e.child => last.counts.add(&e.counts),
            _ => out.push(e),
        }
    }
    out.shrink_to_fit();
    out
}
