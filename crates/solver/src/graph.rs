//! The explored part of the game graph and the retrograde analysis over it.
//!
//! Nodes are positions (never paths): an expanded node lists the nodes its
//! legal moves lead to, a leaf has a known value (no legal move, the tables,
//! or a value proven earlier), a frontier node is not expanded yet. Values are
//! computed by retrograde analysis over this finite graph, once with every
//! frontier node given the best value for the side to move at the root and
//! once with the worst; the true value lies between the two (see crates/solver/README.md).

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use alq_engine::{key_side, Position, Side};
use alq_tablebase::Exact;

/// The position's packed key, [`Position::key`] (kept while callers move to
/// the engine's method).
pub fn key(pos: &Position) -> u64 {
    pos.key()
}

/// The position of a key the solver made, [`Position::from_key_unchecked`].
pub fn position(key: u64) -> Position {
    Position::from_key_unchecked(key)
}

/// A hasher for position keys (51-bit integers): a multiply and a fold,
/// several times faster than the standard SipHash on the solver's maps.
#[derive(Default, Clone, Copy)]
pub struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        let h = self.0.wrapping_mul(0x9E37_79B9_7F4A_7C15);
        h ^ (h >> 32)
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(8) ^ u64::from(b)).wrapping_mul(0x100_0000_01B3);
        }
    }

    fn write_u64(&mut self, n: u64) {
        self.0 ^= n;
    }
}

/// A hash map keyed by position keys.
pub type KeyMap<V> = HashMap<u64, V, BuildHasherDefault<KeyHasher>>;

/// What is known of a node before the analysis.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Not expanded: its value is unknown.
    Frontier,
    /// Expanded: its successors are `edges[first..first + len]`.
    Expanded { first: u32, len: u32 },
    /// Known value (no legal move, a table value, or proven earlier).
    Leaf(Exact),
}

/// Which value every frontier node gets in one analysis.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Frontier {
    /// The best possible for the root's side to move: the lower bound.
    WorstForRoot,
    /// The worst possible for the root's side to move: the upper bound.
    BestForRoot,
}

/// The explored graph. Node 0 is the root.
#[derive(Default)]
pub struct Graph {
    pub keys: Vec<u64>,
    pub kinds: Vec<Kind>,
    pub edges: Vec<u32>,
    index: KeyMap<u32>,
}

/// Bytes one node costs in [`Graph`] (key, kind, hash map slot with its
/// overhead), for the memory budget; edges cost 4 bytes each, and the
/// analysis adds 4 bytes per edge and 16 per node while it runs.
pub const BYTES_PER_NODE: usize = 8 + 12 + 24 + 16;

impl Graph {
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    /// Bytes held now (capacities, with the per-node estimate for the map)
    /// plus what one analysis adds.
    pub fn memory_bytes(&self) -> usize {
        self.keys.capacity() * BYTES_PER_NODE + self.edges.capacity() * 8
    }

    /// [`Graph::memory_bytes`] after the next expansion, counting the
    /// doubling of a table that is about to fill up, plus what an analysis
    /// adds: the figure the memory budget is checked against, so that the
    /// graph does not overshoot it by a doubling.
    pub fn memory_bytes_next(&self) -> usize {
        let grown = |len: usize, cap: usize| if len + 64 >= cap { 2 * cap.max(64) } else { cap };
        grown(self.keys.len(), self.keys.capacity()) * BYTES_PER_NODE
            + grown(self.edges.len(), self.edges.capacity()) * 8
            + self.edges.len() * 4
            + self.len() * 16
    }

    pub fn find(&self, key: u64) -> Option<u32> {
        self.index.get(&key).copied()
    }

    /// Adds a node (the caller checked it is new).
    pub fn add(&mut self, key: u64, kind: Kind) -> u32 {
        let id = self.keys.len() as u32;
        self.keys.push(key);
        self.kinds.push(kind);
        self.index.insert(key, id);
        id
    }

    /// The successors of an expanded node (empty for others).
    pub fn successors(&self, node: u32) -> &[u32] {
        match self.kinds[node as usize] {
            Kind::Expanded { first, len } => &self.edges[first as usize..(first + len) as usize],
            _ => &[],
        }
    }

