//! Checking a built tablebase (`verify`) and summarising it (`stats`).

use std::collections::HashSet;
use std::io::Write as _;
use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use alq_engine::{MoveList, Side};
use rayon::prelude::*;

use crate::error::TbError;
use crate::format::{table_path_of, Table, TableView};
use crate::index::{denormalize, mirror, mover_set, next_combination, position_in, FreePoints, Material, Scheme};
use crate::probe::Tablebase;
use crate::solve::successor;
use crate::value::{value_from_byte, wdl_code, Exact, Kind, Wdl};

/// Progress of a verification.
#[derive(Clone, Debug)]
pub enum VerifyEvent {
    /// A class starts.
    ClassStart { material: Material, kind: Kind, positions: u64 },
    /// A class is consistent.
    ClassDone { material: Material, kind: Kind, positions: u64, seconds: f64 },
    /// A class found consistent by an earlier run (same file checksum) is
    /// not checked again.
    ClassSkipped { material: Material, kind: Kind, positions: u64 },
}

/// Re-checks every stored value, of every kind the folder holds, against the
/// values of its successors in tables of the same kind, found with the
/// engine's move generator: a position without moves is lost in 0;
/// otherwise it wins in `d` when its best successor is a loss for the
/// opponent in `d - 1` (and none is shorter), it is a draw when no successor
/// is a loss and one is a draw, and it loses in `d` when every successor is
/// a win for the opponent and the longest takes `d - 1` (without the
/// distances for win/draw/loss tables). Every slot is checked, the spare
/// slots of the mirror scheme too (each holds a real position's value).
/// Stops at the first inconsistency. Returns the number of entries checked.
pub fn verify(tb: &mut Tablebase, report: &mut dyn FnMut(VerifyEvent)) -> Result<u64, TbError> {
    verify_classes(tb, None, report)
}

/// [`verify`], keeping its progress in `progress`: after each consistent
/// class a line `FILE CHECKSUM` (the file's name and the checksum in its
/// header) is appended, so a killed run loses at most the class in flight.
/// With `resume`, classes already listed with the same checksum are skipped
/// (a rebuilt file has another checksum and is checked again); without it
/// the progress file starts afresh.
pub fn verify_resuming(
    tb: &mut Tablebase,
    progress: &Path,
    resume: bool,
    report: &mut dyn FnMut(VerifyEvent),
) -> Result<u64, TbError> {
    let io = |source| TbError::Io { path: progress.to_path_buf(), source };
    let done: HashSet<String> = match std::fs::read_to_string(progress) {
        Ok(text) if resume => text.lines().map(str::to_string).collect(),
        Ok(_) => HashSet::new(),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => HashSet::new(),
        Err(e) => return Err(io(e)),
    };
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(resume)
        .write(true)
        .truncate(!resume)
        .open(progress)
        .map_err(io)?;
    verify_classes(tb, Some((&done, &mut file, progress)), report)
}

type Progress<'a> = (&'a HashSet<String>, &'a mut std::fs::File, &'a Path);

fn verify_classes(
    tb: &mut Tablebase,
    mut progress: Option<Progress<'_>>,
    report: &mut dyn FnMut(VerifyEvent),
) -> Result<u64, TbError> {
    let mut checked = 0;
    for kind in Kind::ALL {
        let Some(max) = tb.coverage(kind) else { continue };
        for pieces in 0..=max {
            for material in Material::with_pieces(pieces) {
                let line = match &progress {
                    Some(_) => Some(format!(
                        "{} {:016x}",
                        kind.file_name(material),
                        header_checksum(tb.dir(), kind, material)?
                    )),
                    None => None,
                };
                if let (Some((done, _, _)), Some(line)) = (&progress, &line) {
                    if done.contains(line) {
                        let positions = tb.entries(material, kind);
                        checked += positions;
                        report(VerifyEvent::ClassSkipped { material, kind, positions });
                        continue;
                    }
                }
                let started = Instant::now();
                let table = tb.table_of(material, kind)?;
                let positions = table.data_entries();
                report(VerifyEvent::ClassStart { material, kind, positions });
                verify_class(tb, &table, kind)?;
                checked += positions;
                if let (Some((_, file, path)), Some(line)) = (progress.as_mut(), &line) {
                    writeln!(file, "{line}").map_err(|source| TbError::Io { path: path.to_path_buf(), source })?;
                }
                report(VerifyEvent::ClassDone { material, kind, positions, seconds: started.elapsed().as_secs_f64() });
            }
            // Level n + 1 needs levels n and n + 1 only through captures of one
            // or more pieces; dropping what was read keeps memory to one level's worth.
            if pieces >= 2 {
                tb.release();
            }
        }
        tb.release();
    }
    Ok(checked)
}

