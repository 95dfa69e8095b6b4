//! Property tests: mirror symmetry, incremental hashing, notation round trips.

use alq_engine::{Bitboard, Position, Side};
use proptest::prelude::*;

/// Random positions: random placements, then a few random moves from them.
fn position() -> impl Strategy<Value = Position> {
    (0u32..(1 << 25), 0u32..(1 << 25), any::<bool>(), proptest::collection::vec(any::<u16>(), 0..12)).prop_map(
        |(w, b, white, choices)| {
            // Keep at most 12 pieces a side, as in a real game.
            let cap = |bits: u32| {
                let mut bb = Bitboard::EMPTY;
                for p in Bitboard(bits).into_iter().take(12) {
                    bb = bb.with(p);
                }
                bb
            };
            let white_pieces = cap(w);
            let black_pieces = cap(b & !white_pieces.0);
            let side = if white { Side::White } else { Side::Black };
            let mut pos = Position::from_parts(white_pieces, black_pieces, side);
            for c in choices {
                let moves = pos.legal_moves();
                if moves.is_empty() {
                    break;
                }
                pos = pos.play(moves[c as usize % moves.len()]);
            }
            pos
        },
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn mirror_keeps_moves(pos in position()) {
        let mirrored = pos.mirror();
        prop_assert_eq!(mirrored.legal_moves().len(), pos.legal_moves().len());
        // Same moves up to mirroring, as identities (origin, end, captured set).
        let mut a: Vec<_> = pos.legal_moves().iter().map(|m| { let m = m.mirror(); (m.from(), m.to(), m.captured()) }).collect();
        let mut b: Vec<_> = mirrored.legal_moves().iter().map(|m| (m.from(), m.to(), m.captured())).collect();
        a.sort();
        b.sort();
        prop_assert_eq!(a, b);
    }

    #[test]
    fn play_matches_recomputation(pos in position()) {
        for &mv in pos.legal_moves().iter() {
            let next = pos.play(mv);
            let rebuilt = Position::from_parts(next.pieces(Side::White), next.pieces(Side::Black), next.side_to_move());
            prop_assert_eq!(next, rebuilt);
            prop_assert_eq!(next.hash(), next.hash_from_scratch());
            prop_assert_eq!(next.side_to_move(), pos.side_to_move().opponent());
            prop_assert_eq!(next.pieces(next.side_to_move()).count() + mv.jumps() as u32,
                pos.pieces(pos.side_to_move().opponent()).count());
        }
    }

    #[test]
    fn text_round_trips(pos in position()) {
        let text = pos.to_string();
        prop_assert_eq!(text.parse::<Position>().unwrap(), pos);
        for &mv in pos.legal_moves().iter() {
            prop_assert_eq!(pos.parse_move(&mv.to_string()).unwrap(), mv);
        }
    }
}
