//! # alq-engine
//!
//! Alquerque under BrainKing's rules (and the classic rule set, [`RuleSet`]):
//! the board, positions, move generation,
//! notation, games with their draw rules, perft, evaluation and search
//! (which can use endgame tables through [`EndgameTables`]).
//!
//! The engine does no file or network IO and cannot fail on a legal
//! position; text from users and files is parsed into typed errors.
//!
//! ```
//! use alq_engine::{perft, Position};
//!
//! let start = Position::start();
//! let mut moves: Vec<String> = start.legal_moves().iter().map(|m| m.to_string()).collect();
//! moves.sort();
//! assert_eq!(moves, ["b2-c3", "c2-c3", "d2-c3", "d3-c3"]);
//! assert_eq!(perft(&start, 5), 27);
//!
//! let pos: Position = "....B/...../...B./..B.B/WB.B. w".parse().unwrap();
//! assert_eq!(pos.legal_moves()[0].to_string(), "a1xc1xe1xe3xc3xc1");
//! ```

mod actions;
mod error;
mod eval;
mod game;
mod key;
mod limits;
mod moves;
mod nn;
mod perft;
mod position;
mod rules;
mod score;
mod search;
mod tables;
mod tt;
mod types;
mod zobrist;

pub use actions::ActionIndex;
pub use error::{KeyProblem, MoveError, PositionError};
pub use eval::{Evaluator, Hce, HceWeights, WeightError, MAX_EVAL};
pub use game::{Game, GameConfig, Outcome, Termination};
pub use key::key_side;
pub use limits::{time_for_move, Limits};
pub use moves::{Move, MoveList, MAX_JUMPS};
pub use nn::{
    default_network, feature, features, fnv1a64, perspective_point, score_logit, vector_instructions, Heads, Layer,
    Network, NetworkError, NnEvaluator, Outputs, DEFAULT_NETWORK, EXACT_OUTPUTS, HEADS_FORMAT_VERSION, INPUTS, MAGIC,
    MAX_POLICY_HINT, POLICY_OUTPUTS, RANK_STEP, SCORE_SCALE,
};
pub use perft::{perft, perft_divide, perft_parallel, perft_paths, perft_with, PerftCount};
pub use position::{Position, START_TEXT};
pub use rules::{Jump, JumpList, RuleSet, Rules, Shift, Variant, BRAINKING, BRAINKING_RULES, CLASSIC, CLASSIC_RULES};
pub use score::{Score, MATE, MATE_BOUND, TB_WIN};
pub use search::{Iteration, SearchConfig, SearchResult, Searcher, MAX_PLY};
pub use tables::{EndgameTables, Exact, Proven, Wdl};
pub use tt::{Bound, TranspositionTable};
pub use types::{Bitboard, BitboardIter, Point, Side};
