//! # alq-fs
//!
//! The one way Alquerque Lab writes a file that matters (configs, states,
//! stores, certificates, tables, networks, summaries): the bytes go to a
//! temporary file beside the target, are synced to disk, and the temporary
//! file is renamed over the target. A reader sees the old file or the new
//! one, never a part; a write that fails (or a process killed mid-write)
//! leaves the old file as it was.
//!
//! Temporary files are named `.NAME.tmp.PID.N` (`N` counts the writes of
//! this process, so threads writing the same file do not share one). A write
//! that fails removes its temporary file; one killed before the rename leaves
//! it behind, and [`is_temporary`] recognises such leftovers for clean-up.
//!
//! ```
//! let dir = std::env::temp_dir().join(format!("alq-fs-doc-{}", std::process::id()));
//! let path = dir.join("config.toml");
//! alq_fs::write_atomic(&path, b"seed = 1\n").unwrap();
//! assert_eq!(std::fs::read(&path).unwrap(), b"seed = 1\n");
//! # std::fs::remove_dir_all(&dir).unwrap();
//! ```

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

static WRITES: AtomicU64 = AtomicU64::new(0);

/// The temporary name a write of `path` uses: `.NAME.tmp.PID.N` in the same
/// folder (so that the rename stays on one file system).
pub fn temporary_path(path: &Path) -> PathBuf {
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "file".to_string());
    let n = WRITES.fetch_add(1, Ordering::Relaxed);
    folder_of(path).join(format!(".{name}.tmp.{}.{n}", std::process::id()))
}

/// Whether a file name is a temporary file of a write of a file whose name
/// contains `stem` (`.NAME.tmp.…`): what a killed write leaves behind.
pub fn is_temporary(file_name: &str, stem: &str) -> bool {
    file_name.starts_with('.') && file_name.contains(".tmp.") && file_name.contains(stem)
}

fn folder_of(path: &Path) -> &Path {
    path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."))
}

/// Writes `bytes` to `path` atomically, creating the folder if needed.
///
/// # Errors
///
/// The I/O error of creating the folder, writing or syncing the temporary
/// file, or renaming it; the file at `path` is then unchanged.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    write_atomic_with(path, |w| w.write_all(bytes))
}

