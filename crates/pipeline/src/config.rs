//! The run's settings (`pipeline.toml`): the stages of a generation and
//! their checks, which refuse a bad setting before any game.

use std::path::Path;

use serde::{Deserialize, Serialize};

use alq_engine::{Limits, RuleSet};
use alq_play::{OpeningSource, TimeControl};
use alq_records::ConfigError;
use alq_selfplay::SelfplayConfig;
use alq_train::TrainConfig;

use crate::error::{io, PipelineError};

/// A match stage: games over paired openings, colours swapped per pair, at
/// fixed nodes (the default, reproducible) or at equal time.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct MatchStage {
    pub games: u64,
    /// Nodes per move for both players; not used when `tc` or `movetime`
    /// is set.
    pub nodes: u64,
    /// A clock for both players, `BASE+INC` in seconds (e.g. `10+0.1`);
    /// empty: none. At equal time the faster evaluator also counts; the
    /// games are no longer reproducible.
    pub tc: String,
    /// A fixed time per move in milliseconds for both players (0: none).
    pub movetime: u64,
    /// The openings: `balanced` (the shipped balanced book,
    /// `configs/balanced-10.csv`: positions 10 plies deep that the
    /// handcrafted search scores within ±60 cp), `unbalanced` (the shipped
    /// unbalanced book, `configs/unbalanced-10.csv`: one side ahead by 80 to
    /// 160 cp, where strong players still win games), a book file (as
    /// written by `alq openings`), or empty for every distinct position
    /// `openings` plies deep (lopsided openings split many pairs 1–1 and
    /// hide differences).
    pub book: String,
    /// Plies of the all-positions set when `book` is empty.
    pub openings: u32,
    /// `elo0,elo1[,alpha,beta]`; empty for a fixed-length match.
    pub sprt: String,
}

impl Default for MatchStage {
    fn default() -> MatchStage {
        MatchStage {
            games: 400,
            nodes: 1000,
            tc: String::new(),
            movetime: 0,
            book: "balanced".to_string(),
            openings: 8,
            sprt: String::new(),
        }
    }
}

impl MatchStage {
    /// The stage's openings under `rules` (the shipped balanced book is a
    /// BrainKing book: under other rules give a book or leave `book` empty).
    pub fn opening_source(&self, rules: RuleSet) -> Result<OpeningSource, PipelineError> {
        let parse = |text: &str, name: String| {
            alq_play::openings::parse_book(rules, text)
                .map(OpeningSource::Book)
                .map_err(|error| PipelineError::Book { name, error: Box::new(error) })
        };
        match self.book.trim() {
            "" => Ok(OpeningSource::AllAfter(self.openings)),
            name if let Some(text) = alq_play::shipped_book(name) => parse(text, format!("{name} (shipped)")),
            path => {
                let path = Path::new(path);
                let text = std::fs::read_to_string(path).map_err(io(path))?;
                parse(&text, path.display().to_string())
            }
        }
    }

    /// Refuses, before any game, a stage whose number of games the match
    /// would refuse ([`alq_play::check_games`]) or whose games would
    /// play an opening more than once. At fixed nodes every player here is deterministic, so a second pair
    /// from the same opening repeats the first one's games: it adds no
    /// information but narrows the Elo interval, which would make the gate
    /// promote on too little evidence.
    pub fn check_openings(&self, key: &str, rules: RuleSet) -> Result<(), PipelineError> {
        if alq_play::check_games(self.games).is_err() {
            return Err(PipelineError::OddGames { key: key.to_string(), games: self.games });
        }
        let (limits, clock) = self.limits().map_err(|e| e.within(key))?;
        let source = self.opening_source(rules)?;
        if limits.movetime.is_some() || clock.is_some() {
            // Timed players are not deterministic: a repeated opening gives
            // new games.
            return Ok(());
        }
        let available = match source {
            OpeningSource::Book(lines) => lines.len() as u64,
            OpeningSource::AllAfter(k) => alq_play::openings::all_after(rules, k).len() as u64,
            OpeningSource::Random(_) => return Ok(()),
        };
        if self.games / 2 > available {
            return Err(PipelineError::RepeatedOpenings { key: key.to_string(), games: self.games, available });
        }
        Ok(())
    }

