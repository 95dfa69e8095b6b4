//! # alq-report
//!
//! Reports on White's first-move advantage and on the openings, from any
//! number of games files: `summary.json`, `openings.csv`, SVG plots, a
//! self-contained `report.html` and a text `report.md`.
//!
//! Games are kept in two kinds that are never mixed: games from the
//! standard start whose every move the players chose (the first moves
//! possibly drawn among near-best moves by search), which alone speak of
//! White's advantage and are set beside BrainKing's human games, labelled
//! with the players' strength; and games from randomised openings, which
//! are training data. Win, draw and loss rates carry Wilson 95 % intervals;
//! White's score carries an interval that handles draws
//! ([`score_interval`]). Games stopped by the ply cap are unfinished, never
//! draws. The opening tree counts real choices: forced plies are folded
//! into the choice before them. Each line has a place for its exact
//! game-theoretic value (`exact_value`), empty until a solver provides it.
//! The pipeline's summary (`summary.md`, `elo.svg`) is rendered here too
//! ([`pipeline`]), from plain rows.
//!
//! ```no_run
//! use std::path::PathBuf;
//! let files = alq_report::game_files(&[PathBuf::from("data/selfplay")]).unwrap();
//! let collected = alq_report::collect(&files, alq_engine::RuleSet::BrainKing, 6, |_| {}).unwrap();
//! let report = alq_report::Report::new(&collected, &files, &Default::default());
//! report.write(std::path::Path::new("data/report")).unwrap();
//! ```

mod atlas;
mod collect;
mod exact;
mod html;
pub mod pipeline;
pub mod plots;
pub mod study;
mod write;

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};
use thiserror::Error;

pub use alq_stats::{
    difference, normal_cdf, score_interval, two_proportion, wilson, Difference, Rate, TwoProportion, Z95,
};
pub use atlas::{AtlasPly, AtlasSummary, AtlasTraps};
pub use collect::{collect, game_files, Collected, Counts, Rates, Section, TableEntries, TreeNode};
pub use exact::{exact_from_book, exact_from_lines, exact_from_tables};
pub use study::{ProvenLine, RungErrors, StudyRung, StudySummary, GRADES_FILE};

/// BrainKing's human Alquerque games, the reference the engine is set beside.
pub const BRAINKING_GAMES: u64 = 8_426;
pub const BRAINKING_WHITE_WINS: u64 = 4_781;
pub const BRAINKING_BLACK_WINS: u64 = 3_463;
pub const BRAINKING_DRAWS: u64 = 182;
/// Where the reference figures come from.
pub const BRAINKING_SOURCE: &str = "BrainKing.com, the game statistics page of Alquerque (brainking.com; all \
    games played on the server): White 4,781 wins, Black 3,463 wins, 182 draws of 8,426 games (56.74 % / 41.09 % / \
    2.15 %)";

/// Exact values known for opening lines (line -> e.g. `win 23`), from
/// tablebases or a solver; empty until those exist.
pub type ExactValues = BTreeMap<String, String>;

#[derive(Debug, Error)]
pub enum ReportError {
    #[error("{}: {error}", path.display())]
    Io { path: PathBuf, error: std::io::Error },
    #[error(transparent)]
    Plot(#[from] plots::PlotError),
    #[error("{0}")]
    Invalid(String),
}

/// Results of a group of games with their intervals.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Group {
    pub games: u64,
    pub white_wins: u64,
    pub black_wins: u64,
    /// Draws by the rules.
    pub draws: u64,
    /// Games stopped by the ply cap, not draws by the rules.
    pub unfinished: u64,
    /// White's points over the finished games.
    pub white_score: f64,
    pub average_plies: f64,
    pub rates: Rates,
}

impl Group {
    /// White's score and its interval: `0.512 [0.480, 0.544]`.
    pub fn score_text(&self) -> String {
        let ci = self.rates.white_score.ci95;
        format!("{:.3} [{:.3}, {:.3}]", self.white_score, ci[0], ci[1])
    }

    pub fn of(c: &Counts) -> Group {
        Group {
            games: c.games,
            white_wins: c.white_wins,
            black_wins: c.black_wins,
            draws: c.draws,
            unfinished: c.unfinished,
            white_score: c.white_score(),
            average_plies: c.average_plies(),
            rates: c.rates(),
        }
    }
}

/// Games played with endgame tables that reached them: how many entered the
/// tables won, drawn and lost for White, how each kind ended, and White's
/// score had every endgame been played perfectly (the tables' value in
/// place of the result for games that reached them).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TableSummary {
    pub entered: u64,
    pub entered_won: Group,
    pub entered_drawn: Group,
    pub entered_lost: Group,
    pub perfect: Group,
}

