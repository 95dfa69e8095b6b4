//! The report as one self-contained HTML page and as Markdown text.

use std::fmt::Write;

use crate::study::FirstMoveRow;
use crate::{Group, Line, Report, StudySummary, TableSummary};

fn esc(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

/// A player's name (`nn:75069d390240bd9e@nodes=1000`) escaped, with line
/// breaks allowed before `@` and after `,` only, never inside a token.
fn esc_name(text: &str) -> String {
    esc(text).replace('@', "<wbr>@").replace(',', ",<wbr>")
}

/// A first move, linked to the explorer's page for it when the report has
/// an explorer address.
fn move_link(report: &Report, mv: &str) -> String {
    match &report.explorer {
        Some(url) => format!("<a href=\"{}?moves={}\">{}</a>", esc(url), esc(mv), esc(mv)),
        None => esc(mv),
    }
}

fn pct(x: f64) -> String {
    format!("{:.2} %", 100.0 * x)
}

/// A score's interval, on the score's own scale (0 to 1).
fn interval(ci: [f64; 2]) -> String {
    format!("[{:.4}, {:.4}]", ci[0], ci[1])
}

/// The cells of a group's row: games, White wins, Black wins, draws,
/// unfinished (each with its rate), White's score with its interval,
/// average length.
fn group_fields(g: &Group) -> [String; 7] {
    [
        g.games.to_string(),
        format!("{} ({})", g.white_wins, pct(g.rates.white_win.rate)),
        format!("{} ({})", g.black_wins, pct(g.rates.black_win.rate)),
        format!("{} ({})", g.draws, pct(g.rates.draw.rate)),
        g.unfinished.to_string(),
        format!("{:.4} {}", g.white_score, interval(g.rates.white_score.ci95)),
        // The human reference has no game lengths.
        if g.average_plies > 0.0 { format!("{:.1}", g.average_plies) } else { "–".to_string() },
    ]
}

fn group_cells(g: &Group) -> String {
    group_fields(g).iter().map(|f| format!("<td>{f}</td>")).collect()
}

const GROUP_HEAD: &str = "<th>games</th><th>White wins</th><th>Black wins</th><th>draws</th><th>unfinished</th>\
    <th>White's score, 95 % interval</th><th>avg plies</th>";

const STYLE: &str = "body{font-family:sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;color:#222}\
table{border-collapse:collapse;margin:1em 0;font-size:90%}\
td,th{border:1px solid #ccc;padding:3px 6px;text-align:right;white-space:nowrap}\
td:first-child,th:first-child{text-align:left}th{background:#f3f3f3;white-space:normal}\
details{margin-left:1.2em}summary{cursor:pointer;font-family:monospace;white-space:pre}\
.leaf{margin-left:2.4em;font-family:monospace;white-space:pre}.note{color:#555;font-size:90%}\
figure{margin:1em 0}.headline{font-size:120%;background:#eef4fb;border-left:4px solid #36c;padding:.6em 1em}\
td.wrap{white-space:normal;min-width:8em;max-width:16em}td.wrap,th.wrap{text-align:left}";

/// A node's label: its own moves (the choice, then any forced plies in
/// brackets) and its results.
fn tree_label(l: &Line, parent_plies: usize) -> String {
    let r = &l.results;
    let own: Vec<&str> = l.line.split(' ').skip(parent_plies).collect();
    let moves = match own.split_first() {
        Some((choice, [])) => choice.to_string(),
        Some((choice, forced)) => format!("{choice} [forced: {}]", forced.join(" ")),
        None => String::new(),
    };
    let exact = l.exact_value.as_ref().map(|v| format!(", exact: {v}")).unwrap_or_default();
    format!(
        "{moves:<12} {:>7} games  W {:>6}  B {:>6}  D {:>6}  White's score {:.3} [{:.3}, {:.3}]{exact}",
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
    fn render(lines: &[Line], i: &mut usize, depth: usize, parent_plies: usize, out: &mut String) {
        while *i < lines.len() && lines[*i].decisions == depth {
            let l = &lines[*i];
            *i += 1;
            let has_children = *i < lines.len() && lines[*i].decisions == depth + 1;
            if has_children {
                let _ = write!(out, "<details><summary>{}</summary>", esc(&tree_label(l, parent_plies)));
                render(lines, i, depth + 1, l.plies, out);
                out.push_str("</details>");
            } else {
                let _ = write!(out, "<div class=\"leaf\">{}</div>", esc(&tree_label(l, parent_plies)));
            }
        }
    }
    let mut i = 0;
    // Nodes cut short by a game that ended inside a forced run sit where
    // their depth does not follow: skip them rather than stop.
    while i < lines.len() {
        let before = i;
        render(lines, &mut i, 1, 0, &mut out);
        if i == before {
            i += 1;
        }
    }
    out
}

/// The study's table and plot, as a page section.
pub fn study_section(study: &StudySummary, svg: &str) -> String {
    let mut h = String::new();
    h += "<p>Each rung's player plays itself from the standard start; games differ only by choices among near-best \
          moves in their first plies. Rates are over all games (Wilson 95 % intervals); White's score is over the \
          games that ended by the rules, with an interval that handles draws; unfinished games reached the ply cap.</p>";
    let _ = write!(h, "<table><tr><th>rung</th><th class=\"wrap\">player</th>{GROUP_HEAD}<th>distinct games</th><th>best first move</th></tr>");
    for r in &study.rungs {
        let _ = write!(
            h,
            "<tr><td>{}</td><td class=\"wrap\">{}</td>{}<td>{}</td><td>{}</td></tr>",
            r.rung + 1,
            esc_name(&r.player),
            group_cells(&r.results),
            r.distinct_games,
            esc(r.best_first_move.as_deref().unwrap_or("–"))
        );
    }
    let _ = write!(
        h,
        "<tr><td>–</td><td class=\"wrap\">BrainKing humans</td>{}<td>–</td><td>–</td></tr></table>",
        group_cells(&study.brainking)
    );
    let _ = write!(h, "<figure id=\"strength.svg\">{}</figure>", inline_svg(svg));
    let _ = write!(
        h,
        "<p>Exact value of the start position: {}. {}</p>",
        esc(study.exact_start_value.as_deref().unwrap_or("not known (no solver has reached it)")),
        esc(&study.proven_lines_text())
    );
    h
}

/// An SVG document's body, for inlining in a page.
fn inline_svg(svg: &str) -> &str {
    let body = svg.trim_start_matches(|c| c != '<');
    if body.starts_with("<?xml") {
        body.split_once("?>").map_or(body, |(_, b)| b)
    } else {
        body
    }
}

/// Where each graded rung's games were lost, as a page section (empty when
/// no rung was graded).
pub fn errors_section(study: &StudySummary, drawn_svg: Option<&str>) -> String {
    let Some(svg) = drawn_svg else { return String::new() };
    let mut h = String::from(
        "<h2>Where games are lost</h2><p>Every move of the rung's games from the start graded against perfect play (<code>alq study --grade</code>): the first move that threw the exact value away, by side, and the games still drawn by exact value after each ply. A move the oracle could not settle within the budget is unknown, never guessed: games with an unknown move before their first error found may have erred earlier.</p><table><tr><th>rung</th><th class=\"wrap\">player</th><th>games</th><th>White errs first</th> <th>Black errs first</th><th>no error found</th><th>unknown before the first error</th> <th>mean ply of the first error</th><th>errors a game: found / at least</th><th>results W / D / B</th></tr>",
    );
    for r in &study.rungs {
        let Some(e) = &r.errors else { continue };
        let _ = write!(
            h,
            "<tr><td>{}</td><td class=\"wrap\">{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{} / {} / {}</td></tr>",
            r.rung + 1,
            esc_name(&r.player),
            e.games,
            e.white_errs_first,
            e.black_errs_first,
            e.games_without_error,
            e.games_with_unknown_first,
            e.mean_first_error_ply.map_or("–".to_string(), |p| format!("{p:.1}")),
            errors_a_game(e),
            r.results.white_wins,
            r.results.draws,
            r.results.black_wins
        );
    }
    let b = &study.brainking;
    let _ = write!(
        h,
        "<tr><td>–</td><td class=\"wrap\">BrainKing humans</td><td>{}</td><td>–</td><td>–</td><td>–</td><td>–</td><td>–</td><td>–</td><td>{} / {} / {}</td></tr></table>",
        b.games, b.white_wins, b.draws, b.black_wins
    );
    let _ = write!(h, "<figure id=\"errors.svg\">{}</figure>", inline_svg(svg));
    h
}

/// `study.html`: the study on its own page.
pub fn study_page(study: &StudySummary, svg: &str, drawn_svg: Option<&str>) -> String {
    let mut h = String::new();
    let _ = write!(
        h,
        "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>Alquerque Lab: White's advantage by strength</title>\
         <style>{STYLE}</style></head><body><h1>White's first-move advantage by playing strength</h1>\
         <p>Rules: {}.</p>",
        study.rules_text().replace('`', "")
    );
    h += &study_section(study, svg);
    h += &errors_section(study, drawn_svg);
    h += "<h2>First moves by rung</h2><table><tr><th>rung</th><th>first move</th><th>share of games</th>\
          <th>White's score, 95 % interval</th><th>with the move fixed: games</th><th>White's score, 95 % interval</th></tr>";
    for r in &study.rungs {
        for (mv, own, fixed) in r.first_move_table() {
            let score =
                |f: Option<&crate::study::FirstMoveRow>| f.map_or("–".to_string(), |f| f.results.score_text());
            let _ = write!(
                h,
                "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                r.rung + 1,
                esc(mv),
                own.map_or("–".to_string(), |f| pct(f.share)),
                score(own),
                fixed.map_or("–".to_string(), |f| f.results.games.to_string()),
                score(fixed)
            );
        }
    }
    h += "</table>";
    let _ = writeln!(
        h,
        "<p class=\"note\">Source of the human figures: {}.</p></body></html>",
        esc(&study.brainking_source)
    );
    h
}

fn pairing_table(h: &mut String, pairings: &[crate::Pairing], prefix: &str) {
    let _ =
        write!(h, "<table><tr><th>#</th><th class=\"wrap\">White</th><th class=\"wrap\">Black</th>{GROUP_HEAD}</tr>");
    for (i, p) in pairings.iter().enumerate() {
        let _ = write!(
            h,
            "<tr><td>{prefix}{}</td><td class=\"wrap\">{}</td><td class=\"wrap\">{}</td>{}</tr>",
            i + 1,
            esc_name(&p.white),
            esc_name(&p.black),
            group_cells(&p.results)
        );
    }
    h.push_str("</table>");
}

fn terminations(t: &std::collections::BTreeMap<String, u64>) -> String {
    if t.is_empty() {
        return "none".to_string();
    }
    t.iter().map(|(k, v)| format!("{k} {v}")).collect::<Vec<_>>().join(", ")
}

/// The self-contained page: inline SVG plots, no external assets.
pub fn page(report: &Report, plots: &[(&str, String)]) -> String {
    let mut h = String::new();
    let _ = write!(
        h,
        "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>Alquerque Lab report</title>\
         <style>{STYLE}</style></head><body><h1>Alquerque Lab: White's first-move advantage and openings</h1>"
    );
    let _ = write!(h, "<p class=\"headline\">{}</p>", esc(&report.headline));
    let plot = |name: &str| {
        plots
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(n, svg)| format!("<figure id=\"{}\">{}</figure>", esc(n), inline_svg(svg)))
    };
    if let Some(study) = &report.study {
        h += "<h2>White's advantage by playing strength</h2>";
        let svg = plots.iter().find(|(n, _)| *n == "strength.svg").map_or("", |(_, s)| s.as_str());
        h += &study_section(study, svg);
        let drawn = plots.iter().find(|(n, _)| *n == "errors.svg").map(|(_, s)| s.as_str());
        h += &errors_section(study, drawn);
    }
    let fs = &report.from_start;
    let _ = write!(
        h,
        "<h2>Games from the standard start</h2><p>{} games in which the players chose every move from the standard start \
         ({} of them with their first moves drawn among near-best moves by search). Terminations: {}.</p>",
        fs.results.games,
        fs.near_best_games,
        esc(&terminations(&fs.terminations))
    );
    if fs.results.games > 0 {
        pairing_table(&mut h, &fs.pairings, "P");
        h +=
            "<h3>Beside BrainKing's human games</h3><p>What is compared: BrainKing's human games against the engine's \
              games of each pairing above, at the named strength. The difference and its 95 % interval say only how \
              these two sets of games differ.</p>";
        let _ = write!(
            h,
            "<table><tr><th>engine games</th><th>games</th><th>White's score</th><th>humans' White's score</th>\
             <th>difference in White's score, 95 % interval</th><th>difference in White's win rate, 95 % interval</th></tr>"
        );
        for c in &report.human_comparison {
            let _ = write!(
                h,
                "<tr><td class=\"wrap\">{}</td><td>{}</td><td>{:.4}</td><td>{:.4}</td><td>{:+.4} {}</td><td>{:+.4} {}</td></tr>",
                esc_name(&c.engine),
                c.engine_games,
                c.engine_white_score.rate,
                c.human_white_score.rate,
                c.white_score_difference.difference,
                interval(c.white_score_difference.ci95),
                c.white_win_difference.difference,
                interval(c.white_win_difference.ci95)
            );
        }
        h += "</table>";
        let _ = write!(
            h,
            "<table><tr><th>games of</th>{GROUP_HEAD}</tr><tr><td>BrainKing humans</td>{}</tr></table>",
            group_cells(&report.brainking.results)
        );
        let _ = write!(h, "<p class=\"note\">Source: {}.</p>", esc(&report.brainking.source));
        h += "<h3>White's first move, by pairing</h3>";
        let _ =
            write!(h, "<table><tr><th>#</th><th>first move</th><th>share</th>{GROUP_HEAD}<th>exact value</th></tr>");
        for m in &report.first_moves {
            let _ = write!(
                h,
                "<tr><td>P{}</td><td>{}</td><td>{}</td>{}<td>{}</td></tr>",
                report.pairing_number(m),
                move_link(report, &m.first_move),
                pct(m.share),
                group_cells(&m.results),
                esc(m.exact_value.as_deref().unwrap_or("not yet known"))
            );
        }
        h += "</table>";
        if fs.pairings.iter().any(|p| p.tables.is_some()) {
            let _ = write!(
                h,
                "<h3>Endgame tables</h3><p>{TABLES_NOTE}</p><table><tr><th>#</th><th>first move</th><th>entered the tables</th>\
                 <th>entered won for White (ended W, D, B)</th><th>entered drawn</th><th>entered lost for White</th>\
                 <th>White's score with perfect endgames</th></tr>"
            );
            let row = |h: &mut String, n: usize, mv: &str, t: &crate::TableSummary| {
                let _ = write!(
                    h,
                    "<tr><td>P{n}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                    esc(mv),
                    t.entered,
                    esc(&crate::TableSummary::kind_text(&t.entered_won)),
                    esc(&crate::TableSummary::kind_text(&t.entered_drawn)),
                    esc(&crate::TableSummary::kind_text(&t.entered_lost)),
                    esc(&t.perfect.score_text())
                );
            };
            for (i, p) in fs.pairings.iter().enumerate() {
                if let Some(t) = &p.tables {
                    row(&mut h, i + 1, "all", t);
                }
            }
            for f in &report.first_moves {
                if let Some(t) = &f.tables {
                    row(&mut h, report.pairing_number(f), &f.first_move, t);
                }
            }
            h += "</table>";
        }
        for name in ["white_score_by_pairing.svg", "first_moves.svg", "game_length.svg"] {
            h += &plot(name).unwrap_or_default();
        }
    }
    let rd = &report.randomised;
    let _ = write!(
        h,
        "<h2>Games from randomised openings</h2><p>{} games with random, softmax-sampled or book openings, or from other \
         positions ({} of them): training data. Their first moves were not chosen for strength, so they say nothing \
         about White's advantage and are not compared with human games. Terminations: {}.</p>",
        rd.results.games,
        rd.other_starts,
        esc(&terminations(&rd.terminations))
    );
    if rd.results.games > 0 {
        pairing_table(&mut h, &rd.pairings, "R");
    }
    if let Some(atlas) = &report.atlas {
        h += &crate::atlas::html(atlas, esc);
    }
    let kind = if report.tree_games == "from_start" {
        "games from the standard start"
    } else {
        "games from randomised openings (there are no games from the start)"
    };
    let _ = write!(
        h,
        "<h2>Opening tree</h2><p>Of the {kind}, to {} real choices; a ply with a single legal move (a forced capture) is \
         folded into the choice before it and shown in brackets. Click a line to open it. Exact values appear where \
         tablebases or a solver know them.</p>",
        report.tree_depth
    );
    h += &tree_html(report);
    h += "</body></html>\n";
    h
}

/// What the endgame-table rows mean, for both pages.
const TABLES_NOTE: &str = "Games played with endgame tables: how many reached a position the tables cover, by that \
    position's exact value for White, and how those games ended (W, D, B: White wins, draws, Black wins). Once in \
    the tables both players play the tables' best moves, so a game that entered them drawn ends drawn, and one \
    that entered them won ends won unless the no-progress rule draws it first. The last column scores every game by the tables' value where it reached them: White's advantage \
    with perfect endgames.";

const MARKDOWN_HEAD: &str = "| games | White wins | Black wins | draws | unfinished | White's score (95 % interval) |";

/// A group's Markdown cells (games to White's score), closing the row.
fn markdown_row(g: &Group) -> String {
    format!("{} |", group_fields(g)[..6].join(" | "))
}

/// A Markdown table of pairings, numbered with `prefix`.
fn markdown_pairings(m: &mut String, pairings: &[crate::Pairing], prefix: &str) {
    let _ = writeln!(m, "| # | White | Black {MARKDOWN_HEAD}\n|---|---|---|---|---|---|---|---|---|");
    for (i, p) in pairings.iter().enumerate() {
        let _ = writeln!(m, "| {prefix}{} | {} | {} | {}", i + 1, p.white, p.black, markdown_row(&p.results));
    }
}

/// A text summary.
pub fn markdown(report: &Report) -> String {
    let mut m = String::new();
    let _ = writeln!(m, "# Alquerque Lab report\n");
    let _ = writeln!(m, "{}\n", report.headline);
    let _ = writeln!(m, "{} games from {} file(s).\n", report.games, report.sources.len());
    let head = MARKDOWN_HEAD;
    let row = markdown_row;
    if let Some(study) = &report.study {
        let _ = writeln!(m, "## White's advantage by playing strength\n");
        let _ = writeln!(m, "| rung | player {head}\n|---|---|---|---|---|---|---|---|");
        for r in &study.rungs {
            let _ = writeln!(m, "| {} | {} | {}", r.rung + 1, r.player, row(&r.results));
        }
        let _ = writeln!(m);
    }
    let fs = &report.from_start;
    let _ = writeln!(m, "## Games from the standard start\n");
    let _ = writeln!(
        m,
        "{} games in which the players chose every move ({} with near-best sampling of the first moves). Terminations: {}.\n",
        fs.results.games,
        fs.near_best_games,
        terminations(&fs.terminations)
    );
    if fs.results.games > 0 {
        markdown_pairings(&mut m, &fs.pairings, "P");
        let _ = writeln!(m, "| – | BrainKing humans | | {}", row(&report.brainking.results));
        let _ = writeln!(m, "\nBeside BrainKing's human games (engine minus humans, 95 % intervals):\n");
        for c in &report.human_comparison {
            let _ = writeln!(
                m,
                "- {} ({} games): White's score {:+.4} {}, White's win rate {:+.4} {}",
                c.engine,
                c.engine_games,
                c.white_score_difference.difference,
                interval(c.white_score_difference.ci95),
                c.white_win_difference.difference,
                interval(c.white_win_difference.ci95)
            );
        }
        let _ = writeln!(m, "\nSource of the human figures: {}.\n", report.brainking.source);
        let _ = writeln!(
            m,
            "### White's first move, by pairing\n\n| # | move | share {head}\n|---|---|---|---|---|---|---|---|---|"
        );
        for f in &report.first_moves {
            let _ = writeln!(
                m,
                "| P{} | {} | {} | {}",
                report.pairing_number(f),
                f.first_move,
                pct(f.share),
                row(&f.results)
            );
        }
        let _ = writeln!(m);
        if fs.pairings.iter().any(|p| p.tables.is_some()) {
            let _ = writeln!(
                m,
                "### Endgame tables

{TABLES_NOTE}

| # | first move | {} |
|---|---|---|---|---|---|---|",
                crate::TableSummary::MARKDOWN_HEAD
            );
            for (i, p) in fs.pairings.iter().enumerate() {
                if let Some(t) = &p.tables {
                    let _ = writeln!(m, "| P{} | all | {} |", i + 1, t.markdown_cells());
                }
            }
            for f in &report.first_moves {
                if let Some(t) = &f.tables {
                    let _ =
                        writeln!(m, "| P{} | {} | {} |", report.pairing_number(f), f.first_move, t.markdown_cells());
                }
            }
            let _ = writeln!(m);
        }
    }
    let rd = &report.randomised;
    let _ = writeln!(m, "## Games from randomised openings\n");
    let _ = writeln!(
        m,
        "{} games with random, softmax-sampled or book openings or other starts (training data, not compared with humans). Terminations: {}.\n",
        rd.results.games,
        terminations(&rd.terminations)
    );
    if rd.results.games > 0 {
        markdown_pairings(&mut m, &rd.pairings, "R");
        let _ = writeln!(m);
    }
    if let Some(atlas) = &report.atlas {
        m += &crate::atlas::markdown(atlas);
    }
    let _ = writeln!(
        m,
        "Opening tree ({}) to {} real choices, forced plies folded: openings.csv.",
        if report.tree_games == "from_start" {
            "games from the standard start"
        } else {
            "games from randomised openings"
        },
        report.tree_depth
    );
    m
}

/// The study as Markdown.
pub fn study_markdown(study: &StudySummary) -> String {
    let mut m = String::from("# White's first-move advantage by playing strength\n\n");
    m += &format!("Rules: {}.\n\n", study.rules_text());
    m += "Every game from the standard start; each rung's player plays itself. White's score counts a draw as half a \
          point over the games that ended by the rules; games stopped by the ply cap are unfinished and not counted \
          as draws. Rates are over all games, with Wilson 95 % intervals; White's score has an interval that \
          handles draws.\n\n";
    m += "| rung | player | games (distinct) | White wins | draws | Black wins | unfinished | White's score (95 %) | avg plies | best first move |\n";
    m += "|---|---|---|---|---|---|---|---|---|---|\n";
    // White wins, draws, Black wins, each with its rate.
    let results = |g: &Group| {
        let x = &g.rates;
        format!(
            "{} ({:.1} %) | {} ({:.1} %) | {} ({:.1} %)",
            g.white_wins,
            100.0 * x.white_win.rate,
            g.draws,
            100.0 * x.draw.rate,
            g.black_wins,
            100.0 * x.black_win.rate
        )
    };
    for r in &study.rungs {
        let g = &r.results;
        let _ = writeln!(
            m,
            "| {} | {} | {} ({}) | {} | {} | {} | {:.0} | {} |",
            r.rung + 1,
            r.player,
            g.games,
            r.distinct_games,
            results(g),
            g.unfinished,
            g.score_text(),
            g.average_plies,
            r.best_first_move.as_deref().unwrap_or("–")
        );
    }
    let h = &study.brainking;
    let _ = writeln!(m, "| – | BrainKing humans | {} | {} | – | {} | – | – |", h.games, results(h), h.score_text());
    m += "\n## First moves by rung\n\n| rung | first move | share of games | games | White's score (95 %) | with the move fixed: games, White's score (95 %) |\n|---|---|---|---|---|---|\n";
    for r in &study.rungs {
        for (mv, own, fixed) in r.first_move_table() {
            let score = |f: Option<&FirstMoveRow>| f.map_or("–".to_string(), |f| f.results.score_text());
            let _ = writeln!(
                m,
                "| {} | {mv} | {} | {} | {} | {} |",
                r.rung + 1,
                own.map_or("–".to_string(), |f| format!("{:.1} %", 100.0 * f.share)),
                own.map_or("–".to_string(), |f| f.results.games.to_string()),
                score(own),
                fixed.map_or("–".to_string(), |f| format!("{} games, {}", f.results.games, f.results.score_text()))
            );
        }
    }
    if study.rungs.iter().any(|r| r.tables.is_some()) {
        let _ = writeln!(
            m,
            "\n## Endgame tables\n\nThe games were played with endgame tables: once a game reached them, both players \
             played the tables' best moves. Per rung and first move (`all`: every game from the start; `fixed`: games \
             with the move fixed), how many games reached the tables, by the exact value for White where they did, how \
             those games ended (W, D, B), and White's score had every endgame been played perfectly.\n\n| rung | first \
             move | {} |\n|---|---|---|---|---|---|---|",
            TableSummary::MARKDOWN_HEAD
        );
        for r in &study.rungs {
            if let Some(t) = &r.tables {
                let _ = writeln!(m, "| {} | all | {} |", r.rung + 1, t.markdown_cells());
            }
            for f in &r.first_moves {
                if let Some(t) = &f.tables {
                    let _ = writeln!(m, "| {} | {} | {} |", r.rung + 1, f.first_move, t.markdown_cells());
                }
            }
            for f in &r.from_first_move {
                if let Some(t) = &f.tables {
                    let _ = writeln!(m, "| {} | {} fixed | {} |", r.rung + 1, f.first_move, t.markdown_cells());
                }
            }
        }
    }
    let _ = writeln!(
        m,
        "\nExact value of the start position: {}. {}\n\nSource of the human figures: {}.",
        study.exact_start_value.as_deref().unwrap_or("not known (no solver has reached it)"),
        study.proven_lines_text(),
        study.brainking_source
    );
    if study.rungs.iter().any(|r| r.errors.is_some()) {
        m += "\n## Where games are lost\n\nEvery move of each rung's games from the start graded against perfect play \
              (`alq study --grade`); unknown moves are never guessed, so a game with one before its first error \
              found may have erred earlier. The share still drawn after each ply is in `errors.svg`.\n\n\
              | rung | player | games | White errs first | Black errs first | no error found | unknown before the first error | mean ply of the first error | errors a game: found / at least |\n\
              |---|---|---|---|---|---|---|---|---|\n";
        for r in &study.rungs {
            let Some(e) = &r.errors else { continue };
            let _ = writeln!(
                m,
                "| {} | {} | {} | {} | {} | {} | {} | {} | {} |",
                r.rung + 1,
                r.player,
                e.games,
                e.white_errs_first,
                e.black_errs_first,
                e.games_without_error,
                e.games_with_unknown_first,
                e.mean_first_error_ply.map_or("–".to_string(), |p| format!("{p:.1}")),
                errors_a_game(e)
            );
        }
    }
    m
}

/// `0.27 / 0.35`: a rung's errors a game found and at least, `–` where the
/// grades do not say.
fn errors_a_game(e: &crate::RungErrors) -> String {
    let f = |v: Option<f64>| v.map_or("–".to_string(), |v| format!("{v:.2}"));
    format!("{} / {}", f(e.errors_per_game), f(e.errors_at_least_per_game))
}
