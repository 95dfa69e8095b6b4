//! The exact opening atlas in the report: per ply, how many positions of the
//! opening tree are won, drawn or lost, how narrow the holding moves are,
//! and the traps each holding first move sets. Computed by the caller (the
//! oracle's stores, `alq atlas`); this module only carries and renders it.

use std::fmt::Write;

use serde::Serialize;

pub use alq_oracle::atlas::PlyRow as AtlasPly;

/// What the atlas knows of the opening tree.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct AtlasSummary {
    /// Where the values come from, for the reader (e.g. "the shipped
    /// opening atlas").
    pub source: String,
    /// One row per ply, from the start.
    pub plies: Vec<AtlasPly>,
    /// One row per first move that keeps the start's value.
    pub traps: Vec<AtlasTraps>,
}

/// The traps a holding first move sets: of the opponent's judged positions
/// below it, how many have most moves losing value.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct AtlasTraps {
    pub first_move: String,
    pub trapped: usize,
    pub judged: usize,
}

impl AtlasTraps {
    pub fn share(&self) -> Option<f64> {
        (self.judged > 0).then(|| self.trapped as f64 / self.judged as f64)
    }
}

impl AtlasSummary {
    /// The holding first move whose judged opponent positions are most
    /// often traps, when some are judged.
    pub fn most_practical(&self) -> Option<&AtlasTraps> {
        self.traps.iter().filter(|t| t.judged > 0).max_by(|a, b| {
            a.share().unwrap_or(0.0).total_cmp(&b.share().unwrap_or(0.0)).then(b.first_move.cmp(&a.first_move))
        })
    }

    /// The positions counted and the exact ones, over every ply.
    fn totals(&self) -> (usize, usize) {
        let positions = self.plies.iter().map(|r| r.positions).sum();
        let exact = self.plies.iter().map(|r| r.white_wins + r.draws + r.black_wins).sum();
        (positions, exact)
    }

    fn intro(&self) -> String {
        let (positions, exact) = self.totals();
        format!(
            "Every distinct position within {} plies of the start, valued by {}: {exact} of {positions} positions \
             exact, the others a one-sided bound or not yet known (never guessed). Decided: the share already won \
             by one side (a floor, marked ≥, where some are not exact). Judged: positions the mover wins or draws whose every move's value is known; keeping: the \
             share of their moves that keep the value; single: how many have one such move only.",
            self.plies.len().saturating_sub(1),
            self.source
        )
    }

    fn practical_sentence(&self) -> String {
        match self.most_practical() {
            Some(t) => format!(
                "Against a fallible opponent the most practical holding first move is {}: in {:.1} % of the \
                 opponent's judged positions below it ({} of {}) most moves lose.",
                t.first_move,
                100.0 * t.share().unwrap_or(0.0),
                t.trapped,
                t.judged
            ),
            None => "No position below a holding first move is judged yet: the traps cannot be compared.".to_string(),
        }
    }
}

fn pct(x: Option<f64>) -> String {
    x.map_or("–".to_string(), |v| format!("{:.1} %", 100.0 * v))
}

fn ply_cells(r: &AtlasPly) -> [String; 11] {
    [
        r.ply.to_string(),
        r.positions.to_string(),
        r.white_wins.to_string(),
        r.draws.to_string(),
        r.black_wins.to_string(),
        r.bounds.to_string(),
        r.unknown.to_string(),
        // Bounds and unknowns may be decided too: then it is a floor.
        format!("{}{}", if r.bounds + r.unknown > 0 { "≥ " } else { "" }, pct(r.decided_share())),
        r.judged.to_string(),
        pct(r.keep_share()),
        r.single_keeper.to_string(),
    ]
}

const PLY_HEAD: [&str; 11] = [
    "ply",
    "positions",
    "won for White",
    "drawn",
    "won for Black",
    "bound",
    "unknown",
    "decided",
    "judged",
    "moves keeping",
    "single keeper",
];

const TRAP_HEAD: [&str; 4] = ["holding first move", "opponent's judged positions", "most moves lose", "share"];

fn trap_cells(t: &AtlasTraps) -> [String; 4] {
    [t.first_move.clone(), t.judged.to_string(), t.trapped.to_string(), pct(t.share())]
}

