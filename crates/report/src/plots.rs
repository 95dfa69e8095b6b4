//! The report's plots, as SVG text (plotters' SVG backend).

use plotters::prelude::*;

use crate::{Group, Report, ReportError};

/// The rungs' colours in `errors.svg`: twelve that tell apart on white
/// and none red, the colour of BrainKing's humans' line (plotters'
/// `Palette99` repeats yellow among the first ten).
const RUNG_COLORS: [RGBColor; 12] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
    RGBColor(188, 189, 34),
    RGBColor(23, 190, 207),
    RGBColor(0, 0, 0),
    RGBColor(0, 80, 160),
    RGBColor(120, 60, 0),
];

/// One category with a value and its 95 % interval.
pub struct Point95 {
    pub label: String,
    pub value: f64,
    pub lo: f64,
    pub hi: f64,
}

const WIDTH: u32 = 760;
const HEIGHT: u32 = 420;

/// A plot that could not be drawn (what the plotting library said).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("plot: {0}")]
pub struct PlotError(pub String);

fn text_err<E: std::fmt::Debug>(e: E) -> PlotError {
    PlotError(format!("{e:?}"))
}

/// Values with interval bars per category, and an optional reference line.
pub fn intervals(
    title: &str,
    x_desc: &str,
    y_desc: &str,
    points: &[Point95],
    reference: Option<(f64, &str)>,
) -> Result<String, PlotError> {
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (WIDTH, HEIGHT)).into_drawing_area();
        root.fill(&WHITE).map_err(text_err)?;
        let n = points.len().max(1) as f64;
        let labels: Vec<String> = points.iter().map(|p| p.label.clone()).collect();
        let mut chart = ChartBuilder::on(&root)
            .caption(title, ("sans-serif", 20))
            .margin(12)
            .x_label_area_size(48)
            .y_label_area_size(56)
            .build_cartesian_2d(-0.5f64..n - 0.5, 0f64..1f64)
            .map_err(text_err)?;
        chart
            .configure_mesh()
            .x_desc(x_desc)
            .y_desc(y_desc)
            .x_labels(points.len().clamp(1, 40))
            .x_label_formatter(&|x| {
                let i = x.round();
                if (x - i).abs() < 1e-6 && i >= 0.0 && (i as usize) < labels.len() {
                    labels[i as usize].clone()
                } else {
                    String::new()
                }
            })
            .disable_x_mesh()
            .draw()
            .map_err(text_err)?;
        if let Some((y, name)) = reference {
            chart
                .draw_series(LineSeries::new(vec![(-0.5, y), (n - 0.5, y)], RED.stroke_width(1)))
                .map_err(text_err)?
                .label(name)
                .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 16, y)], RED));
        }
        chart
            .draw_series(
                points
                    .iter()
                    .enumerate()
                    .map(|(i, p)| ErrorBar::new_vertical(i as f64, p.lo, p.value, p.hi, BLUE.filled(), 10)),
            )
            .map_err(text_err)?
            .label("White's score, 95 % interval")
            .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 16, y)], BLUE));
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::LowerRight)
            .background_style(WHITE.mix(0.8))
            .border_style(BLACK)
            .draw()
            .map_err(text_err)?;
        root.present().map_err(text_err)?;
    }
    Ok(svg)
}

/// A histogram of game lengths in plies, in bins of `bin` plies.
pub fn lengths(title: &str, lengths: &[(u64, u64)], bin: u64) -> Result<String, PlotError> {
    let bin = bin.max(1);
    let mut bins: std::collections::BTreeMap<u64, u64> = std::collections::BTreeMap::new();
    for &(plies, games) in lengths {
        *bins.entry(plies / bin * bin).or_insert(0) += games;
    }
    let max_x = bins.keys().last().copied().unwrap_or(0) + bin;
    let max_y = bins.values().copied().max().unwrap_or(1).max(1);
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (WIDTH, HEIGHT)).into_drawing_area();
        root.fill(&WHITE).map_err(text_err)?;
        let mut chart = ChartBuilder::on(&root)
            .caption(title, ("sans-serif", 20))
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(64)
            .build_cartesian_2d(0u64..max_x, 0u64..max_y + max_y / 10 + 1)
            .map_err(text_err)?;
        chart
            .configure_mesh()
            .x_desc("game length (plies)")
            .y_desc("games")
            .disable_x_mesh()
            .draw()
            .map_err(text_err)?;
        chart
            .draw_series(bins.iter().map(|(&x, &y)| Rectangle::new([(x, 0), (x + bin, y)], BLUE.mix(0.6).filled())))
            .map_err(text_err)?;
        root.present().map_err(text_err)?;
    }
    Ok(svg)
}

