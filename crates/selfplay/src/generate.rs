//! Self-play generation: reproducible, resumable, shardable runs that append
//! finished games to `games.csv` in index order.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use thiserror::Error;

use alq_engine::{Game, GameConfig, Limits, Position, RuleSet, Score, SearchConfig, Searcher, MATE};
use alq_records::{
    truncate_partial_row, write_atomic, write_records_atomic, GameRecord, OpeningPart, RecordError, RecordReader,
    RecordWriter,
};

use alq_play::matches::game_seed;
use alq_play::openings::Opening;
use alq_play::players::{PlayerKind, PlayerSpec, SpecError, TablesSpec};

/// How the first moves of each game are chosen.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct OpeningConfig {
    /// Uniformly random moves at the start of each game.
    pub random_plies: u32,
    /// After the random moves, this many moves sampled from search scores.
    pub temperature_plies: u32,
    /// Softmax temperature in centipawns for those moves (higher: more varied).
    pub temperature: f64,
    /// An opening book (as written by `alq openings`, or one line of moves per
    /// row), or a shipped book by name (`balanced`, `unbalanced`) when no
    /// file of that name exists; empty for none. Game i starts with line i modulo the book's
    /// size, then the random and sampled plies follow.
    pub book: String,
    /// After those, this many choices drawn uniformly among the moves that
    /// a search of every legal move (each with the player's full limit)
    /// scores within `near_best_cp` of the best (only winning moves when the
    /// best is a proven win): variety without bad moves, for measuring a
    /// player from the standard start. Plies with a single legal move in
    /// between are played and recorded in the span, but take no sample.
    pub near_best_plies: u32,
    /// The margin in centipawns for near-best moves.
    pub near_best_cp: u32,
    /// Moves every game starts with (space-separated, e.g. `c2-c3`) when no
    /// book is given; recorded as book plies.
    pub line: String,
}

impl Default for OpeningConfig {
    fn default() -> OpeningConfig {
        OpeningConfig {
            random_plies: 6,
            temperature_plies: 10,
            temperature: 50.0,
            book: String::new(),
            near_best_plies: 0,
            near_best_cp: 20,
            line: String::new(),
        }
    }
}

impl OpeningConfig {
    /// Every move chosen by the players, with near-best sampling of the
    /// first `plies` moves within `cp` centipawns: no book, no random or
    /// softmax plies.
    pub fn near_best(plies: u32, cp: u32) -> OpeningConfig {
        OpeningConfig {
            random_plies: 0,
            temperature_plies: 0,
            near_best_plies: plies,
            near_best_cp: cp,
            ..OpeningConfig::default()
        }
    }
}

/// A self-play run, as read from `configs/selfplay.toml`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SelfplayConfig {
    /// Number of games of the whole run (all shards together).
    pub games: u64,
    /// Worker threads; 0 means all cores. Does not change the games.
    pub threads: usize,
    /// The player for both sides: an evaluator spec such as `hce`, optionally
    /// with its own settings (`hce@hash=8`). Limits come from `nodes`/`depth`.
    pub player: String,
    /// Nodes per searched move (used unless `depth` is set).
    pub nodes: u64,
    /// Depth per searched move instead of nodes (0: use nodes).
    pub depth: u32,
    /// Run seed: game i is seeded from it and i.
    pub seed: u64,
    /// Consecutive plies without capture or forward move that draw (0: off).
    pub no_progress: u32,
    /// Ply cap of a game (0: none).
    pub max_plies: u32,
    /// Endgame tables (a folder built by `alq tb build`; empty: none). The
    /// search uses them, once a game reaches them both sides play the
    /// tables' best moves (ties drawn from the game's seed), and each record
    /// keeps the ply and White's exact value where the game entered them.
    pub tablebase: String,
    /// The rule set (`brainking` or `classic`); the records name it, and a
    /// network or tables of other rules are refused.
    pub rules: RuleSet,
    pub opening: OpeningConfig,
}

impl Default for SelfplayConfig {
    fn default() -> SelfplayConfig {
        SelfplayConfig {
            games: 1000,
            threads: 0,
            player: "hce".to_string(),
            nodes: 1000,
            depth: 0,
            seed: 1,
            no_progress: 60,
            max_plies: 400,
            tablebase: String::new(),
            rules: RuleSet::BrainKing,
            opening: OpeningConfig::default(),
        }
    }
}

