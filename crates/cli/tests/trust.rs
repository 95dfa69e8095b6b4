//! Every path that acts on a certificate checks it first: a planted fault
//! (one entry of a shipped proof dropped) is refused by name, exit 2, by
//! `alq report --proofs`, `alq serve --proofs`, `alq solve --merge`, `alq
//! oracle --read-store` and `alq play` with `perfect@cert=`; `alq solve
//! --check` says what is proven and writes a lean copy; the oracle answers
//! what certificates prove as `proof`, what searches settled as `store`.

use crate::common::{alq, fresh_dir, stdout};

/// A shipped certificate (1,116 entries, `tables 12`; every entry reached
/// from its root).
const SHIPPED: &str = include_str!("../../../data/proofs/b2-c3-black-draws.cert");

/// `SHIPPED` with one entry (not the root's) dropped, the count kept right.
fn broken() -> String {
    let mut lines: Vec<String> = SHIPPED.lines().map(str::to_string).collect();
    let count: usize = lines[5].strip_prefix("entries ").unwrap().parse().unwrap();
    let root = lines[3].split(' ').nth(1).unwrap().to_string();
    let middle = 6 + count / 2;
    lines.remove(if lines[middle].starts_with(&root) { middle + 1 } else { middle });
    lines[5] = format!("entries {}", count - 1);
    lines.join("\n") + "\n"
}

/// Asserts a run failed with exit 2 and named `file` as not holding.
fn refused(out: &std::process::Output, file: &std::path::Path, what: &str) {
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{what}: {err}");
    assert!(err.contains(&file.display().to_string()) && err.contains("does not hold"), "{what}: {err}");
}

