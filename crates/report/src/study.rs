//! The strength study's summary: White's score, win and draw rates by
//! playing strength, with first-move statistics per rung, as JSON, CSV, a
//! plot and pages (`study.json`, `study.csv`, `study.svg`, `study.html`,
//! `study.md`).

use std::collections::BTreeMap;
use std::fmt::Write;
use std::path::Path;

use serde::{Deserialize, Serialize};

use alq_records::{RecordError, StudyRun};

use crate::collect::{collect, Counts, Section};
use crate::{brainking_counts, Group, ReportError, TableSummary, BRAINKING_SOURCE};

/// A first move needs this many games of a rung's own to be named its best.
pub const MIN_FIRST_MOVE_GAMES: u64 = 20;

/// Results of one first move.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FirstMoveRow {
    pub first_move: String,
    /// Share of the rung's games from the start that began with it (its
    /// frequency); for games with the move fixed, 1.
    pub share: f64,
    #[serde(flatten)]
    pub results: Group,
    /// Games that reached the endgame tables (studies played with tables).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tables: Option<TableSummary>,
}

/// Where a rung's games were lost: each game's first move that threw
/// value away (`alq accuracy`'s grades, read from the run's `grades.json`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RungErrors {
    /// Games graded.
    pub games: u64,
    /// Games whose first value-losing move found was White's, and Black's.
    pub white_errs_first: u64,
    pub black_errs_first: u64,
    /// Games in which no value-losing move was found.
    pub games_without_error: u64,
    /// Games with a move of unknown effect before the first error found (or
    /// without one): their first error may lie earlier, or be missed.
    pub games_with_unknown_first: u64,
    pub mean_first_error_ply: Option<f64>,
    /// After ply k: games still going and known drawn, still going with a
    /// known value, still going.
    pub drawn_after: Vec<[u64; 3]>,
    /// Value-losing moves a game, both sides: found one by one, and at
    /// least (found plus those the values imply among unknown moves); none
    /// in grades written before they were counted.
    #[serde(default)]
    pub errors_per_game: Option<f64>,
    #[serde(default)]
    pub errors_at_least_per_game: Option<f64>,
}

/// A grades file as `alq accuracy --json` writes it: the rung's errors at
/// the top, each player's errors a game beneath.
#[derive(Deserialize)]
struct GradesFile {
    #[serde(flatten)]
    errors: RungErrors,
    #[serde(default)]
    players: BTreeMap<String, PlayerErrors>,
}

/// A player's errors a game in a grades file (`errors_at_least_per_game` is
/// missing from grades written before it was counted).
#[derive(Deserialize)]
struct PlayerErrors {
    games: Option<f64>,
    errors_per_game: Option<f64>,
    errors_at_least_per_game: Option<f64>,
}

impl GradesFile {
    /// The rung's errors with its errors a game from the players (a study
    /// rung has one, playing both sides): found, and at least.
    fn into_errors(self) -> RungErrors {
        let games = self.errors.games.max(1) as f64;
        let per_game = |of: fn(&PlayerErrors) -> Option<f64>| {
            if self.players.is_empty() {
                return None;
            }
            self.players.values().map(|p| Some(of(p)? * p.games?)).sum::<Option<f64>>().map(|t| t / games)
        };
        RungErrors {
            errors_per_game: per_game(|p| p.errors_per_game),
            errors_at_least_per_game: per_game(|p| p.errors_at_least_per_game),
            ..self.errors
        }
    }
}

/// The grades file of a study run, beside its games.
pub const GRADES_FILE: &str = "grades.json";

/// One rung of the ladder.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StudyRung {
    pub rung: usize,
    pub player: String,
    pub family: String,
    pub nodes: Option<u64>,
    /// Games from the standard start.
    #[serde(flatten)]
    pub results: Group,
    /// How many of them differ in their moves (games that repeat another
    /// add less evidence than their number suggests).
    pub distinct_games: u64,
    pub terminations: BTreeMap<String, u64>,
    /// White's first moves in the games from the start: how often each was
    /// chosen and how it scored.
    pub first_moves: Vec<FirstMoveRow>,
    /// Games with White's first move fixed, one row per move (empty when
    /// the study did not play them).
    pub from_first_move: Vec<FirstMoveRow>,
    /// The best first move at this strength: the highest score among the
    /// fixed-first-move games when they exist, else the highest score among
    /// the player's own first moves played at least
    /// [`MIN_FIRST_MOVE_GAMES`] times, else its most frequent choice.
    pub best_first_move: Option<String>,
    /// How `best_first_move` was chosen.
    pub best_first_move_basis: String,
    /// Where its games from the start were lost, graded against perfect
    /// play (`alq study --grade`: the run's `grades.json`); none when not
    /// graded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub errors: Option<RungErrors>,
    /// Games from the start that reached the endgame tables (studies played
    /// with tables): entered won, drawn or lost for White, how they ended,
    /// and White's score with perfect endgames.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tables: Option<TableSummary>,
}

