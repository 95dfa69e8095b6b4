//! Deepened certificates: a certificate whose table leaves have more pieces
//! than a smaller set of tables holds, re-proven leaf by leaf over those
//! tables, so that checking it needs only the small tables.
//!
//! Each deep leaf (a `table` entry with more than K pieces, K the largest
//! tables given) gets its own proof of the certificate's goal over the ≤ K
//! tables. The sub-proofs of one worker share a solver, so a later leaf
//! cites the positions an earlier one proved (draw goals; a win goal's
//! proofs stand alone).
//!
//! Every sub-proof is written to the parts folder as it is found
//! (`KEY.part`, atomically, in the certificate format), holding only the
//! entries that no part written before it holds: a later proof cites
//! earlier ones, and whole proofs would repeat them (measured: the 438
//! first leaves of `start-white-draws.cert` over the ≤ 8 tables wrote 49 MB
//! as whole proofs). A part is written before its entries count as written,
//! so every part's missing entries are in parts already on disk, and the
//! union of the parts is closed while none is lost or damaged. A killed
//! run keeps them; a rerun reads them back, refuses them when their union
//! is not closed, gives their entries to its solvers as proven, and proves
//! only the leaves still missing.
//!
//! The result is the union of the certificate's other entries and the
//! parts' entries, one entry a position (the first met wins), with `tables
//! K`, keeping what the root reaches (and, for a certificate of many roots
//! such as the atlas's, what its entries the root does not reach reach); for a win goal the ranks are computed again over the union (a
//! position's rank is one more than the largest rank of its successors),
//! and a union whose strategies circle is refused. The caller checks the
//! result before writing it.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use alq_engine::{Evaluator, Position};
use alq_tablebase::Tablebase;

use crate::budget::Budget;
use crate::certificate::{Certificate, Entry, Step};
use crate::error::SolveError;
use crate::threshold::{Outcome, ThresholdSolver};

/// The pieces of a packed key's position.
fn pieces(key: u64) -> u32 {
    Position::from_key_unchecked(key).occupied().count()
}

/// The keys of the positions an entry's step leads to (none for a leaf).
fn successors(e: &Entry, rules: alq_engine::RuleSet) -> Vec<u64> {
    let pos = Position::from_key_unchecked(e.key);
    match e.step {
        Step::Move(mv) => vec![pos.play(mv).key()],
        Step::All => pos.legal_moves_in(rules).iter().map(|&mv| pos.play(mv).key()).collect(),
        Step::Table(_) | Step::End => Vec::new(),
    }
}

/// How a deepening went.
#[derive(Clone, Debug, Default)]
pub struct DeepenReport {
    /// Table leaves of the input with more pieces than the tables hold.
    pub deep_leaves: usize,
    /// Of those, proven by earlier runs (parts read back).
    pub resumed: usize,
    /// Table leaves the tables cover, whose sub-proofs over smaller tables
    /// (an earlier deepening's parts in the same folder) are used instead.
    pub shallow: usize,
    /// Proven by this run.
    pub proven: usize,
    /// Leaves whose goal stayed unknown within the budget, by key.
    pub resisting: Vec<u64>,
    /// Leaves whose goal was disproven over the smaller tables: impossible
    /// for a sound input, reported rather than hidden.
    pub disproven: Vec<u64>,
    /// Positions expanded by this run's searches.
    pub nodes: u64,
}

/// The file of a leaf's sub-proof in the parts folder.
pub fn part_path(parts: &Path, key: u64) -> PathBuf {
    parts.join(format!("{key:016x}.part"))
}

/// The sub-proof of leaf `key` in `parts`, when one is there, reads, and
/// is a part of `cert`'s goal from that leaf over tables of at most `k`
/// pieces, and fewer than the leaf has: a part from an earlier run over
/// smaller tables serves (its leaves are in the larger tables too).
fn read_part(parts: &Path, cert: &Certificate, key: u64, k: u32) -> Option<Certificate> {
    let part = Certificate::read(&part_path(parts, key)).ok()?;
    (part.goal == cert.goal
        && part.rules == cert.rules
        && part.root == key
        && part.table_pieces <= k
        && part.table_pieces < pieces(key))
    .then_some(part)
}

/// The deep leaves of `cert`: its `table` entries with more than `k` pieces.
pub fn deep_leaves(cert: &Certificate, k: u32) -> Vec<u64> {
    cert.entries.iter().filter(|e| matches!(e.step, Step::Table(_)) && pieces(e.key) > k).map(|e| e.key).collect()
}

