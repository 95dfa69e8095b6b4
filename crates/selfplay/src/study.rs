//! A study of White's first-move advantage as a function of playing
//! strength: a ladder of players, each playing itself from the standard
//! start (and optionally from each of White's first moves), with variety
//! only from choices among near-best moves.
//!
//! Every rung is an ordinary self-play run ([`run_selfplay`]) in a folder of
//! its own, so a study is reproducible from its seed, resumable after a
//! kill, and its games are normal records (`rung-NN-…/games.csv`).

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use alq_engine::{Limits, Position, RuleSet};
use alq_records::write_atomic;

use crate::generate::{run_selfplay, GameDone, OpeningConfig, SelfplayConfig, SelfplayError, Shard};
use alq_play::players::{PlayerKind, PlayerSpec};

/// One rung of the ladder: a player and how many games it plays.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RungConfig {
    /// `random`, `greedy`, `hce`, `nn` or a network file.
    pub player: String,
    /// Nodes per move for a searching player (ignored by random and greedy).
    #[serde(default)]
    pub nodes: u64,
    /// Games from the standard start (0: the study's `games`).
    #[serde(default)]
    pub games: u64,
}

impl RungConfig {
    fn new(player: &str, nodes: u64, games: u64) -> RungConfig {
        RungConfig { player: player.to_string(), nodes, games }
    }
}

/// A study, as read from `configs/study.toml`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct StudyConfig {
    /// Output folder (the command's `--out` overrides it).
    pub out: String,
    /// Study seed: game i of every rung is seeded from it and i.
    pub seed: u64,
    /// Worker threads; 0 means all cores. Does not change the games.
    pub threads: usize,
    /// Games per rung when a rung names none.
    pub games: u64,
    /// Consecutive plies without capture or forward move that draw (the
    /// rules' adjudication; every game then ends by the rules).
    pub no_progress: u32,
    /// Ply cap; a game that reaches it is unfinished (not a draw by the
    /// rules) and counted apart. High enough that capped games are rare.
    pub max_plies: u32,
    /// The first K plies of every game are drawn uniformly among the moves a
    /// search of every legal move scores within `near_best_cp` of the best
    /// (searching players only); every later move is the player's own.
    pub near_best_plies: u32,
    pub near_best_cp: u32,
    /// Also play each rung from each of White's first moves (the move fixed,
    /// the rest as above), `first_move_games` games each.
    pub first_moves: bool,
    /// Games per first move and rung (0: a quarter of the rung's games).
    pub first_move_games: u64,
    /// Endgame tables (a folder built by `alq tb build`; empty: none). Every
    /// player then searches with them and plays the tables' best moves once
    /// a game reaches them, and the study counts how often games entered the
    /// tables won, drawn or lost for White.
    pub tablebase: String,
    /// The rule set (`brainking` or `classic`) every game is played under.
    pub rules: RuleSet,
    /// The ladder, weakest first.
    #[serde(rename = "rung")]
    pub rungs: Vec<RungConfig>,
}

impl Default for StudyConfig {
    fn default() -> StudyConfig {
        StudyConfig {
            out: "data/study".to_string(),
            seed: 1,
            threads: 0,
            games: 200,
            no_progress: 60,
            max_plies: 2000,
            near_best_plies: 8,
            near_best_cp: 20,
            first_moves: false,
            first_move_games: 0,
            tablebase: String::new(),
            rules: RuleSet::BrainKing,
            rungs: vec![
                RungConfig::new("random", 0, 2000),
                RungConfig::new("greedy", 0, 1000),
                RungConfig::new("hce", 100, 1000),
                RungConfig::new("nn", 100, 1000),
                RungConfig::new("hce", 1000, 400),
                RungConfig::new("nn", 1000, 400),
                RungConfig::new("hce", 10000, 400),
                RungConfig::new("nn", 10000, 400),
                RungConfig::new("hce", 100000, 100),
                RungConfig::new("nn", 100000, 100),
            ],
        }
    }
}

pub use alq_records::StudyRun;

/// What the progress callback hears.
pub enum StudyEvent<'a> {
    /// A run starts (`index` of `count` runs in all).
    RunStart {
        index: usize,
        count: usize,
        run: &'a StudyRun,
    },
    Game(&'a GameDone<'a>),
}

