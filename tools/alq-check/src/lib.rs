//! A second, independent checker of Alquerque Lab's proof certificates, written from `docs/RULES.md` (and, for
//! the classic rules, the "Rule variants" table of `docs/rules-notes.md`) and the certificate format alone (it uses
//! no crate of the workspace). This file: the board, positions, keys, texts and the move generator of both rule
//! sets; [`tables`]: win/draw/loss tables by retrograde analysis; [`counted`]: values under the no-progress rule; [`cert`]: the
//! certificate checker.

pub mod cert;
pub mod counted;
pub mod tables;

pub use cert::{check_with, Certificate, Fault, Report};
pub use tables::{Tables, Wdl};

/// Every point of the 5×5 board as a bit (point `p` = `5·rank + file`, both from 0).
pub const ALL_POINTS: u32 = (1 << 25) - 1;

/// The eight directions as (file step, rank step).
const DIRS: [(i32, i32); 8] = [(0, 1), (1, 1), (1, 0), (1, -1), (0, -1), (-1, -1), (-1, 0), (-1, 1)];

/// `NEXT[p][3·(dr+1) + df+1]`: the point one step from `p` in direction `(df, dr)` along a drawn line, or 25 for
/// none. Diagonal lines join only *strong* points (file + rank even); a strong point's diagonal neighbours are strong.
const NEXT: [[u8; 9]; 25] = {
    let mut t = [[25u8; 9]; 25];
    let mut i = 0usize;
    while i < 25 * 9 {
        let (p, d) = (i / 9, i % 9);
        let (df, dr) = (d as i32 % 3 - 1, d as i32 / 3 - 1);
        let (f, r) = ((p % 5) as i32 + df, (p / 5) as i32 + dr);
        let on_line = if df != 0 && dr != 0 { (p % 5 + p / 5).is_multiple_of(2) } else { df != 0 || dr != 0 };
        if on_line && 0 <= f && f < 5 && 0 <= r && r < 5 {
            t[p][d] = (5 * r + f) as u8;
        }
        i += 1;
    }
    t
};

/// The point one step from `p` in direction `(df, dr)` along a drawn line, if any.
pub(crate) fn step(p: usize, (df, dr): (i32, i32)) -> Option<usize> {
    let q = NEXT[p][(3 * (dr + 1) + df + 1) as usize];
    (q < 25).then_some(q as usize)
}

/// A rule set. Classic differs from BrainKing only in: simple moves and first jumps go along any line, backward
/// included; the last row is like any other; a capture may land on its own starting point.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Rules {
    BrainKing,
    Classic,
}

impl Rules {
    /// The name in a certificate's `rules` line.
    pub fn name(self) -> &'static str {
        ["brainking", "classic"][self as usize]
    }
}

/// A side's directions for a simple move or a first jump, and its frozen last row (no simple move there, first
/// jumps sideways only). BrainKing: forward, diagonally forward, sideways, and the far row; classic: every
/// direction, and no frozen row (5 is no row).
pub(crate) fn moving(rules: Rules, black: bool) -> (&'static [(i32, i32)], usize) {
    match (rules, black) {
        (Rules::BrainKing, false) => (&[(0, 1), (1, 1), (-1, 1), (1, 0), (-1, 0)], 4),
        (Rules::BrainKing, true) => (&[(0, -1), (1, -1), (-1, -1), (1, 0), (-1, 0)], 0),
        (Rules::Classic, _) => (&DIRS, 5),
    }
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

    /// The position of a key; refused when bits above 50 are set, a point is claimed by both sides, or a side has
    /// more than 12 pieces.
    pub fn from_key(key: u64) -> Result<Pos, String> {
        let (white, black) = ((key & ALL_POINTS as u64) as u32, (key >> 25 & ALL_POINTS as u64) as u32);
        if key >> 51 != 0 {
            Err(format!("key {key:016x} has bits above bit 50"))
        } else if white & black != 0 {
            Err(format!("key {key:016x} gives a point to both sides"))
        } else if white.count_ones() > 12 || black.count_ones() > 12 {
            Err(format!("key {key:016x} has more than 12 pieces of a side"))
        } else {
            Ok(Pos { white, black, black_to_move: key >> 50 & 1 == 1 })
        }
    }

    /// The text form, e.g. `BBBBB/BBBBB/BB.WW/WWWWW/WWWWW w`: ranks 5 to 1, each from file a to e.
    pub fn text(&self) -> String {
        let piece = |p: usize| match (self.white >> p & 1, self.black >> p & 1) {
            (1, _) => 'W',
            (_, 1) => 'B',
            _ => '.',
        };
        let ranks: Vec<String> = (0..5).rev().map(|r| (0..5).map(|f| piece(5 * r + f)).collect()).collect();
        format!("{} {}", ranks.join("/"), if self.black_to_move { 'b' } else { 'w' })
    }

    /// The class: (White's piece count, Black's).
    pub fn class(&self) -> (usize, usize) {
        (self.white.count_ones() as usize, self.black.count_ones() as usize)
    }

    /// The side to move's pieces and the opponent's.
    pub fn us_them(&self) -> (u32, u32) {
        if self.black_to_move {
            (self.black, self.white)
        } else {
            (self.white, self.black)
        }
    }

    /// The position after `m`: its piece goes from `from` to `to`, the captured pieces are removed, the other side
    /// is to move.
    pub fn play(&self, m: &Move) -> Pos {
        let (us, them) = self.us_them();
        let (us, them) = (us & !(1 << m.from) | 1 << m.to, them & !m.captured);
        let (white, black) = if self.black_to_move { (them, us) } else { (us, them) };
        Pos { white, black, black_to_move: !self.black_to_move }
    }
}

