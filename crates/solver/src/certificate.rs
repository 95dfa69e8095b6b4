//! Proof certificates of threshold goals: a file that anyone can check with
//! a move generator and (where the proof leans on them) table probes.
//!
//! The format, text, one record a line:
//!
//! ```text
//! alquerque-certificate 1
//! rules brainking
//! goal white-draws
//! root 0000c8a1f2b3d4e5 BBBBB/BBBBB/BB.WW/WWWWW/WWWWW w
//! tables 10
//! entries 3
//! 0000c8a1f2b3d4e5 w 7 move c2-c3
//! 0001000000000001 b 3 all
//! 0000000000000021 w 0 table draw
//! 0004000000000400 b 0 end
//! end
//! ```
//!
//! - `goal`: what the file proves (`white-wins`, `white-draws`, `black-wins`
//!   or `black-draws`). The goal's side is the *prover*, the other side the
//!   *opponent*. `tables K`: leaves may be probed in win/draw/loss tables of
//!   up to K pieces (0: none).
//! - Each entry: the position's packed key in hex (bits 0–24 White's points,
//!   25–49 Black's, bit 50 set when Black is to move; point `a1` is bit 0,
//!   `b1` bit 1, …, `e5` bit 24), the side to move (`w`/`b`, as in the key),
//!   a rank, and one of:
//!   - `move M`: a prover position; the move M (canonical text) is legal and
//!     leads to a position that has an entry;
//!   - `all`: an opponent position with at least one legal move; every legal
//!     move leads to a position that has an entry;
//!   - `table V`: a leaf of at most K pieces whose table value for the side to
//!     move is V (`win`, `draw`, `loss`), and V meets the goal;
//!   - `end`: a leaf where the side to move has no legal move (and so has
//!     lost), and that meets the goal (it is the opponent who is stuck, or,
//!     for a draw goal, either way is fine only if the prover is not stuck).
//! - The root's key has an entry. For a win goal every `move` and `all`
//!   entry's successors have smaller ranks than the entry itself: the
//!   strategy never returns to a position, so it ends in leaves (a cycle
//!   would be infinite play, a draw). For a draw goal ranks are 0 (checked)
//!   and cycles are allowed: infinite play is a draw.
//! - Every entry is reached from the root by the strategy (the `move` of a
//!   prover entry, every move of an `all` one): the writers keep only those
//!   ([`Certificate::lean`]); the checkers count, and accept, any others.
//!
//! Entries are sorted by key; `entries N` gives their number and `end`
//! closes the file, so a truncated file is detected.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::io::{BufRead, Write as _};
use std::path::Path;

use alq_engine::{Move, Position, RuleSet, Side};
use alq_tablebase::{Tablebase, Wdl};

use crate::error::SolveError;
use crate::goal::Goal;

const MAGIC: &str = "alquerque-certificate 1";
/// The first bytes of a gzip file.
const GZIP: [u8; 2] = [0x1f, 0x8b];

/// What an entry says about its position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// The prover plays this move.
    Move(Move),
    /// The opponent to move: every move is covered.
    All,
    /// A table leaf with this value for the side to move.
    Table(Wdl),
    /// The side to move has no legal move.
    End,
}

/// One position of a certificate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entry {
    pub key: u64,
    pub rank: u32,
    pub step: Step,
}

/// Why a certificate's text was refused: the line that is wrong, or where
/// the text ends too early.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CertificateError {
    #[error("line {line}: {problem}")]
    Line { line: usize, problem: String },
    #[error("truncated: the file ends before {before}")]
    Truncated { before: String },
}

/// A proof that `goal` holds from `root`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Certificate {
    pub rules: RuleSet,
    pub goal: Goal,
    pub root: u64,
    /// Table leaves have at most this many pieces (0: no table leaves).
    pub table_pieces: u32,
    pub entries: Vec<Entry>,
}