impl TableSummary {
    pub fn of(t: &crate::collect::TableEntries) -> TableSummary {
        TableSummary {
            entered: t.entered(),
            entered_won: Group::of(&t.won),
            entered_drawn: Group::of(&t.drawn),
            entered_lost: Group::of(&t.lost),
            perfect: Group::of(&t.perfect),
        }
    }

    /// One kind of entry and how those games ended: `12 (W 11, D 1, B 0)`.
    pub fn kind_text(g: &Group) -> String {
        let unfinished = if g.unfinished > 0 { format!(", unfinished {}", g.unfinished) } else { String::new() };
        format!("{} (W {}, D {}, B {}{unfinished})", g.games, g.white_wins, g.draws, g.black_wins)
    }

    /// The cells of a Markdown row: entered, won, drawn, lost (with their
    /// ends), White's score with perfect endgames.
    pub fn markdown_cells(&self) -> String {
        format!(
            "{} | {} | {} | {} | {}",
            self.entered,
            Self::kind_text(&self.entered_won),
            Self::kind_text(&self.entered_drawn),
            Self::kind_text(&self.entered_lost),
            self.perfect.score_text()
        )
    }

    /// The Markdown header matching [`TableSummary::markdown_cells`].
    pub const MARKDOWN_HEAD: &'static str = "entered the tables | entered won for White (ended W, D, B) | entered drawn (ended W, D, B) | entered lost for White (ended W, D, B) | White's score with perfect endgames (95 %)";
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Pairing {
    pub white: String,
    pub black: String,
    #[serde(flatten)]
    pub results: Group,
    /// Games that reached the endgame tables (pairings played with tables).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tables: Option<TableSummary>,
}

impl Pairing {
    /// `X against itself` or `X (White) against Y (Black)`.
    pub fn label(&self) -> String {
        if self.white == self.black {
            format!("{} against itself", self.white)
        } else {
            format!("{} (White) against {} (Black)", self.white, self.black)
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Line {
    /// Moves from the start, space-separated.
    pub line: String,
    /// Real choices in the line: its depth in the tree. Forced plies
    /// (positions with one legal move) are folded into the choice before them.
    pub decisions: usize,
    pub plies: usize,
    /// Forced plies in the line.
    pub forced: usize,
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

/// White's first move in the games of one pairing from the standard start.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FirstMove {
    pub white: String,
    pub black: String,
    pub first_move: String,
    /// Share of the pairing's games that began with it.
    pub share: f64,
    #[serde(flatten)]
    pub results: Group,
    pub exact_value: Option<String>,
    /// Games after this move that reached the endgame tables.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tables: Option<TableSummary>,
}

/// One kind of games: totals, terminations and pairings.
///
/// The totals pool every pairing, so they are written as counts only: a
/// White's score over players of different strengths would mean nothing
/// (White's score, with its interval, is per pairing).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SectionReport {
    #[serde(serialize_with = "counts_only", rename = "totals")]
    pub results: Group,
    pub terminations: BTreeMap<String, u64>,
    /// Games whose first moves were drawn among near-best moves.
    pub near_best_games: u64,
    /// Games from a position other than the standard start.
    pub other_starts: u64,
    pub pairings: Vec<Pairing>,
}

/// A pooled group as counts: games, results and average length, no score.
fn counts_only<S: serde::Serializer>(g: &Group, s: S) -> Result<S::Ok, S::Error> {
    use serde::ser::SerializeStruct;
    let mut st = s.serialize_struct("Totals", 6)?;
    st.serialize_field("games", &g.games)?;
    st.serialize_field("white_wins", &g.white_wins)?;
    st.serialize_field("black_wins", &g.black_wins)?;
    st.serialize_field("draws", &g.draws)?;
    st.serialize_field("unfinished", &g.unfinished)?;
    st.serialize_field("average_plies", &g.average_plies)?;
    st.end()
}

impl SectionReport {
    fn of(s: &Section) -> SectionReport {
        SectionReport {
            results: Group::of(&s.total),
            terminations: s.terminations.clone(),
            near_best_games: s.near_best,
            other_starts: s.other_starts,
            pairings: s
                .pairings
                .iter()
                .map(|((w, b), counts)| Pairing {
                    white: w.clone(),
                    black: b.clone(),
                    results: Group::of(counts),
                    tables: s.tables_by_pairing.get(&(w.clone(), b.clone())).map(TableSummary::of),
                })
                .collect(),
        }
    }
}

/// BrainKing's human games against the engine's games of one named
/// strength (a pairing from the standard start).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Comparison {
    /// The engine's games compared: `X against itself`, etc.
    pub engine: String,
    pub engine_games: u64,
    pub engine_white_score: Rate,
    pub human_white_score: Rate,
    /// Engine minus humans in White's score, with its 95 % interval.
    pub white_score_difference: Difference,
    /// Engine minus humans in White's win rate, with its 95 % interval.
    pub white_win_difference: Difference,
}

/// The whole report; `summary.json` is this, serialised.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Report {
    pub sources: Vec<String>,
    pub games: u64,
    /// The answer in one sentence.
    pub headline: String,
    /// Games from the standard start whose every move the players chose
    /// (the first moves possibly drawn among near-best moves by search):
    /// the only games that speak of White's advantage.
    pub from_start: SectionReport,
    /// Games with random, softmax-sampled or book openings, or from other
    /// positions: training data, never compared with humans.
    pub randomised: SectionReport,
    pub brainking: Reference,
    /// One row per pairing of `from_start`.
    pub human_comparison: Vec<Comparison>,
    /// White's first moves in `from_start` games, per pairing (pairings in
    /// table order, then most played first).
    pub first_moves: Vec<FirstMove>,
    pub tree_depth: usize,
    /// Which games the opening tree counts: `from_start`, or `randomised`
    /// when the report has no games from the start.
    pub tree_games: String,
    /// The strength ladder, when a study folder was given.
    pub study: Option<StudySummary>,
    /// The exact opening atlas, when the caller's stores know it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub atlas: Option<AtlasSummary>,
    #[serde(skip)]
    pub tree: Vec<Line>,
    #[serde(skip)]
    pub lengths: Vec<(u64, u64)>,
    /// The opening explorer's address (`alq serve`), when given: the page
    /// links each first move to it.
    #[serde(skip)]
    pub explorer: Option<String>,
}

/// The human reference as counts.
pub fn brainking_counts() -> Counts {
    Counts {
        games: BRAINKING_GAMES,
        white_wins: BRAINKING_WHITE_WINS,
        black_wins: BRAINKING_BLACK_WINS,
        draws: BRAINKING_DRAWS,
        unfinished: 0,
        plies: 0,
    }
}

impl Report {
    pub fn new(c: &Collected, files: &[PathBuf], exact: &ExactValues) -> Report {
        let human = brainking_counts();
        let human_rates = human.rates();
        let line = |l: &str, node: &TreeNode| Line {
            line: l.to_string(),
            decisions: node.decisions,
            plies: l.split(' ').count(),
            forced: node.forced,
            results: Group::of(&node.counts),
            exact_value: exact.get(l).cloned(),
        };
        let from_start = SectionReport::of(&c.searched);
        let randomised = SectionReport::of(&c.randomised);
        let human_comparison = from_start
            .pairings
            .iter()
            .map(|p| Comparison {
                engine: p.label(),
                engine_games: p.results.games,
                engine_white_score: p.results.rates.white_score,
                human_white_score: human_rates.white_score,
                white_score_difference: difference(p.results.rates.white_score, human_rates.white_score),
                white_win_difference: difference(p.results.rates.white_win, human_rates.white_win),
            })
            .collect();
        let tree_section = if c.searched.total.games > 0 { &c.searched } else { &c.randomised };
        let mut first_moves: Vec<FirstMove> = c
            .searched
            .first_moves_by_pairing
            .iter()
            .map(|((white, black, mv), counts)| FirstMove {
                white: white.clone(),
                black: black.clone(),
                first_move: mv.clone(),
                share: counts.games as f64
                    / c.searched.pairings.get(&(white.clone(), black.clone())).map_or(1, |p| p.games.max(1)) as f64,
                results: Group::of(counts),
                exact_value: exact.get(mv).cloned(),
                tables: c
                    .searched
                    .tables_by_first_move
                    .get(&(white.clone(), black.clone(), mv.clone()))
                    .map(TableSummary::of),
            })
            .collect();
        first_moves.sort_by(|a, b| {
            (&a.white, &a.black)
                .cmp(&(&b.white, &b.black))
                .then(b.results.games.cmp(&a.results.games))
                .then(a.first_move.cmp(&b.first_move))
        });
        let mut report = Report {
            sources: files.iter().map(|f| f.display().to_string()).collect(),
            games: c.games(),
            headline: String::new(),
            from_start,
            randomised,
            brainking: Reference { source: BRAINKING_SOURCE.to_string(), results: Group::of(&human) },
            human_comparison,
            first_moves,
            tree_depth: c.tree_depth,
            tree_games: if c.searched.total.games > 0 { "from_start" } else { "randomised" }.to_string(),
            study: None,
            atlas: None,
            tree: tree_section.tree.iter().map(|(l, node)| line(l, node)).collect(),
            lengths: c.searched.lengths.iter().map(|(&k, &v)| (k, v)).collect(),
            explorer: None,
        };
        report.headline = report.make_headline();
        report
    }

