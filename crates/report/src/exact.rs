//! Exact values for the report's opening lines, from a solved opening book
//! (`alq openings --solve`) or from endgame tables. Values are the side to
//! move's after the line, as in the book: `win D`, `loss D`, `draw`, or a
//! bound such as `win ≤ D`.

use std::path::Path;

use alq_engine::Position;
use alq_tablebase::Tablebase;

use crate::{ExactValues, Report, ReportError};

/// Line -> exact value from a book CSV (columns `line` and `exact_value`);
/// rows with an empty value are skipped.
pub fn exact_from_book(path: &Path) -> Result<ExactValues, ReportError> {
    let invalid = |e: &dyn std::fmt::Display| ReportError::Invalid(format!("{}: {e}", path.display()));
    let mut reader = csv::Reader::from_path(path).map_err(|e| invalid(&e))?;
    let headers = reader.headers().map_err(|e| invalid(&e))?.clone();
    let column = |name: &str| {
        headers
            .iter()
            .position(|h| h == name)
            .ok_or_else(|| invalid(&format!("no column {name:?} (not an opening book)")))
    };
    let (line, value) = (column("line")?, column("exact_value")?);
    let mut out = ExactValues::new();
    for (i, row) in reader.records().enumerate() {
        let row = row.map_err(|e| invalid(&e))?;
        let v = row.get(value).unwrap_or("");
        if !v.is_empty() {
            let proven: alq_engine::Proven = v.parse().map_err(|e: String| invalid(&format!("row {}: {e}", i + 2)))?;
            out.insert(row.get(line).unwrap_or("").to_string(), proven.to_string());
        }
    }
    Ok(out)
}

/// Line -> table value for every line of `report` (tree and first moves)
/// whose position the tables cover.
pub fn exact_from_tables(report: &Report, tb: &Tablebase) -> Result<ExactValues, ReportError> {
    let lines =
        report.tree.iter().map(|l| l.line.as_str()).chain(report.first_moves.iter().map(|m| m.first_move.as_str()));
    let mut out = ExactValues::new();
    for line in lines {
        let pos = replay(tb.rules(), line)?;
        if pos.occupied().count() <= tb.max_pieces() {
            let v = tb.probe(&pos).map_err(|e| ReportError::Invalid(e.to_string()))?;
            out.insert(line.to_string(), v.to_string());
        }
    }
    Ok(out)
}

/// Line -> value for every line of `report` (tree and first moves) that
/// `value` knows, given the position after the line (side to move's view,
/// as a book's `exact_value`). A line that is not a game from the start
/// (the tree of games from other positions) is left out.
pub fn exact_from_lines(
    report: &Report,
    rules: alq_engine::RuleSet,
    value: impl Fn(&Position) -> Option<String>,
) -> ExactValues {
    let lines =
        report.tree.iter().map(|l| l.line.as_str()).chain(report.first_moves.iter().map(|m| m.first_move.as_str()));
    lines.filter_map(|line| Some((line.to_string(), value(&replay(rules, line).ok()?)?))).collect()
}

/// The position after a line of space-separated moves from the start.
fn replay(rules: alq_engine::RuleSet, line: &str) -> Result<Position, ReportError> {
    let mut pos = Position::start_of(rules);
    for text in line.split_whitespace() {
        let mv = pos.parse_move_in(rules, text).map_err(|e| ReportError::Invalid(format!("line {line:?}: {e}")))?;
        pos = pos.play(mv);
    }
    Ok(pos)
}

impl Report {
    /// Sets `exact_value` of the opening lines and first moves found in
    /// `values` (others keep theirs).
    pub fn fill_exact(&mut self, values: &ExactValues) {
        for l in &mut self.tree {
            if let Some(v) = values.get(&l.line) {
                l.exact_value = Some(v.clone());
            }
        }
        for m in &mut self.first_moves {
            if let Some(v) = values.get(&m.first_move) {
                m.exact_value = Some(v.clone());
            }
        }
    }

    /// Sets `exact_value` of the opening lines and first moves found in
    /// `values` that have none yet.
    pub fn fill_missing_exact(&mut self, values: &ExactValues) {
        for l in self.tree.iter_mut().filter(|l| l.exact_value.is_none()) {
            l.exact_value = values.get(&l.line).cloned();
        }
        for m in self.first_moves.iter_mut().filter(|m| m.exact_value.is_none()) {
            m.exact_value = values.get(&m.first_move).cloned();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn book_values_are_read_and_bad_books_refused() {
        let dir = std::env::temp_dir().join(format!("alq-report-exact-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let book = dir.join("book.csv");
        std::fs::write(
            &book,
            "line,plies,position,score,best_move,exact_value\nc2-c3,1,x,cp 1,b4-c2,\nd2-c3,1,x,cp 1,b4-c2,draw\n",
        )
        .unwrap();
        let values = exact_from_book(&book).unwrap();
        assert_eq!(values.len(), 1);
        assert_eq!(values["d2-c3"], "draw");
        std::fs::write(&book, "line,exact_value\nc2-c3,won\n").unwrap();
        let err = exact_from_book(&book).unwrap_err().to_string();
        assert!(err.contains("row 2") && err.contains("\"won\""), "{err}");
        std::fs::write(&book, "a,b\n1,2\n").unwrap();
        assert!(exact_from_book(&book).unwrap_err().to_string().contains("not an opening book"));
        assert!(exact_from_book(&dir.join("missing.csv")).is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn lines_replay_and_bad_lines_are_refused() {
        assert_eq!(replay(alq_engine::RuleSet::BrainKing, "").unwrap(), Position::start());
        assert_eq!(
            replay(alq_engine::RuleSet::BrainKing, "c2-c3").unwrap().to_string(),
            "BBBBB/BBBBB/BBWWW/WW.WW/WWWWW b"
        );
        assert!(replay(alq_engine::RuleSet::BrainKing, "c2-c4").is_err());
    }
}
