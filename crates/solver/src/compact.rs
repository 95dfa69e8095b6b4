//! The threshold search's graph in a compact layout, and its state file.
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
//! passes through them ([`Graph::refresh`] rewrites them all between rounds).
//! A stale slot only makes the analysis see less than it could: it counts as
//! unexpanded, which is never wrong.
//!
//! Nodes are created in expansion order and their slots appended, so the
//! slots of node `i` are `slots[first[i]..first[i + 1]]`.

use std::io::{BufWriter, Read, Write};
use std::path::Path;

use alq_engine::{Position, RuleSet, Side};
use alq_tablebase::Checksum;

use crate::graph::{key, position};
use crate::SolveError;

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
pub(crate) struct IdTable {
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
pub(crate) struct Graph {
    pub(crate) keys: Vec<u64>,
    /// Slot ranges: node `i` has `slots[first[i]..first[i + 1]]`.
    pub(crate) first: Vec<u32>,
    pub(crate) slots: Vec<u32>,
    pub(crate) pn: Vec<u32>,
    pub(crate) dn: Vec<u32>,
    pub(crate) index: IdTable,
    /// Slots that hold a node id.
    links: usize,
}

impl Default for Graph {
    fn default() -> Graph {
        Graph {
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

impl Graph {
    pub(crate) fn len(&self) -> usize {
        self.keys.len()
    }

    pub(crate) fn find(&self, k: u64) -> Option<u32> {
        self.index.find(&self.keys, k)
    }

    /// Starts node `k`; its slots follow with [`Graph::push_slot`] and end with [`Graph::close`].
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
    pub(crate) fn predecessors(&self) -> crate::graph::Predecessors {
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
        crate::graph::Predecessors::from_parts(start, list)
    }

    /// The nodes from which `attacker` forces a win, with frontier slots
    /// counted as won (`frontier_won`) or as not won: the attractor of the
    /// won leaves (least fixed point, so cycles are not wins). A node's rank
    /// (from 1; leaves count as 0, `u32::MAX` not won) is the order in which
    /// it joined: every node joins after the successors that make it won, so
    /// ranks fall along a winning strategy and show that it uses no cycle.
    pub(crate) fn attractor(&self, attacker: Side, preds: &crate::graph::Predecessors, frontier_won: bool) -> Vec<u32> {
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
            let pos = position(self.keys[node]);
            for (j, mv) in pos.legal_moves_in(rules).into_iter().enumerate() {
                if matches!(slot(self.slots[a + j]), Slot::Frontier(..)) {
                    if let Some(id) = self.find(key(&pos.play(mv))) {
                        self.set_slot(a + j, id);
                        rewritten += 1;
                    }
                }
            }
        }
        rewritten
    }
}

/// A threshold search stopped by its budget, to be continued (`--resume`).
pub struct SearchState {
    pub rules: RuleSet,
    /// The win question: whether White (else Black) forces a win.
    pub attacker: Side,
    pub root: u64,
    /// The win/draw/loss tables' piece count its leaves came from (0: none).
    pub table_pieces: u32,
    /// Whether earlier proven positions were left out as leaves (a
    /// certificate was asked for).
    pub certificates: bool,
    /// Positions expanded so far, in all runs.
    pub nodes: u64,
    pub(crate) graph: Graph,
}

impl SearchState {
    /// Positions expanded (nodes of the graph).
    pub fn graph_nodes(&self) -> usize {
        self.graph.len()
    }

    /// The position the search is about.
    pub fn root_position(&self) -> Position {
        position(self.root)
    }
}

// The state file. All integers little-endian:
//
// | size | field |
// | --- | --- |
// | 8 | magic `ALQTHRS\n` |
// | 4 | format version (1) |
// | 16 | rule set name, zero-padded |
// | 8 | root key |
// | 1 | attacker (0 White, 1 Black) |
// | 1 | certificates (0 or 1) |
// | 2 | table pieces |
// | 8 | positions expanded so far |
// | 8 | N nodes |
// | 8 | S slots |
// | N × 8 | keys |
// | (N + 1) × 4 | slot starts |
// | S × 4 | slots |
// | N × 4, N × 4 | proof numbers, disproof numbers |
// | 8 | checksum (`alq_tablebase::Checksum`) of everything before it, in parts of 1 MiB |

const MAGIC: [u8; 8] = *b"ALQTHRS\n";
const VERSION: u32 = 1;
const CHUNK: usize = 1 << 20;

/// A writer that checksums what it writes in parts of [`CHUNK`] bytes.
struct Summed<W: Write> {
    out: W,
    buf: Vec<u8>,
    sum: Checksum,
}

impl<W: Write> Summed<W> {
    fn put(&mut self, mut bytes: &[u8]) -> std::io::Result<()> {
        while !bytes.is_empty() {
            let take = (CHUNK - self.buf.len()).min(bytes.len());
            self.buf.extend_from_slice(&bytes[..take]);
            bytes = &bytes[take..];
            if self.buf.len() == CHUNK {
                self.flush_chunk()?;
            }
        }
        Ok(())
    }

    fn flush_chunk(&mut self) -> std::io::Result<()> {
        self.sum.part(&self.buf);
        self.out.write_all(&self.buf)?;
        self.buf.clear();
        Ok(())
    }

    fn finish(mut self) -> std::io::Result<W> {
        if !self.buf.is_empty() {
            self.flush_chunk()?;
        }
        let sum = self.sum.finish();
        self.out.write_all(&sum.to_le_bytes())?;
        Ok(self.out)
    }
}

/// A reader that checksums what it reads in the same parts.
struct SummedReader<R: Read> {
    input: R,
    buf: Vec<u8>,
    at: usize,
    /// Body bytes not yet read into `buf`.
    left: u64,
    sum: Checksum,
}

impl<R: Read> SummedReader<R> {
    fn take(&mut self, mut out: &mut [u8]) -> std::io::Result<bool> {
        while !out.is_empty() {
            if self.at == self.buf.len() {
                if self.left == 0 {
                    return Ok(false);
                }
                let n = (CHUNK as u64).min(self.left) as usize;
                self.buf.resize(n, 0);
                self.input.read_exact(&mut self.buf)?;
                self.sum.part(&self.buf);
                self.left -= n as u64;
                self.at = 0;
            }
            let n = (self.buf.len() - self.at).min(out.len());
            out[..n].copy_from_slice(&self.buf[self.at..self.at + n]);
            self.at += n;
            out = &mut out[n..];
        }
        Ok(true)
    }
}

/// `count` little-endian words of `W` bytes (None: the file ended first).
fn read_words<R: Read, T, const W: usize>(
    r: &mut SummedReader<R>,
    count: usize,
    decode: fn([u8; W]) -> T,
) -> std::io::Result<Option<Vec<T>>> {
    let mut out = Vec::with_capacity(count);
    let mut bytes = vec![0u8; CHUNK];
    let mut left = count;
    while left > 0 {
        let m = left.min(CHUNK / W);
        if !r.take(&mut bytes[..m * W])? {
            return Ok(None);
        }
        out.extend(bytes[..m * W].chunks_exact(W).map(|c| decode(c.try_into().expect("W bytes"))));
        left -= m;
    }
    Ok(Some(out))
}

fn put_u32s<W: Write>(w: &mut Summed<W>, xs: &[u32]) -> std::io::Result<()> {
    let mut bytes = Vec::with_capacity(CHUNK);
    for block in xs.chunks(CHUNK / 4) {
        bytes.clear();
        block.iter().for_each(|x| bytes.extend_from_slice(&x.to_le_bytes()));
        w.put(&bytes)?;
    }
    Ok(())
}

impl SearchState {
    /// Writes the state atomically (temporary file in the same folder, then rename).
    pub fn save(&self, path: &Path) -> Result<(), SolveError> {
        let io = |p: &Path| {
            let p = p.to_path_buf();
            move |source| SolveError::Io { path: p, source }
        };
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "state".into());
        let tmp = path.with_file_name(format!(".{name}.tmp.{}", std::process::id()));
        let write = || -> std::io::Result<()> {
            let file = std::fs::File::create(&tmp)?;
            let mut w = Summed { out: BufWriter::new(file), buf: Vec::with_capacity(CHUNK), sum: Checksum::new() };
            let g = &self.graph;
            let mut head = Vec::new();
            head.extend_from_slice(&MAGIC);
            head.extend_from_slice(&VERSION.to_le_bytes());
            let mut rules = [0u8; 16];
            rules[..self.rules.name().len()].copy_from_slice(self.rules.name().as_bytes());
            head.extend_from_slice(&rules);
            head.extend_from_slice(&self.root.to_le_bytes());
            head.push(u8::from(self.attacker == Side::Black));
            head.push(u8::from(self.certificates));
            head.extend_from_slice(&(self.table_pieces as u16).to_le_bytes());
            head.extend_from_slice(&self.nodes.to_le_bytes());
            head.extend_from_slice(&(g.len() as u64).to_le_bytes());
            head.extend_from_slice(&(g.slots.len() as u64).to_le_bytes());
            w.put(&head)?;
            let mut bytes = Vec::with_capacity(CHUNK);
            for block in g.keys.chunks(CHUNK / 8) {
                bytes.clear();
                block.iter().for_each(|x| bytes.extend_from_slice(&x.to_le_bytes()));
                w.put(&bytes)?;
            }
            put_u32s(&mut w, &g.first)?;
            put_u32s(&mut w, &g.slots)?;
            put_u32s(&mut w, &g.pn)?;
            put_u32s(&mut w, &g.dn)?;
            let out = w.finish()?;
            out.into_inner().map_err(|e| e.into_error())?.sync_all()
        };
        if let Err(e) = write() {
            let _ = std::fs::remove_file(&tmp);
            return Err(io(&tmp)(e));
        }
        std::fs::rename(&tmp, path).map_err(io(path))
    }

    /// Reads a state written by [`SearchState::save`]; a damaged or
    /// truncated file is refused with an error naming it.
    pub fn load(path: &Path) -> Result<SearchState, SolveError> {
        let bad = |reason: String| SolveError::BadFile { path: path.to_path_buf(), reason };
        let io = |source| SolveError::Io { path: path.to_path_buf(), source };
        let file = std::fs::File::open(path).map_err(io)?;
        let size = file.metadata().map_err(io)?.len();
        const HEAD: usize = 8 + 4 + 16 + 8 + 1 + 1 + 2 + 8 + 8 + 8;
        if size < (HEAD + 8) as u64 {
            return Err(bad("too short for a threshold search state".into()));
        }
        let mut r = SummedReader {
            input: std::io::BufReader::new(file),
            buf: Vec::new(),
            at: 0,
            left: size - 8,
            sum: Checksum::new(),
        };
        let mut head = [0u8; HEAD];
        r.take(&mut head).map_err(io)?;
        if head[..8] != MAGIC {
            return Err(bad("bad magic number (not a threshold search state)".into()));
        }
        let u64_at = |i: usize| u64::from_le_bytes(head[i..i + 8].try_into().expect("8 bytes"));
        let version = u32::from_le_bytes(head[8..12].try_into().expect("4 bytes"));
        if version != VERSION {
            return Err(bad(format!("format version {version}, this program reads version {VERSION}")));
        }
        let name = String::from_utf8_lossy(&head[12..28]).trim_end_matches('\0').to_string();
        let rules: RuleSet = name.parse().map_err(bad)?;
        let root = u64_at(28);
        let attacker = if head[36] == 1 { Side::Black } else { Side::White };
        let certificates = head[37] == 1;
        let table_pieces = u32::from(u16::from_le_bytes([head[38], head[39]]));
        let nodes = u64_at(40);
        let (n, s) = (u64_at(48), u64_at(56));
        let expected = (HEAD as u64 + 8)
            .checked_add(n.saturating_mul(16 + 4))
            .and_then(|x| x.checked_add(4))
            .and_then(|x| x.checked_add(s.checked_mul(4)?));
        if head[36] > 1
            || head[37] > 1
            || n == 0
            || n > MAX_NODES as u64
            || s >= u64::from(u32::MAX)
            || expected != Some(size)
        {
            return Err(bad(format!("truncated or inconsistent: {size} bytes for {n} positions and {s} slots")));
        }
        let (n, s) = (n as usize, s as usize);
        let short = || bad("truncated".into());
        let keys: Vec<u64> = read_words(&mut r, n, u64::from_le_bytes).map_err(io)?.ok_or_else(short)?;
        let first: Vec<u32> = read_words(&mut r, n + 1, u32::from_le_bytes).map_err(io)?.ok_or_else(short)?;
        let slots: Vec<u32> = read_words(&mut r, s, u32::from_le_bytes).map_err(io)?.ok_or_else(short)?;
        let pn: Vec<u32> = read_words(&mut r, n, u32::from_le_bytes).map_err(io)?.ok_or_else(short)?;
        let dn: Vec<u32> = read_words(&mut r, n, u32::from_le_bytes).map_err(io)?.ok_or_else(short)?;
        let mut sum = [0u8; 8];
        r.input.read_exact(&mut sum).map_err(io)?;
        if r.sum.finish() != u64::from_le_bytes(sum) {
            return Err(bad("checksum mismatch (the file is damaged)".into()));
        }
        // The structure must hold together: ascending slot starts ending at
        // the slot count, node ids in range, keys distinct 51-bit positions.
        let sound = first[0] == 0
            && first[n] as usize == s
            && first.windows(2).all(|w| w[0] <= w[1])
            && slots.iter().all(|&x| x & TAG != 0 || (x as usize) < n)
            && keys.iter().all(|&k| k < 1 << 51)
            && keys[0] == root;
        if !sound {
            return Err(bad("inconsistent graph (slot ranges, node ids or keys out of range)".into()));
        }
        let links = slots.iter().filter(|&&x| x & TAG == 0).count();
        let mut graph = Graph { keys, first, slots, pn, dn, index: IdTable::default(), links };
        for id in 0..graph.keys.len() as u32 {
            if graph.find(graph.keys[id as usize]).is_some() {
                return Err(bad(format!("position {} appears twice", id)));
            }
            graph.index.insert(&graph.keys, id);
        }
        Ok(SearchState { rules, attacker, root, table_pieces, certificates, nodes, graph })
    }
}
