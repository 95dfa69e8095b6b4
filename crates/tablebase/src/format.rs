//! The table file format: one file per material class and kind.
//!
//! A 48-byte header, all integers little-endian, then the entries in index
//! order:
//!
//! | offset | size | field |
//! | --- | --- | --- |
//! | 0 | 8 | magic `ALQTB\0\r\n` |
//! | 8 | 4 | format version (1 or 2) |
//! | 12 | 16 | rules name, zero-padded (`brainking`) |
//! | 28 | 1 | pieces of the side to move |
//! | 29 | 1 | pieces of the other side |
//! | 30 | 1 | index scheme (1: colex, squeezed, side to move normalised; 2: the same over mirror pairs) |
//! | 31 | 1 | value encoding, the kind (1: distance, one byte = distance + 1, 0 = draw; 2: win/draw/loss, 2 bits; 3: distance to progress, one byte, see `dtz.rs`) |
//! | 32 | 8 | number of entries |
//! | 40 | 8 | checksum of bytes 0..40 and the entries |
//!
//! Version 1 files hold scheme 1 with encoding 1 (the files of the first
//! builds, still read). Version 2 files use scheme 2 and either encoding.
//! Encoding 2 packs four entries a byte, entry `i` in bits `2 (i mod 4)` and
//! `2 (i mod 4) + 1` of byte `i / 4`: 0 draw, 1 win, 2 loss.
//!
//! Distance tables are named `avb.alqtb`, win/draw/loss tables
//! `avb.wdl.alqtb`, distance-to-progress tables `avb.dtz.alqtb`; one folder
//! may hold all three. Files are written to a
//! temporary name in the same folder and renamed, so a file with the final
//! name is always complete; a temporary file left by a killed build is
//! removed by the next build.

use std::fs::File;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use alq_engine::RuleSet;

use crate::error::TbError;
use crate::index::{Material, Scheme};
use crate::value::{value_from_byte, wdl_code, Exact, Kind, Wdl};

pub const MAGIC: [u8; 8] = *b"ALQTB\0\r\n";
/// The version this program writes; it reads 1 and 2.
pub const FORMAT_VERSION: u32 = 2;
pub const HEADER_LEN: usize = 48;

/// The rule set named in the header of `dir`'s smallest table (0v0, of
/// either kind), `None` when there is no such file yet; an unknown name is
/// an error.
pub fn folder_rules(dir: &Path) -> Result<Option<RuleSet>, TbError> {
    for kind in Kind::ALL {
        let path = table_path_of(dir, kind, Material { mover: 0, other: 0 });
        let Ok(mut file) = File::open(&path) else { continue };
        let mut h = [0u8; HEADER_LEN];
        if file.read_exact(&mut h).is_err() || h[0..8] != MAGIC {
            continue;
        }
        let name = header_rules_name(&h);
        return match RuleSet::from_name(&name) {
            Some(rules) => Ok(Some(rules)),
            None => Err(TbError::Rules { path, found: name, expected: "a known rule set (brainking, classic)".into() }),
        };
    }
    Ok(None)
}

/// The rules name a header holds (zero-padded bytes 12..28).
fn header_rules_name(h: &[u8]) -> String {
    String::from_utf8_lossy(&h[12..28]).trim_end_matches('\0').to_string()
}

/// The path of a class's distance table in `dir`.
pub fn table_path(dir: &Path, material: Material) -> PathBuf {
    dir.join(material.file_name())
}

/// The path of a class's table of `kind` in `dir`.
pub fn table_path_of(dir: &Path, kind: Kind, material: Material) -> PathBuf {
    dir.join(kind.file_name(material))
}

/// A 64-bit FNV-1a-style checksum over 8-byte little-endian words (the tail
/// zero-padded), fast enough to check gigabytes on load.
pub fn checksum(parts: &[&[u8]]) -> u64 {
    let mut sum = Checksum::new();
    parts.iter().for_each(|part| sum.part(part));
    sum.finish()
}

/// [`checksum`] computed part by part, for files too large to hold at once.
#[derive(Clone, Copy, Debug)]
pub struct Checksum(u64);

impl Default for Checksum {
    fn default() -> Checksum {
        Checksum::new()
    }
}

impl Checksum {
    const PRIME: u64 = 0x0000_0100_0000_01b3;

    pub fn new() -> Checksum {
        Checksum(0xcbf2_9ce4_8422_2325)
    }

