//! Writing a report or a study summary to its folder: the data (JSON, CSV),
//! the plots and the pages, each file atomically. The layers of this crate
//! point one way: the model (collect, statistics, `Report`, `StudySummary`)
//! is rendered (`plots`, `html`: HTML and Markdown) and then written here.

use std::path::Path;

use crate::{html, Report, ReportError, StudySummary};

impl Report {
    /// Writes `summary.json`, `openings.csv`, the SVG plots, `report.html`
    /// and `report.md` into `dir`, each atomically.
    pub fn write(&self, dir: &Path) -> Result<(), ReportError> {
        let put = |name: &str, text: &str| {
            let path = dir.join(name);
            alq_records::write_atomic(&path, text.as_bytes()).map_err(|error| ReportError::Io { path, error })
        };
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
    /// `study.md` into `dir`, each atomically.
    pub fn write(&self, dir: &Path) -> Result<(), ReportError> {
        let put = |name: &str, text: &str| {
            let path = dir.join(name);
            alq_records::write_atomic(&path, text.as_bytes()).map_err(|error| ReportError::Io { path, error })
        };
        put("study.json", &(serde_json::to_string_pretty(self).expect("the study serialises") + "\n"))?;
        put("study.csv", &self.to_csv())?;
        let svg = crate::plots::strength(self).map_err(ReportError::Plot)?;
        put("study.svg", &svg)?;
        put("study.html", &html::study_page(self, &svg))?;
        put("study.md", &html::study_markdown(self))?;
        Ok(())
    }
}
