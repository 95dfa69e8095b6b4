//! The certificate reader and checker.
//!
//! A certificate proves a *goal* (`white-wins`, `white-draws`, `black-wins`,
//! `black-draws`) from its root: the goal's side is the *prover*. Every
//! entry is one position with one of
//! - `move M`: the prover is to move, M is legal and leads to an entry;
//! - `all`: the opponent is to move, has a move, and every move leads to an entry;
//! - `table V`: at most K pieces (`tables K`), the table value is V, and V
//!   meets the goal;
//! - `end`: the side to move has no legal move (it lost): it must be the opponent.
//!
//! Why this proves the goal: from the root, the prover follows the `move`
//! entries; whatever the opponent plays stays among entries (`all`) until a
//! leaf, and every leaf meets the goal. For a draw goal, play that never
//! leaves the entries is infinite, a draw. For a win goal every move/all
//! step goes to a strictly smaller rank, so play reaches a leaf.

use std::collections::HashMap;
use std::io::Read;
use std::path::Path;

use crate::{all_paths, legal_moves, Pos, Tables, Wdl};

const MAGIC: &str = "alquerque-certificate 1";

/// The first thing wrong with a certificate, by line (when there is one).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fault {
    pub line: Option<usize>,
    pub problem: String,
}

impl std::fmt::Display for Fault {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.line {
            Some(n) => write!(f, "line {n}: {}", self.problem),
            None => write!(f, "{}", self.problem),
        }
    }
}

fn fault<T>(line: usize, problem: impl Into<String>) -> Result<T, Fault> {
    Err(Fault { line: Some(line), problem: problem.into() })
}

/// What an entry claims.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step {
    Move(String),
    All,
    Table(Wdl),
    End,
}

/// One entry and the line it stands on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    pub line: usize,
    pub pos: Pos,
    pub rank: u64,
    pub step: Step,
}

/// A parsed certificate (not yet checked).
#[derive(Clone, Debug)]
pub struct Certificate {
    /// The prover is Black.
    pub prover_black: bool,
    /// The goal is a win (else at least a draw).
    pub win: bool,
    pub root: u64,
    pub tables: usize,
    pub entries: Vec<Entry>,
    /// Key → index in `entries`.
    pub by_key: HashMap<u64, usize>,
}

/// The most pieces of tables this checker builds.
pub const MAX_TABLES: usize = 10;

/// What a successful check saw.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Report {
    pub goal: String,
    /// The root's position text.
    pub root: String,
    pub entries: usize,
    pub table_leaves: usize,
    pub end_leaves: usize,
}

/// Reads a certificate file, gzip-compressed or not, as text.
pub fn read_file(path: &Path) -> Result<String, Fault> {
    let unreadable = |e: std::io::Error| Fault { line: None, problem: format!("cannot read {}: {e}", path.display()) };
    let bytes = std::fs::read(path).map_err(unreadable)?;
    if bytes.starts_with(&[0x1f, 0x8b]) {
        let mut text = String::new();
        flate2::read::MultiGzDecoder::new(&bytes[..]).read_to_string(&mut text).map_err(unreadable)?;
        Ok(text)
    } else {
        String::from_utf8(bytes).map_err(|_| Fault { line: None, problem: format!("{} is not text", path.display()) })
    }
}

impl Certificate {
    /// The goal's name.
    pub fn goal(&self) -> String {
        format!("{}-{}", if self.prover_black { "black" } else { "white" }, if self.win { "wins" } else { "draws" })
    }