/// `alq oracle ARGS` without the shipped proofs, 1 node, the position only:
/// its JSON answer.
fn oracle_json(args: &[&str]) -> serde_json::Value {
    let mut all = vec!["oracle", "--no-shipped", "--no-moves", "--nodes", "1", "--json"];
    all.extend_from_slice(args);
    let out = alq(&all);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn a_broken_certificate_is_refused_wherever_it_is_read() {
    let dir = fresh_dir("trust-broken");
    let proofs = dir.join("proofs");
    std::fs::create_dir_all(&proofs).unwrap();
    let bad = proofs.join("b2-c3-black-draws.cert");
    std::fs::write(&bad, broken()).unwrap();
    let (p, b) = (proofs.to_str().unwrap(), bad.to_str().unwrap());
    let g = dir.to_str().unwrap();
    let made = alq(&["selfplay", "--out", dir.to_str().unwrap(), "--games", "2", "--nodes", "50", "--quiet"]);
    assert!(made.status.success(), "{}", String::from_utf8_lossy(&made.stderr));
    let report = dir.join("report");
    let r = report.to_str().unwrap();
    refused(&alq(&["report", "--games", g, "--proofs", p, "--out", r, "--quiet"]), &bad, "report --proofs");
    refused(&alq(&["serve", "--games", g, "--proofs", p, "--port", "0", "--eval", "none"]), &bad, "serve --proofs");
    let store = dir.join("merged.store");
    refused(&alq(&["solve", "--merge", b, "--store", store.to_str().unwrap()]), &bad, "solve --merge");
    assert!(!store.exists(), "nothing written");
    refused(&alq(&["oracle", "--read-store", b, "--no-moves", "--nodes", "10"]), &bad, "oracle --read-store");
    let spec = format!("perfect@cert={b}");
    let out = alq(&["match", "--a", &spec, "--b", "random", "--games", "2"]);
    refused(&out, &bad, "perfect@cert=");
    // The sound file passes each (crates/cli/tests/cli.rs shows the
    // report's statements saying the leaves were not probed).
    std::fs::write(&bad, SHIPPED).unwrap();
    let out = alq(&["report", "--games", g, "--proofs", p, "--out", r, "--quiet"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let out = alq(&["solve", "--merge", b, "--store", store.to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stderr).contains("table leaves not probed"));
}

#[test]
fn check_says_what_is_proven_and_writes_a_lean_copy() {
    let dir = fresh_dir("trust-lean");
    let file = dir.join("proof.cert");
    let f = file.to_str().unwrap();
    let pos = "...../..B../...../.W.W./..... w";
    let out = alq(&["solve", "--position", pos, "--goal", "white-wins", "--certificate", f, "--quiet"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = std::fs::read_to_string(&file).unwrap();
    // Plant an entry the root never reaches and that holds on its own: an
    // `end` leaf where Black, to move, has no piece (the proof from two
    // White pieces never has three).
    let lines: Vec<&str> = text.lines().collect();
    let count: usize = lines[5].strip_prefix("entries ").unwrap().parse().unwrap();
    let stuck: alq_engine::Position = "WWW../...../...../...../..... b".parse().unwrap();
    assert!(stuck.is_lost_in(alq_engine::RuleSet::BrainKing));
    let extra = format!("{:016x} b 0 end", stuck.key());
    let mut entries: Vec<String> = lines[6..6 + count].iter().map(|l| l.to_string()).collect();
    entries.push(extra);
    entries.sort();
    let mut fat: Vec<String> = lines[..5].iter().map(|l| l.to_string()).collect();
    fat.push(format!("entries {}", count + 1));
    fat.extend(entries);
    fat.push("end".into());
    std::fs::write(&file, fat.join("\n") + "\n").unwrap();
    let lean = dir.join("lean.cert.gz");
    let out = alq(&["solve", "--check", f, "--out", lean.to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let said = stdout(&out);
    assert!(said.contains("rules brainking\n"), "{said}");
    assert!(
        said.contains(&format!("root {:016x} {pos}\n", pos.parse::<alq_engine::Position>().unwrap().key())),
        "{said}"
    );
    assert!(said.contains("goal white-wins\n") && said.contains("tables none"), "{said}");
    assert!(
        said.contains(&format!("checked {} entries", count + 1)) && said.contains("1 not reached from the root"),
        "{said}"
    );
    assert!(said.contains(&format!("({count} entries, only those the root reaches)")), "{said}");
    let out = alq(&["solve", "--check", lean.to_str().unwrap()]);
    assert!(stdout(&out).contains("0 not reached from the root"), "{}", stdout(&out));
    // Without tables, a certificate with table leaves is not called proven.
    let shipped = dir.join("shipped.cert");
    std::fs::write(&shipped, SHIPPED).unwrap();
    let out = alq(&["solve", "--check", shipped.to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let last = stdout(&out).lines().last().unwrap_or("").to_string();
    assert!(last.starts_with("checked black-draws except its ") && last.contains("≤ 12 tables"), "{last}");
    // Given to the oracle, a checked certificate without table leaves
    // answers as `proof`; as the user's (written) store it is refused.
    let lean_path = lean.to_str().unwrap();
    let json = oracle_json(&["--position", pos, "--read-store", lean_path]);
    assert_eq!((json["value"].as_str(), json["source"].as_str()), (Some("win"), Some("proof")), "{json}");
    let out = alq(&["oracle", "--position", pos, "--store", lean_path, "--no-moves", "--nodes", "1"]);
    assert_eq!(out.status.code(), Some(2), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stderr).contains("a certificate, not a store"));
    // A certificate with table leaves but no tables to probe them: `store`.
    let json = oracle_json(&["--moves", "b2-c3", "--read-store", shipped.to_str().unwrap()]);
    assert_eq!(json["source"].as_str(), Some("store"), "{json}");
    // --out alone is refused.
    let out = alq(&["solve", "--position", pos, "--goal", "white-wins", "--out", f]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn the_oracle_tells_proof_from_store() {
    // The start: both sides' draws are proven by shipped certificates.
    let out = alq(&["oracle", "--json", "--no-moves", "--nodes", "10"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!((json["value"].as_str(), json["source"].as_str()), (Some("draw"), Some("proof")), "{json}");
    // A win of the ply-6 opening tree's searches, now certified by the
    // atlas's certificates (plies 0-6).
    let out = alq(&["oracle", "--moves", "d3-c3 b3xd3 e3xc3 a3-b3", "--json", "--no-moves", "--nodes", "10"]);
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!((json["value"].as_str(), json["source"].as_str()), (Some("win"), Some("proof")), "{json}");
    // A win of ply 7: the atlas's searches, no certificate behind it.
    let out =
        alq(&["oracle", "--position", "BBBBB/.BB.B/...WW/BWWWW/BW.WW b", "--json", "--no-moves", "--nodes", "10"]);
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!((json["value"].as_str(), json["source"].as_str()), (Some("win"), Some("store")), "{json}");
}
