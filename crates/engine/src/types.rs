//! Small value types shared by the whole engine: sides, points and bitboards.

use std::fmt;

/// One of the two players. White moves first and moves towards rank 5.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Side {
    White,
    Black,
}

impl Side {
    /// Both sides, White first; handy for table construction and loops.
    pub const BOTH: [Side; 2] = [Side::White, Side::Black];

    /// The other side.
    #[inline]
    pub const fn opponent(self) -> Side {
        match self {
            Side::White => Side::Black,
            Side::Black => Side::White,
        }
    }

    /// 0 for White, 1 for Black; used to index per-side tables.
    #[inline]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The letter used in position text: `w` or `b`.
    pub const fn letter(self) -> char {
        match self {
            Side::White => 'w',
            Side::Black => 'b',
        }
    }

    /// The lower-case English name, as used on the command line and in records.
    pub const fn name(self) -> &'static str {
        match self {
            Side::White => "white",
            Side::Black => "black",
        }
    }
}

impl fmt::Display for Side {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A point of the 5×5 board, `index = 5 * (rank - 1) + file` (a1 = 0, e5 = 24).
///
/// # Examples
///
/// ```
/// use alq_engine::Point;
///
/// let c3 = Point::parse("c3").unwrap();
/// assert_eq!((c3.index(), c3.file(), c3.rank()), (12, 2, 2));
/// assert_eq!(c3.to_string(), "c3");
/// assert!(c3.is_strong());
/// assert_eq!(Point::from_coords(0, 4), Point::parse("a5"));
/// assert_eq!(Point::parse("a1").unwrap().mirror().to_string(), "e1");
/// assert_eq!(Point::new(25), None);
/// assert_eq!(Point::all().count(), Point::COUNT);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Point(u8);

impl Point {
    /// Number of points on the board.
    pub const COUNT: usize = 25;

    /// The point with this index, or `None` when the index is 25 or more.
    #[inline]
    pub const fn new(index: u8) -> Option<Point> {
        if (index as usize) < Self::COUNT {
            Some(Point(index))
        } else {
            None
        }
    }

    /// The point with this index; the caller guarantees `index < 25`.
    #[inline]
    pub(crate) const fn from_index_unchecked(index: u8) -> Point {
        debug_assert!((index as usize) < Self::COUNT);
        Point(index)
    }

    /// The point at 0-based file (a = 0) and rank (rank 1 = 0), if on the board.
    #[inline]
    pub const fn from_coords(file: u8, rank: u8) -> Option<Point> {
        if file < 5 && rank < 5 {
            Some(Point(rank * 5 + file))
        } else {
            None
        }
    }

    /// Index 0..25.
    #[inline]
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// 0-based file, a = 0 … e = 4.
    #[inline]
    pub const fn file(self) -> u8 {
        self.0 % 5
    }

    /// 0-based rank, rank 1 = 0 … rank 5 = 4.
    #[inline]
    pub const fn rank(self) -> u8 {
        self.0 / 5
    }

    /// Whether diagonal lines pass through this point (`file + rank` even, 0-based).
    #[inline]
    pub const fn is_strong(self) -> bool {
        (self.file() + self.rank()).is_multiple_of(2)
    }

    /// The point mirrored left-right (file a <-> e).
    #[inline]
    pub const fn mirror(self) -> Point {
        Point(self.rank() * 5 + (4 - self.file()))
    }

    /// Parses a point name such as `c3`; `None` when it is not one
    /// (upper-case files, surrounding spaces and points off the board
    /// included).
    ///
    /// # Examples
    ///
    /// ```
    /// use alq_engine::Point;
    ///
    /// assert_eq!(Point::parse("e5").map(|p| p.index()), Some(24));
    /// assert_eq!(Point::parse("f1"), None);
    /// assert_eq!(Point::parse("C3"), None);
    /// ```
    pub fn parse(text: &str) -> Option<Point> {
        let bytes = text.as_bytes();
        if bytes.len() != 2 {
            return None;
        }
        let file = bytes[0].wrapping_sub(b'a');
        let rank = bytes[1].wrapping_sub(b'1');
        Point::from_coords(file, rank)
    }

    /// All 25 points in index order.
    pub fn all() -> impl Iterator<Item = Point> {
        (0..Self::COUNT as u8).map(Point)
    }
}

impl fmt::Display for Point {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", (b'a' + self.file()) as char, self.rank() + 1)
    }
}

