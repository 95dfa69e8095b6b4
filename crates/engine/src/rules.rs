//! The rules as data: a [`Variant`] description and the move tables built from it.
//!
//! Everything the move generator needs to know about the board's lines and the
//! directions a piece may move in lives in [`Rules`], which is built by a
//! `const fn` from a [`Variant`]. A second rules variant is therefore a second
//! `Variant` value, not new code in the move generator.

use crate::types::{Bitboard, Point, Side};

/// Everything that distinguishes one rules variant from another.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Variant {
    /// Short name written into game records (e.g. `brainking`).
    pub name: &'static str,
    /// Points through which the diagonal lines pass. Two diagonally adjacent
    /// points are joined by a line when both are in this set.
    pub diagonal_points: Bitboard,
    /// Whether simple moves and first jumps may go sideways along a rank.
    pub sideways: bool,
    /// Whether simple moves and first jumps may go backward (straight or
    /// diagonally), so that every direction is a moving direction.
    pub backward: bool,
    /// Whether the second and later jumps of a capture may follow any line
    /// (backward included), rather than only the moving directions.
    pub continue_any_direction: bool,
    /// Whether a piece on its last row is frozen: no simple move, and a first
    /// jump only sideways.
    pub last_row_frozen: bool,
    /// Whether a capturing piece may land again on the point it started the
    /// move from (BrainKing: never; that point is unavailable all move long).
    pub land_on_origin: bool,
    /// Start position: White's and Black's pieces; White moves first.
    pub start_white: Bitboard,
    pub start_black: Bitboard,
}

const fn strong_points() -> Bitboard {
    let mut bits = 0u32;
    let mut i = 0;
    while i < 25 {
        if (i % 5 + i / 5) % 2 == 0 {
            bits |= 1 << i;
        }
        i += 1;
    }
    Bitboard(bits)
}

/// The rules this project plays: BrainKing's Alquerque (docs/RULES.md).
pub const BRAINKING: Variant = Variant {
    name: "brainking",
    diagonal_points: strong_points(),
    sideways: true,
    backward: false,
    continue_any_direction: true,
    last_row_frozen: true,
    land_on_origin: false,
    // Ranks 1 and 2 plus d3, e3.
    start_white: Bitboard(0b11111_11111 | (1 << 13) | (1 << 14)),
    // Ranks 4 and 5 plus a3, b3.
    start_black: Bitboard((0b11111_11111 << 15) | (1 << 10) | (1 << 11)),
};

/// The classic rule set most modern descriptions give: a piece moves one
/// step along any line in any direction (backward included) and captures
/// along any line from the first jump on; no last-row freeze; a capturing
/// piece may land again on the point it started from. Board, start position,
/// compulsory and complete captures, move identity, notation and the end of
/// the game are BrainKing's.
pub const CLASSIC: Variant = Variant {
    name: "classic",
    diagonal_points: strong_points(),
    sideways: true,
    backward: true,
    continue_any_direction: true,
    last_row_frozen: false,
    land_on_origin: true,
    start_white: BRAINKING.start_white,
    start_black: BRAINKING.start_black,
};

/// One jump: over an adjacent point to the point beyond it on the same line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Jump {
    pub over: Point,
    pub land: Point,
}

/// Up to eight jumps from one point, sorted by landing index so that a
/// depth-first capture search meets each move's canonical path first.
#[derive(Clone, Copy, Debug)]
pub struct JumpList {
    len: u8,
    jumps: [Jump; 8],
}

impl JumpList {
    const EMPTY: JumpList = JumpList {
        len: 0,
        jumps: [Jump { over: Point::from_index_unchecked(0), land: Point::from_index_unchecked(0) }; 8],
    };

    /// The jumps, sorted by landing index.
    #[inline]
    pub fn as_slice(&self) -> &[Jump] {
        &self.jumps[..self.len as usize]
    }

    const fn push_sorted(mut self, jump: Jump) -> JumpList {
        let mut i = self.len as usize;
        while i > 0 && self.jumps[i - 1].land.index() > jump.land.index() {
            self.jumps[i] = self.jumps[i - 1];
            i -= 1;
        }
        self.jumps[i] = jump;
        self.len += 1;
        self
    }
}

