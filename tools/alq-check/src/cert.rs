//! The certificate reader and checker.
//!
//! A certificate proves a *goal* (`white-wins`, `white-draws`, `black-wins`, `black-draws`) from its root: the
//! goal's side is the *prover*. Every entry is one position with one of
//! - `move M`: the prover is to move, M is legal and leads to an entry;
//! - `all`: the opponent is to move, has a move, and every move leads to an entry;
//! - `table V`: at most K pieces (`tables K`), the table value is V, and V meets the goal;
//! - `end`: the side to move has no legal move (it lost): it must be the opponent.
//!
//! Why this proves the goal: from the root, the prover follows the `move` entries; whatever the opponent plays
//! stays among entries (`all`) until a leaf, and every leaf meets the goal. For a draw goal, play that never leaves
//! the entries is infinite, a draw. For a win goal every move/all step goes to a strictly smaller rank, so play
//! reaches a leaf.

use std::collections::{BTreeSet, HashMap};
use std::io::Read;
use std::path::Path;

use crate::counted::{is_progress, Counted};
use crate::{for_each_path, legal_moves_in, Move, Pos, Rules, Tables, Wdl};

/// Returns `Err(error)` unless `cond` holds.
macro_rules! ensure {
    ($cond:expr, $error:expr) => {
        if !$cond {
            return Err($error.into());
        }
    };
}

const MAGIC: &str = "alquerque-certificate 1";

/// The most pieces of tables this checker builds (in memory, one byte a position: ≤ 10 pieces is about 5 G).
pub const MAX_TABLES: usize = 10;

/// The first thing wrong with a certificate, by line (when there is one).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fault {
    pub line: Option<usize>,
    pub problem: String,
}

impl std::fmt::Display for Fault {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let line = self.line.map_or(String::new(), |n| format!("line {n}: "));
        write!(f, "{line}{}", self.problem)
    }
}

fn fault(line: usize, problem: impl Into<String>) -> Fault {
    Fault { line: Some(line), problem: problem.into() }
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
    pub rules: Rules,
    pub goal: String,
    /// The prover is Black.
    pub prover_black: bool,
    /// The goal is a win (else at least a draw).
    pub win: bool,
    pub root: Pos,
    pub tables: usize,
    pub entries: Vec<Entry>,
    /// Key → index in `entries`.
    pub by_key: HashMap<u64, usize>,
}

/// What a successful check saw.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Report {
    pub goal: String,
    pub entries: usize,
    pub table_leaves: usize,
    pub end_leaves: usize,
    /// Entries the root does not reach by the strategy (allowed, but dead weight).
    pub unreachable: usize,
}

/// What [`Certificate::no_progress`] measured.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Runs {
    /// The longest run without progress from a reset position (the root, or one a progress move reaches), and
    /// where it starts; `u32::MAX` for a table leaf that is not won (or lost) within the rule.
    pub longest: u32,
    pub worst: Pos,
    /// Reset positions reached from the root, and how many have runs longer than the rule.
    pub resets: usize,
    pub over: usize,
}

/// Reads a certificate file, gzip-compressed or not, as text.
pub fn read_file(path: &Path) -> Result<String, Fault> {
    let fault = |problem: String| Fault { line: None, problem };
    let unreadable = |e: std::io::Error| fault(format!("cannot read {}: {e}", path.display()));
    let bytes = std::fs::read(path).map_err(unreadable)?;
    if !bytes.starts_with(&[0x1f, 0x8b]) {
        return String::from_utf8(bytes).map_err(|_| fault(format!("{} is not text", path.display())));
    }
    let mut text = String::new();
    flate2::read::MultiGzDecoder::new(&bytes[..]).read_to_string(&mut text).map_err(unreadable)?;
    Ok(text)
}

/// Parses and checks a certificate against tables already built.
pub fn check_with(text: &str, tables: &Tables) -> Result<Report, Fault> {
    Certificate::parse(text)?.check(tables)
}