/// What the workers share: the leaves' fates and the entries written so far.
struct Shared {
    /// This run's part of the report: resisting, disproven, nodes, proven.
    outcome: Mutex<DeepenReport>,
    /// Keys of entries in parts on disk.
    written: Mutex<HashSet<u64>>,
    failure: Mutex<Option<SolveError>>,
    done: AtomicUsize,
}

/// Proves every deep leaf of `cert` over `tb` (the parts folder keeps the
/// sub-proofs; `threads` workers, each with its own solver and evaluator
/// from `eval`), then returns the merged certificate (`None` while some
/// leaves resist) and the report. `progress` is called after each leaf
/// with (leaves settled, leaves to settle).
pub fn deepen(
    cert: &Certificate,
    tb: &Tablebase,
    eval: &(dyn Fn() -> Box<dyn Evaluator> + Sync),
    budget: &Budget,
    parts: &Path,
    threads: usize,
    progress: &(dyn Fn(usize, usize) + Sync),
) -> Result<(Option<Certificate>, DeepenReport), SolveError> {
    deepen_with(cert, tb, eval, budget, parts, threads, &Guidance::default(), progress)
}

/// What the leaves' searches may lean on besides the tables, without
/// weakening the proofs (the merged certificate is checked in the end).
#[derive(Clone, Copy, Default)]
pub struct Guidance<'s> {
    /// Known answers (a store from earlier searches): for a draw goal, the
    /// positions it says the opponent wins are leaves the prover's strategy
    /// never enters, so the search need not prove them again.
    pub known: Option<&'s crate::ProvenStore>,
    /// Win goals: later leaves end at the positions earlier leaves' proofs
    /// hold, and cite them (the fewest pieces are proven first).
    pub cite_wins: bool,
}

