//! Game-theoretic values, their one-byte encoding, and the kinds of table
//! that hold them.

use crate::index::Material;

/// The value of a position for the side to move, with the distance to the
/// end of the game in plies (the end: the side to move has no legal move):
/// the engine's [`Exact`], which the distance tables store in one byte
/// (value encoding 1, see [`value_from_byte`]). A win's distance is odd, a
/// loss's even.
pub use alq_engine::Exact;

/// Longest distance encoding 1 can hold: the byte is `distance + 1`.
pub const MAX_DISTANCE: u32 = 254;

/// Decodes a stored byte (value encoding 1): 0 is a draw, otherwise the
/// byte is the distance plus one, odd distances winning.
#[inline]
pub fn value_from_byte(byte: u8) -> Exact {
    match byte {
        0 => Exact::Draw,
        b => {
            let d = u32::from(b) - 1;
            if d % 2 == 1 {
                Exact::Win(d)
            } else {
                Exact::Loss(d)
            }
        }
    }
}

/// Encodes a value (encoding 1); `None` when the distance exceeds
/// [`MAX_DISTANCE`].
#[inline]
pub fn value_to_byte(value: Exact) -> Option<u8> {
    match value {
        Exact::Draw => Some(0),
        Exact::Win(d) | Exact::Loss(d) => (d <= MAX_DISTANCE).then(|| (d + 1) as u8),
    }
}

/// The win/draw/loss value a table of value encoding 2 holds: the engine's
/// [`Wdl`], stored in 2 bits (see [`wdl_code`]).
pub use alq_engine::Wdl;

/// Decodes a 2-bit code of value encoding 2: 0 draw, 1 win, 2 loss (3 is
/// never written; a damaged file is refused by its checksum first).
#[inline]
pub fn wdl_from_code(code: u8) -> Wdl {
    match code & 3 {
        1 => Wdl::Win,
        2 => Wdl::Loss,
        _ => Wdl::Draw,
    }
}

/// The 2-bit code of value encoding 2.
#[inline]
pub fn wdl_code(value: Wdl) -> u8 {
    match value {
        Wdl::Draw => 0,
        Wdl::Win => 1,
        Wdl::Loss => 2,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_round_trip() {
        for b in 0..=255u8 {
            assert_eq!(value_to_byte(value_from_byte(b)), Some(b));
        }
        assert_eq!(value_to_byte(Exact::Win(255)), None);
    }

    #[test]
    fn best_successor_wins_fastest_or_loses_slowest() {
        use Exact::*;
        assert_eq!(Exact::from_successors([Win(3), Loss(6), Loss(2)]), Win(3));
        assert_eq!(Exact::from_successors([Win(3), Draw, Win(9)]), Draw);
        assert_eq!(Exact::from_successors([Win(3), Win(9)]), Loss(10));
        assert_eq!(Exact::from_successors([]), Loss(0));
    }

    #[test]
    fn wdl_codes_round_trip_and_agree_with_values() {
        for w in [Wdl::Win, Wdl::Draw, Wdl::Loss] {
            assert_eq!(wdl_from_code(wdl_code(w)), w);
        }
        for b in 0..=255u8 {
            let v = value_from_byte(b);
            assert_eq!(Wdl::from(v.for_mover()), Wdl::from(v).for_mover());
        }
        assert_eq!(Wdl::from_successors([Wdl::Win, Wdl::Draw]), Wdl::Draw);
        assert_eq!(Wdl::from_successors([Wdl::Win, Wdl::Loss]), Wdl::Win);
        assert_eq!(Wdl::from_successors([]), Wdl::Loss);
    }
}

/// Plies without a capture or a forward move after which a game is drawn
/// (docs/rules.md; the default of the engine's adjudication).
pub const NO_PROGRESS_PLIES: u32 = 60;

/// A value under the no-progress rule, for the side to move, with the count
/// of plies without progress at 0. Stored one byte each (value encoding 3;
/// the solver is `dtz.rs`): 0 draw; 1 to 60 a win in that many plies to the
/// next progress move; 61 a cursed win; 62 a blessed loss; 64 + d a loss in
/// d plies (64 to 124).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Dtz {
    /// Won under the rule, this many plies (1 to 60) to the next progress
    /// move or the end.
    Win(u32),
    /// Won in the infinite game, drawn under the rule.
    CursedWin,
    Draw,
    /// Lost in the infinite game, drawn under the rule.
    BlessedLoss,
    /// Lost under the rule, this many plies (0 to 60) to the next progress
    /// move or the end.
    Loss(u32),
}