    /// The players' limits and clock: `tc`, else `movetime`, else `nodes`.
    /// An error names the bad key.
    pub fn limits(&self) -> Result<(Limits, Option<TimeControl>), ConfigError> {
        if !self.tc.trim().is_empty() && self.movetime > 0 {
            return Err(ConfigError::new("movetime", "set together with tc: give one of them"));
        }
        if !self.tc.trim().is_empty() {
            let clock = TimeControl::parse(&self.tc).map_err(|e| ConfigError::new("tc", e.to_string()))?;
            return Ok((Limits::default(), Some(clock)));
        }
        if self.movetime > 0 {
            return Ok((Limits::movetime(std::time::Duration::from_millis(self.movetime)), None));
        }
        if self.nodes == 0 {
            return Err(ConfigError::new("nodes", "0: give at least 1, or set tc or movetime"));
        }
        Ok((Limits::nodes(self.nodes), None))
    }

    /// How the stage's players are limited, for the summary: `2000 nodes`,
    /// `50 ms a move` or `tc 10+0.1`.
    pub fn describe_limits(&self) -> String {
        if !self.tc.trim().is_empty() {
            format!("tc {}", self.tc.trim())
        } else if self.movetime > 0 {
            format!("{} ms a move", self.movetime)
        } else {
            format!("{} nodes", self.nodes)
        }
    }

    /// Where the stage's openings come from, for the summary: `every
    /// position 8 plies deep`, `the shipped balanced book`, or the book's
    /// path.
    pub fn describe_openings(&self) -> String {
        match self.book.trim() {
            "" => format!("every position {} plies deep", self.openings),
            name if alq_play::shipped_book(name).is_some() => format!("the shipped {name} book"),
            path => format!("the book `{path}`"),
        }
    }

    /// How the stage is played, in words, for the summary.
    pub fn conditions(&self) -> alq_report::pipeline::MatchConditions {
        alq_report::pipeline::MatchConditions { limits: self.describe_limits(), openings: self.describe_openings() }
    }
}

/// Each generation's best player measured from the standard start, as a
/// rung of `alq study` is: it plays itself, the first plies drawn among
/// near-best moves, every other move its own.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct StartStage {
    /// Games (0: skip the measurement).
    pub games: u64,
    pub nodes: u64,
    pub near_best_plies: u32,
    pub near_best_cp: u32,
    /// Ply cap; capped games are counted as unfinished.
    pub max_plies: u32,
}

impl Default for StartStage {
    fn default() -> StartStage {
        StartStage { games: 100, nodes: 1000, near_best_plies: 8, near_best_cp: 20, max_plies: 2000 }
    }
}

/// Deeper training targets: after each generation's self-play, a share of
/// its scored positions is re-searched by the same player with more nodes
/// (as `alq records rescore` does) into `gen-NNN/rescored.csv`, and
/// candidates train on those files instead of `games.csv`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RescoreStage {
    /// Nodes of the re-search (0: no rescoring, train on the self-play scores).
    pub nodes: u64,
    /// Share of the scored positions re-searched.
    pub fraction: f64,
}

impl Default for RescoreStage {
    fn default() -> RescoreStage {
        RescoreStage { nodes: 0, fraction: 0.25 }
    }
}

impl RescoreStage {
    /// The games file of a generation that candidates train on.
    pub(crate) fn training_games(&self) -> &'static str {
        if self.nodes > 0 {
            "rescored.csv"
        } else {
            "games.csv"
        }
    }
}

/// Each generation's best player measured on endgames: `alq tb accuracy`
/// on `positions` random `pieces`-piece positions judged by the tables of
/// `tablebase` (skipped when it is empty), at `nodes` per move, without
/// tables of its own.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct AccuracyStage {
    pub tablebase: String,
    pub pieces: u32,
    pub positions: u64,
    pub nodes: u64,
    pub seed: u64,
}

impl Default for AccuracyStage {
    fn default() -> AccuracyStage {
        AccuracyStage { tablebase: String::new(), pieces: 8, positions: 500, nodes: 1000, seed: 1 }
    }
}

