//! The proofs the project ships (data/proofs, embedded): the start's draw
//! for either side and the first moves' results, as certificates. They were
//! checked against the ≤ 12-piece tables when they were made (`alq solve
//! --check`). The oracle reads what they prove of every position in them,
//! and the ply-6 opening tree's proven values
//! (docs/results/opening-tree-ply6-threshold.csv), from the shipped store,
//! `data/proofs/shipped.store` (made by `alq solve --merge
//! data/proofs/*.cert docs/results/opening-tree-ply6-threshold.csv --store
//! data/proofs/shipped.store`; a test checks that it still is exactly
//! that); the perfect player follows the certificates' moves.

use std::path::Path;
use std::sync::OnceLock;

use alq_solver::{Certificate, ProvenStore};

/// The shipped store's bytes.
pub const SHIPPED_STORE: &[u8] = include_bytes!("../../../data/proofs/shipped.store");

/// The shipped store, read once (BrainKing's rules).
pub fn shipped_store() -> &'static ProvenStore {
    static PARSED: OnceLock<ProvenStore> = OnceLock::new();
    PARSED.get_or_init(|| parse_embedded(SHIPPED_STORE, "data/proofs/shipped.store"))
}

/// An embedded store's bytes, parsed. Embedded at build time and checked by
/// a test: a failure here is a broken build, not bad input.
fn parse_embedded(bytes: &[u8], name: &str) -> ProvenStore {
    ProvenStore::parse(bytes, Path::new(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// The opening atlas's bytes (`data/proofs/atlas.store`, embedded): the
/// exact value, or the bound, of every position of the opening tree as far
/// as `alq atlas` has settled it (through ply 10, over the ≤ 10 tables and
/// the shipped store: the tree store of `alq atlas --depth 10 --table-only
/// --save-tree`; see docs/tablebases-and-solving.md, "The opening atlas").
pub const ATLAS_STORE: &[u8] = include_bytes!("../../../data/proofs/atlas.store");

/// The shipped atlas, read once (BrainKing's rules).
pub fn shipped_atlas() -> &'static ProvenStore {
    static PARSED: OnceLock<ProvenStore> = OnceLock::new();
    PARSED.get_or_init(|| parse_embedded(ATLAS_STORE, "data/proofs/atlas.store"))
}

/// The shipped certificates by name, as text.
pub const SHIPPED_TEXT: [(&str, &str); 8] = [
    ("start-white-draws", include_str!("../../../data/proofs/start-white-draws.cert")),
    ("start-black-draws", include_str!("../../../data/proofs/start-black-draws.cert")),
    ("b2-c3-white-draws", include_str!("../../../data/proofs/b2-c3-white-draws.cert")),
    ("b2-c3-black-draws", include_str!("../../../data/proofs/b2-c3-black-draws.cert")),
    ("d2-c3-black-draws", include_str!("../../../data/proofs/d2-c3-black-draws.cert")),
    ("d2-c3-black-wins", include_str!("../../../data/proofs/d2-c3-black-wins.cert")),
    ("d3-c3-white-draws", include_str!("../../../data/proofs/d3-c3-white-draws.cert")),
    ("d3-c3-black-draws", include_str!("../../../data/proofs/d3-c3-black-draws.cert")),
];

/// The shipped certificates, parsed once (BrainKing's rules).
pub fn shipped_certificates() -> &'static [Certificate] {
    static PARSED: OnceLock<Vec<Certificate>> = OnceLock::new();
    PARSED.get_or_init(|| parse_certificates(SHIPPED_TEXT.iter().map(|(name, text)| (*name, text.as_bytes()))))
}

/// Embedded certificates by name, parsed (text or gzip). Embedded at build
/// time and parsed by a test: a failure here is a broken build, not bad
/// input.
fn parse_certificates<'a>(files: impl Iterator<Item = (&'a str, &'a [u8])>) -> Vec<Certificate> {
    files
        .map(|(name, bytes)| {
            Certificate::from_bytes(bytes).unwrap_or_else(|e| panic!("shipped certificate {name}: {e}"))
        })
        .collect()
}

