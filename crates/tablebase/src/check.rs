//! Checking a built tablebase (`verify`) and summarising it (`stats`).

use std::sync::Arc;
use std::time::Instant;

use alq_engine::MoveList;
use rayon::prelude::*;

use crate::error::TbError;
use crate::format::{table_path, Table};
use crate::index::{denormalize, index, next_combination, unrank, FreePoints, Material, POINTS};
use crate::probe::Tablebase;
use crate::solve::successor;
use crate::value::Value;

/// Progress of a verification.
#[derive(Clone, Debug)]
pub enum VerifyEvent {
    /// A class starts.
    ClassStart { material: Material, positions: u64 },
    /// A class is consistent.
    ClassDone { material: Material, positions: u64, seconds: f64 },
}

/// Re-checks every stored value against the values of its successors, found
/// with the engine's move generator: a position without moves is lost in 0;
/// otherwise it wins in `d` when its best successor is a loss for the
/// opponent in `d - 1` (and none is shorter), it is a draw when no successor
/// is a loss and one is a draw, and it loses in `d` when every successor is
/// a win for the opponent and the longest takes `d - 1`. Stops at the first
/// inconsistency. Returns the number of entries checked.
pub fn verify(tb: &mut Tablebase, report: &mut dyn FnMut(VerifyEvent)) -> Result<u64, TbError> {
    let mut checked = 0;
    for pieces in 0..=tb.max_pieces() {
        for material in Material::with_pieces(pieces) {
            let started = Instant::now();
            let positions = material.positions();
            report(VerifyEvent::ClassStart { material, positions });
            verify_class(tb, material)?;
            checked += positions;
            report(VerifyEvent::ClassDone { material, positions, seconds: started.elapsed().as_secs_f64() });
        }
        // Level n + 1 needs levels n and n + 1 only through captures of one
        // or more pieces; dropping what was read keeps memory to one level's worth.
        if pieces >= 2 {
            tb.release();
        }
    }
    Ok(checked)
}

fn verify_class(tb: &Tablebase, material: Material) -> Result<(), TbError> {
    let own = tb.table(material)?;
    let mut tables: Vec<Vec<Option<Arc<Table>>>> = vec![vec![None; 13]; 13];
    let partner = material.flipped();
    tables[partner.mover as usize][partner.other as usize] = Some(tb.table(partner)?);
    for c in 0..material.other {
        tables[c as usize][material.mover as usize] = Some(tb.table(Material { mover: c, other: material.mover })?);
    }
    let values = own.values();
    let block = material.block();
    let first_bad = (0..material.mover_sets())
        .into_par_iter()
        .find_map_first(|set| {
            let us = unrank(set, material.mover.into(), POINTS);
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
                let expected = Value::from_successors(moves.iter().map(|&mv| {
                    let (nu, nt, nm) = successor(us, them, mv);
                    let table = tables[nm.mover as usize][nm.other as usize].as_ref().expect("loaded above");
                    Value::from_byte(table.values()[index(nu, nt, nm) as usize])
                }));
                let stored = Value::from_byte(values[(set * block + j) as usize]);
                if stored != expected {
                    return Some((us, them, stored, expected));
                }
            }
            None
        });
    match first_bad {
        None => Ok(()),
        Some((us, them, stored, expected)) => Err(TbError::Inconsistent {
            path: table_path(tb.dir(), material),
            position: denormalize(us, them).to_string(),
            stored: stored.to_string(),
            expected: expected.to_string(),
        }),
    }
}

/// A summary of one class.
#[derive(Clone, Debug)]
pub struct ClassStats {
    pub material: Material,
    pub positions: u64,
    pub wins: u64,
    pub draws: u64,
    pub losses: u64,
    /// The longest win and a position (White to move) with it.
    pub longest_win: Option<(u16, String)>,
    /// The longest loss and a position with it.
    pub longest_loss: Option<(u16, String)>,
}

/// Counts the values of one class.
pub fn class_stats(tb: &Tablebase, material: Material) -> Result<ClassStats, TbError> {
    let table = tb.table(material)?;
    let values = table.values();
    let histogram = values
        .par_chunks(1 << 20)
        .map(|chunk| {
            let mut h = [0u64; 256];
            for &b in chunk {
                h[b as usize] += 1;
            }
            h
        })
        .reduce(
            || [0u64; 256],
            |mut a, b| {
                a.iter_mut().zip(b).for_each(|(x, y)| *x += y);
                a
            },
        );
    let mut stats = ClassStats {
        material,
        positions: values.len() as u64,
        wins: 0,
        draws: histogram[0],
        losses: 0,
        longest_win: None,
        longest_loss: None,
    };
    let example = |byte: u8| {
        let i = values.par_iter().position_first(|&b| b == byte).expect("counted above");
        let (us, them) = crate::index::position_at(material, i as u64);
        denormalize(us, them).to_string()
    };
    for byte in 1..=255u8 {
        let n = histogram[byte as usize];
        match Value::from_byte(byte) {
            Value::Win(_) => stats.wins += n,
            Value::Loss(_) => stats.losses += n,
            Value::Draw => {}
        }
    }
    if let Some(byte) = (1..=255u8).rev().find(|&b| histogram[b as usize] > 0 && matches!(Value::from_byte(b), Value::Win(_))) {
        stats.longest_win = Some((u16::from(byte) - 1, example(byte)));
    }
    if let Some(byte) = (1..=255u8).rev().find(|&b| histogram[b as usize] > 0 && matches!(Value::from_byte(b), Value::Loss(_))) {
        stats.longest_loss = Some((u16::from(byte) - 1, example(byte)));
    }
    Ok(stats)
}