    /// Adds one part (its bytes, then its length).
    pub fn part(&mut self, part: &[u8]) {
        let mut h = self.0;
        let mut words = part.chunks_exact(8);
        for w in &mut words {
            h = (h ^ u64::from_le_bytes(w.try_into().expect("8 bytes"))).wrapping_mul(Self::PRIME);
        }
        let tail = words.remainder();
        if !tail.is_empty() {
            let mut w = [0u8; 8];
            w[..tail.len()].copy_from_slice(tail);
            h = (h ^ u64::from_le_bytes(w)).wrapping_mul(Self::PRIME);
        }
        self.0 = (h ^ part.len() as u64).wrapping_mul(Self::PRIME);
    }

    pub fn finish(self) -> u64 {
        self.0
    }
}

/// How a table's entries are laid out: what its header says beyond the class.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layout {
    pub version: u32,
    pub scheme: Scheme,
    pub kind: Kind,
}

impl Layout {
    /// What this program writes for `kind`.
    pub fn current(kind: Kind) -> Layout {
        Layout { version: FORMAT_VERSION, scheme: Scheme::Mirror, kind }
    }

    /// The layout of the first builds' files.
    pub const VERSION_1: Layout = Layout { version: 1, scheme: Scheme::Plain, kind: Kind::Distance };
}

fn header(rules: RuleSet, material: Material, layout: Layout) -> [u8; HEADER_LEN] {
    let mut h = [0u8; HEADER_LEN];
    h[0..8].copy_from_slice(&MAGIC);
    h[8..12].copy_from_slice(&layout.version.to_le_bytes());
    let name = rules.name().as_bytes();
    h[12..12 + name.len()].copy_from_slice(name);
    h[28] = material.mover;
    h[29] = material.other;
    h[30] = layout.scheme.code();
    h[31] = layout.kind.code();
    h[32..40].copy_from_slice(&material.slots(layout.scheme).to_le_bytes());
    h
}

/// Writes the table of `material` under `rules` into `dir` atomically
/// (temporary file, then rename). `data` is the encoded entries: one byte
/// each for distance tables, four a byte for win/draw/loss tables.
pub fn write_table(dir: &Path, rules: RuleSet, material: Material, layout: Layout, data: &[u8]) -> Result<(), TbError> {
    let path = table_path_of(dir, layout.kind, material);
    let expected = layout.kind.data_len(material.slots(layout.scheme));
    assert_eq!(data.len() as u64, expected, "{material}: the data must hold every entry");
    let mut h = header(rules, material, layout);
    let sum = checksum(&[&h[..40], data]);
    h[40..48].copy_from_slice(&sum.to_le_bytes());
    alq_fs::write_atomic_with(&path, |file| {
        file.write_all(&h)?;
        file.write_all(data)
    })
    .map_err(TbError::io(&path))
}

/// Removes the temporary files that killed builds left in `dir`
/// (`.NAME.tmp.…`, [`alq_fs::temporary_path`]); returns how many.
pub fn remove_stale_temporaries(dir: &Path) -> Result<usize, TbError> {
    let mut removed = 0;
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(0),
        Err(e) => return Err(TbError::Io { path: dir.to_path_buf(), source: e }),
    };
    for entry in entries {
        let entry = entry.map_err(TbError::io(dir))?;
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if alq_fs::is_temporary(&name, ".alqtb") {
            std::fs::remove_file(entry.path()).map_err(TbError::io(entry.path()))?;
            removed += 1;
        }
    }
    Ok(removed)
}

