//! A second, independent checker of Alquerque Lab's proof certificates.
//!
//! Written from `docs/RULES.md` and the certificate format alone: it uses no
//! crate of the workspace. Three parts:
//! - this file: the board, positions, keys, texts and the move generator;
//! - [`tables`]: win/draw/loss tables built by retrograde analysis;
//! - [`cert`]: the certificate reader and checker.

pub mod cert;
pub mod tables;

pub use cert::{check, check_with, Certificate, Fault, Report};
pub use tables::{Tables, Wdl};

/// Every point of the 5×5 board as a bit (point `p` = `5·rank + file`).
pub const ALL_POINTS: u32 = (1 << 25) - 1;

/// The eight directions as (file step, rank step).
const DIRS: [(i32, i32); 8] = [(0, 1), (1, 1), (1, 0), (1, -1), (0, -1), (-1, -1), (-1, 0), (-1, 1)];

/// A point is *strong* when its file + rank (both from 0) is even; only strong
/// points have diagonal lines (and diagonal neighbours of strong points are
/// strong, so a diagonal line continues through them).
pub fn is_strong(p: usize) -> bool {
    (p % 5 + p / 5).is_multiple_of(2)
}

/// The point one step from `p` in direction `d` along a drawn line, or 255.
const fn step_const(p: usize, d: (i32, i32)) -> u8 {
    let (f, r) = ((p % 5) as i32 + d.0, (p / 5) as i32 + d.1);
    let diagonal = d.0 != 0 && d.1 != 0;
    if f < 0 || f > 4 || r < 0 || r > 4 || (diagonal && !(p % 5 + p / 5).is_multiple_of(2)) {
        255
    } else {
        (r * 5 + f) as u8
    }
}

/// `STEP[p][d]`: the neighbour of `p` along a line in direction `DIRS[d]`, or 255.
const STEP: [[u8; 8]; 25] = {
    let mut t = [[255u8; 8]; 25];
    let mut p = 0;
    while p < 25 {
        let mut d = 0;
        while d < 8 {
            t[p][d] = step_const(p, DIRS[d]);
            d += 1;
        }
        p += 1;
    }
    t
};

fn step(p: usize, d: usize) -> Option<usize> {
    let q = STEP[p][d];
    (q != 255).then_some(q as usize)
}

/// The directions a side moves in (forward, diagonally forward, sideways) as
/// indices into `DIRS`, and its last row (0-based rank).
fn moving_dirs(black: bool) -> ([usize; 5], usize) {
    if black {
        ([4, 3, 5, 2, 6], 0) // down, down-right, down-left, right, left
    } else {
        ([0, 1, 7, 2, 6], 4) // up, up-right, up-left, right, left
    }
}

/// Sideways directions (right, left): the only first jumps from the last row.
fn is_sideways(d: usize) -> bool {
    d == 2 || d == 6
}

/// The name of a point, `a1` .. `e5`.
pub fn point_name(p: usize) -> String {
    format!("{}{}", (b'a' + (p % 5) as u8) as char, p / 5 + 1)
}

/// A position: White's and Black's points as bit sets, and the side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Pos {
    pub white: u32,
    pub black: u32,
    pub black_to_move: bool,
}

impl Pos {
    /// The packed key: bits 0–24 White, 25–49 Black, bit 50 Black to move.
    pub fn key(&self) -> u64 {
        self.white as u64 | (self.black as u64) << 25 | (self.black_to_move as u64) << 50
    }

    /// The position of a key; refused when bits above 50 are set, a point is
    /// claimed by both sides, or a side has more than 12 pieces.
    pub fn from_key(key: u64) -> Result<Pos, String> {
        let pos = Pos {
            white: (key & ALL_POINTS as u64) as u32,
            black: (key >> 25 & ALL_POINTS as u64) as u32,
            black_to_move: key >> 50 & 1 == 1,
        };
        if key >> 51 != 0 {
            Err(format!("key {key:016x} has bits above bit 50"))
        } else if pos.white & pos.black != 0 {
            Err(format!("key {key:016x} gives a point to both sides"))
        } else if pos.white.count_ones() > 12 || pos.black.count_ones() > 12 {
            Err(format!("key {key:016x} has more than 12 pieces of a side"))
        } else {
            Ok(pos)
        }
    }

    /// Reads the text form `BBBBB/BBBBB/BB.WW/WWWWW/WWWWW w` (ranks 5 to 1).
    pub fn parse(text: &str) -> Result<Pos, String> {
        let bad = || format!("bad position text {text:?}");
        let (board, side) = text.split_once(' ').ok_or_else(bad)?;
        let ranks: Vec<&str> = board.split('/').collect();
        if ranks.len() != 5 || ranks.iter().any(|r| r.len() != 5) {
            return Err(bad());
        }
        let mut pos = Pos { white: 0, black: 0, black_to_move: side == "b" };
        for (i, row) in ranks.iter().enumerate() {
            for (f, c) in row.bytes().enumerate() {
                let bit = 1 << ((4 - i) * 5 + f);
                match c {
                    b'W' => pos.white |= bit,
                    b'B' => pos.black |= bit,
                    b'.' => {}
                    _ => return Err(bad()),
                }
            }
        }
        if side != "w" && side != "b" {
            return Err(bad());
        }
        Ok(pos)
    }

    /// The text form.
    pub fn text(&self) -> String {
        let mut s = String::new();
        for rank in (0..5).rev() {
            for file in 0..5 {
                let bit = 1 << (rank * 5 + file);
                s.push(if self.white & bit != 0 {
                    'W'
                } else if self.black & bit != 0 {
                    'B'
                } else {
                    '.'
                });
            }
            s.push(if rank > 0 { '/' } else { ' ' });
        }
        s.push(if self.black_to_move { 'b' } else { 'w' });
        s
    }

