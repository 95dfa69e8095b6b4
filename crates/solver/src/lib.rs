//! # alq-solver
//!
//! A proof search for Alquerque (BrainKing's rules, or the classic ones with
//! [`Solver::set_rules`]): the game-theoretic
//! value of a position, `win D`, `loss D` or `draw`, with the same meaning as
//! the tablebases (`alq-tablebase`): the value of the infinite game, where the
//! game ends only when the side to move has no legal move, and a draw means
//! neither side can force that end. Repetition and no-progress rules of games
//! are not part of it.
//!
//! The search builds the reachable part of the game graph explicitly (nodes
//! are positions, never paths) and runs a retrograde analysis over it, twice:
//! with every unexpanded node counted as the best and as the worst value for
//! the root's side to move. Both are exact values of finite games, so no
//! repetition is ever scored by path, and the true value lies between them
//! (see crates/solver/README.md, "Graph-history interaction").
//!
//! Threshold goals ("does White get at least a draw?", a [`Goal`]) are
//! proven by [`ThresholdSolver`], with [`Certificate`]s that anyone can
//! check. The source files, one job each, are listed in
//! crates/solver/README.md ("Source files").
//!
//! ```
//! use alq_engine::{Exact, Proven};
//! use alq_solver::{Budget, Solver};
//!
//! let mut solver = Solver::new(None);
//! let pos = "...../...../...../...../..W.. w".parse().unwrap();
//! let result = solver.solve(&pos, &Budget::nodes(1000)).unwrap();
//! assert_eq!(result.proof, Some(Proven::Exact(Exact::Win(1))));
//! ```

mod budget;
pub mod certificate;
mod compact;
pub mod deepen;
mod error;
mod exact;
mod explicit;
mod files;
mod goal;
mod keymap;
pub mod no_progress;
mod predecessors;
pub mod reachable;
mod saved;
mod search_state;
mod store;
pub mod threshold;

pub use budget::Budget;
pub use certificate::{
    check as check_certificate, check_structure, Certificate, CertificateError, CheckError, CheckReport,
};
pub use error::SolveError;
pub use exact::{Progress, SolveResult, Solver};
pub use goal::Goal;
pub use no_progress::{check_no_progress, Leaves, NoProgressError, NoProgressReport};
pub use saved::{load_state, save_state, SavedState};
pub use search_state::SearchState;
pub use store::ProvenStore;
pub use threshold::{Outcome, ThresholdResult, ThresholdSolver};
