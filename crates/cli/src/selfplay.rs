//! `alq selfplay`: self-play games into a run folder (reproducible, resumable, shardable).

use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};

use anyhow::bail;
use clap::Args;

use alq_selfplay::{run_selfplay, SelfplayConfig, Shard};

#[derive(Args)]
pub struct SelfplayArgs {
    /// Run description (TOML); see configs/selfplay.toml. Flags override it.
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// Output folder: games.csv and run.toml are written there.
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
    /// The player (overrides the config's `player`): `hce`, `nn`, a network
    /// file, `random`, `greedy` or `perfect`, as in `alq match`.
    #[arg(long, value_name = "SPEC")]
    player: Option<String>,
    /// Games of the whole run (all shards together).
    #[arg(long, value_name = "N")]
    games: Option<u64>,
    /// Nodes per searched move.
    #[arg(long, value_name = "N")]
    nodes: Option<u64>,
    /// Run seed.
    #[arg(long, value_name = "S")]
    seed: Option<u64>,
    /// Play only game indices congruent to I modulo N (for spreading a run
    /// over machines; combine the parts with `alq records merge`).
    #[arg(long, value_name = "I/N")]
    shard: Option<String>,
    /// Endgame tables (a folder built by `alq tb build`; overrides the
    /// config's `tablebase`): the search uses them, both sides play the
    /// tables' best moves once a game reaches them, and each record keeps
    /// where the game entered them and White's exact value there.
    #[arg(long, value_name = "DIR")]
    tb: Option<PathBuf>,
    /// The rule set (overrides the config's `rules`; default brainking).
    #[command(flatten)]
    job: crate::JobArgs,
    #[command(flatten)]
    rules: crate::RulesArg,
}

pub fn run(args: SelfplayArgs) -> anyhow::Result<()> {
    let mut config: SelfplayConfig = crate::load_toml(args.config.as_deref())?;
    config.rules = args.rules.or(config.rules);
    if let Some(p) = args.player {
        config.player = p;
    }
    if let Some(g) = args.games {
        config.games = g;
    }
    if let Some(n) = args.nodes {
        config.nodes = n;
        config.depth = 0;
    }
    if let Some(s) = args.seed {
        config.seed = s;
    }
    if let Some(t) = args.job.threads {
        config.threads = t;
    }
    if let Some(dir) = &args.tb {
        config.tablebase = dir.to_string_lossy().into_owned();
    }
    if config.games == 0 {
        bail!("games must be at least 1");
    }
    let shard = match &args.shard {
        Some(text) => Shard::parse(text).map_err(anyhow::Error::msg)?,
        None => Shard::WHOLE,
    };
    let pool = crate::thread_pool((config.threads > 0).then_some(config.threads))?;
    let total = shard.indices(config.games).count() as u64;
    let bar = crate::progress::bar(args.job.quiet, total, "{bar:30} {pos}/{len} games ({per_sec}), {msg}, eta {eta}");
    let counts = [AtomicU64::new(0), AtomicU64::new(0), AtomicU64::new(0), AtomicU64::new(0)];
    let started = std::time::Instant::now();
    let written = pool.install(|| {
        run_selfplay(&config, &args.out, shard, args.job.resume, |done| {
            let slot = match (done.record.result.as_str(), done.record.termination.as_str()) {
                ("1-0", _) => 0,
                ("0-1", _) => 1,
                (_, "max_plies") => 3,
                _ => 2,
            };
            counts[slot].fetch_add(1, Ordering::Relaxed);
            bar.set_position(done.done);
            bar.set_message(format!(
                "White {} Black {} draws {} unfinished {}",
                counts[0].load(Ordering::Relaxed),
                counts[1].load(Ordering::Relaxed),
                counts[2].load(Ordering::Relaxed),
                counts[3].load(Ordering::Relaxed)
            ));
        })
    })?;
    bar.finish_and_clear();
    let secs = started.elapsed().as_secs_f64();
    eprintln!(
        "{written} games written to {} in {secs:.1} s ({:.1} games/s); White {} Black {} draws {} unfinished {}",
        args.out.join("games.csv").display(),
        written as f64 / secs.max(1e-9),
        counts[0].load(Ordering::Relaxed),
        counts[1].load(Ordering::Relaxed),
        counts[2].load(Ordering::Relaxed),
        counts[3].load(Ordering::Relaxed)
    );
    Ok(())
}
