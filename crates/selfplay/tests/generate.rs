//! Self-play runs: reproducible across thread counts, resumable after a
//! kill, and shards that merge into exactly the single-run file.

use std::path::{Path, PathBuf};

use alq_selfplay::{merge, run_selfplay, SelfplayConfig, SelfplayError, Shard};

fn dir(name: &str) -> PathBuf {
    let d = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("selfplay-tests").join(name);
    let _ = std::fs::remove_dir_all(&d);
    d
}

fn config(games: u64) -> SelfplayConfig {
    let mut c = SelfplayConfig { games, nodes: 200, seed: 9, ..SelfplayConfig::default() };
    c.opening.random_plies = 4;
    c.opening.temperature_plies = 2;
    c
}

fn run(config: &SelfplayConfig, out: &Path, shard: Shard, resume: bool, threads: usize) -> u64 {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap()
        .install(|| run_selfplay(config, out, shard, resume, |_| {}).unwrap())
}

fn games(out: &Path) -> Vec<u8> {
    std::fs::read(out.join("games.csv")).unwrap()
}

#[test]
fn runs_are_reproducible_resumable_and_shardable() {
    let whole = dir("whole");
    assert_eq!(run(&config(12), &whole, Shard::WHOLE, false, 1), 12);
    let reference = games(&whole);
    let (records, bad) = alq_records::read_all(&[whole.join("games.csv")], false).unwrap();
    assert_eq!((records.len(), bad.len()), (12, 0));
    assert!(records.iter().all(|g| g.record.opening_plies == 6), "4 random + 2 sampled plies");

    // Two threads: the same bytes.
    let two = dir("two");
    run(&config(12), &two, Shard::WHOLE, false, 2);
    assert_eq!(games(&two), reference);

    // A run stopped after 5 games, with its last row cut by a kill, resumes
    // to the same file.
    let resumed = dir("resumed");
    run(&config(5), &resumed, Shard::WHOLE, false, 2);
    let path = resumed.join("games.csv");
    let bytes = std::fs::read(&path).unwrap();
    std::fs::write(&path, &bytes[..bytes.len() - 15]).unwrap();
    assert_eq!(run(&config(12), &resumed, Shard::WHOLE, true, 2), 8);
    assert_eq!(games(&resumed), reference);
    // A kill right before the final newline: that row is redone.
    let newline = dir("newline");
    run(&config(5), &newline, Shard::WHOLE, false, 1);
    let path = newline.join("games.csv");
    let bytes = std::fs::read(&path).unwrap();
    std::fs::write(&path, &bytes[..bytes.len() - 1]).unwrap();
    assert_eq!(run(&config(12), &newline, Shard::WHOLE, true, 1), 8);
    assert_eq!(games(&newline), reference);
    // Resuming a complete run writes nothing more.
    assert_eq!(run(&config(12), &resumed, Shard::WHOLE, true, 1), 0);

    // Three shards merge into the single-run file.
    let mut parts = Vec::new();
    for i in 0..3 {
        let d = dir(&format!("shard-{i}"));
        run(&config(12), &d, Shard { index: i, count: 3 }, false, 1);
        parts.push(d.join("games.csv"));
    }
    let merged = dir("merged");
    std::fs::create_dir_all(&merged).unwrap();
    assert_eq!(merge(&parts, &merged.join("games.csv")).unwrap(), 12);
    assert_eq!(games(&merged), reference);

    // Merging with a shard missing, or twice, is refused.
    let err = merge(&parts[..2], &merged.join("bad.csv")).unwrap_err().to_string();
    assert!(err.contains("missing"), "{err}");
    let err = merge(&[parts[0].clone(), parts[0].clone()], &merged.join("bad.csv")).unwrap_err().to_string();
    assert!(err.contains("twice"), "{err}");
}

#[test]
fn existing_runs_are_protected() {
    let out = dir("protected");
    run(&config(2), &out, Shard::WHOLE, false, 1);
    let refused = run_selfplay(&config(2), &out, Shard::WHOLE, false, |_| {}).unwrap_err();
    assert!(
        matches!(&refused, SelfplayError::Run(alq_records::RunError::Occupied { path, .. }) if *path == out),
        "{refused}"
    );
    let mut other = config(4);
    other.seed = 10;
    let refused = run_selfplay(&other, &out, Shard::WHOLE, true, |_| {}).unwrap_err().to_string();
    assert!(refused.contains("other settings"), "{refused}");
}