/// What [`check`] verified.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CheckReport {
    pub entries: usize,
    pub table_leaves: usize,
    pub end_leaves: usize,
    /// Whether the table leaves' values were probed in tables (`false`:
    /// [`check_structure`], which checks everything else).
    pub leaves_probed: bool,
    /// Entries the root does not reach by the strategy (sound, but dead
    /// weight: [`Certificate::lean`] drops them).
    pub unreachable: usize,
}

impl CheckReport {
    /// Whether everything was checked: the table leaves' values probed, or
    /// no table leaves to probe.
    pub fn leaves_checked(&self) -> bool {
        self.leaves_probed || self.table_leaves == 0
    }
}

/// Whether the file at `path` holds a certificate, by its first bytes: the
/// text's first word (any format version: [`Certificate::read`] names a
/// version it does not know), or gzip (how large ones are shipped). Stores
/// and books start otherwise; an unreadable file is not one.
pub fn is_certificate_file(path: &Path) -> bool {
    let word = MAGIC.split(' ').next().unwrap_or(MAGIC).as_bytes();
    let mut head = [0u8; MAGIC.len()];
    let n = std::fs::File::open(path).and_then(|mut f| std::io::Read::read(&mut f, &mut head)).unwrap_or(0);
    head[..n].starts_with(&GZIP) || head[..n].starts_with(word)
}

fn wdl_name(w: Wdl) -> &'static str {
    match w {
        Wdl::Win => "win",
        Wdl::Draw => "draw",
        Wdl::Loss => "loss",
    }
}

fn side_letter(k: u64) -> char {
    match alq_engine::key_side(k) {
        Side::White => 'w',
        Side::Black => 'b',
    }
}

