//! Exact values from endgame tables, as the search and the players see them.
//!
//! The engine does not read table files itself: `alq-tablebase` implements
//! [`EndgameTables`], and a [`crate::Searcher`] given tables returns their
//! value at once for every position they cover.

use std::cmp::Ordering;
use std::fmt;

use crate::moves::Move;
use crate::position::Position;

/// The game-theoretic value of a position for the side to move, with the
/// distance in plies to the position where the loser has no legal move.
/// Repetition and no-progress rules are not part of it (see the tablebase
/// README); [`Exact::holds_within`] says when a game's draw rules cannot
/// interfere.
///
/// # Examples
///
/// ```
/// use alq_engine::Exact;
///
/// // The side to move has three moves, leading to these values for the opponent.
/// let value = Exact::from_successors([Exact::Win(2), Exact::Draw, Exact::Loss(4)]);
/// assert_eq!(value, Exact::Win(5));
/// assert_eq!(value.to_string(), "win 5");
/// assert_eq!("win 5".parse::<Exact>(), Ok(value));
/// assert!(value.holds_within(60) && !value.holds_within(4));
/// assert_eq!(Exact::from_successors([]), Exact::Loss(0));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Exact {
    Win(u32),
    Loss(u32),
    Draw,
}

impl Exact {
    /// The value for the player who moved into a position of value `self`.
    pub fn for_mover(self) -> Exact {
        match self {
            Exact::Win(d) => Exact::Loss(d + 1),
            Exact::Loss(d) => Exact::Win(d + 1),
            Exact::Draw => Exact::Draw,
        }
    }

    /// Orders values by how much the side to move likes them (greater is
    /// better): the fastest win, then a draw, then the slowest loss.
    pub fn preference(&self, other: &Exact) -> Ordering {
        fn key(v: &Exact) -> (u8, i64) {
            match *v {
                Exact::Win(d) => (2, -i64::from(d)),
                Exact::Draw => (1, 0),
                Exact::Loss(d) => (0, i64::from(d)),
            }
        }
        key(self).cmp(&key(other))
    }

    /// Whether a game's draw rules cannot change this value: a win or a loss
    /// in `d` plies holds when fewer than `budget` plies can pass before a
    /// draw rule (no progress, ply cap) ends the game, whatever is played.
    /// A draw always holds: the draw rules only add draws.
    pub fn holds_within(self, budget: u32) -> bool {
        match self {
            Exact::Win(d) | Exact::Loss(d) => d <= budget,
            Exact::Draw => true,
        }
    }

    /// The value of a position from the values of the positions its legal
    /// moves lead to (each from the opponent's view): the side to move wins
    /// as fast as it can, and when it cannot win, draws, and when it cannot
    /// draw, loses as slowly as it can. No successors: lost at once.
    pub fn from_successors(successors: impl IntoIterator<Item = Exact>) -> Exact {
        successors.into_iter().map(Exact::for_mover).max_by(Exact::preference).unwrap_or(Exact::Loss(0))
    }

    /// `win`, `draw` or `loss` without the distance.
    pub fn kind(self) -> &'static str {
        match self {
            Exact::Win(_) => "win",
            Exact::Loss(_) => "loss",
            Exact::Draw => "draw",
        }
    }
}

impl fmt::Display for Exact {
    /// `win D`, `loss D` or `draw`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Exact::Win(d) => write!(f, "win {d}"),
            Exact::Loss(d) => write!(f, "loss {d}"),
            Exact::Draw => f.write_str("draw"),
        }
    }
}

impl std::str::FromStr for Exact {
    type Err = String;

    /// Reads what `Display` writes.
    ///
    /// # Errors
    ///
    /// A message naming the text when it is not `win D`, `loss D` or `draw`
    /// with `D` a whole number of plies.
    fn from_str(text: &str) -> Result<Exact, String> {
        let bad = || format!("bad exact value {text:?} (expected win D, loss D or draw)");
        let mut words = text.split_whitespace();
        let value = match (words.next(), words.next()) {
            (Some("draw"), None) => Exact::Draw,
            (Some("win"), Some(d)) => Exact::Win(d.parse().map_err(|_| bad())?),
            (Some("loss"), Some(d)) => Exact::Loss(d.parse().map_err(|_| bad())?),
            _ => return Err(bad()),
        };
        if words.next().is_some() {
            return Err(bad());
        }
        Ok(value)
    }
}