/// The plies of the opening atlas its shipped certificates cover.
pub const ATLAS_CERTIFIED_DEPTH: u32 = 6;

/// The opening atlas's certificates (`data/proofs/atlas/`, gzip, made by
/// `alq atlas --depth 6 --certify data/proofs/atlas --tb TB12`): one a
/// goal, each of many roots, holding every position of plies ≤ 6 whose
/// atlas value meets it.
pub const ATLAS_CERTIFICATES: [(&str, &[u8]); 4] = [
    ("atlas-d6-white-wins", include_bytes!("../../../data/proofs/atlas/atlas-d6-white-wins.cert.gz")),
    ("atlas-d6-white-draws", include_bytes!("../../../data/proofs/atlas/atlas-d6-white-draws.cert.gz")),
    ("atlas-d6-black-wins", include_bytes!("../../../data/proofs/atlas/atlas-d6-black-wins.cert.gz")),
    ("atlas-d6-black-draws", include_bytes!("../../../data/proofs/atlas/atlas-d6-black-draws.cert.gz")),
];

/// The atlas's certificates, parsed once.
pub fn atlas_certificates() -> &'static [Certificate] {
    static PARSED: OnceLock<Vec<Certificate>> = OnceLock::new();
    PARSED.get_or_init(|| parse_certificates(ATLAS_CERTIFICATES.iter().copied()))
}

