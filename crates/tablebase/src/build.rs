//! Building a tablebase level by level: resumable, shardable.
//!
//! Level `n` holds the classes with `n` pieces; its units (a class and its
//! flipped partner) depend only on each other's smaller levels, so the units
//! of one level can be built in any order, by any number of machines.

use std::collections::HashMap;
use std::path::Path;
use std::str::FromStr;
use std::time::Instant;

use crate::error::TbError;
use crate::format::{
    folder_rules, read_table_of, remove_stale_temporaries, table_exists, write_table, Layout, Table, HEADER_LEN,
};
use crate::index::{Material, Scheme};
use crate::slices;
use crate::solve::{solve_unit, Lookup, Phase};
use crate::value::Kind;
use alq_engine::RuleSet;

/// This build's share of each level: units `i` with `i % count == index`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    pub index: u32,
    pub count: u32,
}

impl FromStr for Shard {
    type Err = TbError;

    /// Reads `I/K`, e.g. `0/3`.
    fn from_str(text: &str) -> Result<Shard, TbError> {
        let bad = || TbError::Shard { text: text.to_string() };
        let (i, k) = text.split_once('/').ok_or_else(bad)?;
        let index: u32 = i.trim().parse().map_err(|_| bad())?;
        let count: u32 = k.trim().parse().map_err(|_| bad())?;
        if count == 0 || index >= count {
            return Err(bad());
        }
        Ok(Shard { index, count })
    }
}

/// What to build.
#[derive(Clone, Debug)]
pub struct BuildOptions {
    /// Build every class with at most this many pieces.
    pub pieces: u32,
    /// Build only this share of the current level.
    pub shard: Option<Shard>,
    /// The rule set to solve (a folder holds the tables of one rule set).
    pub rules: RuleSet,
    /// Distance tables, or the smaller win/draw/loss tables (a build of
    /// one kind reads only smaller tables of its own kind).
    pub kind: Kind,
}

/// Which solver builds the units.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Solver {
    /// Advancement slices (`src/slices.rs`) where the rules allow them (no
    /// simple move goes backwards: BrainKing's), the passes otherwise
    /// (classic rules).
    #[default]
    Auto,
    /// One pass per distance over the whole unit (`src/solve.rs`): the
    /// builder of format version 2, kept to cross-check the slices and for
    /// the classic rules.
    Passes,
}

impl Solver {
    /// Whether this choice builds by slices under `rules`.
    pub fn uses_slices(self, rules: RuleSet) -> bool {
        self == Solver::Auto && slices::applies(rules)
    }
}

impl FromStr for Solver {
    type Err = TbError;

    fn from_str(text: &str) -> Result<Solver, TbError> {
        match text {
            "auto" | "slices" => Ok(Solver::Auto),
            "passes" => Ok(Solver::Passes),
            _ => Err(TbError::Solver { text: text.to_string() }),
        }
    }
}

/// A build unit: a class with `mover >= other`, and its flipped partner when different.
pub type Unit = Vec<Material>;

/// The units of level `pieces`, in a fixed order (shards count on it).
pub fn units(pieces: u32) -> Vec<Unit> {
    Material::with_pieces(pieces)
        .into_iter()
        .filter(|m| m.mover >= m.other)
        .map(|m| if m.mover == m.other { vec![m] } else { vec![m, m.flipped()] })
        .collect()
}

/// The classes a unit's captures reach.
fn dependencies(unit: &[Material]) -> Vec<Material> {
    let mut deps = Vec::new();
    for m in unit {
        // After a capture the opponent moves, with all its pieces, against
        // fewer of ours.
        for c in 0..m.other {
            deps.push(Material { mover: c, other: m.mover });
        }
    }
    deps
}

fn unit_name(unit: &[Material]) -> String {
    unit.iter().map(|m| m.to_string()).collect::<Vec<_>>().join("+")
}

/// Progress of a build, for the caller to draw.
#[derive(Clone, Debug)]
pub enum Event {
    /// Temporary files of a killed build were removed.
    StaleRemoved { files: usize },
    /// A level whose tables are all present already.
    LevelComplete { pieces: u32 },
    /// A level starts: `units` of its units are missing, this build makes `mine`
    /// of them, with `positions` entries in all.
    LevelStart { pieces: u32, units: usize, mine: usize, positions: u64 },
    /// A unit starts.
    UnitStart { unit: String, positions: u64 },
    /// Progress within the current unit.
    Unit(Phase),
    /// A unit's files are written.
    UnitDone { unit: String, positions: u64, seconds: f64, passes: u16 },
    /// This build's share of a level is done.
    LevelDone { pieces: u32, seconds: f64 },
}

/// How a build ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Every class up to the requested piece count is present.
    Complete,
    /// This shard's part of level `pieces` is done; other shards still owe
    /// the listed units. Run the same command again once they finish.
    Waiting { pieces: u32, missing: Vec<String> },
}

