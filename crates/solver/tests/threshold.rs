//! Threshold proofs against the tablebases: every goal's answer must agree
//! with the tables' win/draw/loss value, with and without an evaluator, with
//! tables as leaves, and with a solver reusing what earlier searches proved.

use std::path::PathBuf;
use std::sync::OnceLock;

use alq_engine::{Hce, HceWeights, Position};
use alq_solver::certificate::{CertificateError, Step};
use alq_solver::{check_certificate, Budget, Certificate, Goal, Outcome, ProvenStore, ThresholdSolver};
use alq_tablebase::{build, BuildOptions, Exact, Kind, Tablebase, Wdl};

use crate::common::random_position;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

fn built(pieces: u32) -> Tablebase {
    let dir: PathBuf = std::env::temp_dir().join(format!("alq-threshold-tb{pieces}-{}", std::process::id()));
    let options = BuildOptions { pieces, shard: None, rules: alq_engine::RuleSet::BrainKing, kind: Kind::Distance };
    build(&dir, &options, &mut |_| {}).unwrap();
    Tablebase::open(&dir).unwrap()
}

/// ≤ 6-piece tables: the truth.
fn truth() -> &'static Tablebase {
    static TB: OnceLock<Tablebase> = OnceLock::new();
    TB.get_or_init(|| built(6))
}

/// ≤ 4-piece tables: leaves for searches of 5- and 6-piece positions.
fn leaves() -> &'static Tablebase {
    static TB: OnceLock<Tablebase> = OnceLock::new();
    TB.get_or_init(|| built(4))
}

fn wdl(v: Exact) -> Wdl {
    match v {
        Exact::Win(_) => Wdl::Win,
        Exact::Loss(_) => Wdl::Loss,
        Exact::Draw => Wdl::Draw,
    }
}

fn unlimited() -> Budget {
    Budget { nodes: None, time: None, memory_bytes: 1 << 30 }
}

fn hce() -> Box<dyn alq_engine::Evaluator> {
    Box::new(Hce::new(HceWeights::default()))
}

/// Solves every goal for `count` random positions and compares with the
/// tables; returns how many goals were proven and disproven.
fn check(solver: &mut ThresholdSolver<'_>, seed: u64, count: usize, min: u32, max: u32) -> (u32, u32) {
    let tb = truth();
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let (mut proven, mut disproven) = (0, 0);
    for _ in 0..count {
        let pos = random_position(&mut rng, min, max);
        let value = wdl(tb.probe(&pos).unwrap());
        for goal in Goal::ALL {
            let result = solver.solve(&pos, goal, &unlimited(), &mut |_| {}).unwrap();
            let expected = if goal.holds(pos.side_to_move(), value) { Outcome::Proven } else { Outcome::Disproven };
            assert_eq!(result.outcome, expected, "{goal} from {pos} (tables: {value:?})");
            if expected == Outcome::Proven {
                proven += 1;
            } else {
                disproven += 1;
            }
            // The move given keeps the result for the side that has it.
            if let Some(mv) = result.best_move {
                let after = wdl(tb.probe(&pos.play(mv)).unwrap());
                assert_eq!(
                    goal.holds(pos.side_to_move().opponent(), after),
                    expected == Outcome::Proven,
                    "{goal} from {pos}: best move {mv} changes the answer"
                );
            }
        }
    }
    (proven, disproven)
}

#[test]
fn goals_without_tables_agree_with_the_tables_up_to_five_pieces() {
    let mut solver = ThresholdSolver::new(None, None);
    let (p, d) = check(&mut solver, 11, 150, 2, 5);
    assert!(p > 100 && d > 100, "both answers occur: {p} proven, {d} disproven");
}

#[test]
fn goals_with_an_evaluator_agree_with_the_tables() {
    let mut solver = ThresholdSolver::new(None, Some(hce()));
    check(&mut solver, 12, 120, 3, 5);
}

#[test]
fn cycle_aware_guidance_gives_the_same_answers() {
    // Guidance only: the answers still come from the fixed points. Without
    // tables, 3–5 pieces, so that drawn positions with cycles occur.
    let mut solver = ThresholdSolver::new(None, Some(hce()));
    solver.cycle_aware = true;
    let (p, d) = check(&mut solver, 31, 30, 3, 5);
    assert!(p > 25 && d > 25, "both answers occur: {p} proven, {d} disproven");
}

