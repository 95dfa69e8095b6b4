//! [`Position`]: the pieces and the side to move, with move generation,
//! make-move, hashing and the position text format.

use std::fmt;
use std::str::FromStr;

use crate::error::{MoveError, PositionError};
use crate::moves::{Move, MoveList};
use crate::rules::{RuleSet, Rules, BRAINKING_RULES};
use crate::types::{Bitboard, Point, Side};
use crate::zobrist;

/// A position: one bitboard per side, the side to move and its Zobrist hash.
/// It holds no history; [`crate::Game`] does.
///
/// Its text (read by [`str::parse`], written by `Display`) gives ranks 5
/// down to 1, files a to e, `W`, `B` or `.` for each point, then `w` or `b`
/// for the side to move.
///
/// # Examples
///
/// ```
/// use alq_engine::{Position, Side, START_TEXT};
///
/// let start = Position::start();
/// assert_eq!(start.to_string(), START_TEXT);
/// assert_eq!(start.to_string(), "BBBBB/BBBBB/BB.WW/WWWWW/WWWWW w");
/// assert_eq!(START_TEXT.parse::<Position>(), Ok(start));
///
/// let mv = start.parse_move("d3-c3").unwrap();
/// let next = start.play(mv);
/// assert_eq!(next.to_string(), "BBBBB/BBBBB/BBW.W/WWWWW/WWWWW b");
/// assert_eq!(next.side_to_move(), Side::Black);
/// assert_eq!(next.hash(), next.hash_from_scratch());
///
/// // Black must capture, and has one capture only.
/// let replies: Vec<String> = next.legal_moves().iter().map(|m| m.to_string()).collect();
/// assert_eq!(replies, ["b3xd3"]);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Position {
    pieces: [Bitboard; 2],
    side: Side,
    hash: u64,
}

/// The start position's text.
pub const START_TEXT: &str = "BBBBB/BBBBB/BB.WW/WWWWW/WWWWW w";

impl Default for Position {
    fn default() -> Position {
        Position::start()
    }
}

impl Position {
    /// The start position of the BrainKing rules ([`START_TEXT`]).
    ///
    /// # Examples
    ///
    /// ```
    /// use alq_engine::{Position, Side};
    ///
    /// let start = Position::start();
    /// assert_eq!(start.side_to_move(), Side::White);
    /// assert_eq!(start.pieces(Side::White).count(), 12);
    /// assert_eq!(start.pieces(Side::Black).count(), 12);
    /// assert_eq!(start.empty().count(), 1);
    /// assert_eq!(start, Position::default());
    /// ```
    pub fn start() -> Position {
        Position::start_of(RuleSet::BrainKing)
    }

    /// The start position of `rules`.
    pub fn start_of(rules: RuleSet) -> Position {
        let v = &rules.rules().variant;
        Position::from_parts(v.start_white, v.start_black, Side::White)
    }

    /// A position from its pieces and side to move. Overlapping points are
    /// given to White; more than 12 pieces a side are the caller's business
    /// (the text parser refuses them).
    pub fn from_parts(white: Bitboard, black: Bitboard, side: Side) -> Position {
        let white = white.intersection(Bitboard::ALL);
        let black = black.intersection(Bitboard::ALL).difference(white);
        let mut pos = Position { pieces: [white, black], side, hash: 0 };
        pos.hash = pos.hash_from_scratch();
        pos
    }

    /// The Zobrist hash of the pieces and the side to move, computed from scratch.
    pub fn hash_from_scratch(&self) -> u64 {
        let mut hash = if self.side == Side::Black { zobrist::black_to_move() } else { 0 };
        for side in Side::BOTH {
            for p in self.pieces[side.index()] {
                hash ^= zobrist::piece(side, p);
            }
        }
        hash
    }

    /// The hash, kept up to date incrementally by [`Position::play`].
    #[inline]
    pub fn hash(&self) -> u64 {
        self.hash
    }

    /// The side whose turn it is.
    #[inline]
    pub fn side_to_move(&self) -> Side {
        self.side
    }

    /// The points of `side`'s pieces.
    #[inline]
    pub fn pieces(&self, side: Side) -> Bitboard {
        self.pieces[side.index()]
    }

    /// The points holding a piece of either side.
    #[inline]
    pub fn occupied(&self) -> Bitboard {
        self.pieces[0].union(self.pieces[1])
    }

    /// The points holding no piece.
    #[inline]
    pub fn empty(&self) -> Bitboard {
        self.occupied().complement()
    }

    /// The side on `point`, if any.
    pub fn piece_at(&self, point: Point) -> Option<Side> {
        Side::BOTH.into_iter().find(|&s| self.pieces(s).contains(point))
    }