impl Certificate {
    /// The file's text.
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "{MAGIC}");
        let _ = writeln!(out, "rules {}", self.rules.name());
        let _ = writeln!(out, "goal {}", self.goal);
        let _ = writeln!(out, "root {:016x} {}", self.root, Position::from_key_unchecked(self.root));
        let _ = writeln!(out, "tables {}", self.table_pieces);
        let _ = writeln!(out, "entries {}", self.entries.len());
        for e in &self.entries {
            let _ = write!(out, "{:016x} {} {} ", e.key, side_letter(e.key), e.rank);
            let _ = match e.step {
                Step::Move(mv) => writeln!(out, "move {mv}"),
                Step::All => writeln!(out, "all"),
                Step::Table(w) => writeln!(out, "table {}", wdl_name(w)),
                Step::End => writeln!(out, "end"),
            };
        }
        out.push_str("end\n");
        out
    }

    /// The certificate with only the entries its root reaches by the
    /// strategy: the `move` of a prover entry, every legal move of an `all`
    /// entry. It proves the same goal from the same root (a successor the
    /// original lacked stays missing, and [`check`] still refuses it).
    pub fn lean(&self) -> Certificate {
        self.lean_from(&[self.root])
    }

    /// The certificate with only the entries that `roots` (and the root)
    /// reach by the strategy: a certificate of many roots, such as the
    /// atlas's, keeps every root's proof. Each entry is checked on its
    /// own, so every kept entry is proven.
    pub fn lean_from(&self, roots: &[u64]) -> Certificate {
        let by_key: HashMap<u64, usize> = self.entries.iter().enumerate().map(|(i, e)| (e.key, i)).collect();
        let reached = reached_from(self, &by_key, roots);
        let entries = self.entries.iter().zip(&reached).filter(|(_, &r)| r).map(|(e, _)| *e).collect();
        Certificate { entries, ..self.clone_header() }
    }

    /// The keys of the entries the root does not reach by the strategy (a
    /// certificate of many roots: the other roots and what they reach).
    pub fn unreached(&self) -> Vec<u64> {
        let by_key: HashMap<u64, usize> = self.entries.iter().enumerate().map(|(i, e)| (e.key, i)).collect();
        let reached = reached(self, &by_key);
        self.entries.iter().zip(&reached).filter(|(_, &r)| !r).map(|(e, _)| e.key).collect()
    }

    /// The moves entry `e` (at `pos`) covers: the prover's move, every move
    /// of the opponent, none at a leaf.
    pub(crate) fn covered_moves(&self, e: &Entry, pos: &Position) -> Vec<Move> {
        match e.step {
            Step::Move(mv) => vec![mv],
            Step::All => pos.legal_moves_in(self.rules).to_vec(),
            Step::Table(_) | Step::End => Vec::new(),
        }
    }

    /// The certificate's fields with no entries.
    fn clone_header(&self) -> Certificate {
        Certificate {
            rules: self.rules,
            goal: self.goal,
            root: self.root,
            table_pieces: self.table_pieces,
            entries: Vec::new(),
        }
    }

    /// Writes the file atomically ([`alq_fs::write_atomic`]), gzip-compressed
    /// when its name ends in `.gz` (both checkers read either form).
    pub fn write(&self, path: &Path) -> Result<(), SolveError> {
        let text = self.to_text();
        let bytes = if path.extension().is_some_and(|e| e == "gz") {
            let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
            gz.write_all(text.as_bytes()).and_then(|()| gz.finish()).map_err(SolveError::io(path))?
        } else {
            text.into_bytes()
        };
        alq_fs::write_atomic(path, &bytes).map_err(SolveError::io(path))
    }

    /// Parses a certificate's bytes, gzip-compressed or not (a file's, or
    /// an embedded one): a gzip-compressed certificate (large ones are
    /// shipped so) is read as it is, its first two bytes say which.
    pub fn from_bytes(bytes: &[u8]) -> Result<Certificate, CertificateError> {
        if bytes.starts_with(&GZIP) {
            Certificate::parse(std::io::BufReader::new(flate2::bufread::MultiGzDecoder::new(bytes)))
        } else {
            Certificate::parse(bytes)
        }
    }

    /// Reads a certificate file; a damaged or truncated file is refused
    /// with the line that is wrong.
    pub fn read(path: &Path) -> Result<Certificate, SolveError> {
        let bytes = std::fs::read(path).map_err(SolveError::io(path))?;
        Certificate::from_bytes(&bytes)
            .map_err(|e| SolveError::BadCertificate { path: path.to_path_buf(), reason: e.to_string() })
    }

    /// Reads a certificate file and checks it from its own root
    /// ([`check`] over `tb` when they hold its leaves, else
    /// [`check_structure`]: the report says whether its leaves were
    /// probed). The way every reader
    /// that acts on a certificate (reports, the explorer, players, store
    /// merges) takes one in.
    ///
    /// # Errors
    ///
    /// An unreadable or malformed file, or a certificate that does not hold
    /// ([`SolveError::CertificateFails`]), naming the file.
    pub fn read_checked(path: &Path, tb: Option<&Tablebase>) -> Result<(Certificate, CheckReport), SolveError> {
        let cert = Certificate::read(path)?;
        let root = Position::from_key_unchecked(cert.root);
        let checked = match tb {
            Some(tb) if tb.wdl_max_pieces() >= cert.table_pieces => check(&cert, &root, Some(tb)),
            _ => check_structure(&cert, &root),
        };
        let report = checked.map_err(|fault| SolveError::CertificateFails { path: path.to_path_buf(), fault })?;
        Ok((cert, report))
    }

    /// Parses a certificate's text.
    pub fn parse(reader: impl BufRead) -> Result<Certificate, CertificateError> {
        let mut lines = reader.lines().enumerate().map(|(i, l)| (i + 1, l));
        let mut next = |what: &str| -> Result<(usize, String), CertificateError> {
            match lines.next() {
                Some((n, Ok(line))) => Ok((n, line)),
                Some((n, Err(e))) => Err(CertificateError::Line { line: n, problem: e.to_string() }),
                None => Err(CertificateError::Truncated { before: what.to_string() }),
            }
        };
        let (_, magic) = next("the header")?;
        if magic != MAGIC {
            return Err(CertificateError::Line { line: 1, problem: format!("expected {MAGIC:?}, found {magic:?}") });
        }
        let field = |(n, line): (usize, String), name: &str| -> Result<(usize, String), CertificateError> {
            line.strip_prefix(name).and_then(|r| r.strip_prefix(' ')).map(|r| (n, r.to_string())).ok_or_else(|| {
                CertificateError::Line { line: n, problem: format!("expected `{name} …`, found {line:?}") }
            })
        };
        let (n, rules) = field(next("rules")?, "rules")?;
        let rules = RuleSet::from_name(&rules)
            .ok_or_else(|| CertificateError::Line { line: n, problem: format!("unknown rules {rules:?}") })?;
        let (n, goal) = field(next("goal")?, "goal")?;
        let goal: Goal = goal.parse().map_err(|problem| CertificateError::Line { line: n, problem })?;
        let (n, root) = field(next("root")?, "root")?;
        let (root_key, root_text) = root.split_once(' ').unwrap_or((&root, ""));
        let root = u64::from_str_radix(root_key, 16)
            .ok()
            .filter(|&k| Position::from_key(k).is_ok())
            .ok_or_else(|| CertificateError::Line { line: n, problem: format!("bad root key {root_key:?}") })?;
        // The text after the key is for readers: it must name the key's
        // position, so that the file cannot claim a proof of another one.
        let keyed = Position::from_key_unchecked(root).to_string();
        if root_text.trim() != keyed {
            return Err(CertificateError::Line {
                line: n,
                problem: format!(
                    "the root's text {:?} is not the position of its key {root_key} ({keyed})",
                    root_text.trim()
                ),
            });
        }
        let (n, tables) = field(next("tables")?, "tables")?;
        let table_pieces: u32 = tables
            .parse()
            .map_err(|_| CertificateError::Line { line: n, problem: format!("bad table piece count {tables:?}") })?;
        let (n, count) = field(next("entries")?, "entries")?;
        let count: usize = count
            .parse()
            .map_err(|_| CertificateError::Line { line: n, problem: format!("bad entry count {count:?}") })?;
        let mut entries = Vec::with_capacity(count.min(1 << 24));
        for _ in 0..count {
            let (n, line) = next("all its entries")?;
            entries.push(
                parse_entry(&line, rules)
                    .map_err(|e| CertificateError::Line { line: n, problem: format!("{e}: {line:?}") })?,
            );
        }
        let (n, last) = next("its `end` line")?;
        if last != "end" {
            return Err(CertificateError::Line {
                line: n,
                problem: format!("expected `end` after {count} entries, found {last:?}"),
            });
        }
        Ok(Certificate { rules, goal, root, table_pieces, entries })
    }
}

