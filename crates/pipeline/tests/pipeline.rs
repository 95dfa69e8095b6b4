//! The pipeline's stages driven through the library: the order in which
//! they report, what a resumed run skips, and the refusals.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use alq_pipeline::{run_pipeline, PipelineConfig, PipelineEvent, Stage};

fn tiny() -> PipelineConfig {
    toml::from_str(
        "generations = 1\nreplay_window = 1\n[selfplay]\ngames = 40\nnodes = 100\n[train]\nhidden = [8]\nepochs = 1\n\
         [gate]\ngames = 12\nnodes = 100\nopenings = 2\nsprt = \"0,50\"\n[evaluation]\ngames = 8\nnodes = 100\nopenings = 2\n\
         [start]\ngames = 4\nnodes = 100\n",
    )
    .unwrap()
}

fn out_dir(name: &str) -> PathBuf {
    let d = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("pipeline-tests").join(name);
    let _ = std::fs::remove_dir_all(&d);
    d
}

/// Runs the pipeline and returns the stages it reported, in order.
fn stages(config: &PipelineConfig, out: &Path, resume: bool) -> Result<Vec<(usize, Stage)>, String> {
    let seen = Mutex::new(Vec::new());
    let generation = Mutex::new(0);
    let on = |e: PipelineEvent| match e {
        PipelineEvent::Generation { generation: g, .. } => *generation.lock().unwrap() = g,
        PipelineEvent::Stage { stage, .. } => seen.lock().unwrap().push((*generation.lock().unwrap(), stage)),
        _ => {}
    };
    run_pipeline(config, out, resume, on).map_err(|e| e.to_string())?;
    Ok(seen.into_inner().unwrap())
}

#[test]
fn stages_run_in_order_and_a_resumed_run_skips_finished_work() {
    let out = out_dir("order");
    let config = tiny();
    let first = stages(&config, &out, false).unwrap();
    use Stage::*;
    assert_eq!(
        first,
        [
            (0, Selfplay),
            (0, FromStart),
            (1, Training),
            (1, Gating),
            (1, Evaluating),
            (1, Evaluating),
            (1, Selfplay),
            (1, FromStart),
            (1, Report)
        ],
        "one evaluation per anchor (hce, nn)"
    );
    for file in [
        "pipeline.toml",
        "summary.json",
        "summary.md",
        "elo.svg",
        "gen-001/candidate.alqnet",
        "gen-001/match.json",
        "gen-001/elo.json",
        "gen-001/elo-nn.json",
        "report/report.html",
    ] {
        assert!(out.join(file).exists(), "{file}");
    }
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    let anchors = summary[1]["elo_vs_anchors"].as_array().unwrap();
    assert_eq!(anchors.iter().map(|a| a["anchor"].as_str().unwrap()).collect::<Vec<_>>(), ["hce", "nn"]);
    assert_eq!(summary[1]["elo_vs_gen0"], anchors[0]["elo"]);
    // nElo beside Elo: in the match files with the pentanomial counts it
    // comes from, in the summary and in the plot's second panel.
    let gate: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("gen-001/match.json")).unwrap()).unwrap();
    let pairs: u64 = gate["pentanomial"].as_array().unwrap().iter().map(|n| n.as_u64().unwrap()).sum();
    assert_eq!(pairs, 6, "12 gate games are 6 pairs");
    assert_eq!(summary[1]["gate_nelo"], gate["nelo"]);
    assert_eq!(summary[1]["gate_nelo_ci95"], gate["nelo_ci95"]);
    for a in anchors {
        assert!(a.get("nelo").is_some() && a.get("nelo_ci95").is_some(), "{a}");
    }
    let md = std::fs::read_to_string(out.join("summary.md")).unwrap();
    assert!(
        md.contains("gate Elo / nElo vs best") && md.contains("at 100 nodes, from the shipped balanced book"),
        "{md}"
    );
    // The shipped balanced book the gate and the evaluation play from by default.
    let book = alq_play::openings::parse_book(alq_engine::RuleSet::BrainKing, alq_play::BALANCED_BOOK).unwrap();
    assert_eq!(book.len(), 3346);
    // Resumed: the candidate and the matches are read back, not redone.
    let games = std::fs::read(out.join("gen-001/games.csv")).unwrap();
    let again = stages(&config, &out, true).unwrap();
    assert!(!again.iter().any(|(_, s)| matches!(s, Training | Gating | Evaluating)), "{again:?}");
    assert_eq!(std::fs::read(out.join("gen-001/games.csv")).unwrap(), games);
    // Without resume, and with other settings, the folder is protected.
    assert!(stages(&config, &out, false).unwrap_err().contains("already holds a pipeline run"));
    let other = PipelineConfig { replay_window: 2, ..tiny() };
    assert!(stages(&other, &out, true).unwrap_err().contains("other settings"));
    let broken = PipelineConfig { replay_window: 0, ..tiny() };
    assert!(stages(&broken, &out_dir("broken"), false).unwrap_err().contains("replay_window"));
}