    /// The position mirrored left-right (file a <-> e), same side to move.
    pub fn mirror(&self) -> Position {
        Position::from_parts(self.pieces[0].mirror(), self.pieces[1].mirror(), self.side)
    }

    /// The position after `mv`, which must be legal here (or at least
    /// pseudo-legal: the mover's piece on `from`, opponents on `captured`).
    /// It is not checked: another move gives a meaningless position (never a
    /// panic). [`crate::Game::play`] checks.
    ///
    /// # Examples
    ///
    /// ```
    /// use alq_engine::Position;
    ///
    /// let pos: Position = "...../...../...../.B.../W.... w".parse().unwrap();
    /// let capture = pos.parse_move("a1xc3").unwrap();
    /// let after = pos.play(capture);
    /// assert_eq!(after.to_string(), "...../...../..W../...../..... b");
    /// assert!(after.is_lost());
    /// ```
    #[inline]
    pub fn play(&self, mv: Move) -> Position {
        let us = self.side;
        let them = us.opponent();
        let mut next = *self;
        next.pieces[us.index()] = self.pieces[us.index()].without(mv.from()).with(mv.to());
        next.pieces[them.index()] = self.pieces[them.index()].difference(mv.captured());
        let mut hash = self.hash ^ zobrist::black_to_move();
        hash ^= zobrist::piece(us, mv.from()) ^ zobrist::piece(us, mv.to());
        for p in mv.captured() {
            hash ^= zobrist::piece(them, p);
        }
        next.hash = hash;
        next.side = them;
        next
    }

    /// The same pieces with the other side to move (used by tests and search
    /// heuristics; not a legal move in the game).
    pub fn with_side_to_move(&self, side: Side) -> Position {
        Position::from_parts(self.pieces[0], self.pieces[1], side)
    }

    /// All legal moves under the BrainKing rules, each once, captures carrying
    /// their canonical path. Captures are compulsory: when there is one, only
    /// captures are listed.
    ///
    /// # Examples
    ///
    /// ```
    /// use alq_engine::Position;
    ///
    /// let mut moves: Vec<String> = Position::start().legal_moves().iter().map(|m| m.to_string()).collect();
    /// moves.sort();
    /// assert_eq!(moves, ["b2-c3", "c2-c3", "d2-c3", "d3-c3"]);
    ///
    /// // The side to move with no legal move has lost.
    /// let lost: Position = "...../...../..W../...../..... b".parse().unwrap();
    /// assert!(lost.legal_moves().is_empty() && lost.is_lost());
    /// ```
    pub fn legal_moves(&self) -> MoveList {
        self.legal_moves_in(RuleSet::BrainKing)
    }

    /// All legal moves under `rules`, each once, captures carrying their
    /// canonical path.
    ///
    /// # Examples
    ///
    /// ```
    /// use alq_engine::{Position, RuleSet};
    ///
    /// // A lone white piece on c3: BrainKing's pieces never move backward,
    /// // the classic rules' move along every line.
    /// let pos: Position = "B..../...../..W../...../..... w".parse().unwrap();
    /// assert_eq!(pos.legal_moves_in(RuleSet::BrainKing).len(), 5);
    /// assert_eq!(pos.legal_moves_in(RuleSet::Classic).len(), 8);
    /// ```
    pub fn legal_moves_in(&self, rules: RuleSet) -> MoveList {
        let mut list = MoveList::new();
        self.generate(rules.rules(), &mut list);
        list
    }

    /// Every complete jump path under `rules` as a move of its own (two paths
    /// with the same origin, end and captured set both appear, each with its
    /// own path), or the simple moves when there is no capture. This is how
    /// other implementations count moves (`alq perft --paths`); the game
    /// itself plays [`Position::generate`]'s moves.
    pub fn generate_paths(&self, rules: &Rules, list: &mut MoveList) {
        let capturers = self.capturers(rules);
        if capturers.is_empty() {
            self.generate_simple(rules, list);
        } else {
            self.capture_search::<false>(rules, capturers, list);
        }
    }

    /// Appends the legal moves under `rules` to `list`. Captures, when any
    /// exist, are the only legal moves. Allocates nothing unless `list` grows
    /// past its inline capacity.
    pub fn generate(&self, rules: &Rules, list: &mut MoveList) {
        self.generate_with_capturers(rules, self.capturers(rules), list);
    }

    /// [`Position::generate`] when [`Position::capturers`] is already known.
    #[inline]
    pub fn generate_with_capturers(&self, rules: &Rules, capturers: Bitboard, list: &mut MoveList) {
        if capturers.is_empty() {
            self.generate_simple(rules, list);
        } else {
            self.generate_captures_from(rules, capturers, list);
        }
    }