    /// The side to move's pieces and the opponent's.
    pub fn us_them(&self) -> (u32, u32) {
        if self.black_to_move {
            (self.black, self.white)
        } else {
            (self.white, self.black)
        }
    }

    /// The position after `m`: the piece goes from `from` to `to`, the
    /// captured pieces are removed, the other side is to move.
    pub fn play(&self, m: &Move) -> Pos {
        let (mut us, mut them) = self.us_them();
        us = us & !(1 << m.from) | 1 << m.to;
        them &= !m.captured;
        let (white, black) = if self.black_to_move { (them, us) } else { (us, them) };
        Pos { white, black, black_to_move: !self.black_to_move }
    }
}

/// One jump path or simple move: origin, final point, captured points and
/// the landing points in order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Move {
    pub from: u8,
    pub to: u8,
    pub captured: u32,
    pub path: [u8; 16],
    pub len: u8,
}

impl Move {
    pub fn landings(&self) -> &[u8] {
        &self.path[..self.len as usize]
    }

    /// Notation: `c2-c3`, or `b2xb4xd4` (origin, then every landing point).
    pub fn text(&self) -> String {
        let mut s = point_name(self.from as usize);
        for &p in self.landings() {
            s.push(if self.captured == 0 { '-' } else { 'x' });
            s.push_str(&point_name(p as usize));
        }
        s
    }
}

/// Calls `f` with every legal move of `pos`, one call per jump *path* (two
/// paths of one capture both come). Captures are mandatory: simple moves
/// come only when no capture exists.
pub fn for_each_path(pos: &Pos, f: &mut dyn FnMut(&Move)) {
    let (us, them) = pos.us_them();
    let (dirs, last_row) = moving_dirs(pos.black_to_move);
    let empty = ALL_POINTS & !(us | them);
    let mut any_capture = false;
    for from in bits(us) {
        let on_last_row = from / 5 == last_row;
        for &d in &dirs {
            // First jump: a moving direction (only sideways from the last row),
            // over an opponent piece to the empty point beyond on the same line.
            if on_last_row && !is_sideways(d) {
                continue;
            }
            let Some(mid) = step(from, d) else { continue };
            let Some(land) = step(mid, d) else { continue };
            if them >> mid & 1 == 1 && empty >> land & 1 == 1 {
                any_capture = true;
                let mut m = Move { from: from as u8, to: 0, captured: 1 << mid, path: [0; 16], len: 1 };
                m.path[0] = land as u8;
                // Landing is barred on our other pieces and on the origin.
                let blocked = us | 1 << from;
                continue_jumps(land, them & !(1 << mid), blocked, &mut m, f);
            }
        }
    }
    if any_capture {
        return;
    }
    for from in bits(us) {
        if from / 5 == last_row {
            continue; // no simple move at all from the last row
        }
        for &d in &dirs {
            if let Some(to) = step(from, d).filter(|&to| empty >> to & 1 == 1) {
                let mut m = Move { from: from as u8, to: to as u8, captured: 0, path: [0; 16], len: 1 };
                m.path[0] = to as u8;
                f(&m);
            }
        }
    }
}

/// After a jump to `at`: jump again along any line while possible (captured
/// pieces are already gone from `them`); the move ends where no jump is left.
fn continue_jumps(at: usize, them: u32, blocked: u32, m: &mut Move, f: &mut dyn FnMut(&Move)) {
    let mut jumped = false;
    for d in 0..8 {
        let Some(mid) = step(at, d) else { continue };
        let Some(land) = step(mid, d) else { continue };
        if them >> mid & 1 == 1 && (blocked | them) >> land & 1 == 0 {
            jumped = true;
            m.path[m.len as usize] = land as u8;
            m.len += 1;
            m.captured |= 1 << mid;
            continue_jumps(land, them & !(1 << mid), blocked, m, f);
            m.len -= 1;
            m.captured &= !(1 << mid);
        }
    }
    if !jumped {
        m.to = at as u8;
        f(m);
    }
}

/// Every jump path of every legal move.
pub fn all_paths(pos: &Pos) -> Vec<Move> {
    let mut out = Vec::new();
    for_each_path(pos, &mut |m| out.push(*m));
    out
}

/// The legal moves, one per (origin, end, captured set), each with its
/// canonical path (the lexicographically smallest sequence of landing points).
pub fn legal_moves(pos: &Pos) -> Vec<Move> {
    let mut out: Vec<Move> = Vec::new();
    for m in all_paths(pos) {
        match out.iter_mut().find(|o| (o.from, o.to, o.captured) == (m.from, m.to, m.captured)) {
            Some(o) if m.landings() < o.landings() => *o = m,
            Some(_) => {}
            None => out.push(m),
        }
    }
    out
}

/// The legal moves of a key's position in canonical notation, sorted as
/// strings (empty for an invalid key).
pub fn legal_move_texts(key: u64) -> Vec<String> {
    let Ok(pos) = Pos::from_key(key) else { return Vec::new() };
    let mut v: Vec<String> = legal_moves(&pos).iter().map(Move::text).collect();
    v.sort();
    v
}

/// Move-path enumeration: the number of move sequences of `depth` plies.
pub fn perft(pos: &Pos, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    legal_moves(pos).iter().map(|m| perft(&pos.play(m), depth - 1)).sum()
}

/// The set bits of `x`, lowest first.
pub fn bits(mut x: u32) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        (x != 0).then(|| {
            let p = x.trailing_zeros() as usize;
            x &= x - 1;
            p
        })
    })
}