fn missing_units(dir: &Path, rules: RuleSet, kind: Kind, pieces: u32) -> Vec<(usize, Unit)> {
    units(pieces)
        .into_iter()
        .enumerate()
        .filter(|(_, u)| !u.iter().all(|&m| table_exists(dir, rules, m, kind)))
        .collect()
}

/// Builds (or completes) the tables for up to `options.pieces` pieces in
/// `dir`. Finished files are kept; a killed build continues where it stopped.
/// Runs on the current rayon pool, with the default solver.
pub fn build(dir: &Path, options: &BuildOptions, report: &mut dyn FnMut(Event)) -> Result<Outcome, TbError> {
    build_with(dir, options, Solver::Auto, report)
}

/// [`build`] with a chosen solver; both give the same files.
pub fn build_with(
    dir: &Path,
    options: &BuildOptions,
    solver: Solver,
    report: &mut dyn FnMut(Event),
) -> Result<Outcome, TbError> {
    build_inner(dir, options, solver, crate::value::NO_PROGRESS_PLIES, report)
}

/// Distance-to-progress tables for a no-progress rule of `limit` plies
/// (1 to 60) instead of the game's 60, for tests: a short rule makes cursed
/// wins common in small tables. The files do not record the limit; keep
/// them apart from real tables and read them with [`crate::Dtz::under_limit`].
#[doc(hidden)]
pub fn build_dtz_with_limit(
    dir: &Path,
    options: &BuildOptions,
    solver: Solver,
    limit: u32,
    report: &mut dyn FnMut(Event),
) -> Result<Outcome, TbError> {
    build_inner(dir, &BuildOptions { kind: Kind::Dtz, ..options.clone() }, solver, limit, report)
}

fn build_inner(
    dir: &Path,
    options: &BuildOptions,
    solver: Solver,
    dtz_limit: u32,
    report: &mut dyn FnMut(Event),
) -> Result<Outcome, TbError> {
    std::fs::create_dir_all(dir).map_err(TbError::io(dir))?;
    let rules = options.rules;
    // A folder holds one rule set's tables: never overwrite another's.
    if let Some(found) = folder_rules(dir)? {
        if found != rules {
            return Err(TbError::Rules {
                path: dir.to_path_buf(),
                found: found.name().to_string(),
                expected: rules.name().to_string(),
            });
        }
    }
    let kind = options.kind;
    // A killed build leaves its temporary file behind; only the finished
    // files count, so the half-written one goes.
    let stale = remove_stale_temporaries(dir)?;
    if stale > 0 {
        report(Event::StaleRemoved { files: stale });
    }
    let mut cache: HashMap<Material, Table> = HashMap::new();
    for pieces in 0..=options.pieces {
        let missing = missing_units(dir, rules, kind, pieces);
        if missing.is_empty() {
            report(Event::LevelComplete { pieces });
            continue;
        }
        let mine: Vec<&Unit> = missing
            .iter()
            .filter(|(i, _)| options.shard.is_none_or(|s| *i as u32 % s.count == s.index))
            .map(|(_, u)| u)
            .collect();
        let positions = mine.iter().flat_map(|u| u.iter()).map(|m| m.slots(Scheme::Mirror)).sum();
        report(Event::LevelStart { pieces, units: missing.len(), mine: mine.len(), positions });
        let started = Instant::now();
        for unit in mine {
            let unit_started = Instant::now();
            let deps = dependencies(unit);
            cache.retain(|m, _| deps.contains(m));
            for &m in &deps {
                if let std::collections::hash_map::Entry::Vacant(slot) = cache.entry(m) {
                    slot.insert(read_table_of(dir, rules, m, kind)?);
                }
            }
            let mut lookup = Lookup { tables: [[None; 13]; 13] };
            for (m, t) in &cache {
                lookup.tables[m.mover as usize][m.other as usize] = Some(t.view());
            }
            let name = unit_name(unit);
            let positions = unit.iter().map(|m| m.slots(Scheme::Mirror)).sum();
            report(Event::UnitStart { unit: name.clone(), positions });
            let mut passes = 0;
            let mut progress = |phase| {
                match phase {
                    Phase::Settled { distance } => passes = distance + 1,
                    Phase::Advancement { level, .. } => passes = level + 1,
                    Phase::Sweep { .. } => {}
                }
                report(Event::Unit(phase));
            };
            let tables = if kind == Kind::Dtz && solver.uses_slices(rules) {
                crate::dtz::solve_unit(rules, unit, dtz_limit, &lookup, &mut progress)?
            } else if kind == Kind::Dtz {
                crate::dtz_cycles::solve_unit(rules, unit, dtz_limit, &lookup, &mut progress)?
            } else if solver.uses_slices(rules) {
                slices::solve_unit(rules, unit, kind, &lookup, &mut progress)?
            } else {
                solve_unit(rules, unit, kind, &lookup, &mut progress)?
            };
            for (&m, values) in unit.iter().zip(&tables) {
                write_table(dir, rules, m, Layout::current(kind), values)?;
            }
            report(Event::UnitDone { unit: name, positions, seconds: unit_started.elapsed().as_secs_f64(), passes });
        }
        report(Event::LevelDone { pieces, seconds: started.elapsed().as_secs_f64() });
        if options.shard.is_some() {
            let left = missing_units(dir, rules, kind, pieces);
            if !left.is_empty() {
                let missing = left.iter().map(|(_, u)| unit_name(u)).collect();
                return Ok(Outcome::Waiting { pieces, missing });
            }
        }
    }
    Ok(Outcome::Complete)
}