#[test]
fn goals_with_tables_as_leaves_agree_with_the_tables_at_six_pieces() {
    let mut solver = ThresholdSolver::new(Some(leaves()), Some(hce()));
    let (p, d) = check(&mut solver, 13, 80, 6, 6);
    assert!(p > 0 && d > 0);
    assert!(solver.store_len() > 0, "the solver keeps what it proved");
}

#[test]
fn drawn_positions_are_proven_draws_for_both_sides() {
    // Draws are where cycles decide: the side that needs a draw may repeat.
    let tb = truth();
    let mut rng = ChaCha8Rng::seed_from_u64(14);
    let mut solver = ThresholdSolver::new(None, None);
    let mut draws = 0;
    while draws < 20 {
        let pos = random_position(&mut rng, 4, 5);
        if tb.probe(&pos).unwrap() != Exact::Draw {
            continue;
        }
        draws += 1;
        for goal in Goal::ALL {
            let result = solver.solve(&pos, goal, &unlimited(), &mut |_| {}).unwrap();
            let draw_goal = matches!(goal, Goal::WhiteDraws | Goal::BlackDraws);
            let expected = if draw_goal { Outcome::Proven } else { Outcome::Disproven };
            assert_eq!(result.outcome, expected, "{goal} from drawn {pos}");
        }
    }
}

#[test]
fn small_budgets_give_unknown_or_the_right_answer() {
    let tb = truth();
    let mut rng = ChaCha8Rng::seed_from_u64(15);
    let mut unknown = 0;
    for _ in 0..60 {
        let pos = random_position(&mut rng, 5, 6);
        let value = wdl(tb.probe(&pos).unwrap());
        for goal in [Goal::WhiteDraws, Goal::BlackWins] {
            let mut solver = ThresholdSolver::new(None, Some(hce()));
            solver.min_batch = 8;
            let result = solver.solve(&pos, goal, &Budget::nodes(40), &mut |_| {}).unwrap();
            let truth = goal.holds(pos.side_to_move(), value);
            match result.outcome {
                Outcome::Unknown => {
                    unknown += 1;
                    assert!(result.out_of_budget);
                }
                Outcome::Proven => assert!(truth, "{goal} proven from {pos}, tables: {value:?}"),
                Outcome::Disproven => assert!(!truth, "{goal} disproven from {pos}, tables: {value:?}"),
            }
            assert!(result.nodes <= 40);
        }
    }
    assert!(unknown > 0, "40 nodes leave some 5-6 piece goals open");
}

#[test]
fn goal_names_parse_and_misspellings_are_named() {
    for goal in Goal::ALL {
        assert_eq!(goal.name().parse::<Goal>().unwrap(), goal);
    }
    let err = "white-draw".parse::<Goal>().unwrap_err();
    assert!(err.contains("\"white-draw\""), "{err}");
}