/// White's score (with 95 % intervals), White's win rate and the draw rate
/// of a study's searching rungs against nodes per move (log axis), with
/// the human, random-play and greedy-play White's scores as reference lines.
pub fn strength(study: &crate::StudySummary) -> Result<String, PlotError> {
    let searching: Vec<&crate::StudyRung> = study.rungs.iter().filter(|r| r.nodes.is_some()).collect();
    let log = |r: &crate::StudyRung| (r.nodes.unwrap_or(1).max(1) as f64).log10();
    let (mut lo, mut hi) = searching.iter().fold((f64::MAX, f64::MIN), |(a, b), r| (a.min(log(r)), b.max(log(r))));
    if searching.is_empty() {
        (lo, hi) = (2.0, 5.0);
    }
    let (x0, x1) = (lo.floor() - 0.3, hi.ceil() + 0.3);
    // The legend gets a band of its own under the chart, so it never covers
    // a line, and the axis stops at 1 (rates and scores).
    let legend_rows = 4;
    let legend_height = 24 + 18 * legend_rows;
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (WIDTH, HEIGHT + legend_height)).into_drawing_area();
        root.fill(&WHITE).map_err(text_err)?;
        let (upper, lower) = root.split_vertically(HEIGHT);
        let mut chart = ChartBuilder::on(&upper)
            .caption("White's advantage by playing strength (games from the standard start)", ("sans-serif", 18))
            .margin(12)
            .x_label_area_size(48)
            .y_label_area_size(56)
            .build_cartesian_2d(x0..x1, 0f64..1.0001f64)
            .map_err(text_err)?;
        chart
            .configure_mesh()
            .y_labels(6)
            .y_label_formatter(&|y| format!("{y:.1}"))
            .max_light_lines(1)
            .light_line_style(BLACK.mix(0.04))
            .bold_line_style(BLACK.mix(0.12))
            .x_desc("nodes per move (log scale)")
            .y_desc("rate / score")
            .x_labels(((x1 - x0).ceil() as usize + 1).max(2))
            .x_label_formatter(&|x| {
                let r = x.round();
                if (x - r).abs() < 1e-6 {
                    format!("{}", 10f64.powi(r as i32) as u64)
                } else {
                    String::new()
                }
            })
            .draw()
            .map_err(text_err)?;
        let mut legend: Vec<(String, RGBAColor, u32)> = Vec::new();
        let references = [
            (Some(study.brainking.white_score), "BrainKing humans: White's score", RED),
            (
                study.rungs.iter().find(|r| r.family == "random").map(|r| r.results.white_score),
                "random play: White's score",
                BLACK,
            ),
            (
                study.rungs.iter().find(|r| r.family == "greedy").map(|r| r.results.white_score),
                "greedy play: White's score",
                MAGENTA,
            ),
        ];
        for (value, name, color) in references {
            if let Some(y) = value {
                chart
                    .draw_series(LineSeries::new(vec![(x0, y), (x1, y)], color.mix(0.6).stroke_width(1)))
                    .map_err(text_err)?;
                legend.push((name.to_string(), color.mix(0.6), 1));
            }
        }
        let orange = RGBColor(230, 140, 0);
        let green = RGBColor(0, 150, 60);
        for family in ["hce", "nn"] {
            let rungs: Vec<&&crate::StudyRung> = searching.iter().filter(|r| r.family == family).collect();
            if rungs.is_empty() {
                continue;
            }
            let width = if family == "nn" { 3 } else { 1 };
            let metrics: [(&str, RGBColor, fn(&crate::StudyRung) -> f64); 3] = [
                ("White's score", BLUE, |r| r.results.white_score),
                ("White wins", green, |r| r.results.rates.white_win.rate),
                ("draws", orange, |r| r.results.rates.draw.rate),
            ];
            for (name, color, value) in metrics {
                let pts: Vec<(f64, f64)> = rungs.iter().map(|r| (log(r), value(r))).collect();
                chart.draw_series(LineSeries::new(pts.clone(), color.stroke_width(width))).map_err(text_err)?;
                legend.push((format!("{family}: {name}"), color.to_rgba(), width));
                if family == "nn" {
                    chart
                        .draw_series(pts.iter().map(|&p| TriangleMarker::new(p, 6, color.filled())))
                        .map_err(text_err)?;
                } else {
                    chart.draw_series(pts.iter().map(|&p| Circle::new(p, 4, color.filled()))).map_err(text_err)?;
                }
            }
            chart
                .draw_series(rungs.iter().map(|r| {
                    let ci = r.results.rates.white_score.ci95;
                    ErrorBar::new_vertical(log(r), ci[0], r.results.white_score, ci[1], BLUE.filled(), 8)
                }))
                .map_err(text_err)?;
        }
        draw_legend(&lower, &legend)?;
        root.present().map_err(text_err)?;
    }
    Ok(svg)
}