/// With `[rescore]` each generation's games are re-searched after its
/// self-play and candidates train on the rescored files; with `wdl` the
/// candidates are win/draw/loss networks.
#[test]
fn rescored_games_are_what_candidates_train_on() {
    let out = out_dir("rescore");
    let mut config = tiny();
    config.rescore.nodes = 400;
    config.rescore.fraction = 0.5;
    config.train.wdl = true;
    config.start.games = 0;
    config.anchors = vec!["hce".to_string()];
    let seen = stages(&config, &out, false).unwrap();
    use Stage::*;
    assert_eq!(
        seen,
        [
            (0, Selfplay),
            (0, Rescoring),
            (1, Training),
            (1, Gating),
            (1, Evaluating),
            (1, Selfplay),
            (1, Rescoring),
            (1, Report)
        ]
    );
    let rescored = out.join("gen-000/rescored.csv");
    let (before, _) = alq_records::read_all(&[out.join("gen-000/games.csv")], false).unwrap();
    let (after, bad) = alq_records::read_all(std::slice::from_ref(&rescored), false).unwrap();
    assert!(bad.is_empty() && before.len() == after.len() && before.len() == 40);
    assert!(before.iter().zip(&after).any(|(b, a)| b.scores != a.scores), "some scores are deeper ones");
    let train_config = std::fs::read_to_string(out.join("gen-001/train/config.toml")).unwrap();
    assert!(train_config.contains("rescored.csv") && !train_config.contains("games.csv"), "{train_config}");
    let candidate =
        alq_engine::Network::from_bytes(&std::fs::read(out.join("gen-001/candidate.alqnet")).unwrap()).unwrap();
    assert!(candidate.is_wdl());

    let broken = PipelineConfig { rescore: alq_pipeline::RescoreStage { nodes: 100, fraction: 0.0 }, ..tiny() };
    assert!(stages(&broken, &out_dir("broken-rescore"), false).unwrap_err().contains("rescore.fraction"));
}

