//! Helpers shared by the solver's test binaries.

use alq_engine::{Bitboard, Position, Side};
use rand::Rng;
use rand_chacha::ChaCha8Rng;

/// A random position with `min..=max` pieces, both sides present: distinct
/// points drawn at once, the first White's, the second Black's, the rest
/// either colour.
pub fn random_position(rng: &mut ChaCha8Rng, min: u32, max: u32) -> Position {
    let n = rng.gen_range(min.max(2)..=max) as usize;
    let points = rand::seq::index::sample(rng, 25, n);
    let mut sides = [0u32; 2];
    for (i, p) in points.iter().enumerate() {
        let white = i == 0 || (i > 1 && rng.gen_bool(0.5));
        sides[usize::from(!white)] |= 1 << p;
    }
    let side = if rng.gen_bool(0.5) { Side::White } else { Side::Black };
    Position::from_parts(Bitboard(sides[0]), Bitboard(sides[1]), side)
}