#[test]
fn certificates_check_and_tampered_ones_are_rejected() {
    let tb = leaves();
    let mut solver = ThresholdSolver::new(Some(tb), Some(hce()));
    solver.want_certificates(true);
    let mut rng = ChaCha8Rng::seed_from_u64(16);
    let (mut wins, mut draws, mut rejected) = (0, 0, 0);
    for _ in 0..40 {
        let pos = random_position(&mut rng, 5, 6);
        for goal in Goal::ALL {
            let result = solver.solve(&pos, goal, &unlimited(), &mut |_| {}).unwrap();
            let cert = result.certificate.expect("a settled goal has a certificate");
            let proved = if result.outcome == Outcome::Proven { goal } else { goal.opposite() };
            assert_eq!(cert.goal, proved);
            let report = check_certificate(&cert, &pos, Some(tb)).unwrap_or_else(|e| panic!("{goal} from {pos}: {e}"));
            assert_eq!(report.entries, cert.entries.len());
            // Written lean: the root reaches every entry.
            assert_eq!((report.unreachable, report.leaves_probed), (0, true), "{goal} from {pos}");
            assert_eq!(cert.lean(), cert);
            // Without tables, everything but the leaves' values checks.
            let structure = alq_solver::check_structure(&cert, &pos).unwrap();
            assert_eq!((structure.entries, structure.leaves_probed), (report.entries, false));
            // The text round-trips.
            let text = cert.to_text();
            assert_eq!(Certificate::parse(text.as_bytes()).unwrap(), cert);
            // Another position is not proven by it.
            let other = pos.with_side_to_move(pos.side_to_move().opponent());
            assert!(matches!(
                check_certificate(&cert, &other, Some(tb)),
                Err(alq_solver::CheckError::WrongRoot { .. })
            ));
            let win_goal = matches!(proved, Goal::WhiteWins | Goal::BlackWins);
            if win_goal {
                wins += 1
            } else {
                draws += 1
            }
            // Tampering: drop an entry a move leads to (not the root).
            let root = cert.root;
            if let Some(i) = cert.entries.iter().position(|e| e.key != root) {
                let mut bad = cert.clone();
                bad.entries.remove(i);
                assert!(check_certificate(&bad, &pos, Some(tb)).is_err(), "{goal} from {pos}: an entry removed");
                assert!(alq_solver::check_structure(&bad, &pos).is_err(), "{goal} from {pos}: an entry removed");
                rejected += 1;
            }
            // Change a table leaf's value.
            if let Some(i) = cert.entries.iter().position(|e| matches!(e.step, Step::Table(_))) {
                let mut bad = cert.clone();
                if let Step::Table(v) = bad.entries[i].step {
                    bad.entries[i].step = Step::Table(if v == Wdl::Draw { Wdl::Win } else { Wdl::Draw });
                }
                assert!(check_certificate(&bad, &pos, Some(tb)).is_err(), "{goal} from {pos}: a leaf changed");
                rejected += 1;
            }
            // A draw goal: ranks are 0.
            if !win_goal {
                let mut bad = cert.clone();
                bad.entries[0].rank = 1;
                assert!(check_certificate(&bad, &pos, Some(tb)).is_err(), "{goal} from {pos}: rank 1 in a draw");
            }
            // A win goal: ranks that allow a cycle are refused.
            if win_goal {
                if let Some(i) = cert.entries.iter().position(|e| matches!(e.step, Step::Move(_) | Step::All)) {
                    let mut bad = cert.clone();
                    bad.entries[i].rank = 0;
                    assert!(check_certificate(&bad, &pos, Some(tb)).is_err(), "{goal} from {pos}: rank 0 inside");
                }
            }
            // Without the tables, a certificate with table leaves is not checked.
            if report.table_leaves > 0 {
                assert!(check_certificate(&cert, &pos, None).is_err());
            }
        }
    }
    assert!(
        wins > 10 && draws > 10 && rejected > 50,
        "{wins} win and {draws} draw certificates, {rejected} tamperings"
    );
}

/// A solver asked for certificates uses the positions of its earlier
/// draw-goal certificates as leaves, and a proof that rests on them takes in
/// exactly the entries it cites: the result checks on its own, and removing
/// any entry but the root breaks it.
#[test]
fn certificates_cite_earlier_proofs_of_the_same_goal() {
    let tb = leaves();
    let mut rng = ChaCha8Rng::seed_from_u64(21);
    let mut cited = 0;
    for _ in 0..200 {
        let pos = random_position(&mut rng, 5, 5);
        let moves = pos.legal_moves();
        if moves.is_empty() {
            continue;
        }
        // The draw of the side not to move, after each of the mover's moves:
        // prove the children first, then the parent, with one solver.
        let goal = Goal::draws_of(pos.side_to_move().opponent());
        let mut solver = ThresholdSolver::new(Some(tb), Some(hce()));
        solver.want_certificates(true);
        let children_proven = moves.iter().all(|&mv| {
            let r = solver.solve(&pos.play(mv), goal, &unlimited(), &mut |_| {}).unwrap();
            r.outcome == Outcome::Proven
        });
        if !children_proven {
            continue;
        }
        let result = solver.solve(&pos, goal, &unlimited(), &mut |_| {}).unwrap();
        assert_eq!(result.outcome, Outcome::Proven, "{goal} from {pos}: every child holds it");
        let cert = result.certificate.unwrap();
        check_certificate(&cert, &pos, Some(tb)).unwrap_or_else(|e| panic!("{goal} from {pos}: {e}"));
        // The opponent moves at the root; its children were proven before,
        // so the root's proof cites them.
        assert!(result.nodes <= 1, "{pos}: the root needs no search beyond its own moves ({} nodes)", result.nodes);
        for i in 0..cert.entries.len() {
            if cert.entries[i].key == cert.root {
                continue;
            }
            let mut bad = cert.clone();
            bad.entries.remove(i);
            assert!(check_certificate(&bad, &pos, Some(tb)).is_err(), "{goal} from {pos}: entry {i} removed");
        }
        cited += 1;
        if cited == 4 {
            break;
        }
    }
    assert_eq!(cited, 4, "positions whose children all hold the draw");
}

