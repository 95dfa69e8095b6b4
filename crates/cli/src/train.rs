//! `alq train`: fit the value network on self-play records.

use std::path::PathBuf;

use anyhow::Context;
use clap::Args;

use alq_train::{train, Event, TrainConfig};

#[derive(Args)]
pub struct TrainArgs {
    /// Training settings (TOML); see configs/train.toml. Flags override it.
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// Games files, or folders searched recursively for files named games.csv.
    #[arg(long, value_name = "PATH", num_args = 1.., required = true)]
    data: Vec<PathBuf>,
    /// Output folder: config.toml, metrics.csv, checkpoint/, network.alqnet.
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
    /// Override the number of epochs.
    #[arg(long, value_name = "N")]
    epochs: Option<usize>,
    /// The rule set (overrides the config's `rules`; default brainking).
    #[command(flatten)]
    job: crate::JobArgs,
    #[command(flatten)]
    rules: crate::RulesArg,
}

pub fn run(args: TrainArgs) -> anyhow::Result<()> {
    let mut config: TrainConfig = crate::load_toml(args.config.as_deref())?;
    config.rules = args.rules.or(config.rules);
    if let Some(e) = args.epochs {
        config.epochs = e;
    }
    let files = alq_report::game_files(&args.data).context("cannot list the data")?;
    let pool = crate::thread_pool(args.job.threads)?;
    let bar = crate::progress::bar(args.job.quiet, 0, "{prefix} {bar:30} {pos}/{len} samples ({per_sec}), {msg}");
    let mut train_samples = 0;
    let summary = pool.install(|| {
        train(&config, &files, &args.out, args.job.resume, |event| match event {
            Event::Counted { train_samples: t, validation_samples: v, exact_samples: x, exact_by_result: m } => {
                train_samples = t;
                let exact = if x > 0 {
                    format!(
                        "; {x} ({:.1} %) with exact values from the tables or stores (weight {}): {}",
                        100.0 * x as f64 / (t + v).max(1) as f64,
                        config.exact_weight,
                        describe_exact(&m)
                    )
                } else {
                    String::new()
                };
                // Printed whether or not the bar is drawn (it is hidden
                // when quiet or not on a terminal).
                bar.suspend(|| eprintln!("{t} training and {v} validation positions{exact}"));
            }
            Event::EpochStart { epoch, epochs } => {
                bar.set_prefix(format!("epoch {epoch}/{epochs}"));
                bar.set_length(train_samples);
                bar.reset();
            }
            Event::Batch { samples, loss } => {
                bar.set_position(samples);
                bar.set_message(format!("loss {loss:.5}"));
            }
            Event::Widened { from, to } => bar.println(format!(
                "widened the init network's hidden layers from {from:?} to {to:?} (it computes the same)"
            )),
            Event::EpochEnd(m) => bar.println(format!(
                "epoch {}: train loss {:.5}, validation loss {:.5}, lr {:.2e}, {:.0} samples/s",
                m.epoch, m.train_loss, m.validation_loss, m.learning_rate, m.samples_per_second
            )),
        })
    })?;
    bar.finish_and_clear();
    eprintln!(
        "best validation loss {:.5} at epoch {} of {}{}; network: {}",
        summary.best_validation_loss,
        summary.best_epoch,
        summary.epochs_done,
        if summary.stopped_early { " (stopped early)" } else { "" },
        summary.network.display()
    );
    Ok(())
}

/// What the exact values say against the games' results: `W won (a drawn,
/// b lost in the game), D drawn (...), L lost (...)`.
fn describe_exact(m: &[[u64; 3]; 3]) -> String {
    let names = ["won", "drawn", "lost"];
    (0..3)
        .map(|e| {
            let others: Vec<String> =
                (0..3).filter(|&r| r != e).map(|r| format!("{} {} in the game", m[e][r], names[r])).collect();
            format!("{} {} ({})", m[e].iter().sum::<u64>(), names[e], others.join(", "))
        })
        .collect::<Vec<_>>()
        .join("; ")
}