    /// Retrograde analysis over the graph: the value of every node for its
    /// side to move when each frontier node has the value `frontier` gives
    /// it. Values are by distance, as the tablebase builder computes them:
    /// distances are settled in increasing order, so a node is won by its
    /// fastest winning move and lost by its slowest losing one; nodes never
    /// settled are draws (neither side can force the end inside this graph).
    pub fn analyse(&self, preds: &Predecessors, root_side: Side, frontier: Frontier) -> Vec<Exact> {
        let n = self.len();
        let mut value: Vec<Option<Exact>> = vec![None; n];
        let mut pending = vec![0u32; n];
        let mut buckets: Vec<Vec<u32>> = Vec::new();
        let settle = |value: &mut Vec<Option<Exact>>, buckets: &mut Vec<Vec<u32>>, node: u32, v: Exact| {
            value[node as usize] = Some(v);
            let d = match v {
                Exact::Win(d) | Exact::Loss(d) => d as usize,
                Exact::Draw => return,
            };
            if buckets.len() <= d {
                buckets.resize_with(d + 1, Vec::new);
            }
            buckets[d].push(node);
        };
        for (i, kind) in self.kinds.iter().enumerate() {
            match *kind {
                Kind::Expanded { len, .. } => pending[i] = len,
                Kind::Leaf(v) => settle(&mut value, &mut buckets, i as u32, v),
                Kind::Frontier => {
                    let good_for_root = (key_side(self.keys[i]) == root_side) == (frontier == Frontier::BestForRoot);
                    let v = if good_for_root { Exact::Win(1) } else { Exact::Loss(0) };
                    settle(&mut value, &mut buckets, i as u32, v);
                }
            }
        }
        let mut d = 0;
        while d < buckets.len() {
            let mut k = 0;
            while k < buckets[d].len() {
                let node = buckets[d][k];
                k += 1;
                let won = matches!(value[node as usize], Some(Exact::Win(_)));
                // Distances stop at u16::MAX (what a resume file holds).
                let next = (d + 1).min(usize::from(u16::MAX)) as u32;
                for &p in preds.of(node) {
                    if value[p as usize].is_some() {
                        continue;
                    }
                    if !won {
                        settle(&mut value, &mut buckets, p, Exact::Win(next));
                    } else {
                        pending[p as usize] -= 1;
                        if pending[p as usize] == 0 {
                            settle(&mut value, &mut buckets, p, Exact::Loss(next));
                        }
                    }
                }
            }
            d += 1;
        }
        value.into_iter().map(|v| v.unwrap_or(Exact::Draw)).collect()
    }
}

/// The reverse edges of a graph (compressed rows).
pub struct Predecessors {
    start: Vec<u32>,
    list: Vec<u32>,
}

impl Predecessors {
    pub fn of_graph(graph: &Graph) -> Predecessors {
        Predecessors::of_edges(graph.len(), |node| graph.successors(node))
    }

    /// The reverse edges of a graph of `n` nodes given by its successor lists.
    pub fn of_edges<'g>(n: usize, successors: impl Fn(u32) -> &'g [u32]) -> Predecessors {
        let mut start = vec![0u32; n + 1];
        for node in 0..n as u32 {
            for &s in successors(node) {
                start[s as usize + 1] += 1;
            }
        }
        for i in 0..n {
            start[i + 1] += start[i];
        }
        let mut fill = start.clone();
        let mut list = vec![0u32; start[n] as usize];
        for node in 0..n as u32 {
            for &s in successors(node) {
                list[fill[s as usize] as usize] = node;
                fill[s as usize] += 1;
            }
        }
        Predecessors { start, list }
    }

    /// Rows from their starts (`n + 1` entries) and the concatenated lists.
    pub fn from_parts(start: Vec<u32>, list: Vec<u32>) -> Predecessors {
        Predecessors { start, list }
    }

    pub fn of(&self, node: u32) -> &[u32] {
        &self.list[self.start[node as usize] as usize..self.start[node as usize + 1] as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_round_trip() {
        for text in
            ["BBBBB/BBBBB/BB.WW/WWWWW/WWWWW w", "...../..B../...../.W.W./..... b", "...../...../...../...../..... w"]
        {
            let pos: Position = text.parse().unwrap();
            assert_eq!(position(key(&pos)), pos);
        }
    }

    /// A hand-made graph: a two-node cycle whose side to move can also step
    /// into a lost position for the opponent. The cycle must not hide the win.
    #[test]
    fn analysis_of_a_cycle_with_an_exit() {
        let mut g = Graph::default();
        // Keys only need distinct sides here: 0 = White to move, 1 << 50 = Black.
        let a = g.add(0, Kind::Frontier);
        let b = g.add(1 << 50, Kind::Frontier);
        let lost = g.add((1 << 50) | 1, Kind::Leaf(Exact::Loss(0)));
        let drawn = g.add(2, Kind::Leaf(Exact::Draw));
        g.edges = vec![b, lost, a, drawn];
        g.kinds[a as usize] = Kind::Expanded { first: 0, len: 2 };
        g.kinds[b as usize] = Kind::Expanded { first: 2, len: 2 };
        let preds = Predecessors::of_graph(&g);
        let v = g.analyse(&preds, Side::White, Frontier::WorstForRoot);
        assert_eq!(v[a as usize], Exact::Win(1));
        // Black at b: back to a (lost for Black in 2) or into a draw.
        assert_eq!(v[b as usize], Exact::Draw);
        // Without the draw exit, Black at b is lost in 2.
        g.kinds[drawn as usize] = Kind::Leaf(Exact::Win(1));
        let v = g.analyse(&Predecessors::of_graph(&g), Side::White, Frontier::WorstForRoot);
        assert_eq!(v[b as usize], Exact::Loss(2));
        // A pure cycle with no exit is a draw.
        g.edges = vec![b, b, a, a];
        g.kinds[a as usize] = Kind::Expanded { first: 0, len: 1 };
        g.kinds[b as usize] = Kind::Expanded { first: 2, len: 1 };
        let v = g.analyse(&Predecessors::of_graph(&g), Side::White, Frontier::WorstForRoot);
        assert_eq!((v[a as usize], v[b as usize]), (Exact::Draw, Exact::Draw));
    }
}
