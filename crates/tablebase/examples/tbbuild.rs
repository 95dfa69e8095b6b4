//! Builds a tablebase without the CLI (handy for timing the library alone):
//! `cargo run --release -p alq-tablebase --example tbbuild -- 8 data/tb [distance|wdl]`.

use std::time::Instant;

fn main() {
    let mut args = std::env::args().skip(1);
    let pieces: u32 = args.next().and_then(|a| a.parse().ok()).expect("usage: tbbuild PIECES DIR");
    let dir = std::path::PathBuf::from(args.next().expect("usage: tbbuild PIECES DIR"));
    let started = Instant::now();
    let kind = match args.next().as_deref() {
        None | Some("distance") => alq_tablebase::Kind::Distance,
        Some("wdl") => alq_tablebase::Kind::Wdl,
        Some(other) => {
            eprintln!("unknown kind {other:?}: distance or wdl");
            std::process::exit(2);
        }
    };
    let options = alq_tablebase::BuildOptions { pieces, shard: None, rules: alq_engine::RuleSet::BrainKing, kind };
    let mut unit_started = Instant::now();
    let outcome = alq_tablebase::build(&dir, &options, &mut |event| match event {
        alq_tablebase::Event::UnitStart { .. } => unit_started = Instant::now(),
        alq_tablebase::Event::Unit(alq_tablebase::Phase::Settled { distance: 0 }) => {
            eprintln!("    sweep and pass 0: {:.1} s", unit_started.elapsed().as_secs_f64())
        }
        alq_tablebase::Event::UnitDone { unit, positions, seconds, passes } => {
            eprintln!(
                "{:8.1}s {unit}: {positions} entries, {passes} passes, {seconds:.1} s",
                started.elapsed().as_secs_f64()
            )
        }
        alq_tablebase::Event::LevelDone { pieces, seconds } => eprintln!("level {pieces}: {seconds:.1} s"),
        _ => {}
    })
    .expect("build");
    eprintln!("{outcome:?} in {:.1} s", started.elapsed().as_secs_f64());
}