fn parse_entry(line: &str, rules: RuleSet) -> Result<Entry, String> {
    let mut words = line.split(' ');
    let mut word = |what: &str| words.next().filter(|w| !w.is_empty()).ok_or_else(|| format!("missing {what}"));
    let k = word("key")?;
    let k = u64::from_str_radix(k, 16).map_err(|_| format!("bad key {k:?}"))?;
    let pos = Position::from_key(k).map_err(|e| format!("{e}: not a position"))?;
    let side = word("side to move")?;
    if side.len() != 1 || !side.starts_with(side_letter(k)) {
        return Err(format!("side {side:?} does not match the key"));
    }
    let rank = word("rank")?;
    let rank: u32 = rank.parse().map_err(|_| format!("bad rank {rank:?}"))?;
    let step = match word("kind")? {
        "move" => {
            let text = word("move")?;
            let mv = pos.parse_move_in(rules, text).map_err(|e| format!("move {text:?}: {e}"))?;
            Step::Move(mv)
        }
        "all" => Step::All,
        "table" => Step::Table(match word("value")? {
            "win" => Wdl::Win,
            "draw" => Wdl::Draw,
            "loss" => Wdl::Loss,
            other => return Err(format!("bad table value {other:?}")),
        }),
        "end" => Step::End,
        other => return Err(format!("unknown kind {other:?}")),
    };
    if let Some(extra) = words.next() {
        return Err(format!("unexpected {extra:?}"));
    }
    Ok(Entry { key: k, rank, step })
}

