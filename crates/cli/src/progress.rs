//! Progress bars: one look for every long command. Each bar starts with a
//! spinner and the elapsed time, then what the command counts; `--quiet`
//! hides it (a hidden bar still counts, so callers need no second path).

use indicatif::{MultiProgress, ProgressBar, ProgressStyle};

/// A bar of `len` steps: `{spinner} [{elapsed_precise}] ` then `label`, an
/// indicatif template such as `"{bar:30} {pos}/{len} games, eta {eta}"`.
pub fn bar(quiet: bool, len: u64, label: &str) -> ProgressBar {
    let bar = if quiet { ProgressBar::hidden() } else { ProgressBar::new(len) };
    style(&bar, &format!("{{spinner}} [{{elapsed_precise}}] {label}"));
    bar
}

/// A bar added to `multi` (for commands that show two at once), with its
/// whole template given.
pub fn bar_in(multi: &MultiProgress, quiet: bool, len: u64, template: &str) -> ProgressBar {
    let bar = if quiet { ProgressBar::hidden() } else { multi.add(ProgressBar::new(len)) };
    style(&bar, template);
    bar
}

/// Sets a bar's template (templates are literals of this crate: a bad one is
/// a bug, caught by every test that runs the command).
pub fn style(bar: &ProgressBar, template: &str) {
    bar.set_style(ProgressStyle::with_template(template).expect("progress templates are valid"));
}