/// Each generation's best player graded against perfect play: it plays
/// itself `games` times from the standard start (the first
/// `near_best_plies` choices drawn among moves within `near_best_cp` of the
/// best, as `[start]` does) and `games` times from `book` (one game from
/// each of its first lines, the book's moves not graded), at `nodes` a
/// move; then every move is graded as `alq accuracy --tb tablebase --nodes
/// grade_nodes` does (the tables, the shipped proofs, then a search of
/// `grade_nodes` expanded positions a position, in `grade_hash` MiB), on
/// every core, each run of 25 games by its own oracle. The
/// summary shows the errors a game, found and at least. Off while `games`
/// is 0.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ErrorsStage {
    /// Games from each source (0: skip the stage).
    pub games: u64,
    /// Nodes a move of the graded player.
    pub nodes: u64,
    pub near_best_plies: u32,
    pub near_best_cp: u32,
    /// The book games' openings: `unbalanced`, `balanced`, a book file, or
    /// empty for games from the start only.
    pub book: String,
    /// Ply cap of every game.
    pub max_plies: u32,
    /// Endgame tables the grading reads (any kind; required).
    pub tablebase: String,
    /// Grading budget a position, in expanded positions: fixed, so that
    /// generations are graded alike whatever the machine.
    pub grade_nodes: u64,
    /// Memory of each grading worker's search graph in MiB.
    pub grade_hash: u64,
}

impl Default for ErrorsStage {
    fn default() -> ErrorsStage {
        ErrorsStage {
            games: 0,
            nodes: 1000,
            near_best_plies: 8,
            near_best_cp: 20,
            book: "unbalanced".to_string(),
            max_plies: 2000,
            tablebase: String::new(),
            grade_nodes: 100_000,
            grade_hash: 512,
        }
    }
}

/// Exact values for training: each generation's training positions (each
/// distinct position the trainer samples from the games candidates train
/// on) valued by the oracle within `movetime` or `nodes` each, as `alq
/// label` does, into `gen-NNN/labels.store`; candidates trained on that
/// generation read it as a `[train] stores` entry, and the oracle searches
/// over `[train] tablebase` (whose positions it does not repeat in the
/// store). Off while both budgets are 0. The summary shows the share
/// labelled.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct LabelStage {
    /// Search time per position in milliseconds (0: none).
    pub movetime: u64,
    /// Search budget per position in expanded positions (0: none); used
    /// when `movetime` is 0, and reproducible where time is not.
    pub nodes: u64,
    /// Value only positions with at most this many pieces (0: all): most
    /// positions with many pieces stay unknown within a small budget.
    pub max_pieces: u32,
    /// Memory for each worker's search graph in MiB.
    pub hash: u64,
}

impl Default for LabelStage {
    fn default() -> LabelStage {
        LabelStage { movetime: 0, nodes: 0, max_pieces: 0, hash: 256 }
    }
}

impl LabelStage {
    /// Whether the stage runs.
    pub fn on(&self) -> bool {
        self.movetime > 0 || self.nodes > 0
    }
}

