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

/// What a table holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    /// Win, draw or loss with the distance to the end (value encoding 1).
    Distance,
    /// Win, draw or loss only, 2 bits an entry (value encoding 2).
    Wdl,
}

impl Kind {
    /// The value encoding written in headers.
    pub fn code(self) -> u8 {
        match self {
            Kind::Distance => 1,
            Kind::Wdl => 2,
        }
    }

    /// `distance` or `wdl`, as the command line names it.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Distance => "distance",
            Kind::Wdl => "wdl",
        }
    }

    /// Reads `distance` or `wdl`.
    pub fn from_name(name: &str) -> Option<Kind> {
        match name {
            "distance" => Some(Kind::Distance),
            "wdl" => Some(Kind::Wdl),
            _ => None,
        }
    }

    /// The offset of the byte that holds entry `i`.
    #[inline]
    pub(crate) fn byte_of(self, i: u64) -> u64 {
        match self {
            Kind::Distance => i,
            Kind::Wdl => i / 4,
        }
    }

    /// The win/draw/loss value of entry `i`, given the byte that holds it.
    #[inline]
    pub(crate) fn wdl_in(self, byte: u8, i: u64) -> Wdl {
        match self {
            Kind::Distance => value_from_byte(byte).into(),
            Kind::Wdl => wdl_from_code(byte >> (2 * (i % 4))),
        }
    }

    /// Bytes of a table with `entries` entries.
    pub fn data_len(self, entries: u64) -> u64 {
        match self {
            Kind::Distance => entries,
            Kind::Wdl => entries.div_ceil(4),
        }
    }

    /// The file name of a class's table of this kind.
    pub fn file_name(self, material: Material) -> String {
        match self {
            Kind::Distance => material.file_name(),
            Kind::Wdl => format!("{}v{}.wdl.alqtb", material.mover, material.other),
        }
    }
}

impl std::fmt::Display for Kind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}
