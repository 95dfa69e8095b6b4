//! The threshold search's graph in a compact layout (its state file is
//! [`crate::search_state`]).
//!
//! Only *expanded* positions are nodes. A node holds its key, its proof and
//! disproof numbers and where its successor slots start (28 bytes with its
//! hash slot); each legal move is one 4-byte slot that holds either a node id
//! or, with the top bit set, a position that is not a node: a leaf whose
//! answer is known (the tables, the store, no legal move) or a frontier
//! position with its initial proof and disproof numbers packed into the slot.
//! A frontier position that is expanded later becomes a node, and the slot
//! through which the search reached it is rewritten to the node; other slots
//! that still name it as frontier are found again when the search next
//! passes through them ([`CompactGraph::refresh`] rewrites them all between
//! rounds). A stale slot only makes the analysis see less than it could: it
//! counts as unexpanded, which is never wrong.
//!
//! Nodes are created in expansion order and their slots appended, so the
//! slots of node `i` are `slots[first[i]..first[i + 1]]`.

use alq_engine::{Position, RuleSet, Side};

use crate::predecessors::Predecessors;

/// Slots with the top bit set are not nodes.
const TAG: u32 = 0x8000_0000;
/// Known leaves: the asked side wins there / does not.
pub(crate) const LEAF_WON: u32 = u32::MAX;
pub(crate) const LEAF_LOST: u32 = u32::MAX - 1;
/// A frontier slot taken into the current batch.
pub(crate) const CHOSEN: u32 = u32::MAX - 2;
/// Largest proof or disproof number a frontier slot holds (15 bits each).
pub(crate) const MAX_INITIAL: u32 = (1 << 15) - 1;
/// Most nodes (node ids are below the tag bit).
pub(crate) const MAX_NODES: usize = TAG as usize - 1;

/// What a slot stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Slot {
    Node(u32),
    Won,
    Lost,
    /// Not expanded, with its initial proof and disproof numbers.
    Frontier(u32, u32),
    Chosen,
}

pub(crate) fn slot(s: u32) -> Slot {
    match s {
        LEAF_WON => Slot::Won,
        LEAF_LOST => Slot::Lost,
        CHOSEN => Slot::Chosen,
        s if s & TAG == 0 => Slot::Node(s),
        s => Slot::Frontier(s >> 15 & MAX_INITIAL, s & MAX_INITIAL),
    }
}

/// A frontier slot with proof number `pn` and disproof number `dn`
/// (both clamped to 1 ..= [`MAX_INITIAL`]).
pub(crate) fn frontier(pn: u32, dn: u32) -> u32 {
    TAG | pn.clamp(1, MAX_INITIAL) << 15 | dn.clamp(1, MAX_INITIAL)
}

pub(crate) use alq_engine::key_side as side_of;

/// Open addressing over node ids, keyed by the nodes' keys: 4 bytes a slot,
/// at most three quarters full.
#[derive(Default)]
struct IdTable {
    slots: Vec<u32>,
    len: usize,
}

const EMPTY: u32 = u32::MAX;

fn home(k: u64, mask: usize) -> usize {
    let h = k.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    (h >> 29) as usize & mask
}

impl IdTable {
    pub(crate) fn find(&self, keys: &[u64], k: u64) -> Option<u32> {
        if self.slots.is_empty() {
            return None;
        }
        let mask = self.slots.len() - 1;
        let mut i = home(k, mask);
        loop {
            match self.slots[i] {
                EMPTY => return None,
                id if keys[id as usize] == k => return Some(id),
                _ => i = (i + 1) & mask,
            }
        }
    }

    /// Adds node `id` (whose key is `keys[id]`, not yet in the table).
    pub(crate) fn insert(&mut self, keys: &[u64], id: u32) {
        if (self.len + 1) * 4 > self.slots.len() * 3 {
            let size = (self.slots.len() * 2).max(1024);
            let old = std::mem::replace(&mut self.slots, vec![EMPTY; size]);
            for id in old.into_iter().filter(|&s| s != EMPTY) {
                self.place(keys, id);
            }
        }
        self.place(keys, id);
        self.len += 1;
    }

