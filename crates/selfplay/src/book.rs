//! Opening books: every distinct position up to a depth, evaluated by the
//! searcher, as a CSV that matches and self-play read as their openings.

use rayon::prelude::*;
use serde::{Serialize, Serializer};

use alq_engine::{Exact, Game, GameConfig, Move, Position, Proven, RuleSet, Score, SearchConfig, Searcher, Wdl};

use alq_play::players::EvalSpec;

/// One position of the book (a CSV row: `line`, `plies`, `position`,
/// `score`, `best_move`, `exact_value`, as text).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct BookEntry {
    /// Moves from the start (the first line, in sorted move order, that
    /// reaches the position), space-separated.
    pub line: String,
    pub plies: usize,
    #[serde(serialize_with = "as_text")]
    pub position: Position,
    /// The search score, side to move's view (`cp N`, `win P`, `loss P`).
    #[serde(serialize_with = "as_text")]
    pub score: Score,
    /// None when the game is over at the position.
    #[serde(serialize_with = "as_text_or_empty")]
    pub best_move: Option<Move>,
    /// What is proven about the value (side to move's view): by the search
    /// (`win P`, `loss P`, `loss 0` for a finished game), by the proof
    /// search, or by threshold goals; none otherwise.
    #[serde(serialize_with = "as_text_or_empty")]
    pub exact_value: Option<Proven>,
}

fn as_text<T: std::fmt::Display, S: Serializer>(value: &T, s: S) -> Result<S::Ok, S::Error> {
    s.collect_str(value)
}

fn as_text_or_empty<T: std::fmt::Display, S: Serializer>(value: &Option<T>, s: S) -> Result<S::Ok, S::Error> {
    match value {
        Some(v) => s.collect_str(v),
        None => s.serialize_str(""),
    }
}

pub use alq_play::openings::tree as positions;

/// Evaluates every position up to `depth` plies under `rules` with `eval` at `limits`
/// (a fresh searcher each, in parallel; deterministic for node or depth
/// limits), searching with `tables` when given. `on_done` is called after
/// each position.
pub fn build(
    rules: RuleSet,
    depth: u32,
    eval: &EvalSpec,
    limits: alq_engine::Limits,
    tables: Option<&alq_play::TablesSpec>,
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
                position: *pos,
                score,
                best_move: best,
                exact_value: score.exact().map(Proven::Exact),
            }
        })
        .collect()
}

/// Whether an entry belongs in a book of openings `depth` plies deep whose
/// search score is `lo..=hi` centipawns away from equality for either side
/// (`alq openings --balanced CP`: 0..=CP; `--unbalanced LO,HI`). A proven
/// search score never fits. With `decided_out`, neither does an entry whose
/// proven value (tables or proofs) is a win or a loss: an unbalanced opening
/// must still be open for the side behind.
pub fn in_window(entry: &BookEntry, depth: usize, lo: u32, hi: u32, decided_out: bool) -> bool {
    let Score::Cp(cp) = entry.score else { return false };
    let decided = matches!(entry.exact_value.and_then(Proven::wdl), Some(Wdl::Win | Wdl::Loss));
    entry.plies == depth && (lo..=hi).contains(&cp.unsigned_abs()) && !(decided_out && decided)
}

/// The entries' indices, deepest positions first (so that proofs of deeper
/// positions serve as leaves for shallower ones), and their positions.
fn deepest_first(entries: &[BookEntry]) -> (Vec<usize>, Vec<Position>) {
    let mut order: Vec<usize> = (0..entries.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(entries[i].plies));
    let positions: Vec<Position> = entries.iter().map(|e| e.position).collect();
    (order, positions)
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
    let (order, positions) = deepest_first(entries);
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
        entries[i].exact_value = proof;
    }
    Ok(())
}

