//! The report of a small fixed set of records, against reviewed expected
//! files, and its counts against an independent count of the raw CSV.
//!
//! When the report changes on purpose, regenerate the expected files with
//! `UPDATE_GOLDEN=1 cargo test -p alq-report --release` and review the diff.

use std::path::{Path, PathBuf};

fn fixture_files() -> Vec<PathBuf> {
    ["tests/data/selfplay.csv", "tests/data/match.csv", "tests/data/play.csv", "tests/data/study.csv"]
        .iter()
        .map(PathBuf::from)
        .collect()
}

fn out_dir(name: &str) -> PathBuf {
    let d = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("report-tests").join(name);
    let _ = std::fs::remove_dir_all(&d);
    d
}

fn report(name: &str) -> (alq_report::Report, PathBuf) {
    let files = fixture_files();
    let collected = alq_report::collect(&files, alq_engine::RuleSet::BrainKing, 6, |_| {}).expect("fixtures are valid");
    let report = alq_report::Report::new(&collected, &files, &Default::default());
    let dir = out_dir(name);
    report.write(&dir).unwrap();
    (report, dir)
}

fn check_golden(produced: &Path, expected: &str) {
    let expected_path = Path::new("tests/data/expected").join(expected);
    let text = std::fs::read_to_string(produced).unwrap();
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::create_dir_all(expected_path.parent().unwrap()).unwrap();
        std::fs::write(&expected_path, &text).unwrap();
    }
    let want = std::fs::read_to_string(&expected_path)
        .unwrap_or_else(|e| panic!("{}: {e} (run with UPDATE_GOLDEN=1 to create it)", expected_path.display()));
    assert!(
        text == want,
        "{} differs from {}; review, then UPDATE_GOLDEN=1",
        produced.display(),
        expected_path.display()
    );
}

#[test]
fn report_matches_the_reviewed_files() {
    let (_, dir) = report("golden");
    check_golden(&dir.join("summary.json"), "summary.json");
    check_golden(&dir.join("openings.csv"), "openings.csv");
    check_golden(&dir.join("report.md"), "report.md");
    for name in ["report.html", "white_score_by_pairing.svg", "first_moves.svg", "game_length.svg"] {
        let text = std::fs::read_to_string(dir.join(name)).unwrap();
        assert!(text.len() > 1000, "{name} is too small");
    }
    let html = std::fs::read_to_string(dir.join("report.html")).unwrap();
    assert!(html.starts_with("<!DOCTYPE html>") && html.trim_end().ends_with("</html>"));
    assert_eq!(html.matches("<svg").count(), 3, "three inline plots");
    assert!(html.contains("class=\"headline\">From the standard start"), "the answer at the top");
    assert!(html.contains("Games from randomised openings"));
    assert!(!html.contains("src=\"http") && !html.contains("href=\"http"), "no external assets");
    assert!(html.contains("<details>"), "an expandable opening tree");
    // Player names break only before `@`, never inside a token.
    assert!(html.contains(">hce<wbr>@nodes=300<"), "player names may break before @");
    assert!(!html.contains("overflow-wrap:anywhere"));
}

/// Counts of one kind of games, made from the raw CSV.
#[derive(Default, Debug)]
struct Raw {
    games: u64,
    white: u64,
    black: u64,
    draws: u64,
    unfinished: u64,
    plies: u64,
    first_moves: std::collections::BTreeMap<String, u64>,
}