    /// The number of legal moves, without building simple moves one by one.
    pub fn count_moves(&self, rules: &Rules) -> u64 {
        let capturers = self.capturers(rules);
        if !capturers.is_empty() {
            let mut list = MoveList::new();
            self.generate_captures_from(rules, capturers, &mut list);
            list.len() as u64
        } else {
            rules.simple_move_count(self.side, self.pieces[self.side.index()], self.empty()) as u64
        }
    }

    /// Whether the side to move has a capture (and so must capture).
    #[inline]
    pub fn has_capture(&self, rules: &Rules) -> bool {
        !self.capturers(rules).is_empty()
    }

    /// The pieces of the side to move that can make a first jump.
    #[inline]
    pub fn capturers(&self, rules: &Rules) -> Bitboard {
        let s = self.side.index();
        rules.capturers(self.side, self.pieces[s], self.pieces[1 - s], self.empty())
    }

    /// Whether the side to move has no legal move (and so has lost) under
    /// the BrainKing rules.
    pub fn is_lost(&self) -> bool {
        self.is_lost_under(&BRAINKING_RULES)
    }

    /// Whether the side to move has no legal move under `rules`.
    #[inline]
    pub fn is_lost_under(&self, rules: &Rules) -> bool {
        !self.has_capture(rules) && !self.simple_moves_exist(rules)
    }

    /// Whether the side to move has no legal move under `rules`.
    pub fn is_lost_in(&self, rules: RuleSet) -> bool {
        self.is_lost_under(rules.rules())
    }

    /// Whether the side to move has a simple move (captures aside).
    #[inline]
    pub fn simple_moves_exist(&self, rules: &Rules) -> bool {
        let s = self.side.index();
        let (ours, empty) = (self.pieces[s], self.empty());
        rules.step_shifts[s].iter().any(|sh| !sh.apply(ours).intersection(empty).is_empty())
    }

    fn generate_simple(&self, rules: &Rules, list: &mut MoveList) {
        let s = self.side.index();
        let empty = self.empty();
        for from in self.pieces[s] {
            for to in rules.steps[s][from.index()].intersection(empty) {
                list.push(Move::simple(from, to));
            }
        }
    }

    fn generate_captures_from(&self, rules: &Rules, capturers: Bitboard, list: &mut MoveList) {
        self.capture_search::<true>(rules, capturers, list);
    }

    /// Every capture of `capturers`: one per move when `DEDUP`, else one per
    /// jump path.
    fn capture_search<const DEDUP: bool>(&self, rules: &Rules, capturers: Bitboard, list: &mut MoveList) {
        let s = self.side.index();
        let them = self.pieces[1 - s];
        // Under BrainKing's rules the origin stays unavailable for landing
        // during the whole move, so it is simply never added to the free set;
        // rules that allow landing there free it after the first jump.
        let free = self.empty();
        for from in capturers {
            let first = list.len();
            let reopened = if rules.variant.land_on_origin { Bitboard::EMPTY.with(from) } else { Bitboard::EMPTY };
            let mut search = CaptureSearch::<DEDUP> { rules, side: s, origin: from, list, first, reopened };
            search.extend(from, them, free, Bitboard::EMPTY, 0, 0);
        }
    }

    /// Parses a move in notation (`d3-c3`, `b2xb4xd4`; any legal path of a
    /// capture) under the BrainKing rules and returns the legal move it names,
    /// with its canonical path.
    ///
    /// # Errors
    ///
    /// [`MoveError::Malformed`] when `text` is not a move (mixes `-` and `x`,
    /// has a simple move of more than two points, or names something other
    /// than a point); [`MoveError::Illegal`], with the sorted legal moves,
    /// when it names no legal move here (a capture path that cannot be
    /// jumped or is incomplete, a simple move while a capture is compulsory).
    ///
    /// # Examples
    ///
    /// ```
    /// use alq_engine::{MoveError, Position};
    ///
    /// let start = Position::start();
    /// let mv = start.parse_move(" d3-c3 ").unwrap();
    /// assert_eq!((mv.from().to_string(), mv.to().to_string()), ("d3".into(), "c3".into()));
    /// assert_eq!(mv.to_string(), "d3-c3");
    ///
    /// assert!(matches!(start.parse_move("d3xc3-b3"), Err(MoveError::Malformed { .. })));
    /// let Err(MoveError::Illegal { legal, .. }) = start.parse_move("a1-a2") else { panic!() };
    /// assert_eq!(legal, ["b2-c3", "c2-c3", "d2-c3", "d3-c3"]);
    /// ```
    pub fn parse_move(&self, text: &str) -> Result<Move, MoveError> {
        self.parse_move_in(RuleSet::BrainKing, text)
    }

