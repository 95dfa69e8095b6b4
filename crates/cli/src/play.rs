//! `alq play`: a game against the engine in the terminal.

use std::io::{BufRead, Write};
use std::path::PathBuf;

use anyhow::Context;
use clap::{Args, ValueEnum};

use alq_engine::{Game, GameConfig, Limits, Move, Point, Score, SearchConfig, Searcher, Side, START_TEXT};
use alq_records::{GameRecord, RecordWriter};

use crate::players::parse_evaluator;

#[derive(Clone, Copy, ValueEnum)]
pub enum Color {
    White,
    Black,
}

#[derive(Args)]
pub struct PlayArgs {
    /// The side you play.
    #[arg(long, value_enum, default_value = "white")]
    color: Color,
    /// Engine search depth per move.
    #[arg(long, value_name = "D", conflicts_with_all = ["nodes", "movetime"])]
    depth: Option<u32>,
    /// Engine nodes per move (default 200000 when no limit is given).
    #[arg(long, value_name = "N", conflicts_with = "movetime")]
    nodes: Option<u64>,
    /// Engine time per move in milliseconds.
    #[arg(long, value_name = "MS")]
    movetime: Option<u64>,
    /// Engine evaluator: `nn` (the shipped network), a network file, or `hce`
    /// (see `alq analyze --help`).
    #[arg(long, value_name = "EVAL", default_value = "nn")]
    eval: String,
    /// Engine search threads (Lazy SMP, see `alq analyze --help`).
    #[arg(long, value_name = "T", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=256))]
    threads: u32,
    /// Start position text.
    #[arg(long, value_name = "TEXT", default_value = START_TEXT)]
    position: String,
    /// Endgame tables (a folder built by `alq tb build`): the engine searches
    /// with them and plays perfect endgames once every move leads into them.
    #[arg(long, value_name = "DIR")]
    tb: Option<PathBuf>,
    /// A proven-position store: with it (or `--tb`) `hint` also prints the
    /// oracle's exact value of the position and of the hinted move.
    #[arg(long, value_name = "FILE")]
    store: Option<PathBuf>,
    /// Play against this player instead of the engine: any `alq match`
    /// player spec, e.g. `perfect@tb=data/tb` (perfect play where the
    /// oracle knows the value), `hce@nodes=1000`, `random` (`hint` still
    /// asks the engine).
    #[arg(long, value_name = "SPEC")]
    opponent: Option<String>,
    /// Append the finished game to this games file (records format).
    #[arg(long, value_name = "FILE")]
    save: Option<PathBuf>,
    #[command(flatten)]
    rules: crate::RulesArg,
}

const HELP: &str = "commands: a move (d3-c3, b2xb4xd4), moves, hint, undo, board, resign, help, quit";