    /// Reads the text: the header lines, the entries, `end`.
    pub fn parse(text: &str) -> Result<Certificate, Fault> {
        let mut lines = text.lines().enumerate().map(|(i, l)| (i + 1, l));
        let mut last = 0;
        let mut next = |what: &str| match lines.next() {
            Some((n, l)) => {
                last = n;
                Ok((n, l))
            }
            None => Err(Fault { line: None, problem: format!("truncated: the file ends before {what}") }),
        };
        let (_, magic) = next("the header")?;
        if magic != MAGIC {
            return fault(1, format!("expected {MAGIC:?}, found {magic:?}"));
        }
        // `name value` header lines.
        let mut field = |name: &str| -> Result<(usize, String), Fault> {
            let (n, l) = next(name)?;
            match l.strip_prefix(name).and_then(|r| r.strip_prefix(' ')) {
                Some(v) => Ok((n, v.to_string())),
                None => fault(n, format!("expected `{name} …`, found {l:?}")),
            }
        };
        let (n, rules) = field("rules")?;
        match rules.as_str() {
            "brainking" => {}
            "classic" => return fault(n, "rules classic are not supported by this checker (only brainking)"),
            _ => return fault(n, format!("unknown rules {rules:?}")),
        }
        let (n, goal) = field("goal")?;
        let (prover_black, win) = match goal.as_str() {
            "white-wins" => (false, true),
            "white-draws" => (false, false),
            "black-wins" => (true, true),
            "black-draws" => (true, false),
            _ => return fault(n, format!("unknown goal {goal:?}")),
        };
        // The root: its key, then its text, which must be the key's position.
        let (n, root) = field("root")?;
        let (key, root_text) = root.split_once(' ').unwrap_or((&root, ""));
        let root_pos = parse_key(key).or_else(|e| fault(n, e))?;
        if root_text.trim() != root_pos.text() {
            return fault(
                n,
                format!(
                    "the root's text {:?} is not the position of its key {key} ({})",
                    root_text.trim(),
                    root_pos.text()
                ),
            );
        }
        let (n, tables) = field("tables")?;
        let tables: usize = tables.parse().or_else(|_| fault(n, format!("bad table piece count {tables:?}")))?;

        let (n, count) = field("entries")?;
        let count: usize = count.parse().or_else(|_| fault(n, format!("bad entry count {count:?}")))?;
        let mut entries = Vec::with_capacity(count.min(1 << 20));
        let mut by_key = HashMap::new();
        for _ in 0..count {
            let (n, l) = next(&format!("all {count} entries"))?;
            let entry = parse_entry(n, l).or_else(|e| fault(n, format!("{e} in {l:?}")))?;
            if let Some(&first) = by_key.get(&entry.pos.key()) {
                let first: &Entry = &entries[first];
                return fault(n, format!("{}: a second entry (the first is on line {})", entry.pos.text(), first.line));
            }
            by_key.insert(entry.pos.key(), entries.len());
            entries.push(entry);
        }
        let (n, l) = next("its `end` line")?;
        if l != "end" {
            return fault(n, format!("expected `end` after {count} entries, found {l:?}"));
        }
        if let Some((n, l)) = lines.find(|(_, l)| !l.trim().is_empty()) {
            return fault(n, format!("text after `end`: {l:?}"));
        }
        if !by_key.contains_key(&root_pos.key()) {
            return fault(4, format!("the root {} has no entry", root_pos.text()));
        }
        Ok(Certificate { prover_black, win, root: root_pos.key(), tables, entries, by_key })
    }

    /// The classes (White count, Black count) of the table leaves within `tables K`.
    pub fn table_classes(&self) -> Vec<(usize, usize)> {
        let mut out: Vec<(usize, usize)> = self
            .entries
            .iter()
            .filter(|e| matches!(e.step, Step::Table(_)))
            .map(|e| (e.pos.white.count_ones() as usize, e.pos.black.count_ones() as usize))
            .filter(|&(w, b)| w + b <= self.tables)
            .collect();
        out.sort();
        out.dedup();
        out
    }

    /// Refuses a certificate whose tables this checker will not build: they
    /// are built in memory, one byte a position (≤ 10 pieces is about 5 G
    /// positions).
    pub fn within_reach(&self) -> Result<(), Fault> {
        if self.tables > MAX_TABLES {
            return fault(
                5,
                format!("tables {}: this checker builds tables of at most {MAX_TABLES} pieces", self.tables),
            );
        }
        Ok(())
    }

    /// Whether value `v` for the side to move of `pos` meets the goal.
    fn meets(&self, pos: &Pos, v: Wdl) -> bool {
        let for_prover = if pos.black_to_move == self.prover_black { v } else { v.flip() };
        for_prover == Wdl::Win || (!self.win && for_prover == Wdl::Draw)
    }

    /// A move/all step from `e` to `child`: the child has an entry, of a
    /// smaller rank for a win goal.
    fn follows(&self, e: &Entry, text: &str, child: &Pos) -> Result<(), Fault> {
        let Some(&j) = self.by_key.get(&child.key()) else {
            return fault(
                e.line,
                format!("{}: move {text} leads to {}, which has no entry", e.pos.text(), child.text()),
            );
        };
        let rank = self.entries[j].rank;
        if self.win && rank >= e.rank {
            let problem = format!(
                "{}: move {text} goes from rank {} to rank {rank} (a win needs falling ranks)",
                e.pos.text(),
                e.rank
            );
            return fault(e.line, problem);
        }
        Ok(())
    }