    /// [`Position::parse_move`] under `rules`.
    ///
    /// # Errors
    ///
    /// As [`Position::parse_move`]: [`MoveError::Malformed`] for text that is
    /// not a move, [`MoveError::Illegal`] for a move that is not legal here
    /// under `rules`.
    pub fn parse_move_in(&self, rules: RuleSet, text: &str) -> Result<Move, MoveError> {
        let trimmed = text.trim();
        let malformed = |reason: &str| MoveError::Malformed { text: text.to_string(), reason: reason.to_string() };
        let is_capture = trimmed.contains('x');
        if is_capture && trimmed.contains('-') {
            return Err(malformed("mixes '-' and 'x'; write a simple move as 'd3-c3' and a capture as 'b2xb4xd4'"));
        }
        let parts: Vec<&str> = trimmed.split(if is_capture { 'x' } else { '-' }).collect();
        if parts.len() < 2 {
            return Err(malformed("expected a move such as 'd3-c3' or 'b2xb4xd4'"));
        }
        if !is_capture && parts.len() != 2 {
            return Err(malformed("a simple move has exactly two points, such as 'd3-c3'"));
        }
        let mut points = Vec::with_capacity(parts.len());
        for part in &parts {
            match Point::parse(part) {
                Some(p) => points.push(p),
                None => return Err(malformed(&format!("{part:?} is not a point (a1 … e5)"))),
            }
        }
        let legal = self.legal_moves_in(rules);
        let illegal = || MoveError::Illegal {
            text: text.to_string(),
            legal: {
                let mut names: Vec<String> = legal.iter().map(|m| m.to_string()).collect();
                names.sort();
                names
            },
        };
        let found = if is_capture {
            let Some(captured) = self.follow_capture_path(rules.rules(), &points) else {
                return Err(illegal());
            };
            let (from, to) = (points[0], points[points.len() - 1]);
            legal.iter().find(|m| m.from() == from && m.to() == to && m.captured() == captured)
        } else {
            legal.iter().find(|m| !m.is_capture() && m.from() == points[0] && m.to() == points[1])
        };
        found.copied().ok_or_else(illegal)
    }

    /// Follows a jump path jump by jump; the captured set when every jump is
    /// possible, `None` otherwise. Whether the path is complete is decided by
    /// matching it against the generated moves.
    fn follow_capture_path(&self, rules: &Rules, points: &[Point]) -> Option<Bitboard> {
        let s = self.side.index();
        let origin = points[0];
        if !self.pieces[s].contains(origin) {
            return None;
        }
        let mut them = self.pieces[1 - s];
        let mut free = self.empty();
        let mut captured = Bitboard::EMPTY;
        for (i, pair) in points.windows(2).enumerate() {
            let (cur, land) = (pair[0], pair[1]);
            let table = if i == 0 { &rules.first_jumps[s][cur.index()] } else { &rules.any_jumps[s][cur.index()] };
            let jump = table.as_slice().iter().find(|j| j.land == land)?;
            if !them.contains(jump.over) || !free.contains(land) {
                return None;
            }
            them = them.without(jump.over);
            free = free.with(jump.over).without(land);
            captured = captured.with(jump.over);
            // The point just left becomes free, except the origin where the
            // rules keep it unavailable.
            if i > 0 || rules.variant.land_on_origin {
                free = free.with(cur);
            }
        }
        Some(captured)
    }
}

/// Depth-first search of one piece's capture sequences.
struct CaptureSearch<'a, const DEDUP: bool> {
    rules: &'a Rules,
    side: usize,
    origin: Point,
    list: &'a mut MoveList,
    /// Index in `list` of this piece's first capture, for de-duplication.
    first: usize,
    /// The origin, when the rules let the piece land there again once it
    /// has left (free from the second jump on); empty otherwise.
    reopened: Bitboard,
}