    /// The same report linking its first moves to the explorer at `url`
    /// (e.g. `http://127.0.0.1:8080/`).
    pub fn with_explorer(mut self, url: &str) -> Report {
        self.explorer = Some(url.to_string());
        self
    }

    /// The same report with the exact opening atlas's section.
    pub fn with_atlas(mut self, atlas: AtlasSummary) -> Report {
        self.atlas = Some(atlas);
        self
    }

    /// The same report with a study's strength curve (and a headline from
    /// its strongest rung).
    pub fn with_study(mut self, study: StudySummary) -> Report {
        self.study = Some(study);
        self.headline = self.make_headline();
        self
    }

    fn make_headline(&self) -> String {
        let s = &self.from_start;
        let g = &s.results;
        if g.games == 0 {
            return format!(
                "No game in this report was played from the standard start with every move chosen by the players, so it \
                 cannot say how big White's first-move advantage is; its {} game(s) from randomised openings are \
                 summarised as training data.",
                self.randomised.results.games
            );
        }
        let describe = |who: &str, g: &Group| {
            let unfinished = if g.unfinished > 0 {
                format!("; {} unfinished (ply cap) not counted", g.unfinished)
            } else {
                String::new()
            };
            format!(
                "with {who}, White scored {:.3} (95 % interval {:.3} to {:.3}) in {} finished game(s): {} White wins, {} \
                 draws, {} Black wins{unfinished}",
                g.white_score,
                g.rates.white_score.ci95[0],
                g.rates.white_score.ci95[1],
                g.games - g.unfinished,
                g.white_wins,
                g.draws,
                g.black_wins
            )
        };
        if let Some(top) = self.study.as_ref().and_then(|st| st.rungs.last()) {
            return format!(
                "From the standard start, {} (the strongest rung of the study; the curve below shows every strength).",
                describe(&format!("{} against itself", top.player), &top.results)
            );
        }
        match s.pairings.as_slice() {
            [p] => format!("From the standard start, {}.", describe(&p.label(), &p.results)),
            ps => {
                let by_score = |a: &&Pairing, b: &&Pairing| a.results.white_score.total_cmp(&b.results.white_score);
                let finished = || ps.iter().filter(|p| p.results.games > p.results.unfinished);
                let (lo, hi) = (finished().min_by(by_score), finished().max_by(by_score));
                match (lo, hi) {
                    (Some(lo), Some(hi)) => format!(
                        "From the standard start, White's score depends on who plays: from {:.3} ({}) to {:.3} ({}), over \
                         {} pairings; see the table by pairing (scores of different strengths are not pooled).",
                        lo.results.white_score,
                        lo.label(),
                        hi.results.white_score,
                        hi.label(),
                        ps.len()
                    ),
                    _ => "From the standard start, no game ended by the rules.".to_string(),
                }
            }
        }
    }

    /// The number of a first move's pairing in the table of pairings from
    /// the start (P1, P2, ...).
    pub fn pairing_number(&self, m: &FirstMove) -> usize {
        self.from_start.pairings.iter().position(|p| p.white == m.white && p.black == m.black).map_or(0, |i| i + 1)
    }

    /// `openings.csv`: one row per node of the tree, parents before children.
    pub fn openings_csv(&self) -> String {
        let mut out = String::from(
            "line,decisions,plies,forced,games,white_wins,black_wins,draws,unfinished,white_score,white_score_lo,white_score_hi,exact_value\n",
        );
        for l in &self.tree {
            let r = &l.results;
            out += &format!(
                "{},{},{},{},{},{},{},{},{},{:.4},{:.4},{:.4},{}\n",
                l.line,
                l.decisions,
                l.plies,
                l.forced,
                r.games,
                r.white_wins,
                r.black_wins,
                r.draws,
                r.unfinished,
                r.white_score,
                r.rates.white_score.ci95[0],
                r.rates.white_score.ci95[1],
                l.exact_value.as_deref().unwrap_or("")
            );
        }
        out
    }
}
