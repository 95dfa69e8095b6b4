//! Writing a report, a study summary or a pipeline summary to its folder:
//! the data (JSON, CSV), the plots and the pages, each file atomically. The
//! layers of this crate point one way: the model (collect, statistics,
//! `Report`, `StudySummary`, `PipelineSummary`) is rendered (`plots`,
//! `html`, `pipeline`: HTML and Markdown) and then written here.

use std::path::Path;

use crate::pipeline::PipelineSummary;
use crate::{html, Report, ReportError, StudySummary};

/// Writes `text` into `dir/name` atomically.
fn put(dir: &Path, name: &str, text: &str) -> Result<(), ReportError> {
    let path = dir.join(name);
    alq_records::write_atomic(&path, text.as_bytes()).map_err(|error| ReportError::Io { path, error })
}

impl Report {
    /// Writes `summary.json`, `openings.csv`, the SVG plots, `report.html`
    /// and `report.md` into `dir`, each atomically.
    pub fn write(&self, dir: &Path) -> Result<(), ReportError> {
        let put = |name: &str, text: &str| put(dir, name, text);
        std::fs::create_dir_all(dir).map_err(|error| ReportError::Io { path: dir.to_path_buf(), error })?;
        let json = serde_json::to_string_pretty(self).expect("the report serialises") + "\n";
        put("summary.json", &json)?;
        put("openings.csv", &self.openings_csv())?;
        let plots = crate::plots::report_plots(self)?;
        for (name, svg) in &plots {
            put(name, svg)?;
        }
        put("report.html", &html::page(self, &plots))?;
        put("report.md", &html::markdown(self))?;
        Ok(())
    }
}

impl StudySummary {
    /// Writes `study.json`, `study.csv`, `study.svg`, `study.html` and
    /// `study.md` into `dir`, each atomically, and `errors.svg` when rungs
    /// were graded.
    pub fn write(&self, dir: &Path) -> Result<(), ReportError> {
        let put = |name: &str, text: &str| put(dir, name, text);
        put("study.json", &(serde_json::to_string_pretty(self).expect("the study serialises") + "\n"))?;
        put("study.csv", &self.to_csv())?;
        let svg = crate::plots::strength(self).map_err(ReportError::Plot)?;
        put("study.svg", &svg)?;
        let drawn = crate::plots::drawn_after(self).map_err(ReportError::Plot)?;
        if let Some(svg) = &drawn {
            put("errors.svg", svg)?;
        }
        put("study.html", &html::study_page(self, &svg, drawn.as_deref()))?;
        put("study.md", &html::study_markdown(self))?;
        Ok(())
    }
}

impl PipelineSummary<'_> {
    /// Writes `summary.md` and, once a candidate has met an anchor,
    /// `elo.svg` into `dir`, each atomically.
    pub fn write(&self, dir: &Path) -> Result<(), ReportError> {
        put(dir, "summary.md", &self.markdown())?;
        if let Some(svg) = self.elo_svg()? {
            put(dir, "elo.svg", &svg)?;
        }
        Ok(())
    }
}
