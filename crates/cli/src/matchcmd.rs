//! `alq match`: two players over paired openings, with Elo and SPRT.

use std::path::PathBuf;
use std::time::Duration;

use anyhow::{bail, Context};
use clap::Args;

use alq_engine::{GameConfig, Limits};
use alq_play::{openings, run_match_with_games, MatchConfig, MatchReport, OpeningSource, PlayerSpec, TimeControl};
use alq_stats::Sprt;

#[derive(Args)]
pub struct MatchArgs {
    /// First player: `hce`, `nn`, a network file, `random` or `greedy`,
    /// optionally with its own limits and settings after `@`, e.g.
    /// `hce@nodes=500`, `hce@depth=6,hash=32,mobility=4`,
    /// `nn@movetime=50,threads=2` or `nn@nodes=2000,tb=data/tb8` (its own
    /// endgame tables). Or an external engine speaking the `alq engine`
    /// protocol: `engine:COMMAND` (run by `sh -c`, one process per game),
    /// e.g. `engine:python3 scripts/example_bot.py`, with limits (`nodes`,
    /// `depth`, `movetime`) and engine options (`Hash=32`) after the last
    /// `@`. A player that crashes, runs out of time or sends an illegal or
    /// malformed move loses the game by forfeit.
    #[arg(long, value_name = "SPEC")]
    a: String,
    /// Second player, same form as --a.
    #[arg(long, value_name = "SPEC")]
    b: String,
    /// Number of games (even: each opening is played twice, colours swapped).
    #[arg(long, value_name = "N", default_value_t = 200)]
    games: u64,
    /// Nodes per move for players that name no limit of their own.
    #[arg(long, value_name = "N", conflicts_with_all = ["depth", "tc", "movetime"])]
    nodes: Option<u64>,
    /// Time control for both players: BASE+INC in seconds (e.g. `10+0.1`).
    /// Built-in searchers spend a share of their clock on each move;
    /// external engines get `go wtime .. btime .. winc .. binc ..`. A
    /// player whose clock runs out (past --time-margin) forfeits.
    #[arg(long, value_name = "BASE+INC", conflicts_with_all = ["depth", "movetime"])]
    tc: Option<String>,
    /// Time per move in milliseconds for both players (replaces their own
    /// movetime); an external engine that takes longer than this plus
    /// --time-margin forfeits.
    #[arg(long, value_name = "MS", value_parser = clap::value_parser!(u64).range(1..))]
    movetime: Option<u64>,
    /// How far past its clock or move time a player may go before it
    /// forfeits, in milliseconds.
    #[arg(long, value_name = "MS", default_value_t = 500)]
    time_margin: u64,
    /// Depth per move for players that name no limit of their own.
    #[arg(long, value_name = "D")]
    depth: Option<u32>,
    /// Openings: every distinct position this many plies from the start
    /// (default 8 when neither --random-plies nor --book is given).
    #[arg(long, value_name = "K", conflicts_with_all = ["random_plies", "book"])]
    openings: Option<u32>,
    /// Openings: this many random plies from the start, drawn from the seed.
    #[arg(long, value_name = "K", conflicts_with = "book")]
    random_plies: Option<u32>,
    /// Openings from a file: one line of moves per row, or a CSV with a
    /// `line` column (as written by `alq openings`); or a shipped book by
    /// name, `balanced` (configs/balanced-10.csv) or `unbalanced`
    /// (configs/unbalanced-10.csv), when no file of that name exists.
    #[arg(long, value_name = "FILE")]
    book: Option<PathBuf>,
    /// Seed for opening order, random openings and random players.
    #[arg(long, value_name = "S", default_value_t = 1)]
    seed: u64,
    /// Worker threads (default: all cores).
    #[arg(long, value_name = "T")]
    threads: Option<usize>,
    /// Stop as soon as a sequential probability ratio test decides:
    /// `elo0,elo1[,alpha,beta]` (alpha and beta default to 0.05).
    #[arg(long, value_name = "ELO0,ELO1[,ALPHA,BETA]")]
    sprt: Option<String>,
    /// Consecutive plies without capture or forward move that draw a game.
    #[arg(long, value_name = "PLIES", default_value_t = 60)]
    no_progress: u32,
    /// Cap on a game's length in plies (a draw when reached).
    #[arg(long, value_name = "PLIES", default_value_t = 400)]
    max_plies: u32,
    /// Endgame tables for both players (a folder built by `alq tb build`),
    /// unless a player names its own with `tb=DIR`. A player with tables
    /// searches with them and, once every move leads into them, plays a best
    /// move by the tables; saved games record where they entered the tables.
    #[arg(long, value_name = "DIR")]
    tb: Option<PathBuf>,
    /// Also write every game to this games file (records format).
    #[arg(long, value_name = "FILE.csv")]
    save_games: Option<PathBuf>,
    /// Also write the result as JSON.
    #[arg(long, value_name = "FILE.json")]
    out: Option<PathBuf>,
    /// No progress bar.
    #[arg(long)]
    quiet: bool,
    /// After the match, grade every move of its games against perfect play
    /// (as `alq accuracy` does; the oracle uses --tb, --store and the shipped
    /// proofs) and add the grades per player to the summary and --out.
    #[arg(long)]
    grade: bool,
    /// Grading search budget per position, in milliseconds.
    #[arg(long, value_name = "MS", default_value_t = 1000, requires = "grade", value_parser = clap::value_parser!(u64).range(1..))]
    grade_movetime: u64,
    #[command(flatten)]
    grading: crate::accuracy::GradeOracleArgs,
    #[command(flatten)]
    rules: crate::RulesArg,
}

