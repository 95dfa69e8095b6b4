//! # alq-explorer
//!
//! The opening explorer behind `alq serve`: [`index::Index`] counts, for
//! every position the games reached, the games through it and the games of
//! each move played there (with White's wins, draws and Black's wins);
//! [`api::Explorer`] answers queries from the index, the endgame tables,
//! proofs, an opening book, the engine and the oracle ([`settle`]: exact
//! values of any position, settled in the background); [`server`] serves
//! one page and the JSON API over HTTP (tiny_http).
//!
//! The API (all `GET`, JSON, errors as `{"error": "..."}` with a 4xx status):
//!
//! - `/api/explorer?moves=c2-c3+c4xc2` (or `?position=TEXT`): the position,
//!   its totals and one entry per move played from it or with a known value;
//!   `exact_pending` (a count at the top, a flag per move) marks values the
//!   oracle is still settling: ask again for them;
//! - `/api/eval?moves=…[&depth=D]`: the engine's iterations as server-sent
//!   events, then `event: bestmove`;
//! - `/api/tablebase?moves=…`: the tables' value and per-move values.

pub mod api;
pub mod index;
pub mod server;
pub mod settle;

pub use api::{ApiError, Explorer, Known};
pub use index::{Counts, Index, IndexStats};
pub use server::{start, Running, PAGE};
pub use settle::Settler;
