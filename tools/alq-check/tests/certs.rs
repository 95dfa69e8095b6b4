//! Certificates: hand-made and generated ones that must pass, tampered ones
//! that must fail with the fault named, and the shipped ones read.

use std::collections::{HashMap, VecDeque};
use std::io::Write;

use alq_check::cert::read_file;
use alq_check::{check_with, legal_moves_in, Certificate, Fault, Pos, Report, Rules, Tables, Wdl};

use crate::common::parse;

fn key(text: &str) -> u64 {
    parse(text).unwrap().key()
}

/// A certificate's text from its header values and entry lines.
fn cert(goal: &str, root: &str, tables: usize, entries: &[String]) -> String {
    let mut s = format!("alquerque-certificate 1\nrules brainking\ngoal {goal}\nroot {:016x} {root}\n", key(root));
    s += &format!("tables {tables}\nentries {}\n", entries.len());
    for e in entries {
        s += e;
        s.push('\n');
    }
    s + "end\n"
}

fn entry(pos: &str, rank: u64, step: &str) -> String {
    let p = parse(pos).unwrap();
    format!("{:016x} {} {rank} {step}", p.key(), if p.black_to_move { 'b' } else { 'w' })
}

/// Parses a certificate, builds the tables it needs, checks it.
fn check(text: &str) -> Result<Report, Fault> {
    let cert = Certificate::parse(text)?;
    cert.within_reach()?;
    let classes: Vec<(usize, usize)> = cert.table_classes().into_iter().collect();
    cert.check(&Tables::build_classes(cert.rules, &classes, 2, false).unwrap())
}

fn refused(text: &str, needle: &str) {
    match check(text) {
        Ok(r) => panic!("accepted ({r:?}), wanted a fault with {needle:?}:\n{text}"),
        Err(e) => assert!(e.to_string().contains(needle), "fault {e} does not name {needle:?}"),
    }
}

#[test]
fn hand_made_certificates_pass_and_tampered_ones_fail() {
    // a1 takes b2 (mandatory), and Black has no piece left.
    let root = "...../...../...../.B.../W.... w";
    let after = "...../...../..W../...../..... b";
    let good = cert("white-wins", root, 0, &[entry(root, 1, "move a1xc3"), entry(after, 0, "end")]);
    let r = check(&good).unwrap();
    assert_eq!((r.goal.as_str(), r.entries, r.end_leaves, r.table_leaves), ("white-wins", 2, 1, 0));
    // As a draw goal its ranks must be 0.
    let draw = good.replace("white-wins", "white-draws");
    refused(&draw, "rank 1 in a draw certificate");
    assert!(check(&draw.replace(" 1 move a1xc3", " 0 move a1xc3")).is_ok());
    // The same with a table leaf (1 piece, Black to move: lost).
    let leaf = cert("white-wins", root, 1, &[entry(root, 1, "move a1xc3"), entry(after, 0, "table loss")]);
    assert_eq!(check(&leaf).unwrap().table_leaves, 1);
    // Tampered:
    refused(&good.replace("a1xc3", "a1-a2"), "a1-a2 is not a legal move"); // a capture is mandatory
    refused(&good.replace("a1xc3", "a1xc5"), "not a legal move");
    refused(&good.replace(" 1 move", " 0 move"), "rank"); // ranks must fall for a win
    refused(&good.replace("white-wins", "black-wins"), "opponent is to move");
    refused(&good.replace("move a1xc3", "all"), "prover is to move");
    refused(&leaf.replace("table loss", "table draw"), "the certificate says draw, the tables loss");
    refused(&leaf.replace("tables 1", "tables 0"), "beyond `tables 0`");
    refused(&good.replace("0 end", "0 all"), "without a legal move");
    refused(&good.replace("1 move a1xc3", "1 end"), "an `end` leaf with a legal move");
    // The root's text must be its key's position.
    let start = "BBBBB/BBBBB/BB.WW/WWWWW/WWWWW w";
    refused(&good.replace(root, start), "line 4: the root's text");
    refused(&good.replace("rules brainking", "rules other"), "line 2: unknown rules \"other\"");
    refused(&good.replace("rules brainking", "rules Classic"), "line 2: unknown rules");
    refused(&good.replace("goal white-wins", "goal white-win"), "line 3: unknown goal");
    // Entries: missing, duplicated, miscounted, truncated, damaged.
    let lines: Vec<&str> = good.lines().collect();
    let without = cert("white-wins", root, 0, &[entry(root, 1, "move a1xc3")]);
    refused(&without, "which has no entry");
    let twice =
        cert("white-wins", root, 0, &[entry(root, 1, "move a1xc3"), entry(after, 0, "end"), entry(after, 0, "end")]);
    refused(&twice, "line 9: ...../...../..W../...../..... b: a second entry (the first is on line 8)");
    refused(&good.replace("entries 2", "entries 3"), "line 9: bad key \"end\"");
    refused(&good.replace("entries 2", "entries 1"), "line 8: expected `end` after 1 entries");
    refused(&lines[..lines.len() - 1].join("\n"), "truncated");
    refused(&lines[..5].join("\n"), "truncated");
    refused(&(good.clone() + "more\n"), "text after `end`");
    refused(&good.replace(" w 1 ", " b 1 "), "does not match the key");
    refused(&good.replace(&format!("{:016x}", key(after)), &format!("{:016x}", key(after) | 1 << 52)), "bits above");
    let no_root = cert("white-wins", root, 0, &[entry(after, 0, "end")]);
    refused(&no_root, "has no entry");
}

