//! Streaming accumulation of game statistics: totals, per pairing, per first
//! move and for every line of the opening tree up to a depth.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use rayon::prelude::*;
use serde::Serialize;

use alq_engine::Side;
use alq_records::{GameRecord, RecordError, RecordReader, ReplayedGame};

use crate::stats::{wilson, Rate};

/// Results of a set of games.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Counts {
    pub games: u64,
    pub white_wins: u64,
    pub black_wins: u64,
    pub draws: u64,
    pub plies: u64,
}

impl Counts {
    fn add(&mut self, winner: Option<Side>, plies: u64) {
        self.games += 1;
        self.plies += plies;
        match winner {
            Some(Side::White) => self.white_wins += 1,
            Some(Side::Black) => self.black_wins += 1,
            None => self.draws += 1,
        }
    }

    fn merge(&mut self, other: &Counts) {
        self.games += other.games;
        self.white_wins += other.white_wins;
        self.black_wins += other.black_wins;
        self.draws += other.draws;
        self.plies += other.plies;
    }

    /// White's points (wins plus half the draws) over games.
    pub fn white_score(&self) -> f64 {
        if self.games == 0 {
            0.0
        } else {
            (self.white_wins as f64 + 0.5 * self.draws as f64) / self.games as f64
        }
    }

    pub fn average_plies(&self) -> f64 {
        if self.games == 0 {
            0.0
        } else {
            self.plies as f64 / self.games as f64
        }
    }

    /// The rates with their Wilson 95 % intervals. White's score uses the
    /// Wilson interval on points over games (draws as half points), a close
    /// approximation when draws are few.
    pub fn rates(&self) -> Rates {
        Rates {
            white_win: wilson(self.white_wins as f64, self.games),
            black_win: wilson(self.black_wins as f64, self.games),
            draw: wilson(self.draws as f64, self.games),
            white_score: wilson(self.white_wins as f64 + 0.5 * self.draws as f64, self.games),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Rates {
    pub white_win: Rate,
    pub black_win: Rate,
    pub draw: Rate,
    pub white_score: Rate,
}

/// Everything the report needs, gathered in one pass over the games.
#[derive(Clone, Debug, Default)]
pub struct Collected {
    pub total: Counts,
    pub terminations: BTreeMap<String, u64>,
    /// Game length in plies -> games.
    pub lengths: BTreeMap<u64, u64>,
    /// (white, black) player descriptions -> results.
    pub pairings: BTreeMap<(String, String), Counts>,
    /// Opening lines (space-separated moves, 1..=depth plies, games from the
    /// standard start only) -> results of the games that began with them.
    pub tree: BTreeMap<String, Counts>,
    /// Games that began from another position (not in the tree).
    pub other_starts: u64,
    pub tree_depth: usize,
}

impl Collected {
    pub fn new(tree_depth: usize) -> Collected {
        Collected { tree_depth, ..Collected::default() }
    }

    pub fn add(&mut self, game: &ReplayedGame) {
        let winner = game.winner();
        let plies = game.game.plies() as u64;
        self.total.add(winner, plies);
        *self.terminations.entry(game.termination().name().to_string()).or_insert(0) += 1;
        *self.lengths.entry(plies).or_insert(0) += 1;
        let r = &game.record;
        self.pairings.entry((r.white.clone(), r.black.clone())).or_default().add(winner, plies);
        if !r.start.trim().is_empty() {
            self.other_starts += 1;
            return;
        }
        let mut line = String::new();
        for mv in game.game.moves().iter().take(self.tree_depth) {
            if !line.is_empty() {
                line.push(' ');
            }
            line += &mv.to_string();
            self.tree.entry(line.clone()).or_default().add(winner, plies);
        }
    }

    pub fn merge(&mut self, other: Collected) {
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
        for (k, v) in other.tree {
            self.tree.entry(k).or_default().merge(&v);
        }
        self.other_starts += other.other_starts;
    }

    /// White's first moves with their results, most played first.
    pub fn first_moves(&self) -> Vec<(String, Counts)> {
        let mut v: Vec<(String, Counts)> =
            self.tree.iter().filter(|(line, _)| !line.contains(' ')).map(|(l, c)| (l.clone(), c.clone())).collect();
        v.sort_by(|a, b| b.1.games.cmp(&a.1.games).then(a.0.cmp(&b.0)));
        v
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
pub fn collect(
    files: &[PathBuf],
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
                        let game = record.replay().map_err(|problem| RecordError::Bad {
                            file: file.clone(),
                            line: *line,
                            problem: format!("game {}: {problem}", record.id),
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
            on_games(total.total.games);
        }
    }
    Ok(total)
}