    fn place(&mut self, keys: &[u64], id: u32) {
        let mask = self.slots.len() - 1;
        let mut i = home(keys[id as usize], mask);
        while self.slots[i] != EMPTY {
            i = (i + 1) & mask;
        }
        self.slots[i] = id;
    }

    pub(crate) fn bytes(&self) -> usize {
        self.slots.len() * 4
    }
}

/// The explored graph of one win question.
pub(crate) struct CompactGraph {
    pub(crate) keys: Vec<u64>,
    /// Slot ranges: node `i` has `slots[first[i]..first[i + 1]]`.
    pub(crate) first: Vec<u32>,
    pub(crate) slots: Vec<u32>,
    pub(crate) pn: Vec<u32>,
    pub(crate) dn: Vec<u32>,
    index: IdTable,
    /// Slots that hold a node id.
    links: usize,
}

impl Default for CompactGraph {
    fn default() -> CompactGraph {
        CompactGraph {
            keys: Vec::new(),
            first: vec![0],
            slots: Vec::new(),
            pn: Vec::new(),
            dn: Vec::new(),
            index: IdTable::default(),
            links: 0,
        }
    }
}

impl CompactGraph {
    /// A graph from its arrays (as a state file holds them; the caller
    /// checked their ranges), with its hash index built. `Err(id)` when node
    /// `id`'s key is an earlier node's.
    pub(crate) fn from_parts(
        keys: Vec<u64>,
        first: Vec<u32>,
        slots: Vec<u32>,
        pn: Vec<u32>,
        dn: Vec<u32>,
    ) -> Result<CompactGraph, u32> {
        let links = slots.iter().filter(|&&x| x & TAG == 0).count();
        let mut graph = CompactGraph { keys, first, slots, pn, dn, index: IdTable::default(), links };
        for id in 0..graph.keys.len() as u32 {
            if graph.find(graph.keys[id as usize]).is_some() {
                return Err(id);
            }
            graph.index.insert(&graph.keys, id);
        }
        Ok(graph)
    }

    pub(crate) fn len(&self) -> usize {
        self.keys.len()
    }

    pub(crate) fn find(&self, k: u64) -> Option<u32> {
        self.index.find(&self.keys, k)
    }

    /// Starts node `k`; its slots follow with [`CompactGraph::push_slot`] and end with [`CompactGraph::close`].
    pub(crate) fn open(&mut self, k: u64) -> u32 {
        let id = self.keys.len() as u32;
        self.keys.push(k);
        self.pn.push(1);
        self.dn.push(1);
        self.index.insert(&self.keys, id);
        id
    }

    pub(crate) fn push_slot(&mut self, s: u32) {
        self.links += usize::from(s & TAG == 0);
        self.slots.push(s);
    }

    /// Points slot `at` (frontier or chosen) to node `id`.
    pub(crate) fn set_slot(&mut self, at: usize, id: u32) {
        debug_assert!(self.slots[at] & TAG != 0 && id & TAG == 0);
        self.links += 1;
        self.slots[at] = id;
    }

    pub(crate) fn close(&mut self) {
        self.first.push(self.slots.len() as u32);
    }

    pub(crate) fn successors(&self, node: u32) -> &[u32] {
        let i = node as usize;
        &self.slots[self.first[i] as usize..self.first[i + 1] as usize]
    }

    /// Whether another node with up to `moves` slots still fits the slot index.
    pub(crate) fn has_room(&self, moves: usize) -> bool {
        self.len() < MAX_NODES && self.slots.len() + moves < u32::MAX as usize
    }

    /// Bytes the graph holds (elements in use; the hash table whole).
    pub(crate) fn memory_bytes(&self) -> usize {
        self.keys.len() * 16 + self.first.len() * 4 + self.slots.len() * 4 + self.index.bytes()
    }

