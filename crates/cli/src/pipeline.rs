//! `alq pipeline`: generations of self-play, training and gating. The work is
//! `alq_pipeline::run_pipeline`; this module parses flags and draws bars.

use std::path::PathBuf;

use clap::Args;
use indicatif::{MultiProgress, ProgressBar};

use alq_pipeline::{run_pipeline, PipelineConfig, PipelineEvent, Stage};

#[derive(Args)]
pub struct PipelineArgs {
    /// Pipeline description (TOML): see configs/quick.toml and configs/full.toml.
    #[arg(long, value_name = "FILE")]
    config: PathBuf,
    /// Output folder (default: the config's `out`).
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// The rule set of the run (overrides the config's top-level `rules`;
    /// default brainking).
    #[command(flatten)]
    job: crate::JobArgs,
    #[command(flatten)]
    rules: crate::RulesArg,
}

/// The bars: one for the generations, one for the stage in progress.
struct Bars {
    multi: MultiProgress,
    top: ProgressBar,
    stage: std::sync::Mutex<ProgressBar>,
    quiet: bool,
}

impl Bars {
    fn new(quiet: bool, generations: usize) -> Bars {
        let multi = MultiProgress::new();
        let top = crate::progress::bar_in(
            &multi,
            quiet,
            generations as u64 + 1,
            "[{elapsed_precise}] generation {pos}/{len} {msg}",
        );
        Bars { multi, top, stage: std::sync::Mutex::new(ProgressBar::hidden()), quiet }
    }

    fn on(&self, event: PipelineEvent) {
        let mut stage = self.stage.lock().unwrap_or_else(|e| e.into_inner());
        match event {
            PipelineEvent::Generation { generation, .. } => self.top.set_position(generation as u64),
            PipelineEvent::Stage { stage: which, total, unit } => {
                stage.finish_and_clear();
                self.top.set_message(which.describe());
                let template = match which {
                    Stage::Training => "  {prefix} {bar:30} {pos}/{len} samples, {msg}".to_string(),
                    Stage::Gating | Stage::Evaluating => "  {bar:30} {pos}/{len} games, {msg}".to_string(),
                    Stage::Report => "  {spinner} report".to_string(),
                    _ => format!("  {{bar:30}} {{pos}}/{{len}} {unit} ({{per_sec}})"),
                };
                let bar = crate::progress::bar_in(&self.multi, self.quiet, total, &template);
                *stage = bar;
            }
            PipelineEvent::Epoch { epoch, epochs, samples } => {
                stage.set_prefix(format!("epoch {epoch}/{epochs}"));
                stage.set_length(samples);
                stage.set_position(0);
            }
            PipelineEvent::Progress { done, note } => {
                stage.set_position(done);
                if !note.is_empty() {
                    stage.set_message(note);
                }
            }
            PipelineEvent::GenerationDone(_) => stage.finish_and_clear(),
        }
    }

    fn finish(&self) {
        self.stage.lock().unwrap_or_else(|e| e.into_inner()).finish_and_clear();
        self.top.finish_and_clear();
    }
}

pub fn run(args: PipelineArgs) -> anyhow::Result<()> {
    let mut config: PipelineConfig = crate::load_toml(Some(&args.config))?;
    config.rules = args.rules.or(config.rules);
    config.validate().map_err(|e| anyhow::anyhow!("config {}: {e}", args.config.display()))?;
    let out = args.out.clone().unwrap_or_else(|| PathBuf::from(&config.out));
    let pool = crate::thread_pool(args.job.threads)?;
    let bars = Bars::new(args.job.quiet, config.generations);
    let outcome = pool.install(|| run_pipeline(&config, &out, args.job.resume, |e| bars.on(e)));
    bars.finish();
    let outcome = outcome?;
    let promoted = outcome.summary.iter().filter(|r| r.promoted == Some(true)).count();
    eprintln!(
        "{} generations, {promoted} promoted; best: {}; summary: {}",
        config.generations + 1,
        outcome.best.as_ref().map_or("hce (nothing promoted)".to_string(), |p| p.display().to_string()),
        out.join("summary.md").display()
    );
    Ok(())
}
