//! `alq engine`: the engine protocol (alq_play::protocol) on standard input
//! and output, so that match programs and other tools can drive the engine
//! (see docs/protocol.md for the commands).

use clap::Args;

#[derive(Args)]
pub struct EngineArgs {
    /// The rule set to start with (the `Rules` option changes it). Under
    /// rules other than BrainKing's the default Eval is `hce`, since the
    /// shipped network was trained on BrainKing games.
    #[command(flatten)]
    rules: crate::RulesArg,
}

pub fn run(args: EngineArgs) -> anyhow::Result<()> {
    alq_play::serve(args.rules.get(), std::io::BufReader::new(std::io::stdin()), std::io::stdout())?;
    Ok(())
}