/// Settles threshold `goals` (`alq openings --solve --solve-goal`) for every
/// entry: one proof search per goal, the goals in parallel, each over the
/// positions deepest first with one solver, so that positions it settled
/// earlier are leaves of later searches. Returns, per entry, one outcome per
/// goal (in the order of `goals`), with the certificates and node counts
/// (see [`SolvedGoals`]), and sets `exact_value` where the outcomes
/// decide the value without its distance (side to move's view): `win`,
/// `loss`, `draw`, or a one-sided bound `≥ draw` / `≤ draw`; entries with
/// a value already keep it. `on_done` is called after each search.
///
/// With `certify`, every search writes a certificate and uses as leaves only
/// positions of earlier certificates of its goal (draw goals: every position
/// a search held for the defender; win goals: every position an earlier
/// search proved won, its certificate cited with lower ranks) and, for draw
/// goals, positions an earlier search found won for the attacker, so the certificate of the shallowest
/// position (the first entry with the fewest plies), returned per goal, is
/// one checkable proof when the goal is proven there. The certificates of
/// the entries one ply below it (after each first move, with the default
/// line) are returned too, each a proof of its own.
#[allow(clippy::too_many_arguments)]
pub fn solve_goals(
    rules: RuleSet,
    entries: &mut [BookEntry],
    tb: Option<&alq_tablebase::Tablebase>,
    eval: &EvalSpec,
    goals: &[alq_solver::Goal],
    budget: &alq_solver::Budget,
    certify: bool,
    on_done: impl Fn() + Sync,
) -> Result<SolvedGoals, alq_solver::SolveError> {
    use alq_solver::Outcome;
    let (order, positions) = deepest_first(entries);
    let shallowest = entries.iter().map(|e| e.plies).min().unwrap_or(0);
    let per_goal = goals
        .par_iter()
        .map(|&goal| {
            let mut solver = alq_solver::ThresholdSolver::new(tb, Some(eval.build()));
            solver.set_rules(rules);
            solver.want_certificates(certify);
            // Only the draw goals' proofs are written: wins of the attacker
            // found earlier may end later searches (a defender's strategy
            // never enters them).
            solver.attacker_wins_as_leaves = !goal.is_win();
            // Win goals cite the certified wins below them instead.
            solver.cite_wins = certify && goal.is_win();
            let mut outcomes = vec![Outcome::Unknown; positions.len()];
            let mut top = None;
            let mut below = Vec::new();
            let mut nodes = 0;
            for &i in &order {
                let result = solver.solve(&positions[i], goal, budget, &mut |_| {})?;
                outcomes[i] = result.outcome;
                nodes += result.nodes;
                // Deepest first: the last entry is the shallowest.
                if let Some(cert) = result.certificate {
                    if entries[i].plies == shallowest + 1 {
                        below.push((i, cert.clone()));
                    }
                    top = Some(cert);
                } else {
                    top = None;
                }
                on_done();
            }
            Ok((outcomes, top, below, nodes))
        })
        .collect::<Result<Vec<_>, alq_solver::SolveError>>()?;
    let mut certificates = Vec::new();
    let mut below = Vec::new();
    let mut nodes = Vec::new();
    let per_goal: Vec<Vec<Outcome>> = per_goal
        .into_iter()
        .map(|(o, c, b, n)| {
            certificates.push(c);
            below.push(b);
            nodes.push(n);
            o
        })
        .collect();
    let outcomes: Vec<Vec<Outcome>> = (0..entries.len()).map(|i| per_goal.iter().map(|o| o[i]).collect()).collect();
    for (entry, (pos, found)) in entries.iter_mut().zip(positions.iter().zip(&outcomes)) {
        if entry.exact_value.is_none() {
            entry.exact_value = value_from_goals(pos.side_to_move(), goals, found);
        }
    }
    Ok(SolvedGoals { outcomes, certificates, below, nodes })
}

/// What [`solve_goals`] settled.
#[derive(Debug)]
pub struct SolvedGoals {
    /// Per entry, one outcome per goal (in the order of the goals).
    pub outcomes: Vec<Vec<alq_solver::Outcome>>,
    /// Per goal, the certificate of the shallowest position when asked for
    /// and settled there.
    pub certificates: Vec<Option<alq_solver::Certificate>>,
    /// Per goal, the certificates of the entries one ply below the
    /// shallowest (after each first move), by entry index, when asked for:
    /// of the goal where it was proven, of its opposite where disproven.
    pub below: Vec<Vec<(usize, alq_solver::Certificate)>>,
    /// Per goal, the positions expanded by all its searches.
    pub nodes: Vec<u64>,
}