/// The whole study.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StudySummary {
    /// The rule set of every game of the study (older summaries: BrainKing's).
    #[serde(default)]
    pub rules: alq_engine::RuleSet,
    pub rungs: Vec<StudyRung>,
    /// BrainKing's human games, the reference.
    pub brainking: Group,
    pub brainking_source: String,
    /// The exact value of the start position, when a solver knows it.
    pub exact_start_value: Option<String>,
    /// What proofs settle about the first moves (and replies): line and
    /// statement, e.g. `d2-c3`, `Black wins (proof)`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub proven_lines: Vec<ProvenLine>,
}

/// A line from the start and what a proof settles about it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProvenLine {
    pub line: String,
    pub value: String,
}

impl StudyRung {
    /// Every first move seen in the rung, the player's choices first: the
    /// move, its row among the games from the start, its row with the move
    /// fixed.
    pub fn first_move_table(&self) -> Vec<(&str, Option<&FirstMoveRow>, Option<&FirstMoveRow>)> {
        let mut moves: Vec<&str> = self.first_moves.iter().map(|f| f.first_move.as_str()).collect();
        for f in &self.from_first_move {
            if !moves.contains(&f.first_move.as_str()) {
                moves.push(&f.first_move);
            }
        }
        moves
            .into_iter()
            .map(|mv| {
                let find = |rows: &'_ [FirstMoveRow]| rows.iter().position(|f| f.first_move == mv);
                (
                    mv,
                    find(&self.first_moves).map(|i| &self.first_moves[i]),
                    find(&self.from_first_move).map(|i| &self.from_first_move[i]),
                )
            })
            .collect()
    }
}

fn read_section(file: &Path, rules: alq_engine::RuleSet) -> Result<Section, RecordError> {
    let c = collect(&[file.to_path_buf()], rules, 1, |_| {})?;
    let mut s = c.searched;
    s.merge(c.randomised);
    Ok(s)
}

/// A run's grades, when it has them; a damaged file is an error naming it.
fn read_errors(file: &Path) -> Result<Option<RungErrors>, RecordError> {
    if !file.exists() {
        return Ok(None);
    }
    let text = std::fs::read_to_string(file).map_err(|error| RecordError::Io { file: file.to_path_buf(), error })?;
    let bad = |e: serde_json::Error| RecordError::Bad {
        file: file.to_path_buf(),
        line: e.line() as u64,
        problem: e.to_string(),
    };
    let grades: GradesFile = serde_json::from_str(&text).map_err(bad)?;
    Ok(Some(grades.into_errors()))
}

/// The number of different move sequences in a games file.
fn distinct_games(file: &Path) -> Result<u64, RecordError> {
    let mut seen = std::collections::HashSet::new();
    let mut reader = alq_records::RecordReader::open(file)?;
    while let Some(item) = reader.next_record() {
        seen.insert(item?.1.moves);
    }
    Ok(seen.len() as u64)
}

fn first_move_rows(s: &Section) -> Vec<FirstMoveRow> {
    s.first_moves_by_games()
        .into_iter()
        .map(|(mv, c)| FirstMoveRow {
            share: c.games as f64 / s.total.games.max(1) as f64,
            results: Group::of(&c),
            tables: s.table_entries_after(&mv).as_ref().map(TableSummary::of),
            first_move: mv,
        })
        .collect()
}

