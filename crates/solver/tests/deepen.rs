//! Deepened certificates: a certificate over ≤ 5-piece table leaves,
//! re-proven leaf by leaf over the ≤ 4-piece tables, checks with only those
//! tables, keeps its goal and root, resumes from its parts, and reports the
//! leaves a budget leaves unproven.

use std::path::PathBuf;
use std::sync::OnceLock;

use alq_engine::{Evaluator, Hce, HceWeights, Position};
use alq_solver::certificate::Step;
use alq_solver::deepen::{deep_leaves, deepen, deepen_with, part_path, Guidance};
use alq_solver::{check_certificate, Budget, Certificate, Goal, Outcome, ThresholdSolver};
use alq_tablebase::{build, BuildOptions, Kind, Tablebase};

use crate::common::random_position;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

fn built(pieces: u32) -> Tablebase {
    let dir: PathBuf = std::env::temp_dir().join(format!("alq-deepen-tb{pieces}-{}", std::process::id()));
    let options = BuildOptions { pieces, shard: None, rules: alq_engine::RuleSet::BrainKing, kind: Kind::Wdl };
    build(&dir, &options, &mut |_| {}).unwrap();
    Tablebase::open(&dir).unwrap()
}

/// The ≤ 6 and ≤ 4-piece win/draw/loss tables, built once for both tests.
fn tables() -> &'static (Tablebase, Tablebase) {
    static TB: OnceLock<(Tablebase, Tablebase)> = OnceLock::new();
    TB.get_or_init(|| (built(6), built(4)))
}

fn hce() -> Box<dyn Evaluator> {
    Box::new(Hce::new(HceWeights::default()))
}