/// Why a certificate does not hold: the first fault found.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CheckError {
    #[error("the certificate is for {found}, not for {wanted}")]
    WrongRoot { found: Position, wanted: Position },
    #[error("{0} has two entries")]
    Duplicate(Position),
    #[error("the root {0} has no entry")]
    NoRootEntry(Position),
    /// A step or leaf that does not meet the goal, at this position.
    #[error("{position}: {problem}")]
    Fault { position: Position, problem: String },
}

impl CheckError {
    fn at(position: Position, problem: String) -> CheckError {
        CheckError::Fault { position, problem }
    }
}

/// Which entries the root reaches by the strategy (indexes as `entries`).
fn reached(cert: &Certificate, by_key: &HashMap<u64, usize>) -> Vec<bool> {
    reached_from(cert, by_key, &[cert.root])
}

/// Which entries the root and `roots` reach by the strategy.
fn reached_from(cert: &Certificate, by_key: &HashMap<u64, usize>, roots: &[u64]) -> Vec<bool> {
    let mut seen = vec![false; cert.entries.len()];
    let mut stack = Vec::new();
    for key in std::iter::once(&cert.root).chain(roots) {
        if let Some(&i) = by_key.get(key) {
            if !seen[i] {
                seen[i] = true;
                stack.push(i);
            }
        }
    }
    while let Some(i) = stack.pop() {
        let pos = Position::from_key_unchecked(cert.entries[i].key);
        for mv in cert.covered_moves(&cert.entries[i], &pos) {
            if let Some(&j) = by_key.get(&pos.play(mv).key()) {
                if !seen[j] {
                    seen[j] = true;
                    stack.push(j);
                }
            }
        }
    }
    seen
}

/// Checks a certificate with the move generator and, for table leaves,
/// `tb`: every prover entry's move leads to an entry, every opponent
/// entry's moves all do, leaves meet the goal, for a win goal ranks fall
/// along every move and for a draw goal they are 0. The first fault is
/// returned, naming the position. Without `tb` a table leaf is a fault
/// (see [`check_structure`] for a check without tables).
pub fn check(cert: &Certificate, root: &Position, tb: Option<&Tablebase>) -> Result<CheckReport, CheckError> {
    check_with(cert, root, tb, true)
}

/// [`check`] without tables: everything but the table leaves' values (their
/// piece counts, within the certificate's `tables`, and that the value they
/// claim meets the goal, are checked). The report says the leaves were not
/// probed.
pub fn check_structure(cert: &Certificate, root: &Position) -> Result<CheckReport, CheckError> {
    check_with(cert, root, None, false)
}