impl SelfplayConfig {
    pub fn limits(&self) -> Limits {
        if self.depth > 0 {
            Limits::depth(self.depth)
        } else {
            Limits::nodes(self.nodes.max(1))
        }
    }

    pub fn game_config(&self) -> GameConfig {
        GameConfig {
            no_progress_limit: (self.no_progress > 0).then_some(self.no_progress),
            max_plies: (self.max_plies > 0).then_some(self.max_plies),
            rules: self.rules,
        }
    }

    /// The player with this run's limits and tables.
    pub fn player_spec(&self) -> Result<PlayerSpec, SpecError> {
        let mut spec = PlayerSpec::parse(&self.player, self.limits())?;
        if spec.is_external() {
            let problem = "external engines play only in alq match".to_string();
            return Err(SpecError { spec: self.player.clone(), problem });
        }
        spec.limits = self.limits();
        let spec = spec.with_tables(self.tables()?.as_ref());
        spec.check_rules(self.rules)?;
        Ok(spec)
    }

    /// The run's endgame tables, if it names any.
    pub fn tables(&self) -> Result<Option<TablesSpec>, SpecError> {
        let dir = self.tablebase.trim();
        if dir.is_empty() {
            return Ok(None);
        }
        TablesSpec::open(dir)
            .map(Some)
            .map_err(|e| SpecError { spec: format!("tablebase = {dir:?}"), problem: e.to_string() })
    }
}

/// Which part of a run this process plays: game indices `i` with
/// `i % count == index`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Shard {
    pub index: u64,
    pub count: u64,
}

/// A shard description that is not `I/N` with `I < N`.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error("shard {text:?}: {problem}")]
pub struct ShardError {
    pub text: String,
    pub problem: String,
}

impl Shard {
    pub const WHOLE: Shard = Shard { index: 0, count: 1 };

    /// Reads `I/N` with `I < N`.
    pub fn parse(text: &str) -> Result<Shard, ShardError> {
        let bad = |problem: String| ShardError { text: text.to_string(), problem };
        let (i, n) = text.split_once('/').ok_or_else(|| bad("expected I/N, e.g. 0/4".into()))?;
        let index: u64 = i.trim().parse().map_err(|_| bad(format!("{i:?} is not a number")))?;
        let count: u64 = n.trim().parse().map_err(|_| bad(format!("{n:?} is not a number")))?;
        if count == 0 || index >= count {
            return Err(bad("need 0 <= I < N".into()));
        }
        Ok(Shard { index, count })
    }

    /// The game indices of this shard among `games`.
    pub fn indices(self, games: u64) -> impl Iterator<Item = u64> {
        (self.index..games).step_by(self.count as usize)
    }
}

/// What a run writes beside its games: the resolved config and provenance.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunInfo {
    pub program: String,
    pub version: String,
    pub shard: Shard,
    /// The player as written into the records.
    pub player: String,
    /// The endgame tables the games were played with (folder and piece
    /// count), if any.
    #[serde(default)]
    pub tables: Option<String>,
    pub config: SelfplayConfig,
}