pub fn run(args: MatchArgs) -> anyhow::Result<()> {
    let movetime = args.movetime.map(Duration::from_millis);
    let clock = args.tc.as_deref().map(TimeControl::parse).transpose().map_err(anyhow::Error::msg)?;
    let default_limits = Limits { depth: args.depth, nodes: args.nodes, movetime };
    let default_limits =
        if default_limits == Limits::default() && clock.is_none() { Limits::nodes(2000) } else { default_limits };
    let rules = args.rules.get();
    let tables = crate::players::open_tables(args.tb.as_deref(), rules)?;
    let player = |spec: &str| -> anyhow::Result<PlayerSpec> {
        Ok(PlayerSpec::parse_with_clock(spec, default_limits, clock)?
            .with_tables(tables.as_ref())
            .with_movetime(movetime))
    };
    let (a, b) = (player(&args.a)?, player(&args.b)?);
    if a.is_external() || b.is_external() {
        // An engine that exits must not take the match with it: writing to
        // its closed input then fails with an error (a forfeit) instead of
        // ending this process by SIGPIPE.
        #[cfg(unix)]
        // SAFETY: changing a signal's disposition to "ignore" has no other effect.
        unsafe {
            libc::signal(libc::SIGPIPE, libc::SIG_IGN);
        }
    }
    let openings = if let Some(path) = &args.book {
        let shipped = path.to_str().filter(|_| !path.exists()).and_then(alq_play::shipped_book);
        let text = match shipped {
            Some(text) => text.to_string(),
            None => std::fs::read_to_string(path).with_context(|| format!("cannot read book {}", path.display()))?,
        };
        let book = openings::parse_book(rules, &text).map_err(|e| anyhow::anyhow!("book {}: {e}", path.display()))?;
        OpeningSource::Book(book)
    } else if let Some(k) = args.random_plies {
        OpeningSource::Random(k)
    } else {
        OpeningSource::AllAfter(args.openings.unwrap_or(8))
    };
    let sprt = args.sprt.as_deref().map(Sprt::parse).transpose().map_err(anyhow::Error::msg)?;
    if args.no_progress == 0 || args.max_plies == 0 {
        bail!("--no-progress and --max-plies must be at least 1");
    }
    let config = MatchConfig {
        a,
        b,
        games: args.games,
        openings,
        seed: args.seed,
        sprt,
        game: GameConfig { no_progress_limit: Some(args.no_progress), max_plies: Some(args.max_plies), rules },
        clock,
        time_margin: Duration::from_millis(args.time_margin),
    };
    let pool = crate::thread_pool(args.threads)?;
    let bar = crate::progress::bar(args.quiet, args.games, "{bar:30} {pos}/{len} games, {msg} (eta {eta})");
    let report = pool.install(|| {
        run_match_with_games(&config, |p| {
            bar.set_position(p.tally.games());
            let mut msg = format!("score {:.1}%, Elo {:+.0}", 100.0 * p.tally.score(), p.tally.elo());
            if let Some(s) = p.sprt {
                msg += &format!(", LLR {:.2} [{:.2}, {:.2}]", s.llr, s.lower, s.upper);
            }
            bar.set_message(msg);
        })
    })?;
    bar.finish_and_clear();
    let (report, games) = report;
    print_report(&report);
    let grades = if args.grade {
        let budget = args.grading.budget(Some(args.grade_movetime), None);
        let tb = args.tb.as_deref().map(|dir| crate::players::open_tablebase(dir, Some(rules))).transpose()?;
        let oracle = args.grading.open(rules, tb.as_ref(), budget)?;
        let (grades, graded) =
            crate::accuracy::grade_records(&oracle, &games, budget, args.grading.values(), args.quiet)?;
        crate::accuracy::print_grades(&grades);
        Some(crate::accuracy::grades_json(&grades, &graded)?)
    } else {
        None
    };
    let pairs = report.games.div_ceil(2);
    if !matches!(config.openings, OpeningSource::Random(_)) && pairs > report.openings as u64 {
        eprintln!(
            "note: {pairs} pairs over {} openings: a player searching to fixed nodes or depth repeats its games \
             on a repeated opening, so the interval above may be narrower than the evidence",
            report.openings
        );
    }
    if let Some(path) = &args.save_games {
        if path.exists() {
            bail!("{} exists; choose a new file for --save-games", path.display());
        }
        let mut writer = alq_records::RecordWriter::append(path)?;
        for g in &games {
            writer.write(g)?;
        }
        writer.sync()?;
    }
    if let Some(path) = &args.out {
        let mut json = serde_json::to_value(&report)?;
        if let Some(grades) = grades {
            json["grades"] = grades;
        }
        let json = serde_json::to_string_pretty(&json)?;
        alq_records::write_atomic(path, json.as_bytes()).with_context(|| format!("cannot write {}", path.display()))?;
    }
    Ok(())
}