/// The checksum in the header of a class's file (bytes 40..48).
fn header_checksum(dir: &Path, kind: Kind, material: Material) -> Result<u64, TbError> {
    let path = table_path_of(dir, kind, material);
    let mut h = [0u8; 48];
    let mut file = std::fs::File::open(&path).map_err(|source| TbError::Io { path: path.clone(), source })?;
    std::io::Read::read_exact(&mut file, &mut h).map_err(|source| TbError::Io { path: path.clone(), source })?;
    Ok(u64::from_le_bytes(h[40..48].try_into().expect("8 bytes")))
}

fn verify_class(tb: &Tablebase, own: &Table, kind: Kind) -> Result<(), TbError> {
    let material = own.material();
    let mut tables: Vec<Vec<Option<Arc<Table>>>> = vec![vec![None; 13]; 13];
    let partner = material.flipped();
    tables[partner.mover as usize][partner.other as usize] = Some(tb.table_of(partner, kind)?);
    for c in 0..material.other {
        tables[c as usize][material.mover as usize] =
            Some(tb.table_of(Material { mover: c, other: material.mover }, kind)?);
    }
    let view = own.view();
    let scheme = view.layout.scheme;
    let block = material.block();
    let first_bad = (0..material.sets(scheme)).into_par_iter().find_map_first(|set| {
        let us = mover_set(scheme, material, set);
        let free = FreePoints::new(us);
        let mut squeezed: u32 = (1u32 << material.other) - 1;
        let mut moves = MoveList::new();
        for j in 0..block {
            let them = free.deposit(squeezed);
            if squeezed != 0 {
                squeezed = next_combination(squeezed);
            }
            moves.clear();
            denormalize(us, them).generate(tb.rules().rules(), &mut moves);
            let successor_view = |mv| {
                let (nu, nt, nm) = successor(us, them, mv);
                let table = tables[nm.mover as usize][nm.other as usize].as_ref().expect("loaded above").view();
                (table, table.index(nu, nt))
            };
            let i = set * block + j;
            // Compared as values; text only for the error.
            let bad = match kind {
                Kind::Distance => {
                    let expected = Exact::from_successors(moves.iter().map(|&mv| {
                        let (t, k) = successor_view(mv);
                        t.value(k)
                    }));
                    let stored = view.value(i);
                    (stored != expected).then(|| (stored.to_string(), expected.to_string()))
                }
                Kind::Wdl => {
                    let expected = Wdl::from_successors(moves.iter().map(|&mv| {
                        let (t, k) = successor_view(mv);
                        t.wdl(k)
                    }));
                    let stored = view.wdl(i);
                    (stored != expected).then(|| (stored.to_string(), expected.to_string()))
                }
                Kind::Dtz => {
                    // The stored form's position has White to move.
                    let expected = crate::dtz::expected(moves.iter().map(|&mv| {
                        let (t, k) = successor_view(mv);
                        (mv.is_progress(Side::White), *t.byte(k))
                    }));
                    let stored = crate::Dtz::from_byte(*view.byte(i));
                    let show = |v: Option<crate::Dtz>| v.map_or("a byte never written".to_string(), |v| v.to_string());
                    // The infinite game's value, where the folder's other
                    // tables give it, must agree (see `dtz::expected`).
                    let infinite = match tb.wdl_of(us, them) {
                        Ok((w, source)) if source.kind != Kind::Dtz => {
                            stored.is_some_and(|s| s.infinite() != w).then(|| w.to_string())
                        }
                        _ => None,
                    };
                    if stored != expected || stored.is_none() {
                        Some((show(stored), show(expected)))
                    } else {
                        infinite
                            .map(|w| (show(stored), format!("{w} in the infinite game (the folder's other tables)")))
                    }
                }
            };
            if let Some((stored, expected)) = bad {
                return Some((us, them, stored, expected));
            }
        }
        None
    });
    match first_bad {
        None => Ok(()),
        Some((us, them, stored, expected)) => Err(TbError::Inconsistent {
            path: table_path_of(tb.dir(), kind, material),
            position: denormalize(us, them).to_string(),
            stored,
            expected,
        }),
    }
}