/// A solver asked for certificates keeps every position a search settled
/// for the defender, not only those its root's proof reaches: a later search
/// from another such position ends at once, and its certificate checks.
#[test]
fn certificates_keep_every_position_a_search_held() {
    let tb = leaves();
    let mut rng = ChaCha8Rng::seed_from_u64(23);
    let mut served = 0;
    for _ in 0..400 {
        let pos = random_position(&mut rng, 5, 5);
        let moves = pos.legal_moves();
        if moves.len() < 2 {
            continue;
        }
        // The mover holds the draw: its proof follows one move only.
        let goal = Goal::draws_of(pos.side_to_move());
        let mut solver = ThresholdSolver::new(Some(tb), Some(hce()));
        solver.want_certificates(true);
        let result = solver.solve(&pos, goal, &unlimited(), &mut |_| {}).unwrap();
        if result.outcome != Outcome::Proven {
            continue;
        }
        let root_cert = result.certificate.unwrap();
        assert!(solver.certified_len(goal) >= root_cert.entries.len());
        for &mv in &moves {
            let child = pos.play(mv);
            let k = child.key();
            if root_cert.entries.iter().any(|e| e.key == k) {
                continue;
            }
            // Outside the root's proof: what does a fresh search need?
            let mut fresh = ThresholdSolver::new(Some(tb), Some(hce()));
            fresh.want_certificates(true);
            let alone = fresh.solve(&child, goal, &unlimited(), &mut |_| {}).unwrap();
            if alone.outcome != Outcome::Proven || alone.nodes <= 1 {
                continue;
            }
            let again = solver.solve(&child, goal, &unlimited(), &mut |_| {}).unwrap();
            assert_eq!(again.outcome, Outcome::Proven, "{goal} after {mv} from {pos}");
            let cert = again.certificate.unwrap();
            check_certificate(&cert, &child, Some(tb)).unwrap_or_else(|e| panic!("{goal} after {mv}: {e}"));
            if again.nodes <= 1 {
                served += 1;
            }
        }
        if served >= 5 {
            break;
        }
    }
    assert!(served >= 5, "positions held by an earlier search but outside its root's proof: {served}");
}

/// With `attacker_wins_as_leaves`, a draw-goal solver asked for
/// certificates ends later searches at positions earlier ones found won for
/// the attacker: fewer expansions, and every draw it proves still checks.
#[test]
fn attacker_wins_end_draw_searches_and_draw_proofs_still_check() {
    let tb = leaves();
    let mut rng = ChaCha8Rng::seed_from_u64(29);
    let positions: Vec<Position> = (0..60).map(|_| random_position(&mut rng, 5, 5)).collect();
    let mut nodes = [0u64; 2];
    let mut checked = 0;
    for (i, on) in [false, true].into_iter().enumerate() {
        for pos in &positions {
            let goal = Goal::draws_of(pos.side_to_move());
            let mut solver = ThresholdSolver::new(Some(tb), Some(hce()));
            solver.want_certificates(true);
            solver.attacker_wins_as_leaves = on;
            // The children first (some won for the attacker), then the parent.
            for mv in pos.legal_moves() {
                nodes[i] += solver.solve(&pos.play(mv), goal, &unlimited(), &mut |_| {}).unwrap().nodes;
            }
            let result = solver.solve(pos, goal, &unlimited(), &mut |_| {}).unwrap();
            nodes[i] += result.nodes;
            let truth = wdl(truth().probe(pos).unwrap());
            assert_eq!(result.outcome == Outcome::Proven, truth != Wdl::Loss, "{goal} from {pos}");
            if let Some(cert) = result.certificate {
                check_certificate(&cert, pos, Some(tb)).unwrap_or_else(|e| panic!("{goal} from {pos}: {e}"));
                checked += 1;
            } else {
                // Only a win of the attacker resting on a stored win lacks one.
                assert!(on && result.outcome == Outcome::Disproven, "{goal} from {pos}: no certificate");
            }
        }
    }
    assert!(nodes[1] < nodes[0], "expansions without and with stored wins as leaves: {nodes:?}");
    assert!(checked >= 60, "{checked} certificates");
}

