//! The opening books shipped in configs/: they parse under BrainKing's rules
//! and hold what their names promise.

use alq_engine::RuleSet;

fn shipped(name: &str) -> String {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../configs").join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Every row's plies and centipawn score (columns line, plies, position,
/// score, ...; no field holds a comma).
fn scores(text: &str) -> Vec<(usize, i32)> {
    text.lines()
        .skip(1)
        .map(|row| {
            let r: Vec<&str> = row.split(',').collect();
            (r[1].parse().unwrap(), r[3].strip_prefix("cp ").expect("a centipawn score").parse().unwrap())
        })
        .collect()
}

#[test]
fn the_unbalanced_book_holds_positions_ten_plies_deep_with_one_side_ahead() {
    let text = shipped("unbalanced-10.csv");
    let book = alq_play::openings::parse_book(RuleSet::BrainKing, &text).unwrap();
    assert_eq!(book.len(), 4915);
    let rows = scores(&text);
    assert_eq!(rows.len(), book.len());
    assert!(rows.iter().all(|&(plies, cp)| plies == 10 && (80..=160).contains(&cp.abs())));
    // Both sides are ahead in some openings.
    assert!(rows.iter().any(|&(_, cp)| cp > 0) && rows.iter().any(|&(_, cp)| cp < 0));
    assert_eq!(alq_play::shipped_book("unbalanced"), Some(text.as_str()));
}

#[test]
fn the_balanced_book_is_the_embedded_one() {
    let text = shipped("balanced-10.csv");
    assert_eq!(text, alq_play::BALANCED_BOOK);
    assert_eq!(alq_play::shipped_book("balanced"), Some(text.as_str()));
    assert_eq!(alq_play::shipped_book("configs/balanced-10.csv"), None);
    assert!(scores(&text).iter().all(|&(plies, cp)| plies == 10 && cp.abs() <= 60));
}