/// A legend in three columns, row by row, in the band `area` below a chart
/// (names cut to fit a column).
fn draw_legend<DB: DrawingBackend>(
    area: &DrawingArea<DB, plotters::coord::Shift>,
    legend: &[(String, RGBAColor, u32)],
) -> Result<(), PlotError> {
    let column = (WIDTH as i32 - 80) / 3;
    for (i, (name, color, width)) in legend.iter().enumerate() {
        let (x, y) = (40 + column * (i % 3) as i32, 14 + 18 * (i / 3) as i32);
        area.draw(&PathElement::new(vec![(x, y), (x + 22, y)], color.stroke_width(*width))).map_err(text_err)?;
        let short: String = name.chars().take(34).collect();
        area.draw(&Text::new(short, (x + 28, y - 6), ("sans-serif", 12))).map_err(text_err)?;
    }
    Ok(())
}

/// The share of each graded rung's games still drawn by exact value after
/// ply k, among its games still going whose value there is known (never
/// guessed: the line has a gap where fewer than a quarter of them, or
/// fewer than 5, are known), one line per rung, with BrainKing's humans'
/// share of drawn games as a reference; none when no rung was graded.
pub fn drawn_after(study: &crate::StudySummary) -> Result<Option<String>, PlotError> {
    let graded: Vec<(&crate::StudyRung, &crate::RungErrors)> =
        study.rungs.iter().filter_map(|r| r.errors.as_ref().map(|e| (r, e))).collect();
    if graded.is_empty() {
        return Ok(None);
    }
    const LAST_PLY: usize = 80;
    let legend_rows = graded.len().div_ceil(3) + 1;
    let legend_height = 24 + 18 * legend_rows as u32;
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (WIDTH, HEIGHT + legend_height)).into_drawing_area();
        root.fill(&WHITE).map_err(text_err)?;
        let (upper, lower) = root.split_vertically(HEIGHT);
        let mut chart = ChartBuilder::on(&upper)
            .caption("Games still drawn by exact value after ply k (graded against perfect play)", ("sans-serif", 18))
            .margin(12)
            .x_label_area_size(48)
            .y_label_area_size(56)
            .build_cartesian_2d(0f64..LAST_PLY as f64, 0f64..1.0001f64)
            .map_err(text_err)?;
        chart
            .configure_mesh()
            .y_labels(6)
            .y_label_formatter(&|y| format!("{y:.1}"))
            .max_light_lines(1)
            .light_line_style(BLACK.mix(0.04))
            .bold_line_style(BLACK.mix(0.12))
            .x_desc("ply")
            .y_desc("drawn, of the games whose value is known")
            .draw()
            .map_err(text_err)?;
        let mut legend: Vec<(String, RGBAColor, u32)> = Vec::new();
        let humans = study.brainking.rates.draw.rate;
        chart
            .draw_series(LineSeries::new(vec![(0.0, humans), (LAST_PLY as f64, humans)], RED.mix(0.6).stroke_width(1)))
            .map_err(text_err)?;
        legend.push(("BrainKing humans: drawn games".to_string(), RED.mix(0.6), 1));
        for (i, (rung, errors)) in graded.iter().enumerate() {
            let color = RUNG_COLORS[i % RUNG_COLORS.len()].to_rgba();
            let width = if rung.family == "nn" { 2 } else { 1 };
            // Drawn among the games still going whose value is known, where
            // enough are known (a gap where unknowns dominate).
            let mut segment: Vec<(f64, f64)> = Vec::new();
            let mut segments = Vec::new();
            for (k, &[drawn, known, going]) in errors.drawn_after.iter().take(LAST_PLY + 1).enumerate() {
                if known >= 5 && 4 * known >= going {
                    segment.push((k as f64, drawn as f64 / known as f64));
                } else if !segment.is_empty() {
                    segments.push(std::mem::take(&mut segment));
                }
            }
            segments.push(segment);
            for pts in segments.into_iter().filter(|s| !s.is_empty()) {
                chart.draw_series(LineSeries::new(pts, color.stroke_width(width))).map_err(text_err)?;
            }
            legend.push((rung.player.clone(), color, width));
        }
        draw_legend(&lower, &legend)?;
        root.present().map_err(text_err)?;
    }
    Ok(Some(svg))
}

