//! Opening books: every distinct position up to a depth, evaluated by the
//! searcher, as a CSV that matches and self-play read as their openings.

use rayon::prelude::*;
use serde::Serialize;

use alq_engine::{Game, GameConfig, Position, RuleSet, Score, SearchConfig, Searcher};

use crate::players::EvalSpec;

/// One position of the book.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct BookEntry {
    /// Moves from the start (the first line, in sorted move order, that
    /// reaches the position), space-separated.
    pub line: String,
    pub plies: usize,
    pub position: String,
    /// The search score, side to move's view (`cp N`, `win P`, `loss P`).
    pub score: String,
    pub best_move: String,
    /// `win P` or `loss P` when the search proved it, `loss 0` for a finished
    /// game; empty otherwise.
    pub exact_value: String,
}

pub use crate::openings::tree as positions;

/// Evaluates every position up to `depth` plies under `rules` with `eval` at `limits`
/// (a fresh searcher each, in parallel; deterministic for node or depth
/// limits), searching with `tables` when given. `on_done` is called after
/// each position.
pub fn build(
    rules: RuleSet,
    depth: u32,
    eval: &EvalSpec,
    limits: alq_engine::Limits,
    tables: Option<&crate::TablesSpec>,
    on_done: impl Fn() + Sync,
) -> Vec<BookEntry> {
    let positions = positions(rules, depth);
    positions
        .par_iter()
        .map(|(line, pos)| {
            let mut game = Game::new(Position::start_of(rules), GameConfig::with_rules(rules));
            for &mv in line {
                game.play(mv).expect("lines are legal");
            }
            let text = line.iter().map(|m| m.to_string()).collect::<Vec<_>>().join(" ");
            let (score, best) = if game.is_over() {
                (Score::Loss(0), None)
            } else {
                let mut searcher = Searcher::new(eval.build(), SearchConfig { hash_mb: 8 });
                searcher.set_tables(tables.map(|t| std::sync::Arc::clone(&t.tables)));
                let r = searcher.search(&game, limits, |_| {});
                (r.score, r.best)
            };
            on_done();
            BookEntry {
                line: text,
                plies: line.len(),
                position: pos.to_string(),
                score: score.to_string(),
                best_move: best.map_or(String::new(), |m| m.to_string()),
                exact_value: if score.is_proven() { score.to_string() } else { String::new() },
            }
        })
        .collect()
}

/// Replaces every entry's `exact_value` by what the proof search proves
/// (`alq openings --solve`): `win D`, `loss D`, `draw` (game-theoretic values,
/// side to move's view, as the tablebases define them), `win ≤ D` / `loss ≤ D`
/// for a proven result whose distance is only bounded, empty when `budget`
/// does not suffice. Deepest positions first, one solver per worker thread,
/// so that proofs of deeper positions serve as leaves for shallower ones.
/// `on_done` is called after each position.
pub fn solve_exact(
    rules: RuleSet,
    entries: &mut [BookEntry],
    tb: Option<&alq_tablebase::Tablebase>,
    budget: &alq_solver::Budget,
    on_done: impl Fn() + Sync,
) -> Result<(), alq_solver::SolveError> {
    let mut order: Vec<usize> = (0..entries.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(entries[i].plies));
    let positions: Vec<Position> = entries.iter().map(|e| e.position.parse().expect("book positions are valid")).collect();
    let values = order
        .par_iter()
        .map_init(
            || {
                let mut solver = alq_solver::Solver::new(tb);
                solver.set_rules(rules);
                solver
            },
            |solver, &i| {
                let r = solver.solve(&positions[i], budget);
                on_done();
                r.map(|r| (i, r.proof))
            },
        )
        .collect::<Result<Vec<_>, _>>()?;
    for (i, proof) in values {
        entries[i].exact_value = if proof.is_proven() { proof.to_string() } else { String::new() };
    }
    Ok(())
}

/// The book as CSV text.
pub fn to_csv(entries: &[BookEntry]) -> String {
    let mut w = csv::Writer::from_writer(Vec::new());
    for e in entries {
        w.serialize(e).expect("book rows serialise");
    }
    String::from_utf8(w.into_inner().expect("writing to memory")).expect("utf-8")
}
