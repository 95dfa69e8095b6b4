//! The fixed action index: every legal move has an action, actions round-trip,
//! and the numbering is pinned.

use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use alq_engine::{ActionIndex, Bitboard, Point, Position, RuleSet};

/// Plays `games` random games under `rules` and checks every position met.
fn check_random_games(rules: RuleSet, games: usize) -> usize {
    let index = ActionIndex::of(rules);
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let mut captures = 0;
    for _ in 0..games {
        let mut pos = Position::start_of(rules);
        for _ in 0..200 {
            let moves = pos.legal_moves_in(rules);
            if moves.is_empty() {
                break;
            }
            let actions = index.legal_actions(&pos);
            assert_eq!(actions.len(), moves.len());
            let mut seen = actions.clone();
            seen.sort_unstable();
            seen.dedup();
            assert_eq!(seen.len(), actions.len(), "two moves share an action in {pos}");
            for (&mv, &action) in moves.iter().zip(&actions) {
                assert!((action as usize) < index.len());
                assert_eq!(index.to_move(&pos, action), Some(mv), "{pos}: action {action} of {mv}");
                let (from, to, captured) = index.triple(action).unwrap();
                assert_eq!((from, to, captured), (mv.from(), mv.to(), mv.captured()));
                captures += usize::from(mv.is_capture());
            }
            pos = pos.play(*moves.choose(&mut rng).unwrap());
        }
    }
    captures
}

#[test]
fn every_legal_move_has_an_action_that_round_trips() {
    assert!(check_random_games(RuleSet::BrainKing, 300) > 1000);
    assert!(check_random_games(RuleSet::Classic, 300) > 1000);
}

#[test]
fn the_numbering_is_pinned() {
    let bk = ActionIndex::of(RuleSet::BrainKing);
    let classic = ActionIndex::of(RuleSet::Classic);
    assert_eq!(bk.len(), 49_100);
    assert_eq!(classic.len(), CLASSIC_ACTIONS);
    let p = |s: &str| Point::parse(s).unwrap();
    // Simple moves come first, by (origin, end): a1-b1 is the first of all.
    assert_eq!(bk.triple(0), Some((p("a1"), p("b1"), Bitboard::EMPTY)));
    let start = Position::start();
    let mut names: Vec<(u32, String)> =
        start.legal_moves().iter().map(|&m| (bk.action(m).unwrap(), m.to_string())).collect();
    names.sort();
    assert_eq!(names, START_ACTIONS.iter().map(|&(a, m)| (a, m.to_string())).collect::<Vec<_>>());
    // Out of range and not-legal-here actions give no move.
    assert_eq!(bk.to_move(&start, bk.len() as u32), None);
    assert_eq!(bk.to_move(&start, 0), None);
    // Captures follow the simple moves.
    let capture: Position = "....B/...../...B./..B.B/WB.B. w".parse().unwrap();
    let mv = capture.legal_moves()[0];
    let action = bk.action(mv).unwrap();
    assert!(bk.triple(action).unwrap().2 != Bitboard::EMPTY);
    assert!(bk.triple(action - 1).is_some());
    assert!((0..action).any(|a| bk.triple(a).unwrap().2 == Bitboard::EMPTY));
}

const CLASSIC_ACTIONS: usize = 93_186;
const START_ACTIONS: [(u32, &str); 4] = [(27, "b2-c3"), (31, "c2-c3"), (37, "d2-c3"), (61, "d3-c3")];
