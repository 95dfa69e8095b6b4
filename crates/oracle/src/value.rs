//! What the oracle says about a position, and where it came from.

use std::fmt;

use alq_engine::{Move, Position, RuleSet};
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

    /// A book's or a proof's value (side to move's view) as far as it goes:
    /// distances are dropped.
    pub fn from_proven(p: alq_engine::Proven) -> Value {
        match p {
            alq_engine::Proven::AtLeastDraw => Value::AtLeastDraw,
            alq_engine::Proven::AtMostDraw => Value::AtMostDraw,
            exact => exact.wdl().map_or(Value::Unknown, Value::from),
        }
    }

    /// This value as a book's value (`win`, `loss`, `draw`, `≥ draw`, `≤
    /// draw`, without distance); none when unknown.
    pub fn proven(self) -> Option<alq_engine::Proven> {
        use alq_engine::Proven;
        match self {
            Value::Win => Some(Proven::Win),
            Value::Loss => Some(Proven::Loss),
            Value::Draw => Some(Proven::Exact(alq_engine::Exact::Draw)),
            Value::AtLeastDraw => Some(Proven::AtLeastDraw),
            Value::AtMostDraw => Some(Proven::AtMostDraw),
            Value::Unknown => None,
        }
    }

    /// What two findings about one position say together; `None` when they
    /// contradict each other.
    pub fn join(self, other: Value) -> Option<Value> {
        let (a, b) = (self.questions(), other.questions());
        let one = |x: Option<bool>, y: Option<bool>| match (x, y) {
            (Some(x), Some(y)) if x != y => Err(()),
            (x, y) => Ok(x.or(y)),
        };
        Some(Value::from_questions(one(a.0, b.0).ok()?, one(a.1, b.1).ok()?))
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

/// The ultra-strong measure of a move (the perfect player's choice among
/// moves that keep the value, and the policy's training target): after
/// `mv`, which keeps `kept` for the mover of `pos`, the share of the
/// opponent's replies known to hand the mover more than `kept`: a win
/// when `kept` is a draw, at least a draw when it is a loss (when `kept`
/// is a win, the replies known to leave it, so every known one: moves that
/// keep a win tie unless some replies are unknown). `known` gives the
/// value, for the mover again, of the position after a reply where it is
/// known without a search; unknown replies count as holding. A move that
/// leaves no reply scores 1.
pub fn trap_share(
    pos: &Position,
    mv: Move,
    kept: Value,
    rules: RuleSet,
    known: impl Fn(&Position) -> Option<Value>,
) -> f64 {
    let child = pos.play(mv);
    let replies = child.legal_moves_in(rules);
    if replies.is_empty() {
        return 1.0;
    }
    let errs = replies
        .iter()
        .filter(|&&r| match (kept, known(&child.play(r))) {
            (Value::Loss, Some(Value::Win | Value::Draw | Value::AtLeastDraw)) => true,
            (Value::Loss, _) => false,
            (_, Some(v)) => v == Value::Win,
            (_, None) => false,
        })
        .count();
    errs as f64 / replies.len() as f64
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
    /// What a certificate proves: the shipped ones (every step checked in
    /// CI; their table leaves over the ≤ 10 and ≤ 12 tables by
    /// `scripts/check-proofs.sh all`, by hand) and those the user gives
    /// ([`crate::Oracle::read_certificate`]), checked when read, their table
    /// leaves over the oracle's tables.
    Proof,
    /// A store read at start (settled by searches, no certificate behind
    /// it: the shipped opening tree and atlas, the user's), or an earlier
    /// search of this oracle.
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
            Source::Proof => "proof",
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

    #[test]
    fn findings_join_and_round_trip_through_book_values() {
        let all = [Value::Win, Value::Draw, Value::Loss, Value::AtLeastDraw, Value::AtMostDraw, Value::Unknown];
        for v in all {
            assert_eq!(v.proven().map_or(Value::Unknown, Value::from_proven), v);
            assert_eq!(v.join(Value::Unknown), Some(v));
            assert_eq!(v.join(v), Some(v));
        }
        assert_eq!(Value::AtLeastDraw.join(Value::AtMostDraw), Some(Value::Draw));
        assert_eq!(Value::AtLeastDraw.join(Value::Win), Some(Value::Win));
        assert_eq!(Value::Win.join(Value::AtMostDraw), None);
        assert_eq!(Value::Loss.join(Value::Draw), None);
        assert_eq!(Value::from_proven(alq_engine::Proven::Exact(alq_engine::Exact::Win(31))), Value::Win);
        assert_eq!(Value::Draw.proven().unwrap().to_string(), "draw");
    }
}
