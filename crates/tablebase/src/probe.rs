//! Probing a built tablebase.

use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use alq_engine::{EndgameTables, Exact, Move, Position, RuleSet};

use crate::error::TbError;
use crate::format::{folder_rules, read_table, table_exists, Table};
use crate::index::{index, normalize, Material};
use crate::value::Value;

/// Classes by `(mover, other)`, each side 0 to 12 pieces.
const SLOTS: usize = 13 * 13;

fn slot(material: Material) -> usize {
    material.mover as usize * 13 + material.other as usize
}

/// A tablebase folder. Tables are read (and their checksums checked) on
/// first use and kept in memory; probing a table already read takes no lock,
/// so many search threads can probe at once.
pub struct Tablebase {
    dir: PathBuf,
    rules: RuleSet,
    max_pieces: u32,
    tables: Vec<OnceLock<Arc<Table>>>,
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
        let mut max_pieces = None;
        for n in 0..=24 {
            if Material::with_pieces(n).iter().all(|&m| table_exists(dir, rules, m)) {
                max_pieces = Some(n);
            } else {
                break;
            }
        }
        let Some(max_pieces) = max_pieces else {
            let first = Material { mover: 0, other: 0 };
            return Err(TbError::Empty {
                dir: dir.to_path_buf(),
                reason: format!("{} is missing or damaged (build with `alq tb build`)", first.file_name()),
            });
        };
        Ok(Tablebase { dir: dir.to_path_buf(), rules, max_pieces, tables: (0..SLOTS).map(|_| OnceLock::new()).collect() })
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

    /// Every class with at most this many pieces is present.
    pub fn max_pieces(&self) -> u32 {
        self.max_pieces
    }

    /// The table of one class, read on first use.
    pub fn table(&self, material: Material) -> Result<Arc<Table>, TbError> {
        self.loaded(material).map(Arc::clone)
    }

    /// The table of one class, borrowed (no reference count to touch on
    /// the probing path). Two threads asking for the same unread table at
    /// once may both read it; one copy is kept.
    fn loaded(&self, material: Material) -> Result<&Arc<Table>, TbError> {
        let cell = &self.tables[slot(material)];
        if let Some(t) = cell.get() {
            return Ok(t);
        }
        let table = Arc::new(read_table(&self.dir, self.rules, material)?);
        Ok(cell.get_or_init(|| table))
    }

    /// Forgets the tables read so far (to bound memory in long sweeps).
    pub fn release(&mut self) {
        for cell in &mut self.tables {
            cell.take();
        }
    }

    /// The value of a stored form `(us, them)`.
    pub fn value_of(&self, us: u32, them: u32) -> Result<Value, TbError> {
        let material = Material { mover: us.count_ones() as u8, other: them.count_ones() as u8 };
        if material.pieces() > self.max_pieces {
            return Err(TbError::NotCovered { pieces: material.pieces(), max: self.max_pieces });
        }
        let table = self.loaded(material)?;
        Ok(Value::from_byte(table.values()[index(us, them, material) as usize]))
    }

    /// The value of `pos` for its side to move.
    pub fn probe(&self, pos: &Position) -> Result<Value, TbError> {
        let (us, them) = normalize(pos);
        self.value_of(us, them)
    }

    /// Every legal move with the value it has for the player making it, best first
    /// (fastest win, then draws, then the slowest loss; ties in notation order).
    pub fn probe_moves(&self, pos: &Position) -> Result<Vec<(Move, Value)>, TbError> {
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
        self.max_pieces
    }

    fn probe(&self, pos: &Position) -> Option<Exact> {
        Tablebase::probe(self, pos).ok().map(Exact::from)
    }

    fn describe(&self) -> String {
        format!("{} (≤ {} pieces)", self.dir.display(), self.max_pieces)
    }

    fn rules(&self) -> RuleSet {
        self.rules
    }
}