fn check_with(
    cert: &Certificate,
    root: &Position,
    tb: Option<&Tablebase>,
    probe: bool,
) -> Result<CheckReport, CheckError> {
    if let Some(tb) = tb.filter(|tb| tb.rules() != cert.rules) {
        return Err(CheckError::Fault {
            position: *root,
            problem: format!("a certificate under the {} rules, tables under {}", cert.rules, tb.rules()),
        });
    }
    if cert.root != root.key() {
        return Err(CheckError::WrongRoot { found: Position::from_key_unchecked(cert.root), wanted: *root });
    }
    let mut by_key: HashMap<u64, usize> = HashMap::with_capacity(cert.entries.len());
    for (i, e) in cert.entries.iter().enumerate() {
        if by_key.insert(e.key, i).is_some() {
            return Err(CheckError::Duplicate(Position::from_key_unchecked(e.key)));
        }
    }
    if !by_key.contains_key(&cert.root) {
        return Err(CheckError::NoRootEntry(Position::from_key_unchecked(cert.root)));
    }
    let checker = Checker { cert, tb, probe, by_key };
    let mut report = CheckReport {
        entries: cert.entries.len(),
        table_leaves: 0,
        end_leaves: 0,
        leaves_probed: probe,
        unreachable: 0,
    };
    for e in &cert.entries {
        let pos = Position::from_key_unchecked(e.key);
        if !cert.goal.is_win() && e.rank != 0 {
            return Err(CheckError::at(pos, format!("rank {} in a draw certificate (ranks are 0)", e.rank)));
        }
        match e.step {
            Step::Move(mv) => checker.prover_move(e, &pos, mv)?,
            Step::All => checker.opponent_moves(e, &pos)?,
            Step::Table(value) => {
                checker.table_leaf(&pos, value)?;
                report.table_leaves += 1;
            }
            Step::End => {
                checker.end_leaf(&pos)?;
                report.end_leaves += 1;
            }
        }
    }
    report.unreachable = reached(cert, &checker.by_key).iter().filter(|&&r| !r).count();
    Ok(report)
}

/// The checks of [`check`], entry by entry.
struct Checker<'c> {
    cert: &'c Certificate,
    tb: Option<&'c Tablebase>,
    /// Whether table leaves are probed (else only their size and claim).
    probe: bool,
    /// Where each position's entry is.
    by_key: HashMap<u64, usize>,
}

impl Checker<'_> {
    /// Move `mv` of `pos` (entry `from`) leads to an entry, of a smaller rank for a win goal.
    fn follows(&self, from: &Entry, pos: &Position, mv: Move) -> Result<(), CheckError> {
        let child = pos.play(mv);
        let &j = self
            .by_key
            .get(&child.key())
            .ok_or_else(|| CheckError::at(*pos, format!("move {mv} leads to {child}, which has no entry")))?;
        let rank = self.cert.entries[j].rank;
        if self.cert.goal.is_win() && rank >= from.rank {
            return Err(CheckError::at(
                *pos,
                format!("move {mv} leads to rank {rank} from rank {} (a win may not use a cycle)", from.rank),
            ));
        }
        Ok(())
    }

    /// A `move` entry: the prover is to move, and `mv` is legal and followed.
    fn prover_move(&self, e: &Entry, pos: &Position, mv: Move) -> Result<(), CheckError> {
        let mover = pos.side_to_move();
        if mover != self.cert.goal.side() {
            return Err(CheckError::at(
                *pos,
                format!("a move is given for the opponent ({} is to move)", side_name(mover)),
            ));
        }
        if !pos.legal_moves_in(self.cert.rules).contains(&mv) {
            return Err(CheckError::at(*pos, format!("{mv} is not a legal move")));
        }
        self.follows(e, pos, mv)
    }

    /// An `all` entry: the opponent is to move, has a move, and every move is followed.
    fn opponent_moves(&self, e: &Entry, pos: &Position) -> Result<(), CheckError> {
        if pos.side_to_move() == self.cert.goal.side() {
            return Err(CheckError::at(*pos, "the prover is to move but no move is given".into()));
        }
        let moves = pos.legal_moves_in(self.cert.rules);
        if moves.is_empty() {
            return Err(CheckError::at(*pos, "has no legal move (an `end` leaf, not `all`)".into()));
        }
        for &mv in moves.iter() {
            self.follows(e, pos, mv)?;
        }
        Ok(())
    }

    /// A `table` leaf: within the tables, of the value they give, which meets the goal.
    fn table_leaf(&self, pos: &Position, value: Wdl) -> Result<(), CheckError> {
        let pos = *pos;
        let pieces = pos.occupied().count();
        if pieces > self.cert.table_pieces {
            return Err(CheckError::at(
                pos,
                format!("a table leaf of {pieces} pieces, beyond the certificate's tables {}", self.cert.table_pieces),
            ));
        }
        if self.probe {
            let tb = self
                .tb
                .ok_or_else(|| CheckError::at(pos, "a table leaf; pass the tables (--tb) to check it".into()))?;
            if pieces > tb.wdl_max_pieces() {
                return Err(CheckError::at(pos, format!("a table leaf of {pieces} pieces, beyond the tables")));
            }
            let (actual, _) = tb.probe_wdl(&pos).map_err(|e| CheckError::at(pos, e.to_string()))?;
            if actual != value {
                return Err(CheckError::at(
                    pos,
                    format!("the certificate says {}, the tables {}", wdl_name(value), wdl_name(actual)),
                ));
            }
        }
        if !self.cert.goal.holds(pos.side_to_move(), value) {
            return Err(CheckError::at(
                pos,
                format!("a table leaf of value {} does not meet {}", wdl_name(value), self.cert.goal),
            ));
        }
        Ok(())
    }

    /// An `end` leaf: no legal move, which meets the goal.
    fn end_leaf(&self, pos: &Position) -> Result<(), CheckError> {
        if !pos.is_lost_in(self.cert.rules) {
            return Err(CheckError::at(*pos, "an `end` leaf with a legal move".into()));
        }
        if !self.cert.goal.holds(pos.side_to_move(), Wdl::Loss) {
            return Err(CheckError::at(
                *pos,
                format!("the prover has no move here, which does not meet {}", self.cert.goal),
            ));
        }
        Ok(())
    }
}

