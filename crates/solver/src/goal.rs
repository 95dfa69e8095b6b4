//! Threshold goals: does a named side get at least a named outcome? What
//! [`crate::ThresholdSolver`] searches and a [`crate::Certificate`] proves.

use std::fmt;
use std::str::FromStr;

use alq_engine::Side;
use alq_tablebase::Wdl;

/// A one-sided question about a position.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Goal {
    WhiteWins,
    WhiteDraws,
    BlackWins,
    BlackDraws,
}

impl Goal {
    /// `white-draws` or `black-draws`: `side` gets at least a draw.
    pub fn draws_of(side: Side) -> Goal {
        match side {
            Side::White => Goal::WhiteDraws,
            Side::Black => Goal::BlackDraws,
        }
    }

    /// `white-wins` or `black-wins`: `side` wins.
    pub fn wins_of(side: Side) -> Goal {
        match side {
            Side::White => Goal::WhiteWins,
            Side::Black => Goal::BlackWins,
        }
    }

    /// Whether the goal is a win (else at least a draw).
    pub fn is_win(self) -> bool {
        matches!(self, Goal::WhiteWins | Goal::BlackWins)
    }

    pub const ALL: [Goal; 4] = [Goal::WhiteWins, Goal::WhiteDraws, Goal::BlackWins, Goal::BlackDraws];

    /// The side named by the goal.
    pub fn side(self) -> Side {
        match self {
            Goal::WhiteWins | Goal::WhiteDraws => Side::White,
            Goal::BlackWins | Goal::BlackDraws => Side::Black,
        }
    }

    /// The side whose win the search asks about, and whether the goal is the
    /// negation of that win (`white-draws` = not `black-wins`).
    pub fn win_question(self) -> (Side, bool) {
        match self {
            Goal::WhiteWins => (Side::White, false),
            Goal::BlackWins => (Side::Black, false),
            Goal::WhiteDraws => (Side::Black, true),
            Goal::BlackDraws => (Side::White, true),
        }
    }

    /// The goal that holds exactly when this one does not: `white-draws`
    /// fails exactly when `black-wins` holds.
    pub fn opposite(self) -> Goal {
        match self {
            Goal::WhiteWins => Goal::BlackDraws,
            Goal::BlackDraws => Goal::WhiteWins,
            Goal::WhiteDraws => Goal::BlackWins,
            Goal::BlackWins => Goal::WhiteDraws,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Goal::WhiteWins => "white-wins",
            Goal::WhiteDraws => "white-draws",
            Goal::BlackWins => "black-wins",
            Goal::BlackDraws => "black-draws",
        }
    }

    /// Whether a position of win/draw/loss value `wdl` (for its side to
    /// move, `mover`) meets the goal.
    pub fn holds(self, mover: Side, wdl: Wdl) -> bool {
        let for_side = if mover == self.side() { wdl } else { wdl.for_mover() };
        if self.is_win() {
            for_side == Wdl::Win
        } else {
            for_side != Wdl::Loss
        }
    }
}

impl fmt::Display for Goal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Goal {
    type Err = String;

    fn from_str(s: &str) -> Result<Goal, String> {
        Goal::ALL
            .into_iter()
            .find(|g| g.name() == s)
            .ok_or_else(|| format!("unknown goal {s:?}: expected white-wins, white-draws, black-wins or black-draws"))
    }
}