#[test]
fn counts_equal_an_independent_count_of_the_raw_csv() {
    let (report, dir) = report("counts");
    // [from the start with every move the players', randomised]
    let mut raw = [Raw::default(), Raw::default()];
    for file in fixture_files() {
        let mut reader = csv::Reader::from_path(&file).unwrap();
        let headers = reader.headers().unwrap().clone();
        let col = |name: &str| headers.iter().position(|h| h == name);
        let c = |name: &str| col(name).unwrap();
        let (result, term, p, moves, start, op) =
            (c("result"), c("termination"), c("plies"), c("moves"), c("start"), c("opening_plies"));
        let opening = col("opening");
        for row in reader.records() {
            let row = row.unwrap();
            // Format 1 has no opening column: only games without opening plies are the players' own.
            let own_moves = match opening {
                Some(o) => row[o].split(' ').filter(|x| !x.is_empty()).all(|x| x.starts_with("near_best:")),
                None => &row[op] == "0",
            };
            let kind = if row[start].is_empty() && own_moves { 0 } else { 1 };
            let r = &mut raw[kind];
            r.games += 1;
            match (&row[result], &row[term]) {
                ("1-0", _) => r.white += 1,
                ("0-1", _) => r.black += 1,
                ("1/2-1/2", "max_plies") => r.unfinished += 1,
                ("1/2-1/2", _) => r.draws += 1,
                other => panic!("result {other:?}"),
            }
            r.plies += row[p].parse::<u64>().unwrap();
            if row[start].is_empty() {
                let first = row[moves].split(' ').next().unwrap().to_string();
                *r.first_moves.entry(first).or_default() += 1;
            }
        }
    }
    assert!(raw[0].games > 0 && raw[1].games > 0, "the fixtures hold both kinds: {raw:?}");
    assert!(raw[0].unfinished > 0, "and a capped game");
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("summary.json")).unwrap()).unwrap();
    for (r, section, key) in [(&raw[0], &report.from_start, "from_start"), (&raw[1], &report.randomised, "randomised")]
    {
        let g = &section.results;
        assert_eq!(
            (g.games, g.white_wins, g.black_wins, g.draws, g.unfinished),
            (r.games, r.white, r.black, r.draws, r.unfinished),
            "{key}"
        );
        assert!((g.average_plies - r.plies as f64 / r.games as f64).abs() < 1e-12);
        assert_eq!(json[key]["totals"]["games"], r.games);
        assert_eq!(json[key]["totals"]["white_wins"], r.white);
        assert_eq!(json[key]["totals"]["unfinished"], r.unfinished);
        // White's score counts the finished games only; the pooled totals
        // are written as counts, without a score across strengths.
        let score = (r.white as f64 + r.draws as f64 / 2.0) / (r.games - r.unfinished) as f64;
        assert!((g.white_score - score).abs() < 1e-12, "{key}");
        assert!(json[key]["totals"].get("white_score").is_none(), "{key}");
    }
    assert_eq!(report.games, raw[0].games + raw[1].games);
    // The first-move table holds only games from the start chosen by the players.
    for (mv, n) in &raw[0].first_moves {
        let games: u64 = report.first_moves.iter().filter(|m| &m.first_move == mv).map(|m| m.results.games).sum();
        assert_eq!(games, *n, "{mv}");
    }
    for m in &report.first_moves {
        let p = report.from_start.pairings.iter().find(|p| p.white == m.white && p.black == m.black).unwrap();
        assert!((m.share - m.results.games as f64 / p.results.games as f64).abs() < 1e-12);
    }
    assert_eq!(report.first_moves.iter().map(|l| l.results.games).sum::<u64>(), raw[0].games);
    assert_eq!(report.randomised.other_starts, 1);
    assert_eq!(report.from_start.near_best_games, raw[0].games, "the study games sampled near-best moves");
    // Only games of a named strength from the start are set beside humans.
    assert_eq!(report.human_comparison.len(), report.from_start.pairings.len());
    assert!(report.headline.starts_with("From the standard start"), "{}", report.headline);
    assert_eq!(json["brainking"]["games"], 8426);
}

