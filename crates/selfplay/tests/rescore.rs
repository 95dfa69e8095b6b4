//! Rescoring: the same games with deeper scores at the sampled positions
//! only, reproducible across thread counts, resumable, and refusing what it
//! cannot do.

use std::path::{Path, PathBuf};

use alq_records::{parse_score, read_all};
use alq_selfplay::rescore::is_sampled;
use alq_selfplay::{run_rescore, run_selfplay, RescoreConfig, SelfplayConfig, Shard};

fn dir(name: &str) -> PathBuf {
    let d = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("rescore-tests").join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn pool(threads: usize) -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap()
}

/// 10 self-play games at 100 nodes, made once per test.
fn games(at: &Path) -> PathBuf {
    let mut c = SelfplayConfig { games: 10, nodes: 100, seed: 4, ..SelfplayConfig::default() };
    c.opening.random_plies = 4;
    c.opening.temperature_plies = 0;
    pool(2).install(|| run_selfplay(&c, at, Shard::WHOLE, false, |_| {}).unwrap());
    at.join("games.csv")
}

fn config(input: &Path) -> RescoreConfig {
    RescoreConfig {
        player: "hce@nodes=3000".to_string(),
        fraction: 0.5,
        seed: 7,
        rules: alq_engine::RuleSet::BrainKing,
        inputs: vec![input.display().to_string()],
    }
}

fn rescore(
    config: &RescoreConfig,
    out: &Path,
    resume: bool,
    threads: usize,
) -> Result<alq_selfplay::RescoreSummary, String> {
    pool(threads).install(|| run_rescore(config, out, resume, |_, _| {})).map_err(|e| e.to_string())
}

#[test]
fn rescoring_changes_only_the_sampled_scores() {
    let d = dir("sampled");
    let input = games(&d.join("selfplay"));
    let out = d.join("rescored.csv");
    let summary = rescore(&config(&input), &out, false, 1).unwrap();
    assert_eq!((summary.games, summary.resumed), (10, 0));
    assert!(d.join("rescored.rescore.toml").exists());

    let (before, _) = read_all(std::slice::from_ref(&input), false).unwrap();
    let (after, bad) = read_all(std::slice::from_ref(&out), false).unwrap();
    assert!(bad.is_empty());
    assert_eq!(before.len(), after.len());
    let (mut sampled, mut changed, mut scored) = (0u64, 0u64, 0u64);
    for (b, a) in before.iter().zip(&after) {
        // Everything but the scores is the same game.
        let mut same = a.record.clone();
        same.scores = b.record.scores.clone();
        assert_eq!(same, b.record);
        for (ply, pos) in b.game.positions().iter().enumerate().take(b.game.plies()) {
            let (old, new) = (b.scores[ply], a.scores[ply]);
            let eligible = old.is_some() && !pos.has_capture(alq_engine::RuleSet::BrainKing.rules());
            if eligible {
                scored += 1;
            }
            if eligible && is_sampled(7, b.record.id, ply, 0.5) {
                sampled += 1;
                assert!(new.is_some());
                changed += (new != old) as u64;
            } else {
                assert_eq!(new, old, "game {} ply {ply} was not sampled", b.record.id);
            }
        }
    }
    assert_eq!(summary.searched, sampled);
    // About half the eligible positions, and a deeper search often disagrees.
    assert!(sampled * 10 > scored * 3 && sampled * 10 < scored * 7, "{sampled} of {scored}");
    assert!(changed * 2 > sampled, "{changed} of {sampled} scores changed");
    // Scores are written as self-play writes them.
    assert!(after[0].record.scores.split(' ').all(|s| parse_score(s).is_ok()));

    // Two threads: the same bytes.
    let two = d.join("two.csv");
    rescore(&config(&input), &two, false, 2).unwrap();
    assert_eq!(std::fs::read(&two).unwrap(), std::fs::read(&out).unwrap());
}

#[test]
fn rescoring_resumes_and_refuses_what_it_cannot_do() {
    let d = dir("resume");
    let input = games(&d.join("selfplay"));
    let whole = d.join("whole.csv");
    rescore(&config(&input), &whole, false, 2).unwrap();
    let reference = std::fs::read(&whole).unwrap();

    // A run killed in the middle of its fourth game's row.
    let cut = d.join("cut.csv");
    std::fs::copy(&whole, &cut).unwrap();
    std::fs::copy(d.join("whole.rescore.toml"), d.join("cut.rescore.toml")).unwrap();
    let text = String::from_utf8(reference.clone()).unwrap();
    let fourth_row_middle = text.match_indices('\n').nth(3).unwrap().0 + 20;
    std::fs::write(&cut, &reference[..fourth_row_middle]).unwrap();
    let err = rescore(&config(&input), &cut, false, 2).unwrap_err();
    assert!(err.contains("already holds a rescoring run"), "{err}");
    let summary = rescore(&config(&input), &cut, true, 2).unwrap();
    assert_eq!((summary.games, summary.resumed), (10, 3));
    assert_eq!(std::fs::read(&cut).unwrap(), reference);
    // Resuming with other settings is refused.
    let other = RescoreConfig { fraction: 0.25, ..config(&input) };
    assert!(rescore(&other, &cut, true, 2).unwrap_err().contains("other settings"));

    let refused = |player: &str, fraction: f64| {
        let c = RescoreConfig { player: player.to_string(), fraction, ..config(&input) };
        rescore(&c, &d.join("refused.csv"), false, 1).unwrap_err()
    };
    assert!(refused("greedy", 0.5).contains("searching player"));
    assert!(refused("hce", 0.5).contains("needs a limit"));
    assert!(refused("hce@movetime=10", 0.5).contains("not movetime"));
    assert!(refused("hce@nodes=100", 0.0).contains("fraction"));
    assert!(refused("hce@nodes=100", 1.5).contains("fraction"));
    let err = refused("nosuch@nodes=100", 0.5);
    assert!(err.contains("nosuch"), "{err}");
    let classic = RescoreConfig { rules: alq_engine::RuleSet::Classic, ..config(&input) };
    assert!(
        rescore(&classic, &d.join("classic.csv"), false, 1).is_err(),
        "BrainKing games are refused under classic rules"
    );
}
