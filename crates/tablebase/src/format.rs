//! The table file format: one file per material class.
//!
//! A 48-byte header, all integers little-endian, then one byte per entry in
//! index order:
//!
//! | offset | size | field |
//! | --- | --- | --- |
//! | 0 | 8 | magic `ALQTB\0\r\n` |
//! | 8 | 4 | format version (1) |
//! | 12 | 16 | rules name, zero-padded (`brainking`) |
//! | 28 | 1 | pieces of the side to move |
//! | 29 | 1 | pieces of the other side |
//! | 30 | 1 | index scheme (1: colex, squeezed, side to move normalised) |
//! | 31 | 1 | value encoding (1: byte = distance + 1, 0 = draw) |
//! | 32 | 8 | number of entries |
//! | 40 | 8 | checksum of bytes 0..40 and the entries |
//!
//! Files are written to a temporary name in the same folder and renamed, so a
//! file with the final name is always complete.

use std::fs::File;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use alq_engine::RuleSet;

use crate::error::TbError;
use crate::index::Material;

pub const MAGIC: [u8; 8] = *b"ALQTB\0\r\n";
pub const FORMAT_VERSION: u32 = 1;
pub const INDEX_SCHEME: u8 = 1;
pub const VALUE_ENCODING: u8 = 1;
pub const HEADER_LEN: usize = 48;

/// The rule set named in the header of `dir`'s smallest table (0v0),
/// `None` when there is no such file yet; an unknown name is an error.
pub fn folder_rules(dir: &Path) -> Result<Option<RuleSet>, TbError> {
    let path = table_path(dir, Material { mover: 0, other: 0 });
    let Ok(mut file) = File::open(&path) else { return Ok(None) };
    let mut h = [0u8; HEADER_LEN];
    if file.read_exact(&mut h).is_err() || h[0..8] != MAGIC {
        return Ok(None);
    }
    let name = header_rules_name(&h);
    match RuleSet::from_name(&name) {
        Some(rules) => Ok(Some(rules)),
        None => Err(TbError::Rules { path, found: name, expected: "a known rule set (brainking, classic)".into() }),
    }
}

/// The rules name a header holds (zero-padded bytes 12..28).
fn header_rules_name(h: &[u8]) -> String {
    String::from_utf8_lossy(&h[12..28]).trim_end_matches('\0').to_string()
}

/// The path of a class's table in `dir`.
pub fn table_path(dir: &Path, material: Material) -> PathBuf {
    dir.join(material.file_name())
}

/// A 64-bit FNV-1a-style checksum over 8-byte little-endian words (the tail
/// zero-padded), fast enough to check gigabytes on load.
pub fn checksum(parts: &[&[u8]]) -> u64 {
    const PRIME: u64 = 0x0000_0100_0000_01b3;
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for part in parts {
        let mut words = part.chunks_exact(8);
        for w in &mut words {
            h = (h ^ u64::from_le_bytes(w.try_into().expect("8 bytes"))).wrapping_mul(PRIME);
        }
        let tail = words.remainder();
        if !tail.is_empty() {
            let mut w = [0u8; 8];
            w[..tail.len()].copy_from_slice(tail);
            h = (h ^ u64::from_le_bytes(w)).wrapping_mul(PRIME);
        }
        h = (h ^ part.len() as u64).wrapping_mul(PRIME);
    }
    h
}

fn header(rules: RuleSet, material: Material, entries: u64) -> [u8; HEADER_LEN] {
    let mut h = [0u8; HEADER_LEN];
    h[0..8].copy_from_slice(&MAGIC);
    h[8..12].copy_from_slice(&FORMAT_VERSION.to_le_bytes());
    let name = rules.name().as_bytes();
    h[12..12 + name.len()].copy_from_slice(name);
    h[28] = material.mover;
    h[29] = material.other;
    h[30] = INDEX_SCHEME;
    h[31] = VALUE_ENCODING;
    h[32..40].copy_from_slice(&entries.to_le_bytes());
    h
}

