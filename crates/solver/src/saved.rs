//! The solver's state file, for `--resume`: what earlier searches proved and
//! which positions they expanded without a proof.
//!
//! All integers little-endian:
//!
//! | size | field |
//! | --- | --- |
//! | 8 | magic `ALQSOLV\n` |
//! | 4 | format version (2; version 1 files lack the next field and are BrainKing's) |
//! | 16 | rule set name, zero-padded (`brainking`, `classic`) |
//! | 8 | number P of proven positions |
//! | 8 | number E of expanded, unproven positions |
//! | P × 10 | position key (8 bytes, see [`alq_engine::Position::key`]) and value (2 bytes: 0 = draw, else distance + 1; odd distances win) |
//! | E × 8 | position key |
//! | 8 | checksum (`alq_tablebase::checksum`) of everything before it |
//!
//! The file is written atomically ([`alq_fs::write_atomic`]), so a file
//! with the final name is always complete.

use std::path::Path;

use alq_engine::{Position, RuleSet};
use alq_tablebase::{checksum, Exact};

use crate::error::SolveError;
use crate::files::{parse_rules_field, rules_field, write_checksummed};

const MAGIC: [u8; 8] = *b"ALQSOLV\n";
const VERSION: u32 = 2;
/// Bytes before the proven positions: magic, version, rules, two counts.
const HEADER: usize = 44;

/// What a solver saves: proven values, and expanded positions without one.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SavedState {
    /// The rule set the values were proven under.
    pub rules: RuleSet,
    pub proven: Vec<(u64, Exact)>,
    pub expanded: Vec<u64>,
}

fn encode(v: Exact) -> u16 {
    match v {
        Exact::Draw => 0,
        Exact::Win(d) | Exact::Loss(d) => d.saturating_add(1).min(u32::from(u16::MAX)) as u16,
    }
}

fn decode(x: u16) -> Exact {
    match x {
        0 => Exact::Draw,
        x if (x - 1) % 2 == 1 => Exact::Win(u32::from(x - 1)),
        x => Exact::Loss(u32::from(x - 1)),
    }
}

/// Writes `state` to `path` atomically.
pub fn save_state(path: &Path, state: &SavedState) -> Result<(), SolveError> {
    let mut bytes = Vec::with_capacity(HEADER + 8 + state.proven.len() * 10 + state.expanded.len() * 8);
    bytes.extend_from_slice(&MAGIC);
    bytes.extend_from_slice(&VERSION.to_le_bytes());
    bytes.extend_from_slice(&rules_field(state.rules));
    bytes.extend_from_slice(&(state.proven.len() as u64).to_le_bytes());
    bytes.extend_from_slice(&(state.expanded.len() as u64).to_le_bytes());
    for &(k, v) in &state.proven {
        bytes.extend_from_slice(&k.to_le_bytes());
        bytes.extend_from_slice(&encode(v).to_le_bytes());
    }
    for k in &state.expanded {
        bytes.extend_from_slice(&k.to_le_bytes());
    }
    write_checksummed(path, bytes)
}

/// Reads a state written by [`save_state`]; damaged or foreign files are
/// refused with an error that names the file.
pub fn load_state(path: &Path) -> Result<SavedState, SolveError> {
    let bytes = std::fs::read(path).map_err(SolveError::io(path))?;
    let bad = |reason: &str| SolveError::BadFile { path: path.to_path_buf(), reason: reason.to_string() };
    if bytes.len() < 36 || bytes[..8] != MAGIC {
        return Err(bad("bad magic number"));
    }
    let u64_at = |i: usize| u64::from_le_bytes(bytes[i..i + 8].try_into().expect("8 bytes"));
    let version = u32::from_le_bytes(bytes[8..12].try_into().expect("4 bytes"));
    let (header, rules) = match version {
        1 => (28, RuleSet::BrainKing),
        2 if bytes.len() >= HEADER + 8 => (HEADER, parse_rules_field(&bytes[12..28]).map_err(|e| bad(&e))?),
        2 => return Err(bad(&format!("truncated: {} bytes", bytes.len()))),
        _ => return Err(bad(&format!("format version {version}, this program reads versions 1 and {VERSION}"))),
    };
    let (p, e) = (u64_at(header - 16), u64_at(header - 8));
    let expected = p
        .checked_mul(10)
        .and_then(|x| e.checked_mul(8).and_then(|y| x.checked_add(y)))
        .and_then(|x| x.checked_add(header as u64 + 8));
    if expected != Some(bytes.len() as u64) {
        return Err(bad(&format!("truncated or too long: {} bytes", bytes.len())));
    }
    let body = bytes.len() - 8;
    if checksum(&[&bytes[..body]]) != u64_at(body) {
        return Err(bad("checksum mismatch (the file is damaged)"));
    }
    let mut state = SavedState { rules, ..SavedState::default() };
    let mut at = header;
    for _ in 0..p {
        let k = u64_at(at);
        let v = u16::from_le_bytes(bytes[at + 8..at + 10].try_into().expect("2 bytes"));
        if Position::from_key(k).is_err() {
            return Err(bad("a position key is out of range"));
        }
        state.proven.push((k, decode(v)));
        at += 10;
    }
    for _ in 0..e {
        let k = u64_at(at);
        if Position::from_key(k).is_err() {
            return Err(bad("a position key is out of range"));
        }
        state.expanded.push(k);
        at += 8;
    }
    Ok(state)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_round_trip() {
        for v in [Exact::Draw, Exact::Win(1), Exact::Loss(0), Exact::Loss(300), Exact::Win(83)] {
            assert_eq!(decode(encode(v)), v);
        }
    }

    #[test]
    fn state_round_trips_and_damage_is_refused() {
        let dir = std::env::temp_dir().join(format!("alq-solver-state-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("state.bin");
        let state = SavedState {
            rules: RuleSet::Classic,
            proven: vec![(5, Exact::Win(3)), (1 << 50, Exact::Draw)],
            expanded: vec![7, 9],
        };
        save_state(&path, &state).unwrap();
        assert_eq!(load_state(&path).unwrap(), state);
        // A version-1 file (no rules field) reads as BrainKing's.
        let v2 = std::fs::read(&path).unwrap();
        let mut v1 = v2[..12].to_vec();
        v1[8..12].copy_from_slice(&1u32.to_le_bytes());
        v1.extend_from_slice(&v2[28..v2.len() - 8]);
        let sum = checksum(&[&v1]);
        v1.extend_from_slice(&sum.to_le_bytes());
        std::fs::write(&path, &v1).unwrap();
        let old = load_state(&path).unwrap();
        assert_eq!((old.rules, &old.proven, &old.expanded), (RuleSet::BrainKing, &state.proven, &state.expanded));
        save_state(&path, &state).unwrap();
        let mut bytes = std::fs::read(&path).unwrap();
        bytes[30] ^= 1;
        std::fs::write(&path, &bytes).unwrap();
        assert!(matches!(load_state(&path), Err(SolveError::BadFile { .. })));
        std::fs::write(&path, &bytes[..bytes.len() - 3]).unwrap();
        assert!(load_state(&path).unwrap_err().to_string().contains("truncated"));
        std::fs::write(&path, b"hello").unwrap();
        assert!(load_state(&path).unwrap_err().to_string().contains("magic"));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