#[test]
fn certificates_are_checked_under_their_own_rules() {
    let classic = |text: &str| text.replace("rules brainking", "rules classic");
    // d4 takes d3 backward: a classic move only.
    let root = "...../...W./...B./...../..... w";
    let after = "...../...../...../...W./..... b";
    let backward = cert("white-wins", root, 0, &[entry(root, 1, "move d4xd2"), entry(after, 0, "end")]);
    assert_eq!(check(&classic(&backward)).unwrap().goal, "white-wins");
    refused(&backward, "d4xd2 is not a legal move");
    // Black frozen on its last row has no move under BrainKing only.
    let frozen = "W..../...../...../...../B.... b";
    let end = cert("white-wins", frozen, 0, &[entry(frozen, 0, "end")]);
    assert_eq!(check(&end).unwrap().end_leaves, 1);
    refused(&classic(&end), "an `end` leaf with a legal move");
    // Table leaves come from the tables of the certificate's rules: a lone White piece on its last row wins in
    // classic, loses in BrainKing.
    let lone = "W..../...../...../...../..... w";
    let leaf = cert("white-wins", lone, 1, &[entry(lone, 0, "table win")]);
    assert_eq!(check(&classic(&leaf)).unwrap().table_leaves, 1);
    refused(&leaf, "the certificate says win, the tables loss");
    // Tables of the other rules are refused.
    let brainking_tables = Tables::build(1, 2, false).unwrap();
    let classic_tables = Tables::build_classes(Rules::Classic, &Tables::up_to(1), 2, false).unwrap();
    let err = check_with(&classic(&leaf), &brainking_tables).unwrap_err().to_string();
    assert_eq!(err, "line 2: rules classic, but the tables given are for brainking");
    let err = check_with(&leaf, &classic_tables).unwrap_err().to_string();
    assert_eq!(err, "line 2: rules brainking, but the tables given are for classic");
}

