//! # alq-report
//!
//! Reports on White's first-move advantage and on the openings, from any
//! number of games files: `summary.json`, `openings.csv`, SVG plots, a
//! self-contained `report.html` and a text `report.md`.
//!
//! Every rate carries a Wilson 95 % interval, and the engine's games are set
//! beside BrainKing's human games with a two-proportion test of White's win
//! rate. Each line of the opening tree has a place for its exact
//! game-theoretic value (`exact_value`), empty until a solver provides it.
//!
//! ```no_run
//! use std::path::PathBuf;
//! let files = alq_report::game_files(&[PathBuf::from("data/selfplay")]).unwrap();
//! let collected = alq_report::collect(&files, 6, |_| {}).unwrap();
//! let report = alq_report::Report::new(&collected, &files, &Default::default());
//! report.write(std::path::Path::new("data/report")).unwrap();
//! ```

mod collect;
mod html;
mod plots;
mod stats;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Serialize;
use thiserror::Error;

pub use collect::{collect, game_files, Collected, Counts, Rates};
pub use stats::{normal_cdf, two_proportion, wilson, Rate, TwoProportion, Z95};

/// BrainKing's human Alquerque games, the reference the engine is set beside.
pub const BRAINKING_GAMES: u64 = 8_426;
pub const BRAINKING_WHITE_WINS: u64 = 4_781;
pub const BRAINKING_BLACK_WINS: u64 = 3_463;
pub const BRAINKING_DRAWS: u64 = 182;
/// Where the reference figures come from.
pub const BRAINKING_SOURCE: &str = "BrainKing.com game statistics for Alquerque (all rated and unrated games on the \
    server): White 4,781 wins, Black 3,463 wins, 182 draws of 8,426 games (56.74 % / 41.09 % / 2.15 %), as quoted \
    in this project's developer guide";

/// Exact values known for opening lines (line -> e.g. `win 23`), from
/// tablebases or a solver; empty until those exist.
pub type ExactValues = BTreeMap<String, String>;

#[derive(Debug, Error)]
pub enum ReportError {
    #[error("{}: {error}", path.display())]
    Io { path: PathBuf, error: std::io::Error },
    #[error("{0}")]
    Plot(String),
}

/// Results of a group of games with their intervals.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Group {
    pub games: u64,
    pub white_wins: u64,
    pub black_wins: u64,
    pub draws: u64,
    pub white_score: f64,
    pub average_plies: f64,
    pub rates: Rates,
}