/// Checks a header against what the file at `path` should hold; `length` is
/// the whole file's length. Returns the layout the header names.
fn check_header(
    path: &Path,
    h: &[u8],
    rules: RuleSet,
    material: Material,
    kind: Kind,
    length: u64,
) -> Result<Layout, TbError> {
    let path = || path.to_path_buf();
    if h.len() < HEADER_LEN || h[0..8] != MAGIC {
        return Err(TbError::BadMagic { path: path() });
    }
    let version = u32::from_le_bytes(h[8..12].try_into().expect("4 bytes"));
    if !(1..=FORMAT_VERSION).contains(&version) {
        return Err(TbError::Version { path: path(), found: version, expected: FORMAT_VERSION });
    }
    let name = header_rules_name(h);
    if name != rules.name() {
        return Err(TbError::Rules { path: path(), found: name, expected: rules.name().to_string() });
    }
    if (h[28], h[29]) != (material.mover, material.other) {
        return Err(TbError::Material { path: path(), found: format!("{}v{}", h[28], h[29]), expected: material });
    }
    let expected_scheme = if version == 1 { Scheme::Plain } else { Scheme::Mirror };
    if h[30] != expected_scheme.code() {
        return Err(TbError::IndexScheme { path: path(), found: h[30], expected: expected_scheme.code() });
    }
    let expected_kind = if version == 1 { Kind::Distance } else { kind };
    if h[31] != expected_kind.code() || kind != expected_kind {
        return Err(TbError::ValueEncoding { path: path(), found: h[31], expected: kind.code() });
    }
    let layout = Layout { version, scheme: expected_scheme, kind };
    let entries = u64::from_le_bytes(h[32..40].try_into().expect("8 bytes"));
    let slots = material.slots(layout.scheme);
    let expected = HEADER_LEN as u64 + kind.data_len(slots);
    if entries != slots || length != expected {
        return Err(TbError::Length { path: path(), found: length, expected });
    }
    Ok(layout)
}

/// Whether `dir` holds a finished table of `kind` for `material` under
/// `rules` (header and length checked, the checksum not).
pub fn table_exists(dir: &Path, rules: RuleSet, material: Material, kind: Kind) -> bool {
    table_layout(dir, rules, material, kind).is_some()
}

/// The layout of the finished table of `kind` for `material` in `dir`,
/// from its header alone; `None` when there is no such table.
pub fn table_layout(dir: &Path, rules: RuleSet, material: Material, kind: Kind) -> Option<Layout> {
    let path = table_path_of(dir, kind, material);
    let mut file = File::open(&path).ok()?;
    let length = file.metadata().ok()?.len();
    let mut h = [0u8; HEADER_LEN];
    file.read_exact(&mut h).ok()?;
    check_header(&path, &h, rules, material, kind, length).ok()
}

/// One class's values in memory, as read from its file.
#[derive(Debug)]
pub struct Table {
    material: Material,
    layout: Layout,
    bytes: Vec<u8>,
}

impl Table {
    pub fn material(&self) -> Material {
        self.material
    }

    pub fn layout(&self) -> Layout {
        self.layout
    }

    /// The encoded entries in index order (bytes of a distance table, 2-bit
    /// codes of a win/draw/loss table).
    #[inline]
    pub fn data(&self) -> &[u8] {
        &self.bytes[HEADER_LEN..]
    }

    /// The number of entries (slots) the table holds.
    pub fn data_entries(&self) -> u64 {
        self.material.slots(self.layout.scheme)
    }

    /// A view for lookups by index.
    #[inline]
    pub fn view(&self) -> TableView<'_> {
        TableView { layout: self.layout, material: self.material, data: self.data() }
    }
}

/// A borrowed table: its layout and encoded entries.
#[derive(Clone, Copy, Debug)]
pub struct TableView<'a> {
    pub layout: Layout,
    pub material: Material,
    pub data: &'a [u8],
}

impl TableView<'_> {
    /// The index of a stored form in this table.
    #[inline]
    pub fn index(&self, us: u32, them: u32) -> u64 {
        crate::index::index_in(self.layout.scheme, us, them, self.material)
    }

    /// The distance value of entry `i` (distance tables only).
    #[inline]
    pub fn value(&self, i: u64) -> Exact {
        debug_assert_eq!(self.layout.kind, Kind::Distance);
        value_from_byte(self.data[i as usize])
    }

    /// The win/draw/loss value of entry `i` (either kind).
    #[inline]
    pub fn wdl(&self, i: u64) -> Wdl {
        self.layout.kind.wdl_in(*self.byte(i), i)
    }

    /// The byte that holds entry `i` (its address serves prefetching).
    #[inline]
    pub fn byte(&self, i: u64) -> &u8 {
        &self.data[self.layout.kind.byte_of(i) as usize]
    }
}

/// Packs win/draw/loss values four a byte (value encoding 2).
pub fn pack_wdl(values: impl ExactSizeIterator<Item = Wdl>) -> Vec<u8> {
    let mut out = vec![0u8; values.len().div_ceil(4)];
    for (i, w) in values.enumerate() {
        out[i / 4] |= wdl_code(w) << (2 * (i % 4));
    }
    out
}