/// With `[errors]` the best player's games from the start and from the
/// book are graded against perfect play each generation: every move the
/// player chose is graded (the book's are not), the summary shows the
/// errors a game, and a resumed run grades nothing again.
#[test]
fn errors_against_perfect_play_are_measured_each_generation() {
    let tb = out_dir("errors-tables");
    let options = alq_tablebase::BuildOptions {
        pieces: 4,
        shard: None,
        rules: alq_engine::RuleSet::BrainKing,
        kind: alq_tablebase::Kind::Wdl,
    };
    alq_tablebase::build(&tb, &options, &mut |_| {}).unwrap();
    let out = out_dir("errors");
    let mut config = tiny();
    config.generations = 0;
    config.start.games = 0;
    config.errors = alq_pipeline::ErrorsStage {
        games: 4,
        nodes: 100,
        max_plies: 120,
        tablebase: tb.display().to_string(),
        grade_nodes: 2000,
        grade_hash: 16,
        ..Default::default()
    };
    let seen = stages(&config, &out, false).unwrap();
    use Stage::*;
    assert_eq!(seen, [(0, Selfplay), (0, ErrorGames), (0, ErrorGames), (0, Grading), (0, Grading), (0, Report)]);
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    let errors = &summary[0]["errors"];
    assert_eq!(errors["player"], "hce@nodes=100", "{errors}");
    for (name, book) in [("start", false), ("book", true)] {
        let row = &errors[name];
        let file = out.join(format!("gen-000/errors-{name}/games.csv"));
        let (games, bad) = alq_records::read_all(std::slice::from_ref(&file), false).unwrap();
        assert!(bad.is_empty());
        assert_eq!(row["games"].as_u64(), Some(games.len() as u64), "{row}");
        assert_eq!(games.len(), 4);
        // Every ply but the book's is the player's (the near-best choices
        // from the start included), and graded.
        let booked = |g: &alq_records::ReplayedGame| -> u32 {
            g.record.opening_parts().unwrap().iter().filter(|p| !p.is_search()).map(|p| p.plies()).sum()
        };
        let chosen: u64 = games.iter().map(|g| u64::from(g.record.plies - booked(g))).sum();
        assert_eq!(row["moves"].as_u64(), Some(chosen), "{name}: {row}");
        let lines: Vec<u32> = games.iter().map(booked).collect();
        assert_eq!(lines, if book { [10; 4] } else { [0; 4] }, "{name}: the book's lines are 10 plies");
        let (found, at_least) =
            (row["errors_per_game"].as_f64().unwrap(), row["errors_at_least_per_game"].as_f64().unwrap());
        assert!(found >= 0.0 && at_least >= found, "{row}");
    }
    let md = std::fs::read_to_string(out.join("summary.md")).unwrap();
    let line = md.lines().find(|l| l.starts_with("| 0 ")).unwrap();
    assert!(
        line.ends_with(&format!(
            "| {:.2} / {:.2}; {:.2} / {:.2} |",
            errors["start"]["errors_per_game"].as_f64().unwrap(),
            errors["start"]["errors_at_least_per_game"].as_f64().unwrap(),
            errors["book"]["errors_per_game"].as_f64().unwrap(),
            errors["book"]["errors_at_least_per_game"].as_f64().unwrap()
        )),
        "{line}"
    );
    // Resumed: the measurement is read back, nothing played or graded.
    let again = stages(&config, &out, true).unwrap();
    assert!(!again.iter().any(|(_, s)| matches!(s, ErrorGames | Grading)), "{again:?}");

    let mut broken = config.clone();
    broken.errors.tablebase = String::new();
    assert!(stages(&broken, &out_dir("broken-errors"), false).unwrap_err().contains("errors.tablebase"));
    broken.errors.tablebase = tb.display().to_string();
    broken.errors.grade_nodes = 0;
    assert!(stages(&broken, &out_dir("broken-errors"), false).unwrap_err().contains("errors.grade_nodes"));
    // Missing tables and a bad book are refused before any game.
    for (tables, book, says) in [
        ("no-such-tables", "unbalanced", "[errors]: tablebase no-such-tables"),
        (tb.to_str().unwrap(), "no-such-book.csv", "no-such-book.csv"),
    ] {
        let mut bad = config.clone();
        bad.errors.tablebase = tables.to_string();
        bad.errors.book = book.to_string();
        let dir = out_dir("broken-errors");
        let err = stages(&bad, &dir, false).unwrap_err();
        assert!(err.contains(says), "{err}");
        assert!(!dir.join("gen-000/games.csv").exists(), "refused after a game: {err}");
    }
}

/// With `[label]` each generation's training positions are valued by the
/// oracle after its self-play; the store holds what the searches settled,
/// the summary the share, and the next candidate trains with the store.
#[test]
fn labelled_positions_are_exact_targets_of_the_next_candidate() {
    let out = out_dir("label");
    let mut config = tiny();
    config.label.nodes = 3000;
    config.start.games = 0;
    config.anchors = vec!["hce".to_string()];
    let seen = stages(&config, &out, false).unwrap();
    use Stage::*;
    assert_eq!(
        seen,
        [
            (0, Selfplay),
            (0, Labelling),
            (1, Training),
            (1, Gating),
            (1, Evaluating),
            (1, Selfplay),
            (1, Labelling),
            (1, Report)
        ]
    );
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    let labels = &summary[0]["labels"];
    let (positions, exact) = (labels["positions"].as_u64().unwrap(), labels["exact"].as_u64().unwrap());
    assert!(exact > 0 && exact < positions, "{labels}");
    assert_eq!(labels["done"].as_u64(), Some(positions));
    // Every exact label of the store is one the trainer reads back.
    let store = out.join("gen-000/labels.store");
    let stores = vec![store.display().to_string()];
    let tables = alq_train::Labels::open(alq_engine::RuleSet::BrainKing, None, &stores).unwrap();
    let options = alq_records::SampleOptions { skip_opening: true, skip_forced_captures: true, dedup: true };
    let sampled =
        alq_records::sampled_positions(&[out.join("gen-000/games.csv")], alq_engine::RuleSet::BrainKing, options, None)
            .unwrap();
    assert_eq!(sampled.len() as u64, positions);
    let labelled = sampled.iter().filter(|p| tables.exact(p).is_some()).count() as u64;
    assert_eq!(labelled, exact);
    let train_config = std::fs::read_to_string(out.join("gen-001/train/config.toml")).unwrap();
    assert!(train_config.contains("gen-000/labels.store"), "{train_config}");
    let md = std::fs::read_to_string(out.join("summary.md")).unwrap();
    assert!(md.contains(&format!("{exact} of {positions} (")), "{md}");
    // Resumed: nothing is valued again.
    let again = stages(&config, &out, true).unwrap();
    assert!(!again.iter().any(|(_, s)| *s == Labelling), "{again:?}");

    let broken =
        PipelineConfig { label: alq_pipeline::LabelStage { nodes: 10, hash: 0, ..Default::default() }, ..tiny() };
    assert!(stages(&broken, &out_dir("broken-label"), false).unwrap_err().contains("label.hash"));
}