fn unlimited() -> Budget {
    Budget { nodes: None, time: None, memory_bytes: 1 << 30 }
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("alq-deepen-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// Certificates of 6-piece positions whose table leaves have up to 5
/// pieces (the ≤ 6 tables, leaves cut at 5), at least one of each kind of
/// goal with a 5-piece leaf.
fn five_piece_certificates(tb6: &Tablebase) -> Vec<Certificate> {
    let mut solver = ThresholdSolver::new(Some(tb6), Some(hce()));
    solver.want_certificates(true);
    solver.set_leaf_pieces(Some(5));
    let mut rng = ChaCha8Rng::seed_from_u64(41);
    let mut out: Vec<Certificate> = Vec::new();
    while out.len() < 12 {
        let pos = random_position(&mut rng, 6, 6);
        for goal in Goal::ALL {
            let r = solver.solve(&pos, goal, &unlimited(), &mut |_| {}).unwrap();
            let cert = r.certificate.expect("settled");
            let wins = out.iter().filter(|c| c.goal.is_win()).count();
            let want = if cert.goal.is_win() { wins < 6 } else { out.len() - wins < 6 };
            if r.outcome == Outcome::Proven && want && !deep_leaves(&cert, 4).is_empty() {
                assert_eq!(cert.table_pieces, 5);
                out.push(cert);
            }
        }
    }
    out
}

#[test]
fn deepened_certificates_check_over_the_smaller_tables_and_resume() {
    let (tb6, tb4) = tables();
    let certs = five_piece_certificates(tb6);
    for (i, cert) in certs.iter().enumerate() {
        let root = Position::from_key_unchecked(cert.root);
        // Over ≤ 4 tables the input does not check: its 5-piece leaves are beyond them.
        assert!(check_certificate(cert, &root, Some(tb4)).is_err(), "{} from {root}", cert.goal);
        let parts = scratch(&format!("parts{i}"));
        let threads = if i % 2 == 0 { 1 } else { 2 };
        let (merged, report) = deepen(cert, tb4, &hce, &unlimited(), &parts, threads, &|_, _| {}).unwrap();
        let merged = merged.expect("every leaf proven");
        assert_eq!(report.deep_leaves, deep_leaves(cert, 4).len());
        assert_eq!((report.proven, report.resumed), (report.deep_leaves, 0));
        assert!(report.resisting.is_empty() && report.disproven.is_empty());
        assert_eq!((merged.goal, merged.root, merged.table_pieces), (cert.goal, cert.root, 4));
        assert!(deep_leaves(&merged, 4).is_empty());
        check_certificate(&merged, &root, Some(tb4)).unwrap_or_else(|e| panic!("{} from {root}: {e}", cert.goal));
        // Its text round-trips, compressed too.
        let file = parts.join("merged.cert.gz");
        merged.write(&file).unwrap();
        assert_eq!(std::fs::read(&file).unwrap()[..2], [0x1f, 0x8b]);
        assert_eq!(Certificate::read(&file).unwrap(), merged);
        // A rerun finds every sub-proof in the parts folder and proves nothing anew.
        let (again, report) = deepen(cert, tb4, &hce, &unlimited(), &parts, 1, &|_, _| {}).unwrap();
        assert_eq!((report.resumed, report.proven), (report.deep_leaves, 0));
        assert_eq!(again.as_ref(), Some(&merged));
        // A damaged part is proven again (one worker: the last leaf proven,
        // the one with most pieces and the largest key, is cited by none).
        if threads == 1 {
            let last =
                deep_leaves(cert, 4).into_iter().max_by_key(|&k| ((k & ((1 << 50) - 1)).count_ones(), k)).unwrap();
            std::fs::write(part_path(&parts, last), "alquerque-certificate 1\nrules brainking\n").unwrap();
            let (again, report) = deepen(cert, tb4, &hce, &unlimited(), &parts, 1, &|_, _| {}).unwrap();
            assert_eq!((report.resumed, report.proven), (report.deep_leaves - 1, 1));
            check_certificate(&again.unwrap(), &root, Some(tb4)).unwrap();
        }
        std::fs::remove_dir_all(&parts).unwrap();
    }
}

#[test]
fn leaves_beyond_the_budget_are_reported_and_nothing_is_merged() {
    let (tb6, tb4) = tables();
    let cert = five_piece_certificates(tb6).into_iter().max_by_key(|c| deep_leaves(c, 4).len()).unwrap();
    let parts = scratch("budget");
    let tiny = Budget { nodes: Some(1), time: None, memory_bytes: 1 << 30 };
    let (merged, report) = deepen(&cert, tb4, &hce, &tiny, &parts, 2, &|_, _| {}).unwrap();
    assert!(merged.is_none());
    assert!(!report.resisting.is_empty(), "{report:?}");
    assert_eq!(report.proven + report.resisting.len(), report.deep_leaves);
    // The report names leaves of the input.
    let leaves = deep_leaves(&cert, 4);
    assert!(report.resisting.iter().all(|k| leaves.contains(k)));
    // With the budget lifted, the rerun proves just those.
    let (merged, again) = deepen(&cert, tb4, &hce, &unlimited(), &parts, 2, &|_, _| {}).unwrap();
    assert_eq!((again.resumed, again.proven), (report.proven, report.resisting.len()));
    let root = Position::from_key_unchecked(cert.root);
    check_certificate(&merged.unwrap(), &root, Some(tb4)).unwrap();
    assert!(cert.entries.iter().any(|e| matches!(e.step, Step::Table(_))));
    std::fs::remove_dir_all(&parts).unwrap();
}

/// A deepening over ≤ 3 tables whose last 5-piece leaf is missing (as if it
/// resisted), continued over ≤ 4 with the same parts: only that leaf is
/// proven over ≤ 4, and every sub-proof over ≤ 3 stays in the result, for
/// the 4-piece leaves too (the ≤ 4 tables cover them, but their proofs over
/// ≤ 3 serve).
#[test]
fn parts_over_smaller_tables_serve_a_deepening_over_larger_ones() {
    let (tb6, tb4) = tables();
    static TB3: OnceLock<Tablebase> = OnceLock::new();
    let tb3 = TB3.get_or_init(|| built(3));
    let cert = five_piece_certificates(tb6)
        .into_iter()
        .filter(|c| !c.goal.is_win())
        .max_by_key(|c| deep_leaves(c, 3).len() - deep_leaves(c, 4).len())
        .unwrap();
    let root = Position::from_key_unchecked(cert.root);
    let parts = scratch("mixed");
    let fives = deep_leaves(&cert, 4);
    let fours = deep_leaves(&cert, 3).len() - fives.len();
    assert!(fours > 0 && !fives.is_empty(), "{fours} 4-piece leaves, {} 5-piece ones", fives.len());
    let (_, first) = deepen(&cert, tb3, &hce, &unlimited(), &parts, 1, &|_, _| {}).unwrap();
    assert_eq!(first.proven, first.deep_leaves);
    // One worker: the last leaf proven (most pieces, largest key) is cited by no part.
    let last = *fives.iter().max_by_key(|&&k| ((k & ((1 << 50) - 1)).count_ones(), k)).unwrap();
    std::fs::remove_file(part_path(&parts, last)).unwrap();
    let (merged, report) = deepen(&cert, tb4, &hce, &unlimited(), &parts, 2, &|_, _| {}).unwrap();
    let merged = merged.expect("every leaf proven over ≤ 4");
    assert_eq!(
        (report.deep_leaves, report.resumed, report.shallow, report.proven),
        (fives.len(), fives.len() - 1, fours, 1)
    );
    assert_eq!(merged.table_pieces, 4);
    check_certificate(&merged, &root, Some(tb4)).unwrap_or_else(|e| panic!("{} from {root}: {e}", cert.goal));
    // The parts over ≤ 3 serve as they are (the result keeps only what
    // its root reaches: a part's entry it keeps is the part's): the 4-piece
    // leaves proven over ≤ 3 are no table leaves there.
    assert_eq!(merged.lean(), merged, "the result is lean");
    for key in deep_leaves(&cert, 3) {
        let part = Certificate::read(&part_path(&parts, key)).unwrap();
        if key != last {
            assert_eq!(part.table_pieces, 3);
            for e in &part.entries {
                if let Some(kept) = merged.entries.iter().find(|m| m.key == e.key) {
                    assert_eq!(kept, e, "{}", Position::from_key_unchecked(key));
                }
            }
        }
        assert!(
            merged.entries.iter().any(|e| e.key == key && !matches!(e.step, Step::Table(_))),
            "{}",
            Position::from_key_unchecked(key)
        );
    }
    std::fs::remove_dir_all(&parts).unwrap();
}

/// The certificates over small tables in data/proofs/small/ (gzip): each
/// reads, leans on tables of at most 10 pieces (7 for three), and is for the
/// position and goal its name says. Checking them needs the tables: `scripts/check-proofs.sh`.
#[test]
fn shipped_small_certificates_read_and_name_their_position_and_goal() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/proofs/small");
    let mut seen = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let Some(stem) = name.strip_suffix(".cert.gz").or_else(|| name.strip_suffix(".cert")) else { continue };
        let cert = Certificate::read(&path).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(cert.table_pieces <= 10, "{name}: tables {}", cert.table_pieces);
        assert!(deep_leaves(&cert, cert.table_pieces).is_empty(), "{name}");
        let (first, goal) = stem.split_at(5);
        let start = Position::start_of(cert.rules);
        let root = if first == "start" { start } else { start.play(start.parse_move_in(cert.rules, first).unwrap()) };
        assert_eq!((cert.root, cert.goal.name()), (root.key(), &goal[1..]), "{name}");
        seen += 1;
    }
    assert!(seen >= 8, "{seen} certificates in {}", dir.display());
}