const CURSED_WIN: u8 = 61;
const BLESSED_LOSS: u8 = 62;
const LOSS_BASE: u8 = 64;

impl Dtz {
    /// Decodes a stored byte; `None` for a byte encoding 3 never writes.
    pub fn from_byte(byte: u8) -> Option<Dtz> {
        match byte {
            0 => Some(Dtz::Draw),
            1..=60 => Some(Dtz::Win(u32::from(byte))),
            CURSED_WIN => Some(Dtz::CursedWin),
            BLESSED_LOSS => Some(Dtz::BlessedLoss),
            b if (LOSS_BASE..=LOSS_BASE + 60).contains(&b) => Some(Dtz::Loss(u32::from(b - LOSS_BASE))),
            _ => None,
        }
    }

    /// The stored byte; distances beyond the rule's 60 plies have none.
    pub fn to_byte(self) -> Option<u8> {
        match self {
            Dtz::Draw => Some(0),
            Dtz::Win(d) => (1..=NO_PROGRESS_PLIES).contains(&d).then_some(d as u8),
            Dtz::CursedWin => Some(CURSED_WIN),
            Dtz::BlessedLoss => Some(BLESSED_LOSS),
            Dtz::Loss(d) => (d <= NO_PROGRESS_PLIES).then(|| LOSS_BASE + d as u8),
        }
    }

    /// The value of the infinite game (cursed wins are wins).
    pub fn infinite(self) -> Wdl {
        match self {
            Dtz::Win(_) | Dtz::CursedWin => Wdl::Win,
            Dtz::Draw => Wdl::Draw,
            Dtz::BlessedLoss | Dtz::Loss(_) => Wdl::Loss,
        }
    }

    /// The value under the rule with `counted` plies already without
    /// progress: a win or a loss only while its distance fits in what is
    /// left of the 60 plies.
    pub fn under_rule(self, counted: u32) -> Wdl {
        self.under_limit(NO_PROGRESS_PLIES, counted)
    }

    /// As [`Dtz::under_rule`], for tables built with another limit (tests:
    /// `build_dtz_with_limit`).
    pub fn under_limit(self, limit: u32, counted: u32) -> Wdl {
        match self.fitting(limit.saturating_sub(counted)) {
            Dtz::Win(_) => Wdl::Win,
            Dtz::Loss(_) => Wdl::Loss,
            _ => Wdl::Draw,
        }
    }

    /// The value with `counted` plies already without progress: a win or a
    /// loss whose distance no longer fits in what is left of the 60 plies
    /// is only the infinite game's (cursed, blessed).
    pub fn at_count(self, counted: u32) -> Dtz {
        self.fitting(NO_PROGRESS_PLIES.saturating_sub(counted))
    }

    /// The value when `left` plies are left before the rule draws: a win or
    /// a loss longer than that only the infinite game's.
    fn fitting(self, left: u32) -> Dtz {
        match self {
            Dtz::Win(d) if d > left => Dtz::CursedWin,
            Dtz::Loss(d) if d > left => Dtz::BlessedLoss,
            other => other,
        }
    }

    /// The value a move gives the side that plays it, from the value of the
    /// position it reaches (for the other side, its count at 0 there when
    /// the move is a `progress` move): a progress move is itself the next
    /// progress move (1 ply); a sideways move adds its ply to the reached
    /// position's distance, and a distance past the 60 plies is cursed or
    /// blessed. The count before the move is taken as 0.
    pub fn for_mover(self, progress: bool) -> Dtz {
        let after = |n: u32| if progress { 1 } else { n + 1 };
        match self {
            Dtz::Win(n) => Dtz::Loss(after(n)),
            Dtz::Loss(n) => Dtz::Win(after(n)),
            Dtz::CursedWin => Dtz::BlessedLoss,
            Dtz::BlessedLoss => Dtz::CursedWin,
            Dtz::Draw => Dtz::Draw,
        }
        .fitting(NO_PROGRESS_PLIES)
    }