/// One anchor's curves: (generation, value, 95 % interval) per point, for
/// Elo and for normalized Elo (empty where nElo was not measured).
pub struct EloSeries {
    pub anchor: String,
    pub points: Vec<(usize, f64, [f64; 2])>,
    pub nelo_points: Vec<(usize, f64, [f64; 2])>,
}

type Points = [(usize, f64, [f64; 2])];

/// Elo against fixed anchors by generation, with 95 % interval bars (the
/// pipeline's `elo.svg`); below it, in a panel of its own, normalized Elo
/// when any series has it.
pub fn elo_curve(series: &[EloSeries]) -> Result<String, PlotError> {
    let last = series.iter().flat_map(|s| s.points.iter().chain(&s.nelo_points)).map(|p| p.0).max().unwrap_or(1).max(1);
    let with_nelo = series.iter().any(|s| !s.nelo_points.is_empty());
    let height = if with_nelo { HEIGHT * 2 - 60 } else { HEIGHT };
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (WIDTH, height)).into_drawing_area();
        root.fill(&WHITE).map_err(text_err)?;
        let elo: Vec<(&str, &Points)> = series.iter().map(|s| (s.anchor.as_str(), s.points.as_slice())).collect();
        if with_nelo {
            let (upper, lower) = root.split_vertically(height / 2);
            let nelo: Vec<(&str, &Points)> =
                series.iter().map(|s| (s.anchor.as_str(), s.nelo_points.as_slice())).collect();
            elo_panel(
                &upper,
                "Elo of each generation's candidate against fixed anchors",
                "Elo (95 % interval)",
                last,
                &elo,
            )?;
            elo_panel(&lower, "Normalized Elo (nElo) of the same matches", "nElo (95 % interval)", last, &nelo)?;
        } else {
            elo_panel(
                &root,
                "Elo of each generation's candidate against fixed anchors",
                "Elo (95 % interval)",
                last,
                &elo,
            )?;
        }
        root.present().map_err(text_err)?;
    }
    Ok(svg)
}

