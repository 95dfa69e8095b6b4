//! The state of a threshold search stopped by its budget, and its file
//! (`--resume`): the compact graph ([`crate::compact`]) with what the search
//! asked.

use std::io::{Read, Write};
use std::path::Path;

use alq_engine::{Position, RuleSet, Side};
use alq_tablebase::Checksum;

use crate::compact::{slot, CompactGraph, Slot, MAX_NODES};
use crate::error::SolveError;
use crate::files::{parse_rules_field, rules_field};

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
    pub(crate) graph: CompactGraph,
}

impl SearchState {
    /// Positions expanded (nodes of the graph).
    pub fn graph_nodes(&self) -> usize {
        self.graph.len()
    }

    /// The position the search is about.
    pub fn root_position(&self) -> Position {
        Position::from_key_unchecked(self.root)
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

/// Bytes of the fixed fields, before the keys.
const HEAD: usize = 8 + 4 + 16 + 8 + 1 + 1 + 2 + 8 + 8 + 8;

impl SearchState {
    /// Writes the state atomically ([`alq_fs::write_atomic_with`]).
    pub fn save(&self, path: &Path) -> Result<(), SolveError> {
        alq_fs::write_atomic_with(path, |out| {
            let mut w = Summed { out, buf: Vec::with_capacity(CHUNK), sum: Checksum::new() };
            let g = &self.graph;
            w.put(&self.head())?;
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
            w.finish().map(drop)
        })
        .map_err(SolveError::io(path))
    }

    /// The fixed fields.
    fn head(&self) -> Vec<u8> {
        let mut head = Vec::with_capacity(HEAD);
        head.extend_from_slice(&MAGIC);
        head.extend_from_slice(&VERSION.to_le_bytes());
        head.extend_from_slice(&rules_field(self.rules));
        head.extend_from_slice(&self.root.to_le_bytes());
        head.push(u8::from(self.attacker == Side::Black));
        head.push(u8::from(self.certificates));
        head.extend_from_slice(&(self.table_pieces as u16).to_le_bytes());
        head.extend_from_slice(&self.nodes.to_le_bytes());
        head.extend_from_slice(&(self.graph.len() as u64).to_le_bytes());
        head.extend_from_slice(&(self.graph.slots.len() as u64).to_le_bytes());
        head
    }

    /// Reads a state written by [`SearchState::save`]; a damaged or
    /// truncated file is refused with an error naming it.
    pub fn load(path: &Path) -> Result<SearchState, SolveError> {
        let bad = |reason: String| SolveError::BadFile { path: path.to_path_buf(), reason };
        let io = SolveError::io(path);
        let file = std::fs::File::open(path).map_err(io)?;
        let size = file.metadata().map_err(io)?.len();
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
        let (mut state, n, s) = SearchState::from_head(&head, size).map_err(bad)?;
        state.graph = read_graph(&mut r, n, s, state.root, path)?;
        Ok(state)
    }

    /// The fields of a file's head, with an empty graph, and the node and
    /// slot counts (checked against the file's `size`).
    fn from_head(head: &[u8; HEAD], size: u64) -> Result<(SearchState, usize, usize), String> {
        if head[..8] != MAGIC {
            return Err("bad magic number (not a threshold search state)".into());
        }
        let u64_at = |i: usize| u64::from_le_bytes(head[i..i + 8].try_into().expect("8 bytes"));
        let version = u32::from_le_bytes(head[8..12].try_into().expect("4 bytes"));
        if version != VERSION {
            return Err(format!("format version {version}, this program reads version {VERSION}"));
        }
        let rules = parse_rules_field(&head[12..28])?;
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
            return Err(format!("truncated or inconsistent: {size} bytes for {n} positions and {s} slots"));
        }
        let state = SearchState {
            rules,
            attacker: if head[36] == 1 { Side::Black } else { Side::White },
            root: u64_at(28),
            table_pieces: u32::from(u16::from_le_bytes([head[38], head[39]])),
            certificates: head[37] == 1,
            nodes: u64_at(40),
            graph: CompactGraph::default(),
        };
        Ok((state, n as usize, s as usize))
    }
}

/// The graph of `n` nodes and `s` slots after the head, checked against
/// the checksum that follows it and for consistency.
fn read_graph<R: Read>(
    r: &mut SummedReader<R>,
    n: usize,
    s: usize,
    root: u64,
    path: &Path,
) -> Result<CompactGraph, SolveError> {
    let bad = |reason: String| SolveError::BadFile { path: path.to_path_buf(), reason };
    let io = SolveError::io(path);
    let short = || bad("truncated".into());
    let keys: Vec<u64> = read_words(r, n, u64::from_le_bytes).map_err(io)?.ok_or_else(short)?;
    let first: Vec<u32> = read_words(r, n + 1, u32::from_le_bytes).map_err(io)?.ok_or_else(short)?;
    let slots: Vec<u32> = read_words(r, s, u32::from_le_bytes).map_err(io)?.ok_or_else(short)?;
    let pn: Vec<u32> = read_words(r, n, u32::from_le_bytes).map_err(io)?.ok_or_else(short)?;
    let dn: Vec<u32> = read_words(r, n, u32::from_le_bytes).map_err(io)?.ok_or_else(short)?;
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
        && slots.iter().all(|&x| !matches!(slot(x), Slot::Node(c) if c as usize >= n))
        && keys.iter().all(|&k| k < 1 << 51)
        && keys[0] == root;
    if !sound {
        return Err(bad("inconsistent graph (slot ranges, node ids or keys out of range)".into()));
    }
    CompactGraph::from_parts(keys, first, slots, pn, dn).map_err(|id| bad(format!("position {} appears twice", id)))
}