impl Certificate {
    /// Reads the text: the header lines, the entries, `end`.
    pub fn parse(text: &str) -> Result<Certificate, Fault> {
        let mut lines = text.lines().zip(1..);
        let truncated = |what: &str| Fault { line: None, problem: format!("truncated: the file ends before {what}") };
        let mut next = |what: &str| lines.next().ok_or_else(|| truncated(what));
        let (magic, _) = next("the header")?;
        ensure!(magic == MAGIC, fault(1, format!("expected {MAGIC:?}, found {magic:?}")));
        // `name value` header lines.
        let mut field = |name: &str| -> Result<(String, usize), Fault> {
            let (l, n) = next(name)?;
            let value = l.strip_prefix(name).and_then(|r| r.strip_prefix(' '));
            value.map(|v| (v.to_string(), n)).ok_or_else(|| fault(n, format!("expected `{name} …`, found {l:?}")))
        };
        let (name, n) = field("rules")?;
        let rules = [Rules::BrainKing, Rules::Classic].into_iter().find(|r| r.name() == name);
        let rules = rules.ok_or_else(|| fault(n, format!("unknown rules {name:?}")))?;
        let (goal, n) = field("goal")?;
        let goals = ["white-wins", "white-draws", "black-wins", "black-draws"];
        ensure!(goals.contains(&goal.as_str()), fault(n, format!("unknown goal {goal:?}")));
        // The root: its key, then its text, which must be the key's position.
        let (root, n) = field("root")?;
        let (key, root_text) = root.split_once(' ').unwrap_or((&root, ""));
        let root = parse_key(key).map_err(|e| fault(n, e))?;
        let (given, actual) = (root_text.trim(), root.text());
        let problem = format!("the root's text {given:?} is not the position of its key {key} ({actual})");
        ensure!(given == actual, fault(n, problem));
        let (tables, n) = field("tables")?;
        let tables = tables.parse().map_err(|_| fault(n, format!("bad table piece count {tables:?}")))?;
        let (count, n) = field("entries")?;
        let count: usize = count.parse().map_err(|_| fault(n, format!("bad entry count {count:?}")))?;
        let mut entries: Vec<Entry> = Vec::with_capacity(count.min(1 << 20));
        let mut by_key = HashMap::new();
        for _ in 0..count {
            let (l, n) = next(&format!("all {count} entries"))?;
            let e = parse_entry(n, l).map_err(|e| fault(n, format!("{e} in {l:?}")))?;
            if let Some(first) = by_key.insert(e.pos.key(), entries.len()) {
                let first = entries[first].line;
                return Err(fault(n, format!("{}: a second entry (the first is on line {first})", e.pos.text())));
            }
            entries.push(e);
        }
        let (l, n) = next("its `end` line")?;
        ensure!(l == "end", fault(n, format!("expected `end` after {count} entries, found {l:?}")));
        if let Some((l, n)) = lines.find(|(l, _)| !l.trim().is_empty()) {
            return Err(fault(n, format!("text after `end`: {l:?}")));
        }
        ensure!(by_key.contains_key(&root.key()), fault(4, format!("the root {} has no entry", root.text())));
        let (prover_black, win) = (goal.starts_with("black"), goal.ends_with("wins"));
        Ok(Certificate { rules, goal, prover_black, win, root, tables, entries, by_key })
    }