/// One jump path or simple move: origin, final point, captured points, and the landing points in order
/// (`path[..len]`; the rest of `path` means nothing).
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

    /// Notation: `c2-c3`, or `b2xb4xd4` (the origin, then every landing point).
    pub fn text(&self) -> String {
        let name = |p: u8| format!("{}{}", (b'a' + p % 5) as char, p / 5 + 1);
        let sep = if self.captured == 0 { '-' } else { 'x' };
        self.landings().iter().fold(name(self.from), |s, &p| format!("{s}{sep}{}", name(p)))
    }
}

/// Calls `f` with every legal move of `pos`, once per jump *path* (two paths of one capture both come). Captures
/// are mandatory: simple moves come only when no capture exists.
pub fn for_each_path(rules: Rules, pos: &Pos, f: &mut dyn FnMut(&Move)) {
    if for_each_capture(rules, pos, f) {
        return;
    }
    // Simple moves: one step along a moving direction to an empty point, never from a frozen last row.
    let (us, them) = pos.us_them();
    let (dirs, last_row) = moving(rules, pos.black_to_move);
    let empty = ALL_POINTS & !(us | them);
    for from in bits(us).filter(|&p| p / 5 != last_row) {
        for to in dirs.iter().filter_map(|&d| step(from, d)).filter(|&to| empty >> to & 1 == 1) {
            f(&Move { from: from as u8, to: to as u8, captured: 0, path: [to as u8; 16], len: 1 });
        }
    }
}

/// The capture paths of [`for_each_path`] alone; whether there was any (then they are the legal moves).
pub fn for_each_capture(rules: Rules, pos: &Pos, f: &mut dyn FnMut(&Move)) -> bool {
    let (us, them) = pos.us_them();
    let (dirs, last_row) = moving(rules, pos.black_to_move);
    let empty = ALL_POINTS & !(us | them);
    let mut any_capture = false;
    for from in bits(us) {
        // First jump: along a moving direction (only sideways from a frozen last row), over an opponent piece to the
        // empty point beyond it. Later jumps may not land on our other pieces, nor (BrainKing) on the origin.
        let blocked = if rules == Rules::Classic { us & !(1 << from) } else { us };
        for &d in dirs.iter().filter(|d| from / 5 != last_row || d.1 == 0) {
            let Some(mid) = step(from, d).filter(|&q| them >> q & 1 == 1) else { continue };
            let Some(land) = step(mid, d).filter(|&q| empty >> q & 1 == 1) else { continue };
            any_capture = true;
            let mut m = Move { from: from as u8, to: 0, captured: 1 << mid, path: [land as u8; 16], len: 1 };
            continue_jumps(land, them & !(1 << mid), blocked, &mut m, f);
        }
    }
    any_capture
}

/// How many simple moves [`for_each_path`] gives a position without captures (as it would, one by one).
pub fn simple_moves(rules: Rules, pos: &Pos) -> u8 {
    let (us, them) = pos.us_them();
    let (dirs, last_row) = moving(rules, pos.black_to_move);
    let empty = ALL_POINTS & !(us | them);
    let mut n = 0;
    for from in bits(us).filter(|&p| p / 5 != last_row) {
        n += dirs.iter().filter_map(|&d| step(from, d)).filter(|&to| empty >> to & 1 == 1).count() as u8;
    }
    n
}

/// After a jump to `at`: jump again along any line while possible (captured pieces are already gone from
/// `them`); the move ends where no jump is left.
fn continue_jumps(at: usize, them: u32, blocked: u32, m: &mut Move, f: &mut dyn FnMut(&Move)) {
    let mut jumped = false;
    for d in DIRS {
        let Some(mid) = step(at, d).filter(|&q| them >> q & 1 == 1) else { continue };
        let Some(land) = step(mid, d).filter(|&q| (blocked | them) >> q & 1 == 0) else { continue };
        jumped = true;
        m.path[m.len as usize] = land as u8;
        m.len += 1;
        m.captured |= 1 << mid;
        continue_jumps(land, them & !(1 << mid), blocked, m, f);
        m.len -= 1;
        m.captured &= !(1 << mid);
    }
    if !jumped {
        m.to = at as u8;
        f(m);
    }
}

/// BrainKing's [`legal_moves_in`] (as the workspace's tests call it).
pub fn legal_moves(pos: &Pos) -> Vec<Move> {
    legal_moves_in(Rules::BrainKing, pos)
}

/// The legal moves, one per (origin, end, captured set), each with its canonical path (the lexicographically
/// smallest sequence of landing points).
pub fn legal_moves_in(rules: Rules, pos: &Pos) -> Vec<Move> {
    let mut out: Vec<Move> = Vec::new();
    for_each_path(rules, pos, &mut |m| {
        let same = out.iter_mut().find(|o| (o.from, o.to, o.captured) == (m.from, m.to, m.captured));
        match same {
            Some(o) if m.landings() < o.landings() => *o = *m,
            Some(_) => {}
            None => out.push(*m),
        }
    });
    out
}

/// BrainKing's legal moves of a key's position as texts, sorted (none for a bad key).
pub fn legal_move_texts(key: u64) -> Vec<String> {
    let mut v: Vec<String> = Pos::from_key(key).map_or(vec![], |p| legal_moves(&p).iter().map(Move::text).collect());
    v.sort();
    v
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