#[derive(Debug, Error)]
pub enum SelfplayError {
    #[error(transparent)]
    Spec(#[from] SpecError),
    #[error(transparent)]
    Record(#[from] RecordError),
    #[error("{}: {error}", path.display())]
    Io { path: PathBuf, error: std::io::Error },
    #[error("{0}")]
    Invalid(String),
    /// The output holds a run that may not be continued.
    #[error(transparent)]
    Run(#[from] alq_records::RunError),
}

impl SelfplayError {
    /// The run-folder refusal behind this error, if it is one (the command
    /// line adds how to resume).
    pub fn run_error(&self) -> Option<&alq_records::RunError> {
        match self {
            SelfplayError::Run(e) => Some(e),
            _ => None,
        }
    }
}

/// Reads the run's opening book, if it names one, or its fixed first line.
pub fn load_book(config: &SelfplayConfig) -> Result<Vec<Opening>, SelfplayError> {
    if config.opening.book.trim().is_empty() {
        let line = config.opening.line.trim();
        if line.is_empty() {
            return Ok(Vec::new());
        }
        return alq_play::openings::parse_book(config.rules, line)
            .map_err(|e| SelfplayError::Invalid(format!("opening line {line:?}: {e}")));
    }
    let path = Path::new(config.opening.book.trim());
    // A shipped book by name (`balanced`, `unbalanced`) when no file has it.
    let text = match alq_play::shipped_book(config.opening.book.trim()) {
        Some(text) if !path.exists() => text.to_string(),
        _ => std::fs::read_to_string(path).map_err(|error| SelfplayError::Io { path: path.to_path_buf(), error })?,
    };
    alq_play::openings::parse_book(config.rules, &text)
        .map_err(|e| SelfplayError::Invalid(format!("book {}: {e}", path.display())))
}

/// Plays game `index` of a run. The same config, book and index always give
/// the same record.
pub fn play_game(config: &SelfplayConfig, spec: &PlayerSpec, book: &[Opening], index: u64) -> GameRecord {
    let seed = game_seed(config.seed, index);
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut game = Game::new(Position::start_of(config.rules), config.game_config());
    let mut scores: Vec<Option<Score>> = Vec::new();
    let mut parts: Vec<OpeningPart> = Vec::new();
    let line = if book.is_empty() { &[][..] } else { &book[(index % book.len() as u64) as usize].moves[..] };
    let mut played = 0;
    for &mv in line {
        if game.is_over() || game.play(mv).is_err() {
            break;
        }
        scores.push(None);
        played += 1;
    }
    parts.push(OpeningPart::Book(played));
    let mut played = 0;
    for _ in 0..config.opening.random_plies {
        let moves = game.legal_moves();
        let Some(&mv) = moves.choose(&mut rng) else { break };
        if game.is_over() || game.play(mv).is_err() {
            break;
        }
        scores.push(None);
        played += 1;
    }
    parts.push(OpeningPart::Random(played));
    // A freshly built player starts with an empty table: the game stands alone.
    let mut player = spec.build();
    let o = &config.opening;
    let sampled = o.temperature_plies + o.near_best_plies > 0;
    if let (PlayerKind::Search(eval), true) = (&spec.kind, sampled) {
        // Short searches of every move: a small table is enough.
        let mut searcher = Searcher::new(eval.build(), SearchConfig { hash_mb: 1 });
        searcher.set_tables(spec.tables.as_ref().map(|t| std::sync::Arc::clone(&t.tables)));
        let mut sample =
            |n: u32, split: bool, pick: &dyn Fn(&[(alq_engine::Move, Score)], &mut ChaCha8Rng) -> usize| {
                let mut played = 0;
                let mut choices = 0;
                while choices < n && !game.is_over() {
                    let legal = game.legal_moves();
                    if legal.len() == 1 && !split {
                        // Near-best sampling counts choices: a forced ply is
                        // played as it must be and takes no sample.
                        game.play(legal[0]).expect("a generated move is legal");
                        scores.push(None);
                        played += 1;
                        continue;
                    }
                    choices += 1;
                    let per_move = if split {
                        let moves = legal.len().max(1) as u64;
                        Limits {
                            nodes: spec.limits.nodes.map(|n| (n / moves).max(64)),
                            depth: spec.limits.depth.map(|d| d.saturating_sub(1).max(1)),
                            movetime: None,
                        }
                    } else {
                        Limits { movetime: None, ..spec.limits }
                    };
                    let scored = score_moves(&mut searcher, &game, &legal, per_move);
                    let (mv, score) = scored[pick(&scored, &mut rng)];
                    game.play(mv).expect("a generated move is legal");
                    scores.push(Some(score));
                    played += 1;
                }
                played
            };
        let temperature = o.temperature;
        // Softmax sampling shares the player's limit between the moves (as
        // it always has: training data); near-best sampling searches each
        // move with the player's full limit, so that "near the best" is
        // judged as well as the player judges its own moves.
        let plies = sample(o.temperature_plies, true, &|s, r| pick_softmax(s, temperature, r));
        parts.push(OpeningPart::Softmax { plies, temperature });
        let cp = o.near_best_cp;
        let plies = sample(o.near_best_plies, false, &|s, r| pick_near_best(s, cp, r));
        parts.push(OpeningPart::NearBest { plies, cp });
    }
    let opening_plies = parts.iter().map(|p| p.plies()).sum();
    let mut fallback_plies = Vec::new();
    while !game.is_over() {
        let before = player.fallbacks();
        let Some(choice) = player.choose(&game, &mut rng) else { break };
        game.play(choice.mv).expect("the player chooses a legal move");
        scores.push(choice.score);
        if player.fallbacks() > before {
            fallback_plies.push(game.plies() as u32);
        }
    }
    let name = spec.to_string();
    let record = GameRecord::from_game(index, seed, &name, &name, &game, opening_plies, &scores)
        .with_opening(&parts)
        .with_fallbacks(&fallback_plies);
    match &spec.tables {
        Some(tables) => tables.mark_entry(&game, record),
        None => record,
    }
}

/// Searches every legal move (`moves`, the game's) with `per_move` and
/// returns each with its score, mover's view.
fn score_moves(
    searcher: &mut Searcher<Box<dyn alq_engine::Evaluator>>,
    game: &Game,
    moves: &alq_engine::MoveList,
    per_move: Limits,
) -> Vec<(alq_engine::Move, Score)> {
    let mut scored = Vec::new();
    for &mv in moves {
        let mut child = game.clone();
        child.play(mv).expect("a generated move is legal");
        let score = if child.is_over() {
            match child.outcome().and_then(|o| o.winner) {
                Some(_) => Score::Win(1),
                None => Score::Cp(0),
            }
        } else {
            let r = searcher.search(&child, per_move, |_| {});
            match r.score.negate() {
                Score::Win(p) => Score::Win(p + 1),
                Score::Loss(p) => Score::Loss(p + 1),
                cp => cp,
            }
        };
        scored.push((mv, score));
    }
    scored
}

/// Samples a move with probability proportional to exp(score / temperature).
fn pick_softmax(scored: &[(alq_engine::Move, Score)], temperature: f64, rng: &mut impl Rng) -> usize {
    let best = scored.iter().map(|(_, s)| s.to_internal()).max().unwrap_or(0);
    let weights: Vec<f64> = scored
        .iter()
        .map(|(_, s)| {
            let diff = (s.to_internal() - best).max(-MATE) as f64;
            (diff / temperature.max(1e-3)).exp()
        })
        .collect();
    let total: f64 = weights.iter().sum();
    let mut pick = rng.gen::<f64>() * total;
    for (i, w) in weights.iter().enumerate() {
        pick -= w;
        if pick <= 0.0 {
            return i;
        }
    }
    scored.len() - 1
}

/// The moves a player would accept as best: within `cp` centipawns of the
/// best score, and when the best is a proven win, only winning moves (a win
/// in more plies is still a win; a non-winning move is not near it).
pub fn near_best_moves(scored: &[(alq_engine::Move, Score)], cp: u32) -> Vec<usize> {
    let Some(best) = scored.iter().map(|(_, s)| *s).max_by_key(|s| s.to_internal()) else { return Vec::new() };
    (0..scored.len())
        .filter(|&i| match (best, scored[i].1) {
            (Score::Win(_), s) => matches!(s, Score::Win(_)),
            (Score::Loss(_), s) => s == best,
            (_, s @ (Score::Cp(_) | Score::Draw)) => best.to_internal() - s.to_internal() <= cp as i32,
            _ => false,
        })
        .collect()
}

/// Draws uniformly among the near-best moves.
fn pick_near_best(scored: &[(alq_engine::Move, Score)], cp: u32, rng: &mut impl Rng) -> usize {
    let candidates = near_best_moves(scored, cp);
    *candidates.choose(rng).expect("the best move is among the near-best")
}

/// A finished game as reported to the progress callback.
pub struct GameDone<'a> {
    pub record: &'a GameRecord,
    /// Games of this shard written so far (resumed ones included).
    pub done: u64,
    /// Games of this shard in all.
    pub total: u64,
}

/// Runs (or resumes) self-play into `out/games.csv` and `out/run.toml`.
/// Returns the number of games written by this call.
pub fn run_selfplay(
    config: &SelfplayConfig,
    out: &Path,
    shard: Shard,
    resume: bool,
    on_game: impl Fn(&GameDone) + Sync,
) -> Result<u64, SelfplayError> {
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |error| SelfplayError::Io { path: path.clone(), error }
    };
    let spec = config.player_spec()?;
    let book = load_book(config)?;
    std::fs::create_dir_all(out).map_err(io(out))?;
    let games_path = out.join("games.csv");
    let run_path = out.join("run.toml");
    let info = RunInfo {
        program: "alq".to_string(),
        version: env!("CARGO_PKG_VERSION").to_string(),
        shard,
        player: spec.to_string(),
        tables: spec.tables.as_ref().map(|t| t.tables.describe()),
        config: config.clone(),
    };
    if resume {
        truncate_partial_row(&games_path)?;
    }
    let existing = if games_path.exists() { count_rows(&games_path, shard)? } else { 0 };
    let comparable = |i: &RunInfo| {
        let mut c = i.config.clone();
        c.threads = 0;
        c.games = 0;
        (c, i.shard, i.player.clone())
    };
    let kind = alq_records::RunKind {
        what: "a self-play run",
        may_change: "config, seed and shard; only games and threads may change",
    };
    alq_records::resume_run::<RunInfo>(out, &run_path, existing > 0 || run_path.exists(), resume, kind, |old| {
        comparable(old) == comparable(&info)
    })?;
    write_atomic(&run_path, toml::to_string_pretty(&info).expect("config serialises").as_bytes())
        .map_err(io(&run_path))?;

    let indices: Vec<u64> = shard.indices(config.games).collect();
    let total = indices.len() as u64;
    if existing > total {
        return Err(SelfplayError::Invalid(format!(
            "{} already holds {existing} games, more than the {total} asked for",
            games_path.display()
        )));
    }
    let todo = &indices[existing as usize..];
    let writer = RecordWriter::append(&games_path)?;
    // Finished games wait here until every earlier index is written.
    struct Ordered {
        pending: BTreeMap<u64, GameRecord>,
        next: usize,
        writer: RecordWriter,
        error: Option<RecordError>,
    }
    let state = Mutex::new(Ordered { pending: BTreeMap::new(), next: 0, writer, error: None });
    todo.par_iter().for_each(|&index| {
        if state.lock().map(|s| s.error.is_some()).unwrap_or(true) {
            return;
        }
        let record = play_game(config, &spec, &book, index);
        let mut guard = state.lock().unwrap_or_else(|e| e.into_inner());
        let s = &mut *guard;
        s.pending.insert(index, record);
        while s.next < todo.len() {
            let Some(record) = s.pending.remove(&todo[s.next]) else { break };
            if let Err(e) = s.writer.write(&record) {
                s.error = Some(e);
                return;
            }
            s.next += 1;
            on_game(&GameDone { record: &record, done: existing + s.next as u64, total });
        }
    });
    let mut s = state.into_inner().unwrap_or_else(|e| e.into_inner());
    if let Some(e) = s.error {
        return Err(e.into());
    }
    s.writer.sync()?;
    Ok(s.next as u64)
}

/// Counts the complete games already in a shard's file, checking that they
/// are the shard's first indices in order.
fn count_rows(path: &Path, shard: Shard) -> Result<u64, SelfplayError> {
    let mut reader = RecordReader::open(path)?;
    let mut count = 0u64;
    let mut expected = shard.index;
    while let Some(item) = reader.next_record() {
        match item {
            Ok((line, record)) => {
                if record.id != expected {
                    return Err(SelfplayError::Invalid(format!(
                        "{}:{line}: game id {} where {expected} was expected; the file is not this run's",
                        path.display(),
                        record.id
                    )));
                }
                count += 1;
                expected += shard.count;
            }
            Err(e) => return Err(e.into()),
        }
    }
    Ok(count)
}

/// Combines shard files into the file one run would have written: all games
/// sorted by id, which must run from 0 without gaps or duplicates.
pub fn merge(inputs: &[PathBuf], out: &Path) -> Result<u64, SelfplayError> {
    let mut records = Vec::new();
    for path in inputs {
        let mut reader = RecordReader::open(path)?;
        while let Some(item) = reader.next_record() {
            let (line, record) = item?;
            record.replay().map_err(|e| RecordError::Bad { file: path.clone(), line, problem: e.to_string() })?;
            records.push(record);
        }
    }
    records.sort_by_key(|r| r.id);
    for (i, r) in records.iter().enumerate() {
        if r.id != i as u64 {
            let problem = if i > 0 && records[i - 1].id == r.id {
                format!("game {} appears twice", r.id)
            } else {
                format!("game {i} is missing (the next game is {})", r.id)
            };
            return Err(SelfplayError::Invalid(format!("cannot merge: {problem}")));
        }
    }
    write_records_atomic(out, &records)?;
    Ok(records.len() as u64)
}