    /// For a win goal, checked before: the runs of plies without progress (no capture, no step towards the far
    /// row) that the opponent can force while the prover keeps to the certificate's moves, up to the first
    /// progress move or the end, table leaves adding their plies to progress under the rule (`counted`, built for
    /// [`Certificate::table_classes`]). The win holds under the rule when no run from a reset position (the root,
    /// where the count is 0, or a position a progress move reaches) is longer than the rule's plies. No position
    /// repeats inside a win certificate (its ranks fall).
    pub fn no_progress(&self, counted: &Counted) -> Result<Runs, Fault> {
        let none = |problem: String| Fault { line: None, problem };
        ensure!(
            self.win,
            none(format!("{}: a draw goal, which the rule (it only adds draws) cannot break", self.goal))
        );
        ensure!(counted.rules == self.rules, none("counted values of other rules".into()));
        let limit = counted.limit as u32;
        let n = self.entries.len();
        let entry_of = |e: &Entry, m: &Move| -> Result<usize, Fault> {
            let child = e.pos.play(m);
            self.by_key
                .get(&child.key())
                .copied()
                .ok_or_else(|| fault(e.line, format!("{} has no entry", child.text())))
        };
        // Children have smaller ranks: by rank, each entry's run from its children's.
        let mut order: Vec<usize> = (0..n).collect();
        order.sort_by_key(|&i| self.entries[i].rank);
        let mut run = vec![0u32; n];
        for i in order {
            let e = &self.entries[i];
            if let Step::Table(_) = e.step {
                let prover_to_move = e.pos.black_to_move == self.prover_black;
                run[i] = match counted.distance(&e.pos) {
                    Some(Ok(d)) if prover_to_move => d,
                    Some(Err(d)) if !prover_to_move => d,
                    _ => u32::MAX,
                };
                continue;
            }
            for m in self.covered(e) {
                let length = if is_progress(&e.pos, &m) { 1 } else { run[entry_of(e, &m)?].saturating_add(1) };
                run[i] = run[i].max(length);
            }
        }
        // The reset positions the root reaches.
        let root = self.by_key[&self.root.key()];
        let (mut seen, mut reset) = (vec![false; n], vec![false; n]);
        (seen[root], reset[root]) = (true, true);
        let mut stack = vec![root];
        while let Some(i) = stack.pop() {
            let e = &self.entries[i];
            for m in self.covered(e) {
                let j = entry_of(e, &m)?;
                reset[j] |= is_progress(&e.pos, &m);
                if !seen[j] {
                    seen[j] = true;
                    stack.push(j);
                }
            }
        }
        let resets: Vec<usize> = (0..n).filter(|&i| reset[i]).collect();
        let worst = resets.iter().copied().max_by_key(|&i| run[i]).unwrap_or(root);
        Ok(Runs {
            longest: run[worst],
            worst: self.entries[worst].pos,
            resets: resets.len(),
            over: resets.iter().filter(|&&i| run[i] > limit).count(),
        })
    }

    /// The moves entry `e` covers: its `move` (the first path of that text), every legal move of an `all` entry,
    /// none at a leaf.
    fn covered(&self, e: &Entry) -> Vec<Move> {
        match &e.step {
            Step::Move(text) => {
                let mut found = Vec::new();
                for_each_path(self.rules, &e.pos, &mut |m| {
                    if found.is_empty() && m.text() == *text {
                        found.push(*m);
                    }
                });
                found
            }
            Step::All => legal_moves_in(self.rules, &e.pos),
            Step::Table(_) | Step::End => Vec::new(),
        }
    }

    /// The classes (White count, Black count) of the table leaves within `tables K`.
    pub fn table_classes(&self) -> BTreeSet<(usize, usize)> {
        let leaves = self.entries.iter().filter(|e| matches!(e.step, Step::Table(_)));
        leaves.map(|e| e.pos.class()).filter(|&(w, b)| w + b <= self.tables).collect()
    }

    /// Refuses a certificate whose tables this checker will not build.
    pub fn within_reach(&self) -> Result<(), Fault> {
        let problem = format!("tables {}: this checker builds tables of at most {MAX_TABLES} pieces", self.tables);
        ensure!(self.tables <= MAX_TABLES, fault(5, problem));
        Ok(())
    }

    /// Checks every entry; `tables` must be of the certificate's rules and hold the classes of
    /// [`Certificate::table_classes`].
    pub fn check(&self, tables: &Tables) -> Result<Report, Fault> {
        let (ours, theirs) = (self.rules.name(), tables.rules.name());
        ensure!(ours == theirs, fault(2, format!("rules {ours}, but the tables given are for {theirs}")));
        for e in &self.entries {
            self.check_entry(e, tables).map_err(|p| fault(e.line, format!("{}: {p}", e.pos.text())))?;
        }
        let count = |leaf: fn(&Step) -> bool| self.entries.iter().filter(|e| leaf(&e.step)).count();
        let (table_leaves, end_leaves) = (count(|s| matches!(s, Step::Table(_))), count(|s| *s == Step::End));
        let unreachable = self.entries.len() - self.reached();
        Ok(Report { goal: self.goal.clone(), entries: self.entries.len(), table_leaves, end_leaves, unreachable })
    }

