//! # alq-pipeline
//!
//! Generations of self-play, training and gating, as a library: the
//! orchestration that `alq pipeline` runs, with its progress reported through
//! a callback so that the stages can be driven and tested without the binary.
//!
//! Generation 0 plays with the handcrafted evaluator. Each later generation
//! trains a candidate network on the games of the last `replay_window`
//! generations, gates it against the current best player with an SPRT match
//! at equal nodes over paired openings, promotes it if the SPRT accepts,
//! measures it against generation 0 (the handcrafted player), and plays its
//! own games with the best player; optionally the best player is measured
//! from the standard start and on endgames. Every stage's output is written
//! atomically or resumably, so an interrupted run continues where it stopped.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use thiserror::Error;

use alq_engine::{GameConfig, Limits, RuleSet};
use alq_play::{run_match, MatchConfig, MatchReport, OpeningSource, PlayerSpec, TimeControl};
use alq_records::ConfigError;
use alq_records::{resume_run, write_atomic, RunKind};
use alq_selfplay::{run_rescore, run_selfplay, OpeningConfig, RescoreConfig, SelfplayConfig, Shard};
use alq_stats::{Sprt, SprtDecision};
use alq_train::{train, Event, TrainConfig};

/// Why a pipeline run stopped.
#[derive(Debug, Error)]
pub enum PipelineError {
    #[error("{0}")]
    Invalid(String),
    #[error("{}: {error}", path.display())]
    Io { path: PathBuf, error: std::io::Error },
    #[error(transparent)]
    Selfplay(#[from] alq_selfplay::SelfplayError),
    #[error(transparent)]
    Spec(#[from] alq_play::SpecError),
    #[error(transparent)]
    Match(#[from] alq_play::MatchError),
    #[error(transparent)]
    Train(#[from] alq_train::TrainError),
    #[error(transparent)]
    Records(#[from] alq_records::RecordError),
    /// The output holds a run that may not be continued.
    #[error(transparent)]
    Run(#[from] alq_records::RunError),
    #[error(transparent)]
    Report(#[from] alq_report::ReportError),
}

impl PipelineError {
    /// The run-folder refusal behind this error, if it is one (its own, or
    /// a self-play or training stage's).
    pub fn run_error(&self) -> Option<&alq_records::RunError> {
        match self {
            PipelineError::Run(e) => Some(e),
            PipelineError::Selfplay(e) => e.run_error(),
            PipelineError::Train(e) => e.run_error(),
            _ => None,
        }
    }
}

fn io(path: &Path) -> impl Fn(std::io::Error) -> PipelineError + '_ {
    move |error| PipelineError::Io { path: path.to_path_buf(), error }
}

/// What the run is doing, for progress displays.
#[derive(Clone, Debug)]
pub enum PipelineEvent {
    /// Generation `generation` of `0..=last` begins.
    Generation { generation: usize, last: usize },
    /// A stage of the current generation begins; `total` is its unit count
    /// (samples, games) when known, and `unit` names it.
    Stage { stage: Stage, total: u64, unit: &'static str },
    /// Progress of the current stage: units done, and a short note (loss,
    /// Elo and LLR).
    Progress { done: u64, note: String },
    /// A training epoch begins (the stage's units restart).
    Epoch { epoch: usize, epochs: usize, samples: u64 },
    /// The generation's row is written to the summary.
    GenerationDone(Box<GenerationSummary>),
}

/// The stages of a generation, in order, then the final report.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    Training,
    Gating,
    Evaluating,
    Selfplay,
    Rescoring,
    FromStart,
    Accuracy,
    Report,
}

impl Stage {
    pub fn describe(self) -> &'static str {
        match self {
            Stage::Training => "training",
            Stage::Gating => "gating",
            Stage::Evaluating => "measuring against generation 0",
            Stage::Selfplay => "self-play",
            Stage::Rescoring => "re-searching positions for deeper targets",
            Stage::FromStart => "measuring the best player from the start",
            Stage::Accuracy => "endgame accuracy",
            Stage::Report => "report",
        }
    }
}

/// The outcome of a run.
#[derive(Clone, Debug)]
pub struct PipelineOutcome {
    pub summary: Vec<GenerationSummary>,
    /// The best network (none when nothing was promoted: the handcrafted player).
    pub best: Option<PathBuf>,
}

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
        let parse = |text: &str, name: &str| {
            alq_play::openings::parse_book(rules, text)
                .map(OpeningSource::Book)
                .map_err(|e| PipelineError::Invalid(format!("book {name}: {e}")))
        };
        match self.book.trim() {
            "" => Ok(OpeningSource::AllAfter(self.openings)),
            name if let Some(text) = alq_play::shipped_book(name) => parse(text, &format!("{name} (shipped)")),
            path => {
                let path = Path::new(path);
                let text = std::fs::read_to_string(path).map_err(io(path))?;
                parse(&text, &path.display().to_string())
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
            return Err(PipelineError::Invalid(format!(
                "{key}.games = {} must be even and at least 2 (each opening is played with both colours)",
                self.games
            )));
        }
        let (limits, clock) = self.limits().map_err(|e| PipelineError::Invalid(e.within(key).to_string()))?;
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
        let pairs = self.games / 2;
        if pairs > available {
            return Err(PipelineError::Invalid(format!(
                "{key}.games = {} plays {pairs} pairs, but its openings hold only {available}: \
                 the players are deterministic at fixed nodes, so a repeated opening repeats its games \
                 and overstates the precision; use at most {} games or a larger book",
                self.games,
                2 * available
            )));
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
}

/// A candidate's Elo against one fixed anchor.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AnchorElo {
    pub anchor: String,
    pub elo: f64,
    pub elo_ci95: [f64; 2],
    /// Normalized Elo from the pairs (see `alq match`), when defined.
    #[serde(default)]
    pub nelo: Option<f64>,
    #[serde(default)]
    pub nelo_ci95: Option<[f64; 2]>,
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
    fn training_games(&self) -> &'static str {
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
            train: TrainConfig::default(),
            gate: MatchStage { sprt: "0,20".to_string(), ..MatchStage::default() },
            evaluation: MatchStage::default(),
            anchors: vec!["hce".to_string(), "nn".to_string()],
            start: StartStage::default(),
            accuracy: AccuracyStage::default(),
        }
    }
}

/// One generation in the run summary.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct GenerationSummary {
    pub generation: usize,
    /// The player of this generation's self-play.
    pub selfplay_player: String,
    pub games: u64,
    pub candidate: Option<String>,
    pub promoted: Option<bool>,
    pub gate_elo: Option<f64>,
    pub gate_elo_ci95: Option<[f64; 2]>,
    pub gate_llr: Option<f64>,
    /// The gate's normalized Elo and its 95 % interval.
    #[serde(default)]
    pub gate_nelo: Option<f64>,
    #[serde(default)]
    pub gate_nelo_ci95: Option<[f64; 2]>,
    pub elo_vs_gen0: Option<f64>,
    pub elo_vs_gen0_ci95: Option<[f64; 2]>,
    /// The candidate against each anchor (the first, `hce`, is also
    /// `elo_vs_gen0`).
    #[serde(default)]
    pub elo_vs_anchors: Vec<AnchorElo>,
    /// The best player's games from the standard start: White wins, draws,
    /// Black wins, unfinished, and White's score with its 95 % interval.
    #[serde(default)]
    pub start: Option<StartResult>,
    /// The best player's endgame accuracy, when the run names tables for it.
    #[serde(default)]
    pub accuracy: Option<alq_selfplay::AccuracyReport>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct StartResult {
    pub player: String,
    pub games: u64,
    pub white_wins: u64,
    pub draws: u64,
    pub black_wins: u64,
    pub unfinished: u64,
    pub white_score: f64,
    pub white_score_ci95: [f64; 2],
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

/// Plays (or resumes) the best player's games from the start into
/// `dir/start` and counts them.
fn measure_from_start(
    stage: &StartStage,
    player: &str,
    seed: u64,
    tablebase: &str,
    dir: &Path,
    rules: RuleSet,
    on_event: &(impl Fn(PipelineEvent) + Sync),
) -> Result<StartResult, PipelineError> {
    let config = SelfplayConfig {
        rules,
        games: stage.games,
        threads: 0,
        player: player.to_string(),
        nodes: stage.nodes.max(1),
        depth: 0,
        seed,
        no_progress: 60,
        max_plies: stage.max_plies,
        tablebase: tablebase.to_string(),
        opening: OpeningConfig::near_best(stage.near_best_plies, stage.near_best_cp),
    };
    on_event(PipelineEvent::Stage { stage: Stage::FromStart, total: stage.games, unit: "games" });
    let out = dir.join("start");
    run_selfplay(&config, &out, Shard::WHOLE, true, |d| {
        on_event(PipelineEvent::Progress { done: d.done, note: String::new() })
    })?;
    let c = alq_report::collect(&[out.join("games.csv")], rules, 1, |_| {})?.searched.total;
    Ok(StartResult {
        player: config.player_spec()?.to_string(),
        games: c.games,
        white_wins: c.white_wins,
        draws: c.draws,
        black_wins: c.black_wins,
        unfinished: c.unfinished,
        white_score: c.white_score(),
        white_score_ci95: c.rates().white_score.ci95,
    })
}

/// A file-name-safe form of a player spec.
fn slug(spec: &str) -> String {
    let name = Path::new(spec).file_stem().map_or(spec.to_string(), |s| s.to_string_lossy().into_owned());
    name.chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '-' }).collect()
}

/// The folder of generation `g`.
pub fn gen_dir(out: &Path, g: usize) -> PathBuf {
    out.join(format!("gen-{g:03}"))
}

fn read_json<T: serde::de::DeserializeOwned>(path: &Path) -> Result<T, PipelineError> {
    let text = std::fs::read_to_string(path).map_err(io(path))?;
    serde_json::from_str(&text).map_err(|e| PipelineError::Invalid(format!("{}: {e}", path.display())))
}

fn write_json<T: Serialize>(path: &Path, value: &T) -> Result<(), PipelineError> {
    let text = serde_json::to_string_pretty(value).expect("stage results serialise") + "\n";
    write_atomic(path, text.as_bytes()).map_err(io(path))
}

/// A finished match stage, as saved in `match.json` / `elo.json`.
#[derive(Clone, Debug, Serialize, Deserialize)]
struct StageResult {
    a: String,
    b: String,
    games: u64,
    wins: u64,
    draws: u64,
    losses: u64,
    elo: f64,
    elo_ci95: [f64; 2],
    #[serde(default)]
    nelo: Option<f64>,
    #[serde(default)]
    nelo_ci95: Option<[f64; 2]>,
    /// Pairs by the first player's points in the pair: 0, 0.5, 1, 1.5, 2.
    #[serde(default)]
    pentanomial: Option<[u64; 5]>,
    llr: Option<f64>,
    decision: Option<SprtDecision>,
}

impl StageResult {
    fn of(r: &MatchReport) -> StageResult {
        StageResult {
            a: r.a.clone(),
            b: r.b.clone(),
            games: r.games,
            wins: r.wins,
            draws: r.draws,
            losses: r.losses,
            elo: r.elo,
            elo_ci95: r.elo_ci95,
            nelo: r.nelo,
            nelo_ci95: r.nelo_ci95,
            pentanomial: Some(r.pentanomial),
            llr: r.sprt.as_ref().map(|s| s.state.llr),
            decision: r.sprt.as_ref().map(|s| s.state.decision),
        }
    }

    fn promotes(&self) -> bool {
        alq_stats::gate_passes(self.decision, (self.elo_ci95[0], self.elo_ci95[1]))
    }
}

/// Plays one match stage: `a` against `b` at the stage's nodes over every
/// position `openings` plies deep.
fn play_stage(
    rules: RuleSet,
    stage: &MatchStage,
    a: &str,
    b: &str,
    seed: u64,
    which: Stage,
    on_event: &(impl Fn(PipelineEvent) + Sync),
) -> Result<StageResult, PipelineError> {
    let (limits, clock) = stage.limits().map_err(|e| PipelineError::Invalid(e.to_string()))?;
    let sprt = if stage.sprt.trim().is_empty() {
        None
    } else {
        Some(Sprt::parse(&stage.sprt).map_err(|e| PipelineError::Invalid(format!("sprt: {e}")))?)
    };
    let config = MatchConfig {
        a: PlayerSpec::parse_with_clock(a, limits, clock)?,
        b: PlayerSpec::parse_with_clock(b, limits, clock)?,
        games: stage.games,
        openings: stage.opening_source(rules)?,
        seed,
        sprt,
        game: GameConfig { no_progress_limit: Some(60), max_plies: Some(400), rules },
        clock,
        time_margin: std::time::Duration::from_millis(500),
    };
    on_event(PipelineEvent::Stage { stage: which, total: stage.games, unit: "games" });
    let report = run_match(&config, |p| {
        let llr = p.sprt.map(|s| format!(", LLR {:.2}", s.llr)).unwrap_or_default();
        on_event(PipelineEvent::Progress { done: p.tally.games(), note: format!("Elo {:+.0}{llr}", p.tally.elo()) });
    })?;
    Ok(StageResult::of(&report))
}

/// Starts or resumes a run in `out`: writes `out/pipeline.toml` (refusing
/// one written with other settings, and any earlier run unless `resume`),
/// then every generation, `summary.json`/`summary.md` after each, and the
/// report at the end. Runs on the current rayon pool.
pub fn run_pipeline(
    config: &PipelineConfig,
    out: &Path,
    resume: bool,
    on_event: impl Fn(PipelineEvent) + Sync,
) -> Result<PipelineOutcome, PipelineError> {
    config.validate().map_err(|e| PipelineError::Invalid(e.to_string()))?;
    let config = &config.resolved();
    // Gate and evaluation are played from generation 1 on.
    if config.generations > 0 {
        config.gate.check_openings("gate", config.rules)?;
        if !config.anchors.is_empty() {
            config.evaluation.check_openings("evaluation", config.rules)?;
        }
    }
    // The first candidate's starting network is checked now, not after
    // generation 0's self-play (unless that candidate exists already).
    let first_candidate_due = config.generations > 0 && !gen_dir(out, 1).join("candidate.alqnet").exists();
    // A bad `[train] init` is found now.
    if first_candidate_due {
        alq_train::initial_network(&config.train).map_err(|e| PipelineError::Invalid(format!("[train] {e}")))?;
    }
    // The start network is read and checked as any player's network is.
    let mut best: Option<PathBuf> = match config.start_network.trim() {
        "" => None,
        start => {
            let bad = |e: String| PipelineError::Invalid(format!("start_network: {e}"));
            let spec = alq_play::EvalSpec::parse(start).map_err(|e| bad(e.to_string()))?;
            if !matches!(spec, alq_play::EvalSpec::Network(_)) || start == "nn" {
                return Err(bad(format!("{start:?} is not a network file (.alqnet)")));
            }
            spec.check_rules(config.rules).map_err(|e| bad(e.to_string()))?;
            // Warm-started, the first candidate trains from it: its shape
            // must suit [train] (it may be narrower: it is then widened).
            if config.warm_start && first_candidate_due {
                let from_start = TrainConfig { init: start.to_string(), ..config.train.clone() };
                alq_train::initial_network(&from_start)
                    .map_err(|e| bad(format!("with warm_start, [train] hidden: {e}")))?;
            }
            Some(PathBuf::from(start))
        }
    };
    std::fs::create_dir_all(out).map_err(io(out))?;
    let resolved_path = out.join("pipeline.toml");
    let comparable = |c: &PipelineConfig| PipelineConfig { generations: 0, out: String::new(), ..c.clone() };
    let kind = RunKind { what: "a pipeline run", may_change: "config; only generations may change" };
    resume_run::<PipelineConfig>(out, &resolved_path, resolved_path.exists(), resume, kind, |old| {
        comparable(old) == comparable(config)
    })?;
    let text = toml::to_string_pretty(config).expect("the config serialises");
    write_atomic(&resolved_path, text.as_bytes()).map_err(io(&resolved_path))?;

    let mut summary: Vec<GenerationSummary> = Vec::new();
    for g in 0..=config.generations {
        on_event(PipelineEvent::Generation { generation: g, last: config.generations });
        let dir = gen_dir(out, g);
        std::fs::create_dir_all(&dir).map_err(io(&dir))?;
        let mut row = GenerationSummary {
            generation: g,
            selfplay_player: String::new(),
            games: 0,
            candidate: None,
            promoted: None,
            gate_elo: None,
            gate_elo_ci95: None,
            gate_llr: None,
            gate_nelo: None,
            gate_nelo_ci95: None,
            elo_vs_gen0: None,
            elo_vs_gen0_ci95: None,
            elo_vs_anchors: Vec::new(),
            start: None,
            accuracy: None,
        };
        if g > 0 {
            let candidate = train_candidate(config, out, g, best.as_deref(), &on_event)?;
            let candidate_spec = candidate.display().to_string();
            row.candidate = Some(candidate_spec.clone());

            // Gate against the best so far.
            let match_path = dir.join("match.json");
            let gate: StageResult = if match_path.exists() {
                read_json(&match_path)?
            } else {
                let best_spec = best.as_ref().map_or("hce".to_string(), |p| p.display().to_string());
                let r = play_stage(
                    config.rules,
                    &config.gate,
                    &candidate_spec,
                    &best_spec,
                    1000 + g as u64,
                    Stage::Gating,
                    &on_event,
                )?;
                write_json(&match_path, &r)?;
                r
            };
            let promoted = gate.promotes();
            row.promoted = Some(promoted);
            row.gate_elo = Some(gate.elo);
            row.gate_elo_ci95 = Some(gate.elo_ci95);
            row.gate_llr = gate.llr;
            row.gate_nelo = gate.nelo;
            row.gate_nelo_ci95 = gate.nelo_ci95;
            if promoted {
                best = Some(candidate.clone());
                let best_path = out.join("best.alqnet");
                write_atomic(&best_path, &std::fs::read(&candidate).map_err(io(&candidate))?)
                    .map_err(io(&best_path))?;
            }

            // Strength against the fixed anchors.
            for (i, anchor) in config.anchors.iter().enumerate() {
                let elo_path =
                    if anchor == "hce" { dir.join("elo.json") } else { dir.join(format!("elo-{}.json", slug(anchor))) };
                let eval: StageResult = if elo_path.exists() {
                    read_json(&elo_path)?
                } else {
                    let seed = 2000 + g as u64 + 100 * i as u64;
                    let r = play_stage(
                        config.rules,
                        &config.evaluation,
                        &candidate_spec,
                        anchor,
                        seed,
                        Stage::Evaluating,
                        &on_event,
                    )?;
                    write_json(&elo_path, &r)?;
                    r
                };
                if anchor == "hce" {
                    row.elo_vs_gen0 = Some(eval.elo);
                    row.elo_vs_gen0_ci95 = Some(eval.elo_ci95);
                }
                row.elo_vs_anchors.push(AnchorElo {
                    anchor: anchor.clone(),
                    elo: eval.elo,
                    elo_ci95: eval.elo_ci95,
                    nelo: eval.nelo,
                    nelo_ci95: eval.nelo_ci95,
                });
            }
        }

        // Self-play with the best player.
        let player = best.as_ref().map_or("hce".to_string(), |p| p.display().to_string());
        let sc =
            SelfplayConfig { player: player.clone(), seed: config.selfplay.seed + g as u64, ..config.selfplay.clone() };
        on_event(PipelineEvent::Stage { stage: Stage::Selfplay, total: sc.games, unit: "games" });
        run_selfplay(&sc, &dir, Shard::WHOLE, true, |d| {
            on_event(PipelineEvent::Progress { done: d.done, note: String::new() })
        })?;
        row.selfplay_player = sc.player_spec()?.to_string();
        row.games = sc.games;
        if config.rescore.nodes > 0 {
            let rc = RescoreConfig {
                player: format!("{player}@nodes={}", config.rescore.nodes),
                fraction: config.rescore.fraction,
                seed: config.selfplay.seed + g as u64,
                rules: config.rules,
                inputs: vec![dir.join("games.csv").display().to_string()],
            };
            on_event(PipelineEvent::Stage { stage: Stage::Rescoring, total: sc.games, unit: "games" });
            run_rescore(&rc, &dir.join(config.rescore.training_games()), true, |done, _| {
                on_event(PipelineEvent::Progress { done, note: String::new() })
            })?;
        }
        if config.start.games > 0 {
            let seed = 3000 + g as u64;
            row.start = Some(measure_from_start(
                &config.start,
                &player,
                seed,
                &config.selfplay.tablebase,
                &dir,
                config.rules,
                &on_event,
            )?);
        }
        if !config.accuracy.tablebase.trim().is_empty() {
            let a = &config.accuracy;
            on_event(PipelineEvent::Stage { stage: Stage::Accuracy, total: a.positions, unit: "positions" });
            let judge = alq_play::TablesSpec::open(a.tablebase.trim())
                .map_err(|e| PipelineError::Invalid(format!("[accuracy]: {e}")))?;
            judge.check_rules(config.rules).map_err(|e| PipelineError::Invalid(format!("[accuracy]: {e}")))?;
            let spec = PlayerSpec::parse(&player, Limits::nodes(a.nodes.max(1)))?;
            let report =
                alq_selfplay::accuracy::measure(&spec, judge.tables.as_ref(), a.pieces, a.positions as usize, a.seed)
                    .map_err(|e| PipelineError::Invalid(format!("[accuracy]: {e}")))?;
            row.accuracy = Some(report);
        }
        summary.push(row.clone());
        write_summary(out, config, &summary)?;
        on_event(PipelineEvent::GenerationDone(Box::new(row)));
    }
    on_event(PipelineEvent::Stage { stage: Stage::Report, total: 0, unit: "games" });
    let mut files: Vec<PathBuf> = (0..=config.generations).map(|g| gen_dir(out, g).join("games.csv")).collect();
    if config.start.games > 0 {
        files.extend((0..=config.generations).map(|g| gen_dir(out, g).join("start").join("games.csv")));
    }
    let collected = alq_report::collect(&files, config.rules, 6, |_| {})?;
    alq_report::Report::new(&collected, &files, &Default::default()).write(&out.join("report"))?;
    Ok(PipelineOutcome { summary, best })
}

/// Trains generation `g`'s candidate on the replay window (or finds it
/// trained), with its metrics beside it; with `warm_start`, from the weights
/// of `best`, the best network so far.
fn train_candidate(
    config: &PipelineConfig,
    out: &Path,
    g: usize,
    best: Option<&Path>,
    on_event: &(impl Fn(PipelineEvent) + Sync),
) -> Result<PathBuf, PipelineError> {
    let dir = gen_dir(out, g);
    let candidate = dir.join("candidate.alqnet");
    if candidate.exists() {
        return Ok(candidate);
    }
    let first = g.saturating_sub(config.replay_window);
    let data: Vec<PathBuf> = (first..g).map(|k| gen_dir(out, k).join(config.rescore.training_games())).collect();
    let train_dir = dir.join("train");
    let init = match best {
        Some(best) if config.warm_start => best.display().to_string(),
        _ => config.train.init.clone(),
    };
    let tc = TrainConfig { seed: config.train.seed + g as u64, init, ..config.train.clone() };
    on_event(PipelineEvent::Stage { stage: Stage::Training, total: 0, unit: "samples" });
    let mut total = 0;
    train(&tc, &data, &train_dir, train_dir.join("config.toml").exists(), |e| match e {
        Event::Counted { train_samples, .. } => total = train_samples,
        Event::EpochStart { epoch, epochs } => on_event(PipelineEvent::Epoch { epoch, epochs, samples: total }),
        Event::Batch { samples, loss } => {
            on_event(PipelineEvent::Progress { done: samples, note: format!("loss {loss:.5}") })
        }
        Event::EpochEnd(_) | Event::Widened { .. } => {}
    })?;
    let copy = |from: PathBuf, to: PathBuf| std::fs::copy(&from, &to).map(|_| ()).map_err(io(&to));
    copy(train_dir.join("network.alqnet"), dir.join("candidate.alqnet.tmp"))?;
    std::fs::rename(dir.join("candidate.alqnet.tmp"), &candidate).map_err(io(&candidate))?;
    // The training metrics sit beside the candidate.
    copy(train_dir.join("metrics.csv"), dir.join("metrics.csv"))?;
    Ok(candidate)
}

/// Writes `summary.json` and `summary.md` (atomically).
fn write_summary(out: &Path, config: &PipelineConfig, rows: &[GenerationSummary]) -> Result<(), PipelineError> {
    write_json(&out.join("summary.json"), &rows)?;
    let fmt_ci = |e: Option<f64>, ci: Option<[f64; 2]>| match (e, ci) {
        (Some(e), Some([lo, hi])) => format!("{e:+.0} [{lo:+.0}, {hi:+.0}]"),
        _ => "–".to_string(),
    };
    let book = |stage: &MatchStage| match stage.book.trim() {
        "" => format!("every position {} plies deep", stage.openings),
        name if alq_play::shipped_book(name).is_some() => format!("the shipped {name} book"),
        path => format!("the book `{path}`"),
    };
    let mut md = format!(
        "# Pipeline summary\n\n\
         Gate: each candidate against the best player so far at {gate_limits}, from {gate_book}. \
         Elo vs anchors: each candidate against the fixed anchors of `anchors` at {eval_limits}, from {eval_book}. \
         Each shows Elo, then nElo (normalized Elo, from the pairs' score and its spread: \
         comparable across books and draw rates), each with its 95 % interval; `elo.svg` plots both.\n\n\
         White / draw / Black: the generation's best player against itself from the standard start \
         (first plies among near-best moves), with White's score and its 95 % interval.\n\n\
         Endgame accuracy: the best player's moves that keep a win or a draw in random positions judged by the \
         tables of `[accuracy]` (when the run names them).\n\n\
         | generation | self-play player | games | gate Elo / nElo vs best (95 %) | promoted | Elo / nElo vs anchors (95 %) | White / draw / Black (unfinished) | White's score (95 %) | endgame accuracy (95 %) |\n|---|---|---|---|---|---|---|---|---|\n",
        gate_limits = config.gate.describe_limits(),
        gate_book = book(&config.gate),
        eval_limits = config.evaluation.describe_limits(),
        eval_book = book(&config.evaluation),
    );
    for r in rows {
        let (wdb, score) = match &r.start {
            Some(s) => (
                format!("{} / {} / {} ({})", s.white_wins, s.draws, s.black_wins, s.unfinished),
                format!("{:.3} [{:.3}, {:.3}]", s.white_score, s.white_score_ci95[0], s.white_score_ci95[1]),
            ),
            None => ("–".to_string(), "–".to_string()),
        };
        let accuracy =
            r.accuracy.as_ref().map_or("–".to_string(), |a| format!("{} pieces: {}", a.pieces, a.all.text()));
        let gate = if r.gate_elo.is_some() {
            format!("{} / {}", fmt_ci(r.gate_elo, r.gate_elo_ci95), fmt_ci(r.gate_nelo, r.gate_nelo_ci95))
        } else {
            "–".to_string()
        };
        md += &format!(
            "| {} | {} | {} | {gate} | {} | {} | {wdb} | {score} | {accuracy} |\n",
            r.generation,
            r.selfplay_player,
            r.games,
            r.promoted.map_or("–", |p| if p { "yes" } else { "no" }),
            if r.elo_vs_anchors.is_empty() {
                "–".to_string()
            } else {
                r.elo_vs_anchors
                    .iter()
                    .map(|a| {
                        format!(
                            "{}: {} / {}",
                            a.anchor,
                            fmt_ci(Some(a.elo), Some(a.elo_ci95)),
                            fmt_ci(a.nelo, a.nelo_ci95)
                        )
                    })
                    .collect::<Vec<_>>()
                    .join("; ")
            }
        );
    }
    let path = out.join("summary.md");
    write_atomic(&path, md.as_bytes()).map_err(io(&path))?;
    // The Elo curve against each anchor.
    let mut series: Vec<alq_report::plots::EloSeries> = Vec::new();
    for r in rows {
        for a in &r.elo_vs_anchors {
            let i = match series.iter().position(|s| s.anchor == a.anchor) {
                Some(i) => i,
                None => {
                    series.push(alq_report::plots::EloSeries {
                        anchor: a.anchor.clone(),
                        points: Vec::new(),
                        nelo_points: Vec::new(),
                    });
                    series.len() - 1
                }
            };
            series[i].points.push((r.generation, a.elo, a.elo_ci95));
            if let (Some(n), Some(ci)) = (a.nelo, a.nelo_ci95) {
                series[i].nelo_points.push((r.generation, n, ci));
            }
        }
    }
    if !series.is_empty() {
        let svg = alq_report::plots::elo_curve(&series).map_err(|e| PipelineError::Invalid(e.to_string()))?;
        let path = out.join("elo.svg");
        write_atomic(&path, svg.as_bytes()).map_err(io(&path))?;
    }
    Ok(())
}