/// [`deepen`], with the searches guided by `guidance`.
#[allow(clippy::too_many_arguments)]
pub fn deepen_with(
    cert: &Certificate,
    tb: &Tablebase,
    eval: &(dyn Fn() -> Box<dyn Evaluator> + Sync),
    budget: &Budget,
    parts: &Path,
    threads: usize,
    guidance: &Guidance<'_>,
    progress: &(dyn Fn(usize, usize) + Sync),
) -> Result<(Option<Certificate>, DeepenReport), SolveError> {
    let k = tb.wdl_max_pieces();
    std::fs::create_dir_all(parts).map_err(SolveError::io(parts))?;
    let leaves = deep_leaves(cert, k);
    // Leaves proven by an earlier run, and the entries their parts hold.
    // Anything else in the folder (a damaged file, another goal) is proven
    // again and overwritten.
    let mut todo = Vec::new();
    let mut earlier: Vec<Entry> = Vec::new();
    // Table leaves the ≤ k tables cover, with a sub-proof over smaller
    // tables from an earlier deepening: the result uses those, so that a
    // certificate over ≤ 10 tables cites the ≤ 10 ones only where the ≤ 8
    // ones did not serve.
    let mut shallow = Vec::new();
    for e in cert.entries.iter().filter(|e| matches!(e.step, Step::Table(_)) && pieces(e.key) <= k) {
        if let Some(part) = read_part(parts, cert, e.key, k) {
            shallow.push(e.key);
            earlier.extend(part.entries);
        }
    }
    let mut report = DeepenReport { deep_leaves: leaves.len(), shallow: shallow.len(), ..DeepenReport::default() };
    let mut have: HashSet<u64> = shallow.iter().copied().collect();
    for &key in &leaves {
        match read_part(parts, cert, key, k) {
            Some(part) => {
                report.resumed += 1;
                have.insert(key);
                earlier.extend(part.entries);
            }
            None => todo.push(key),
        }
    }
    // Parts of positions that are no longer leaves (an atlas certificate
    // whose hard leaves were split into their moves): later parts may cite
    // their entries, so they stay part of the union.
    let others = other_parts(parts, cert, k, &have)?;
    for part in &others {
        earlier.extend(part.entries.iter().copied());
    }
    // Parts cite earlier parts: a missing or damaged part that others
    // lean on (a kill cannot make one; writes are atomic) leaves them open.
    if let Some(key) = open_entry(&earlier, cert.rules) {
        return Err(SolveError::Deepen(format!(
            "the parts in {} are not closed ({} leads to a position no part holds): a part is missing or damaged; remove the folder and rerun",
            parts.display(),
            Position::from_key_unchecked(key)
        )));
    }
    // Fewest pieces first: their proofs are short and later leaves cite them.
    todo.sort_by_key(|&key| (pieces(key), key));
    let shared = Shared {
        outcome: Mutex::new(DeepenReport::default()),
        written: Mutex::new(earlier.iter().map(|e| e.key).collect()),
        failure: Mutex::new(None),
        done: AtomicUsize::new(report.resumed),
    };
    progress(report.resumed, leaves.len());
    let workers = threads.clamp(1, todo.len().max(1));
    let total = leaves.len();
    // Each worker takes the next leaf when it is free: a few hard leaves
    // must not leave the other cores idle.
    let next = AtomicUsize::new(0);
    std::thread::scope(|scope| {
        for _ in 0..workers {
            let (todo, shared, earlier, next) = (&todo, &shared, &earlier, &next);
            let mine = std::iter::from_fn(move || todo.get(next.fetch_add(1, Ordering::Relaxed)).copied());
            scope.spawn(move || {
                let mut solver = ThresholdSolver::new(Some(tb), Some(eval()));
                solver.set_rules(cert.rules);
                solver.want_certificates(true);
                solver.cite_wins = guidance.cite_wins;
                if let Some(known) = guidance.known.filter(|_| !cert.goal.is_win()) {
                    solver.attacker_wins_as_leaves = true;
                    if let Err(e) = solver.add_store(known) {
                        *lock(&shared.failure) = Some(e);
                        return;
                    }
                }
                solver.add_certified(cert.goal, earlier);
                for key in mine {
                    if lock(&shared.failure).is_some() {
                        return;
                    }
                    if let Err(e) = prove_leaf(&mut solver, cert, key, budget, parts, k, shared) {
                        *lock(&shared.failure) = Some(e);
                        return;
                    }
                    progress(shared.done.fetch_add(1, Ordering::Relaxed) + 1, total);
                }
            });
        }
    });
    drop(earlier);
    if let Some(e) = shared.failure.into_inner().unwrap_or_else(|p| p.into_inner()) {
        return Err(e);
    }
    let run = shared.outcome.into_inner().unwrap_or_else(|p| p.into_inner());
    report = DeepenReport {
        proven: run.proven,
        resisting: run.resisting,
        disproven: run.disproven,
        nodes: run.nodes,
        ..report
    };
    report.resisting.sort_unstable();
    report.disproven.sort_unstable();
    if !report.resisting.is_empty() || !report.disproven.is_empty() {
        return Ok((None, report));
    }
    // One part in memory at a time; the shallow leaves' parts first (they
    // were written first, and later parts cite them).
    let sources = shallow
        .iter()
        .chain(&leaves)
        .map(|&key| {
            read_part(parts, cert, key, k).ok_or_else(|| {
                SolveError::Deepen(format!("the part {} is missing or unreadable", part_path(parts, key).display()))
            })
        })
        .chain(others.into_iter().map(Ok));
    Ok((Some(merge(cert, sources, k)?), report))
}

/// The parts in `parts` of `cert`'s goal over at most `k` pieces whose
/// positions are not in `have` (neither leaves nor shallow leaves now).
fn other_parts(parts: &Path, cert: &Certificate, k: u32, have: &HashSet<u64>) -> Result<Vec<Certificate>, SolveError> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(parts).map_err(SolveError::io(parts))? {
        let path = entry.map_err(SolveError::io(parts))?.path();
        let key = path
            .file_name()
            .and_then(|n| n.to_str())
            .and_then(|n| n.strip_suffix(".part"))
            .and_then(|hex| u64::from_str_radix(hex, 16).ok());
        if let Some(key) = key.filter(|key| !have.contains(key)) {
            if let Some(part) = read_part(parts, cert, key, k) {
                found.push(part);
            }
        }
    }
    Ok(found)
}