/// Writes to `path` atomically through a buffered writer that `write` fills
/// (for files too large to build in memory first), creating the folder if
/// needed.
///
/// # Errors
///
/// The first error of `write`, or of creating, syncing or renaming the
/// temporary file; the temporary file is removed and the file at `path` is
/// unchanged.
pub fn write_atomic_with<F>(path: &Path, write: F) -> io::Result<()>
where
    F: FnOnce(&mut BufWriter<File>) -> io::Result<()>,
{
    std::fs::create_dir_all(folder_of(path))?;
    let tmp = temporary_path(path);
    let result = (|| {
        let mut out = BufWriter::with_capacity(1 << 20, File::create(&tmp)?);
        write(&mut out)?;
        out.into_inner().map_err(|e| e.into_error())?.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

/// Copies the file `from` to `to` atomically (through a temporary file beside
/// `to`, synced, then renamed), creating `to`'s folder if needed.
///
/// # Errors
///
/// The I/O error of reading `from` or of the atomic write; `to` is then
/// unchanged.
pub fn copy_atomic(from: &Path, to: &Path) -> io::Result<()> {
    let mut source = File::open(from)?;
    write_atomic_with(to, |w| io::copy(&mut source, w).map(|_| ()))
}

/// Swaps the folder `new`, already written in full, in for the folder `dst`:
/// `dst` is renamed to `DST.old`, `new` to `dst`, and `DST.old` is removed
/// (as is one a killed swap left behind). A kill leaves `dst` whole, old or
/// new, except between the two renames, when the old one is at `DST.old`.
///
/// # Errors
///
/// The I/O error of a removal or rename.
pub fn replace_dir(new: &Path, dst: &Path) -> io::Result<()> {
    let mut old = dst.as_os_str().to_owned();
    old.push(".old");
    let old = PathBuf::from(old);
    if old.exists() {
        std::fs::remove_dir_all(&old)?;
    }
    if dst.exists() {
        std::fs::rename(dst, &old)?;
    }
    std::fs::rename(new, dst)?;
    if old.exists() {
        std::fs::remove_dir_all(&old)?;
    }
    Ok(())
}

/// The other way: a file appended to a line at a time (games, logs), which
/// a kill may leave ending in the middle of a line. This cuts such a file
/// back to its last complete line, so the next append starts a line of its
/// own; a missing file is left missing.
///
/// # Errors
///
/// The I/O error of opening, reading or cutting the file.
pub fn truncate_partial_line(path: &Path) -> io::Result<()> {
    use std::io::Read;
    let mut file = match std::fs::OpenOptions::new().read(true).write(true).open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(e),
    };
    let mut text = Vec::new();
    file.read_to_end(&mut text)?;
    if text.last().is_some_and(|&b| b != b'\n') {
        let keep = text.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
        file.set_len(keep as u64)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("alq-fs-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        dir
    }

    #[test]
    fn a_partial_last_line_is_cut_and_a_whole_file_kept() {
        let dir = scratch("partial");
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("log.txt");
        truncate_partial_line(&path).unwrap();
        assert!(!path.exists(), "a missing file stays missing");
        for (before, after) in [("a\nb\n", "a\nb\n"), ("a\nb", "a\n"), ("ab", ""), ("", "")] {
            std::fs::write(&path, before).unwrap();
            truncate_partial_line(&path).unwrap();
            assert_eq!(std::fs::read_to_string(&path).unwrap(), after, "{before:?}");
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    fn entries(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> =
            std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
        names.sort();
        names
    }

    #[test]
    fn a_copy_and_a_folder_swap_replace_whole_and_leave_nothing_else() {
        let dir = scratch("copy-swap");
        let from = dir.join("a.bin");
        write_atomic(&from, b"network").unwrap();
        copy_atomic(&from, &dir.join("b.bin")).unwrap();
        assert_eq!(std::fs::read(dir.join("b.bin")).unwrap(), b"network");
        assert!(copy_atomic(&dir.join("missing"), &dir.join("b.bin")).is_err());
        assert_eq!(std::fs::read(dir.join("b.bin")).unwrap(), b"network", "a failed copy leaves the target");

        let dst = dir.join("ckpt");
        for (round, text) in ["one", "two"].into_iter().enumerate() {
            let new = dir.join("ckpt.tmp");
            write_atomic(&new.join("state"), text.as_bytes()).unwrap();
            if round == 1 {
                // A swap killed between its renames left the previous one.
                write_atomic(&dir.join("ckpt.old").join("state"), b"stale").unwrap();
            }
            replace_dir(&new, &dst).unwrap();
            assert_eq!(std::fs::read(dst.join("state")).unwrap(), text.as_bytes());
        }
        assert_eq!(entries(&dir), ["a.bin", "b.bin", "ckpt"]);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_write_replaces_the_file_and_leaves_nothing_else() {
        let dir = scratch("replace");
        let path = dir.join("sub").join("state.bin");
        write_atomic(&path, b"old").unwrap();
        write_atomic(&path, b"new contents").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"new contents");
        assert_eq!(entries(&dir.join("sub")), ["state.bin"]);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_failed_write_leaves_the_old_file_and_no_temporary() {
        let dir = scratch("fail");
        let path = dir.join("store.bin");
        write_atomic(&path, b"the old store").unwrap();
        let err = write_atomic_with(&path, |w| {
            w.write_all(b"half of a new st")?;
            Err(io::Error::other("disk full"))
        })
        .unwrap_err();
        assert_eq!(err.to_string(), "disk full");
        assert_eq!(std::fs::read(&path).unwrap(), b"the old store");
        assert_eq!(entries(&dir), ["store.bin"]);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_failed_rename_leaves_the_old_file() {
        // The target is a non-empty folder: the rename fails.
        let dir = scratch("rename");
        let path = dir.join("out");
        std::fs::create_dir_all(path.join("inside")).unwrap();
        assert!(write_atomic(&path, b"x").is_err());
        assert!(path.join("inside").is_dir());
        assert_eq!(entries(&dir), ["out"]);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn temporaries_are_distinct_and_recognised() {
        let a = temporary_path(Path::new("tb/4v3.alqtb"));
        let b = temporary_path(Path::new("tb/4v3.alqtb"));
        assert_ne!(a, b);
        assert_eq!(a.parent(), Some(Path::new("tb")));
        let name = a.file_name().unwrap().to_string_lossy();
        assert!(is_temporary(&name, ".alqtb"), "{name}");
        assert!(!is_temporary("4v3.alqtb", ".alqtb"));
        assert!(!is_temporary(&name, ".alqwdl"));
        assert_eq!(temporary_path(Path::new("x")).parent(), Some(Path::new(".")));
    }
}