/// The eight directions as (file step, rank step).
const DIRECTIONS: [(i8, i8); 8] = [(1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (-1, 1), (1, -1), (-1, -1)];

/// Move tables for one variant, built at compile time.
#[derive(Clone, Debug)]
pub struct Rules {
    pub variant: Variant,
    /// Simple-move targets per side and point (empty on a frozen last row).
    pub steps: [[Bitboard; 25]; 2],
    /// First jumps per side and point: moving directions only.
    pub first_jumps: [[JumpList; 25]; 2],
    /// Later jumps per point: every line (or moving directions, per variant).
    pub any_jumps: [[JumpList; 25]; 2],
    /// Each side's last row.
    pub last_row: [Bitboard; 2],
    /// The same simple moves by direction: (index step, points that may step
    /// that way). Lets bulk counting work on whole bitboards.
    pub step_shifts: [[Shift; 8]; 2],
    /// The first jumps by direction: (index step, points that may jump that way).
    pub first_jump_shifts: [[Shift; 8]; 2],
}

/// A direction as an index step plus the points from which the step is allowed.
#[derive(Clone, Copy, Debug)]
pub struct Shift {
    pub delta: i8,
    pub from: Bitboard,
}

impl Shift {
    /// Moves every point of `bb` (restricted to `from`) one step along the direction.
    ///
    /// # Panics
    ///
    /// With overflow checks on (debug builds), when `delta` is 32 or more in
    /// absolute value (the shifts of [`Rules`]' tables are at most 6).
    #[inline(always)]
    pub fn apply(self, bb: Bitboard) -> Bitboard {
        let bits = bb.0 & self.from.0;
        Bitboard(if self.delta >= 0 { bits << self.delta } else { bits >> (-self.delta) })
    }

    /// The inverse step: the points from which one step along the direction
    /// reaches `bb` (ignoring `from`).
    ///
    /// # Panics
    ///
    /// As [`Shift::apply`], with overflow checks on, when `delta` is 32 or
    /// more in absolute value.
    #[inline(always)]
    pub fn back(self, bb: Bitboard) -> Bitboard {
        let bits = bb.0;
        Bitboard((if self.delta >= 0 { bits >> self.delta } else { bits << (-self.delta) }) & Bitboard::ALL.0)
    }
}

/// The neighbour of `p` in direction `d` when a line joins them.
const fn line_neighbour(variant: &Variant, p: usize, d: (i8, i8)) -> Option<usize> {
    let file = (p % 5) as i8 + d.0;
    let rank = (p / 5) as i8 + d.1;
    if file < 0 || file > 4 || rank < 0 || rank > 4 {
        return None;
    }
    let q = (rank * 5 + file) as usize;
    let diagonal = d.0 != 0 && d.1 != 0;
    if diagonal && (variant.diagonal_points.0 & (1 << p) == 0 || variant.diagonal_points.0 & (1 << q) == 0) {
        return None;
    }
    Some(q)
}

/// Whether direction `d` is one `side` may move in (forward, diagonally
/// forward, sideways or backward when the variant allows it).
const fn is_moving_direction(variant: &Variant, side: Side, d: (i8, i8)) -> bool {
    let forward: i8 = match side {
        Side::White => 1,
        Side::Black => -1,
    };
    d.1 == forward || (d.1 == 0 && variant.sideways) || (d.1 == -forward && variant.backward)
}

impl Rules {
    /// The pieces of `side` (`ours`) that can make a first jump over a piece
    /// of `them` to an `empty` point: every capture starts from one of them.
    /// Works on bare bitboards, for callers without a [`crate::Position`].
    #[inline]
    pub fn capturers(&self, side: Side, ours: Bitboard, them: Bitboard, empty: Bitboard) -> Bitboard {
        let mut from = Bitboard::EMPTY;
        for sh in &self.first_jump_shifts[side.index()] {
            let whole = Shift { delta: sh.delta, from: Bitboard::ALL };
            // Landing points two steps along, then back to where the jump starts.
            let over = sh.apply(ours).intersection(them);
            let land = whole.apply(over).intersection(empty);
            from = from.union(whole.back(whole.back(land)));
        }
        from
    }

    /// The number of simple moves of `side`'s pieces `ours` to `empty`
    /// points (whether simple moves are allowed at all is the caller's).
    #[inline]
    pub fn simple_move_count(&self, side: Side, ours: Bitboard, empty: Bitboard) -> u32 {
        self.step_shifts[side.index()].iter().map(|sh| sh.apply(ours).intersection(empty).count()).sum()
    }

    /// Builds the tables of `variant`.
    pub const fn new(variant: Variant) -> Rules {
        let mut rules = Rules {
            variant,
            steps: [[Bitboard::EMPTY; 25]; 2],
            first_jumps: [[JumpList::EMPTY; 25]; 2],
            any_jumps: [[JumpList::EMPTY; 25]; 2],
            last_row: [Bitboard::rank(4), Bitboard::rank(0)],
            step_shifts: [[Shift { delta: 0, from: Bitboard::EMPTY }; 8]; 2],
            first_jump_shifts: [[Shift { delta: 0, from: Bitboard::EMPTY }; 8]; 2],
        };
        let mut s = 0;
        while s < 2 {
            let side = if s == 0 { Side::White } else { Side::Black };
            let mut p = 0;
            while p < 25 {
                let on_last_row = rules.last_row[s].0 & (1 << p) != 0;
                let frozen = on_last_row && variant.last_row_frozen;
                let mut d = 0;
                while d < 8 {
                    let dir = DIRECTIONS[d];
                    let delta = dir.1 * 5 + dir.0;
                    rules.step_shifts[s][d].delta = delta;
                    rules.first_jump_shifts[s][d].delta = delta;
                    let moving = is_moving_direction(&variant, side, dir);
                    if let Some(q) = line_neighbour(&variant, p, dir) {
                        if moving && !frozen {
                            rules.steps[s][p].0 |= 1 << q;
                            rules.step_shifts[s][d].from.0 |= 1 << p;
                        }
                        if let Some(r) = line_neighbour(&variant, q, dir) {
                            let jump = Jump {
                                over: Point::from_index_unchecked(q as u8),
                                land: Point::from_index_unchecked(r as u8),
                            };
                            let first_ok = moving && (!frozen || dir.1 == 0);
                            if first_ok {
                                rules.first_jumps[s][p] = rules.first_jumps[s][p].push_sorted(jump);
                                rules.first_jump_shifts[s][d].from.0 |= 1 << p;
                            }
                            if variant.continue_any_direction || moving {
                                rules.any_jumps[s][p] = rules.any_jumps[s][p].push_sorted(jump);
                            }
                        }
                    }
                    d += 1;
                }
                p += 1;
            }
            s += 1;
        }
        rules
    }
}

/// The tables of the BrainKing rules, built at compile time.
pub static BRAINKING_RULES: Rules = Rules::new(BRAINKING);

/// The tables of the classic rules, built at compile time.
pub static CLASSIC_RULES: Rules = Rules::new(CLASSIC);

/// A rule set chosen at run time: a name for [`Rules`] built at compile time.
/// Games ([`crate::GameConfig`]), records, networks and tables carry it.
///
/// # Examples
///
/// ```
/// use alq_engine::{Game, GameConfig, Position, RuleSet, CLASSIC};
///
/// assert_eq!(RuleSet::default(), RuleSet::BrainKing);
/// assert_eq!(RuleSet::Classic.name(), "classic");
/// assert_eq!(RuleSet::from_name("brainking"), Some(RuleSet::BrainKing));
/// assert_eq!("classic".parse::<RuleSet>(), Ok(RuleSet::Classic));
/// assert_eq!(RuleSet::Classic.to_string(), "classic");
/// assert!(RuleSet::Classic.rules().variant.backward);
/// assert_eq!(RuleSet::Classic.rules().variant, CLASSIC);
///
/// // A game under the classic rules.
/// let mut game = Game::new(Position::start(), GameConfig::with_rules(RuleSet::Classic));
/// game.play_text("c2-c3").unwrap();
/// assert_eq!(game.rules(), RuleSet::Classic);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RuleSet {
    /// BrainKing's Alquerque (RULES.md), the default.
    #[default]
    BrainKing,
    /// The classic rule set ([`CLASSIC`]).
    Classic,
}

