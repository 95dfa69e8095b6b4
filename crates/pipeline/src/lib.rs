//! # alq-pipeline
//!
//! Generations of self-play, training and gating, as a library: the
//! orchestration that `alq pipeline` runs, with its progress reported through
//! a callback so that the stages can be driven and tested without the binary.
//!
//! Generation 0 plays with the handcrafted evaluator. Each later generation
//! trains a candidate network on the games of the last `replay_window`
//! generations, gates it against the current best player with an SPRT match
//! at equal nodes over paired openings, promotes it if the SPRT accepts,
//! measures it against generation 0 (the handcrafted player), and plays its
//! own games with the best player; optionally the best player is measured
//! from the standard start, on endgames and against perfect play. Every stage's output is written
//! atomically or resumably, so an interrupted run continues where it stopped.
//!
//! The modules, by job: `config` (the settings and their checks), `prepare`
//! (what is refused before any game, and the run folder), `seeds` (every
//! seed of a run, from one function), one module per stage (`train`,
//! `matches` for the gate and the anchors, `selfplay` with rescoring, `label`,
//! `start`, `accuracy`, `errors`, `report`), `summary` (the rows; `alq_report`
//! renders them), `run` (the driver) and `error`, `event`, `files`.

mod accuracy;
mod config;
mod error;
mod errors;
mod event;
mod files;
mod label;
mod matches;
mod prepare;
mod report;
mod run;
mod seeds;
mod selfplay;
mod start;
mod summary;
mod train;

pub use alq_report::pipeline::{AnchorElo, ErrorRow, ErrorsResult, StartResult};
pub use config::{AccuracyStage, ErrorsStage, LabelStage, MatchStage, PipelineConfig, RescoreStage, StartStage};
pub use error::{AccuracyError, PipelineError, StartNetworkError};
pub use event::{PipelineEvent, Stage};
pub use files::gen_dir;
pub use run::{run_pipeline, PipelineOutcome};
pub use seeds::{seed, SeedUse};
pub use summary::GenerationSummary;
