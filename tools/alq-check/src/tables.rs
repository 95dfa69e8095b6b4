//! Win/draw/loss tables by retrograde analysis, one byte a position.
//!
//! Values are for the side to move: a side without a legal move has lost; a position is won if some move leads to
//! a position lost for the opponent, lost if every move leads to one won for the opponent, drawn when neither ever
//! becomes true.
//!
//! A *class* is a material (White count, Black count). Captures lower it, so classes are built from fewer pieces
//! up, and within a class only simple moves, which are easy to take back, connect positions. Per class:
//! 1. each position once: no legal move → lost; with captures, the value follows from the successors (in finished
//!    classes); otherwise its byte counts its simple moves not yet known to lead to an opponent win;
//! 2. each newly decided position tells its predecessors by a simple move: a loss makes them wins; a win lowers
//!    their count, and 0 makes a loss;
//! 3. when nothing new is decided, every still-counting position is a draw.
//!
//! Simple moves may cycle (sideways under both rule sets, backward too in classic). That needs nothing special: a
//! position is decided only from successors decided before it, and positions never decided are draws.
//!
//! Threads share the bytes as `AtomicU8`, updated by compare-and-swap: each decision is taken once, from facts
//! that never change afterwards.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicUsize, Ordering::Relaxed};
use std::time::Instant;

use crate::{bits, for_each_path, moving, step, Pos, Rules, ALL_POINTS};

/// A value for the side to move, best first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Wdl {
    Win,
    Draw,
    Loss,
}

impl Wdl {
    /// The value for the other side.
    pub fn flip(self) -> Wdl {
        [Wdl::Loss, Wdl::Draw, Wdl::Win][self as usize]
    }

    pub fn name(self) -> &'static str {
        ["win", "draw", "loss"][self as usize]
    }
}

// Byte states. 1..=COUNTED: undecided, with that many simple moves (at most 12 × 8) left to refute.
const COUNTED: u8 = 249;
const WIN_NEW: u8 = 250; // decided, predecessors not yet told
const LOSS_NEW: u8 = 251;
const WIN: u8 = 252; // decided, predecessors told
const LOSS: u8 = 253;
const DRAW: u8 = 254; // a capture position whose best successor is a draw

fn value_of(byte: u8) -> Wdl {
    match byte {
        WIN_NEW | WIN => Wdl::Win,
        LOSS_NEW | LOSS => Wdl::Loss,
        _ => Wdl::Draw, // DRAW, or still counting when the class is finished
    }
}

/// `BINOM[n][k]` = n choose k.
const BINOM: [[usize; 26]; 26] = {
    let mut t = [[0usize; 26]; 26];
    let mut n = 0;
    while n < 26 {
        t[n][0] = 1;
        let mut k = 1;
        while k <= n {
            t[n][k] = t[n - 1][k - 1] + t[n - 1][k];
            k += 1;
        }
        n += 1;
    }
    t
};

// A position's index in its class: the colex rank of White's point set times the number of Black sets, plus the
// colex rank of Black's set among the 25 − w points White leaves free; Black to move adds the class size.

/// Colex rank of a point set: Σ C(p_i, i+1) over its points p_0 < p_1 < ….
fn rank(set: u32) -> usize {
    bits(set).enumerate().map(|(i, p)| BINOM[p][i + 1]).sum()
}

/// The `k`-point set of colex rank `r`.
fn unrank(mut r: usize, k: usize) -> u32 {
    let (mut set, mut c) = (0, 25);
    for i in (1..=k).rev() {
        c -= 1;
        while BINOM[c][i] > r {
            c -= 1;
        }
        r -= BINOM[c][i];
        set |= 1 << c;
    }
    set
}

/// Positions of a class with one side to move.
pub fn class_size(w: usize, b: usize) -> usize {
    BINOM[25][w] * BINOM[25 - w][b]
}

fn index(pos: &Pos) -> usize {
    let (w, b) = pos.class();
    // Black's points renumbered among the points White leaves free.
    let black = bits(pos.black).map(|p| 1 << (p - (pos.white & ((1 << p) - 1)).count_ones() as usize)).sum();
    let i = rank(pos.white) * BINOM[25 - w][b] + rank(black);
    i + if pos.black_to_move { class_size(w, b) } else { 0 }
}

fn position(w: usize, b: usize, i: usize) -> Pos {
    let n = class_size(w, b);
    let (black_to_move, i) = (i >= n, i % n);
    let white = unrank(i / BINOM[25 - w][b], w);
    let black = unrank(i % BINOM[25 - w][b], b);
    // Bit j of `black` goes to the j-th point White leaves free: a 0 is slid in at each White point, lowest first.
    let black = bits(white).fold(black, |x, p| x & ((1 << p) - 1) | (x >> p) << (p + 1));
    Pos { white, black, black_to_move }
}

/// Win/draw/loss tables of some classes, under one rule set.
pub struct Tables {
    pub(crate) rules: Rules,
    classes: HashMap<(usize, usize), Vec<AtomicU8>>,
}

impl Tables {
    /// BrainKing tables of every class with at most `k` pieces.
    pub fn build(k: usize, threads: usize, progress: bool) -> Result<Tables, String> {
        Tables::build_classes(Rules::BrainKing, &Tables::up_to(k), threads, progress)
    }

    /// The classes of at most `k` pieces.
    pub fn up_to(k: usize) -> Vec<(usize, usize)> {
        let k = k.min(24);
        (0..=k).flat_map(|w| (0..=k - w).map(move |b| (w, b))).collect()
    }

