//! What the solver's binary files share: the rule-set field and the
//! checksummed, atomic write (through [`alq_fs::write_atomic`]).

use std::path::Path;

use alq_engine::RuleSet;
use alq_tablebase::checksum;

use crate::error::SolveError;

/// The 16-byte rule-set field: the name, zero-padded.
pub(crate) fn rules_field(rules: RuleSet) -> [u8; 16] {
    let mut field = [0u8; 16];
    field[..rules.name().len()].copy_from_slice(rules.name().as_bytes());
    field
}

/// The rule set a [`rules_field`] names.
pub(crate) fn parse_rules_field(field: &[u8]) -> Result<RuleSet, String> {
    String::from_utf8_lossy(field).trim_end_matches('\0').parse()
}

/// Appends the checksum ([`alq_tablebase::checksum`]) of `bytes` and writes
/// them to `path` atomically.
pub(crate) fn write_checksummed(path: &Path, mut bytes: Vec<u8>) -> Result<(), SolveError> {
    let sum = checksum(&[&bytes]);
    bytes.extend_from_slice(&sum.to_le_bytes());
    alq_fs::write_atomic(path, &bytes).map_err(SolveError::io(path))
}
