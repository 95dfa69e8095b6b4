//! The exact search's explicit graph (the explored part of the game graph)
//! and the retrograde analysis over it.
//!
//! Nodes are positions (never paths): an expanded node lists the nodes its
//! legal moves lead to, a leaf has a known value (no legal move, the tables,
//! or a value proven earlier), a frontier node is not expanded yet. Values are
//! computed by retrograde analysis over this finite graph, once with every
//! frontier node given the best value for the side to move at the root and
//! once with the worst; the true value lies between the two (see crates/solver/README.md).

use alq_engine::{key_side, Side};
use alq_tablebase::Exact;

use crate::keymap::KeyMap;
use crate::predecessors::Predecessors;

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

/// The explored graph of the exact search. Node 0 is the root.
#[derive(Default)]
pub struct ExplicitGraph {
    pub keys: Vec<u64>,
    pub kinds: Vec<Kind>,
    pub edges: Vec<u32>,
    index: KeyMap<u32>,
}

/// Bytes one node costs in [`ExplicitGraph`] (key, kind, hash map slot with its
/// overhead), for the memory budget; edges cost 4 bytes each, and the
/// analysis adds 4 bytes per edge and 16 per node while it runs.
pub const BYTES_PER_NODE: usize = 8 + 12 + 24 + 16;

impl ExplicitGraph {
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    /// Bytes held now (capacities, with the per-node estimate for the map)
    /// plus what one analysis adds.
    pub fn memory_bytes(&self) -> usize {
        self.keys.capacity() * BYTES_PER_NODE + self.edges.capacity() * 8
    }

    /// [`ExplicitGraph::memory_bytes`] after the next expansion, counting the
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

    /// The reverse edges between nodes.
    pub fn predecessors(&self) -> Predecessors {
        Predecessors::of_edges(self.len(), |node| self.successors(node))
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

#[cfg(test)]
mod tests {
    use alq_engine::Position;

    use super::*;

    #[test]
    fn keys_round_trip() {
        for text in
            ["BBBBB/BBBBB/BB.WW/WWWWW/WWWWW w", "...../..B../...../.W.W./..... b", "...../...../...../...../..... w"]
        {
            let pos: Position = text.parse().unwrap();
            assert_eq!(Position::from_key_unchecked(pos.key()), pos);
        }
    }

    /// A hand-made graph: a two-node cycle whose side to move can also step
    /// into a lost position for the opponent. The cycle must not hide the win.
    #[test]
    fn analysis_of_a_cycle_with_an_exit() {
        let mut g = ExplicitGraph::default();
        // Keys only need distinct sides here: 0 = White to move, 1 << 50 = Black.
        let a = g.add(0, Kind::Frontier);
        let b = g.add(1 << 50, Kind::Frontier);
        let lost = g.add((1 << 50) | 1, Kind::Leaf(Exact::Loss(0)));
        let drawn = g.add(2, Kind::Leaf(Exact::Draw));
        g.edges = vec![b, lost, a, drawn];
        g.kinds[a as usize] = Kind::Expanded { first: 0, len: 2 };
        g.kinds[b as usize] = Kind::Expanded { first: 2, len: 2 };
        let preds = g.predecessors();
        let v = g.analyse(&preds, Side::White, Frontier::WorstForRoot);
        assert_eq!(v[a as usize], Exact::Win(1));
        // Black at b: back to a (lost for Black in 2) or into a draw.
        assert_eq!(v[b as usize], Exact::Draw);
        // Without the draw exit, Black at b is lost in 2.
        g.kinds[drawn as usize] = Kind::Leaf(Exact::Win(1));
        let v = g.analyse(&g.predecessors(), Side::White, Frontier::WorstForRoot);
        assert_eq!(v[b as usize], Exact::Loss(2));
        // A pure cycle with no exit is a draw.
        g.edges = vec![b, b, a, a];
        g.kinds[a as usize] = Kind::Expanded { first: 0, len: 1 };
        g.kinds[b as usize] = Kind::Expanded { first: 2, len: 1 };
        let v = g.analyse(&g.predecessors(), Side::White, Frontier::WorstForRoot);
        assert_eq!((v[a as usize], v[b as usize]), (Exact::Draw, Exact::Draw));
    }
}