/// An entry among `entries` with a successor that has no entry, if any.
fn open_entry(entries: &[Entry], rules: alq_engine::RuleSet) -> Option<u64> {
    let keys: HashSet<u64> = entries.iter().map(|e| e.key).collect();
    entries.iter().find(|e| successors(e, rules).iter().any(|k| !keys.contains(k))).map(|e| e.key)
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// One leaf's search; a proof's new entries go to its part, written before
/// they count as written.
fn prove_leaf(
    solver: &mut ThresholdSolver<'_>,
    cert: &Certificate,
    key: u64,
    budget: &Budget,
    parts: &Path,
    k: u32,
    shared: &Shared,
) -> Result<(), SolveError> {
    let pos = Position::from_key_unchecked(key);
    let r = solver.solve(&pos, cert.goal, budget, &mut |_| {})?;
    if r.outcome == Outcome::Proven {
        let proof = r.certificate.as_ref().ok_or_else(|| {
            SolveError::Deepen(format!("{pos} was proven without a certificate (a proof resting on a store)"))
        })?;
        // Filter, write and mark under one lock: no two parts then hold a
        // key, so a win goal's union cannot circle (each part's new entries
        // lead to its own or to earlier ones).
        let mut written = lock(&shared.written);
        let fresh: Vec<Entry> = proof.entries.iter().filter(|e| !written.contains(&e.key)).copied().collect();
        let part = Certificate { rules: proof.rules, goal: proof.goal, root: key, table_pieces: k, entries: fresh };
        part.write(&part_path(parts, key))?;
        written.extend(part.entries.iter().map(|e| e.key));
    }
    let mut o = lock(&shared.outcome);
    o.nodes += r.nodes;
    match r.outcome {
        Outcome::Proven => o.proven += 1,
        Outcome::Unknown => o.resisting.push(key),
        Outcome::Disproven => o.disproven.push(key),
    }
    Ok(())
}

/// The union of `cert` without its deep leaves and the sub-proofs `parts`:
/// one entry a position (the parts' first, in order, then the
/// certificate's own), `tables k`, ranks recomputed for a win goal.
pub fn merge(
    cert: &Certificate,
    parts: impl IntoIterator<Item = Result<Certificate, SolveError>>,
    k: u32,
) -> Result<Certificate, SolveError> {
    // The parts first: their entries lead only to parts' entries and to
    // leaves, so a win goal's union cannot circle through the input's.
    let mut chosen: HashMap<u64, Entry> = HashMap::new();
    for part in parts {
        for e in &part?.entries {
            chosen.entry(e.key).or_insert(*e);
        }
    }
    for e in &cert.entries {
        if !(matches!(e.step, Step::Table(_)) && pieces(e.key) > k) {
            chosen.entry(e.key).or_insert(*e);
        }
    }
    let mut entries: Vec<Entry> = chosen.into_values().collect();
    entries.sort_unstable_by_key(|e| e.key);
    // Only what the root reaches (re-proven leaves may leave parts' entries,
    // and the input's, behind), before the ranks: a cycle among entries the
    // root never reaches is no fault. A certificate of many roots (the
    // atlas's: entries its root does not reach) keeps them as roots.
    let mut merged = Certificate { rules: cert.rules, goal: cert.goal, root: cert.root, table_pieces: k, entries }
        .lean_from(&cert.unreached());
    if cert.goal.is_win() {
        rerank(&mut merged.entries, cert.rules)?;
    }
    Ok(merged)
}

/// Win goals: every entry's rank one more than its successors' largest
/// (leaves 0), by a depth-first walk; a cycle among the chosen steps is an
/// error (the union of two strategies may circle where neither did).
fn rerank(entries: &mut [Entry], rules: alq_engine::RuleSet) -> Result<(), SolveError> {
    let index: HashMap<u64, usize> = entries.iter().enumerate().map(|(i, e)| (e.key, i)).collect();
    let successors =
        |e: &Entry| -> Vec<usize> { successors(e, rules).into_iter().filter_map(|k| index.get(&k).copied()).collect() };
    // 0: not seen, 1: on the walk's path, 2: ranked.
    let mut state = vec![0u8; entries.len()];
    let mut rank = vec![0u32; entries.len()];
    for start in 0..entries.len() {
        if state[start] != 0 {
            continue;
        }
        let mut stack: Vec<(usize, Vec<usize>, usize)> = vec![(start, successors(&entries[start]), 0)];
        state[start] = 1;
        while let Some((node, next, at)) = stack.last_mut() {
            if let Some(&child) = next.get(*at) {
                *at += 1;
                match state[child] {
                    0 => {
                        state[child] = 1;
                        let succ = successors(&entries[child]);
                        stack.push((child, succ, 0));
                    }
                    1 => {
                        return Err(SolveError::Deepen(format!(
                            "the merged strategies circle through {}",
                            Position::from_key_unchecked(entries[child].key)
                        )))
                    }
                    _ => {}
                }
            } else {
                let node = *node;
                rank[node] = next.iter().map(|&c| rank[c] + 1).max().unwrap_or(0);
                state[node] = 2;
                stack.pop();
            }
        }
    }
    for (e, r) in entries.iter_mut().zip(rank) {
        e.rank = r;
    }
    Ok(())
}
