//! # alq-selfplay
//!
//! The long jobs built on playing games, each parallel over many games or
//! positions and resumable where it runs long: self-play generation of game
//! records (`generate`), rescoring recorded positions by deeper search
//! (`rescore`), the strength study from the standard start (`study`),
//! opening trees with exact and threshold proofs (`book`), and endgame
//! accuracy against the tables (`accuracy`). Players, openings and matches
//! live in alq-play.

pub mod accuracy;
pub mod book;
pub mod generate;
pub mod rescore;
pub mod study;

pub use accuracy::{AccuracyPosition, AccuracyReport, Kept};
pub use generate::{
    load_book, merge, near_best_moves, play_game, run_selfplay, GameDone, OpeningConfig, RunInfo, SelfplayConfig,
    SelfplayError, Shard, ShardError,
};
pub use rescore::{run_rescore, RescoreConfig, RescoreSummary};
pub use study::{run_study, RungConfig, StudyConfig, StudyEvent, StudyRun};
