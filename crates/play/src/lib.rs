//! # alq-play
//!
//! Everything about playing games between players: players described by
//! text specs (searchers, baselines, external engines), the engine protocol
//! that serves a searcher to other programs, opening sets and the shipped
//! balanced book, and matches between two players with Elo, pentanomial
//! statistics and SPRT (the statistics live in alq-stats).
//!
//! ```no_run
//! use alq_engine::{GameConfig, Limits};
//! use alq_play::{run_match, MatchConfig, OpeningSource, PlayerSpec};
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

mod choice;
pub mod external;
pub mod grade;
pub mod matches;
pub mod openings;
pub mod perfect;
pub mod players;
pub mod protocol;

pub use choice::Choice;
pub use external::{EngineProcess, Forfeit};
pub use grade::{
    grade_game, grade_game_by, GradeError, GradeReport, GradedGame, GradedMove, Phase, PlayerGrades, ValueCache,
    Values, Verdict,
};
pub use matches::{
    check_games, game_seed, run_match, run_match_with_games, MatchConfig, MatchError, MatchReport, OpeningSource,
    Progress,
};
pub use openings::Opening;
pub use players::{
    Clock, EvalSpec, Player, PlayerKind, PlayerSpec, SetupError, SpecError, TablesSpec, TimeControl,
    ENGINE_MOVE_TIMEOUT,
};
pub use protocol::{bestmove_line, info_line, serve};

/// The balanced opening book shipped with the program
/// (`configs/balanced-10.csv`, embedded): the 3,346 positions 10 plies deep
/// that the handcrafted search at 20,000 nodes scores within ±60 cp, made
/// with `alq openings --depth 10 --nodes 20000 --eval hce --balanced 60`.
/// The pipeline's gate and evaluation matches play from it by default.
pub const BALANCED_BOOK: &str = include_str!("../../../configs/balanced-10.csv");

/// The unbalanced opening book shipped with the program
/// (`configs/unbalanced-10.csv`, embedded): the 4,915 positions 10 plies
/// deep where one side is ahead by 80 to 160 cp by the handcrafted search at
/// 20,000 nodes (`alq openings --depth 10 --nodes 20000 --eval hce
/// --unbalanced 80,160`). Strong players draw most games from balanced
/// openings; from these the shipped network against itself at 2,000 nodes
/// draws about 60 %, so differences in strength still show. Pipeline stages
/// play from it with `book = "unbalanced"`.
pub const UNBALANCED_BOOK: &str = include_str!("../../../configs/unbalanced-10.csv");

/// A shipped book by name (`balanced` or `unbalanced`), or none.
pub fn shipped_book(name: &str) -> Option<&'static str> {
    match name {
        "balanced" => Some(BALANCED_BOOK),
        "unbalanced" => Some(UNBALANCED_BOOK),
        _ => None,
    }
}