/// What is proven about a position's value for the side to move: the proof
/// search's result, and an opening book's `exact_value` column. Written as
/// `win D`, `loss D`, `draw`, `win ≤ D`, `loss ≤ D`, `win`, `loss`,
/// `≥ draw` or `≤ draw` (and read back by `FromStr` and serde).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(into = "String", try_from = "String")]
pub enum Proven {
    /// The exact value, distance included.
    Exact(Exact),
    /// The side to move wins; the end comes within this many plies (an upper
    /// bound: a faster win may exist).
    WinWithin(u32),
    /// The side to move loses; the winner can force the end within this many
    /// plies (the loser may be forced to lose sooner).
    LossWithin(u32),
    /// Threshold proofs, without distances: the side to move wins, or loses.
    Win,
    Loss,
    /// The side to move holds at least a draw, or at most one. (A draw both
    /// sides hold is `Exact(Exact::Draw)`.)
    AtLeastDraw,
    AtMostDraw,
}

impl Proven {
    /// The outcome it proves, without its distance; none for a one-sided
    /// bound (`≥ draw`, `≤ draw`).
    pub fn wdl(self) -> Option<Wdl> {
        match self {
            Proven::Exact(v) => Some(v.into()),
            Proven::WinWithin(_) | Proven::Win => Some(Wdl::Win),
            Proven::LossWithin(_) | Proven::Loss => Some(Wdl::Loss),
            Proven::AtLeastDraw | Proven::AtMostDraw => None,
        }
    }
}

impl fmt::Display for Proven {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Proven::Exact(v) => write!(f, "{v}"),
            Proven::WinWithin(d) => write!(f, "win ≤ {d}"),
            Proven::LossWithin(d) => write!(f, "loss ≤ {d}"),
            Proven::Win => f.write_str("win"),
            Proven::Loss => f.write_str("loss"),
            Proven::AtLeastDraw => f.write_str("≥ draw"),
            Proven::AtMostDraw => f.write_str("≤ draw"),
        }
    }
}

impl std::str::FromStr for Proven {
    type Err = String;

    /// Reads what `Display` writes.
    ///
    /// # Errors
    ///
    /// A message naming the text and the accepted forms when it is none of
    /// them.
    fn from_str(text: &str) -> Result<Proven, String> {
        let bad = || {
            format!("bad proven value {text:?} (expected win D, loss D, draw, win ≤ D, loss ≤ D, win, loss, ≥ draw or ≤ draw)")
        };
        let distance = |d: &str| d.trim().parse::<u32>().map_err(|_| bad());
        let text = text.trim();
        Ok(match text {
            "win" => Proven::Win,
            "loss" => Proven::Loss,
            "≥ draw" => Proven::AtLeastDraw,
            "≤ draw" => Proven::AtMostDraw,
            _ => {
                if let Some(d) = text.strip_prefix("win ≤") {
                    Proven::WinWithin(distance(d)?)
                } else if let Some(d) = text.strip_prefix("loss ≤") {
                    Proven::LossWithin(distance(d)?)
                } else {
                    Proven::Exact(text.parse().map_err(|_| bad())?)
                }
            }
        })
    }
}

impl From<Proven> for String {
    fn from(p: Proven) -> String {
        p.to_string()
    }
}

impl TryFrom<String> for Proven {
    type Error = String;
    fn try_from(text: String) -> Result<Proven, String> {
        text.parse()
    }
}

/// A value without its distance: what win/draw/loss tables hold (side to
/// move's view). Ordered from worst to best for the side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Wdl {
    Loss,
    Draw,
    Win,
}

impl Wdl {
    /// The value for the player who moved into a position of value `self`.
    #[inline]
    pub fn for_mover(self) -> Wdl {
        match self {
            Wdl::Win => Wdl::Loss,
            Wdl::Loss => Wdl::Win,
            Wdl::Draw => Wdl::Draw,
        }
    }

    /// The value of a position from its successors' (each from the
    /// opponent's view); no successors: lost.
    pub fn from_successors(successors: impl IntoIterator<Item = Wdl>) -> Wdl {
        successors.into_iter().map(Wdl::for_mover).max().unwrap_or(Wdl::Loss)
    }
}

impl From<Exact> for Wdl {
    #[inline]
    fn from(value: Exact) -> Wdl {
        match value {
            Exact::Win(_) => Wdl::Win,
            Exact::Loss(_) => Wdl::Loss,
            Exact::Draw => Wdl::Draw,
        }
    }
}

impl fmt::Display for Wdl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Wdl::Win => "win",
            Wdl::Loss => "loss",
            Wdl::Draw => "draw",
        })
    }
}

/// Endgame tables the engine can ask. Implementations must be cheap to probe
/// from many threads at once.
pub trait EndgameTables: Send + Sync {
    /// Every position with at most this many pieces is covered.
    fn max_pieces(&self) -> u32;

    /// The value of `pos` for its side to move; `None` when the tables do not
    /// cover it (too many pieces, or a table that cannot be read).
    fn probe(&self, pos: &Position) -> Option<Exact>;

