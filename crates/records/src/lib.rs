//! # alq-records
//!
//! Game records: one CSV file of games, one game per row, with a header row,
//! readable by pandas or a spreadsheet. **Format version 3**; the columns, in
//! order:
//!
//! | column | meaning |
//! |---|---|
//! | `id` | game index in its run (0-based); shards of a run share one id space |
//! | `seed` | the game's own seed (derived from the run seed and `id`) |
//! | `rules` | the rule set: `brainking` or `classic` (the game replays under it) |
//! | `start` | start position text; empty means the standard start |
//! | `white`, `black` | player descriptions: evaluator, network hash, limits (e.g. `hce@nodes=1000`) |
//! | `result` | `1-0`, `0-1` or `1/2-1/2` |
//! | `termination` | `no_moves`, `repetition`, `no_progress` or `max_plies`; or `forfeit`: the side to move in the last position (the loser by `result`) forfeited in a match: its engine crashed, ran out of time, or sent an illegal or malformed move; the game is not over by the rules |
//! | `plies` | number of moves |
//! | `opening_plies` | how many of the first moves were not chosen by the players' own search: book, random, softmax-sampled or near-best-sampled plies |
//! | `opening` | how those plies were chosen, space-separated parts in order: `book:K`, `random:K`, `softmax:K@T` (temperature T cp), `near_best:K@CP` (uniform among moves within CP centipawns of the best); empty when every move was the players' own (format 2) |
//! | `moves` | the moves from the start, canonical notation, space-separated |
//! | `scores` | the searcher's score for each move, mover's view, space-separated: centipawns (`35`), `w12` (win in 12 plies), `l7` (loss in 7), `d` (a draw proven by endgame tables, format 3); an empty entry for a move not chosen by search |
//! | `tb_ply` | games played with endgame tables: the ply at which the game first reached a position the tables cover (0: the start position); empty otherwise (format 3) |
//! | `tb_value` | the exact value of that position from **White's** view: `win D`, `loss D` (D plies from that position to the end with perfect play) or `draw`; empty when `tb_ply` is (format 3) |
//! | `fallback_plies` | the plies (1: the first move) whose moves a perfect player chose by search because the oracle knew no value within its budget, space-separated; empty for other players and when there were none (format 4) |
//! | `no_progress` | the no-progress limit the game was played with (empty: off) |
//! | `max_plies` | the ply cap the game was played with (empty: none) |
//! | `format` | the format version, `4` (files of versions 1 to 3 are still read: version 1 lacks `opening`, whose plies then count as of unknown kind; versions 1 and 2 lack `tb_ply` and `tb_value`; versions 1 to 3 lack `fallback_plies`). Appending to a file of an older format is refused |
//!
//! Reading replays every game: an illegal move, a result that does not
//! follow from the final position, or a malformed row is an error naming
//! the file, the line and the problem.
//!
//! ```
//! use alq_engine::{Game, GameConfig, Position};
//! use alq_records::GameRecord;
//!
//! let mut game = Game::new(Position::start(), GameConfig { no_progress_limit: Some(60), max_plies: Some(2), ..GameConfig::default() });
//! game.play_text("d3-c3").unwrap();
//! game.play_text("b3xd3").unwrap();
//! let record = GameRecord::from_game(0, 42, "random", "random", &game, 2, &[None, None]);
//! assert_eq!(record.result, "1/2-1/2");
//! assert_eq!(record.termination, "max_plies");
//! let replayed = record.replay().unwrap();
//! assert_eq!(replayed.game.plies(), 2);
//! ```

mod io;
mod record;
mod run;
mod samples;
mod stats;

pub use io::{
    read_all, replay_row, truncate_partial_row, write_atomic, write_records_atomic, RecordError, RecordReader,
    RecordWriter, COLUMNS,
};
pub use record::{
    format_opening, format_score, parse_score, GameError, GameRecord, OpeningPart, ReplayedGame, FORFEIT,
    FORMAT_VERSION,
};
pub use run::{resume_run, ConfigError, RunError, RunKind, StudyRun};
pub use samples::{
    blend, exact_target, is_validation, sampled_positions, score_target, target, wdl_target, Sample, SampleOptions,
    Samples,
};
pub use stats::RecordStats;