pub fn run(args: PlayArgs) -> anyhow::Result<()> {
    let start = crate::parse_position(Some(&args.position))?;
    let limits =
        Limits { depth: args.depth, nodes: args.nodes, movetime: args.movetime.map(std::time::Duration::from_millis) };
    let limits = if limits == Limits::default() { Limits::nodes(200_000) } else { limits };
    let rules = args.rules.get();
    let eval = parse_evaluator(&args.eval, rules)?;
    let tables = crate::players::open_tables(args.tb.as_deref(), rules)?;
    let engine_name = match &tables {
        Some(t) => format!("{}@{limits},tb={}", eval.describe(), t.dir),
        None => format!("{}@{limits}", eval.describe()),
    };
    let mut opponent = match &args.opponent {
        Some(text) => {
            let spec = alq_play::PlayerSpec::parse(text, limits)?.with_tables(tables.as_ref());
            spec.check_rules(rules)?;
            Some(spec.build())
        }
        None => None,
    };
    let engine_name = opponent.as_ref().map_or(engine_name, |p| p.spec().to_string());
    let mut rng = <rand_chacha::ChaCha8Rng as rand::SeedableRng>::seed_from_u64(std::process::id().into());
    let mut searcher = Searcher::new(eval, SearchConfig { hash_mb: 64 });
    searcher.set_threads(args.threads as usize);
    crate::players::attach_tables(&mut searcher, tables.as_ref());
    let human = match args.color {
        Color::White => Side::White,
        Color::Black => Side::Black,
    };
    let oracle_tb = crate::players::shared_tablebase(args.tb.as_deref(), rules)?;
    let oracle = match (&oracle_tb, &args.store) {
        (None, None) => None,
        (tb, store) => {
            let budget = alq_solver::Budget::time(std::time::Duration::from_secs(2));
            Some(crate::players::open_oracle(rules, tb.as_deref(), "hce", budget, true, store.as_deref())?.0)
        }
    };
    let mut game = Game::new(start, GameConfig::with_rules(rules));
    let mut scores: Vec<Option<Score>> = Vec::new();
    let stdin = std::io::stdin();
    let mut lines = stdin.lock().lines();
    println!("You play {human} under the {rules} rules. {HELP}");
    let mut resigned = false;
    print_board(&game);
    while !game.is_over() {
        if game.position().side_to_move() != human {
            if let Some(player) = opponent.as_mut() {
                let Some(choice) = player.choose(&game, &mut rng) else { break };
                game.play(choice.mv).context("opponent move")?;
                scores.push(choice.score);
                println!("{engine_name} plays {}", choice.mv);
                print_board(&game);
                continue;
            }
            let result = searcher.search(&game, limits, |_| {});
            let Some(mv) = result.best else { break };
            game.play(mv).context("engine move")?;
            scores.push(Some(result.score));
            println!("engine plays {mv} ({})", result.score);
            print_board(&game);
            continue;
        }
        print!("{} to move> ", game.position().side_to_move());
        std::io::stdout().flush()?;
        let Some(line) = lines.next() else { break };
        let line = line?;
        match line.trim() {
            "" => {}
            "help" => println!("{HELP}"),
            "quit" | "exit" => break,
            "board" => print_board(&game),
            "moves" => println!("{}", sorted_moves(&game).join(" ")),
            "resign" => {
                resigned = true;
                break;
            }
            "hint" => {
                let r = searcher.search(&game, limits, |_| {});
                match r.best {
                    Some(mv) => println!("hint: {mv} ({})", r.score),
                    None => println!("no moves"),
                }
                if let (Some(o), Some(mv)) = (&oracle, r.best) {
                    let here = o.value(&game.position())?;
                    let after = o.value(&game.position().play(mv))?.value.for_other_side();
                    println!("exact: the position is {} for you ({}); {mv} gives you {after}", here.value, here.source);
                }
            }
            "undo" => {
                // Take back the engine's reply and your move before it.
                while game.undo().is_some() {
                    scores.pop();
                    if game.position().side_to_move() == human {
                        break;
                    }
                }
                print_board(&game);
            }
            text => match game.play_text(text) {
                Ok(_) => {
                    scores.push(None);
                    print_board(&game);
                }
                Err(e) => println!("{e}"),
            },
        }
    }
    println!("moves: {}", game.moves().iter().map(|m| m.to_string()).collect::<Vec<_>>().join(" "));
    match (game.outcome(), resigned) {
        (Some(o), _) => {
            println!("result {} ({})", o.result_text(), o.termination);
            if let Some(path) = &args.save {
                let (white, black) = match human {
                    Side::White => ("human", engine_name.as_str()),
                    Side::Black => (engine_name.as_str(), "human"),
                };
                let record = GameRecord::from_game(0, 0, white, black, &game, 0, &scores);
                RecordWriter::append(path)?.write(&record)?;
                println!("saved to {}", path.display());
            }
        }
        (None, true) => println!("you resigned: {}", if human == Side::White { "0-1" } else { "1-0" }),
        (None, false) => println!("game left unfinished"),
    }
    if args.save.is_some() && game.outcome().is_none() {
        println!("not saved: only games ended by the rules are records");
    }
    Ok(())
}

fn sorted_moves(game: &Game) -> Vec<String> {
    let mut names: Vec<String> = game.legal_moves().iter().map(|m| m.to_string()).collect();
    names.sort();
    names
}

/// The board with coordinates; the last move's end is in brackets, its start
/// marked `*` and captured points `x`.
fn print_board(game: &Game) {
    let pos = game.position();
    let last: Option<Move> = game.moves().last().copied();
    for rank in (0..5u8).rev() {
        let mut row = format!("{}  ", rank + 1);
        for file in 0..5u8 {
            let p = Point::from_coords(file, rank).expect("on the board");
            let piece = match pos.piece_at(p) {
                Some(Side::White) => 'W',
                Some(Side::Black) => 'B',
                None => '.',
            };
            let cell = match last {
                Some(m) if m.to() == p => format!("[{piece}]"),
                Some(m) if m.from() == p => " * ".to_string(),
                Some(m) if m.captured().contains(p) => " x ".to_string(),
                _ => format!(" {piece} "),
            };
            row += &cell;
            if file < 4 {
                row.push('-');
            }
        }
        println!("{row}");
        if rank > 0 {
            println!("{}", if rank % 2 == 0 { "    | \\ | / | \\ | / |" } else { "    | / | \\ | / | \\ |" });
        }
    }
    println!("    a   b   c   d   e");
    if let Some(m) = last {
        println!("last move: {m}");
    }
}
