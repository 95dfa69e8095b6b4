//! Moves, their canonical notation and the fixed-capacity move list.

use std::fmt;

use smallvec::SmallVec;

use crate::types::{Bitboard, Point, Side};

/// Most capture jumps a move can make: one per opponent piece.
pub const MAX_JUMPS: usize = 12;

/// A move: origin, end and captured set identify it (RULES.md, "Move
/// identity"); the landing points of its canonical path are kept for printing.
///
/// The path is packed five bits per landing point, the first landing in the
/// highest bits, so that comparing two packed paths of the same length as
/// integers compares them lexicographically by landing index.
///
/// Moves come from move generation ([`crate::Position::legal_moves`]) or
/// from notation ([`crate::Position::parse_move`]); `Display` writes the
/// canonical notation.
///
/// # Examples
///
/// ```
/// use alq_engine::{Position, Side};
///
/// let pos: Position = "....B/...../...B./..B.B/WB.B. w".parse().unwrap();
/// let moves = pos.legal_moves();
/// assert_eq!(moves.len(), 1);
/// let mv = moves[0];
/// assert_eq!(mv.to_string(), "a1xc1xe1xe3xc3xc1");
/// assert!(mv.is_capture() && mv.is_progress(Side::White));
/// assert_eq!(mv.jumps(), 5);
/// assert_eq!((mv.from().to_string(), mv.to().to_string()), ("a1".into(), "c1".into()));
/// let captured: Vec<String> = mv.captured().into_iter().map(|p| p.to_string()).collect();
/// assert_eq!(captured, ["b1", "d1", "c2", "e2", "d3"]);
/// let landings: Vec<String> = mv.landings().map(|p| p.to_string()).collect();
/// assert_eq!(landings, ["c1", "e1", "e3", "c3", "c1"]);
///
/// // Any legal path of the capture names the same move.
/// assert_eq!(pos.parse_move("a1xc1xc3xe3xe1xc1"), Ok(mv));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Move {
    from: Point,
    to: Point,
    captured: Bitboard,
    path: u64,
}

impl Move {
    /// A simple move (no capture).
    #[inline]
    pub(crate) fn simple(from: Point, to: Point) -> Move {
        Move { from, to, captured: Bitboard::EMPTY, path: 0 }
    }

    /// A capture with its packed path (see [`Move::push_landing`]).
    #[inline]
    pub(crate) fn capture(from: Point, to: Point, captured: Bitboard, path: u64) -> Move {
        Move { from, to, captured, path }
    }

    /// Appends landing number `jump` (0-based) to a packed path.
    #[inline]
    pub(crate) const fn push_landing(path: u64, jump: usize, land: Point) -> u64 {
        path | ((land.index() as u64) << (5 * (MAX_JUMPS - 1 - jump)))
    }

    /// Where the moving piece starts.
    #[inline]
    pub fn from(self) -> Point {
        self.from
    }

    /// Where the moving piece ends.
    #[inline]
    pub fn to(self) -> Point {
        self.to
    }

    /// The opponent pieces this move removes.
    #[inline]
    pub fn captured(self) -> Bitboard {
        self.captured
    }

    /// Whether the move captures.
    #[inline]
    pub fn is_capture(self) -> bool {
        !self.captured.is_empty()
    }

    /// Number of jumps (= pieces captured).
    #[inline]
    pub fn jumps(self) -> usize {
        self.captured.count() as usize
    }

    /// The landing points of the canonical path, in order (empty for a simple move).
    pub fn landings(self) -> impl Iterator<Item = Point> {
        let path = self.path;
        (0..self.jumps()).map(move |i| Point::from_index_unchecked(((path >> (5 * (MAX_JUMPS - 1 - i))) & 31) as u8))
    }

    /// The move mirrored left-right (file a <-> e). The mirrored path is a legal
    /// path of the mirrored move but not always the canonical one.
    pub fn mirror(self) -> Move {
        let mut path = 0;
        for (i, p) in self.landings().enumerate() {
            path = Move::push_landing(path, i, p.mirror());
        }
        Move { from: self.from.mirror(), to: self.to.mirror(), captured: self.captured.mirror(), path }
    }

    /// Whether the move, made by `side`, makes progress: captures, or moves
    /// forward. Sideways and (where the rules allow them) backward simple
    /// moves make none.
    #[inline]
    pub fn is_progress(self, side: Side) -> bool {
        self.is_capture()
            || match side {
                Side::White => self.to.rank() > self.from.rank(),
                Side::Black => self.to.rank() < self.from.rank(),
            }
    }
}

impl fmt::Display for Move {
    /// Canonical notation: `d3-c3` for a simple move, `b2xb4xd4` for a capture
    /// (the lexicographically smallest of its legal paths).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.from)?;
        if self.is_capture() {
            for p in self.landings() {
                write!(f, "x{p}")?;
            }
            Ok(())
        } else {
            write!(f, "-{}", self.to)
        }
    }
}

/// A list of moves that lives on the stack for all ordinary positions and
/// spills to the heap only in the (never yet observed) case of more than 64.
pub type MoveList = SmallVec<[Move; 64]>;
