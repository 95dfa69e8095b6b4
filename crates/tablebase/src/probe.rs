//! Probing a built tablebase.

use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use alq_engine::{EndgameTables, Exact, Move, Position, RuleSet};

use crate::error::TbError;
use crate::format::{folder_rules, read_table_of, table_exists, DiskTable, Table};
use crate::index::{normalize, Material};
use crate::value::{Kind, Wdl};

/// Classes by `(mover, other)`, each side 0 to 12 pieces.
const SLOTS: usize = 13 * 13;

fn slot(material: Material) -> usize {
    material.mover as usize * 13 + material.other as usize
}

/// A tablebase folder: distance tables, win/draw/loss tables, or both
/// (each kind covering every class up to its own piece count). Tables are
/// read (and their checksums checked) on first use and kept in memory;
/// probing a table already read takes no lock, so many search threads can
/// probe at once.
pub struct Tablebase {
    dir: PathBuf,
    rules: RuleSet,
    /// Largest piece count the distance tables cover.
    distance_pieces: Option<u32>,
    /// Largest piece count the win/draw/loss tables cover.
    wdl_pieces: Option<u32>,
    /// Largest piece count the distance-to-progress tables cover.
    dtz_pieces: Option<u32>,
    tables: Vec<OnceLock<Arc<Table>>>,
    wdl_tables: Vec<OnceLock<Arc<Table>>>,
    dtz_tables: Vec<OnceLock<Arc<Table>>>,
    /// Probe the files where they lie instead of reading them in.
    on_disk: bool,
    disk_tables: Vec<OnceLock<DiskTable>>,
}

/// Where a value came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Source {
    pub kind: Kind,
    /// The piece count the tables of that kind cover.
    pub pieces: u32,
}

impl Tablebase {
    /// Opens the tablebase in `dir`: the largest piece count for which every
    /// class of that many pieces or fewer is present. The rule set is the one
    /// its files name.
    pub fn open(dir: &Path) -> Result<Tablebase, TbError> {
        if !dir.is_dir() {
            return Err(TbError::Empty { dir: dir.to_path_buf(), reason: "no such folder".into() });
        }
        let rules = folder_rules(dir)?.unwrap_or_default();
        let coverage = |kind| {
            let mut max_pieces = None;
            for n in 0..=24 {
                if Material::with_pieces(n).iter().all(|&m| table_exists(dir, rules, m, kind)) {
                    max_pieces = Some(n);
                } else {
                    break;
                }
            }
            max_pieces
        };
        let (distance_pieces, wdl_pieces) = (coverage(Kind::Distance), coverage(Kind::Wdl));
        let dtz_pieces = coverage(Kind::Dtz);
        if distance_pieces.is_none() && wdl_pieces.is_none() && dtz_pieces.is_none() {
            let first = Material { mover: 0, other: 0 };
            return Err(TbError::Empty {
                dir: dir.to_path_buf(),
                reason: format!(
                    "{} (or {}, or {}) is missing or damaged (build with `alq tb build`)",
                    Kind::Distance.file_name(first),
                    Kind::Wdl.file_name(first),
                    Kind::Dtz.file_name(first)
                ),
            });
        }
        let cells = || (0..SLOTS).map(|_| OnceLock::new()).collect();
        Ok(Tablebase {
            dir: dir.to_path_buf(),
            rules,
            distance_pieces,
            wdl_pieces,
            dtz_pieces,
            tables: cells(),
            wdl_tables: cells(),
            dtz_tables: cells(),
            on_disk: false,
            disk_tables: (0..3 * SLOTS).map(|_| OnceLock::new()).collect(),
        })
    }

    /// Opens the tablebase in `dir` for probing on disk: no table is read
    /// into memory; every probe reads one byte of its file (see
    /// [`DiskTable`]). Headers are checked on first use, checksums are not
    /// (`alq tb verify` reads everything).
    pub fn open_on_disk(dir: &Path) -> Result<Tablebase, TbError> {
        let mut tb = Tablebase::open(dir)?;
        tb.on_disk = true;
        Ok(tb)
    }

