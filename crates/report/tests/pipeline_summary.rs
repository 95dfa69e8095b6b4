//! The pipeline's `summary.md` from plain rows: the header names how the
//! gate and the evaluation were played, each row renders every column, and
//! `elo.svg` is drawn once a candidate has met an anchor.

use alq_report::pipeline::{
    AnchorElo, ErrorRow, ErrorsResult, MatchConditions, PipelineRow, PipelineSummary, StartResult,
};

fn conditions(limits: &str, openings: &str) -> MatchConditions {
    MatchConditions { limits: limits.to_string(), openings: openings.to_string() }
}

fn row<'a>(generation: usize, anchors: &'a [AnchorElo], start: Option<&'a StartResult>) -> PipelineRow<'a> {
    PipelineRow {
        generation,
        selfplay_player: "hce@nodes=100",
        games: 40,
        promoted: None,
        gate_elo: None,
        gate_elo_ci95: None,
        gate_nelo: None,
        gate_nelo_ci95: None,
        anchors,
        start,
        accuracy: None,
        labelled: None,
        errors: None,
    }
}

#[test]
fn rows_render_every_column() {
    let start = StartResult {
        player: "hce@nodes=100".to_string(),
        games: 4,
        white_wins: 2,
        draws: 1,
        black_wins: 0,
        unfinished: 1,
        white_score: 0.8333,
        white_score_ci95: [0.4, 0.97],
    };
    let anchors = [
        AnchorElo {
            anchor: "hce".into(),
            elo: 151.4,
            elo_ci95: [120.2, 180.6],
            nelo: Some(240.0),
            nelo_ci95: Some([200.0, 280.0]),
        },
        AnchorElo { anchor: "nn".into(), elo: -12.0, elo_ci95: [-30.0, 6.0], nelo: None, nelo_ci95: None },
    ];
    let mut first = row(1, &anchors, Some(&start));
    first.promoted = Some(true);
    first.gate_elo = Some(35.0);
    first.gate_elo_ci95 = Some([5.0, 65.0]);
    first.gate_nelo = Some(50.0);
    first.accuracy = Some((8, "0.912 [0.880, 0.936]".to_string()));
    first.labelled = Some((1234, 5000));
    let errors = ErrorsResult {
        player: "nn@nodes=1000".to_string(),
        conditions: "200 games at 1000 nodes".to_string(),
        start: Some(ErrorRow {
            games: 200,
            moves: 9000,
            unknown: 40,
            errors_per_game: 0.154,
            errors_per_game_ci95: [0.1, 0.2],
            errors_at_least_per_game: 0.476,
            errors_at_least_per_game_ci95: [0.36, 0.59],
        }),
        book: None,
    };
    first.errors = Some(&errors);
    let summary = PipelineSummary {
        gate: conditions("100 nodes", "the shipped balanced book"),
        evaluation: conditions("tc 0.5+0.02", "every position 2 plies deep"),
        rows: vec![row(0, &[], None), first],
    };
    let md = summary.markdown();
    assert!(md.starts_with("# Pipeline summary\n\nGate: each candidate against the best player so far at 100 nodes, from the shipped balanced book. "), "{md}");
    assert!(
        md.contains("against the fixed anchors of `anchors` at tc 0.5+0.02, from every position 2 plies deep."),
        "{md}"
    );
    let lines: Vec<&str> = md.lines().filter(|l| l.starts_with("| 0 ") || l.starts_with("| 1 ")).collect();
    assert_eq!(
        lines,
        [
            "| 0 | hce@nodes=100 | 40 | – | – | – | – | – | – | – | – |",
            "| 1 | hce@nodes=100 | 40 | +35 [+5, +65] / – | yes | hce: +151 [+120, +181] / +240 [+200, +280]; nn: -12 [-30, +6] / – \
             | 2 / 1 / 0 (1) | 0.833 [0.400, 0.970] | 8 pieces: 0.912 [0.880, 0.936] | 1234 of 5000 (24.7 %) | 0.15 / 0.48; – |",
        ]
    );
    let series = summary.elo_series();
    assert_eq!(series.iter().map(|s| s.anchor.as_str()).collect::<Vec<_>>(), ["hce", "nn"]);
    assert_eq!((series[0].points.len(), series[0].nelo_points.len(), series[1].nelo_points.len()), (1, 1, 0));
    assert!(summary.elo_svg().unwrap().is_some_and(|svg| svg.contains("against nn")));
    let before = PipelineSummary { rows: vec![row(0, &[], None)], ..summary.clone() };
    assert!(before.elo_svg().unwrap().is_none(), "no plot before any candidate met an anchor");
}
