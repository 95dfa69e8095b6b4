//! Streaming accumulation of game statistics: totals, per pairing, per first
//! move and for every line of the opening tree up to a depth of real
//! choices, kept apart for games chosen by the players from the standard
//! start and games with randomised openings.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use rayon::prelude::*;
use serde::Serialize;

use alq_engine::{Side, Termination};
use alq_records::{GameRecord, OpeningPart, RecordError, RecordReader, ReplayedGame};
use serde::Deserialize;

use alq_stats::{score_interval, wilson, Rate};

/// Results of a set of games. A game that reached the ply cap did not end
/// by the rules: it is counted as unfinished, never as a draw.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Counts {
    pub games: u64,
    pub white_wins: u64,
    pub black_wins: u64,
    /// Draws by the rules (repetition, no progress).
    pub draws: u64,
    /// Games stopped by the ply cap.
    pub unfinished: u64,
    pub plies: u64,
}

impl Counts {
    pub fn add(&mut self, winner: Option<Side>, capped: bool, plies: u64) {
        self.games += 1;
        self.plies += plies;
        match (winner, capped) {
            (Some(Side::White), _) => self.white_wins += 1,
            (Some(Side::Black), _) => self.black_wins += 1,
            (None, true) => self.unfinished += 1,
            (None, false) => self.draws += 1,
        }
    }

    pub fn merge(&mut self, other: &Counts) {
        self.games += other.games;
        self.white_wins += other.white_wins;
        self.black_wins += other.black_wins;
        self.draws += other.draws;
        self.unfinished += other.unfinished;
        self.plies += other.plies;
    }

    /// Games that ended by the rules.
    pub fn finished(&self) -> u64 {
        self.games - self.unfinished
    }

    /// White's points (wins plus half the draws) over the finished games.
    pub fn white_score(&self) -> f64 {
        if self.finished() == 0 {
            0.0
        } else {
            (self.white_wins as f64 + 0.5 * self.draws as f64) / self.finished() as f64
        }
    }

    pub fn average_plies(&self) -> f64 {
        if self.games == 0 {
            0.0
        } else {
            self.plies as f64 / self.games as f64
        }
    }