    /// Whether probes read the files where they lie.
    pub fn is_on_disk(&self) -> bool {
        self.on_disk
    }

    /// The table of one class on disk, opened on first use.
    fn disk(&self, material: Material, kind: Kind) -> Result<&DiskTable, TbError> {
        let shelf = match kind {
            Kind::Distance => 0,
            Kind::Wdl => SLOTS,
            Kind::Dtz => 2 * SLOTS,
        };
        let cell = &self.disk_tables[slot(material) + shelf];
        if let Some(t) = cell.get() {
            return Ok(t);
        }
        let table = DiskTable::open(&self.dir, self.rules, material, kind)?;
        Ok(cell.get_or_init(|| table))
    }

    /// The tablebase in `dir`, opened once per process and shared: every
    /// caller asking for the same folder gets the same tables in memory (a
    /// study or a match with many players reads each table once).
    pub fn shared(dir: &Path) -> Result<Arc<Tablebase>, TbError> {
        static OPEN: std::sync::Mutex<Vec<(PathBuf, Arc<Tablebase>)>> = std::sync::Mutex::new(Vec::new());
        let key = dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf());
        let mut open = OPEN.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((_, tb)) = open.iter().find(|(k, _)| *k == key) {
            return Ok(Arc::clone(tb));
        }
        let tb = Arc::new(Tablebase::open(dir)?);
        open.push((key, Arc::clone(&tb)));
        Ok(tb)
    }

    /// [`Tablebase::shared`] for users that keep tables for the whole
    /// process by reference (an oracle inside a player): the same shared
    /// tables, which the process never closes.
    pub fn shared_static(dir: &Path) -> Result<&'static Tablebase, TbError> {
        static LEAKED: std::sync::Mutex<Vec<&'static Arc<Tablebase>>> = std::sync::Mutex::new(Vec::new());
        let tb = Tablebase::shared(dir)?;
        let mut leaked = LEAKED.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(&known) = leaked.iter().find(|t| Arc::ptr_eq(t, &tb)) {
            return Ok(known.as_ref());
        }
        let kept: &'static Arc<Tablebase> = Box::leak(Box::new(tb));
        leaked.push(kept);
        Ok(kept.as_ref())
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The rule set the tables were built for.
    pub fn rules(&self) -> RuleSet {
        self.rules
    }

    /// Refuses tables built for other rules than `rules`, with an error that
    /// names both.
    pub fn expect_rules(&self, rules: RuleSet) -> Result<(), TbError> {
        if self.rules == rules {
            return Ok(());
        }
        Err(TbError::Rules {
            path: self.dir.clone(),
            found: self.rules.name().to_string(),
            expected: rules.name().to_string(),
        })
    }

    /// Every class with at most this many pieces has a distance table
    /// (0 when the folder holds win/draw/loss tables only: then no distance
    /// is known, and [`Tablebase::probe`] answers `NotCovered`).
    pub fn max_pieces(&self) -> u32 {
        self.distance_pieces.unwrap_or(0)
    }

    /// The piece count each kind covers (`None`: no tables of that kind).
    pub fn coverage(&self, kind: Kind) -> Option<u32> {
        match kind {
            Kind::Distance => self.distance_pieces,
            Kind::Wdl => self.wdl_pieces,
            Kind::Dtz => self.dtz_pieces,
        }
    }

    /// Every position with at most this many pieces has a win/draw/loss
    /// value, from any kind (distance-to-progress tables give the infinite
    /// game's).
    pub fn wdl_max_pieces(&self) -> u32 {
        self.distance_pieces.max(self.wdl_pieces).max(self.dtz_pieces).unwrap_or(0)
    }

    /// The number of entries of a class's table of `kind`, from its header
    /// (0 when there is no such table).
    pub fn entries(&self, material: Material, kind: Kind) -> u64 {
        crate::format::table_layout(&self.dir, self.rules, material, kind).map_or(0, |l| material.slots(l.scheme))
    }

    /// The distance table of one class, read on first use.
    pub fn table(&self, material: Material) -> Result<Arc<Table>, TbError> {
        self.loaded(material, Kind::Distance).map(Arc::clone)
    }

    /// The table of `kind` for one class, read on first use.
    pub fn table_of(&self, material: Material, kind: Kind) -> Result<Arc<Table>, TbError> {
        self.loaded(material, kind).map(Arc::clone)
    }

    /// The table of one class, borrowed (no reference count to touch on
    /// the probing path). Two threads asking for the same unread table at
    /// once may both read it; one copy is kept.
    fn loaded(&self, material: Material, kind: Kind) -> Result<&Arc<Table>, TbError> {
        let cells = match kind {
            Kind::Distance => &self.tables,
            Kind::Wdl => &self.wdl_tables,
            Kind::Dtz => &self.dtz_tables,
        };
        let cell = &cells[slot(material)];
        if let Some(t) = cell.get() {
            return Ok(t);
        }
        let table = Arc::new(read_table_of(&self.dir, self.rules, material, kind)?);
        Ok(cell.get_or_init(|| table))
    }

    /// Forgets the tables read so far (to bound memory in long sweeps).
    pub fn release(&mut self) {
        for cell in self.tables.iter_mut().chain(&mut self.wdl_tables).chain(&mut self.dtz_tables) {
            cell.take();
        }
    }

    /// The value of a stored form `(us, them)`, from the distance tables.
    pub fn value_of(&self, us: u32, them: u32) -> Result<Exact, TbError> {
        let material = Material { mover: us.count_ones() as u8, other: them.count_ones() as u8 };
        let max = self.max_pieces();
        if self.distance_pieces.is_none() || material.pieces() > max {
            return Err(TbError::NotCovered { pieces: material.pieces(), max, kind: Kind::Distance });
        }
        if self.on_disk {
            let table = self.disk(material, Kind::Distance)?;
            return table.value(table.index(us, them));
        }
        let table = self.loaded(material, Kind::Distance)?.view();
        Ok(table.value(table.index(us, them)))
    }

    /// The win/draw/loss value of a stored form `(us, them)`: from the
    /// distance tables where they cover it, else from the win/draw/loss
    /// tables; with the kind that answered.
    pub fn wdl_of(&self, us: u32, them: u32) -> Result<(Wdl, Source), TbError> {
        let material = Material { mover: us.count_ones() as u8, other: them.count_ones() as u8 };
        let n = material.pieces();
        // Distance-to-progress tables hold the infinite game's value too
        // (cursed wins are wins): the last resort.
        let kind = match (self.distance_pieces, self.wdl_pieces, self.dtz_pieces) {
            (Some(d), _, _) if n <= d => Kind::Distance,
            (_, Some(w), _) if n <= w => Kind::Wdl,
            (_, _, Some(z)) if n <= z => Kind::Dtz,
            _ => return Err(TbError::NotCovered { pieces: n, max: self.wdl_max_pieces(), kind: Kind::Wdl }),
        };
        let pieces = self.coverage(kind).expect("checked above");
        if self.on_disk {
            let table = self.disk(material, kind)?;
            return Ok((table.wdl(table.index(us, them))?, Source { kind, pieces }));
        }
        let table = self.loaded(material, kind)?.view();
        Ok((table.wdl(table.index(us, them)), Source { kind, pieces }))
    }

    /// The value of `pos` for its side to move under the 60-ply no-progress
    /// rule, with the count of plies without progress at 0 (see
    /// [`crate::Dtz`]), from the distance-to-progress tables.
    pub fn probe_dtz(&self, pos: &Position) -> Result<crate::Dtz, TbError> {
        let (us, them) = normalize(pos);
        self.dtz_of(us, them)
    }

    /// As [`Tablebase::probe_dtz`], of a stored form `(us, them)`.
    pub fn dtz_of(&self, us: u32, them: u32) -> Result<crate::Dtz, TbError> {
        let material = Material { mover: us.count_ones() as u8, other: them.count_ones() as u8 };
        let max = self.dtz_pieces;
        if max.is_none_or(|m| material.pieces() > m) {
            return Err(TbError::NotCovered { pieces: material.pieces(), max: max.unwrap_or(0), kind: Kind::Dtz });
        }
        let byte = if self.on_disk {
            let table = self.disk(material, Kind::Dtz)?;
            table.byte(table.index(us, them))?
        } else {
            let table = self.loaded(material, Kind::Dtz)?.view();
            *table.byte(table.index(us, them))
        };
        crate::Dtz::from_byte(byte).ok_or_else(|| {
            TbError::Unsupported(format!(
                "a distance-to-progress byte {byte} this program never writes (material {material})"
            ))
        })
    }

    /// The win/draw/loss value of `pos` for its side to move, and the kind
    /// of table that answered.
    pub fn probe_wdl(&self, pos: &Position) -> Result<(Wdl, Source), TbError> {
        let (us, them) = normalize(pos);
        self.wdl_of(us, them)
    }

    /// Every legal move with its win/draw/loss value for the player making
    /// it, best first (wins, draws, losses; ties in notation order).
    pub fn probe_moves_wdl(&self, pos: &Position) -> Result<Vec<(Move, Wdl)>, TbError> {
        let mut out = Vec::new();
        for mv in pos.legal_moves_in(self.rules) {
            out.push((mv, self.probe_wdl(&pos.play(mv))?.0.for_mover()));
        }
        out.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.to_string().cmp(&b.0.to_string())));
        Ok(out)
    }

    /// The value of `pos` for its side to move.
    pub fn probe(&self, pos: &Position) -> Result<Exact, TbError> {
        let (us, them) = normalize(pos);
        self.value_of(us, them)
    }

    /// Every legal move with the value it has for the player making it, best first
    /// (fastest win, then draws, then the slowest loss; ties in notation order).
    pub fn probe_moves(&self, pos: &Position) -> Result<Vec<(Move, Exact)>, TbError> {
        let mut out = Vec::new();
        for mv in pos.legal_moves_in(self.rules) {
            out.push((mv, self.probe(&pos.play(mv))?.for_mover()));
        }
        out.sort_by(|a, b| b.1.preference(&a.1).then_with(|| a.0.to_string().cmp(&b.0.to_string())));
        Ok(out)
    }
}

/// The search's view of the tables: a table that cannot be read counts as
/// not covering the position (the search then goes on without it; `alq tb
/// verify` finds damaged files).
impl EndgameTables for Tablebase {
    fn max_pieces(&self) -> u32 {
        Tablebase::max_pieces(self)
    }

    fn probe(&self, pos: &Position) -> Option<Exact> {
        Tablebase::probe(self, pos).ok()
    }

    fn wdl_max_pieces(&self) -> u32 {
        Tablebase::wdl_max_pieces(self)
    }

    fn probe_wdl(&self, pos: &Position) -> Option<Wdl> {
        Tablebase::probe_wdl(self, pos).ok().map(|(value, _)| value)
    }

    fn describe(&self) -> String {
        match self.wdl_pieces.filter(|&w| w > self.max_pieces()) {
            Some(w) => format!("{} (≤ {} pieces, win/draw/loss ≤ {w})", self.dir.display(), self.max_pieces()),
            None => format!("{} (≤ {} pieces)", self.dir.display(), self.max_pieces()),
        }
    }

    fn rules(&self) -> RuleSet {
        self.rules
    }
}
