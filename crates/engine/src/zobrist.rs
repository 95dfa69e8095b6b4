//! Zobrist keys, generated at compile time from a fixed seed.

use crate::types::{Point, Side};

const fn splitmix64(state: u64) -> (u64, u64) {
    let state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    (state, z ^ (z >> 31))
}

const fn build_keys() -> ([[u64; 25]; 2], u64) {
    let mut keys = [[0u64; 25]; 2];
    let mut state = 0x414C_5155_4552_5155; // "ALQUERQU"
    let mut s = 0;
    while s < 2 {
        let mut p = 0;
        while p < 25 {
            let (next, key) = splitmix64(state);
            state = next;
            keys[s][p] = key;
            p += 1;
        }
        s += 1;
    }
    let (_, side_key) = splitmix64(state);
    (keys, side_key)
}

const KEYS: ([[u64; 25]; 2], u64) = build_keys();

/// The key of a piece of `side` on `point`.
#[inline]
pub fn piece(side: Side, point: Point) -> u64 {
    KEYS.0[side.index()][point.index()]
}

/// The key xor-ed in when Black is to move.
#[inline]
pub fn black_to_move() -> u64 {
    KEYS.1
}