    /// How much the side to move likes this value (greater is better): a
    /// win under the rule, the sooner the better; a cursed win; a draw; a
    /// blessed loss; a loss under the rule, the later the better.
    pub fn preference(self) -> i64 {
        match self {
            Dtz::Win(d) => 3000 - i64::from(d),
            Dtz::CursedWin => 1000,
            Dtz::Draw => 0,
            Dtz::BlessedLoss => -1000,
            Dtz::Loss(d) => -3000 + i64::from(d),
        }
    }

    /// A short name: `win`, `cursed-win`, `draw`, `blessed-loss`, `loss`.
    pub fn name(self) -> &'static str {
        match self {
            Dtz::Win(_) => "win",
            Dtz::CursedWin => "cursed-win",
            Dtz::Draw => "draw",
            Dtz::BlessedLoss => "blessed-loss",
            Dtz::Loss(_) => "loss",
        }
    }
}

impl std::fmt::Display for Dtz {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Dtz::Win(d) | Dtz::Loss(d) => write!(f, "{} {d}", self.name()),
            _ => f.write_str(self.name()),
        }
    }
}

/// What a table holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    /// Win, draw or loss with the distance to the end (value encoding 1).
    Distance,
    /// Win, draw or loss only, 2 bits an entry (value encoding 2).
    Wdl,
    /// Values under the 60-ply no-progress rule with the distance to the
    /// next progress move (value encoding 3, one byte an entry; see
    /// [`crate::Dtz`]).
    Dtz,
}

impl Kind {
    /// The value encoding written in headers.
    pub fn code(self) -> u8 {
        match self {
            Kind::Distance => 1,
            Kind::Wdl => 2,
            Kind::Dtz => 3,
        }
    }

    /// `distance`, `wdl` or `dtz`, as the command line names it.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Distance => "distance",
            Kind::Wdl => "wdl",
            Kind::Dtz => "dtz",
        }
    }

    /// Reads `distance`, `wdl` or `dtz`.
    pub fn from_name(name: &str) -> Option<Kind> {
        match name {
            "distance" => Some(Kind::Distance),
            "wdl" => Some(Kind::Wdl),
            "dtz" => Some(Kind::Dtz),
            _ => None,
        }
    }

    /// Every kind, in the order folders are searched.
    pub const ALL: [Kind; 3] = [Kind::Distance, Kind::Wdl, Kind::Dtz];

    /// The offset of the byte that holds entry `i`.
    #[inline]
    pub(crate) fn byte_of(self, i: u64) -> u64 {
        match self {
            Kind::Distance | Kind::Dtz => i,
            Kind::Wdl => i / 4,
        }
    }

    /// The win/draw/loss value of entry `i`, given the byte that holds it.
    #[inline]
    pub(crate) fn wdl_in(self, byte: u8, i: u64) -> Wdl {
        match self {
            Kind::Distance => value_from_byte(byte).into(),
            Kind::Wdl => wdl_from_code(byte >> (2 * (i % 4))),
            // The infinite game's value, as the other kinds give it.
            Kind::Dtz => Dtz::from_byte(byte).map_or(Wdl::Draw, Dtz::infinite),
        }
    }

    /// Bytes of a table with `entries` entries.
    pub fn data_len(self, entries: u64) -> u64 {
        match self {
            Kind::Distance | Kind::Dtz => entries,
            Kind::Wdl => entries.div_ceil(4),
        }
    }

    /// The file name of a class's table of this kind.
    pub fn file_name(self, material: Material) -> String {
        match self {
            Kind::Distance => material.file_name(),
            Kind::Wdl => format!("{}v{}.wdl.alqtb", material.mover, material.other),
            Kind::Dtz => format!("{}v{}.dtz.alqtb", material.mover, material.other),
        }
    }
}

impl std::fmt::Display for Kind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}