/// The value, without distance and from `mover`'s view, that threshold
/// outcomes decide: `win`, `loss`, `draw`, `≥ draw`, `≤ draw`, or none when
/// they decide nothing.
pub fn value_from_goals(
    mover: alq_engine::Side,
    goals: &[alq_solver::Goal],
    outcomes: &[alq_solver::Outcome],
) -> Option<Proven> {
    use alq_solver::Outcome;
    // The value lies in lo..=hi (-1 loss, 0 draw, 1 win); each settled goal
    // narrows it.
    let (mut lo, mut hi) = (-1i8, 1i8);
    for (&goal, &outcome) in goals.iter().zip(outcomes) {
        let holds = match outcome {
            Outcome::Proven => true,
            Outcome::Disproven => false,
            Outcome::Unknown => continue,
        };
        let wins = goal.is_win();
        match (goal.side() == mover, wins, holds) {
            (true, true, true) | (false, false, false) => lo = 1,
            (true, false, false) | (false, true, true) => hi = -1,
            (true, true, false) | (false, false, true) => hi = hi.min(0),
            (true, false, true) | (false, true, false) => lo = lo.max(0),
        }
    }
    match (lo, hi) {
        (1, _) => Some(Proven::Win),
        (_, -1) => Some(Proven::Loss),
        (0, 0) => Some(Proven::Exact(Exact::Draw)),
        (0, 1) => Some(Proven::AtLeastDraw),
        (-1, 0) => Some(Proven::AtMostDraw),
        _ => None,
    }
}

/// The book as CSV text.
pub fn to_csv(entries: &[BookEntry]) -> String {
    let mut w = csv::Writer::from_writer(Vec::new());
    for e in entries {
        w.serialize(e).expect("book rows serialise");
    }
    String::from_utf8(w.into_inner().expect("writing to memory")).expect("utf-8")
}

#[cfg(test)]
mod tests {
    use super::{in_window, value_from_goals, BookEntry};
    use alq_engine::{Exact, Position, Proven, Score};

    #[test]
    fn windows_keep_scores_within_their_bounds_and_open_positions() {
        let entry = |plies, score, exact_value| BookEntry {
            line: String::new(),
            plies,
            position: Position::start(),
            score,
            best_move: None,
            exact_value,
        };
        // Balanced: |cp| <= 60, at the depth only.
        assert!(in_window(&entry(10, Score::Cp(-60), None), 10, 0, 60, false));
        assert!(!in_window(&entry(10, Score::Cp(61), None), 10, 0, 60, false));
        assert!(!in_window(&entry(9, Score::Cp(0), None), 10, 0, 60, false));
        assert!(!in_window(&entry(10, Score::Win(7), None), 10, 0, 60, false));
        // Unbalanced: 100..=250 for either side, and not already decided.
        assert!(in_window(&entry(10, Score::Cp(-180), None), 10, 100, 250, true));
        assert!(!in_window(&entry(10, Score::Cp(99), None), 10, 100, 250, true));
        assert!(!in_window(&entry(10, Score::Cp(251), None), 10, 100, 250, true));
        assert!(!in_window(&entry(10, Score::Cp(150), Some(Proven::Loss)), 10, 100, 250, true));
        assert!(!in_window(&entry(10, Score::Cp(150), Some(Proven::Exact(Exact::Win(31)))), 10, 100, 250, true));
        assert!(in_window(&entry(10, Score::Cp(150), Some(Proven::AtLeastDraw)), 10, 100, 250, true));
        assert!(in_window(&entry(10, Score::Cp(150), Some(Proven::Exact(Exact::Draw))), 10, 100, 250, true));
    }
    use alq_engine::Side;
    use alq_solver::{Goal, Outcome};

    #[test]
    fn threshold_outcomes_bound_the_value() {
        use Goal::*;
        use Outcome::*;
        // As the book writes it.
        let v = |mover, goals: &[Goal], outcomes: &[Outcome]| {
            value_from_goals(mover, goals, outcomes).map_or(String::new(), |p| p.to_string())
        };
        // Both sides hold a draw.
        assert_eq!(v(Side::White, &[WhiteDraws, BlackDraws], &[Proven, Proven]), "draw");
        // Black to move: White cannot hold a draw, so Black wins.
        assert_eq!(v(Side::Black, &[WhiteDraws, BlackDraws], &[Disproven, Unknown]), "win");
        assert_eq!(v(Side::White, &[WhiteDraws, BlackDraws], &[Disproven, Unknown]), "loss");
        // One side only.
        assert_eq!(v(Side::White, &[WhiteDraws, BlackDraws], &[Proven, Unknown]), "≥ draw");
        assert_eq!(v(Side::Black, &[WhiteDraws, BlackDraws], &[Proven, Unknown]), "≤ draw");
        // A win goal disproven bounds from above; with the draw it decides.
        assert_eq!(v(Side::White, &[WhiteWins], &[Disproven]), "≤ draw");
        assert_eq!(v(Side::White, &[WhiteWins, WhiteDraws], &[Disproven, Proven]), "draw");
        assert_eq!(v(Side::Black, &[WhiteWins], &[Proven]), "loss");
        assert_eq!(v(Side::White, &[BlackDraws], &[Disproven]), "win");
        // Nothing settled.
        assert_eq!(v(Side::White, &[WhiteDraws, BlackDraws], &[Unknown, Unknown]), "");
        assert_eq!(v(Side::White, &[], &[]), "");
    }