    /// A short description for logs and run files (e.g. the folder).
    fn describe(&self) -> String;

    /// The rule set the tables were built for; a search of a game under
    /// other rules does not use them.
    fn rules(&self) -> crate::RuleSet;

    /// Whether `pos` has few enough pieces to be covered.
    fn covers(&self, pos: &Position) -> bool {
        pos.occupied().count() <= self.max_pieces()
    }

    /// Every position with at most this many pieces has a win/draw/loss
    /// value ([`EndgameTables::probe_wdl`]), at least [`EndgameTables::max_pieces`].
    fn wdl_max_pieces(&self) -> u32 {
        self.max_pieces()
    }

    /// The win/draw/loss value of `pos` for its side to move, where only
    /// that is known (tables without distances); `None` when not covered.
    fn probe_wdl(&self, pos: &Position) -> Option<Wdl> {
        if self.covers(pos) {
            self.probe(pos).map(Wdl::from)
        } else {
            None
        }
    }

    /// Every legal move of `pos` with the value it has for the player making
    /// it, best first (ties in notation order), when the tables cover every
    /// position the moves lead to; `None` otherwise or when `pos` has no move.
    fn rank_moves(&self, pos: &Position) -> Option<Vec<(Move, Exact)>> {
        let moves = pos.legal_moves_in(self.rules());
        if moves.is_empty() {
            return None;
        }
        let mut ranked = Vec::with_capacity(moves.len());
        for &mv in &moves {
            let child = pos.play(mv);
            if !self.covers(&child) {
                return None;
            }
            ranked.push((mv, self.probe(&child)?.for_mover()));
        }
        ranked.sort_by(|a, b| b.1.preference(&a.1).then_with(|| a.0.to_string().cmp(&b.0.to_string())));
        Some(ranked)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn preference_orders_fast_wins_then_draws_then_slow_losses() {
        let mut values = vec![Exact::Loss(2), Exact::Win(9), Exact::Draw, Exact::Loss(8), Exact::Win(3)];
        values.sort_by(|a, b| b.preference(a));
        assert_eq!(values, [Exact::Win(3), Exact::Win(9), Exact::Draw, Exact::Loss(8), Exact::Loss(2)]);
        assert_eq!(Exact::Win(4).for_mover(), Exact::Loss(5));
        assert_eq!(Exact::Loss(0).for_mover(), Exact::Win(1));
    }

    #[test]
    fn draw_rules_only_threaten_long_results() {
        assert!(Exact::Win(5).holds_within(5));
        assert!(!Exact::Win(6).holds_within(5));
        assert!(!Exact::Loss(6).holds_within(5));
        assert!(Exact::Draw.holds_within(0));
    }

    #[test]
    fn text_round_trips_and_refuses_junk() {
        for v in [Exact::Win(17), Exact::Loss(0), Exact::Draw] {
            assert_eq!(v.to_string().parse::<Exact>(), Ok(v));
        }
        for bad in ["", "win", "draw 3", "win -1", "loss x", "won 3", "win 3 4"] {
            assert!(bad.parse::<Exact>().is_err(), "{bad:?}");
        }
    }

    #[test]
    fn proven_values_round_trip_and_refuse_junk() {
        let all = [
            Proven::Exact(Exact::Win(7)),
            Proven::Exact(Exact::Loss(0)),
            Proven::Exact(Exact::Draw),
            Proven::WinWithin(41),
            Proven::LossWithin(12),
            Proven::Win,
            Proven::Loss,
            Proven::AtLeastDraw,
            Proven::AtMostDraw,
        ];
        for p in all {
            assert_eq!(p.to_string().parse::<Proven>(), Ok(p), "{p}");
            assert_eq!(String::from(p).parse::<Proven>(), Ok(p));
        }
        // A proven search score names the same exact value it came from.
        for v in [Exact::Win(3), Exact::Loss(8), Exact::Draw] {
            assert_eq!(crate::Score::from_exact(v).exact(), Some(v));
        }
        assert_eq!(crate::Score::Cp(12).exact(), None);
        let wdl: Vec<Option<Wdl>> = all.iter().map(|p| p.wdl()).collect();
        let (w, d, l) = (Some(Wdl::Win), Some(Wdl::Draw), Some(Wdl::Loss));
        assert_eq!(wdl, [w, l, d, w, l, w, l, None, None]);
        assert_eq!(Proven::WinWithin(41).to_string(), "win ≤ 41");
        assert_eq!(Proven::AtLeastDraw.to_string(), "≥ draw");
        for bad in ["", "won", "win ≤", "loss ≤ x", "≥ win", "draw 3", "unknown"] {
            let err = bad.parse::<Proven>().unwrap_err();
            assert!(err.contains(&format!("{bad:?}")), "{err}");
        }
    }
}
