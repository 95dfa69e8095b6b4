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
//!    their count, and 0 makes a loss. The newly decided positions are a *frontier* (a bitmap, one bit a
//!    position), so a round visits only them, never the whole class;
//! 3. when the frontier is empty, every still-counting position is a draw.
//!
//! Both rule sets are symmetric under turning the board upside down and swapping the colours ([`flip`]): class
//! (w, b) is class (b, w) seen from the other side. Only classes with w ≥ b are built; a position of a class with
//! fewer White pieces is looked up flipped. They are symmetric under the mirror image too (files a↔e, [`mirror`]):
//! a position and its mirror image share the entry of whichever is [`canonical`], and only canonical positions
//! are computed (half the work). A position's simple moves then count its successors one by one, but a newly
//! decided position P tells its canonical predecessors once for P and its mirror image together, so step 2 weighs
//! each report by how many of the predecessor's moves reach {P, mirror P} (see `reports`).
//!
//! Simple moves may cycle (sideways under both rule sets, backward too in classic). That needs nothing special: a
//! position is decided only from successors decided before it, and positions never decided are draws.
//!
//! Threads share the bytes as `AtomicU8`, updated by compare-and-swap: each decision is taken once, from facts
//! that never change afterwards.

use std::sync::atomic::{AtomicU64, AtomicU8, AtomicUsize, Ordering::Relaxed};
use std::time::Instant;

use crate::{bits, for_each_capture, moving, simple_moves, step, Pos, Rules, ALL_POINTS};

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
const WIN: u8 = 252;
const LOSS: u8 = 253;
const DRAW: u8 = 254; // a capture position whose best successor is a draw
const MIRROR: u8 = 255; // not canonical: the mirror image's entry holds the value