/// A summary of one class.
#[derive(Clone, Debug)]
pub struct ClassStats {
    pub material: Material,
    pub kind: Kind,
    /// Slots in the file.
    pub entries: u64,
    /// Positions (stored forms: the side to move normalised) the class
    /// stands for: a position and its mirror image count twice, as in
    /// scheme 1, so counts compare across schemes.
    pub positions: u64,
    pub wins: u64,
    pub draws: u64,
    pub losses: u64,
    /// The longest win and a position (White to move) with it (distance
    /// tables; distance-to-progress tables: the longest distance to
    /// progress of a win under the rule).
    pub longest_win: Option<(u16, String)>,
    /// The longest loss and a position with it (as `longest_win`).
    pub longest_loss: Option<(u16, String)>,
    /// Of the wins, those the 60-ply no-progress rule turns into draws
    /// (distance-to-progress tables; 0 for the other kinds).
    pub cursed_wins: u64,
    /// Of the losses, those the rule turns into draws.
    pub blessed_losses: u64,
}

/// A histogram of a class's codes (value bytes, or 2-bit codes in 0..4),
/// each position counted once: under the mirror scheme every slot counts
/// twice, except in the blocks of mover's sets that are their own mirror
/// image, where the spare slots stand for their mirror images.
fn histogram(view: &TableView<'_>) -> [u64; 256] {
    let material = view.material;
    let scheme = view.layout.scheme;
    let block = material.block();
    let sets = material.sets(scheme);
    let add = |mut a: [u64; 256], b: [u64; 256]| {
        a.iter_mut().zip(b).for_each(|(x, y)| *x += y);
        a
    };
    let code = |i: u64| -> usize {
        match view.layout.kind {
            Kind::Distance | Kind::Dtz => view.data[i as usize] as usize,
            Kind::Wdl => wdl_code(view.wdl(i)) as usize,
        }
    };
    (0..sets)
        .into_par_iter()
        .fold(
            || [0u64; 256],
            |mut h, set| {
                let weight = match scheme {
                    Scheme::Plain => 1,
                    Scheme::Mirror => {
                        let us = mover_set(scheme, material, set);
                        if us == mirror(us) {
                            1
                        } else {
                            2
                        }
                    }
                };
                for i in set * block..(set + 1) * block {
                    h[code(i)] += weight;
                }
                h
            },
        )
        .reduce(|| [0u64; 256], add)
}

