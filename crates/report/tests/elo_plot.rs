//! The pipeline's Elo plot: a panel for nElo appears exactly when some
//! series has nElo points, and every anchor is in the legend.

use alq_report::plots::{elo_curve, EloSeries};

fn series(with_nelo: bool) -> Vec<EloSeries> {
    let nelo = |v: f64| {
        if with_nelo {
            vec![(1, v, [v - 30.0, v + 30.0]), (2, v + 10.0, [v - 20.0, v + 40.0])]
        } else {
            vec![]
        }
    };
    vec![
        EloSeries {
            anchor: "hce".into(),
            points: vec![(1, 150.0, [120.0, 180.0]), (2, 170.0, [140.0, 200.0])],
            nelo_points: nelo(240.0),
        },
        EloSeries {
            anchor: "nn".into(),
            points: vec![(1, 12.0, [-5.0, 29.0]), (2, 20.0, [3.0, 37.0])],
            nelo_points: nelo(35.0),
        },
    ]
}

#[test]
fn the_nelo_panel_is_drawn_only_with_nelo_points() {
    let with = elo_curve(&series(true)).unwrap();
    let without = elo_curve(&series(false)).unwrap();
    for svg in [&with, &without] {
        assert!(svg.contains("Elo of each generation") && svg.contains("against hce") && svg.contains("against nn"));
    }
    assert!(with.contains("Normalized Elo (nElo)") && with.contains("nElo (95 % interval)"));
    assert!(!without.contains("nElo"));
    // Two panels: each anchor's legend entry twice.
    assert_eq!(with.matches("against nn").count(), 2);
    assert_eq!(without.matches("against nn").count(), 1);
    // The nElo panel's axis reaches the largest nElo interval (+280), the Elo axis only +200.
    assert!(with.contains("300.0") && !without.contains("300.0"), "the nElo axis reaches +280");
}