impl<const DEDUP: bool> CaptureSearch<'_, DEDUP> {
    /// Extends a sequence standing on `at` with `jumps` jumps so far. Jumps are
    /// tried in increasing landing order, so the first path found for a move is
    /// its canonical (lexicographically smallest) one.
    fn extend(&mut self, at: Point, them: Bitboard, free: Bitboard, captured: Bitboard, path: u64, jumps: usize) {
        let table = if jumps == 0 {
            &self.rules.first_jumps[self.side][at.index()]
        } else {
            &self.rules.any_jumps[self.side][at.index()]
        };
        let mut extended = false;
        for jump in table.as_slice() {
            if them.contains(jump.over) && free.contains(jump.land) {
                extended = true;
                // The point left behind becomes free again, unless it is the
                // origin and the rules forbid landing there.
                let left = if jumps == 0 { free.union(self.reopened) } else { free.with(at) };
                self.extend(
                    jump.land,
                    them.without(jump.over),
                    left.with(jump.over).without(jump.land),
                    captured.with(jump.over),
                    Move::push_landing(path, jumps, jump.land),
                    jumps + 1,
                );
            }
        }
        if !extended && jumps > 0 {
            let duplicate = DEDUP && self.list[self.first..].iter().any(|m| m.to() == at && m.captured() == captured);
            if !duplicate {
                self.list.push(Move::capture(self.origin, at, captured, path));
            }
        }
    }
}

impl FromStr for Position {
    type Err = PositionError;

    /// Reads `BBBBB/BBBBB/BB.WW/WWWWW/WWWWW w`: ranks 5 down to 1, files a to e,
    /// then the side to move.
    ///
    /// # Errors
    ///
    /// A [`PositionError`] holding the text: [`PositionError::MissingSide`]
    /// or [`PositionError::BadSide`] when the side to move is absent, not
    /// `w` or `b`, or followed by more text; [`PositionError::RankCount`] for
    /// other than 5 ranks; [`PositionError::RankLength`] for a rank of other
    /// than 5 points; [`PositionError::UnknownCharacter`] for a character
    /// other than `W`, `B` and `.`; [`PositionError::TooManyPieces`] for more
    /// than 12 pieces a side.
    ///
    /// # Examples
    ///
    /// ```
    /// use alq_engine::{Position, PositionError};
    ///
    /// let pos: Position = "...../...../...../.B.../W.... w".parse().unwrap();
    /// assert_eq!(pos.occupied().count(), 2);
    ///
    /// let err = "...../...../...../.B.../W.... x".parse::<Position>().unwrap_err();
    /// assert!(matches!(err, PositionError::BadSide { .. }));
    /// assert!(err.to_string().contains("expected 'w' or 'b'"));
    /// assert!(matches!("...../..... w".parse::<Position>(), Err(PositionError::RankCount { found: 2, .. })));
    /// ```
    fn from_str(text: &str) -> Result<Position, PositionError> {
        let owned = || text.to_string();
        let trimmed = text.trim();
        let mut fields = trimmed.split_whitespace();
        let board = fields.next().unwrap_or("");
        let side = match fields.next() {
            None => return Err(PositionError::MissingSide { text: owned() }),
            Some("w") => Side::White,
            Some("b") => Side::Black,
            Some(other) => return Err(PositionError::BadSide { text: owned(), found: other.to_string() }),
        };
        if let Some(extra) = fields.next() {
            return Err(PositionError::BadSide { text: owned(), found: format!("{} {extra}", side.letter()) });
        }
        let ranks: Vec<&str> = board.split('/').collect();
        if ranks.len() != 5 {
            return Err(PositionError::RankCount { text: owned(), found: ranks.len() });
        }
        let mut pieces = [Bitboard::EMPTY; 2];
        for (row, rank_text) in ranks.iter().enumerate() {
            let rank = 4 - row as u8;
            let count = rank_text.chars().count();
            if count != 5 {
                return Err(PositionError::RankLength { text: owned(), rank: rank + 1, found: count });
            }
            for (file, ch) in rank_text.chars().enumerate() {
                let point = Point::from_coords(file as u8, rank).expect("file and rank are below 5");
                match ch {
                    'W' => pieces[0] = pieces[0].with(point),
                    'B' => pieces[1] = pieces[1].with(point),
                    '.' => {}
                    other => {
                        return Err(PositionError::UnknownCharacter {
                            text: owned(),
                            found: other,
                            point: point.to_string(),
                        })
                    }
                }
            }
        }
        for s in Side::BOTH {
            let count = pieces[s.index()].count();
            if count > 12 {
                return Err(PositionError::TooManyPieces { text: owned(), side: s, count });
            }
        }
        Ok(Position::from_parts(pieces[0], pieces[1], side))
    }
}

impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for rank in (0..5u8).rev() {
            for file in 0..5u8 {
                let p = Point::from_coords(file, rank).expect("on the board");
                let ch = match self.piece_at(p) {
                    Some(Side::White) => 'W',
                    Some(Side::Black) => 'B',
                    None => '.',
                };
                write!(f, "{ch}")?;
            }
            if rank > 0 {
                write!(f, "/")?;
            }
        }
        write!(f, " {}", self.side.letter())
    }
}