    /// Certified win goals over a small tree (a root, its replies, their
    /// replies): each settled reply of the root comes with a certificate of
    /// its own, of the goal where proven and of its opposite where
    /// disproven, and a proven root's certificate holds the proofs of the
    /// replies its strategy reaches whole, and checks. (That later win
    /// searches cite earlier ones, and save expansions doing so, is tested
    /// on the solver: `certified_wins_are_cited_by_later_win_proofs`.)
    #[test]
    fn certified_trees_give_each_first_move_its_certificate() {
        use alq_engine::{Bitboard, RuleSet};
        use alq_solver::{check_certificate, Budget, Goal, Outcome};
        use rand::{Rng, SeedableRng};
        let dir = std::env::temp_dir().join(format!("alq-book-certified-tb3-{}", std::process::id()));
        let options = alq_tablebase::BuildOptions {
            pieces: 3,
            shard: None,
            rules: RuleSet::BrainKing,
            kind: alq_tablebase::Kind::Wdl,
        };
        alq_tablebase::build(&dir, &options, &mut |_| {}).unwrap();
        let tb = alq_tablebase::Tablebase::open(&dir).unwrap();
        let entry = |line: String, plies, position| BookEntry {
            line,
            plies,
            position,
            score: Score::Cp(0),
            best_move: None,
            exact_value: None,
        };
        let budget = Budget { nodes: Some(200_000), time: None, memory_bytes: 1 << 28 };
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(41);
        let (mut roots, mut below_checked, mut citing) = (0, 0, 0);
        while roots < 6 {
            // Five pieces, at least two of each side, White to move.
            let points = rand::seq::index::sample(&mut rng, 25, 5);
            let mut sides = [0u32; 2];
            for (i, p) in points.iter().enumerate() {
                let white = i < 2 || (i == 4 && rng.gen_bool(0.5));
                sides[usize::from(!white)] |= 1 << p;
            }
            let root = Position::from_parts(Bitboard(sides[0]), Bitboard(sides[1]), alq_engine::Side::White);
            let mut entries = vec![entry(String::new(), 0, root)];
            for mv in root.legal_moves() {
                let child = root.play(mv);
                entries.push(entry(mv.to_string(), 1, child));
                for r in child.legal_moves() {
                    entries.push(entry(format!("{mv} {r}"), 2, child.play(r)));
                }
            }
            let goals = [Goal::WhiteWins];
            let solved = super::solve_goals(
                RuleSet::BrainKing,
                &mut entries,
                Some(&tb),
                &super::EvalSpec::parse("hce").unwrap(),
                &goals,
                &budget,
                true,
                || {},
            )
            .unwrap();
            if solved.outcomes[0][0] != Outcome::Proven {
                continue;
            }
            roots += 1;
            let cert = solved.certificates[0].as_ref().expect("a settled root has its certificate");
            assert_eq!(cert.goal, Goal::WhiteWins);
            check_certificate(cert, &root, Some(&tb)).unwrap_or_else(|e| panic!("{root}: {e}"));
            // One certificate per settled reply of the root, of the goal or its opposite.
            let settled = (1..entries.len())
                .filter(|&i| entries[i].plies == 1 && solved.outcomes[i][0] != Outcome::Unknown)
                .count();
            assert_eq!(solved.below[0].len(), settled, "{root}");
            for (i, c) in &solved.below[0] {
                assert_eq!(entries[*i].plies, 1);
                let proven = solved.outcomes[*i][0] == Outcome::Proven;
                assert_eq!(c.goal == Goal::WhiteWins, proven, "{}", entries[*i].line);
                check_certificate(c, &entries[*i].position, Some(&tb))
                    .unwrap_or_else(|e| panic!("{} after {root}: {e}", entries[*i].line));
                below_checked += 1;
                // The root's proof takes in a proven reply's proof whole
                // (same entries, same ranks) when its strategy reaches it.
                let held: std::collections::HashMap<u64, _> = cert.entries.iter().map(|e| (e.key, *e)).collect();
                if proven && c.entries.iter().all(|e| held.get(&e.key) == Some(e)) {
                    citing += 1;
                }
            }
        }
        assert!(below_checked >= 6, "{below_checked} first-move certificates checked");
        assert!(citing >= 3, "root proofs holding a reply's proof whole: {citing}");
        std::fs::remove_dir_all(&dir).ok();
    }
}
