//! Hash maps keyed by packed position keys ([`alq_engine::Position::key`]).

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// A hasher for position keys (51-bit integers): a multiply and a fold,
/// several times faster than the standard SipHash on the solver's maps.
#[derive(Default, Clone, Copy)]
pub struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        let h = self.0.wrapping_mul(0x9E37_79B9_7F4A_7C15);
        h ^ (h >> 32)
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(8) ^ u64::from(b)).wrapping_mul(0x100_0000_01B3);
        }
    }

    fn write_u64(&mut self, n: u64) {
        self.0 ^= n;
    }
}

/// A hash map keyed by position keys.
pub type KeyMap<V> = HashMap<u64, V, BuildHasherDefault<KeyHasher>>;
