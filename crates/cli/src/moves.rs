//! `alq moves`: the legal moves of a position, sorted, one per line.

use anyhow::Context;
use clap::Args;

use alq_engine::START_TEXT;

#[derive(Args)]
pub struct MovesArgs {
    /// Position text, ranks 5 to 1 then the side to move.
    #[arg(long, value_name = "TEXT", default_value = START_TEXT)]
    position: String,
    /// Moves to play from the position first, space-separated (e.g.
    /// `d3-c3 b3xd3`); the legal moves of the position they reach are printed.
    #[arg(long, value_name = "MOVES", default_value = "")]
    after: String,
    #[command(flatten)]
    rules: crate::RulesArg,
}

pub fn run(args: MovesArgs) -> anyhow::Result<()> {
    let rules = args.rules.get();
    let mut pos = crate::parse_position(Some(&args.position))?;
    for (i, text) in args.after.split_whitespace().enumerate() {
        let mv = pos.parse_move_in(rules, text).with_context(|| format!("--after: move {}", i + 1))?;
        pos = pos.play(mv);
    }
    let mut names: Vec<String> = pos.legal_moves_in(rules).iter().map(|m| m.to_string()).collect();
    names.sort();
    for name in names {
        println!("{name}");
    }
    Ok(())
}
