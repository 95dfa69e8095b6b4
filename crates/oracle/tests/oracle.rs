//! The oracle against the tables: over ≤ 4-piece tables (and searches
//! beyond them) its answers for 5- and 6-piece positions must agree with the
//! ≤ 6-piece tables: exact values equal, bounds admitting the truth; the
//! values of the moves must fit the position's; a user's store must answer
//! a second oracle; foreign stores are refused; threads may share one.

use std::path::PathBuf;
use std::sync::OnceLock;

use alq_engine::{Hce, HceWeights, Position, RuleSet};
use alq_oracle::{Oracle, OracleError, Source, Value};
use alq_solver::{Budget, ProvenStore};
use alq_tablebase::{build, BuildOptions, Kind, Tablebase, Wdl};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

// The solver tests' random positions (both sides present).
use crate::common::random_position;

fn built(pieces: u32) -> Tablebase {
    let dir: PathBuf = std::env::temp_dir().join(format!("alq-oracle-tb{pieces}-{}", std::process::id()));
    let options = BuildOptions { pieces, shard: None, rules: RuleSet::BrainKing, kind: Kind::Wdl };
    build(&dir, &options, &mut |_| {}).unwrap();
    Tablebase::open(&dir).unwrap()
}

fn truth() -> &'static Tablebase {
    static TB: OnceLock<Tablebase> = OnceLock::new();
    TB.get_or_init(|| built(6))
}

fn leaves() -> &'static Tablebase {
    static TB: OnceLock<Tablebase> = OnceLock::new();
    TB.get_or_init(|| built(4))
}

fn oracle(tb: Option<&Tablebase>, nodes: u64) -> Oracle<'_> {
    Oracle::new(RuleSet::BrainKing, tb, Box::new(Hce::new(HceWeights::default())), Budget::nodes(nodes))
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("alq-oracle-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn positions(seed: u64, count: usize) -> Vec<Position> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    (0..count).map(|i| random_position(&mut rng, 5 + (i % 2) as u32, 5 + (i % 2) as u32)).collect()
}

#[test]
fn answers_agree_with_larger_tables_and_say_where_they_come_from() {
    let o = oracle(Some(leaves()), 20_000);
    let (mut searched, mut settled) = (0, 0);
    for pos in positions(1, 120) {
        let exact = truth().probe_wdl(&pos).unwrap().0;
        let a = o.value(&pos).unwrap();
        assert!(a.value.admits(exact), "{pos}: oracle {} ({}), tables {exact:?}", a.value, a.source);
        if pos.is_lost_in(RuleSet::BrainKing) {
            assert_eq!((a.value, a.source), (Value::Loss, Source::End), "{pos}");
        } else {
            assert!(matches!(a.source, Source::Search | Source::Store | Source::None), "{pos}: {}", a.source);
        }
        searched += usize::from(a.source == Source::Search);
        settled += usize::from(a.value.is_exact());
        // Within the tables' reach the tables answer.
        let small = oracle(Some(truth()), 1).value(&pos).unwrap();
        assert!(small.source == Source::Table || small.source == Source::End, "{pos}");
        assert_eq!(small.value, Value::from(exact), "{pos}");
    }
    assert!(searched > 50, "only {searched} positions were searched");
    assert!(settled > 100, "only {settled} of 120 values are exact at 20,000 nodes");
}

#[test]
fn move_values_fit_the_position() {
    let o = oracle(Some(leaves()), 20_000);
    for pos in positions(2, 30).into_iter().filter(|p| !p.is_lost_in(RuleSet::BrainKing)) {
        let moves = o.move_values(&pos).unwrap();
        let texts: Vec<String> = moves.iter().map(|(m, _)| m.to_string()).collect();
        let mut sorted = texts.clone();
        sorted.sort();
        assert_eq!(texts, sorted, "{pos}: moves sorted as text");
        for (mv, a) in &moves {
            let truth = truth().probe_wdl(&pos.play(*mv)).unwrap().0.for_mover();
            assert!(a.value.admits(truth), "{pos} {mv}: {} for the mover, tables {truth:?}", a.value);
        }
        let value = o.value(&pos).unwrap().value;
        if moves.iter().all(|(_, a)| a.value.is_exact()) && value.is_exact() {
            let best = moves.iter().filter_map(|(_, a)| a.value.wdl()).max_by_key(|w| match w {
                Wdl::Win => 2,
                Wdl::Draw => 1,
                Wdl::Loss => 0,
            });
            assert_eq!(best, value.wdl(), "{pos}: the best move's value is the position's");
        }
    }
}

#[test]
fn an_exhausted_budget_is_unknown_never_a_guess() {
    let o = oracle(None, 1);
    let mut unknown = 0;
    for pos in positions(3, 40) {
        let a = o.value(&pos).unwrap();
        assert!(a.value.admits(truth().probe_wdl(&pos).unwrap().0), "{pos}");
        if a.value == Value::Unknown {
            assert_eq!(a.source, Source::None);
            unknown += 1;
        }
    }
    assert!(unknown > 0, "one node settled every position");
}