    /// The rates: White wins, Black wins, draws and unfinished games over
    /// all games, each with its Wilson 95 % interval; White's score over the
    /// finished games with an interval that handles draws
    /// ([`score_interval`]).
    pub fn rates(&self) -> Rates {
        Rates {
            white_win: wilson(self.white_wins as f64, self.games),
            black_win: wilson(self.black_wins as f64, self.games),
            draw: wilson(self.draws as f64, self.games),
            unfinished: wilson(self.unfinished as f64, self.games),
            white_score: score_interval(self.white_wins, self.draws, self.black_wins),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Rates {
    pub white_win: Rate,
    pub black_win: Rate,
    pub draw: Rate,
    pub unfinished: Rate,
    pub white_score: Rate,
}

/// Games played with endgame tables that reached them (records format 3):
/// how they ended, by White's exact value where they entered the tables,
/// and what the results would be with perfect endgames.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TableEntries {
    /// Games that entered the tables won for White, and how they ended.
    pub won: Counts,
    /// Games that entered the tables drawn, and how they ended.
    pub drawn: Counts,
    /// Games that entered the tables lost for White, and how they ended.
    pub lost: Counts,
    /// Every game of the set with the entered ones scored by the tables'
    /// value instead of by their end: White's advantage with perfect endgames.
    pub perfect: Counts,
}

impl TableEntries {
    /// Counts one game; `entry` is White's exact value where it entered the tables.
    pub fn add(&mut self, entry: Option<alq_engine::Exact>, winner: Option<Side>, capped: bool, plies: u64) {
        use alq_engine::Exact;
        match entry {
            Some(Exact::Win(_)) => {
                self.won.add(winner, capped, plies);
                self.perfect.add(Some(Side::White), false, plies);
            }
            Some(Exact::Draw) => {
                self.drawn.add(winner, capped, plies);
                self.perfect.add(None, false, plies);
            }
            Some(Exact::Loss(_)) => {
                self.lost.add(winner, capped, plies);
                self.perfect.add(Some(Side::Black), false, plies);
            }
            None => self.perfect.add(winner, capped, plies),
        }
    }

    /// Games that entered the tables.
    pub fn entered(&self) -> u64 {
        self.won.games + self.drawn.games + self.lost.games
    }

    pub fn merge(&mut self, other: &TableEntries) {
        self.won.merge(&other.won);
        self.drawn.merge(&other.drawn);
        self.lost.merge(&other.lost);
        self.perfect.merge(&other.perfect);
    }
}

/// A node of the opening tree: a line that ends after a real choice and
/// the forced plies (positions with a single legal move) that follow it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TreeNode {
    pub counts: Counts,
    /// Real choices in the line (its depth in the tree).
    pub decisions: usize,
    /// Forced plies in the line.
    pub forced: usize,
}

/// Statistics of one kind of games.
#[derive(Clone, Debug, Default)]
pub struct Section {
    pub total: Counts,
    pub terminations: BTreeMap<String, u64>,
    /// Game length in plies -> games.
    pub lengths: BTreeMap<u64, u64>,
    /// (white, black) player descriptions -> results.
    pub pairings: BTreeMap<(String, String), Counts>,
    /// (white, black, White's first move) -> results (games from the
    /// standard start).
    pub first_moves_by_pairing: BTreeMap<(String, String, String), Counts>,
    /// Opening lines (space-separated moves, up to `tree_depth` decisions,
    /// forced plies folded into the choice before them, games from the
    /// standard start only) -> results of the games that began with them.
    pub tree: BTreeMap<String, TreeNode>,
    /// Games whose first moves were drawn among near-best moves.
    pub near_best: u64,
    /// (white, black) -> games that reached the endgame tables (empty when
    /// no game was played with tables).
    pub tables_by_pairing: BTreeMap<(String, String), TableEntries>,
    /// (white, black, White's first move) -> the same, games from the start.
    pub tables_by_first_move: BTreeMap<(String, String, String), TableEntries>,
    /// Games from a position other than the standard start.
    pub other_starts: u64,
}

impl Section {
    fn add(&mut self, game: &ReplayedGame, tree_depth: usize) {
        let winner = game.winner();
        let capped = game.termination() == Some(Termination::MaxPlies);
        let plies = game.game.plies() as u64;
        self.total.add(winner, capped, plies);
        *self.terminations.entry(game.termination_name().to_string()).or_insert(0) += 1;
        *self.lengths.entry(plies).or_insert(0) += 1;
        let r = &game.record;
        self.pairings.entry((r.white.clone(), r.black.clone())).or_default().add(winner, capped, plies);
        // Replay has checked the column; games without tables have none.
        let entry = r.table_entry().ok().flatten().map(|(_, v)| v);
        let with_tables = r.tb_ply.is_some() || r.white.contains("tb=") || r.black.contains("tb=");
        if with_tables {
            let t = self.tables_by_pairing.entry((r.white.clone(), r.black.clone())).or_default();
            t.add(entry, winner, capped, plies);
        }
        if r.opening_parts().is_ok_and(|p| p.iter().any(|p| matches!(p, OpeningPart::NearBest { .. }))) {
            self.near_best += 1;
        }
        if !r.start.trim().is_empty() {
            self.other_starts += 1;
            return;
        }
        let moves = game.game.moves();
        if let Some(first) = moves.first() {
            let key = (r.white.clone(), r.black.clone(), first.to_string());
            if with_tables {
                self.tables_by_first_move.entry(key.clone()).or_default().add(entry, winner, capped, plies);
            }
            self.first_moves_by_pairing.entry(key).or_default().add(winner, capped, plies);
        }
        let positions = game.game.positions();
        let (mut line, mut decisions, mut forced) = (String::new(), 0, 0);
        let mut node = |line: &str, decisions: usize, forced: usize| {
            let n = self.tree.entry(line.to_string()).or_default();
            n.counts.add(winner, capped, plies);
            n.decisions = decisions;
            n.forced = forced;
        };
        for (i, mv) in moves.iter().enumerate() {
            let is_forced = positions[i].legal_moves_in(game.game.rules()).len() == 1;
            if !is_forced {
                if decisions > 0 {
                    node(&line, decisions, forced);
                }
                if decisions == tree_depth {
                    break;
                }
                decisions += 1;
            } else {
                forced += 1;
            }
            if !line.is_empty() {
                line.push(' ');
            }
            line += &mv.to_string();
            if i + 1 == moves.len() && decisions > 0 {
                node(&line, decisions, forced);
            }
        }
    }

    pub(crate) fn merge(&mut self, other: Section) {
        self.total.merge(&other.total);
        for (k, v) in other.terminations {
            *self.terminations.entry(k).or_insert(0) += v;
        }
        for (k, v) in other.lengths {
            *self.lengths.entry(k).or_insert(0) += v;
        }
        for (k, v) in other.pairings {
            self.pairings.entry(k).or_default().merge(&v);
        }
        for (k, v) in other.first_moves_by_pairing {
            self.first_moves_by_pairing.entry(k).or_default().merge(&v);
        }
        for (k, v) in other.tree {
            let n = self.tree.entry(k).or_default();
            n.counts.merge(&v.counts);
            n.decisions = v.decisions;
            n.forced = v.forced;
        }
        self.near_best += other.near_best;
        self.other_starts += other.other_starts;
        for (k, v) in other.tables_by_pairing {
            self.tables_by_pairing.entry(k).or_default().merge(&v);
        }
        for (k, v) in other.tables_by_first_move {
            self.tables_by_first_move.entry(k).or_default().merge(&v);
        }
    }