#[test]
fn config_files_reject_unknown_keys() {
    let err = toml::from_str::<SelfplayConfig>("games = 3\nnodez = 5\n").unwrap_err().to_string();
    assert!(err.contains("nodez"), "{err}");
    let parsed: SelfplayConfig = toml::from_str(include_str!("../../../configs/selfplay.toml")).unwrap();
    assert_eq!(parsed, SelfplayConfig::default(), "the shipped config documents the defaults");
}

#[test]
fn games_with_tables_end_as_the_tables_say() {
    use alq_engine::Exact;
    let tb = dir("tables");
    alq_tablebase::build(
        &tb,
        &alq_tablebase::BuildOptions {
            pieces: 5,
            shard: None,
            rules: alq_engine::RuleSet::BrainKing,
            kind: alq_tablebase::Kind::Distance,
        },
        &mut |_| {},
    )
    .unwrap();
    let out = dir("with-tables");
    let mut c = config(24);
    c.player = "greedy".to_string();
    c.opening.temperature_plies = 0;
    c.tablebase = tb.to_string_lossy().into_owned();
    run(&c, &out, Shard::WHOLE, false, 2);
    let info = std::fs::read_to_string(out.join("run.toml")).unwrap();
    assert!(info.contains("≤ 5 pieces"), "run.toml names the tables: {info}");
    let (records, _) = alq_records::read_all(&[out.join("games.csv")], false).unwrap();
    let mut entered = 0;
    for g in &records {
        let r = &g.record;
        assert!(r.white.ends_with(&format!("tb={}", c.tablebase)), "{}", r.white);
        let Some((ply, value)) = r.table_entry().unwrap() else { continue };
        entered += 1;
        // The entry is the first position with at most 5 pieces.
        let pieces = |i: usize| g.game.positions()[i].occupied().count();
        assert!(pieces(ply as usize) <= 5 && (ply == 0 || pieces(ply as usize - 1) > 5), "game {}", r.id);
        // From there both sides played the tables' moves: the game ends as they say
        // (a win can still be drawn by the no-progress rule).
        match value {
            Exact::Draw => assert_eq!(r.result, "1/2-1/2", "game {}", r.id),
            Exact::Win(d) => {
                assert!(r.result == "1-0" || r.termination == "no_progress", "game {}", r.id);
                if r.result == "1-0" {
                    assert_eq!(r.plies, ply + d, "game {}: a win in {d} plies from ply {ply}", r.id);
                }
            }
            Exact::Loss(d) => {
                assert!(r.result == "0-1" || r.termination == "no_progress", "game {}", r.id);
                if r.result == "0-1" {
                    assert_eq!(r.plies, ply + d, "game {}", r.id);
                }
            }
        }
    }
    assert!(entered >= 12, "most greedy games reach 5 pieces ({entered} of 24)");
    // The same run with one thread: the same games (ties broken by each game's seed).
    let again = dir("with-tables-again");
    run(&c, &again, Shard::WHOLE, false, 1);
    assert_eq!(games(&again), games(&out));
}

/// A classic run plays classic games (records say so and replay only under
/// the classic rules), and refuses a network trained on BrainKing games.
#[test]
fn classic_runs_record_classic_games_and_refuse_brainking_networks() {
    use alq_engine::RuleSet;
    let out = dir("classic");
    let classic = SelfplayConfig { rules: RuleSet::Classic, ..config(6) };
    assert_eq!(run(&classic, &out, Shard::WHOLE, false, 2), 6);
    let (records, bad) = alq_records::read_all(&[out.join("games.csv")], false).unwrap();
    assert_eq!((records.len(), bad.len()), (6, 0));
    assert!(records.iter().all(|g| g.record.rules == "classic" && g.game.rules() == RuleSet::Classic));
    // Some game plays a move BrainKing's rules forbid, so the rule set matters.
    let brainking_replays = records
        .iter()
        .filter(|g| alq_records::GameRecord { rules: "brainking".into(), ..g.record.clone() }.replay().is_ok())
        .count();
    assert!(brainking_replays < 6, "every classic game was also a BrainKing game");
    let nn = SelfplayConfig { player: "nn".into(), ..classic.clone() };
    let err = run_selfplay(&nn, &dir("classic-nn"), Shard::WHOLE, false, |_| {}).unwrap_err().to_string();
    assert!(err.contains("brainking") && err.contains("classic"), "{err}");
}