impl RuleSet {
    /// Every rule set, the default first.
    pub const ALL: [RuleSet; 2] = [RuleSet::BrainKing, RuleSet::Classic];

    /// The move tables.
    #[inline(always)]
    pub fn rules(self) -> &'static Rules {
        match self {
            RuleSet::BrainKing => &BRAINKING_RULES,
            RuleSet::Classic => &CLASSIC_RULES,
        }
    }

    /// The name used on the command line, in records, networks and tables.
    pub const fn name(self) -> &'static str {
        match self {
            RuleSet::BrainKing => BRAINKING.name,
            RuleSet::Classic => CLASSIC.name,
        }
    }

    /// The rule set called `name`.
    pub fn from_name(name: &str) -> Option<RuleSet> {
        RuleSet::ALL.into_iter().find(|r| r.name() == name)
    }
}

impl std::fmt::Display for RuleSet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for RuleSet {
    type Err = String;

    /// Reads a rule set's name ([`RuleSet::name`]), surrounding spaces
    /// allowed.
    ///
    /// # Errors
    ///
    /// A message naming the text and the known rule sets when it names none.
    fn from_str(text: &str) -> Result<RuleSet, String> {
        RuleSet::from_name(text.trim()).ok_or_else(|| {
            let names: Vec<&str> = RuleSet::ALL.iter().map(|r| r.name()).collect();
            format!("unknown rules {text:?} (known: {})", names.join(", "))
        })
    }
}
