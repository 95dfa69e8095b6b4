//! # alq-selfplay
//!
//! Players (searchers and baselines) described by text specs, opening sets,
//! and matches between two players with Elo, pentanomial statistics and SPRT
//! (the statistics live in alq-stats).
//!
//! ```no_run
//! use alq_engine::{GameConfig, Limits};
//! use alq_selfplay::{run_match, MatchConfig, OpeningSource, PlayerSpec};
//!
//! let config = MatchConfig {
//!     a: PlayerSpec::parse("hce@nodes=2000", Limits::default()).unwrap(),
//!     b: PlayerSpec::parse("greedy", Limits::default()).unwrap(),
//!     games: 200,
//!     openings: OpeningSource::AllAfter(8),
//!     seed: 1,
//!     sprt: None,
//!     game: GameConfig::default(),
//!     clock: None,
//!     time_margin: std::time::Duration::from_millis(500),
//! };
//! let report = run_match(&config, |_| {}).unwrap();
//! println!("{:+.0} Elo", report.elo);
//! ```

pub mod accuracy;
pub mod book;
pub mod external;
pub mod generate;
pub mod matches;
pub mod openings;
pub mod players;
pub mod rescore;
pub mod study;

pub use accuracy::{AccuracyPosition, AccuracyReport, Kept};
pub use external::EngineProcess;
pub use generate::{
    load_book, merge, near_best_moves, play_game, run_selfplay, GameDone, OpeningConfig, RunInfo, SelfplayConfig,
    SelfplayError, Shard,
};
pub use matches::{
    check_games, game_seed, run_match, run_match_with_games, MatchConfig, MatchError, MatchReport, OpeningSource,
    Progress,
};
pub use openings::Opening;
pub use players::{
    Choice, Clock, EvalSpec, Player, PlayerKind, PlayerSpec, SpecError, TablesSpec, TimeControl, ENGINE_MOVE_TIMEOUT,
};
pub use rescore::{run_rescore, RescoreConfig, RescoreSummary};
pub use study::{run_study, RungConfig, StudyConfig, StudyEvent, StudyRun};

/// The balanced opening book shipped with the program
/// (`configs/balanced-10.csv`, embedded): the 3,346 positions 10 plies deep
/// that the handcrafted search at 20,000 nodes scores within ±60 cp, made
/// with `alq openings --depth 10 --nodes 20000 --eval hce --balanced 60`.
/// The pipeline's gate and evaluation matches play from it by default.
pub const BALANCED_BOOK: &str = include_str!("../../../configs/balanced-10.csv");

/// The network shipped with the program (trained by `alq pipeline` with
/// `configs/full.toml`), embedded at compile time.
pub const DEFAULT_NETWORK: &[u8] = include_bytes!("../../../data/networks/default.alqnet");

/// The shipped network, read once.
pub fn default_network() -> Result<std::sync::Arc<alq_engine::Network>, alq_engine::NetworkError> {
    static NET: std::sync::OnceLock<Result<std::sync::Arc<alq_engine::Network>, alq_engine::NetworkError>> =
        std::sync::OnceLock::new();
    NET.get_or_init(|| alq_engine::Network::from_bytes(DEFAULT_NETWORK).map(std::sync::Arc::new)).clone()
}