/// A certificate of many roots (the atlas's): two proofs of one draw goal
/// from different positions, united under the first's root, keep both
/// roots' proofs when deepened, though the root does not reach the second.
#[test]
fn a_certificate_of_many_roots_keeps_every_roots_proof_when_deepened() {
    let (tb6, tb4) = tables();
    let mut solver = ThresholdSolver::new(Some(tb6), Some(hce()));
    solver.want_certificates(true);
    solver.set_leaf_pieces(Some(5));
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let goal = Goal::WhiteDraws;
    let mut found: Vec<Certificate> = Vec::new();
    while found.len() < 2 {
        let pos = random_position(&mut rng, 6, 6);
        let r = solver.solve(&pos, goal, &unlimited(), &mut |_| {}).unwrap();
        if let Some(cert) = r.certificate.filter(|c| c.goal == goal && !deep_leaves(c, 4).is_empty()) {
            if found.iter().all(|f| !f.entries.iter().any(|e| e.key == cert.root)) {
                found.push(cert);
            }
        }
    }
    let (first, second) = (&found[0], &found[1]);
    let mut entries = first.entries.clone();
    for e in &second.entries {
        if !entries.iter().any(|f| f.key == e.key) {
            entries.push(*e);
        }
    }
    entries.sort_unstable_by_key(|e| e.key);
    let united = Certificate { entries, ..first.clone() };
    assert!(united.unreached().contains(&second.root));
    // `lean` would drop the second root's proof; `lean_from` keeps it.
    assert!(!united.lean().entries.iter().any(|e| e.key == second.root));
    assert!(united.lean_from(&[second.root]).entries.iter().any(|e| e.key == second.root));
    let parts = scratch("many-roots");
    let guidance = Guidance { known: None, cite_wins: true };
    let (merged, report) = deepen_with(&united, tb4, &hce, &unlimited(), &parts, 2, &guidance, &|_, _| {}).unwrap();
    let merged = merged.expect("every leaf proven");
    assert_eq!(report.proven, deep_leaves(&united, 4).len());
    let root = Position::from_key_unchecked(first.root);
    let checked = check_certificate(&merged, &root, Some(tb4)).unwrap();
    assert!(checked.unreachable > 0, "the second root's proof is kept");
    let proven = alq_solver::ProvenStore::from_certificate(&merged);
    for cert in [first, second] {
        let pos = Position::from_key_unchecked(cert.root);
        // White draws: Black does not win.
        assert_eq!(proven.answer(&pos, alq_engine::Side::Black), Some(false), "{pos}");
    }
    std::fs::remove_dir_all(&parts).unwrap();
}