/// The whole pipeline.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct PipelineConfig {
    /// Output folder.
    pub out: String,
    /// The rule set of the whole run (`brainking` or `classic`); it also sets
    /// `[selfplay]` and `[train]` `rules`.
    pub rules: RuleSet,
    /// Generations after generation 0.
    pub generations: usize,
    /// Train each candidate on the games of this many latest generations.
    pub replay_window: usize,
    /// A network that is the best player from the start (empty: none, and
    /// generation 0 plays with the handcrafted evaluator): generation 0
    /// plays with it and the first candidate must beat it, so the run climbs
    /// from there.
    pub start_network: String,
    /// Each candidate continues training the best network so far (from its
    /// weights) instead of starting from `[train] init` (random weights when
    /// that is empty), so that what earlier generations learned is kept, as
    /// in lc0's and KataGo's continued training. Until a network is
    /// promoted, candidates start from `start_network` when it is set, else
    /// from `[train] init`. A best network narrower than `[train] hidden` is
    /// widened first without changing what it computes.
    pub warm_start: bool,
    /// Self-play of every generation (its `player` is set by the pipeline:
    /// `hce` for generation 0, the best network after; its seed is offset by
    /// the generation).
    pub selfplay: SelfplayConfig,
    /// Deeper targets for training (off unless `nodes` is set).
    pub rescore: RescoreStage,
    /// Exact targets for training from the oracle (off unless a budget is set).
    pub label: LabelStage,
    /// Training of every candidate (seed offset by the generation).
    pub train: TrainConfig,
    /// Candidate against the best player: promoted when the SPRT accepts H1
    /// (a match that ends undecided does not promote), or, for a fixed-length
    /// gate without an SPRT, when the Elo interval lies above zero.
    pub gate: MatchStage,
    /// Each candidate against every anchor.
    pub evaluation: MatchStage,
    /// Fixed players every candidate is measured against (`hce`: generation
    /// 0's handcrafted player; `nn`: the shipped network; or network files),
    /// so that the summary and `elo.svg` show an Elo curve.
    pub anchors: Vec<String>,
    /// Each generation's best player from the standard start.
    pub start: StartStage,
    /// Each generation's best player on endgames (needs tables).
    pub accuracy: AccuracyStage,
    /// Each generation's best player's errors against perfect play, from
    /// the start and from a book (needs tables).
    pub errors: ErrorsStage,
}

impl Default for PipelineConfig {
    fn default() -> PipelineConfig {
        PipelineConfig {
            out: "data/pipeline".to_string(),
            rules: RuleSet::BrainKing,
            generations: 3,
            replay_window: 2,
            start_network: String::new(),
            warm_start: false,
            selfplay: SelfplayConfig::default(),
            rescore: RescoreStage::default(),
            label: LabelStage::default(),
            train: TrainConfig::default(),
            gate: MatchStage { sprt: "0,20".to_string(), ..MatchStage::default() },
            evaluation: MatchStage::default(),
            anchors: vec!["hce".to_string(), "nn".to_string()],
            start: StartStage::default(),
            accuracy: AccuracyStage::default(),
            errors: ErrorsStage::default(),
        }
    }
}

impl PipelineConfig {
    /// Checks the values; the message names the key.
    pub fn validate(&self) -> Result<(), ConfigError> {
        self.train.validate().map_err(|e| e.within("train"))?;
        if self.replay_window == 0 {
            return Err(ConfigError::new("replay_window", "at least 1"));
        }
        if self.rescore.nodes > 0 && !(self.rescore.fraction > 0.0 && self.rescore.fraction <= 1.0) {
            return Err(ConfigError::new("rescore.fraction", format!("{} is not in (0, 1]", self.rescore.fraction)));
        }
        if self.label.on() && self.label.hash == 0 {
            return Err(ConfigError::new("label.hash", "at least 1 (MiB)"));
        }
        if self.label.max_pieces > 24 {
            return Err(ConfigError::new("label.max_pieces", "at most 24 (0: all)"));
        }
        let e = &self.errors;
        if e.games > 0 {
            if e.tablebase.trim().is_empty() {
                return Err(ConfigError::new("errors.tablebase", "empty: the grading needs endgame tables"));
            }
            for (key, value) in
                [("errors.nodes", e.nodes), ("errors.grade_nodes", e.grade_nodes), ("errors.grade_hash", e.grade_hash)]
            {
                if value == 0 {
                    return Err(ConfigError::new(key, "0: give at least 1"));
                }
            }
        }
        for (key, stage) in [("gate", &self.gate), ("evaluation", &self.evaluation)] {
            stage.limits().map_err(|e| e.within(key))?;
        }
        for (key, rules) in [("selfplay.rules", self.selfplay.rules), ("train.rules", self.train.rules)] {
            if rules != self.rules && rules != RuleSet::BrainKing {
                return Err(ConfigError::new(
                    key,
                    format!("{rules}, but the run's rules are {}: set `rules` at the top only", self.rules),
                ));
            }
        }
        Ok(())
    }

    /// The config with the run's rule set copied into `[selfplay]` and `[train]`.
    pub fn resolved(&self) -> PipelineConfig {
        let mut c = self.clone();
        c.selfplay.rules = self.rules;
        c.train.rules = self.rules;
        c
    }
}