/// With `warm_start`, generation 1's candidate starts from `[train] init`
/// (no network is best yet) and each later one from the best network so
/// far; without it, every candidate starts from `[train] init`.
#[test]
fn warm_started_candidates_continue_the_best_network() {
    let small = std::fs::canonicalize("../../data/networks/previous-64x16.alqnet").unwrap();
    let mut config = tiny();
    config.generations = 2;
    config.warm_start = true;
    config.train.hidden = vec![64, 16];
    config.train.init = small.display().to_string();
    config.train.learning_rate = 1e-5;
    config.train.min_learning_rate = 1e-6;
    config.start.games = 0;
    config.anchors = vec![];
    config.gate.games = 40;
    config.gate.sprt = String::new();
    let out = out_dir("warm");
    stages(&config, &out, false).unwrap();
    let init_of = |out: &PathBuf, g: usize| -> String {
        let text = std::fs::read_to_string(out.join(format!("gen-00{g}/train/config.toml"))).unwrap();
        let resolved: toml::Value = toml::from_str(&text).unwrap();
        resolved["config"]["init"].as_str().unwrap().to_string()
    };
    assert_eq!(init_of(&out, 1), small.display().to_string());
    // Generation 2 continues generation 1's candidate if the gate promoted
    // it, and `[train] init` otherwise (no network is best yet).
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    let promoted = summary[1]["promoted"] == true;
    let expected = if promoted { out.join("gen-001/candidate.alqnet") } else { small.clone() };
    assert_eq!(init_of(&out, 2), expected.display().to_string());

    let cold = PipelineConfig { warm_start: false, ..config.clone() };
    let out = out_dir("cold");
    stages(&cold, &out, false).unwrap();
    assert_eq!(init_of(&out, 2), small.display().to_string());

    // A bad `[train] init` is refused before any self-play.
    let mut missing = config;
    missing.train.init = "no-such-network.alqnet".to_string();
    let out = out_dir("bad-init");
    let err = stages(&missing, &out, false).unwrap_err();
    assert!(err.contains("no-such-network.alqnet"), "{err}");
    assert!(!out.join("gen-000/games.csv").exists());
}

/// With `start_network`, generation 0 plays with that network and the first
/// candidate is gated against it (and, warm-started, trained from it).
#[test]
fn a_run_can_start_from_a_network() {
    let small = std::fs::canonicalize("../../data/networks/previous-64x16.alqnet").unwrap();
    let mut config = tiny();
    config.start_network = small.display().to_string();
    config.warm_start = true;
    // Wider than the 64-16 network: the first candidate trains from it widened.
    config.train.hidden = vec![96, 24];
    config.train.learning_rate = 1e-5;
    config.train.min_learning_rate = 1e-6;
    config.start.games = 0;
    config.anchors = vec![];
    let out = out_dir("start-network");
    stages(&config, &out, false).unwrap();
    let run = std::fs::read_to_string(out.join("gen-000/run.toml")).unwrap();
    assert!(run.contains(&small.display().to_string()), "generation 0 plays with it: {run}");
    let train = std::fs::read_to_string(out.join("gen-001/train/config.toml")).unwrap();
    assert!(train.contains(&format!("init = \"{}\"", small.display())), "{train}");
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    let id = alq_engine::Network::from_bytes(&std::fs::read(&small).unwrap()).unwrap().id();
    assert!(summary[0]["selfplay_player"].as_str().unwrap().contains(&id), "{}", summary[0]);
    let candidate =
        alq_engine::Network::from_bytes(&std::fs::read(out.join("gen-001/candidate.alqnet")).unwrap()).unwrap();
    assert_eq!(candidate.hidden(), vec![96, 24]);

    // A start network the candidates cannot train from is refused before any game.
    let mut deeper = config.clone();
    deeper.train.hidden = vec![64, 16, 8];
    let out = out_dir("start-deeper");
    let err = stages(&deeper, &out, false).unwrap_err();
    assert!(err.contains("start_network") && err.contains("[64, 16, 8]"), "{err}");
    assert!(!out.join("pipeline.toml").exists());

    let mut missing = config;
    missing.start_network = "no-such-start.alqnet".to_string();
    let out = out_dir("bad-start");
    let err = stages(&missing, &out, false).unwrap_err();
    assert!(err.contains("no-such-start.alqnet"), "{err}");
    assert!(!out.join("pipeline.toml").exists());
}