/// Counts the values of one class's table of `kind`.
pub fn class_stats(tb: &Tablebase, material: Material, kind: Kind) -> Result<ClassStats, TbError> {
    let table = tb.table_of(material, kind)?;
    let view = table.view();
    let histogram = histogram(&view);
    let mut stats = ClassStats {
        material,
        kind,
        entries: table.data_entries(),
        positions: histogram.iter().sum(),
        wins: 0,
        draws: 0,
        losses: 0,
        longest_win: None,
        longest_loss: None,
        cursed_wins: 0,
        blessed_losses: 0,
    };
    let values = view.data;
    let example = |byte: u8| {
        let i = values.par_iter().position_first(|&b| b == byte).expect("counted above");
        let (us, them) = position_in(view.layout.scheme, material, i as u64);
        denormalize(us, them).to_string()
    };
    if kind == Kind::Dtz {
        use crate::Dtz;
        for byte in 0..=255u8 {
            let n = histogram[byte as usize];
            match Dtz::from_byte(byte) {
                Some(Dtz::Win(_)) => stats.wins += n,
                Some(Dtz::CursedWin) => (stats.wins, stats.cursed_wins) = (stats.wins + n, stats.cursed_wins + n),
                Some(Dtz::Draw) | None => stats.draws += n,
                Some(Dtz::BlessedLoss) => {
                    (stats.losses, stats.blessed_losses) = (stats.losses + n, stats.blessed_losses + n)
                }
                Some(Dtz::Loss(_)) => stats.losses += n,
            }
        }
        let longest = |win: bool| {
            (0..=255u8).rev().find_map(|b| match Dtz::from_byte(b) {
                Some(Dtz::Win(d)) if win && histogram[b as usize] > 0 => Some((d as u16, example(b))),
                Some(Dtz::Loss(d)) if !win && histogram[b as usize] > 0 => Some((d as u16, example(b))),
                _ => None,
            })
        };
        stats.longest_win = longest(true);
        stats.longest_loss = longest(false);
        return Ok(stats);
    }
    if kind == Kind::Wdl {
        stats.draws = histogram[wdl_code(Wdl::Draw) as usize];
        stats.wins = histogram[wdl_code(Wdl::Win) as usize];
        stats.losses = histogram[wdl_code(Wdl::Loss) as usize];
        return Ok(stats);
    }
    stats.draws = histogram[0];
    for byte in 1..=255u8 {
        let n = histogram[byte as usize];
        match value_from_byte(byte) {
            Exact::Win(_) => stats.wins += n,
            Exact::Loss(_) => stats.losses += n,
            Exact::Draw => {}
        }
    }
    if let Some(byte) =
        (1..=255u8).rev().find(|&b| histogram[b as usize] > 0 && matches!(value_from_byte(b), Exact::Win(_)))
    {
        stats.longest_win = Some((u16::from(byte) - 1, example(byte)));
    }
    if let Some(byte) =
        (1..=255u8).rev().find(|&b| histogram[b as usize] > 0 && matches!(value_from_byte(b), Exact::Loss(_)))
    {
        stats.longest_loss = Some((u16::from(byte) - 1, example(byte)));
    }
    Ok(stats)
}

/// Compares, entry by entry, the win/draw/loss values of `a`'s tables of
/// `kind` for every class up to `up_to` pieces with what `b` gives for the
/// same positions (from its distance tables where they cover them): two
/// builds by different routes, or of different kinds, must agree. Every slot
/// of `a` is compared, spare slots too. Stops at the first difference.
/// Returns the number of entries compared.
pub fn compare_wdl(
    a: &Tablebase,
    kind: Kind,
    b: &Tablebase,
    up_to: u32,
    report: &mut dyn FnMut(VerifyEvent),
) -> Result<u64, TbError> {
    let mut compared = 0;
    for material in Material::up_to(up_to) {
        let started = Instant::now();
        let table = a.table_of(material, kind)?;
        let view = table.view();
        let scheme = view.layout.scheme;
        let block = material.block();
        let positions = table.data_entries();
        report(VerifyEvent::ClassStart { material, kind, positions });
        let first_bad = (0..material.sets(scheme)).into_par_iter().find_map_first(|set| {
            let us = mover_set(scheme, material, set);
            let free = FreePoints::new(us);
            let mut squeezed: u32 = (1u32 << material.other) - 1;
            for j in 0..block {
                let them = free.deposit(squeezed);
                if squeezed != 0 {
                    squeezed = next_combination(squeezed);
                }
                let mine = view.wdl(set * block + j);
                match b.wdl_of(us, them) {
                    Ok((theirs, _)) if theirs == mine => {}
                    Ok((theirs, _)) => return Some(Err((us, them, mine, theirs))),
                    Err(e) => return Some(Ok(e)),
                }
            }
            None
        });
        match first_bad {
            None => {}
            Some(Ok(e)) => return Err(e),
            Some(Err((us, them, mine, theirs))) => {
                return Err(TbError::Inconsistent {
                    path: table_path_of(a.dir(), kind, material),
                    position: denormalize(us, them).to_string(),
                    stored: mine.to_string(),
                    expected: format!("{theirs} (from {})", b.dir().display()),
                })
            }
        }
        compared += positions;
        report(VerifyEvent::ClassDone { material, kind, positions, seconds: started.elapsed().as_secs_f64() });
    }
    Ok(compared)
}