/// One panel of [`elo_curve`]: a line with interval bars per anchor.
fn elo_panel<DB: DrawingBackend>(
    area: &DrawingArea<DB, plotters::coord::Shift>,
    caption: &str,
    y_desc: &str,
    last: usize,
    series: &[(&str, &Points)],
) -> Result<(), PlotError> {
    let all = || series.iter().flat_map(|s| s.1.iter());
    let finite = |v: f64| if v.is_finite() { v } else { 0.0 };
    let lo = all().map(|p| finite(p.2[0]).min(p.1)).fold(0.0f64, f64::min);
    let hi = all().map(|p| finite(p.2[1]).max(p.1)).fold(0.0f64, f64::max);
    let pad = ((hi - lo) * 0.1).max(20.0);
    let mut chart = ChartBuilder::on(area)
        .caption(caption, ("sans-serif", 18))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(56)
        .build_cartesian_2d(-0.5f64..last as f64 + 0.5, (lo - pad)..(hi + pad))
        .map_err(text_err)?;
    chart
        .configure_mesh()
        .x_desc("generation")
        .y_desc(y_desc)
        .x_labels(last + 2)
        .x_label_formatter(&|x| {
            if (x - x.round()).abs() < 1e-6 && *x >= 0.0 {
                format!("{}", x.round())
            } else {
                String::new()
            }
        })
        .draw()
        .map_err(text_err)?;
    chart
        .draw_series(LineSeries::new(vec![(-0.5, 0.0), (last as f64 + 0.5, 0.0)], BLACK.mix(0.4)))
        .map_err(text_err)?;
    let colors = [BLUE, RGBColor(230, 140, 0), RGBColor(0, 150, 60), MAGENTA];
    for (i, (anchor, points)) in series.iter().enumerate() {
        let color = colors[i % colors.len()];
        let pts: Vec<(f64, f64)> = points.iter().map(|p| (p.0 as f64, p.1)).collect();
        chart
            .draw_series(LineSeries::new(pts, color.stroke_width(2)))
            .map_err(text_err)?
            .label(format!("against {anchor}"))
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 16, y)], color.stroke_width(2)));
        chart
            .draw_series(
                points.iter().map(|p| {
                    ErrorBar::new_vertical(p.0 as f64, finite(p.2[0]), p.1, finite(p.2[1]), color.filled(), 8)
                }),
            )
            .map_err(text_err)?;
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperLeft)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .draw()
        .map_err(text_err)?;
    Ok(())
}

/// The plots as (file name, SVG text).
pub fn report_plots(report: &Report) -> Result<Vec<(&'static str, String)>, ReportError> {
    let point = |label: String, g: &Group| Point95 {
        label,
        value: g.white_score,
        lo: g.rates.white_score.ci95[0],
        hi: g.rates.white_score.ci95[1],
    };
    let pairing_points: Vec<Point95> =
        report.from_start.pairings.iter().enumerate().map(|(i, p)| point(format!("P{}", i + 1), &p.results)).collect();
    let human = report.brainking.results.white_score;
    let by_pairing = intervals(
        "White's score from the standard start, by pairing",
        "pairing (see the table)",
        "White's score",
        &pairing_points,
        Some((human, "BrainKing humans")),
    )
    .map_err(ReportError::Plot)?;
    let move_points: Vec<Point95> = report
        .first_moves
        .iter()
        .map(|m| point(format!("P{} {}", report.pairing_number(m), m.first_move), &m.results))
        .collect();
    let by_move = intervals(
        "White's score by first move (games from the standard start)",
        "pairing and White's first move",
        "White's score",
        &move_points,
        Some((report.brainking.results.white_score, "BrainKing humans")),
    )
    .map_err(ReportError::Plot)?;
    let max_len = report.lengths.last().map_or(0, |l| l.0);
    let lengths = lengths("Game length (games from the standard start)", &report.lengths, (max_len / 40).max(1))
        .map_err(ReportError::Plot)?;
    let mut out =
        vec![("white_score_by_pairing.svg", by_pairing), ("first_moves.svg", by_move), ("game_length.svg", lengths)];
    if let Some(study) = &report.study {
        out.push(("strength.svg", strength(study).map_err(ReportError::Plot)?));
        if let Some(svg) = drawn_after(study).map_err(ReportError::Plot)? {
            out.push(("errors.svg", svg));
        }
    }
    Ok(out)
}
