//! The run's last stage: the report (`alq report`) on every generation's
//! games, into `out/report`.

use std::path::{Path, PathBuf};

use crate::config::PipelineConfig;
use crate::error::PipelineError;
use crate::event::{PipelineEvent, Stage};
use crate::files::gen_dir;

/// Reports on the self-play games of every generation, and on the games
/// from the start when the run plays them.
pub(crate) fn write_report(
    config: &PipelineConfig,
    out: &Path,
    on_event: &(impl Fn(PipelineEvent) + Sync),
) -> Result<(), PipelineError> {
    on_event(PipelineEvent::Stage { stage: Stage::Report, total: 0, unit: "games" });
    let mut files: Vec<PathBuf> = (0..=config.generations).map(|g| gen_dir(out, g).join("games.csv")).collect();
    if config.start.games > 0 {
        files.extend((0..=config.generations).map(|g| gen_dir(out, g).join("start").join("games.csv")));
    }
    let collected = alq_report::collect(&files, config.rules, 6, |_| {})?;
    alq_report::Report::new(&collected, &files, &Default::default()).write(&out.join("report"))?;
    Ok(())
}