/// A certificate of `goal` from `root` made with alq-check's own tables:
/// table leaves of at most `leaf_k` pieces, ranks from the distance to the
/// leaves for a win goal.
fn generate(rules: Rules, root: &Pos, prover_black: bool, win: bool, tables: &Tables, leaf_k: usize) -> String {
    let legal_moves = |p: &Pos| legal_moves_in(rules, p);
    let for_prover = |p: &Pos| {
        let v = tables.probe(p).unwrap();
        if p.black_to_move == prover_black {
            v
        } else {
            v.flip()
        }
    };
    let meets = |p: &Pos| for_prover(p) == Wdl::Win || (!win && for_prover(p) == Wdl::Draw);
    assert!(meets(root));
    let is_leaf = |p: &Pos| (p.white | p.black).count_ones() as usize <= leaf_k || legal_moves(p).is_empty();
    // Every position the prover might need: its good moves, all the opponent's.
    let mut kids: HashMap<u64, Vec<(String, u64)>> = HashMap::new();
    let mut queue = VecDeque::from([*root]);
    while let Some(p) = queue.pop_front() {
        if kids.contains_key(&p.key()) {
            continue;
        }
        let mut v = Vec::new();
        if !is_leaf(&p) {
            for m in legal_moves(&p) {
                let c = p.play(&m);
                if p.black_to_move != prover_black || meets(&c) {
                    v.push((m.text(), c.key()));
                    queue.push_back(c);
                }
            }
        }
        kids.insert(p.key(), v);
    }
    // Ranks: 0 at leaves; else 1 + the best (prover) or worst (opponent) successor.
    let mut rank: HashMap<u64, u64> = kids.iter().filter(|(_, v)| v.is_empty()).map(|(&k, _)| (k, 0)).collect();
    while win && rank.len() < kids.len() {
        let before = rank.len();
        for (&k, v) in &kids {
            let prover = Pos::from_key(k).unwrap().black_to_move == prover_black;
            let known: Vec<u64> = v.iter().filter_map(|(_, c)| rank.get(c).copied()).collect();
            if !rank.contains_key(&k) && ((prover && !known.is_empty()) || known.len() == v.len()) {
                let r = if prover { known.iter().min() } else { known.iter().max() };
                rank.insert(k, 1 + r.unwrap());
            }
        }
        assert!(rank.len() > before, "a win goal without progress");
    }
    // The entries the strategy reaches.
    let mut lines = Vec::new();
    let mut seen = std::collections::HashSet::new();
    let mut queue = VecDeque::from([root.key()]);
    while let Some(k) = queue.pop_front() {
        if !seen.insert(k) {
            continue;
        }
        let p = Pos::from_key(k).unwrap();
        let r = if win { rank[&k] } else { 0 };
        let step = if is_leaf(&p) && !legal_moves(&p).is_empty() {
            format!("table {}", tables.probe(&p).unwrap().name())
        } else if kids[&k].is_empty() {
            "end".to_string()
        } else if p.black_to_move == prover_black {
            let best = kids[&k].iter().find(|(_, c)| !win || rank.get(c).is_some_and(|&x| x < r)).unwrap();
            queue.push_back(best.1);
            format!("move {}", best.0)
        } else {
            queue.extend(kids[&k].iter().map(|(_, c)| *c));
            "all".to_string()
        };
        lines.push(format!("{k:016x} {} {r} {step}", if p.black_to_move { 'b' } else { 'w' }));
    }
    let goal = format!("{}-{}", if prover_black { "black" } else { "white" }, if win { "wins" } else { "draws" });
    let (name, root_text) = (rules.name(), root.text());
    let mut s = format!("alquerque-certificate 1\nrules {name}\ngoal {goal}\nroot {:016x} {root_text}\n", root.key());
    s += &format!("tables {leaf_k}\nentries {}\n{}\nend\n", lines.len(), lines.join("\n"));
    s
}

#[test]
fn generated_certificates_pass_and_tampered_ones_fail() {
    generated(Rules::BrainKing, 15);
}

#[test]
fn generated_classic_certificates_pass_and_tampered_ones_fail() {
    // Fewer: a classic win certificate takes about a second to generate (pieces that step back reach more positions).
    generated(Rules::Classic, 6);
}

