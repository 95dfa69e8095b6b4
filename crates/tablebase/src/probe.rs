//! Probing a built tablebase.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use alq_engine::{Move, Position};

use crate::error::TbError;
use crate::format::{read_table, table_exists, Table};
use crate::index::{index, normalize, Material};
use crate::value::Value;

/// A tablebase folder. Tables are read (and their checksums checked) on
/// first use and kept in memory.
pub struct Tablebase {
    dir: PathBuf,
    max_pieces: u32,
    tables: Mutex<HashMap<Material, Arc<Table>>>,
}

impl Tablebase {
    /// Opens the tablebase in `dir`: the largest piece count for which every
    /// class of that many pieces or fewer is present.
    pub fn open(dir: &Path) -> Result<Tablebase, TbError> {
        if !dir.is_dir() {
            return Err(TbError::Empty { dir: dir.to_path_buf(), reason: "no such folder".into() });
        }
        let mut max_pieces = None;
        for n in 0..=24 {
            if Material::with_pieces(n).iter().all(|&m| table_exists(dir, m)) {
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
        Ok(Tablebase { dir: dir.to_path_buf(), max_pieces, tables: Mutex::new(HashMap::new()) })
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Every class with at most this many pieces is present.
    pub fn max_pieces(&self) -> u32 {
        self.max_pieces
    }

    /// The table of one class, read on first use.
    pub fn table(&self, material: Material) -> Result<Arc<Table>, TbError> {
        if let Some(t) = self.tables.lock().expect("no panic while holding the lock").get(&material) {
            return Ok(Arc::clone(t));
        }
        let table = Arc::new(read_table(&self.dir, material)?);
        self.tables.lock().expect("no panic while holding the lock").insert(material, Arc::clone(&table));
        Ok(table)
    }

    /// Forgets the tables read so far (to bound memory in long sweeps).
    pub fn release(&self) {
        self.tables.lock().expect("no panic while holding the lock").clear();
    }

    /// The value of a stored form `(us, them)`.
    pub fn value_of(&self, us: u32, them: u32) -> Result<Value, TbError> {
        let material = Material { mover: us.count_ones() as u8, other: them.count_ones() as u8 };
        if material.pieces() > self.max_pieces {
            return Err(TbError::NotCovered { pieces: material.pieces(), max: self.max_pieces });
        }
        let table = self.table(material)?;
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
        for mv in pos.legal_moves() {
            out.push((mv, self.probe(&pos.play(mv))?.for_mover()));
        }
        out.sort_by(|a, b| b.1.preference(&a.1).then_with(|| a.0.to_string().cmp(&b.0.to_string())));
        Ok(out)
    }
}