impl StudyConfig {
    /// Checks the settings and lists the runs of the study, in order.
    pub fn runs(&self) -> Result<Vec<StudyRun>, SelfplayError> {
        let invalid = |m: String| Err(SelfplayError::Invalid(m));
        if self.rungs.is_empty() {
            return invalid("the study has no rungs ([[rung]] tables)".to_string());
        }
        if self.max_plies > 0 && self.max_plies < 100 {
            return invalid(format!(
                "max_plies {} is too low to let games end by the rules (use 0 or at least 100)",
                self.max_plies
            ));
        }
        let first_moves: Vec<String> = {
            let start = Position::start_of(self.rules);
            let mut m: Vec<String> = start.legal_moves_in(self.rules).iter().map(|m| m.to_string()).collect();
            m.sort();
            m
        };
        let mut runs = Vec::new();
        for (i, rung) in self.rungs.iter().enumerate() {
            let games = if rung.games > 0 { rung.games } else { self.games };
            if games == 0 {
                return invalid(format!("rung {} ({}): games must be at least 1", i + 1, rung.player));
            }
            let spec = self.spec(rung)?;
            let (family, nodes) = match &spec.kind {
                PlayerKind::Random => ("random".to_string(), None),
                PlayerKind::Greedy => ("greedy".to_string(), None),
                PlayerKind::Search(alq_play::players::EvalSpec::Hce(_)) => ("hce".to_string(), spec.limits.nodes),
                PlayerKind::Search(alq_play::players::EvalSpec::Network(_)) => ("nn".to_string(), spec.limits.nodes),
                PlayerKind::Perfect(_) => ("perfect".to_string(), None),
                PlayerKind::Engine { .. } => {
                    return invalid(format!(
                        "rung {} ({}): external engines play only in alq match",
                        i + 1,
                        rung.player
                    ))
                }
            };
            let slug: String = rung
                .player
                .rsplit('/')
                .next()
                .unwrap_or("")
                .trim_end_matches(".alqnet")
                .chars()
                .map(|c| if c.is_ascii_alphanumeric() { c.to_ascii_lowercase() } else { '-' })
                .collect();
            let base = match nodes {
                Some(n) => PathBuf::from(format!("rung-{:02}-{slug}-{n}", i + 1)),
                None => PathBuf::from(format!("rung-{:02}-{slug}", i + 1)),
            };
            let run = |first_move: Option<String>, games: u64, dir: PathBuf| StudyRun {
                rung: i,
                player: spec.to_string(),
                family: family.clone(),
                nodes,
                first_move,
                games,
                dir,
            };
            runs.push(run(None, games, base.clone()));
            if self.first_moves {
                let per_move = if self.first_move_games > 0 { self.first_move_games } else { (games / 4).max(1) };
                for mv in &first_moves {
                    runs.push(run(Some(mv.clone()), per_move, base.join(format!("first-{mv}"))));
                }
            }
        }
        Ok(runs)
    }

    fn spec(&self, rung: &RungConfig) -> Result<PlayerSpec, SelfplayError> {
        let limits = Limits::nodes(rung.nodes.max(1));
        let spec = PlayerSpec::parse(&rung.player, limits)?;
        if matches!(spec.kind, PlayerKind::Search(_)) {
            if rung.nodes == 0 {
                return Err(SelfplayError::Invalid(format!("rung {}: a searching player needs nodes", rung.player)));
            }
            if spec.limits != limits {
                return Err(SelfplayError::Invalid(format!(
                    "rung {}: give the limit as the rung's `nodes` key, not in the player (a study measures players at fixed nodes)",
                    rung.player
                )));
            }
        }
        spec.check_rules(self.rules)?;
        Ok(spec)
    }

    /// The self-play settings of one run.
    pub fn selfplay_config(&self, run: &StudyRun) -> SelfplayConfig {
        let rung = &self.rungs[run.rung];
        let mut opening = OpeningConfig::near_best(self.near_best_plies, self.near_best_cp);
        opening.line = run.first_move.clone().unwrap_or_default();
        SelfplayConfig {
            games: run.games,
            threads: self.threads,
            player: rung.player.clone(),
            nodes: rung.nodes.max(1),
            depth: 0,
            seed: self.seed,
            no_progress: self.no_progress,
            max_plies: self.max_plies,
            tablebase: self.tablebase.clone(),
            rules: self.rules,
            opening,
        }
    }
}

