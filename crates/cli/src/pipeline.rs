//! `alq pipeline`: generations of self-play, training and gating.
//!
//! Generation 0 plays with the handcrafted evaluator. Each later generation
//! trains a candidate network on the games of the last `replay_window`
//! generations, gates it against the current best player with an SPRT match
//! at equal nodes over paired openings, promotes it if it passes, measures it
//! against generation 0 (the handcrafted player), and plays its own games with
//! the best player. Every stage's output is written atomically or resumably,
//! so an interrupted run continues where it stopped with `--resume`.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context};
use clap::Args;
use indicatif::{MultiProgress, ProgressBar, ProgressStyle};
use serde::{Deserialize, Serialize};

use alq_engine::{GameConfig, Limits};
use alq_records::write_atomic;
use alq_selfplay::{
    run_match, run_selfplay, MatchConfig, MatchReport, OpeningConfig, OpeningSource, PlayerSpec, SelfplayConfig, Shard, Sprt,
    SprtDecision,
};
use alq_train::{train, Event, TrainConfig};

#[derive(Args)]
pub struct PipelineArgs {
    /// Pipeline description (TOML): see configs/quick.toml and configs/full.toml.
    #[arg(long, value_name = "FILE")]
    config: PathBuf,
    /// Output folder (default: the config's `out`).
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Continue an interrupted run in the output folder.
    #[arg(long)]
    resume: bool,
    /// Worker threads (default: all cores).
    #[arg(long, value_name = "T")]
    threads: Option<usize>,
    /// No progress bars.
    #[arg(long)]
    quiet: bool,
}

/// A match stage: games at fixed nodes over every distinct position `openings`
/// plies deep, colours swapped per pair.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct MatchStage {
    pub games: u64,
    pub nodes: u64,
    pub openings: u32,
    /// `elo0,elo1[,alpha,beta]`; empty for a fixed-length match.
    pub sprt: String,
}