/// Reads and checks the distance table of `material` under `rules` from `dir`.
pub fn read_table(dir: &Path, rules: RuleSet, material: Material) -> Result<Table, TbError> {
    read_table_of(dir, rules, material, Kind::Distance)
}

/// Reads and checks the table of `kind` for `material` under `rules` from `dir`.
pub fn read_table_of(dir: &Path, rules: RuleSet, material: Material, kind: Kind) -> Result<Table, TbError> {
    let path = table_path_of(dir, kind, material);
    let bytes = std::fs::read(&path).map_err(|e| open_error(dir, &path, material, e))?;
    let layout = check_start(&path, &bytes, rules, material, kind, bytes.len() as u64)?;
    let stored = u64::from_le_bytes(bytes[40..48].try_into().expect("8 bytes"));
    if checksum(&[&bytes[..40], &bytes[HEADER_LEN..]]) != stored {
        return Err(TbError::Checksum { path });
    }
    Ok(Table { material, layout, bytes })
}

/// The error for a table file that cannot be opened: a missing one names
/// the class the folder lacks.
fn open_error(dir: &Path, path: &Path, material: Material, e: std::io::Error) -> TbError {
    if e.kind() == std::io::ErrorKind::NotFound {
        TbError::Missing { path: path.to_path_buf(), dir: dir.to_path_buf(), material }
    } else {
        TbError::Io { path: path.to_path_buf(), source: e }
    }
}

/// Checks the start of a file (its header, or all of it when shorter) whose
/// whole length is `length`; returns the layout the header names.
fn check_start(
    path: &Path,
    start: &[u8],
    rules: RuleSet,
    material: Material,
    kind: Kind,
    length: u64,
) -> Result<Layout, TbError> {
    if start.len() < HEADER_LEN {
        if start.len() >= 8 && start[0..8] != MAGIC {
            return Err(TbError::BadMagic { path: path.to_path_buf() });
        }
        let expected = HEADER_LEN as u64 + kind.data_len(material.slots(Scheme::Mirror));
        return Err(TbError::Length { path: path.to_path_buf(), found: length, expected });
    }
    check_header(path, &start[..HEADER_LEN], rules, material, kind, length)
}

/// A table probed where it lies: the header is checked when it is opened
/// (not the checksum, which would mean reading the whole file), and every
/// probe reads one byte at its offset. For tables larger than the memory to
/// spare; the operating system's page cache keeps what is probed often.
#[derive(Debug)]
pub struct DiskTable {
    path: PathBuf,
    file: File,
    material: Material,
    layout: Layout,
}

impl DiskTable {
    /// Opens the table of `kind` for `material` under `rules` in `dir`.
    pub fn open(dir: &Path, rules: RuleSet, material: Material, kind: Kind) -> Result<DiskTable, TbError> {
        let path = table_path_of(dir, kind, material);
        let file = File::open(&path).map_err(|e| open_error(dir, &path, material, e))?;
        let length = file.metadata().map_err(TbError::io(&path))?.len();
        let mut start = Vec::with_capacity(HEADER_LEN);
        (&file).take(HEADER_LEN as u64).read_to_end(&mut start).map_err(TbError::io(&path))?;
        let layout = check_start(&path, &start, rules, material, kind, length)?;
        Ok(DiskTable { path, file, material, layout })
    }

    /// The index of a stored form in this table.
    #[inline]
    pub fn index(&self, us: u32, them: u32) -> u64 {
        crate::index::index_in(self.layout.scheme, us, them, self.material)
    }

    pub(crate) fn byte(&self, offset: u64) -> Result<u8, TbError> {
        use std::os::unix::fs::FileExt;
        let mut b = [0u8; 1];
        self.file.read_exact_at(&mut b, HEADER_LEN as u64 + offset).map_err(TbError::io(&self.path))?;
        Ok(b[0])
    }

    /// The distance value of entry `i` (distance tables only).
    pub fn value(&self, i: u64) -> Result<Exact, TbError> {
        Ok(value_from_byte(self.byte(i)?))
    }

    /// The win/draw/loss value of entry `i`.
    pub fn wdl(&self, i: u64) -> Result<Wdl, TbError> {
        let kind = self.layout.kind;
        Ok(kind.wdl_in(self.byte(kind.byte_of(i))?, i))
    }
}