/// Runs (or, with `resume`, completes or extends) a study into `out`: one
/// self-play run per rung and first move, in ladder order. Writes
/// `out/study.toml` (the resolved config) first and refuses to touch a
/// folder holding a study with other settings; with `resume`, the numbers of
/// games may grow. Returns the runs.
pub fn run_study(
    config: &StudyConfig,
    out: &Path,
    resume: bool,
    on_event: impl Fn(StudyEvent) + Sync,
) -> Result<Vec<StudyRun>, SelfplayError> {
    let runs = config.runs()?;
    let io = |path: &Path, error| SelfplayError::Io { path: path.to_path_buf(), error };
    std::fs::create_dir_all(out).map_err(|e| io(out, e))?;
    let resolved = out.join("study.toml");
    // Game i of a run depends only on the seed and i, so more games extend a
    // study to exactly what a fresh run of the larger one plays.
    let comparable = |c: &StudyConfig| StudyConfig {
        threads: 0,
        out: String::new(),
        games: 0,
        first_move_games: 0,
        rungs: c.rungs.iter().map(|r| RungConfig { games: 0, ..r.clone() }).collect(),
        ..c.clone()
    };
    let kind = alq_records::RunKind {
        what: "a study",
        may_change: "config; only the numbers of games and threads may change, and rungs may be added at the end",
    };
    // Rungs added at the end of the ladder are new runs in new folders; the
    // old ones must be as they were.
    let resumed = alq_records::resume_run::<StudyConfig>(out, &resolved, resolved.exists(), resume, kind, |old| {
        let kept =
            StudyConfig { rungs: config.rungs.iter().take(old.rungs.len()).cloned().collect(), ..config.clone() };
        config.rungs.len() >= old.rungs.len() && comparable(old) == comparable(&kept)
    })?;
    if let Some(old) = resumed {
        let fewer = runs.iter().zip(old.runs()?).find(|(new, old)| new.games < old.games);
        if let Some((new, old)) = fewer {
            return Err(SelfplayError::Invalid(format!(
                "{}: {} asks for {} games where the study already has {}; a study can grow, not shrink",
                resolved.display(),
                new.dir.display(),
                new.games,
                old.games
            )));
        }
    }
    let text = toml::to_string_pretty(config).expect("a study config serialises");
    write_atomic(&resolved, text.as_bytes()).map_err(|e| io(&resolved, e))?;
    for (index, run) in runs.iter().enumerate() {
        on_event(StudyEvent::RunStart { index, count: runs.len(), run });
        let dir = out.join(&run.dir);
        // Each run resumes on its own: a finished one is left as it is.
        run_selfplay(&config.selfplay_config(run), &dir, Shard::WHOLE, true, |d| on_event(StudyEvent::Game(d)))?;
    }
    Ok(runs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_ladder_lists_its_runs() {
        let mut c = StudyConfig::default();
        let runs = c.runs().unwrap();
        assert_eq!(runs.len(), 10);
        assert_eq!(runs[0].dir, PathBuf::from("rung-01-random"));
        assert_eq!(runs[3].family, "nn");
        assert_eq!(runs[3].nodes, Some(100));
        assert!(runs[3].player.starts_with("nn:") && runs[3].player.ends_with("@nodes=100"), "{}", runs[3].player);
        c.first_moves = true;
        let runs = c.runs().unwrap();
        assert_eq!(runs.len(), 50);
        assert_eq!(runs[1].first_move.as_deref(), Some("b2-c3"));
        assert_eq!(runs[1].games, 500);
        assert_eq!(runs[1].dir, PathBuf::from("rung-01-random/first-b2-c3"));
        let sc = c.selfplay_config(&runs[1]);
        assert_eq!((sc.opening.random_plies, sc.opening.temperature_plies, sc.opening.near_best_plies), (0, 0, 8));
        assert_eq!(sc.opening.line, "b2-c3");
    }

    #[test]
    fn bad_ladders_are_refused() {
        let bad = |f: &dyn Fn(&mut StudyConfig)| {
            let mut c = StudyConfig::default();
            f(&mut c);
            c.runs().is_err()
        };
        assert!(bad(&|c| c.rungs.clear()));
        assert!(bad(&|c| c.rungs[2].nodes = 0));
        assert!(bad(&|c| c.rungs[0].player = "alphazero".to_string()));
        assert!(bad(&|c| c.max_plies = 50));
        assert!(bad(&|c| c.rungs[2].player = "hce@depth=3".to_string()));
        assert!(!bad(&|c| c.rungs[2].player = "hce@hash=4".to_string()));
        assert!(!bad(&|c| c.max_plies = 0));
    }
}
