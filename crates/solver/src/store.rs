//! The proven-position store of threshold searches, on disk: what earlier
//! runs settled, read by later runs and other goals as leaves.
//!
//! All integers little-endian (format version 2; version 1, without the
//! tables field, is still read):
//!
//! | size | field |
//! | --- | --- |
//! | 8 | magic `ALQPROV\n` |
//! | 4 | format version (2) |
//! | 16 | rule set name, zero-padded (`brainking`, `classic`) |
//! | 4 | tables: the most pieces of the endgame tables any answer leaned on (0: none; `u32::MAX`: not recorded, a version-1 store) |
//! | 8 | number N of positions |
//! | N × 8 | position key ([`alq_engine::Position::key`], 51 bits) in bits 0–50, answers in bits 56–59, sorted by key |
//! | 8 | checksum (`alq_tablebase::checksum`) of everything before it |
//!
//! The answers are four bits: White wins (bit 56), White does not win (57),
//! Black wins (58), Black does not win (59). A position's answers are facts
//! of the infinite game, true whatever tables or run found them, so stores
//! merge by taking the union of the bits (and the larger tables field); a
//! position marked both "wins" and "does not win" for one side is a
//! contradiction and is refused. The tables field says what the answers
//! rest on (to check them, or to trust them), not where they may be used.
//!
//! The file is written atomically ([`alq_fs::write_atomic`]), so a file
//! with the final name is always complete.

use std::path::Path;

use alq_engine::{Position, RuleSet, Side};
use alq_tablebase::checksum;

use crate::error::SolveError;
use crate::files::{parse_rules_field, rules_field, write_checksummed};
use crate::keymap::KeyMap;

const MAGIC: [u8; 8] = *b"ALQPROV\n";
const VERSION: u32 = 2;
/// The header's size in format versions 1 and 2.
const HEADER_V1: usize = 36;
const HEADER: usize = 40;
const KEY_BITS: u64 = (1 << 51) - 1;

/// Positions and their settled win questions, four bits a position: White
/// wins (bit 0), White does not win (1), Black wins (2), Black does not
/// win (3).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ProvenStore {
    pub rules: RuleSet,
    /// The most pieces of the endgame tables any answer leaned on (0: no
    /// tables); `None` for a store that did not record it (format 1).
    pub tables: Option<u32>,
    pub entries: KeyMap<u8>,
}

/// The bit of an answer: for each side, "wins" and "does not win" are known.
pub(crate) fn answer_bit(side: Side, wins: bool) -> u8 {
    let base = if side == Side::White { 0 } else { 2 };
    1 << (base + u8::from(!wins))
}

/// Whether `side` wins by a position's answer `bits` (`None`: not settled).
pub(crate) fn answer_in(bits: u8, side: Side) -> Option<bool> {
    if bits & answer_bit(side, true) != 0 {
        Some(true)
    } else if bits & answer_bit(side, false) != 0 {
        Some(false)
    } else {
        None
    }
}

/// Whether `bits` say both "wins" and "does not win" for one side.
pub(crate) fn contradicts(bits: u8) -> bool {
    bits & 0b0011 == 0b0011 || bits & 0b1100 == 0b1100
}

impl ProvenStore {
    pub fn new(rules: RuleSet) -> ProvenStore {
        ProvenStore { rules, tables: Some(0), entries: KeyMap::default() }
    }

    /// What a certificate proves of every position in it: for a win goal,
    /// that the goal's side wins from each (the ranks of the proof); for a
    /// draw goal, that the other side wins from none (the entries are closed
    /// under the defender's strategy and every reply). Only as sound as the
    /// certificate: check it first ([`crate::check_certificate`]) unless it
    /// is one the project ships.
    pub fn from_certificate(cert: &crate::Certificate) -> ProvenStore {
        let (attacker, negated) = cert.goal.win_question();
        let bit = answer_bit(attacker, !negated);
        let mut store = ProvenStore::new(cert.rules);
        store.tables = Some(cert.table_pieces);
        store.entries.reserve(cert.entries.len());
        for e in &cert.entries {
            *store.entries.entry(e.key).or_insert(0) |= bit;
        }
        store
    }

    /// Whether `side` wins from `pos`, as far as the store knows (`None`:
    /// not settled).
    pub fn answer(&self, pos: &Position, side: Side) -> Option<bool> {
        answer_in(*self.entries.get(&pos.key())?, side)
    }

    /// The answers an exact value's text (side to move's view, as `alq
    /// openings --solve` writes it: `win`, `loss`, `draw`, `≥ draw`,
    /// `≤ draw`) gives: whether the mover wins, whether its opponent wins;
    /// `None` for another text.
    pub fn answers_of_value(text: &str) -> Option<(Option<bool>, Option<bool>)> {
        Some(match text.trim() {
            "win" => (Some(true), None),
            "loss" => (None, Some(true)),
            "draw" => (Some(false), Some(false)),
            "≥ draw" | "≥draw" => (None, Some(false)),
            "≤ draw" | "≤draw" => (Some(false), None),
            _ => return None,
        })
    }

