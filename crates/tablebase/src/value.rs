//! Game-theoretic values and their one-byte encoding.

use std::cmp::Ordering;

use alq_engine::Exact;
use std::fmt;

/// The value of a position for the side to move, with the distance to the end
/// of the game in plies (the end: the side to move has no legal move).
/// A win's distance is odd, a loss's even.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Value {
    /// The side to move forces the end in this many plies.
    Win(u16),
    /// The side to move cannot avoid the end in this many plies (0: it has no move).
    Loss(u16),
    /// Neither side can force the end.
    Draw,
}

/// Longest distance encoding 1 can hold: the byte is `distance + 1`.
pub const MAX_DISTANCE: u16 = 254;

impl Value {
    /// Decodes a stored byte (value encoding 1): 0 is a draw, otherwise the
    /// byte is the distance plus one, odd distances winning.
    #[inline]
    pub fn from_byte(byte: u8) -> Value {
        match byte {
            0 => Value::Draw,
            b => {
                let d = u16::from(b) - 1;
                if d % 2 == 1 {
                    Value::Win(d)
                } else {
                    Value::Loss(d)
                }
            }
        }
    }

    /// Encodes the value; `None` when the distance exceeds [`MAX_DISTANCE`].
    #[inline]
    pub fn to_byte(self) -> Option<u8> {
        match self {
            Value::Draw => Some(0),
            Value::Win(d) | Value::Loss(d) => (d <= MAX_DISTANCE).then(|| (d + 1) as u8),
        }
    }

    /// The value a move leading to a position of value `self` (the
    /// opponent to move) has for the player making it.
    #[inline]
    pub fn for_mover(self) -> Value {
        match self {
            Value::Win(d) => Value::Loss(d + 1),
            Value::Loss(d) => Value::Win(d + 1),
            Value::Draw => Value::Draw,
        }
    }

    /// The value of a position from the values of the positions its legal
    /// moves lead to (each from the opponent's view): the side to move wins
    /// as fast as it can, and when it cannot win, draws, and when it cannot
    /// draw, loses as slowly as it can. No successors: lost at once.
    pub fn from_successors(successors: impl IntoIterator<Item = Value>) -> Value {
        successors.into_iter().map(Value::for_mover).max_by(Value::preference).unwrap_or(Value::Loss(0))
    }

    /// Orders values by how much the side to move likes them (greater is
    /// better), as the engine's [`Exact::preference`] does.
    #[inline]
    pub fn preference(&self, other: &Value) -> Ordering {
        Exact::from(*self).preference(&Exact::from(*other))
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

impl From<Value> for Wdl {
    #[inline]
    fn from(value: Value) -> Wdl {
        Exact::from(value).into()
    }
}

/// The engine's view of a table value.
impl From<Value> for Exact {
    #[inline]
    fn from(value: Value) -> Exact {
        match value {
            Value::Win(d) => Exact::Win(d.into()),
            Value::Loss(d) => Exact::Loss(d.into()),
            Value::Draw => Exact::Draw,
        }
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Win(d) => write!(f, "win {d}"),
            Value::Loss(d) => write!(f, "loss {d}"),
            Value::Draw => f.write_str("draw"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_round_trip() {
        for b in 0..=255u8 {
            assert_eq!(Value::from_byte(b).to_byte(), Some(b));
        }
        assert_eq!(Value::Win(255).to_byte(), None);
    }

    #[test]
    fn best_successor_wins_fastest_or_loses_slowest() {
        use Value::*;
        assert_eq!(Value::from_successors([Win(3), Loss(6), Loss(2)]), Win(3));
        assert_eq!(Value::from_successors([Win(3), Draw, Win(9)]), Draw);
        assert_eq!(Value::from_successors([Win(3), Win(9)]), Loss(10));
        assert_eq!(Value::from_successors([]), Loss(0));
    }

    #[test]
    fn wdl_codes_round_trip_and_agree_with_values() {
        for w in [Wdl::Win, Wdl::Draw, Wdl::Loss] {
            assert_eq!(wdl_from_code(wdl_code(w)), w);
        }
        for b in 0..=255u8 {
            let v = Value::from_byte(b);
            assert_eq!(Wdl::from(v.for_mover()), Wdl::from(v).for_mover());
        }
        assert_eq!(Wdl::from_successors([Wdl::Win, Wdl::Draw]), Wdl::Draw);
        assert_eq!(Wdl::from_successors([Wdl::Win, Wdl::Loss]), Wdl::Win);
        assert_eq!(Wdl::from_successors([]), Wdl::Loss);
    }
}