/// What the shipped certificates alone prove (no search behind it), the
/// atlas's included, read once: the oracle answers these positions with
/// source `proof`.
pub fn shipped_proven() -> &'static ProvenStore {
    static PARSED: OnceLock<ProvenStore> = OnceLock::new();
    PARSED.get_or_init(|| {
        let mut union = ProvenStore::new(alq_engine::RuleSet::BrainKing);
        for cert in shipped_certificates().iter().chain(atlas_certificates()) {
            // The shipped certificates are checked not to contradict each
            // other (a test builds this union).
            union.merge(&ProvenStore::from_certificate(cert)).expect("shipped certificates agree");
        }
        union
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use alq_engine::{Position, RuleSet};
    use alq_solver::Goal;

    #[test]
    fn the_shipped_store_is_what_the_shipped_certificates_and_opening_tree_prove() {
        let mut union = ProvenStore::new(RuleSet::BrainKing);
        for cert in shipped_certificates() {
            union.merge(&ProvenStore::from_certificate(cert)).unwrap();
        }
        // The ply-6 opening tree's values: position (column 3) and
        // exact_value (column 6), side to move's view.
        let book = include_str!("../../../docs/results/opening-tree-ply6-threshold.csv");
        for row in book.lines().skip(1) {
            let fields: Vec<&str> = row.split(',').collect();
            let pos: Position = fields[2].parse().unwrap();
            let (mover, opponent) = ProvenStore::answers_of_value(fields[5]).unwrap_or((None, None));
            union.add_answers(&pos, mover, opponent).unwrap();
        }
        let store = shipped_store();
        assert_eq!((store.rules, store.tables), (RuleSet::BrainKing, Some(12)));
        assert_eq!(store.entries.len(), union.entries.len());
        assert!(
            union.entries.iter().all(|(k, b)| store.entries.get(k) == Some(b)),
            "rebuild data/proofs/shipped.store"
        );
    }

    #[test]
    fn the_shipped_atlas_holds_opening_tree_positions_and_agrees_with_the_proofs() {
        let atlas = shipped_atlas();
        assert_eq!(atlas.rules, RuleSet::BrainKing);
        // Every entry is a position of the opening tree through ply 10.
        let tree: std::collections::HashSet<u64> = crate::atlas::tree(RuleSet::BrainKing, Position::start(), 10)
            .into_iter()
            .flatten()
            .map(|p| p.key())
            .collect();
        assert!(atlas.entries.len() >= 2000, "{}", atlas.entries.len());
        assert!(atlas.entries.keys().all(|k| tree.contains(k)));
        // No contradiction with the certificates' and the ply-6 tree's answers.
        let mut union = shipped_store().clone();
        union.merge(atlas).unwrap();
        // The start: a draw for either side.
        let start = atlas.entries[&Position::start().key()];
        assert_eq!(start, 0b1010, "White does not win and Black does not win");
    }

    /// What the shipped store and the atlas know together.
    fn shipped_values() -> ProvenStore {
        let mut known = shipped_store().clone();
        known.merge(shipped_atlas()).unwrap();
        known
    }

    #[test]
    fn the_atlas_certificates_certify_every_value_of_their_plies() {
        let certs = atlas_certificates();
        for ((name, _), cert) in ATLAS_CERTIFICATES.iter().zip(certs) {
            assert_eq!(cert.rules, RuleSet::BrainKing, "{name}");
            assert!(name.ends_with(&format!("-{}", cert.goal)), "{name}: {}", cert.goal);
            // Every step but the table leaves' values (the slow tier checks
            // those over the ≤ 12 tables: scripts/check-proofs.sh all).
            let root = Position::from_key_unchecked(cert.root);
            alq_solver::check_structure(cert, &root).unwrap_or_else(|e| panic!("{name}: {e}"));
        }
        // Every position of plies ≤ D: the atlas's value is what the
        // certificates prove, and source `proof` answers it.
        let proven = shipped_proven();
        let atlas = &shipped_values();
        let tree = crate::atlas::tree(RuleSet::BrainKing, Position::start(), ATLAS_CERTIFIED_DEPTH);
        let mut certified = 0;
        for pos in tree.iter().flatten() {
            let bits = atlas.entries.get(&pos.key()).copied().unwrap_or(0);
            assert!(bits != 0, "{pos} is not in the atlas");
            assert!(
                crate::atlas_certificate::certified_value(pos, atlas, proven),
                "{pos}: the atlas's value is not certified"
            );
            certified += 1;
        }
        assert_eq!(certified, 151);
    }

    #[test]
    fn the_depth_10_book_holds_the_atlas_value_of_every_row() {
        use std::io::Read;
        let gz = include_bytes!("../../../docs/results/opening-book-ply10.csv.gz");
        let mut text = String::new();
        flate2::read::GzDecoder::new(&gz[..]).read_to_string(&mut text).unwrap();
        let known = shipped_values();
        let (mut rows, mut exact) = (0, 0);
        for row in text.lines().skip(1) {
            // line, plies, position, score, best_move, exact_value
            let fields: Vec<&str> = row.split(',').collect();
            let pos: Position = fields[2].parse().unwrap();
            let value = fields[5];
            // A distance after a win or loss does not change the answers.
            let word = if value.starts_with(['≤', '≥']) { value } else { value.split(' ').next().unwrap() };
            let (mover, opponent) = ProvenStore::answers_of_value(word).unwrap_or_else(|| panic!("{row}"));
            let side = pos.side_to_move();
            let book = crate::Value::from_questions(mover, opponent);
            assert_eq!(
                crate::Value::from_questions(known.answer(&pos, side), known.answer(&pos, side.opponent())),
                book,
                "{row}: regenerate the book with `alq openings --depth 10 --solve --solve-nodes 1 --threads 1 --out FILE` and gzip -9 it"
            );
            rows += 1;
            exact += usize::from(book.is_exact());
        }
        assert_eq!(rows, 32_546);
        // The atlas is complete through ply 10: every row exact.
        assert_eq!(exact, 32_546);
    }

    #[test]
    fn every_shipped_certificate_parses_with_the_goal_its_name_says() {
        let certs = shipped_certificates();
        assert_eq!(certs.len(), SHIPPED_TEXT.len());
        for ((name, _), cert) in SHIPPED_TEXT.iter().zip(certs) {
            assert_eq!(cert.rules, RuleSet::BrainKing, "{name}");
            let goal: Goal = name
                .rsplitn(3, '-')
                .take(2)
                .collect::<Vec<_>>()
                .into_iter()
                .rev()
                .collect::<Vec<_>>()
                .join("-")
                .parse()
                .unwrap();
            assert_eq!(cert.goal, goal, "{name}");
            assert!(cert.entries.len() > 100, "{name}");
        }
        assert_eq!(certs[0].root, Position::start().key());
    }
}