impl Group {
    pub fn of(c: &Counts) -> Group {
        Group {
            games: c.games,
            white_wins: c.white_wins,
            black_wins: c.black_wins,
            draws: c.draws,
            white_score: c.white_score(),
            average_plies: c.average_plies(),
            rates: c.rates(),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Pairing {
    pub white: String,
    pub black: String,
    #[serde(flatten)]
    pub results: Group,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Line {
    /// Moves from the start, space-separated.
    pub line: String,
    pub plies: usize,
    #[serde(flatten)]
    pub results: Group,
    /// The exact game-theoretic value of the position after the line, when
    /// known (`win P` / `loss P` for the side to move, or `draw`).
    pub exact_value: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Reference {
    pub source: String,
    #[serde(flatten)]
    pub results: Group,
}

/// The whole report; `summary.json` is this, serialised.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Report {
    pub sources: Vec<String>,
    pub games: u64,
    pub white_wins: u64,
    pub black_wins: u64,
    pub draws: u64,
    pub white_score: f64,
    pub rates: Rates,
    pub terminations: BTreeMap<String, u64>,
    pub average_plies: f64,
    /// Games from a position other than the standard start (left out of the
    /// first-move table and the opening tree).
    pub other_starts: u64,
    pub pairings: Vec<Pairing>,
    pub brainking: Reference,
    /// Engine minus BrainKing in White's win rate, two-proportion z-test.
    pub white_win_rate_vs_brainking: Option<TwoProportion>,
    pub first_moves: Vec<Line>,
    pub tree_depth: usize,
    #[serde(skip)]
    pub tree: Vec<Line>,
    #[serde(skip)]
    pub lengths: Vec<(u64, u64)>,
}

impl Report {
    pub fn new(c: &Collected, files: &[PathBuf], exact: &ExactValues) -> Report {
        let reference = Counts {
            games: BRAINKING_GAMES,
            white_wins: BRAINKING_WHITE_WINS,
            black_wins: BRAINKING_BLACK_WINS,
            draws: BRAINKING_DRAWS,
            plies: 0,
        };
        let line = |l: &str, counts: &Counts| Line {
            line: l.to_string(),
            plies: l.split(' ').count(),
            results: Group::of(counts),
            exact_value: exact.get(l).cloned(),
        };
        Report {
            sources: files.iter().map(|f| f.display().to_string()).collect(),
            games: c.total.games,
            white_wins: c.total.white_wins,
            black_wins: c.total.black_wins,
            draws: c.total.draws,
            white_score: c.total.white_score(),
            rates: c.total.rates(),
            terminations: c.terminations.clone(),
            average_plies: c.total.average_plies(),
            other_starts: c.other_starts,
            pairings: c
                .pairings
                .iter()
                .map(|((w, b), counts)| Pairing { white: w.clone(), black: b.clone(), results: Group::of(counts) })
                .collect(),
            brainking: Reference { source: BRAINKING_SOURCE.to_string(), results: Group::of(&reference) },
            white_win_rate_vs_brainking: two_proportion(
                c.total.white_wins,
                c.total.games,
                BRAINKING_WHITE_WINS,
                BRAINKING_GAMES,
            ),
            first_moves: c.first_moves().iter().map(|(l, counts)| line(l, counts)).collect(),
            tree_depth: c.tree_depth,
            tree: c.tree.iter().map(|(l, counts)| line(l, counts)).collect(),
            lengths: c.lengths.iter().map(|(&k, &v)| (k, v)).collect(),
        }
    }

    /// All games as one group.
    pub fn overall(&self) -> Group {
        Group {
            games: self.games,
            white_wins: self.white_wins,
            black_wins: self.black_wins,
            draws: self.draws,
            white_score: self.white_score,
            average_plies: self.average_plies,
            rates: self.rates,
        }
    }

    /// `openings.csv`: one row per line of the tree, parents before children.
    pub fn openings_csv(&self) -> String {
        let mut out = String::from(
            "line,plies,games,white_wins,black_wins,draws,white_score,white_score_lo,white_score_hi,exact_value\n",
        );
        for l in &self.tree {
            let r = &l.results;
            out += &format!(
                "{},{},{},{},{},{},{:.4},{:.4},{:.4},{}\n",
                l.line,
                l.plies,
                r.games,
                r.white_wins,
                r.black_wins,
                r.draws,
                r.white_score,
                r.rates.white_score.ci95[0],
                r.rates.white_score.ci95[1],
                l.exact_value.as_deref().unwrap_or("")
            );
        }
        out
    }

    /// The three plots as (file name, SVG text).
    pub fn plots(&self) -> Result<Vec<(&'static str, String)>, ReportError> {
        let pairing_points: Vec<plots::Point95> = self
            .pairings
            .iter()
            .enumerate()
            .map(|(i, p)| plots::Point95 {
                label: format!("P{}", i + 1),
                value: p.results.white_score,
                lo: p.results.rates.white_score.ci95[0],
                hi: p.results.rates.white_score.ci95[1],
            })
            .collect();
        let human = self.brainking.results.white_score;
        let by_pairing = plots::intervals(
            "White's score by pairing",
            "pairing (see the table)",
            "White's score",
            &pairing_points,
            Some((human, "BrainKing humans")),
        )
        .map_err(ReportError::Plot)?;
        let move_points: Vec<plots::Point95> = self
            .first_moves
            .iter()
            .map(|l| plots::Point95 {
                label: l.line.clone(),
                value: l.results.white_score,
                lo: l.results.rates.white_score.ci95[0],
                hi: l.results.rates.white_score.ci95[1],
            })
            .collect();
        let by_move = plots::intervals(
            "White's score by first move",
            "White's first move",
            "White's score",
            &move_points,
            Some((self.white_score, "all games")),
        )
        .map_err(ReportError::Plot)?;
        let max_len = self.lengths.last().map_or(0, |l| l.0);
        let lengths = plots::lengths("Game length", &self.lengths, (max_len / 40).max(1)).map_err(ReportError::Plot)?;
        Ok(vec![("white_score_by_pairing.svg", by_pairing), ("first_moves.svg", by_move), ("game_length.svg", lengths)])
    }

    /// Writes `summary.json`, `openings.csv`, the SVG plots, `report.html`
    /// and `report.md` into `dir`, each atomically.
    pub fn write(&self, dir: &Path) -> Result<(), ReportError> {
        let put = |name: &str, text: &str| {
            let path = dir.join(name);
            alq_records::write_atomic(&path, text.as_bytes()).map_err(|error| ReportError::Io { path, error })
        };
        std::fs::create_dir_all(dir).map_err(|error| ReportError::Io { path: dir.to_path_buf(), error })?;
        let json = serde_json::to_string_pretty(self).expect("the report serialises") + "\n";
        put("summary.json", &json)?;
        put("openings.csv", &self.openings_csv())?;
        let plots = self.plots()?;
        for (name, svg) in &plots {
            put(name, svg)?;
        }
        put("report.html", &html::page(self, &plots))?;
        put("report.md", &html::markdown(self))?;
        Ok(())
    }
}
