//! Opening sets for matches and self-play: every distinct position a fixed
//! number of plies from the start, random plies, or a book of lines.

use std::collections::HashSet;

use rand::seq::SliceRandom;
use rand::Rng;

use alq_engine::{Game, GameConfig, Move, Position, RuleSet};

/// An opening: moves from the standard start.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Opening {
    pub moves: Vec<Move>,
}

impl Opening {
    /// The moves in notation, space-separated.
    pub fn line(&self) -> String {
        self.moves.iter().map(|m| m.to_string()).collect::<Vec<_>>().join(" ")
    }

    /// A game from the start with the opening's moves played.
    pub fn game(&self, config: GameConfig) -> Game {
        let mut game = Game::new(Position::start_of(config.rules), config);
        for &mv in &self.moves {
            // The moves were generated or validated from the start, so they
            // are legal; stop early if a draw rule ended the game anyway.
            if game.play(mv).is_err() {
                break;
            }
        }
        game
    }
}

/// Every distinct position 0..=depth plies from the start under `rules`,
/// with the first line (in sorted move order) reaching it, in breadth-first
/// order. (A position reached at two depths appears at each.)
pub fn tree(rules: RuleSet, depth: u32) -> Vec<(Vec<Move>, Position)> {
    tree_from(Position::start_of(rules), rules, depth, |_| true)
}

/// The tree of [`tree`] grown from `root` instead of the start, expanding
/// only the positions for which `expand` holds (the others stay in the tree
/// as leaves): every distinct position 0..=depth plies from `root` on such
/// lines, with the first line (in sorted move order) reaching it, in
/// breadth-first order.
pub fn tree_from(
    root: Position,
    rules: RuleSet,
    depth: u32,
    expand: impl Fn(&Position) -> bool,
) -> Vec<(Vec<Move>, Position)> {
    let mut all = vec![(Vec::new(), root)];
    let mut frontier = all.clone();
    for _ in 0..depth {
        let mut seen = HashSet::new();
        let mut next = Vec::new();
        for (line, pos) in frontier.iter().filter(|(_, p)| expand(p)) {
            let mut moves: Vec<Move> = pos.legal_moves_in(rules).into_iter().collect();
            moves.sort_by_key(|m| m.to_string());
            for mv in moves {
                let child = pos.play(mv);
                if seen.insert(child) {
                    let mut l = line.clone();
                    l.push(mv);
                    next.push((l, child));
                }
            }
        }
        all.extend(next.iter().cloned());
        frontier = next;
    }
    all
}

/// Every distinct position exactly `plies` plies from the start where the
/// game goes on, each with the first line (in sorted move order) reaching it.
pub fn all_after(rules: RuleSet, plies: u32) -> Vec<Opening> {
    tree(rules, plies)
        .into_iter()
        .filter(|(line, p)| line.len() == plies as usize && !p.is_lost_in(rules))
        .map(|(moves, _)| Opening { moves })
        .collect()
}

/// `plies` uniformly random moves from the start (fewer if the game ends).
pub fn random(rules: RuleSet, plies: u32, rng: &mut impl Rng) -> Opening {
    let mut game = Game::new(Position::start_of(rules), GameConfig::with_rules(rules));
    let mut moves = Vec::new();
    for _ in 0..plies {
        if game.is_over() {
            break;
        }
        let legal = game.legal_moves();
        let Some(&mv) = legal.choose(rng) else { break };
        game.play(mv).expect("a generated move is legal");
        moves.push(mv);
    }
    // Never hand out a finished game as an opening: drop its last move.
    if game.is_over() {
        moves.pop();
    }
    Opening { moves }
}

/// Why a book was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BookError {
    #[error("book header: {0}")]
    Header(String),
    #[error("book header has no `line` column")]
    NoLineColumn,
    #[error("line {line}: {problem}")]
    Line { line: usize, problem: String },
    #[error("the book holds no openings")]
    Empty,
}