impl Default for MatchStage {
    fn default() -> MatchStage {
        MatchStage { games: 400, nodes: 1000, openings: 8, sprt: String::new() }
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
    /// Generations after generation 0.
    pub generations: usize,
    /// Train each candidate on the games of this many latest generations.
    pub replay_window: usize,
    /// Self-play of every generation (its `player` is set by the pipeline:
    /// `hce` for generation 0, the best network after; its seed is offset by
    /// the generation).
    pub selfplay: SelfplayConfig,
    /// Training of every candidate (seed offset by the generation).
    pub train: TrainConfig,
    /// Candidate against the best player: promoted when the SPRT accepts H1,
    /// or, if it stays undecided, when the Elo interval lies above zero.
    pub gate: MatchStage,
    /// Each candidate against generation 0 (the handcrafted player).
    pub evaluation: MatchStage,
    /// Each generation's best player from the standard start.
    pub start: StartStage,
    /// Each generation's best player on endgames (needs tables).
    pub accuracy: AccuracyStage,
}

impl Default for PipelineConfig {
    fn default() -> PipelineConfig {
        PipelineConfig {
            out: "data/pipeline".to_string(),
            generations: 3,
            replay_window: 2,
            selfplay: SelfplayConfig::default(),
            train: TrainConfig::default(),
            gate: MatchStage { sprt: "0,20".to_string(), ..MatchStage::default() },
            evaluation: MatchStage::default(),
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
    pub elo_vs_gen0: Option<f64>,
    pub elo_vs_gen0_ci95: Option<[f64; 2]>,
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

/// Plays (or resumes) the best player's games from the start into
/// `dir/start` and counts them.
fn measure_from_start(
    stage: &StartStage,
    player: &str,
    seed: u64,
    tablebase: &str,
    dir: &Path,
    multi: &MultiProgress,
    quiet: bool,
) -> anyhow::Result<StartResult> {
    let config = SelfplayConfig {
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
    let bar = stage_bar(multi, quiet, "  from the start {bar:30} {pos}/{len} games ({per_sec})");
    bar.set_length(stage.games);
    let out = dir.join("start");
    run_selfplay(&config, &out, Shard::WHOLE, true, |d| bar.set_position(d.done))?;
    bar.finish_and_clear();
    let c = alq_report::collect(&[out.join("games.csv")], 1, |_| {})?.searched.total;
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

fn gen_dir(out: &Path, g: usize) -> PathBuf {
    out.join(format!("gen-{g:03}"))
}

fn read_json<T: serde::de::DeserializeOwned>(path: &Path) -> anyhow::Result<T> {
    let text = std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    serde_json::from_str(&text).with_context(|| format!("{}", path.display()))
}

fn write_json<T: Serialize>(path: &Path, value: &T) -> anyhow::Result<()> {
    let text = serde_json::to_string_pretty(value)? + "\n";
    write_atomic(path, text.as_bytes()).with_context(|| format!("cannot write {}", path.display()))
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
            llr: r.sprt.as_ref().map(|s| s.state.llr),
            decision: r.sprt.as_ref().map(|s| s.state.decision),
        }
    }

    fn promotes(&self) -> bool {
        match self.decision {
            Some(SprtDecision::AcceptH1) => true,
            Some(SprtDecision::AcceptH0) => false,
            _ => self.elo_ci95[0] > 0.0,
        }
    }
}

fn stage_bar(multi: &MultiProgress, quiet: bool, template: &str) -> ProgressBar {
    let bar = if quiet { ProgressBar::hidden() } else { multi.add(ProgressBar::new(0)) };
    bar.set_style(ProgressStyle::with_template(template).expect("valid template"));
    bar
}

fn play_stage(
    stage: &MatchStage,
    a: &str,
    b: &str,
    seed: u64,
    multi: &MultiProgress,
    quiet: bool,
) -> anyhow::Result<StageResult> {
    let limits = Limits::nodes(stage.nodes.max(1));
    let config = MatchConfig {
        a: PlayerSpec::parse(a, limits)?,
        b: PlayerSpec::parse(b, limits)?,
        games: stage.games,
        openings: OpeningSource::AllAfter(stage.openings),
        seed,
        sprt: if stage.sprt.trim().is_empty() { None } else { Some(Sprt::parse(&stage.sprt).map_err(anyhow::Error::msg)?) },
        game: GameConfig { no_progress_limit: Some(60), max_plies: Some(400) },
        clock: None,
        time_margin: std::time::Duration::from_millis(500),
    };
    let bar = stage_bar(multi, quiet, "  {bar:30} {pos}/{len} games, {msg}");
    bar.set_length(stage.games);
    let report = run_match(&config, |p| {
        bar.set_position(p.tally.games());
        let llr = p.sprt.map(|s| format!(", LLR {:.2}", s.llr)).unwrap_or_default();
        bar.set_message(format!("Elo {:+.0}{llr}", p.tally.elo()));
    })?;
    bar.finish_and_clear();
    Ok(StageResult::of(&report))
}

pub fn run(args: PipelineArgs) -> anyhow::Result<()> {
    let config: PipelineConfig = crate::load_toml(Some(&args.config))?;
    config.train.validate().map_err(|e| anyhow::anyhow!("config {}: train.{e}", args.config.display()))?;
    if config.replay_window == 0 {
        bail!("config {}: replay_window must be at least 1", args.config.display());
    }
    let out = args.out.clone().unwrap_or_else(|| PathBuf::from(&config.out));
    std::fs::create_dir_all(&out).with_context(|| format!("cannot create {}", out.display()))?;
    let resolved_path = out.join("pipeline.toml");
    if resolved_path.exists() {
        if !args.resume {
            bail!("{} already holds a pipeline run; pass --resume to continue it, or choose another --out", out.display());
        }
        let old: PipelineConfig = toml::from_str(&std::fs::read_to_string(&resolved_path)?)
            .with_context(|| format!("{}", resolved_path.display()))?;
        let comparable = |c: &PipelineConfig| PipelineConfig { generations: 0, out: String::new(), ..c.clone() };
        if comparable(&old) != comparable(&config) {
            bail!("{} was written with other settings; a resumed run must use the same config (only generations may change)", resolved_path.display());
        }
    }
    write_atomic(&resolved_path, toml::to_string_pretty(&config)?.as_bytes())?;
    let pool = crate::thread_pool(args.threads)?;
    pool.install(|| run_generations(&config, &out, args.quiet))
}

fn run_generations(config: &PipelineConfig, out: &Path, quiet: bool) -> anyhow::Result<()> {
    let multi = MultiProgress::new();
    let top = if quiet { ProgressBar::hidden() } else { multi.add(ProgressBar::new(config.generations as u64 + 1)) };
    top.set_style(ProgressStyle::with_template("[{elapsed_precise}] generation {pos}/{len} {msg}").expect("valid template"));
    let mut best: Option<PathBuf> = None;
    let mut summary: Vec<GenerationSummary> = Vec::new();
    for g in 0..=config.generations {
        let dir = gen_dir(out, g);
        std::fs::create_dir_all(&dir)?;
        top.set_position(g as u64);
        let mut row = GenerationSummary {
            generation: g,
            selfplay_player: String::new(),
            games: 0,
            candidate: None,
            promoted: None,
            gate_elo: None,
            gate_elo_ci95: None,
            gate_llr: None,
            elo_vs_gen0: None,
            elo_vs_gen0_ci95: None,
            start: None,
            accuracy: None,
        };
        if g > 0 {
            // Training on the replay window.
            top.set_message("training");
            let first = g.saturating_sub(config.replay_window);
            let data: Vec<PathBuf> = (first..g).map(|k| gen_dir(out, k).join("games.csv")).collect();
            let train_dir = dir.join("train");
            let candidate = dir.join("candidate.alqnet");
            if !candidate.exists() {
                let tc = TrainConfig { seed: config.train.seed + g as u64, ..config.train.clone() };
                let bar = stage_bar(&multi, quiet, "  {prefix} {bar:30} {pos}/{len} samples, {msg}");
                let mut total = 0;
                train(&tc, &data, &train_dir, train_dir.join("config.toml").exists(), |e| match e {
                    Event::Counted { train_samples, .. } => total = train_samples,
                    Event::EpochStart { epoch, epochs } => {
                        bar.set_prefix(format!("epoch {epoch}/{epochs}"));
                        bar.set_length(total);
                        bar.set_position(0);
                    }
                    Event::Batch { samples, loss } => {
                        bar.set_position(samples);
                        bar.set_message(format!("loss {loss:.5}"));
                    }
                    Event::EpochEnd(_) => {}
                })?;
                bar.finish_and_clear();
                std::fs::copy(train_dir.join("network.alqnet"), dir.join("candidate.alqnet.tmp"))?;
                std::fs::rename(dir.join("candidate.alqnet.tmp"), &candidate)?;
                // The training metrics sit beside the candidate.
                std::fs::copy(train_dir.join("metrics.csv"), dir.join("metrics.csv"))?;
            }
            let candidate_spec = candidate.display().to_string();
            row.candidate = Some(candidate_spec.clone());

            // Gate against the best so far.
            top.set_message("gating");
            let match_path = dir.join("match.json");
            let gate: StageResult = if match_path.exists() {
                read_json(&match_path)?
            } else {
                let best_spec = best.as_ref().map_or("hce".to_string(), |p| p.display().to_string());
                let r = play_stage(&config.gate, &candidate_spec, &best_spec, 1000 + g as u64, &multi, quiet)?;
                write_json(&match_path, &r)?;
                r
            };
            let promoted = gate.promotes();
            row.promoted = Some(promoted);
            row.gate_elo = Some(gate.elo);
            row.gate_elo_ci95 = Some(gate.elo_ci95);
            row.gate_llr = gate.llr;
            if promoted {
                best = Some(candidate.clone());
                let best_path = out.join("best.alqnet");
                write_atomic(&best_path, &std::fs::read(&candidate)?)?;
            }

            // Strength against generation 0.
            top.set_message("measuring against generation 0");
            let elo_path = dir.join("elo.json");
            let eval: StageResult = if elo_path.exists() {
                read_json(&elo_path)?
            } else {
                let r = play_stage(&config.evaluation, &candidate_spec, "hce", 2000 + g as u64, &multi, quiet)?;
                write_json(&elo_path, &r)?;
                r
            };
            row.elo_vs_gen0 = Some(eval.elo);
            row.elo_vs_gen0_ci95 = Some(eval.elo_ci95);
        }

        // Self-play with the best player.
        top.set_message("self-play");
        let player = best.as_ref().map_or("hce".to_string(), |p| p.display().to_string());
        let sc = SelfplayConfig { player: player.clone(), seed: config.selfplay.seed + g as u64, ..config.selfplay.clone() };
        let bar = stage_bar(&multi, quiet, "  {bar:30} {pos}/{len} games ({per_sec})");
        bar.set_length(sc.games);
        run_selfplay(&sc, &dir, Shard::WHOLE, true, |d| bar.set_position(d.done))?;
        bar.finish_and_clear();
        row.selfplay_player = sc.player_spec()?.to_string();
        row.games = sc.games;
        if config.start.games > 0 {
            top.set_message("measuring the best player from the start");
            row.start = Some(measure_from_start(&config.start, &player, 3000 + g as u64, &config.selfplay.tablebase, &dir, &multi, quiet)?);
        }
        if !config.accuracy.tablebase.trim().is_empty() {
            top.set_message("endgame accuracy");
            let a = &config.accuracy;
            let judge = alq_selfplay::TablesSpec::open(a.tablebase.trim()).map_err(anyhow::Error::msg)?;
            let spec = PlayerSpec::parse(&player, Limits::nodes(a.nodes.max(1)))?;
            let report = alq_selfplay::accuracy::measure(&spec, judge.tables.as_ref(), a.pieces, a.positions as usize, a.seed)
                .map_err(|e| anyhow::anyhow!("[accuracy]: {e}"))?;
            row.accuracy = Some(report);
        }
        summary.push(row);
        write_summary(out, &summary)?;
    }
    top.set_position(config.generations as u64 + 1);
    top.set_message("report");
    let mut files: Vec<PathBuf> = (0..=config.generations).map(|g| gen_dir(out, g).join("games.csv")).collect();
    if config.start.games > 0 {
        files.extend((0..=config.generations).map(|g| gen_dir(out, g).join("start").join("games.csv")));
    }
    let collected = alq_report::collect(&files, 6, |_| {})?;
    alq_report::Report::new(&collected, &files, &Default::default()).write(&out.join("report"))?;
    top.finish_and_clear();
    let promoted = summary.iter().filter(|r| r.promoted == Some(true)).count();
    eprintln!(
        "{} generations, {promoted} promoted; best: {}; summary: {}",
        config.generations + 1,
        best.as_ref().map_or("hce (nothing promoted)".to_string(), |p| p.display().to_string()),
        out.join("summary.md").display()
    );
    Ok(())
}

fn write_summary(out: &Path, rows: &[GenerationSummary]) -> anyhow::Result<()> {
    write_json(&out.join("summary.json"), &rows)?;
    let fmt_ci = |e: Option<f64>, ci: Option<[f64; 2]>| match (e, ci) {
        (Some(e), Some([lo, hi])) => format!("{e:+.0} [{lo:+.0}, {hi:+.0}]"),
        _ => "–".to_string(),
    };
    let mut md = String::from(
        "# Pipeline summary\n\nWhite / draw / Black: the generation's best player against itself from the standard start \
         (first plies among near-best moves), with White's score and its 95 % interval.\n\n\
         Endgame accuracy: the best player's moves that keep a win or a draw in random positions judged by the \
         tables of `[accuracy]` (when the run names them).\n\n\
         | generation | self-play player | games | gate Elo vs best (95 %) | promoted | Elo vs generation 0 (95 %) | White / draw / Black (unfinished) | White's score (95 %) | endgame accuracy (95 %) |\n|---|---|---|---|---|---|---|---|---|\n",
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
        md += &format!(
            "| {} | {} | {} | {} | {} | {} | {wdb} | {score} | {accuracy} |\n",
            r.generation,
            r.selfplay_player,
            r.games,
            fmt_ci(r.gate_elo, r.gate_elo_ci95),
            r.promoted.map_or("–", |p| if p { "yes" } else { "no" }),
            fmt_ci(r.elo_vs_gen0, r.elo_vs_gen0_ci95)
        );
    }
    write_atomic(&out.join("summary.md"), md.as_bytes())?;
    Ok(())
}