    /// Checks every entry; `tables` must hold the classes of [`Certificate::table_classes`].
    pub fn check(&self, tables: &Tables) -> Result<Report, Fault> {
        let mut report = Report {
            goal: self.goal(),
            root: Pos::from_key(self.root).map(|p| p.text()).unwrap_or_default(),
            entries: self.entries.len(),
            table_leaves: 0,
            end_leaves: 0,
        };
        for e in &self.entries {
            let at = |problem: String| fault(e.line, format!("{}: {problem}", e.pos.text()));
            let prover_to_move = e.pos.black_to_move == self.prover_black;
            match &e.step {
                Step::Move(text) => {
                    if !prover_to_move {
                        return at("a `move` entry, but the opponent is to move".into());
                    }
                    // Any legal path of a legal move is accepted.
                    let Some(m) = all_paths(&e.pos).into_iter().find(|m| m.text() == *text) else {
                        return at(format!("{text} is not a legal move"));
                    };
                    self.follows(e, text, &e.pos.play(&m))?;
                }
                Step::All => {
                    if prover_to_move {
                        return at("an `all` entry, but the prover is to move".into());
                    }
                    let moves = legal_moves(&e.pos);
                    if moves.is_empty() {
                        return at("an `all` entry without a legal move (an `end` leaf)".into());
                    }
                    for m in &moves {
                        self.follows(e, &m.text(), &e.pos.play(m))?;
                    }
                }
                Step::Table(v) => {
                    let pieces = (e.pos.white | e.pos.black).count_ones() as usize;
                    if pieces > self.tables {
                        return at(format!("a table leaf of {pieces} pieces, beyond `tables {}`", self.tables));
                    }
                    let Some(actual) = tables.probe(e.pos.key()) else {
                        return at("a table leaf whose class was not built".into());
                    };
                    if actual != *v {
                        return at(format!("the certificate says {}, the tables {}", v.name(), actual.name()));
                    }
                    if !self.meets(&e.pos, *v) {
                        return at(format!("a table leaf of value {} does not meet {}", v.name(), self.goal()));
                    }
                    report.table_leaves += 1;
                }
                Step::End => {
                    if !all_paths(&e.pos).is_empty() {
                        return at("an `end` leaf with a legal move".into());
                    }
                    if prover_to_move {
                        return at(format!("the prover has no move here, which does not meet {}", self.goal()));
                    }
                    report.end_leaves += 1;
                }
            }
        }
        Ok(report)
    }
}

/// A key in hex: a valid position.
fn parse_key(key: &str) -> Result<Pos, String> {
    let k = u64::from_str_radix(key, 16).map_err(|_| format!("bad key {key:?}"))?;
    Pos::from_key(k)
}

/// `KEY SIDE RANK KIND [ARG]`.
fn parse_entry(line: usize, text: &str) -> Result<Entry, String> {
    let words: Vec<&str> = text.split_whitespace().collect();
    let word = |i: usize, what: &str| words.get(i).copied().ok_or_else(|| format!("missing {what}"));
    let pos = parse_key(word(0, "key")?)?;
    let side = word(1, "side to move")?;
    if side != if pos.black_to_move { "b" } else { "w" } {
        return Err(format!("side {side:?} does not match the key"));
    }
    let rank = word(2, "rank")?;
    let rank: u64 = rank.parse().map_err(|_| format!("bad rank {rank:?}"))?;
    let (step, used) = match word(3, "kind")? {
        "move" => (Step::Move(word(4, "move")?.to_string()), 5),
        "all" => (Step::All, 4),
        "table" => {
            let v = match word(4, "value")? {
                "win" => Wdl::Win,
                "draw" => Wdl::Draw,
                "loss" => Wdl::Loss,
                other => return Err(format!("bad table value {other:?}")),
            };
            (Step::Table(v), 5)
        }
        "end" => (Step::End, 4),
        other => return Err(format!("unknown kind {other:?}")),
    };
    if let Some(extra) = words.get(used) {
        return Err(format!("unexpected {extra:?}"));
    }
    Ok(Entry { line, pos, rank, step })
}

/// Parses and checks a certificate against tables already built.
pub fn check_with(text: &str, tables: &Tables) -> Result<Report, Fault> {
    Certificate::parse(text)?.check(tables)
}

/// Parses a certificate, builds the tables it needs (all cores), checks it.
pub fn check(text: &str) -> Result<Report, Fault> {
    let cert = Certificate::parse(text)?;
    cert.within_reach()?;
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let tables = Tables::build_classes(&cert.table_classes(), threads, false)
        .map_err(|problem| Fault { line: None, problem })?;
    cert.check(&tables)
}