/// At least `enough` win and `enough` draw certificates from random 4-piece positions, and tampered copies.
fn generated(rules: Rules, enough: usize) {
    let tables = Tables::build_classes(rules, &Tables::up_to(4), 2, false).unwrap();
    let mut state = 12345u64;
    let mut rnd = |n: u64| {
        state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (state >> 33) % n
    };
    let (mut wins, mut draws, mut tampered) = (0, 0, 0);
    while wins < enough || draws < enough {
        // A random 4-piece position; the goals it meets for either side.
        let mut pos = Pos { white: 0, black: 0, black_to_move: rnd(2) == 1 };
        let nw = 1 + rnd(3);
        while (pos.white | pos.black).count_ones() < 4 {
            let p = 1 << rnd(25);
            if (pos.white | pos.black) & p == 0 {
                if (pos.white.count_ones() as u64) < nw {
                    pos.white |= p
                } else {
                    pos.black |= p
                }
            }
        }
        for prover_black in [false, true] {
            for win in [true, false] {
                let v = tables.probe(&pos).unwrap();
                let v = if pos.black_to_move == prover_black { v } else { v.flip() };
                if v == Wdl::Loss || (win && v == Wdl::Draw) || (!win && v == Wdl::Win) {
                    continue;
                }
                let text = generate(rules, &pos, prover_black, win, &tables, 2);
                let r = check_with(&text, &tables).unwrap_or_else(|e| panic!("{e}\n{text}"));
                if win {
                    wins += 1
                } else {
                    draws += 1
                }
                let lines: Vec<&str> = text.lines().collect();
                let body = |ls: Vec<&str>, n: usize| {
                    let mut v: Vec<String> = ls.iter().map(|s| s.to_string()).collect();
                    v[5] = format!("entries {n}");
                    v.join("\n") + "\n"
                };
                // Drop a non-root entry.
                if r.entries > 1 {
                    let mut ls = lines.clone();
                    let root_key = &lines[3][5..21];
                    let i = (6..6 + r.entries).find(|&i| !ls[i].starts_with(root_key)).unwrap();
                    ls.remove(i);
                    assert!(check_with(&body(ls, r.entries - 1), &tables).is_err());
                    tampered += 1;
                }
                // Change a table value; give a move-entry rank 0 for a win.
                if let Some(l) = lines.iter().find(|l| l.contains(" table ")) {
                    let other = if l.ends_with("draw") {
                        l.replace("draw", "win")
                    } else {
                        l.replace(&l[l.rfind(' ').unwrap()..], " draw")
                    };
                    assert!(check_with(&text.replace(l, &other), &tables).is_err(), "{l} -> {other}");
                    tampered += 1;
                }
                if let Some(l) = lines.iter().find(|l| win && (l.contains(" move ") || l.ends_with(" all"))) {
                    let mut w: Vec<&str> = l.split(' ').collect();
                    w[2] = "0";
                    assert!(check_with(&text.replace(l, &w.join(" ")), &tables)
                        .unwrap_err()
                        .to_string()
                        .contains("rank"));
                    tampered += 1;
                }
                // A prover entry turned into `all`.
                if let Some(l) = lines.iter().find(|l| l.contains(" move ")) {
                    let all = format!("{} all", &l[..l.find(" move ").unwrap()]);
                    assert!(check_with(&text.replace(l, &all), &tables)
                        .unwrap_err()
                        .to_string()
                        .contains("prover is to move"));
                    tampered += 1;
                }
            }
        }
    }
    assert!(tampered > 4 * enough, "{tampered}");
}

#[test]
fn gzip_files_are_read_and_the_shipped_certificates_parse() {
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("alq-check-gzip");
    std::fs::create_dir_all(&dir).unwrap();
    let proofs = concat!(env!("CARGO_MANIFEST_DIR"), "/../../data/proofs");
    let mut n = 0;
    for f in std::fs::read_dir(proofs).unwrap() {
        let path = f.unwrap().path();
        if path.extension().is_none_or(|e| e != "cert") {
            continue;
        }
        let text = read_file(&path).unwrap();
        let cert = Certificate::parse(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert!(cert.tables == 10 || cert.tables == 12, "{}", path.display());
        // Tables beyond 10 pieces are refused before any is built.
        assert_eq!(cert.within_reach().is_err(), cert.tables > 10, "{}", path.display());
        assert!(!cert.table_classes().is_empty() && cert.entries.len() > 1000);
        assert!(cert.table_classes().iter().all(|&(w, b)| w + b <= cert.tables));
        n += 1;
        // Compressed (in two gzip members), it reads the same.
        let gz = dir.join("c.cert.gz");
        let mut bytes = Vec::new();
        let (a, b) = text.split_at(text.len() / 2);
        for part in [a, b] {
            let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
            e.write_all(part.as_bytes()).unwrap();
            bytes.extend(e.finish().unwrap());
        }
        std::fs::write(&gz, &bytes).unwrap();
        assert_eq!(read_file(&gz).unwrap(), text);
        // Its root text replaced by another position's: refused on line 4.
        let root_line = text.lines().nth(3).unwrap();
        let other = format!("{} BBBBB/BBBBB/BB.WW/WWWWW/WWWWW b", &root_line[..21]);
        let err = Certificate::parse(&text.replace(root_line, &other)).unwrap_err();
        assert_eq!(err.line, Some(4), "{err}");
    }
    assert!(n >= 8);
    assert!(read_file(&dir.join("missing.cert")).is_err());
}