fn side_name(side: Side) -> &'static str {
    match side {
        Side::White => "White",
        Side::Black => "Black",
    }
}

/// What a set of certificates proves about the start and the positions one
/// or two plies after it, by line (`""` for the start, `"c2-c3"`, `"c2-c3
/// b4xd2"`): a certificate proves its goal at every position it has an
/// entry for (each entry is checked on its own: the prover's move, or all
/// the opponent's, lead to entries or to leaves that satisfy the goal).
/// Certificates are taken as given here; `alq solve --check` checks them.
pub fn proven_lines(certs: &[Certificate]) -> Vec<(String, Vec<Goal>)> {
    let Some(rules) = certs.first().map(|c| c.rules) else { return Vec::new() };
    let start = Position::start_of(rules);
    let mut lines: Vec<(String, Position)> = vec![(String::new(), start)];
    for mv in start.legal_moves_in(rules) {
        let after = start.play(mv);
        lines.push((mv.to_string(), after));
        for reply in after.legal_moves_in(rules) {
            lines.push((format!("{mv} {reply}"), after.play(reply)));
        }
    }
    let mut out = Vec::new();
    for (line, pos) in lines {
        let k = pos.key();
        let mut goals: Vec<Goal> =
            certs.iter().filter(|c| c.entries.iter().any(|e| e.key == k)).map(|c| c.goal).collect();
        goals.sort_by_key(|g| g.name());
        goals.dedup();
        if !goals.is_empty() {
            out.push((line, goals));
        }
    }
    out
}

/// The strongest statement `goals` (proven at one position) make, in words:
/// `White wins`, `Black wins`, `draw`, `White holds at least a draw`, ...
pub fn describe(goals: &[Goal]) -> String {
    let has = |g: Goal| goals.contains(&g);
    if has(Goal::WhiteWins) {
        "White wins".into()
    } else if has(Goal::BlackWins) {
        "Black wins".into()
    } else if has(Goal::WhiteDraws) && has(Goal::BlackDraws) {
        "draw".into()
    } else if has(Goal::WhiteDraws) {
        "White holds at least a draw".into()
    } else if has(Goal::BlackDraws) {
        "Black holds at least a draw".into()
    } else {
        "nothing proven".into()
    }
}