    /// Games that reached the tables, pooled over the pairings; `None` when
    /// no game was played with tables.
    pub fn table_entries(&self) -> Option<TableEntries> {
        pool(self.tables_by_pairing.values())
    }

    /// The same for one first move, pooled over the pairings.
    pub fn table_entries_after(&self, first_move: &str) -> Option<TableEntries> {
        pool(self.tables_by_first_move.iter().filter(|((_, _, m), _)| m == first_move).map(|(_, t)| t))
    }

    /// White's first moves with their results, most played first.
    pub fn first_moves_by_games(&self) -> Vec<(String, Counts)> {
        let mut pooled: BTreeMap<&str, Counts> = BTreeMap::new();
        for ((_, _, mv), c) in &self.first_moves_by_pairing {
            pooled.entry(mv).or_default().merge(c);
        }
        let mut v: Vec<(String, Counts)> = pooled.into_iter().map(|(l, c)| (l.to_string(), c)).collect();
        v.sort_by(|a, b| b.1.games.cmp(&a.1.games).then(a.0.cmp(&b.0)));
        v
    }
}

fn pool<'a>(entries: impl Iterator<Item = &'a TableEntries>) -> Option<TableEntries> {
    entries.fold(None, |acc: Option<TableEntries>, t| {
        let mut acc = acc.unwrap_or_default();
        acc.merge(t);
        Some(acc)
    })
}

/// Everything the report needs, gathered in one pass over the games, in two
/// kinds that are never mixed: games from the standard start whose every
/// move the players chose (near-best sampling of the first moves included),
/// which speak of White's advantage at the players' strength, and games
/// with random, softmax or book openings or from other positions, which are
/// training data.
#[derive(Clone, Debug, Default)]
pub struct Collected {
    pub searched: Section,
    pub randomised: Section,
    pub tree_depth: usize,
}

impl Collected {
    pub fn new(tree_depth: usize) -> Collected {
        Collected { tree_depth, ..Collected::default() }
    }

    pub fn add(&mut self, game: &ReplayedGame) {
        if game.record.is_searched_from_start() {
            self.searched.add(game, self.tree_depth);
        } else {
            self.randomised.add(game, self.tree_depth);
        }
    }

    pub fn merge(&mut self, other: Collected) {
        self.searched.merge(other.searched);
        self.randomised.merge(other.randomised);
    }

    /// All games of both kinds.
    pub fn games(&self) -> u64 {
        self.searched.total.games + self.randomised.total.games
    }
}

/// The games files named by `paths`: files as given, folders searched
/// recursively for files named `games.csv`, in name order.
pub fn game_files(paths: &[PathBuf]) -> std::io::Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    for path in paths {
        if path.is_dir() {
            collect_dir(path, &mut files)?;
        } else {
            // A missing file is reported when it is opened, with its name.
            files.push(path.clone());
        }
    }
    Ok(files)
}

fn collect_dir(dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)?.map(|e| e.map(|e| e.path())).collect::<Result<_, _>>()?;
    entries.sort();
    for p in entries {
        if p.is_dir() {
            collect_dir(&p, out)?;
        } else if p.file_name().is_some_and(|n| n == "games.csv") {
            out.push(p);
        }
    }
    Ok(())
}

/// Games read and replayed per batch; memory stays bounded by this.
const BATCH: usize = 8192;

/// Reads every game of `files`, replaying each (in parallel batches on the
/// current rayon pool), and gathers the statistics. Memory does not grow
/// with the number of games. `on_games` is told how many games are done.
/// A game played under other rules than `rules` is an error.
pub fn collect(
    files: &[PathBuf],
    rules: alq_engine::RuleSet,
    tree_depth: usize,
    on_games: impl Fn(u64),
) -> Result<Collected, RecordError> {
    let mut total = Collected::new(tree_depth);
    for file in files {
        let mut reader = RecordReader::open(file)?;
        loop {
            let mut batch: Vec<(u64, GameRecord)> = Vec::with_capacity(BATCH);
            while batch.len() < BATCH {
                match reader.next_record() {
                    None => break,
                    Some(item) => batch.push(item?),
                }
            }
            if batch.is_empty() {
                break;
            }
            let part = batch
                .par_iter()
                .try_fold(
                    || Collected::new(tree_depth),
                    |mut acc, (line, record)| {
                        let game = record.expect_rules(rules).and_then(|()| record.replay()).map_err(|problem| {
                            RecordError::Bad {
                                file: file.clone(),
                                line: *line,
                                problem: format!("game {}: {problem}", record.id),
                            }
                        })?;
                        acc.add(&game);
                        Ok::<_, RecordError>(acc)
                    },
                )
                .try_reduce(
                    || Collected::new(tree_depth),
                    |mut a, b| {
                        a.merge(b);
                        Ok(a)
                    },
                )?;
            total.merge(part);
            on_games(total.games());
        }
    }
    Ok(total)
}