#[test]
fn a_report_without_games_from_the_start_says_so() {
    let files = vec![PathBuf::from("tests/data/selfplay.csv"), PathBuf::from("tests/data/match.csv")];
    let collected = alq_report::collect(&files, alq_engine::RuleSet::BrainKing, 6, |_| {}).unwrap();
    let report = alq_report::Report::new(&collected, &files, &Default::default());
    assert_eq!(report.from_start.results.games, 0);
    assert!(report.human_comparison.is_empty());
    assert!(report.first_moves.is_empty());
    assert!(report.headline.starts_with("No game in this report"), "{}", report.headline);
    assert_eq!(report.tree_games, "randomised");
    let md = alq_report::Report::new(&collected, &files, &Default::default());
    let dir = out_dir("no-start");
    md.write(&dir).unwrap();
    let text = std::fs::read_to_string(dir.join("report.md")).unwrap();
    assert!(!text.contains("Beside BrainKing"), "no comparison with humans:\n{text}");
}

#[test]
fn the_opening_tree_folds_forced_plies() {
    let files = fixture_files();
    let collected = alq_report::collect(&files, alq_engine::RuleSet::BrainKing, 3, |_| {}).unwrap();
    let report = alq_report::Report::new(&collected, &files, &Default::default());
    assert!(!report.tree.is_empty());
    for l in &report.tree {
        assert!(l.decisions >= 1 && l.decisions <= 3, "{l:?}");
        assert_eq!(l.plies, l.line.split(' ').count());
        assert_eq!(l.plies, l.decisions + l.forced, "{l:?}");
        // Every forced ply had one legal move; every other ply more.
        let mut pos = alq_engine::Position::start();
        let mut forced = 0;
        for text in l.line.split(' ') {
            if pos.legal_moves().len() == 1 {
                forced += 1;
            }
            pos = pos.play(pos.parse_move(text).unwrap());
        }
        assert_eq!(forced, l.forced, "{}", l.line);
    }
    assert!(report.tree.iter().any(|l| l.forced > 0), "the fixtures have forced captures in their openings");
}

#[test]
fn bad_records_stop_the_report_with_file_and_line() {
    let dir = out_dir("bad");
    std::fs::create_dir_all(&dir).unwrap();
    let text = std::fs::read_to_string("tests/data/match.csv").unwrap();
    let (flipped, to) = if text.contains(",1-0,no_moves,") {
        (",1-0,no_moves,", ",0-1,no_moves,")
    } else {
        (",0-1,no_moves,", ",1-0,no_moves,")
    };
    std::fs::write(dir.join("games.csv"), text.replacen(flipped, to, 1)).unwrap();
    let files = alq_report::game_files(std::slice::from_ref(&dir)).unwrap();
    assert_eq!(files, vec![dir.join("games.csv")], "folders are searched for games.csv");
    let err = alq_report::collect(&files, alq_engine::RuleSet::BrainKing, 6, |_| {}).unwrap_err().to_string();
    assert!(err.contains("games.csv:") && err.contains("does not follow"), "{err}");
}

#[test]
fn scores_of_different_strengths_are_not_pooled_in_the_headline() {
    let dir = out_dir("two-strengths");
    std::fs::create_dir_all(&dir).unwrap();
    let text = std::fs::read_to_string("tests/data/study.csv").unwrap();
    // The same games under another player's name: a second pairing.
    let renamed: String = text
        .lines()
        .enumerate()
        .map(|(i, l)| if i > 0 && i % 2 == 0 { l.replace("hce@nodes=300,hce@nodes=300", "hce@nodes=301,hce@nodes=301") } else { l.to_string() } + "\n")
        .collect();
    let file = dir.join("games.csv");
    std::fs::write(&file, renamed).unwrap();
    let files = vec![file];
    let collected = alq_report::collect(&files, alq_engine::RuleSet::BrainKing, 6, |_| {}).unwrap();
    let report = alq_report::Report::new(&collected, &files, &Default::default());
    assert_eq!(report.from_start.pairings.len(), 2);
    let h = &report.headline;
    assert!(
        h.contains("depends on who plays") && h.contains("hce@nodes=300 against itself") && h.contains("hce@nodes=301"),
        "{h}"
    );
    assert!(!h.contains(&format!("{:.3} (95 %", report.from_start.results.white_score)), "no pooled score: {h}");
    assert_eq!(report.human_comparison.len(), 2);
    assert!(report.first_moves.iter().any(|m| m.white == "hce@nodes=301"));
}