impl StudySummary {
    /// Reads and replays the games of every run of the study in the folder
    /// `study` (games under `rules`) and summarises them by rung.
    pub fn from_runs(study: &Path, runs: &[StudyRun], rules: alq_engine::RuleSet) -> Result<StudySummary, RecordError> {
        let mut rungs: BTreeMap<usize, StudyRung> = BTreeMap::new();
        for input in runs {
            let file = input.games_file(study);
            let section = read_section(&file, rules)?;
            let rung = rungs.entry(input.rung).or_insert_with(|| StudyRung {
                rung: input.rung,
                player: input.player.clone(),
                family: input.family.clone(),
                nodes: input.nodes,
                results: Group::of(&Counts::default()),
                distinct_games: 0,
                terminations: BTreeMap::new(),
                first_moves: Vec::new(),
                from_first_move: Vec::new(),
                best_first_move: None,
                best_first_move_basis: String::new(),
                tables: None,
                errors: None,
            });
            match &input.first_move {
                None => {
                    rung.results = Group::of(&section.total);
                    rung.distinct_games = distinct_games(&file)?;
                    rung.terminations = section.terminations.clone();
                    rung.first_moves = first_move_rows(&section);
                    rung.tables = section.table_entries().as_ref().map(TableSummary::of);
                    rung.errors = read_errors(&file.with_file_name(GRADES_FILE))?;
                }
                Some(mv) => rung.from_first_move.push(FirstMoveRow {
                    first_move: mv.clone(),
                    share: 1.0,
                    results: Group::of(&section.total),
                    tables: section.table_entries().as_ref().map(TableSummary::of),
                }),
            }
        }
        let mut rungs: Vec<StudyRung> = rungs.into_values().collect();
        for r in &mut rungs {
            let score = |row: &&FirstMoveRow| row.results.white_score;
            let best_fixed = r
                .from_first_move
                .iter()
                .filter(|m| m.results.games > m.results.unfinished)
                .max_by(|a, b| score(a).total_cmp(&score(b)));
            (r.best_first_move, r.best_first_move_basis) = match best_fixed {
                Some(m) => (Some(m.first_move.clone()), "highest White's score with the first move fixed".to_string()),
                None => {
                    // Among the player's own first moves, those played often
                    // enough to say something; the most frequent if none is.
                    let often = r.first_moves.iter().filter(|m| m.results.games >= MIN_FIRST_MOVE_GAMES);
                    match often.max_by(|a, b| score(a).total_cmp(&score(b))) {
                        Some(m) if r.first_moves.len() > 1 => (
                            Some(m.first_move.clone()),
                            format!("highest White's score among the player's own first moves (each played at least {MIN_FIRST_MOVE_GAMES} times)"),
                        ),
                        _ => (
                            r.first_moves.first().map(|m| m.first_move.clone()),
                            "the player's most frequent (or only) first move".to_string(),
                        ),
                    }
                }
            };
        }
        Ok(StudySummary {
            rules,
            rungs,
            brainking: Group::of(&brainking_counts()),
            brainking_source: BRAINKING_SOURCE.to_string(),
            exact_start_value: None,
            proven_lines: Vec::new(),
        })
    }

    /// Takes what proofs settle, (line, statement) with the start as `""`:
    /// the start's value and White's first moves (the study's subject;
    /// longer lines are left to the report's opening tree).
    pub fn set_proofs(&mut self, proofs: &[(String, String)]) {
        for (line, value) in proofs {
            if line.is_empty() {
                self.exact_start_value = Some(value.clone());
            } else if !line.contains(' ') {
                self.proven_lines.push(ProvenLine { line: line.clone(), value: value.clone() });
            }
        }
    }

    /// The proven lines as one sentence (empty when there are none).
    pub fn proven_lines_text(&self) -> String {
        if self.proven_lines.is_empty() {
            return String::new();
        }
        let parts: Vec<String> = self.proven_lines.iter().map(|p| format!("after {}: {}", p.line, p.value)).collect();
        format!("Proven: {}.", parts.join("; "))
    }

    /// Reads `DIR/study.json` as `alq study` wrote it.
    pub fn read(dir: &Path) -> Result<StudySummary, ReportError> {
        let path = dir.join("study.json");
        let text = std::fs::read_to_string(&path).map_err(|error| ReportError::Io { path: path.clone(), error })?;
        serde_json::from_str(&text)
            .map_err(|e| ReportError::Invalid(format!("{}: not a study summary: {e}", path.display())))
    }

    /// `study.csv`: one row per rung.
    pub fn to_csv(&self) -> String {
        let mut out = String::from(
            "rung,player,family,nodes,games,distinct_games,white_wins,draws,black_wins,unfinished,white_win_rate,white_win_lo,white_win_hi,\
             draw_rate,draw_lo,draw_hi,black_win_rate,unfinished_rate,white_score,white_score_lo,white_score_hi,\
             average_plies,best_first_move\n",
        );
        for r in &self.rungs {
            let g = &r.results;
            let x = &g.rates;
            let _ = writeln!(
                out,
                "{},{},{},{},{},{},{},{},{},{},{:.4},{:.4},{:.4},{:.4},{:.4},{:.4},{:.4},{:.4},{:.4},{:.4},{:.4},{:.1},{}",
                r.rung + 1,
                r.player,
                r.family,
                r.nodes.map(|n| n.to_string()).unwrap_or_default(),
                g.games,
                r.distinct_games,
                g.white_wins,
                g.draws,
                g.black_wins,
                g.unfinished,
                x.white_win.rate,
                x.white_win.ci95[0],
                x.white_win.ci95[1],
                x.draw.rate,
                x.draw.ci95[0],
                x.draw.ci95[1],
                x.black_win.rate,
                x.unfinished.rate,
                g.white_score,
                x.white_score.ci95[0],
                x.white_score.ci95[1],
                g.average_plies,
                r.best_first_move.as_deref().unwrap_or("")
            );
        }
        out
    }

    /// The rule set in words, for the study's pages.
    pub fn rules_text(&self) -> String {
        match self.rules {
            alq_engine::RuleSet::BrainKing => "BrainKing's (`brainking`)".to_string(),
            other => format!("`{other}` (see docs/rules-notes.md)"),
        }
    }
}
