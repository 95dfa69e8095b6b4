//! Studies: near-best sampling from the standard start, records that say
//! so, resumable runs, and the shipped configs.

use std::path::PathBuf;

use alq_engine::Position;
use alq_records::{read_all, OpeningPart};
use alq_selfplay::{run_study, RungConfig, StudyConfig, StudyEvent};

fn dir(name: &str) -> PathBuf {
    let d = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("study-tests").join(name);
    let _ = std::fs::remove_dir_all(&d);
    d
}

fn small() -> StudyConfig {
    StudyConfig {
        games: 6,
        first_moves: true,
        first_move_games: 2,
        rungs: vec![
            RungConfig { player: "greedy".to_string(), nodes: 0, games: 4 },
            RungConfig { player: "hce".to_string(), nodes: 300, games: 0 },
        ],
        ..StudyConfig::default()
    }
}

#[test]
fn a_study_plays_every_rung_from_the_start_with_near_best_choices_only() {
    let out = dir("small");
    let config = small();
    let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    let starts = std::sync::atomic::AtomicUsize::new(0);
    let runs = pool
        .install(|| {
            run_study(&config, &out, false, |e| {
                if let StudyEvent::RunStart { .. } = e {
                    starts.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                }
            })
        })
        .unwrap();
    assert_eq!(runs.len(), 2 * 5, "each rung from the start and from 4 first moves");
    assert_eq!(starts.into_inner(), 10);
    let files = |r: &alq_selfplay::StudyRun| vec![r.games_file(&out)];

    let (greedy, _) = read_all(&files(&runs[0]), false).unwrap();
    assert_eq!(greedy.len(), 4);
    // Baselines take no samples: every move is their own.
    assert!(greedy.iter().all(|g| g.record.opening_plies == 0 && g.record.is_searched_from_start()));

    let (hce, _) = read_all(&files(&runs[5]), false).unwrap();
    assert_eq!(hce.len(), 6);
    for g in &hce {
        let r = &g.record;
        assert!(r.is_searched_from_start(), "{}", r.opening);
        assert_eq!(r.max_plies, Some(2000));
        let parts = r.opening_parts().unwrap();
        let [OpeningPart::NearBest { plies, cp: 20 }] = parts[..] else { panic!("{parts:?}") };
        // Eight choices, plus the forced plies between them.
        let mut pos = Position::start();
        let mut choices = 0;
        for mv in g.game.moves().iter().take(plies as usize) {
            if pos.legal_moves().len() > 1 {
                choices += 1;
            }
            pos = pos.play(*mv);
        }
        assert_eq!(choices, 8, "{}", r.moves);
        // The sampled moves carry their search scores; forced ones none.
        assert!(g.scores[0].is_some());
    }
    let distinct: std::collections::HashSet<&str> = hce.iter().map(|g| g.record.moves.as_str()).collect();
    assert!(distinct.len() >= 3, "near-best choices make games differ: {}", distinct.len());

    // From a fixed first move: a book ply, then near-best choices.
    let (fixed, _) = read_all(&files(&runs[6]), false).unwrap();
    assert_eq!(fixed.len(), 2);
    for g in &fixed {
        assert_eq!(g.game.moves()[0].to_string(), runs[6].first_move.clone().unwrap());
        assert!(matches!(g.record.opening_parts().unwrap()[0], OpeningPart::Book(1)));
        assert!(!g.record.is_searched_from_start(), "a fixed first move is not the player's choice");
    }

    // A second run refuses without --resume, completes nothing new with it,
    // and refuses other settings.
    assert!(run_study(&config, &out, false, |_| {}).is_err());
    let before = std::fs::read(out.join(&runs[5].dir).join("games.csv")).unwrap();
    pool.install(|| run_study(&config, &out, true, |_| {})).unwrap();
    assert_eq!(std::fs::read(out.join(&runs[5].dir).join("games.csv")).unwrap(), before);
    let other = StudyConfig { near_best_cp: 30, ..config.clone() };
    let err = run_study(&other, &out, true, |_| {}).unwrap_err().to_string();
    assert!(err.contains("other settings"), "{err}");
    let fewer = StudyConfig { games: 5, ..config.clone() };
    let err = run_study(&fewer, &out, true, |_| {}).unwrap_err().to_string();
    assert!(err.contains("grow, not shrink"), "{err}");
    // More games extend the study: its first games are unchanged.
    let more = StudyConfig { games: 8, ..config.clone() };
    pool.install(|| run_study(&more, &out, true, |_| {})).unwrap();
    let grown = std::fs::read(out.join(&runs[5].dir).join("games.csv")).unwrap();
    assert!(grown.len() > before.len() && grown.starts_with(&before));
    // A rung added at the end is played into its own folder; the others
    // stay as they were. Leaving a rung out, or changing one, is refused.
    let mut longer = more.clone();
    longer.rungs.push(RungConfig { player: "greedy".into(), games: 2, ..longer.rungs[0].clone() });
    let added = longer.runs().unwrap().last().unwrap().dir.clone();
    pool.install(|| run_study(&longer, &out, true, |_| {})).unwrap();
    assert_eq!(std::fs::read(out.join(&runs[5].dir).join("games.csv")).unwrap(), grown);
    assert!(out.join(&added).join("games.csv").exists(), "{}", added.display());
    let err = run_study(&more, &out, true, |_| {}).unwrap_err().to_string();
    assert!(err.contains("other settings"), "{err}");
    let mut changed = longer.clone();
    changed.rungs[0].nodes += 1;
    let err = run_study(&changed, &out, true, |_| {}).unwrap_err().to_string();
    assert!(err.contains("other settings"), "{err}");

    // The same study elsewhere gives the same games, whatever the threads.
    let again = dir("again");
    let config = more;
    rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap()
        .install(|| run_study(&config, &again, false, |_| {}))
        .unwrap();
    assert_eq!(std::fs::read(again.join(&runs[5].dir).join("games.csv")).unwrap(), grown);
}

#[test]
fn shipped_study_configs_parse_and_the_default_file_is_the_default() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../configs");
    let read = |name: &str| -> StudyConfig {
        toml::from_str(&std::fs::read_to_string(root.join(name)).unwrap()).unwrap_or_else(|e| panic!("{name}: {e}"))
    };
    assert_eq!(read("study.toml"), StudyConfig::default(), "configs/study.toml documents the defaults");
    let quick = read("study-quick.toml");
    assert!(quick.runs().unwrap().len() > 6);
    assert!(toml::from_str::<StudyConfig>("gamez = 3").is_err(), "unknown keys are refused");
}
