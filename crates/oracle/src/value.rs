//! What the oracle says about a position, and where it came from.

use std::fmt;

use alq_tablebase::Wdl;

/// The value of a position for its side to move, as far as it is known.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Value {
    Win,
    Draw,
    Loss,
    /// The mover does not lose (a win or a draw).
    AtLeastDraw,
    /// The mover does not win (a draw or a loss).
    AtMostDraw,
    Unknown,
}

impl Value {
    /// The value from the answers to "does the mover win?" and "does the
    /// opponent win?" (`None`: not settled).
    pub fn from_questions(mover_wins: Option<bool>, opponent_wins: Option<bool>) -> Value {
        match (mover_wins, opponent_wins) {
            (Some(true), _) => Value::Win,
            (_, Some(true)) => Value::Loss,
            (Some(false), Some(false)) => Value::Draw,
            (Some(false), None) => Value::AtMostDraw,
            (None, Some(false)) => Value::AtLeastDraw,
            (None, None) => Value::Unknown,
        }
    }

    /// The answers to "does the mover win?" and "does the opponent win?"
    /// that this value gives (`None`: not settled); the inverse of
    /// [`Value::from_questions`] up to what a value records.
    pub fn questions(self) -> (Option<bool>, Option<bool>) {
        match self {
            Value::Win => (Some(true), Some(false)),
            Value::Loss => (Some(false), Some(true)),
            Value::Draw => (Some(false), Some(false)),
            Value::AtMostDraw => (Some(false), None),
            Value::AtLeastDraw => (None, Some(false)),
            Value::Unknown => (None, None),
        }
    }

    /// The same fact from the other side's view.
    pub fn for_other_side(self) -> Value {
        match self {
            Value::Win => Value::Loss,
            Value::Loss => Value::Win,
            Value::AtLeastDraw => Value::AtMostDraw,
            Value::AtMostDraw => Value::AtLeastDraw,
            v => v,
        }
    }

    /// Win, draw or loss (not a bound, not unknown).
    pub fn is_exact(self) -> bool {
        matches!(self, Value::Win | Value::Draw | Value::Loss)
    }

    /// The exact value as a table value.
    pub fn wdl(self) -> Option<Wdl> {
        match self {
            Value::Win => Some(Wdl::Win),
            Value::Draw => Some(Wdl::Draw),
            Value::Loss => Some(Wdl::Loss),
            _ => None,
        }
    }

    /// Whether a position of exact value `wdl` fits what this value says.
    pub fn admits(self, wdl: Wdl) -> bool {
        match self {
            Value::AtLeastDraw => wdl != Wdl::Loss,
            Value::AtMostDraw => wdl != Wdl::Win,
            Value::Unknown => true,
            exact => exact.wdl() == Some(wdl),
        }
    }

    /// `win`, `draw`, `loss`, `≥draw`, `≤draw` or `unknown`.
    pub fn name(self) -> &'static str {
        match self {
            Value::Win => "win",
            Value::Draw => "draw",
            Value::Loss => "loss",
            Value::AtLeastDraw => "≥draw",
            Value::AtMostDraw => "≤draw",
            Value::Unknown => "unknown",
        }
    }
}

impl From<Wdl> for Value {
    fn from(wdl: Wdl) -> Value {
        match wdl {
            Wdl::Win => Value::Win,
            Wdl::Draw => Value::Draw,
            Wdl::Loss => Value::Loss,
        }
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Which source answered.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Source {
    /// The side to move has no legal move.
    End,
    /// The endgame tables.
    Table,
    /// A store read at start, or an earlier search of this oracle.
    Store,
    /// A search run for this question.
    Search,
    /// Nothing settled the value within the budget.
    None,
}

impl Source {
    pub fn name(self) -> &'static str {
        match self {
            Source::End => "end",
            Source::Table => "table",
            Source::Store => "store",
            Source::Search => "search",
            Source::None => "none",
        }
    }
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_two_questions_give_the_value() {
        assert_eq!(Value::from_questions(Some(true), None), Value::Win);
        assert_eq!(Value::from_questions(None, Some(true)), Value::Loss);
        assert_eq!(Value::from_questions(Some(false), Some(false)), Value::Draw);
        assert_eq!(Value::from_questions(Some(false), None), Value::AtMostDraw);
        assert_eq!(Value::from_questions(None, Some(false)), Value::AtLeastDraw);
        assert_eq!(Value::from_questions(None, None), Value::Unknown);
    }

    #[test]
    fn values_turn_with_the_side_and_admit_what_they_say() {
        for v in [Value::Win, Value::Draw, Value::Loss, Value::AtLeastDraw, Value::AtMostDraw, Value::Unknown] {
            assert_eq!(v.for_other_side().for_other_side(), v);
            for w in [Wdl::Win, Wdl::Draw, Wdl::Loss] {
                assert_eq!(v.admits(w), v.for_other_side().admits(w.for_mover()), "{v} {w:?}");
            }
        }
        assert!(Value::AtLeastDraw.admits(Wdl::Win) && !Value::AtLeastDraw.admits(Wdl::Loss));
        assert_eq!(Value::Win.for_other_side(), Value::Loss);
        assert_eq!(Value::from(Wdl::Draw).name(), "draw");
    }
}
