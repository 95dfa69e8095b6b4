//! The report as one self-contained HTML page and as Markdown text.

use std::fmt::Write;

use crate::{Group, Line, Report};

fn esc(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

fn pct(x: f64) -> String {
    format!("{:.2} %", 100.0 * x)
}

/// A score's interval, on the score's own scale (0 to 1).
fn interval(ci: [f64; 2]) -> String {
    format!("[{:.4}, {:.4}]", ci[0], ci[1])
}

/// The cells of a group's row: games, White wins, Black wins, draws (each
/// with its rate), White's score with its interval, average length.
fn group_fields(g: &Group) -> [String; 6] {
    [
        g.games.to_string(),
        format!("{} ({})", g.white_wins, pct(g.rates.white_win.rate)),
        format!("{} ({})", g.black_wins, pct(g.rates.black_win.rate)),
        format!("{} ({})", g.draws, pct(g.rates.draw.rate)),
        format!("{:.4} {}", g.white_score, interval(g.rates.white_score.ci95)),
        // The human reference has no game lengths.
        if g.average_plies > 0.0 { format!("{:.1}", g.average_plies) } else { "–".to_string() },
    ]
}

fn group_cells(g: &Group) -> String {
    group_fields(g).iter().map(|f| format!("<td>{f}</td>")).collect()
}

const GROUP_HEAD: &str =
    "<th>games</th><th>White wins</th><th>Black wins</th><th>draws</th><th>White's score, 95 % interval</th><th>avg plies</th>";

const STYLE: &str = "body{font-family:sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;color:#222}\
table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:4px 8px;text-align:right;white-space:nowrap}\
td:first-child,th:first-child{text-align:left}th{background:#f3f3f3}\
details{margin-left:1.2em}summary{cursor:pointer;font-family:monospace;white-space:pre}\
.leaf{margin-left:2.4em;font-family:monospace;white-space:pre}.note{color:#555;font-size:90%}\
figure{margin:1em 0}";

fn tree_label(l: &Line) -> String {
    let r = &l.results;
    let last = l.line.rsplit(' ').next().unwrap_or("");
    let exact = l.exact_value.as_ref().map(|v| format!(", exact: {v}")).unwrap_or_default();
    format!(
        "{last:<12} {:>7} games  W {:>6}  B {:>6}  D {:>6}  White's score {:.3} [{:.3}, {:.3}]{exact}",
        r.games,
        pct(r.rates.white_win.rate),
        pct(r.rates.black_win.rate),
        pct(r.rates.draw.rate),
        r.white_score,
        r.rates.white_score.ci95[0],
        r.rates.white_score.ci95[1]
    )
}

/// Renders the opening tree as nested `<details>` elements.
fn tree_html(report: &Report) -> String {
    let mut out = String::new();
    let lines = &report.tree;
    // Lines are sorted so that each line's extensions follow it directly.
    fn render(lines: &[Line], i: &mut usize, depth: usize, out: &mut String) {
        while *i < lines.len() && lines[*i].plies == depth {
            let l = &lines[*i];
            *i += 1;
            let has_children = *i < lines.len() && lines[*i].plies == depth + 1;
            if has_children {
                let _ = write!(out, "<details><summary>{}</summary>", esc(&tree_label(l)));
                render(lines, i, depth + 1, out);
                out.push_str("</details>");
            } else {
                let _ = write!(out, "<div class=\"leaf\">{}</div>", esc(&tree_label(l)));
            }
        }
    }
    let mut i = 0;
    render(lines, &mut i, 1, &mut out);
    out
}

/// The self-contained page: inline SVG plots, no external assets.
pub fn page(report: &Report, plots: &[(&str, String)]) -> String {
    let mut h = String::new();
    let _ = write!(
        h,
        "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>Alquerque Lab report</title>\
         <style>{STYLE}</style></head><body><h1>Alquerque Lab: first-move advantage and openings</h1>"
    );
    let _ = write!(
        h,
        "<p>{} games from {} file(s). White's score {:.4}, 95 % interval {}; average length {:.1} plies.</p>",
        report.games,
        report.sources.len(),
        report.white_score,
        interval(report.rates.white_score.ci95),
        report.average_plies
    );
    h += "<h2>Engine games and BrainKing's human games</h2>";
    let _ = write!(h, "<table><tr><th>games of</th>{GROUP_HEAD}</tr>");
    let all = report.overall();
    let _ = write!(h, "<tr><td>engine (this report)</td>{}</tr>", group_cells(&all));
    let _ = write!(h, "<tr><td>BrainKing humans</td>{}</tr></table>", group_cells(&report.brainking.results));
    if let Some(t) = &report.white_win_rate_vs_brainking {
        let _ = write!(
            h,
            "<p>White's win rate, engine minus humans: {:+.2} points; two-proportion z = {:.2}, p = {:.3e}.</p>",
            100.0 * t.difference,
            t.z,
            t.p_value
        );
    }
    let _ = write!(h, "<p class=\"note\">Source: {}.</p>", esc(&report.brainking.source));
    h += "<h2>By pairing</h2><p>White's advantage as a function of who plays: one row per (White, Black) pairing.</p>";
    let _ = write!(h, "<table><tr><th>#</th><th>White</th><th>Black</th>{GROUP_HEAD}</tr>");
    for (i, p) in report.pairings.iter().enumerate() {
        let _ = write!(
            h,
            "<tr><td>P{}</td><td>{}</td><td>{}</td>{}</tr>",
            i + 1,
            esc(&p.white),
            esc(&p.black),
            group_cells(&p.results)
        );
    }
    h += "</table>";
    h += "<h2>Terminations</h2><table><tr><th>termination</th><th>games</th></tr>";
    for (t, n) in &report.terminations {
        let _ = write!(h, "<tr><td>{}</td><td>{n}</td></tr>", esc(t));
    }
    h += "</table>";
    h += "<h2>White's first move</h2>";
    let _ = write!(h, "<table><tr><th>first move</th>{GROUP_HEAD}<th>exact value</th></tr>");
    for l in &report.first_moves {
        let _ = write!(
            h,
            "<tr><td>{}</td>{}<td>{}</td></tr>",
            esc(&l.line),
            group_cells(&l.results),
            esc(l.exact_value.as_deref().unwrap_or("not yet known"))
        );
    }
    h += "</table>";
    let _ = write!(
        h,
        "<h2>Opening tree</h2><p>To {} plies; click a line to open it. Games that began from another position \
         ({}) are not in the tree. Exact values appear where tablebases or a solver know them.</p>",
        report.tree_depth, report.other_starts
    );
    h += &tree_html(report);
    h += "<h2>Plots</h2>";
    for (name, svg) in plots {
        let body = svg.trim_start_matches(|c| c != '<');
        let body = if body.starts_with("<?xml") { body.split_once("?>").map_or(body, |(_, b)| b) } else { body };
        let _ = write!(h, "<figure id=\"{}\">{}</figure>", esc(name), body);
    }
    h += "</body></html>\n";
    h
}

/// A text summary.
pub fn markdown(report: &Report) -> String {
    let mut m = String::new();
    let _ = writeln!(m, "# Alquerque Lab report\n");
    let _ = writeln!(m, "{} games from {} file(s).\n", report.games, report.sources.len());
    let _ = writeln!(m, "| games of | games | White wins | Black wins | draws | White's score (95 % interval) |");
    let _ = writeln!(m, "|---|---|---|---|---|---|");
    let row = |name: &str, g: &Group| format!("| {name} | {} |", group_fields(g)[..5].join(" | "));
    let all = report.overall();
    let _ = writeln!(m, "{}", row("engine", &all));
    let _ = writeln!(m, "{}", row("BrainKing humans", &report.brainking.results));
    if let Some(t) = &report.white_win_rate_vs_brainking {
        let _ = writeln!(
            m,
            "\nWhite's win rate, engine minus humans: {:+.2} points (z = {:.2}, p = {:.3e}).",
            100.0 * t.difference,
            t.z,
            t.p_value
        );
    }
    let _ = writeln!(m, "\nSource of the human figures: {}.\n", report.brainking.source);
    let _ = writeln!(m, "## By pairing\n");
    let _ = writeln!(m, "| # | White | Black | games | White's score (95 % interval) |\n|---|---|---|---|---|");
    for (i, p) in report.pairings.iter().enumerate() {
        let _ = writeln!(
            m,
            "| P{} | {} | {} | {} | {:.4} {} |",
            i + 1,
            p.white,
            p.black,
            p.results.games,
            p.results.white_score,
            interval(p.results.rates.white_score.ci95)
        );
    }
    let _ = writeln!(m, "\n## White's first move\n");
    let _ = writeln!(m, "| move | games | White wins | Black wins | draws | White's score (95 % interval) |\n|---|---|---|---|---|---|");
    for l in &report.first_moves {
        let r = &l.results;
        let _ = writeln!(
            m,
            "| {} | {} | {} | {} | {} | {:.4} {} |",
            l.line,
            r.games,
            r.white_wins,
            r.black_wins,
            r.draws,
            r.white_score,
            interval(r.rates.white_score.ci95)
        );
    }
    let _ = writeln!(m, "\nTerminations: {}.", report.terminations.iter().map(|(k, v)| format!("{k} {v}")).collect::<Vec<_>>().join(", "));
    let _ = writeln!(m, "Average length: {:.1} plies. Opening tree to {} plies: openings.csv.", report.average_plies, report.tree_depth);
    m
}