/// Writes the table of `material` under `rules` into `dir` atomically
/// (temporary file, then rename).
pub fn write_table(dir: &Path, rules: RuleSet, material: Material, values: &[u8]) -> Result<(), TbError> {
    let path = table_path(dir, material);
    let tmp = dir.join(format!(".{}.tmp.{}", material.file_name(), std::process::id()));
    let mut h = header(rules, material, values.len() as u64);
    let sum = checksum(&[&h[..40], values]);
    h[40..48].copy_from_slice(&sum.to_le_bytes());
    let write = || -> std::io::Result<()> {
        let mut file = File::create(&tmp)?;
        file.write_all(&h)?;
        file.write_all(values)?;
        file.sync_all()
    };
    write().map_err(TbError::io(&tmp))?;
    std::fs::rename(&tmp, &path).map_err(TbError::io(&path))
}

/// Checks a header against what the file at `path` should hold; `length` is
/// the whole file's length.
fn check_header(path: &Path, h: &[u8], rules: RuleSet, material: Material, length: u64) -> Result<(), TbError> {
    let path = || path.to_path_buf();
    if h.len() < HEADER_LEN || h[0..8] != MAGIC {
        return Err(TbError::BadMagic { path: path() });
    }
    let version = u32::from_le_bytes(h[8..12].try_into().expect("4 bytes"));
    if version != FORMAT_VERSION {
        return Err(TbError::Version { path: path(), found: version, expected: FORMAT_VERSION });
    }
    let name = header_rules_name(h);
    if name != rules.name() {
        return Err(TbError::Rules { path: path(), found: name, expected: rules.name().to_string() });
    }
    if (h[28], h[29]) != (material.mover, material.other) {
        return Err(TbError::Material { path: path(), found: format!("{}v{}", h[28], h[29]), expected: material });
    }
    if h[30] != INDEX_SCHEME {
        return Err(TbError::IndexScheme { path: path(), found: h[30], expected: INDEX_SCHEME });
    }
    if h[31] != VALUE_ENCODING {
        return Err(TbError::ValueEncoding { path: path(), found: h[31], expected: VALUE_ENCODING });
    }
    let entries = u64::from_le_bytes(h[32..40].try_into().expect("8 bytes"));
    let expected = HEADER_LEN as u64 + material.positions();
    if entries != material.positions() || length != expected {
        return Err(TbError::Length { path: path(), found: length, expected });
    }
    Ok(())
}

/// Whether `dir` holds a finished table for `material` under `rules`
/// (header and length checked, the checksum not).
pub fn table_exists(dir: &Path, rules: RuleSet, material: Material) -> bool {
    let path = table_path(dir, material);
    let Ok(mut file) = File::open(&path) else { return false };
    let Ok(meta) = file.metadata() else { return false };
    let mut h = [0u8; HEADER_LEN];
    file.read_exact(&mut h).is_ok() && check_header(&path, &h, rules, material, meta.len()).is_ok()
}

/// One class's values in memory, as read from its file.
#[derive(Debug)]
pub struct Table {
    material: Material,
    bytes: Vec<u8>,
}

impl Table {
    pub fn material(&self) -> Material {
        self.material
    }

    /// The value bytes in index order.
    #[inline]
    pub fn values(&self) -> &[u8] {
        &self.bytes[HEADER_LEN..]
    }
}

/// Reads and checks the table of `material` under `rules` from `dir`.
pub fn read_table(dir: &Path, rules: RuleSet, material: Material) -> Result<Table, TbError> {
    let path = table_path(dir, material);
    let bytes = match std::fs::read(&path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(TbError::Missing { path, dir: dir.to_path_buf(), material })
        }
        Err(e) => return Err(TbError::Io { path, source: e }),
    };
    if bytes.len() < HEADER_LEN {
        if bytes.len() >= 8 && bytes[0..8] != MAGIC {
            return Err(TbError::BadMagic { path });
        }
        let expected = HEADER_LEN as u64 + material.positions();
        return Err(TbError::Length { path, found: bytes.len() as u64, expected });
    }
    check_header(&path, &bytes[..HEADER_LEN], rules, material, bytes.len() as u64)?;
    let stored = u64::from_le_bytes(bytes[40..48].try_into().expect("8 bytes"));
    if checksum(&[&bytes[..40], &bytes[HEADER_LEN..]]) != stored {
        return Err(TbError::Checksum { path });
    }
    Ok(Table { material, bytes })
}