#[test]
fn a_gate_that_would_replay_openings_is_refused_before_any_game() {
    // The shipped balanced book holds 3,346 openings: 6,692 games play each once.
    let mut config = tiny();
    config.gate.games = 6694;
    let out = out_dir("gate-replays");
    let err = stages(&config, &out, false).unwrap_err();
    assert!(err.contains("gate.games = 6694") && err.contains("3347 pairs") && err.contains("3346"), "{err}");
    assert!(!out.join("pipeline.toml").exists());

    // The all-positions set two plies deep holds 5 positions.
    let mut config = tiny();
    config.evaluation.book = String::new();
    config.evaluation.openings = 2;
    config.evaluation.games = 12;
    let out = out_dir("evaluation-replays");
    let err = stages(&config, &out, false).unwrap_err();
    assert!(err.contains("evaluation.games = 12") && err.contains("only 5"), "{err}");
    assert!(!out.join("pipeline.toml").exists());

    // An odd gate is refused before any game too.
    let mut config = tiny();
    config.gate.games = 11;
    let out = out_dir("gate-odd");
    let err = stages(&config, &out, false).unwrap_err();
    assert!(err.contains("gate.games = 11 must be even"), "{err}");
    assert!(!out.join("pipeline.toml").exists());

    // Every opening once is allowed.
    let mut config = tiny();
    config.gate.games = 6692;
    assert!(config.gate.check_openings("gate", alq_engine::RuleSet::BrainKing).is_ok());
    config.evaluation.book = String::new();
    config.evaluation.openings = 2;
    config.evaluation.games = 10;
    assert!(config.evaluation.check_openings("evaluation", alq_engine::RuleSet::BrainKing).is_ok());

    // Without generations after 0 no gate or evaluation is played, so
    // neither is checked.
    config.generations = 0;
    config.evaluation.games = 12;
    config.gate.games = 7000;
    let out = out_dir("no-generations");
    stages(&config, &out, false).unwrap();
    assert!(out.join("gen-000/games.csv").exists());
}

/// Gate and evaluation stages at equal time (`movetime`, `tc`) and from the
/// shipped unbalanced book; their settings are checked before any game.
#[test]
fn stages_can_play_at_equal_time_from_the_unbalanced_book() {
    let mut config = tiny();
    config.gate.movetime = 5;
    config.gate.book = "unbalanced".to_string();
    config.evaluation.tc = "0.5+0.02".to_string();
    config.evaluation.book = "unbalanced".to_string();
    config.anchors = vec!["hce".to_string()];
    let out = out_dir("timed");
    stages(&config, &out, false).unwrap();
    let gate: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("gen-001/match.json")).unwrap()).unwrap();
    assert_eq!(gate["games"], 12);
    assert!(gate["a"].as_str().unwrap().contains("movetime=5"), "{gate}");
    assert!(!gate["a"].as_str().unwrap().contains("nodes="), "{gate}");
    let md = std::fs::read_to_string(out.join("summary.md")).unwrap();
    assert!(md.contains("at 5 ms a move, from the shipped unbalanced book"), "{md}");
    assert!(md.contains("at tc 0.5+0.02, from the shipped unbalanced book"), "{md}");

    // Timed players are not deterministic, so a book may be replayed.
    let mut replay = tiny();
    replay.gate.movetime = 5;
    replay.gate.book = "unbalanced".to_string();
    replay.gate.games = 2 * 4915 + 2;
    assert!(replay.gate.check_openings("gate", alq_engine::RuleSet::BrainKing).is_ok());
    replay.gate.movetime = 0;
    let err = replay.gate.check_openings("gate", alq_engine::RuleSet::BrainKing).unwrap_err().to_string();
    assert!(err.contains("hold only 4915"), "{err}");

    // Bad settings name their key before any game.
    for (edit, key) in [
        (
            Box::new(|c: &mut PipelineConfig| c.gate.tc = "10+0.1".into()) as Box<dyn Fn(&mut PipelineConfig)>,
            "gate.movetime",
        ),
        (Box::new(|c: &mut PipelineConfig| c.evaluation.tc = "fast".into()), "evaluation.tc"),
        (
            Box::new(|c: &mut PipelineConfig| {
                c.evaluation.tc.clear();
                c.evaluation.nodes = 0
            }),
            "evaluation.nodes",
        ),
    ] {
        let mut bad = config.clone();
        edit(&mut bad);
        let out = out_dir("timed-bad");
        let err = stages(&bad, &out, false).unwrap_err();
        assert!(err.contains(key), "{key}: {err}");
        assert!(!out.join("pipeline.toml").exists(), "{key}");
    }
}