/// The atlas as a section of the HTML page (`esc` escapes text).
pub(crate) fn html(atlas: &AtlasSummary, esc: impl Fn(&str) -> String) -> String {
    let table = |head: &[&str], rows: Vec<Vec<String>>| {
        let mut t = String::from("<table><tr>");
        for c in head {
            let _ = write!(t, "<th>{c}</th>");
        }
        t += "</tr>";
        for row in rows {
            t += "<tr>";
            for c in row {
                let _ = write!(t, "<td>{}</td>", esc(&c));
            }
            t += "</tr>";
        }
        t + "</table>"
    };
    format!(
        "<h2 id=\"atlas\">The exact opening atlas</h2><p>{}</p>{}<h3>Traps of the holding first moves</h3>{}<p>{}</p>",
        esc(&atlas.intro()),
        table(&PLY_HEAD, atlas.plies.iter().map(|r| ply_cells(r).to_vec()).collect()),
        table(&TRAP_HEAD, atlas.traps.iter().map(|t| trap_cells(t).to_vec()).collect()),
        esc(&atlas.practical_sentence())
    )
}

/// The atlas as a section of the Markdown report.
pub(crate) fn markdown(atlas: &AtlasSummary) -> String {
    let row = |cells: &[String]| format!("| {} |\n", cells.join(" | "));
    let head = |names: &[&str]| format!("| {} |\n|{}\n", names.join(" | "), " ---: |".repeat(names.len()));
    let mut m = format!("## The exact opening atlas\n\n{}\n\n", atlas.intro());
    m += &head(&PLY_HEAD);
    for r in &atlas.plies {
        m += &row(&ply_cells(r));
    }
    m += "\n### Traps of the holding first moves\n\n";
    m += &head(&TRAP_HEAD);
    for t in &atlas.traps {
        m += &row(&trap_cells(t));
    }
    m + "\n" + &atlas.practical_sentence() + "\n\n"
}

#[cfg(test)]
mod tests {
    use super::*;

    fn summary() -> AtlasSummary {
        AtlasSummary {
            source: "a test".into(),
            plies: vec![
                AtlasPly {
                    ply: 0,
                    positions: 1,
                    draws: 1,
                    judged: 1,
                    moves: 4,
                    moves_keeping: 3,
                    ..AtlasPly::default()
                },
                AtlasPly { ply: 1, positions: 4, draws: 3, black_wins: 1, ..AtlasPly::default() },
                AtlasPly {
                    ply: 2,
                    positions: 5,
                    draws: 1,
                    black_wins: 1,
                    bounds: 2,
                    unknown: 1,
                    ..AtlasPly::default()
                },
            ],
            traps: vec![
                AtlasTraps { first_move: "b2-c3".into(), trapped: 1, judged: 4 },
                AtlasTraps { first_move: "c2-c3".into(), trapped: 3, judged: 6 },
                AtlasTraps { first_move: "d3-c3".into(), trapped: 0, judged: 0 },
            ],
        }
    }

    #[test]
    fn the_most_practical_first_move_sets_the_most_traps() {
        let s = summary();
        assert_eq!(s.most_practical().unwrap().first_move, "c2-c3");
        assert_eq!(s.plies[1].decided_share(), Some(0.25));
        assert_eq!(s.plies[0].keep_share(), Some(0.75));
        let md = markdown(&s);
        assert!(md.contains("| 1 | 4 | 0 | 3 | 1 | 0 | 0 | 25.0 % | 0 | – | 0 |"), "{md}");
        assert!(md.contains("| c2-c3 | 6 | 3 | 50.0 % |"), "{md}");
        assert!(md.contains("most practical holding first move is c2-c3: in 50.0 %"), "{md}");
        assert!(md.contains("7 of 10 positions exact"), "{md}");
        assert!(md.contains("| 2 | 5 | 0 | 1 | 1 | 2 | 1 | ≥ 20.0 % |"), "{md}");
        let html = html(&s, |t| t.replace('<', "&lt;"));
        assert!(html.contains("<td>d3-c3</td><td>0</td><td>0</td><td>–</td>"), "{html}");
        let none = AtlasSummary { traps: vec![], ..s };
        assert!(markdown(&none).contains("cannot be compared"));
    }
}