    /// Tables of the given classes and every class they lead to (fewer of either).
    pub fn build_classes(
        rules: Rules,
        wanted: &[(usize, usize)],
        threads: usize,
        progress: bool,
    ) -> Result<Tables, String> {
        let mut tables = Tables { rules, classes: HashMap::new() };
        for (w, b) in Tables::plan(wanted) {
            tables.build_class(w, b, threads.max(1), progress)?;
        }
        Ok(tables)
    }

    /// The classes to build for `wanted`, in build order (fewer pieces first).
    pub fn plan(wanted: &[(usize, usize)]) -> Vec<(usize, usize)> {
        let mut all: Vec<(usize, usize)> =
            wanted.iter().flat_map(|&(w, b)| (0..=w).flat_map(move |x| (0..=b).map(move |y| (x, y)))).collect();
        all.sort_by_key(|&(w, b)| (w + b, w));
        all.dedup();
        all
    }

    /// The value of a position for its side to move, if its class is built.
    pub fn probe(&self, pos: &Pos) -> Option<Wdl> {
        Some(value_of(self.classes.get(&pos.class())?[index(pos)].load(Relaxed)))
    }

    /// Calls `f` with every key held and its value.
    pub fn for_each(&self, f: &mut dyn FnMut(u64, Wdl)) {
        for (&(w, b), bytes) in &self.classes {
            for (i, byte) in bytes.iter().enumerate() {
                f(position(w, b, i).key(), value_of(byte.load(Relaxed)));
            }
        }
    }

    fn build_class(&mut self, w: usize, b: usize, threads: usize, progress: bool) -> Result<(), String> {
        let start = Instant::now();
        let n = 2 * class_size(w, b);
        let mut bytes = Vec::new();
        bytes.try_reserve_exact(n).map_err(|_| format!("cannot allocate {n} bytes for class {w}+{b}"))?;
        bytes.resize_with(n, || AtomicU8::new(0));
        let this = &bytes;
        // Step 1: each position once.
        parallel(n, threads, &|i| {
            let pos = position(w, b, i);
            // The best capture, if any (its successor is in a finished class), and the simple moves.
            let (mut best, mut simple) = (None, 0u8);
            for_each_path(self.rules, &pos, &mut |m| {
                if m.captured == 0 {
                    simple += 1;
                } else {
                    let v = self.probe(&pos.play(m)).expect("smaller classes are built first").flip();
                    best = Some(best.map_or(v, |b: Wdl| b.min(v)));
                }
            });
            let state = match best {
                Some(v) => [WIN_NEW, DRAW, LOSS_NEW][v as usize],
                None if simple == 0 => LOSS_NEW,
                None => simple,
            };
            this[i].store(state, Relaxed);
        });
        // Step 2: tell predecessors, pass after pass, until nothing is new.
        loop {
            let changed = AtomicBool::new(false);
            parallel(n, threads, &|i| {
                let state = this[i].load(Relaxed);
                if state != WIN_NEW && state != LOSS_NEW {
                    return;
                }
                changed.store(true, Relaxed);
                this[i].store(if state == WIN_NEW { WIN } else { LOSS }, Relaxed);
                for_each_predecessor(self.rules, &position(w, b, i), &mut |q| {
                    let _ = this[index(&q)].fetch_update(Relaxed, Relaxed, |c| match c {
                        _ if c > COUNTED => None,                // decided already
                        _ if state == LOSS_NEW => Some(WIN_NEW), // a move to a loss: won
                        1 => Some(LOSS_NEW),                     // the last move refuted: lost
                        _ => Some(c - 1),
                    });
                });
            });
            if !changed.load(Relaxed) {
                break;
            }
        }
        if progress {
            let mut count = [0usize; 3];
            for byte in this {
                count[value_of(byte.load(Relaxed)) as usize] += 1;
            }
            let [wins, draws, losses] = count;
            let secs = start.elapsed().as_secs_f64();
            eprintln!("class {w}+{b}: {n} positions ({wins} wins, {draws} draws, {losses} losses) {secs:.2}s");
        }
        self.classes.insert((w, b), bytes);
        Ok(())
    }
}

/// The positions from which the side not to move in `pos` reached it by a simple move: one of its pieces at `q`
/// came one step back along a moving direction from an empty point not on its frozen last row (classic: from any
/// empty point next to `q` on a line). Whether that side had a capture there (and so could not move simply) is left
/// to the caller: such positions are decided in step 1.
fn for_each_predecessor(rules: Rules, pos: &Pos, f: &mut dyn FnMut(Pos)) {
    let mover_black = !pos.black_to_move;
    let ours = if mover_black { pos.black } else { pos.white };
    let empty = ALL_POINTS & !(pos.white | pos.black);
    let (dirs, last_row) = moving(rules, mover_black);
    for q in bits(ours) {
        let back = dirs.iter().filter_map(|&(df, dr)| step(q, (-df, -dr)));
        for from in back.filter(|&p| p / 5 != last_row && empty >> p & 1 == 1) {
            let moved = ours & !(1 << q) | 1 << from;
            let (white, black) = if mover_black { (pos.white, moved) } else { (moved, pos.black) };
            f(Pos { white, black, black_to_move: mover_black });
        }
    }
}

/// Runs `job(i)` for every `i < n` on `threads` threads, in chunks.
fn parallel(n: usize, threads: usize, job: &(impl Fn(usize) + Sync)) {
    const CHUNK: usize = 1 << 14;
    let next = AtomicUsize::new(0);
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| loop {
                let start = next.fetch_add(CHUNK, Relaxed);
                if start >= n {
                    break;
                }
                (start..(start + CHUNK).min(n)).for_each(job);
            });
        }
    });
}
