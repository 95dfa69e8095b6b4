//! # alq-tablebase
//!
//! Endgame tablebases for Alquerque under a rule set (BrainKing's, or the
//! classic one; every file names it): for every
//! position with at most N pieces, win, loss or draw with perfect play and
//! the distance to the end in plies (the end: the side to move has no legal
//! move). Repetition and no-progress adjudications are not part of the
//! values, as chess tablebases ignore the fifty-move rule: a draw here means
//! that neither side can force the end.
//!
//! ```
//! use alq_tablebase::{build, BuildOptions, Tablebase, Exact};
//!
//! // data/ is git-ignored; tests write nothing outside the repository.
//! let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/tb-doctest");
//! build(&dir, &BuildOptions { pieces: 3, shard: None, rules: alq_engine::RuleSet::BrainKing, kind: alq_tablebase::Kind::Distance }, &mut |_| {}).unwrap();
//! let tb = Tablebase::open(&dir).unwrap();
//! // White's only piece steps on; then Black, without pieces, has no move.
//! let pos = "...../...../...../...../..W.. w".parse().unwrap();
//! assert_eq!(tb.probe(&pos).unwrap(), Exact::Win(1));
//! assert_eq!(tb.probe_moves(&pos).unwrap().len(), 5);
//! std::fs::remove_dir_all(&dir).unwrap();
//! ```

mod build;
mod check;
mod dtz;
mod dtz_cycles;
mod error;
mod format;
mod index;
mod probe;
mod slices;
mod solve;
mod value;

pub use build::{
    build, build_dtz_with_limit, build_with, estimate, nanos_per_entry, units, BuildOptions, Event, LevelEstimate,
    Outcome, Shard, Solver, Unit,
};
pub use check::{class_stats, compare_wdl, verify, verify_resuming, ClassStats, VerifyEvent};
pub use error::TbError;
pub use format::{
    checksum, folder_rules, pack_wdl, read_table, read_table_of, remove_stale_temporaries, table_layout, table_path,
    table_path_of, write_table, Checksum, DiskTable, Layout, Table, TableView, FORMAT_VERSION, HEADER_LEN, MAGIC,
};
pub use index::{
    binom, canonical, denormalize, index, index_in, mirror, normalize, position_at, position_in, rotate, Material,
    Scheme,
};
pub use probe::{Source, Tablebase};
pub use solve::Phase;
pub use value::{
    value_from_byte, value_to_byte, wdl_code, wdl_from_code, Dtz, Exact, Kind, Wdl, MAX_DISTANCE, NO_PROGRESS_PLIES,
};