    /// Adds what is known of `pos`: whether its side to move wins and
    /// whether its opponent wins (`None`: not known); a contradiction with
    /// what the store holds names the position.
    pub fn add_answers(
        &mut self,
        pos: &Position,
        mover_wins: Option<bool>,
        opponent_wins: Option<bool>,
    ) -> Result<(), SolveError> {
        let mover = pos.side_to_move();
        let mut bits = 0;
        for (side, answer) in [(mover, mover_wins), (mover.opponent(), opponent_wins)] {
            if let Some(wins) = answer {
                bits |= answer_bit(side, wins);
            }
        }
        if bits == 0 {
            return Ok(());
        }
        let merged = self.entries.get(&pos.key()).copied().unwrap_or(0) | bits;
        if contradicts(merged) {
            return Err(SolveError::Contradiction { position: *pos });
        }
        self.entries.insert(pos.key(), merged);
        Ok(())
    }

    /// Adds `other`'s answers; a contradiction names the position.
    pub fn merge(&mut self, other: &ProvenStore) -> Result<(), SolveError> {
        if other.rules != self.rules {
            return Err(SolveError::StoreRules { from: other.rules, into: self.rules });
        }
        self.tables = match (self.tables, other.tables) {
            (Some(a), Some(b)) => Some(a.max(b)),
            _ => None,
        };
        for (&k, &bits) in &other.entries {
            let merged = self.entries.get(&k).copied().unwrap_or(0) | bits;
            if contradicts(merged) {
                return Err(SolveError::Contradiction { position: Position::from_key_unchecked(k) });
            }
            self.entries.insert(k, merged);
        }
        Ok(())
    }

    /// Writes the store atomically.
    pub fn save(&self, path: &Path) -> Result<(), SolveError> {
        let mut sorted: Vec<(u64, u8)> = self.entries.iter().map(|(&k, &b)| (k, b)).collect();
        sorted.sort_unstable_by_key(|&(k, _)| k);
        let mut bytes = Vec::with_capacity(HEADER + 8 + sorted.len() * 8);
        bytes.extend_from_slice(&MAGIC);
        bytes.extend_from_slice(&VERSION.to_le_bytes());
        bytes.extend_from_slice(&rules_field(self.rules));
        bytes.extend_from_slice(&self.tables.unwrap_or(u32::MAX).to_le_bytes());
        bytes.extend_from_slice(&(sorted.len() as u64).to_le_bytes());
        for (k, b) in sorted {
            bytes.extend_from_slice(&(k | u64::from(b) << 56).to_le_bytes());
        }
        write_checksummed(path, bytes)
    }

    /// Reads a store written by [`ProvenStore::save`]; damaged, truncated
    /// or contradictory files are refused with an error naming the file.
    pub fn load(path: &Path) -> Result<ProvenStore, SolveError> {
        let bytes = std::fs::read(path).map_err(SolveError::io(path))?;
        ProvenStore::parse(&bytes, path)
    }

    /// Reads a store's bytes (a file's, or embedded ones); `path` names
    /// them in errors.
    pub fn parse(bytes: &[u8], path: &Path) -> Result<ProvenStore, SolveError> {
        let bad = |reason: String| SolveError::BadStore { path: path.to_path_buf(), reason };
        if bytes.len() < HEADER_V1 + 8 || bytes[..8] != MAGIC {
            return Err(bad("bad magic number or too short".into()));
        }
        let u64_at = |i: usize| u64::from_le_bytes(bytes[i..i + 8].try_into().expect("8 bytes"));
        let version = u32::from_le_bytes(bytes[8..12].try_into().expect("4 bytes"));
        let (header, tables) = match version {
            1 => (HEADER_V1, None),
            2 if bytes.len() >= HEADER + 8 => {
                let t = u32::from_le_bytes(bytes[28..32].try_into().expect("4 bytes"));
                (HEADER, (t != u32::MAX).then_some(t))
            }
            2 => return Err(bad("bad magic number or too short".into())),
            _ => return Err(bad(format!("format version {version}, this program reads versions 1 and {VERSION}"))),
        };
        let rules = parse_rules_field(&bytes[12..28]).map_err(bad)?;
        let n = u64_at(header - 8);
        if n.checked_mul(8).and_then(|x| x.checked_add(header as u64 + 8)) != Some(bytes.len() as u64) {
            return Err(bad(format!("truncated or too long: {} bytes for {n} positions", bytes.len())));
        }
        let body = bytes.len() - 8;
        if checksum(&[&bytes[..body]]) != u64_at(body) {
            return Err(bad("checksum mismatch (the file is damaged)".into()));
        }
        let mut store = ProvenStore { rules, tables, entries: KeyMap::default() };
        store.entries.reserve(n as usize);
        let mut last = None;
        for i in 0..n as usize {
            let word = u64_at(header + 8 * i);
            let (k, bits) = (word & KEY_BITS, (word >> 56) as u8);
            if word >> 51 & 0x1f != 0
                || bits >> 4 != 0
                || bits == 0
                || contradicts(bits)
                || last.is_some_and(|l| l >= k)
                || Position::from_key(k).is_err()
            {
                return Err(bad(format!("entry {i} is not a sorted, consistent position answer")));
            }
            last = Some(k);
            store.entries.insert(k, bits);
        }
        Ok(store)
    }
}