fn print_report(r: &MatchReport) {
    println!("match {} vs {}", r.a, r.b);
    println!("games {} (openings {}, seed {})", r.games, r.openings, r.seed);
    println!("wins {} draws {} losses {} (first player's view)", r.wins, r.draws, r.losses);
    println!("white wins {} black wins {}", r.white_wins, r.black_wins);
    println!("score {:.4}", r.score);
    println!("elo {:+.1} [{:+.1}, {:+.1}] (95%)", r.elo, r.elo_ci95[0], r.elo_ci95[1]);
    match (r.nelo, r.nelo_ci95) {
        (Some(v), Some([lo, hi])) => println!("nelo {v:+.1} [{lo:+.1}, {hi:+.1}] (95%)"),
        _ => println!("nelo n/a (no pairs, or every pair scored the same)"),
    }
    let p = r.pentanomial;
    println!("pentanomial 0:{} 0.5:{} 1:{} 1.5:{} 2:{}", p[0], p[1], p[2], p[3], p[4]);
    println!("forfeits {} by the first player, {} by the second", r.forfeits[0], r.forfeits[1]);
    for note in &r.forfeit_notes {
        println!("forfeit {note}");
    }
    for (i, name) in [&r.a, &r.b].into_iter().enumerate() {
        if r.fallbacks[i] > 0 {
            println!(
                "fallbacks {name}: {} moves by search in {} games (the oracle knew no value within the budget)",
                r.fallbacks[i], r.fallback_games[i]
            );
        }
    }
    if let Some(s) = &r.sprt {
        println!(
            "sprt elo0 {} elo1 {} alpha {} beta {}: llr {:.3} bounds [{:.3}, {:.3}] {:?}{}",
            s.params.elo0,
            s.params.elo1,
            s.params.alpha,
            s.params.beta,
            s.state.llr,
            s.state.lower,
            s.state.upper,
            s.state.decision,
            if r.stopped_early { " (stopped early)" } else { "" }
        );
    }
}