    /// What the graph and one analysis round take together: reverse links
    /// (4 bytes each and 4 a node), a status byte, a rank, a counter and a
    /// queue entry per node.
    pub(crate) fn memory_with_analysis(&self) -> usize {
        self.memory_bytes() + self.links * 4 + self.len() * (4 + 1 + 4 + 2 + 4)
    }

    /// Reverse links between nodes (compressed rows, ascending node order),
    /// built without a second offset array.
    pub(crate) fn predecessors(&self) -> Predecessors {
        let n = self.len();
        let mut start = vec![0u32; n + 1];
        for &s in &self.slots {
            if s & TAG == 0 {
                start[s as usize] += 1;
            }
        }
        for i in 1..=n {
            start[i] += start[i - 1];
        }
        let mut list = vec![0u32; start[n] as usize];
        for node in (0..n as u32).rev() {
            for &s in self.successors(node) {
                if s & TAG == 0 {
                    start[s as usize] -= 1;
                    list[start[s as usize] as usize] = node;
                }
            }
        }
        Predecessors::from_parts(start, list)
    }

    /// The nodes from which `attacker` forces a win, with frontier slots
    /// counted as won (`frontier_won`) or as not won: the attractor of the
    /// won leaves (least fixed point, so cycles are not wins). A node's rank
    /// (from 1; leaves count as 0, `u32::MAX` not won) is the order in which
    /// it joined: every node joins after the successors that make it won, so
    /// ranks fall along a winning strategy and show that it uses no cycle.
    pub(crate) fn attractor(&self, attacker: Side, preds: &Predecessors, frontier_won: bool) -> Vec<u32> {
        let n = self.len();
        let mut rank = vec![u32::MAX; n];
        let mut pending = vec![0u16; n];
        let mut queue = Vec::new();
        let mut next = 1u32;
        for node in 0..n as u32 {
            let or = side_of(self.keys[node as usize]) == attacker;
            let mut won = false;
            let mut waiting = 0u16;
            for &s in self.successors(node) {
                let leaf_won = match slot(s) {
                    Slot::Node(_) => {
                        waiting += 1;
                        continue;
                    }
                    Slot::Won => true,
                    Slot::Lost => false,
                    Slot::Frontier(..) | Slot::Chosen => frontier_won,
                };
                if or && leaf_won {
                    won = true;
                } else if !leaf_won {
                    // At the opponent's turn a slot not won keeps the node out.
                    waiting += u16::from(!or);
                }
            }
            // The attacker needs one winning successor; the opponent must
            // have all of them winning for the attacker.
            let pend = if or { 1 } else { waiting };
            if won || (!or && pend == 0) {
                rank[node as usize] = next;
                next += 1;
                queue.push(node);
            } else {
                pending[node as usize] = pend;
            }
        }
        while let Some(node) = queue.pop() {
            for &p in preds.of(node) {
                let p = p as usize;
                if rank[p] != u32::MAX {
                    continue;
                }
                pending[p] -= 1;
                if pending[p] == 0 {
                    rank[p] = next;
                    next += 1;
                    queue.push(p as u32);
                }
            }
        }
        rank
    }

    /// Rewrites frontier slots whose positions have become nodes; returns
    /// how many it rewrote.
    pub(crate) fn refresh(&mut self, rules: RuleSet) -> u64 {
        let mut rewritten = 0;
        for node in 0..self.len() {
            let (a, b) = (self.first[node] as usize, self.first[node + 1] as usize);
            if !self.slots[a..b].iter().any(|&s| matches!(slot(s), Slot::Frontier(..))) {
                continue;
            }
            let pos = Position::from_key_unchecked(self.keys[node]);
            for (j, mv) in pos.legal_moves_in(rules).into_iter().enumerate() {
                if matches!(slot(self.slots[a + j]), Slot::Frontier(..)) {
                    if let Some(id) = self.find(pos.play(mv).key()) {
                        self.set_slot(a + j, id);
                        rewritten += 1;
                    }
                }
            }
        }
        rewritten
    }
}
