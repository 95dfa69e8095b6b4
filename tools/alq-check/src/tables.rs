//! Win/draw/loss tables by retrograde analysis, class by class.
//!
//! A *class* is a material (White count `w`, Black count `b`). A position of a
//! class is indexed by the colex rank of White's point set among the 25
//! points, times the number of Black sets, plus the colex rank of Black's set
//! among the 25 − w points White leaves free; Black to move adds the class
//! size. One byte a position.
//!
//! Values are for the side to move in the infinite game: a side without a
//! legal move has lost; a position is won if some move leads to a position
//! lost for the opponent, lost if every move leads to one won for the
//! opponent, drawn when neither ever becomes true.
//!
//! Captures lower the piece count, so classes are built from fewer pieces up:
//! a capture's successor is in a finished class. Within a class only simple
//! moves connect positions, and a simple move is easy to take back, so the
//! fixed point is reached by counting (the usual retrograde analysis):
//! 1. every position is looked at once: no legal move → lost; a capture
//!    position gets its value from its (finished) successors at once;
//!    otherwise its byte holds the number of its simple moves not yet
//!    known to lead to an opponent win;
//! 2. each newly decided position tells its predecessors (positions where the
//!    opponent just made a simple move to it): a loss makes each predecessor a
//!    win; a win lowers its count, and a count reaching 0 makes it a loss
//!    (every move leads to an opponent win);
//! 3. when nothing new is decided, every still-counting position is a draw.
//!
//! Threads share the bytes as `AtomicU8`, updated by compare-and-swap: each
//! decision is taken once, from facts that never change afterwards.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicUsize, Ordering::Relaxed};
use std::time::Instant;

use crate::{bits, for_each_path, is_strong, Pos, ALL_POINTS};

/// A value for the side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Wdl {
    Win,
    Draw,
    Loss,
}

impl Wdl {
    /// The value for the other side.
    pub fn flip(self) -> Wdl {
        match self {
            Wdl::Win => Wdl::Loss,
            Wdl::Draw => Wdl::Draw,
            Wdl::Loss => Wdl::Win,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Wdl::Win => "win",
            Wdl::Draw => "draw",
            Wdl::Loss => "loss",
        }
    }
}

// Byte states. 1..=COUNTED: undecided, with that many moves left to refute.
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
            t[n][k] = t[n - 1][k - 1] + if k < n { t[n - 1][k] } else { 0 };
            k += 1;
        }
        n += 1;
    }
    t
};

/// Colex rank of a point set: Σ C(p_i, i+1) over its points p_0 < p_1 < ….
fn rank(set: u32) -> usize {
    bits(set).enumerate().map(|(i, p)| BINOM[p][i + 1]).sum()
}