#[test]
fn damaged_certificate_text_is_refused_with_the_line() {
    let mut solver = ThresholdSolver::new(None, None);
    solver.want_certificates(true);
    let pos: Position = "...../..B../...../.W.W./..... w".parse().unwrap();
    let cert = solver.solve(&pos, Goal::WhiteWins, &unlimited(), &mut |_| {}).unwrap().certificate.unwrap();
    let text = cert.to_text();
    // Truncated: the last lines missing.
    let cut: String = text.lines().take(text.lines().count() - 2).map(|l| format!("{l}\n")).collect();
    let err = Certificate::parse(cut.as_bytes()).unwrap_err();
    assert!(matches!(err, CertificateError::Truncated { .. }), "{err}");
    assert!(err.to_string().contains("truncated"), "{err}");
    // A misspelled goal and a bad move are named.
    let err = Certificate::parse(text.replace("goal white-wins", "goal white-win").as_bytes()).unwrap_err();
    assert!(matches!(&err, CertificateError::Line { line: 3, problem } if problem.contains("white-win")), "{err}");
    let first_move = text.lines().find(|l| l.contains(" move ")).unwrap();
    let broken = text.replace(first_move, &format!("{} move a1-a5", &first_move[..first_move.find(" move ").unwrap()]));
    assert!(Certificate::parse(broken.as_bytes()).unwrap_err().to_string().contains("a1-a5"));
    // A root line whose text names another position than its key (the
    // start's text on a proof of this 4-piece position) is refused by line.
    let root_line = text.lines().find(|l| l.starts_with("root ")).unwrap();
    let key = root_line.split(' ').nth(1).unwrap();
    let misleading = text.replace(root_line, &format!("root {key} {}", Position::start()));
    let err = Certificate::parse(misleading.as_bytes()).unwrap_err();
    assert!(
        matches!(&err, CertificateError::Line { line: 4, problem } if problem.contains("is not the position of its key")),
        "{err}"
    );
    assert!(Certificate::parse(text.replace(root_line, &format!("root {key}")).as_bytes()).is_err());
}

#[test]
fn a_full_store_keeps_the_root_and_the_positions_to_keep_always() {
    let mut rng = ChaCha8Rng::seed_from_u64(23);
    let mut checked = 0;
    while checked < 5 {
        let pos = random_position(&mut rng, 5, 5);
        let children: std::collections::HashSet<u64> = pos.legal_moves().iter().map(|&m| pos.play(m).key()).collect();
        if children.is_empty() {
            continue;
        }
        // Full from the start: the root's answer only.
        let mut full = ThresholdSolver::new(None, Some(hce()));
        full.set_max_store(0);
        let r = full.solve(&pos, Goal::WhiteDraws, &unlimited(), &mut |_| {}).unwrap();
        assert_ne!(r.outcome, Outcome::Unknown);
        let store = full.proven_store();
        assert_eq!(store.entries.keys().copied().collect::<Vec<_>>(), [pos.key()], "{pos}");
        // Keeping the children: the root and the children the search settled.
        let mut kept = ThresholdSolver::new(None, Some(hce()));
        kept.set_max_store(0);
        kept.keep_always(std::sync::Arc::new(children.clone()));
        kept.solve(&pos, Goal::WhiteDraws, &unlimited(), &mut |_| {}).unwrap();
        let store = kept.proven_store();
        assert!(store.entries.len() >= 2, "{pos}: a settled root rests on a settled child");
        assert!(store.entries.keys().all(|k| *k == pos.key() || children.contains(k)), "{pos}");
        checked += 1;
    }
}