/// Reads a book: one opening per line as moves from the start (`d3-c3
/// b3xd3 ...`), blank lines and `#` comments ignored. A CSV file whose header
/// has a `line` column (as `alq openings` writes) is read from that column.
/// The moves must be legal under `rules`.
pub fn parse_book(rules: RuleSet, text: &str) -> Result<Vec<Opening>, BookError> {
    let header = text.lines().next().unwrap_or("");
    let is_csv = header.split(',').any(|c| c.trim().trim_matches('"') == "line");
    let mut lines: Vec<(usize, String)> = Vec::new();
    if is_csv {
        let mut reader = csv::Reader::from_reader(text.as_bytes());
        let column = reader
            .headers()
            .map_err(|e| BookError::Header(e.to_string()))?
            .iter()
            .position(|c| c == "line")
            .ok_or(BookError::NoLineColumn)?;
        for (i, record) in reader.records().enumerate() {
            let bad = |problem: String| BookError::Line { line: i + 2, problem };
            let record = record.map_err(|e| bad(e.to_string()))?;
            let field = record.get(column).ok_or_else(|| bad("no `line` field".into()))?;
            lines.push((i + 2, field.to_string()));
        }
    } else {
        for (i, raw) in text.lines().enumerate() {
            let trimmed = raw.trim();
            if !trimmed.is_empty() && !trimmed.starts_with('#') {
                lines.push((i + 1, trimmed.to_string()));
            }
        }
    }
    let mut openings = Vec::new();
    for (n, line) in lines {
        let mut game = Game::new(Position::start_of(rules), GameConfig::with_rules(rules));
        let mut moves = Vec::new();
        for text in line.split_whitespace() {
            let mv = game
                .play_text(text)
                .map_err(|e| BookError::Line { line: n, problem: format!("{e} (under the {rules} rules)") })?;
            moves.push(mv);
        }
        if game.is_over() {
            return Err(BookError::Line { line: n, problem: format!("the game is already over after {line:?}") });
        }
        openings.push(Opening { moves });
    }
    if openings.is_empty() {
        return Err(BookError::Empty);
    }
    Ok(openings)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    const BK: RuleSet = RuleSet::BrainKing;

    #[test]
    fn positions_after_plies_are_distinct() {
        assert_eq!(all_after(BK, 0).len(), 1);
        assert_eq!(all_after(BK, 1).len(), 4);
        let four = all_after(BK, 4);
        let positions: HashSet<Position> = four.iter().map(|o| o.game(GameConfig::default()).position()).collect();
        assert_eq!(positions.len(), four.len());
        assert!(four.len() <= 12);
        assert!(all_after(BK, 8).len() > 500);
    }

    #[test]
    fn random_openings_are_seeded() {
        let a = random(BK, 8, &mut rand_chacha::ChaCha8Rng::seed_from_u64(1));
        let b = random(BK, 8, &mut rand_chacha::ChaCha8Rng::seed_from_u64(1));
        assert_eq!(a, b);
        assert_eq!(a.moves.len(), 8);
    }

    #[test]
    fn books_are_read_under_their_rules() {
        // White's fifth move steps backward: a classic line, not a BrainKing one.
        let line = "d2-c3 b4xd2 e1xc3 d4xd2xb4 e2-e1";
        assert_eq!(parse_book(RuleSet::Classic, line).unwrap()[0].line(), line);
        let err = parse_book(BK, line).unwrap_err().to_string();
        assert!(err.contains("e2-e1") && err.contains("brainking"), "{err}");
        let classic = all_after(RuleSet::Classic, 6).len();
        assert!(classic > all_after(BK, 6).len(), "backward moves open the classic tree: {classic}");
    }

    #[test]
    fn books_read_lines_and_csv() {
        let book = parse_book(BK, "# comment\nd3-c3 b3xd3\n\nc2-c3\n").unwrap();
        assert_eq!(book.len(), 2);
        assert_eq!(book[0].line(), "d3-c3 b3xd3");
        let csv = parse_book(BK, "line,score\n\"d3-c3 b3xd3\",12\nb2-c3,3\n").unwrap();
        assert_eq!(csv[1].line(), "b2-c3");
        assert!(matches!(parse_book(BK, "d3-c3 d3-c3"), Err(BookError::Line { line: 1, .. })));
        assert!(matches!(parse_book(BK, "# nothing\n"), Err(BookError::Empty)));
    }
}