/// A set of points, one bit per point index.
///
/// # Examples
///
/// ```
/// use alq_engine::{Bitboard, Point};
///
/// let a1 = Point::parse("a1").unwrap();
/// let c3 = Point::parse("c3").unwrap();
/// let set = Bitboard::EMPTY.with(a1).with(c3);
/// assert_eq!(set, Bitboard(1 | 1 << 12));
/// assert_eq!(set.count(), 2);
/// assert!(set.contains(c3) && !set.without(c3).contains(c3));
/// assert_eq!(set.first(), Some(a1));
/// let names: Vec<String> = set.into_iter().map(|p| p.to_string()).collect();
/// assert_eq!(names, ["a1", "c3"]);
/// assert_eq!(Bitboard::rank(0).union(set.complement()).count(), 24);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Bitboard(pub u32);

impl Bitboard {
    /// No points.
    pub const EMPTY: Bitboard = Bitboard(0);
    /// All 25 points.
    pub const ALL: Bitboard = Bitboard((1 << 25) - 1);

    /// The set holding only `point`.
    #[inline]
    pub const fn from_point(point: Point) -> Bitboard {
        Bitboard(1 << point.0)
    }

    /// A whole rank (0-based), for `rank` below 5 (5 and 6 give points off
    /// the board).
    ///
    /// # Panics
    ///
    /// With overflow checks on (debug builds), when `rank` is 7 or more: the
    /// shift overflows. In a constant it is a compile error.
    pub const fn rank(rank: u8) -> Bitboard {
        Bitboard(0b11111 << (rank * 5))
    }

    /// Whether `point` is in the set.
    #[inline]
    pub const fn contains(self, point: Point) -> bool {
        self.0 & (1 << point.0) != 0
    }

    /// Whether the set has no point.
    #[inline]
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The number of points in the set.
    #[inline]
    pub const fn count(self) -> u32 {
        self.0.count_ones()
    }

    /// The set with `point` added.
    #[inline]
    pub const fn with(self, point: Point) -> Bitboard {
        Bitboard(self.0 | (1 << point.0))
    }

    /// The set with `point` removed.
    #[inline]
    pub const fn without(self, point: Point) -> Bitboard {
        Bitboard(self.0 & !(1 << point.0))
    }

    /// The points in either set.
    #[inline]
    pub const fn union(self, other: Bitboard) -> Bitboard {
        Bitboard(self.0 | other.0)
    }

    /// The points in both sets.
    #[inline]
    pub const fn intersection(self, other: Bitboard) -> Bitboard {
        Bitboard(self.0 & other.0)
    }

    /// The points of `self` that are not in `other`.
    #[inline]
    pub const fn difference(self, other: Bitboard) -> Bitboard {
        Bitboard(self.0 & !other.0)
    }

    /// The complement within the board.
    #[inline]
    pub const fn complement(self) -> Bitboard {
        Bitboard(!self.0 & Self::ALL.0)
    }

    /// The lowest point in the set, if any.
    #[inline]
    pub const fn first(self) -> Option<Point> {
        if self.0 == 0 {
            None
        } else {
            Some(Point(self.0.trailing_zeros() as u8))
        }
    }

    /// The highest point in the set, if any.
    #[inline]
    pub const fn last(self) -> Option<Point> {
        if self.0 == 0 {
            None
        } else {
            Some(Point(31 - self.0.leading_zeros() as u8))
        }
    }

    /// The set mirrored left-right (file a <-> e).
    pub fn mirror(self) -> Bitboard {
        self.into_iter().fold(Bitboard::EMPTY, |acc, p| acc.with(p.mirror()))
    }
}

impl IntoIterator for Bitboard {
    type Item = Point;
    type IntoIter = BitboardIter;
    #[inline]
    fn into_iter(self) -> BitboardIter {
        BitboardIter(self.0)
    }
}

/// Iterates the points of a [`Bitboard`] in increasing index order.
pub struct BitboardIter(u32);

impl Iterator for BitboardIter {
    type Item = Point;
    #[inline]
    fn next(&mut self) -> Option<Point> {
        if self.0 == 0 {
            None
        } else {
            let index = self.0.trailing_zeros() as u8;
            self.0 &= self.0 - 1;
            Some(Point(index))
        }
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.0.count_ones() as usize;
        (n, Some(n))
    }
}

impl ExactSizeIterator for BitboardIter {}