/// The shipped pipeline configs parse, validate and can play their gate and
/// evaluation openings; the unbalanced run differs from the full one only
/// in its output, generations and books.
#[test]
fn shipped_pipeline_configs_are_valid() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../configs");
    let load = |name: &str| -> PipelineConfig {
        let text = std::fs::read_to_string(dir.join(name)).unwrap();
        toml::from_str(&text).unwrap_or_else(|e| panic!("{name}: {e}"))
    };
    for name in [
        "quick.toml",
        "quick-labels.toml",
        "full.toml",
        "unbalanced.toml",
        "pipeline-classic.toml",
        "perfect-taught.toml",
        "errors-10k.toml",
    ] {
        let config = load(name);
        config.validate().unwrap_or_else(|e| panic!("{name}: {e}"));
        config.gate.check_openings("gate", config.rules).unwrap_or_else(|e| panic!("{name}: {e}"));
        config.evaluation.check_openings("evaluation", config.rules).unwrap_or_else(|e| panic!("{name}: {e}"));
    }
    let (full, unbalanced) = (load("full.toml"), load("unbalanced.toml"));
    assert_eq!((unbalanced.gate.book.as_str(), unbalanced.evaluation.book.as_str()), ("unbalanced", "unbalanced"));
    let same = PipelineConfig {
        out: full.out.clone(),
        generations: full.generations,
        gate: alq_pipeline::MatchStage { book: full.gate.book.clone(), ..unbalanced.gate.clone() },
        evaluation: alq_pipeline::MatchStage { book: full.evaluation.book.clone(), ..unbalanced.evaluation.clone() },
        ..unbalanced
    };
    assert_eq!(same, full);
    // quick-labels.toml is quick.toml with exact targets.
    let (quick, labels) = (load("quick.toml"), load("quick-labels.toml"));
    assert!(labels.label.on() && labels.train.exact_weight == 0.5 && !labels.train.tablebase.is_empty());
    let plain = PipelineConfig {
        out: quick.out.clone(),
        label: quick.label.clone(),
        train: alq_train::TrainConfig { tablebase: String::new(), exact_weight: 1.0, ..labels.train.clone() },
        ..labels
    };
    assert_eq!(plain, quick);
    // perfect-taught.toml: the detached heads, graded every generation.
    let taught = load("perfect-taught.toml");
    assert!(taught.train.exact_head && taught.train.policy_head && !taught.train.heads_shape_trunk);
    assert!(taught.errors.games > 0 && taught.errors.tablebase == taught.train.tablebase);
    // classic-unbalanced.toml: classic rules, gated and evaluated on the
    // classic unbalanced book (a file, named from the repository root), with
    // enough of its openings for every pair.
    let classic = load("classic-unbalanced.toml");
    assert_eq!(classic.rules, alq_engine::RuleSet::Classic);
    classic.validate().unwrap();
    assert_eq!(classic.gate.book, "configs/classic-unbalanced-10.csv");
    for (key, stage) in [("gate", &classic.gate), ("evaluation", &classic.evaluation)] {
        let rooted = alq_pipeline::MatchStage {
            book: dir.join("classic-unbalanced-10.csv").display().to_string(),
            ..stage.clone()
        };
        rooted.check_openings(key, classic.rules).unwrap_or_else(|e| panic!("classic-unbalanced.toml: {e}"));
    }
}
