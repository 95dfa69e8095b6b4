//! The report of a small fixed set of records, against reviewed expected
//! files, and its counts against an independent count of the raw CSV.
//!
//! When the report changes on purpose, regenerate the expected files with
//! `UPDATE_GOLDEN=1 cargo test -p alq-report --release` and review the diff.

use std::path::{Path, PathBuf};

fn fixture_files() -> Vec<PathBuf> {
    ["tests/data/selfplay.csv", "tests/data/match.csv", "tests/data/play.csv"].iter().map(PathBuf::from).collect()
}

fn out_dir(name: &str) -> PathBuf {
    let d = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("report-tests").join(name);
    let _ = std::fs::remove_dir_all(&d);
    d
}

fn report(name: &str) -> (alq_report::Report, PathBuf) {
    let files = fixture_files();
    let collected = alq_report::collect(&files, 6, |_| {}).expect("fixtures are valid");
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
    assert!(text == want, "{} differs from {}; review, then UPDATE_GOLDEN=1", produced.display(), expected_path.display());
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
    assert!(!html.contains("src=\"http") && !html.contains("href=\"http"), "no external assets");
    assert!(html.contains("<details>"), "an expandable opening tree");
}

#[test]
fn counts_equal_an_independent_count_of_the_raw_csv() {
    let (report, dir) = report("counts");
    let (mut games, mut white, mut black, mut draws, mut plies) = (0u64, 0u64, 0u64, 0u64, 0u64);
    let mut first_moves = std::collections::BTreeMap::<String, u64>::new();
    for file in fixture_files() {
        let mut reader = csv::Reader::from_path(&file).unwrap();
        let headers = reader.headers().unwrap().clone();
        let col = |name: &str| headers.iter().position(|h| h == name).unwrap();
        let (result, p, moves, start) = (col("result"), col("plies"), col("moves"), col("start"));
        for row in reader.records() {
            let row = row.unwrap();
            games += 1;
            match &row[result] {
                "1-0" => white += 1,
                "0-1" => black += 1,
                "1/2-1/2" => draws += 1,
                other => panic!("result {other}"),
            }
            plies += row[p].parse::<u64>().unwrap();
            if row[start].is_empty() {
                let first = row[moves].split(' ').next().unwrap().to_string();
                *first_moves.entry(first).or_default() += 1;
            }
        }
    }
    assert_eq!((report.games, report.white_wins, report.black_wins, report.draws), (games, white, black, draws));
    assert!((report.average_plies - plies as f64 / games as f64).abs() < 1e-12);
    let json: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(dir.join("summary.json")).unwrap()).unwrap();
    assert_eq!(json["games"], games);
    assert_eq!(json["white_wins"], white);
    assert_eq!(json["black_wins"], black);
    assert_eq!(json["draws"], draws);
    let score = (white as f64 + draws as f64 / 2.0) / games as f64;
    assert!((json["white_score"].as_f64().unwrap() - score).abs() < 1e-12);
    for (mv, n) in &first_moves {
        let row = report.first_moves.iter().find(|l| &l.line == mv).unwrap();
        assert_eq!(row.results.games, *n, "{mv}");
    }
    assert_eq!(report.first_moves.iter().map(|l| l.results.games).sum::<u64>(), games - report.other_starts);
    assert_eq!(report.other_starts, 1);
    assert_eq!(json["brainking"]["games"], 8426);
}

#[test]
fn bad_records_stop_the_report_with_file_and_line() {
    let dir = out_dir("bad");
    std::fs::create_dir_all(&dir).unwrap();
    let text = std::fs::read_to_string("tests/data/match.csv").unwrap();
    let (flipped, to) = if text.contains(",1-0,no_moves,") { (",1-0,no_moves,", ",0-1,no_moves,") } else { (",0-1,no_moves,", ",1-0,no_moves,") };
    std::fs::write(dir.join("games.csv"), text.replacen(flipped, to, 1)).unwrap();
    let files = alq_report::game_files(std::slice::from_ref(&dir)).unwrap();
    assert_eq!(files, vec![dir.join("games.csv")], "folders are searched for games.csv");
    let err = alq_report::collect(&files, 6, |_| {}).unwrap_err().to_string();
    assert!(err.contains("games.csv:") && err.contains("does not follow"), "{err}");
}