fn value_of(byte: u8) -> Wdl {
    match byte {
        WIN => Wdl::Win,
        LOSS => Wdl::Loss,
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

pub(crate) fn index(pos: &Pos) -> usize {
    let (w, b) = pos.class();
    // Black's points renumbered among the points White leaves free.
    let black = bits(pos.black).map(|p| 1 << (p - (pos.white & ((1 << p) - 1)).count_ones() as usize)).sum();
    let i = rank(pos.white) * BINOM[25 - w][b] + rank(black);
    i + if pos.black_to_move { class_size(w, b) } else { 0 }
}

pub(crate) fn position(w: usize, b: usize, i: usize) -> Pos {
    let n = class_size(w, b);
    let (black_to_move, i) = (i >= n, i % n);
    let white = unrank(i / BINOM[25 - w][b], w);
    let black = unrank(i % BINOM[25 - w][b], b);
    Pos { white, black: spread(white, black), black_to_move }
}

/// Black's set among the points White leaves free, as points of the board: bit j of `black` goes to the j-th free
/// point (a 0 is slid in at each White point, lowest first).
fn spread(white: u32, black: u32) -> u32 {
    bits(white).fold(black, |x, p| x & ((1 << p) - 1) | (x >> p) << (p + 1))
}

/// Each 5-point rank reversed: bit f becomes bit 4 − f.
const REVERSE5: [u32; 32] = {
    let mut t = [0u32; 32];
    let mut x = 0;
    while x < 32 {
        let mut f = 0;
        while f < 5 {
            t[x] |= (x as u32 >> f & 1) << (4 - f);
            f += 1;
        }
        x += 1;
    }
    t
};

/// The mirror image (file f becomes 4 − f, same side to move): moves map to mirrored moves under both rule sets
/// (the drawn lines, the moving directions and the frozen rows are symmetric), so both have the same value.
pub fn mirror(pos: &Pos) -> Pos {
    let ranks = |x: u32| (0..5).fold(0, |acc, r| acc | REVERSE5[(x >> (5 * r) & 31) as usize] << (5 * r));
    Pos { white: ranks(pos.white), black: ranks(pos.black), black_to_move: pos.black_to_move }
}

/// Of a position and its mirror image, the one with the smaller (White set, Black set): it holds the entry of both.
pub fn canonical(pos: &Pos) -> Pos {
    canonical_of(pos).0
}

/// [`canonical`], and whether the position is its own mirror image.
fn canonical_of(pos: &Pos) -> (Pos, bool) {
    let m = mirror(pos);
    (if (m.white, m.black) < (pos.white, pos.black) { m } else { *pos }, m == *pos)
}

/// The position turned upside down (rank r becomes 4 − r) with the colours swapped: a move of one is the mirrored
/// move of the other under both rule sets, so both have the same value for their side to move.
pub fn flip(pos: &Pos) -> Pos {
    let ranks = |x: u32| (0..5).fold(0, |acc, r| acc | (x >> (5 * r) & 31) << (5 * (4 - r)));
    Pos { white: ranks(pos.black), black: ranks(pos.white), black_to_move: !pos.black_to_move }
}

/// The position of index `i` and those after it in index order, one step at a time (cheaper than
/// [`position`] for each): Black's set counts up through its colex order, and when it has been through every set
/// White's set steps on.
struct Walk {
    w: usize,
    b: usize,
    free: usize,
    white: u32,
    black: u32,
    black_to_move: bool,
    left: usize,
}

impl Walk {
    fn new(w: usize, b: usize, i: usize) -> Walk {
        let n = class_size(w, b);
        let (black_to_move, i) = (i >= n, i % n);
        let free = BINOM[25 - w][b];
        let white = unrank(i / free, w);
        let black = unrank(i % free, b);
        Walk { w, b, free: 25 - w, white, black, black_to_move, left: free - i % free }
    }

    fn pos(&self) -> Pos {
        Pos { white: self.white, black: spread(self.white, self.black), black_to_move: self.black_to_move }
    }

    fn advance(&mut self) {
        self.left -= 1;
        if self.left > 0 {
            self.black = next_set(self.black);
            return;
        }
        // Black has been through every set: White's next set, or the first one with Black to move.
        self.black = (1 << self.b) - 1;
        self.left = BINOM[self.free][self.b];
        if self.w > 0 && self.white != ((1u32 << self.w) - 1) << (25 - self.w) {
            self.white = next_set(self.white);
        } else {
            self.white = (1 << self.w) - 1;
            self.black_to_move = true;
        }
    }
}

/// The next larger number with as many bits set: the next set in colex order.
fn next_set(x: u32) -> u32 {
    if x == 0 {
        return 0;
    }
    let low = x & x.wrapping_neg();
    let ripple = x + low;
    ripple | (((x ^ ripple) >> 2) / low)
}

/// Win/draw/loss tables of some classes, under one rule set.
pub struct Tables {
    pub(crate) rules: Rules,
    /// Class (w, b) at `w * 25 + b`, empty until built.
    classes: Vec<Vec<AtomicU8>>,
}

fn slot((w, b): (usize, usize)) -> usize {
    w * 25 + b
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
        let mut tables = Tables { rules, classes: (0..25 * 25).map(|_| Vec::new()).collect() };
        for (w, b) in Tables::plan(wanted) {
            tables.build_class(w, b, threads.max(1), progress)?;
        }
        Ok(tables)
    }

    /// The classes to build for `wanted`, in build order (fewer pieces first): each (w, b) with w ≥ b, which
    /// serves (b, w) too.
    pub fn plan(wanted: &[(usize, usize)]) -> Vec<(usize, usize)> {
        let mut all: Vec<(usize, usize)> = wanted
            .iter()
            .flat_map(|&(w, b)| (0..=w).flat_map(move |x| (0..=b).map(move |y| (x.max(y), x.min(y)))))
            .collect();
        all.sort_by_key(|&(w, b)| (w + b, w));
        all.dedup();
        all
    }

    /// The value of a position for its side to move, if its class is built.
    pub fn probe(&self, pos: &Pos) -> Option<Wdl> {
        let (w, b) = pos.class();
        let pos = canonical(&if w < b { flip(pos) } else { *pos });
        let class = &self.classes[slot(pos.class())];
        (!class.is_empty()).then(|| value_of(class[index(&pos)].load(Relaxed)))
    }

    /// Calls `f` with every key held (flipped ones too) and its value.
    pub fn for_each(&self, f: &mut dyn FnMut(u64, Wdl)) {
        for (s, bytes) in self.classes.iter().enumerate() {
            let (w, b) = (s / 25, s % 25);
            for i in 0..bytes.len() {
                let pos = position(w, b, i);
                let value = value_of(resolved(bytes, w, b, i));
                f(pos.key(), value);
                if w != b {
                    f(flip(&pos).key(), value);
                }
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
        let words = n.div_ceil(64);
        let bitmap = || -> Result<Vec<AtomicU64>, String> {
            let mut v = Vec::new();
            v.try_reserve_exact(words).map_err(|_| format!("cannot allocate the frontier of class {w}+{b}"))?;
            v.resize_with(words, || AtomicU64::new(0));
            Ok(v)
        };
        let (mut frontier, mut next) = (bitmap()?, bitmap()?);
        let decided = |bits: &[AtomicU64], i: usize| {
            bits[i / 64].fetch_or(1 << (i % 64), Relaxed);
        };
        // Step 1: each position once; the decided ones are the first frontier.
        let first = &frontier;
        parallel_runs(n, threads, &|start, end| {
            let mut walk = Walk::new(w, b, start);
            for (i, byte) in this.iter().enumerate().take(end).skip(start) {
                let pos = walk.pos();
                walk.advance();
                if canonical(&pos) != pos {
                    byte.store(MIRROR, Relaxed);
                    continue;
                }
                // The best capture, if any (its successor is in a finished class), else the simple moves.
                let mut best = None;
                for_each_capture(self.rules, &pos, &mut |m| {
                    let v = self.probe(&pos.play(m)).expect("smaller classes are built first").flip();
                    best = Some(best.map_or(v, |b: Wdl| b.min(v)));
                });
                let state = match best {
                    Some(v) => [WIN, DRAW, LOSS][v as usize],
                    None => match simple_moves(self.rules, &pos) {
                        0 => LOSS,
                        simple => simple,
                    },
                };
                byte.store(state, Relaxed);
                if state == WIN || state == LOSS {
                    decided(first, i);
                }
            }
        });
        let first_secs = start.elapsed().as_secs_f64();
        // Step 2: the frontier tells its predecessors, round after round, until no round decides anything.
        let mut rounds = 0;
        loop {
            let (now, new) = (&frontier, &next);
            let any = AtomicU64::new(0);
            parallel(words, threads, &|word| {
                let mut bits = now[word].swap(0, Relaxed);
                any.fetch_or(bits, Relaxed);
                while bits != 0 {
                    let i = word * 64 + bits.trailing_zeros() as usize;
                    bits &= bits - 1;
                    let won = this[i].load(Relaxed) == WIN;
                    let p = position(w, b, i);
                    let p_symmetric = mirror(&p) == p;
                    for_each_predecessor(self.rules, &p, &mut |q| {
                        let (canon, q_symmetric) = canonical_of(&q);
                        let Some(weight) = reports(p_symmetric, q_symmetric, canon == q) else { return };
                        let j = index(&canon);
                        let before = this[j].fetch_update(Relaxed, Relaxed, |c| match c {
                            _ if c > COUNTED => None,       // decided already
                            _ if !won => Some(WIN),         // a move to a loss: won
                            _ if c <= weight => Some(LOSS), // the last moves refuted: lost
                            _ => Some(c - weight),
                        });
                        if matches!(before, Ok(c) if !won || c <= weight) {
                            decided(new, j);
                        }
                    });
                }
            });
            if any.load(Relaxed) == 0 {
                break;
            }
            rounds += 1;
            std::mem::swap(&mut frontier, &mut next);
        }
        drop((frontier, next));
        if progress {
            let mut count = [0usize; 3];
            for i in 0..this.len() {
                count[value_of(resolved(this, w, b, i)) as usize] += 1;
            }
            let [wins, draws, losses] = count;
            let secs = start.elapsed().as_secs_f64();
            eprintln!(
                "class {w}+{b}: {n} positions ({wins} wins, {draws} draws, {losses} losses) {secs:.2}s \
                 (first pass {first_secs:.2}s, {rounds} rounds)"
            );
        }
        self.classes[slot((w, b))] = bytes;
        Ok(())
    }
}

/// The byte that holds the value of position `i` of class (w, b) (`bytes`): its own, or its canonical mirror
/// image's.
fn resolved(bytes: &[AtomicU8], w: usize, b: usize, i: usize) -> u8 {
    match bytes[i].load(Relaxed) {
        MIRROR => bytes[index(&canonical(&position(w, b, i)))].load(Relaxed),
        own => own,
    }
}

/// How many simple moves of the canonical predecessor of `q` a newly decided canonical `p` refutes, reported from
/// the predecessor `q` of `p` (`None`: report nothing from this `q`), given whether p and q are their own mirror
/// images and whether q is canonical. The predecessor Q = canonical(q) has a move
/// to p when q = Q, and one to mirror(p) when q = mirror(Q); p's predecessors are walked once, mirror(p)'s never.
/// - p and Q both asymmetric, or both symmetric: each q reports its own move, 1.
/// - p symmetric, Q not: Q → p and mirror(Q) → p are the same move of Q (p = mirror p): only q = Q reports.
/// - Q symmetric, p not: q = Q is walked once but Q moves to both p and mirror(p): 2.
fn reports(p_symmetric: bool, q_symmetric: bool, q_canonical: bool) -> Option<u8> {
    match (p_symmetric, q_symmetric) {
        (true, false) if !q_canonical => None,
        (false, true) => Some(2),
        _ => Some(1),
    }
}

/// The positions from which the side not to move in `pos` reached it by a simple move: one of its pieces at `q`
/// came one step back along a moving direction from an empty point not on its frozen last row (classic: from any
/// empty point next to `q` on a line). Whether that side had a capture there (and so could not move simply) is left
/// to the caller: such positions are decided in step 1.
pub(crate) fn for_each_predecessor(rules: Rules, pos: &Pos, f: &mut dyn FnMut(Pos)) {
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

/// Runs `job(start, end)` over runs of consecutive indices that together cover `0..n`, on `threads` threads.
fn parallel_runs(n: usize, threads: usize, job: &(impl Fn(usize, usize) + Sync)) {
    const CHUNK: usize = 1 << 14;
    let next = AtomicUsize::new(0);
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| loop {
                let start = next.fetch_add(CHUNK, Relaxed);
                if start >= n {
                    break;
                }
                job(start, (start + CHUNK).min(n));
            });
        }
    });
}

/// Runs `job(i)` for every `i < n` on `threads` threads, in chunks.
fn parallel(n: usize, threads: usize, job: &(impl Fn(usize) + Sync)) {
    parallel_runs(n, threads, &|start, end| (start..end).for_each(job));
}