/// Cost of building level `pieces`, in nanoseconds of one core per entry.
/// The pass solver (`slices == false`): fitted to the levels 8, 9 and 10
/// measured on this project's 2-core machine (387, 445 and 540 ns; see
/// crates/tablebase/README.md) and grown by 1.18 a level beyond. The slice
/// solver: its win/draw/loss builds of ≤ 8 and of levels 9 and 10 on the
/// same machine (253, 310 and 305 ns) fitted from level 10, grown by 1.10
/// a level beyond (less than the passes: a slice's working set stays in
/// cache).
pub fn nanos_per_entry(pieces: u32, slices: bool) -> f64 {
    if slices {
        305.0 * 1.10f64.powi(pieces as i32 - 10)
    } else {
        390.0 * 1.18f64.powi(pieces as i32 - 8)
    }
}

/// Wall time per entry of the count-threshold solver of distance-to-progress
/// tables (`dtz_cycles.rs`, the classic rules): its classic builds of level
/// 8 (1.57 µs, idle cores) and 10 (1.94 µs, shared cores), grown by 1.11 a
/// level.
fn dtz_cycles_nanos(pieces: u32) -> f64 {
    1570.0 * 1.11f64.powi(pieces as i32 - 8)
}

/// What one level of a build needs.
#[derive(Clone, Debug)]
pub struct LevelEstimate {
    pub pieces: u32,
    /// Entries of the level (positions with the side to move normalised,
    /// a position and its mirror image sharing one).
    pub positions: u64,
    /// Peak memory of the largest unit: the solver's values (two bytes per
    /// entry for the passes; for the slices one byte, or 2 bits for
    /// win/draw/loss, per position, mirror images included), the encoded
    /// tables it writes, and the tables its captures reach.
    pub memory_bytes: u64,
    /// Bytes of the level's files.
    pub disk_bytes: u64,
    /// Estimated wall time with `threads` cores.
    pub seconds: f64,
}

/// Estimates each level of a build of `kind` up to `pieces`, for `threads`
/// cores, by the slice solver (`slices`) or the pass solver.
pub fn estimate(pieces: u32, kind: Kind, threads: usize, slices: bool) -> Vec<LevelEstimate> {
    let slots = |m: &Material| m.slots(Scheme::Mirror);
    (0..=pieces)
        .map(|n| {
            let classes = Material::with_pieces(n);
            let positions: u64 = classes.iter().map(slots).sum();
            let memory_bytes = units(n)
                .iter()
                .map(|u| {
                    // Passes: two bytes an entry. Slices: every position,
                    // mirror images included (about two an entry), at one
                    // byte (distance) or 2 bits (win/draw/loss).
                    let work = |m: &Material| match (slices, kind) {
                        // Count thresholds (`dtz_cycles.rs`): the classic
                        // level 10 peaked at 7.3 GB, the 692 M entries of
                        // 6v4+4v6 with their queue of raised entries.
                        (false, Kind::Dtz) => 10 * slots(m),
                        (false, _) => 2 * slots(m),
                        (true, Kind::Wdl) => slots(m) / 2,
                        (true, _) => 2 * slots(m),
                    };
                    let own: u64 = u.iter().map(|m| work(m) + kind.data_len(slots(m))).sum();
                    own + dependencies(u).iter().map(|m| kind.data_len(slots(m))).sum::<u64>()
                })
                .max()
                .unwrap_or(0);
            LevelEstimate {
                pieces: n,
                positions,
                memory_bytes,
                disk_bytes: classes.iter().map(|m| kind.data_len(slots(m))).sum::<u64>()
                    + (HEADER_LEN * classes.len()) as u64,
                seconds: if kind == Kind::Dtz && !slices {
                    // The thresholds are raised on one thread: wall time.
                    positions as f64 * dtz_cycles_nanos(n) * 1e-9
                } else {
                    positions as f64 * nanos_per_entry(n, slices) * 1e-9 / threads.max(1) as f64
                },
            }
        })
        .collect()
}
