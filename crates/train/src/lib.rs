//! # alq-train
//!
//! Fits the value network on self-play records with burn (the only crate of
//! the workspace that uses it) and exports it to the engine's network format.
//! The default backend is burn's pure-Rust `flex` CPU backend; the `cuda` and
//! `wgpu` features of this crate add GPU backends for users who have one.
//!
//! ```no_run
//! use alq_train::{train, TrainConfig};
//! let files = vec![std::path::PathBuf::from("data/selfplay/games.csv")];
//! let summary = train(&TrainConfig::default(), &files, std::path::Path::new("data/train"), false, |_| {}).unwrap();
//! println!("best validation loss {:.4}", summary.best_validation_loss);
//! ```

mod config;
mod data;
mod error;
mod labels;
mod model;
mod train;
mod widen;

pub use alq_records::{exact_target, is_validation, score_target, target};
pub use config::TrainConfig;
pub use data::{count, for_each_batch, policy_target, Batch, Counts, Part, PolicyTarget};
pub use error::TrainError;
pub use labels::Labels;
pub use model::{HeadOutputs, ValueNet};
pub use train::{initial_network, train, training_device, EpochMetrics, Event, InitialNetwork, TrainSummary};
pub use widen::widen;
