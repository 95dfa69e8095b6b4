//! The `alq-check` binary: output and exit status.

use std::io::Write;
use std::process::Command;

fn run(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_alq-check")).args(args).output().unwrap();
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    (out.status.code().unwrap(), text(&out.stdout), text(&out.stderr))
}

#[test]
fn proven_certificates_exit_0_and_faults_exit_2() {
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("alq-check-binary");
    std::fs::create_dir_all(&dir).unwrap();
    // a1 takes b2 and Black has nothing left; the leaf from the 1-piece table.
    let good = "alquerque-certificate 1\nrules brainking\ngoal white-wins\n\
        root 0000000080000001 ...../...../...../.B.../W.... w\ntables 1\nentries 2\n\
        0000000080000001 w 1 move a1xc3\n0004000000001000 b 0 table loss\nend\n";
    let file = dir.join("good.cert");
    std::fs::write(&file, good).unwrap();
    let gz = dir.join("good.cert.gz");
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    e.write_all(good.as_bytes()).unwrap();
    std::fs::write(&gz, e.finish().unwrap()).unwrap();
    let (code, out, err) = run(&["--threads", "2", file.to_str().unwrap(), gz.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(out.matches("proven white-wins\n").count(), 2, "{out}");
    assert!(out.contains("2 entries (0 not reached from the root), 1 table leaves, 0 end leaves"), "{out}");
    assert!(
        out.contains("good.cert: rules brainking, root ") && out.contains(", goal white-wins, tables 1\n"),
        "{out}"
    );
    assert!(err.contains("class 1+0") && err.contains("built in"), "{err}");
    // A wrong table value: exit 2, the line and position named.
    let bad = dir.join("bad.cert");
    std::fs::write(&bad, good.replace("table loss", "table win")).unwrap();
    let (code, out, err) = run(&[bad.to_str().unwrap()]);
    assert_eq!(code, 2, "{out}");
    assert!(err.contains("line 8: ...../...../..W../...../..... b: the certificate says win"), "{err}");
    // A classic certificate beside a BrainKing one: each checked with tables of its own rules.
    let classic = dir.join("classic.cert");
    std::fs::write(&classic, good.replace("rules brainking", "rules classic")).unwrap();
    let (code, out, err) = run(&[file.to_str().unwrap(), classic.to_str().unwrap()]);
    assert_eq!((code, out.matches("proven white-wins\n").count()), (0, 2), "{out}{err}");
    assert!(err.starts_with("tables: 2 classes") && err.contains("\nclassic tables: 2 classes"), "{err}");
    // Unknown rules, a missing file, bad arguments.
    std::fs::write(&bad, good.replace("rules brainking", "rules other")).unwrap();
    let (code, _, err) = run(&[bad.to_str().unwrap()]);
    assert!(code == 2 && err.contains("line 2: unknown rules \"other\""), "{err}");
    assert_eq!(run(&[dir.join("none.cert").to_str().unwrap()]).0, 2);
    assert_eq!(run(&[]).0, 2);
    assert_eq!(run(&["--threads"]).0, 2);
    assert_eq!(run(&["--bogus", file.to_str().unwrap()]).0, 2);
    // Under the no-progress rule: the capture is progress, so the longest run is that one ply.
    let (code, out, err) = run(&["--no-progress", file.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains("longest run without progress 1 plies from ...../...../...../.B.../W.... w (2 reset positions)"),
        "{out}"
    );
    assert!(out.contains("no-progress rule 60: holds\n"), "{out}");
    // Only building tables.
    let (code, out, _) = run(&["--build-tables", "2"]);
    assert_eq!((code, out.as_str()), (0, "built tables of up to 2 pieces: 2502 positions\n"));
}