/// The `k`-point set of colex rank `r`.
fn unrank(mut r: usize, k: usize) -> u32 {
    let mut set = 0;
    let mut c = 25;
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

/// Black's points renumbered among the points White leaves free.
fn compress(black: u32, white: u32) -> u32 {
    bits(black).map(|p| 1 << (p - (white & ((1 << p) - 1)).count_ones() as usize)).sum()
}

/// The inverse of [`compress`]: bit `i` goes to the `i`-th point White leaves free.
fn expand(compressed: u32, white: u32) -> u32 {
    bits(ALL_POINTS & !white).enumerate().filter(|&(i, _)| compressed >> i & 1 == 1).map(|(_, p)| 1 << p).sum()
}

/// Positions of a class with one side to move.
pub fn class_size(w: usize, b: usize) -> usize {
    BINOM[25][w] * BINOM[25 - w][b]
}

/// A position's index in its class.
fn index(pos: &Pos) -> usize {
    let (w, b) = (pos.white.count_ones() as usize, pos.black.count_ones() as usize);
    let i = rank(pos.white) * BINOM[25 - w][b] + rank(compress(pos.black, pos.white));
    i + if pos.black_to_move { class_size(w, b) } else { 0 }
}

/// The position at an index of class (w, b).
fn position(w: usize, b: usize, i: usize) -> Pos {
    let n = class_size(w, b);
    let (black_to_move, i) = (i >= n, i % n);
    let per_white = BINOM[25 - w][b];
    let white = unrank(i / per_white, w);
    Pos { white, black: expand(unrank(i % per_white, b), white), black_to_move }
}

/// Win/draw/loss tables of some classes.
#[derive(Default)]
pub struct Tables {
    classes: HashMap<(usize, usize), Vec<AtomicU8>>,
}

impl Tables {
    /// Tables of every class with at most `k` pieces.
    pub fn build(k: usize, threads: usize, progress: bool) -> Result<Tables, String> {
        let classes: Vec<(usize, usize)> =
            (0..=k.min(24)).flat_map(|w| (0..=k - w).map(move |b| (w, b))).filter(|&(w, b)| w + b <= 24).collect();
        Tables::build_classes(&classes, threads, progress)
    }

    /// Tables of the given classes and every class they lead to (fewer of either).
    pub fn build_classes(wanted: &[(usize, usize)], threads: usize, progress: bool) -> Result<Tables, String> {
        let mut tables = Tables::default();
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

    /// Number of positions held (both sides to move).
    pub fn positions(&self) -> usize {
        self.classes.values().map(Vec::len).sum()
    }

    /// The value of a key's position for its side to move, if its class is built.
    pub fn probe(&self, key: u64) -> Option<Wdl> {
        let pos = Pos::from_key(key).ok()?;
        self.value(&pos)
    }

    fn value(&self, pos: &Pos) -> Option<Wdl> {
        let class = (pos.white.count_ones() as usize, pos.black.count_ones() as usize);
        Some(value_of(self.classes.get(&class)?[index(pos)].load(Relaxed)))
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
            // Captures lead to finished classes; simple moves are counted.
            let (mut captures, mut best, mut simple) = (false, Wdl::Loss, 0u8);
            for_each_path(&pos, &mut |m| {
                if m.captured != 0 {
                    captures = true;
                    let child = self.value(&pos.play(m)).expect("smaller classes are built first").flip();
                    if child == Wdl::Win || (child == Wdl::Draw && best == Wdl::Loss) {
                        best = child;
                    }
                } else {
                    simple += 1;
                }
            });
            let state = match (captures, best) {
                (true, Wdl::Win) => WIN_NEW,
                (true, Wdl::Draw) => DRAW,
                (true, Wdl::Loss) => LOSS_NEW,
                (false, _) if simple == 0 => LOSS_NEW,
                (false, _) => simple,
            };
            assert!(state != 0 && (state <= COUNTED || state >= WIN_NEW));
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
                for_each_predecessor(&position(w, b, i), &mut |q| {
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
            eprintln!(
                "class {w}+{b}: {n} positions ({} wins, {} draws, {} losses) {:.2}s",
                count[0],
                count[1],
                count[2],
                start.elapsed().as_secs_f64()
            );
        }
        self.classes.insert((w, b), bytes);
        Ok(())
    }
}

/// The positions from which the side not to move in `pos` reached it by a
/// simple move: one of its pieces at `q` came from an empty `q'` one step
/// back along a moving direction (so from a strong point if diagonal), and
/// `q'` is not on its last row. Whether that side had a capture there (and so
/// could not move simply) is left to the caller: such positions are decided
/// in step 1 already.
fn for_each_predecessor(pos: &Pos, f: &mut dyn FnMut(Pos)) {
    let mover_black = !pos.black_to_move;
    let (ours, empty) = (if mover_black { pos.black } else { pos.white }, ALL_POINTS & !(pos.white | pos.black));
    let (forward, last_row): (i32, usize) = if mover_black { (-1, 0) } else { (1, 4) };
    for q in bits(ours) {
        for (df, dr) in [(0, forward), (1, forward), (-1, forward), (1, 0), (-1, 0)] {
            let (f0, r0) = ((q % 5) as i32 - df, (q / 5) as i32 - dr);
            if !(0..5).contains(&f0) || !(0..5).contains(&r0) {
                continue;
            }
            let from = (r0 * 5 + f0) as usize;
            if (df != 0 && dr != 0 && !is_strong(from)) || from / 5 == last_row || empty >> from & 1 == 0 {
                continue;
            }
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