    /// How many entries the root reaches by the strategy: a `move` entry's move, every move of
    /// an `all` entry (called after every entry is checked, so each move's entry exists).
    fn reached(&self) -> usize {
        let mut seen = vec![false; self.entries.len()];
        let root = self.by_key[&self.root.key()];
        seen[root] = true;
        let mut stack = vec![root];
        let mut count = 1;
        while let Some(i) = stack.pop() {
            let e = &self.entries[i];
            for m in self.covered(e) {
                if let Some(&j) = self.by_key.get(&e.pos.play(&m).key()) {
                    if !seen[j] {
                        seen[j] = true;
                        count += 1;
                        stack.push(j);
                    }
                }
            }
        }
        count
    }

    /// Checks one entry's claim; the problem found, if any.
    fn check_entry(&self, e: &Entry, tables: &Tables) -> Result<(), String> {
        let prover_to_move = e.pos.black_to_move == self.prover_black;
        // A draw strategy may circle (infinite play is a draw): its ranks carry nothing, and are 0.
        ensure!(self.win || e.rank == 0, format!("rank {} in a draw certificate (ranks are 0)", e.rank));
        // The move `text` leads to `child`, which has an entry, of a smaller rank for a win goal.
        let follows = |text: &str, child: Pos| -> Result<(), String> {
            let Some(&j) = self.by_key.get(&child.key()) else {
                return Err(format!("move {text} leads to {}, which has no entry", child.text()));
            };
            let (from, to) = (e.rank, self.entries[j].rank);
            ensure!(
                !self.win || to < from,
                format!("move {text} goes from rank {from} to rank {to} (a win needs falling ranks)")
            );
            Ok(())
        };
        match &e.step {
            Step::Move(text) => {
                ensure!(prover_to_move, "a `move` entry, but the opponent is to move");
                // Any legal path of a legal move is accepted.
                let mut found = None;
                for_each_path(self.rules, &e.pos, &mut |m| found = found.or((m.text() == *text).then_some(*m)));
                let m = found.ok_or_else(|| format!("{text} is not a legal move"))?;
                follows(text, e.pos.play(&m))
            }
            Step::All => {
                ensure!(!prover_to_move, "an `all` entry, but the prover is to move");
                let moves = legal_moves_in(self.rules, &e.pos);
                ensure!(!moves.is_empty(), "an `all` entry without a legal move (an `end` leaf)");
                moves.iter().try_for_each(|m| follows(&m.text(), e.pos.play(m)))
            }
            Step::Table(v) => {
                let (pieces, k) = ((e.pos.white | e.pos.black).count_ones(), self.tables);
                ensure!(pieces as usize <= k, format!("a table leaf of {pieces} pieces, beyond `tables {k}`"));
                let actual = tables.probe(&e.pos).ok_or("a table leaf whose class was not built")?;
                ensure!(actual == *v, format!("the certificate says {}, the tables {}", v.name(), actual.name()));
                // The value for the prover: a win, or a draw for a draw goal.
                let for_prover = if prover_to_move { actual } else { actual.flip() };
                let meets = for_prover == Wdl::Win || (!self.win && for_prover == Wdl::Draw);
                ensure!(meets, format!("a table leaf of value {} does not meet {}", v.name(), self.goal));
                Ok(())
            }
            Step::End => {
                ensure!(legal_moves_in(self.rules, &e.pos).is_empty(), "an `end` leaf with a legal move");
                ensure!(!prover_to_move, format!("the prover has no move here, which does not meet {}", self.goal));
                Ok(())
            }
        }
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
    ensure!(side == if pos.black_to_move { "b" } else { "w" }, format!("side {side:?} does not match the key"));
    let rank = word(2, "rank")?;
    let rank = rank.parse().map_err(|_| format!("bad rank {rank:?}"))?;
    let (step, used) = match word(3, "kind")? {
        "move" => (Step::Move(word(4, "move")?.to_string()), 5),
        "all" => (Step::All, 4),
        "table" => {
            let v = word(4, "value")?;
            let wdl = [Wdl::Win, Wdl::Draw, Wdl::Loss].into_iter().find(|w| w.name() == v);
            (Step::Table(wdl.ok_or_else(|| format!("bad table value {v:?}"))?), 5)
        }
        "end" => (Step::End, 4),
        other => return Err(format!("unknown kind {other:?}")),
    };
    ensure!(words.len() <= used, format!("unexpected {:?}", words[used]));
    Ok(Entry { line, pos, rank, step })
}