#[test]
fn the_store_round_trips_serves_later_runs_and_refuses_damage() {
    let dir = std::env::temp_dir().join(format!("alq-threshold-store-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("proven.store");
    let tb = truth();
    let mut rng = ChaCha8Rng::seed_from_u64(17);
    let positions: Vec<Position> = (0..30).map(|_| random_position(&mut rng, 5, 5)).collect();
    let mut first = ThresholdSolver::new(None, Some(hce()));
    for pos in &positions {
        first.solve(pos, Goal::WhiteDraws, &unlimited(), &mut |_| {}).unwrap();
    }
    let store = first.proven_store();
    assert!(store.entries.len() > 1000, "{} positions", store.entries.len());
    store.save(&file).unwrap();
    let loaded = ProvenStore::load(&file).unwrap();
    assert_eq!(loaded, store);
    // A later solver reads it: the same answers, from far fewer expansions.
    let mut later = ThresholdSolver::new(None, Some(hce()));
    later.add_store(&loaded).unwrap();
    let (mut before, mut after) = (0, 0);
    for pos in &positions {
        let value = wdl(tb.probe(pos).unwrap());
        let mut fresh = ThresholdSolver::new(None, Some(hce()));
        let r0 = fresh.solve(pos, Goal::BlackWins, &unlimited(), &mut |_| {}).unwrap();
        let r1 = later.solve(pos, Goal::BlackWins, &unlimited(), &mut |_| {}).unwrap();
        let expected =
            if Goal::BlackWins.holds(pos.side_to_move(), value) { Outcome::Proven } else { Outcome::Disproven };
        assert_eq!((r0.outcome, r1.outcome), (expected, expected), "{pos}");
        before += r0.nodes;
        after += r1.nodes;
    }
    assert!(after < before, "the store saves work: {after} against {before} nodes");
    // Damage: a flipped byte, a truncated file, another rule set's store.
    let bytes = std::fs::read(&file).unwrap();
    let mut flipped = bytes.clone();
    flipped[40] ^= 1;
    std::fs::write(&file, &flipped).unwrap();
    assert!(ProvenStore::load(&file).unwrap_err().to_string().contains("proven.store"));
    std::fs::write(&file, &bytes[..bytes.len() - 5]).unwrap();
    assert!(ProvenStore::load(&file).unwrap_err().to_string().contains("truncated"));
    let mut classic = ProvenStore::new(alq_engine::RuleSet::Classic);
    classic.entries.insert(5, 1);
    assert!(later.add_store(&classic).is_err());
    // A contradiction is refused (the searches asked "does Black win?"),
    // by a merge and by a solver, which then holds nothing new.
    let (&k, &bits) = loaded.entries.iter().find(|(_, &b)| b & 0b1100 != 0).unwrap();
    let mut wrong = ProvenStore::new(loaded.rules);
    wrong.entries.insert(k, (bits & 0b1100) ^ 0b1100);
    let fresh_key = Position::start().key();
    wrong.entries.insert(fresh_key, 0b0010);
    assert!(matches!(loaded.clone().merge(&wrong), Err(alq_solver::SolveError::Contradiction { .. })));
    let held = later.store_len();
    assert!(matches!(later.add_store(&wrong), Err(alq_solver::SolveError::Contradiction { .. })));
    assert_eq!(later.store_len(), held);
    // The tables field: none here; the larger of two stores when merged;
    // a format-1 file (no such field) is still read, as not recorded.
    assert_eq!(loaded.tables, Some(0));
    let mut over = ProvenStore::new(loaded.rules);
    over.tables = Some(8);
    let mut merged = loaded.clone();
    merged.merge(&over).unwrap();
    assert_eq!(merged.tables, Some(8));
    let mut v1 = bytes[..8].to_vec();
    v1.extend_from_slice(&1u32.to_le_bytes());
    v1.extend_from_slice(&bytes[12..28]);
    v1.extend_from_slice(&bytes[32..bytes.len() - 8]);
    let sum = alq_tablebase::checksum(&[&v1]);
    v1.extend_from_slice(&sum.to_le_bytes());
    std::fs::write(&file, &v1).unwrap();
    let old = ProvenStore::load(&file).unwrap();
    assert_eq!((old.tables, &old.entries), (None, &loaded.entries));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_search_stopped_by_its_budget_resumes_from_its_saved_state() {
    let dir = std::env::temp_dir().join(format!("alq-threshold-state-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("search.state");
    let tb = truth();
    let mut rng = ChaCha8Rng::seed_from_u64(23);
    let mut resumed = 0;
    for _ in 0..40 {
        let pos = random_position(&mut rng, 6, 6);
        let value = wdl(tb.probe(&pos).unwrap());
        let goal = Goal::WhiteDraws;
        let expected = if goal.holds(pos.side_to_move(), value) { Outcome::Proven } else { Outcome::Disproven };
        let mut solver = ThresholdSolver::new(Some(leaves()), Some(hce()));
        solver.min_batch = 4;
        let budget = Budget { nodes: Some(20), time: None, memory_bytes: 1 << 30 };
        let (first, state) = solver.solve_resumable(&pos, goal, &budget, None, &mut |_| {}).unwrap();
        let Some(state) = state else {
            assert_eq!(first.outcome, expected, "{pos}");
            continue;
        };
        assert_eq!(first.outcome, Outcome::Unknown);
        assert!(first.out_of_budget);
        state.save(&file).unwrap();
        let loaded = alq_solver::SearchState::load(&file).unwrap();
        assert_eq!((loaded.nodes, loaded.graph_nodes()), (first.nodes, first.graph_nodes));
        // Another goal, position or table set is refused.
        let mut other = ThresholdSolver::new(Some(leaves()), Some(hce()));
        let wrong = other.solve_resumable(
            &pos,
            Goal::WhiteWins,
            &unlimited(),
            Some(alq_solver::SearchState::load(&file).unwrap()),
            &mut |_| {},
        );
        assert!(wrong.err().unwrap().to_string().contains("does not match"));
        let mut no_tables = ThresholdSolver::new(None, Some(hce()));
        let wrong = no_tables.solve_resumable(
            &pos,
            goal,
            &unlimited(),
            Some(alq_solver::SearchState::load(&file).unwrap()),
            &mut |_| {},
        );
        assert!(wrong.err().unwrap().to_string().contains("tables"));
        // Resumed, it settles the goal as the tables say, counting on from the saved nodes.
        let mut again = ThresholdSolver::new(Some(leaves()), Some(hce()));
        again.min_batch = 4;
        let (done, state) = again.solve_resumable(&pos, goal, &unlimited(), Some(loaded), &mut |_| {}).unwrap();
        assert_eq!(done.outcome, expected, "{pos} resumed");
        assert!(state.is_none());
        assert_eq!(done.resumed_nodes, first.nodes);
        assert!(done.graph_nodes as u64 <= done.resumed_nodes + done.nodes);
        resumed += 1;
    }
    assert!(resumed >= 5, "only {resumed} searches outlasted 20 nodes");
    // Damage: a flipped byte, a truncated file, another kind of file.
    let bytes = std::fs::read(&file).unwrap();
    let mut flipped = bytes.clone();
    flipped[70] ^= 1;
    std::fs::write(&file, &flipped).unwrap();
    let err = alq_solver::SearchState::load(&file).err().unwrap().to_string();
    assert!(err.contains("search.state") && err.contains("checksum"), "{err}");
    std::fs::write(&file, &bytes[..bytes.len() - 5]).unwrap();
    assert!(alq_solver::SearchState::load(&file).err().unwrap().to_string().contains("truncated"));
    std::fs::write(&file, b"ALQPROV\n and more bytes than a header needs, surely more than sixty-eight of them in all")
        .unwrap();
    assert!(alq_solver::SearchState::load(&file).err().unwrap().to_string().contains("magic"));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The certificates shipped in data/proofs/: each parses and is for the
/// position after its first move (or the start). Checking them needs the
/// tables their leaves were probed in (≤ 10 or ≤ 12 pieces), so that part
/// runs by hand: `ALQ_TB=data/tb12w cargo test --release -p alq-solver
/// --test threshold -- --ignored` (≤ 12 win/draw/loss tables cover all).
fn shipped_certificates() -> Vec<(String, Certificate)> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/proofs");
    let mut out = Vec::new();
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "cert") {
            let name = path.file_stem().unwrap().to_string_lossy().into_owned();
            out.push((name, Certificate::read(&path).unwrap()));
        }
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

#[test]
fn shipped_certificates_give_the_first_move_statements() {
    let certs: Vec<Certificate> = shipped_certificates().into_iter().map(|(_, c)| c).collect();
    let lines = alq_solver::certificate::proven_lines(&certs);
    let said = |line: &str| lines.iter().find(|(l, _)| l == line).map(|(_, g)| alq_solver::certificate::describe(g));
    // Both sides hold a draw at the start: the start is a draw.
    assert_eq!(said("").as_deref(), Some("draw"));
    // The start's White proof plays c2-c3, and Black's covers every first
    // move: c2-c3 is a draw too.
    assert_eq!(said("c2-c3").as_deref(), Some("draw"));
    assert_eq!(said("d2-c3").as_deref(), Some("Black wins"));
    // Both sides' draws are proven after b2-c3 and d3-c3: draws.
    assert_eq!(said("b2-c3").as_deref(), Some("draw"));
    assert_eq!(said("d3-c3").as_deref(), Some("draw"));
    assert_eq!(alq_solver::certificate::describe(&[Goal::WhiteDraws, Goal::BlackDraws]), "draw");
}

#[test]
fn shipped_certificates_parse_and_name_their_position_and_goal() {
    let certs = shipped_certificates();
    assert!(certs.len() >= 3, "{} certificates", certs.len());
    for (name, cert) in &certs {
        // `d2-c3-black-wins`: the first move, then the goal; or
        // `start-white-draws`.
        let (first, goal) = name.split_at(5);
        let start = Position::start_of(cert.rules);
        let root = if first == "start" { start } else { start.play(start.parse_move_in(cert.rules, first).unwrap()) };
        assert_eq!(cert.root, root.key(), "{name}");
        assert_eq!(cert.goal.name(), &goal[1..], "{name}");
        // Every step but the table leaves' values (the tables test below
        // probes those), and lean: the root reaches every entry.
        let report = alq_solver::check_structure(cert, &root).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(report.unreachable, 0, "{name}: rewrite it with `alq solve --check FILE --out FILE`");
    }
}

#[test]
#[ignore = "needs the tables: ALQ_TB=DIR (≤ 12 win/draw/loss)"]
fn shipped_certificates_check_with_the_tables() {
    let dir = std::env::var("ALQ_TB").expect("ALQ_TB names the tables");
    // A relative folder is taken from the repository's root.
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").join(dir);
    let tb = Tablebase::open(&dir).unwrap();
    for (name, cert) in shipped_certificates() {
        let root = Position::from_key_unchecked(cert.root);
        check_certificate(&cert, &root, Some(&tb)).unwrap_or_else(|e| panic!("{name}: {e}"));
    }
}

/// With `cite_wins`, a win-goal solver asked for certificates ends later
/// searches at positions earlier ones proved won, two levels deep (each
/// position's replies' replies, then its replies, then itself): fewer
/// expansions, and every certificate, citing earlier wins whose ranks must
/// stay below its own, still checks.
#[test]
fn certified_wins_are_cited_by_later_win_proofs_and_still_check() {
    let tb = leaves();
    let mut rng = ChaCha8Rng::seed_from_u64(31);
    let mut positions = Vec::new();
    while positions.len() < 25 {
        let pos = random_position(&mut rng, 6, 6);
        if wdl(truth().probe(&pos).unwrap()) == Wdl::Win && pos.occupied().count() == 6 {
            positions.push(pos);
        }
    }
    let mut nodes = [0u64; 2];
    let (mut checked, mut citing) = (0, 0);
    for (i, on) in [false, true].into_iter().enumerate() {
        for pos in &positions {
            let goal = Goal::wins_of(pos.side_to_move());
            let mut solver = ThresholdSolver::new(Some(tb), Some(hce()));
            solver.want_certificates(true);
            solver.cite_wins = on;
            let mut deeper = Vec::new();
            for mv in pos.legal_moves() {
                let child = pos.play(mv);
                deeper.extend(child.legal_moves().into_iter().map(|r| child.play(r)));
            }
            deeper.extend(pos.legal_moves().into_iter().map(|mv| pos.play(mv)));
            let mut earlier = Vec::new();
            for p in &deeper {
                let r = solver.solve(p, goal, &unlimited(), &mut |_| {}).unwrap();
                nodes[i] += r.nodes;
                if let Some(cert) = r.certificate.filter(|c| c.goal == goal) {
                    check_certificate(&cert, p, Some(tb)).unwrap_or_else(|e| panic!("{goal} from {p}: {e}"));
                    earlier.push(cert);
                }
            }
            let result = solver.solve(pos, goal, &unlimited(), &mut |_| {}).unwrap();
            nodes[i] += result.nodes;
            assert_eq!(result.outcome, Outcome::Proven, "{goal} from {pos}");
            let cert = result.certificate.unwrap();
            check_certificate(&cert, pos, Some(tb)).unwrap_or_else(|e| panic!("{goal} from {pos}: {e}"));
            checked += 1;
            // Citing shows: the root's proof holds an earlier proof's root entry.
            let keys: std::collections::HashSet<u64> = cert.entries.iter().map(|e| e.key).collect();
            if on && earlier.iter().any(|c| c.root != pos.key() && keys.contains(&c.root)) {
                citing += 1;
            }
        }
    }
    assert!(nodes[1] < nodes[0], "expansions without and with earlier wins cited: {nodes:?}");
    assert_eq!(checked, 50);
    assert!(citing >= 10, "root proofs citing an earlier win: {citing} of 25");
}