#[test]
fn the_users_store_answers_the_next_oracle() {
    let dir = scratch("store");
    let file = dir.join("user.store");
    let pos =
        positions(4, 40).into_iter().find(|p| !p.is_lost_in(RuleSet::BrainKing) && p.occupied().count() == 6).unwrap();
    let mut first = oracle(Some(leaves()), 50_000);
    assert_eq!(first.use_store(&file).unwrap(), 0);
    let a = first.value(&pos).unwrap();
    assert_eq!(a.source, Source::Search);
    assert!(file.exists(), "a settling search writes the store");
    let mut second = oracle(Some(leaves()), 1);
    assert!(second.use_store(&file).unwrap() > 0);
    let b = second.value(&pos).unwrap();
    assert_eq!((b.value, b.source, b.nodes), (a.value, Source::Store, 0));
    // A store of the classic rules is refused by name.
    let classic = dir.join("classic.store");
    ProvenStore::new(RuleSet::Classic).save(&classic).unwrap();
    let e = second.read_store(&classic).unwrap_err();
    assert!(matches!(e, OracleError::ForeignStore { .. }), "{e}");
    assert!(e.to_string().contains("classic.store"), "{e}");
    // A damaged one too.
    let damaged = dir.join("damaged.store");
    let mut bytes = std::fs::read(&file).unwrap();
    let last = bytes.len() - 9;
    bytes[last] ^= 0x55;
    std::fs::write(&damaged, &bytes).unwrap();
    let e = second.read_store(&damaged).unwrap_err();
    assert!(e.to_string().contains("damaged.store"), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn threads_share_one_oracle() {
    let o = oracle(Some(leaves()), 5_000);
    let all = positions(5, 24);
    let answers: Vec<Vec<Value>> = std::thread::scope(|s| {
        let handles: Vec<_> = all
            .chunks(6)
            .map(|chunk| {
                let o = &o;
                s.spawn(move || chunk.iter().map(|p| o.value(p).unwrap().value).collect::<Vec<_>>())
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    for (pos, value) in all.iter().zip(answers.into_iter().flatten()) {
        assert!(value.admits(truth().probe_wdl(pos).unwrap().0), "{pos}: {value}");
    }
}

#[test]
fn the_shipped_proofs_settle_the_start_and_its_first_moves() {
    let o = oracle(None, 1);
    assert!(o.read_shipped().unwrap() > 100_000);
    let start = Position::start();
    let a = o.value(&start).unwrap();
    // Both sides' draws are certified: the source is the proof.
    assert_eq!((a.value, a.source, a.nodes), (Value::Draw, Source::Proof, 0));
    let moves = o.move_values(&start).unwrap();
    let value_of = |text: &str| moves.iter().find(|(m, _)| m.to_string() == text).unwrap().1.value;
    // d2-c3 loses (Black's win is proven); b2-c3 and d3-c3 keep the draw.
    assert_eq!(value_of("d2-c3"), Value::Loss);
    assert_eq!(value_of("b2-c3"), Value::Draw);
    assert_eq!(value_of("d3-c3"), Value::Draw);
    // Without the proofs a one-node budget knows nothing.
    assert_eq!(oracle(None, 1).value(&start).unwrap().value, Value::Unknown);
}

#[test]
fn a_stored_bound_is_searched_for_the_exact_value_unless_told_not_to() {
    // Drawn 5- and 6-piece positions, each stored only as "the opponent of
    // the mover does not win" (≥draw): the oracle searches the open question.
    let mut rng = ChaCha8Rng::seed_from_u64(31);
    let mut drawn = Vec::new();
    while drawn.len() < 5 {
        let pos = random_position(&mut rng, 5, 6);
        if !pos.is_lost_in(RuleSet::BrainKing) && truth().probe_wdl(&pos).unwrap().0 == Wdl::Draw {
            drawn.push(pos);
        }
    }
    let file = scratch("bound").join("bound.store");
    let mut store = ProvenStore::new(RuleSet::BrainKing);
    for pos in &drawn {
        // "does not win" of the side not to move: bit 1 (White) or 3 (Black).
        let bit = if pos.side_to_move() == alq_engine::Side::White { 1 << 3 } else { 1 << 1 };
        store.entries.insert(pos.key(), bit);
    }
    store.save(&file).unwrap();
    let settling = oracle(Some(leaves()), 1_000_000);
    settling.read_store(&file).unwrap();
    let mut lazy = oracle(Some(leaves()), 1_000_000);
    lazy.set_settle_bounds(false);
    lazy.read_store(&file).unwrap();
    for pos in &drawn {
        let a = settling.value(pos).unwrap();
        assert_eq!((a.value, a.source), (Value::Draw, Source::Search), "{pos}");
        let b = lazy.value(pos).unwrap();
        assert_eq!((b.value, b.source, b.nodes), (Value::AtLeastDraw, Source::Store, 0), "{pos}");
    }
}
