//! Game records from Python: streaming reads, the trainer's samples as
//! numpy arrays, and appending games a user's bot played.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use numpy::prelude::*;
use numpy::{PyArray1, PyArray2};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use alq_engine::{ActionIndex, EndgameTables, RuleSet, INPUTS};
use alq_records::{blend, is_validation, GameRecord, RecordReader, RecordWriter, ReplayedGame, SampleOptions, Samples};
use rayon::prelude::*;

use crate::board::{Game, Position};
use crate::convert::Wrap;
use crate::tables::TablesArg;
use crate::{ArgumentError, RecordError, RulesError};

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Record>()?;
    m.add_class::<GameReader>()?;
    m.add_class::<GameWriter>()?;
    m.add_function(wrap_pyfunction!(read_games, m)?)?;
    m.add_function(wrap_pyfunction!(samples, m)?)?;
    Ok(())
}

fn record_err(e: alq_records::RecordError) -> PyErr {
    RecordError::new_err(e.to_string())
}

/// One path or several.
#[derive(FromPyObject)]
pub(crate) enum Paths {
    #[pyo3(transparent, annotation = "str | os.PathLike")]
    One(PathBuf),
    #[pyo3(transparent, annotation = "list[str | os.PathLike]")]
    Many(Vec<PathBuf>),
}

impl Paths {
    fn into_vec(self) -> Vec<PathBuf> {
        match self {
            Paths::One(p) => vec![p],
            Paths::Many(v) => v,
        }
    }
}

/// One game of a records file, replayed and checked.
#[pyclass(frozen, get_all, module = "alquerque_lab")]
pub struct Record {
    id: u64,
    seed: u64,
    rules: String,
    /// The start position.
    start: Position,
    white: String,
    black: String,
    /// `1-0`, `0-1` or `1/2-1/2`.
    result: String,
    termination: String,
    plies: u32,
    opening_plies: u32,
    opening: String,
    /// The moves in canonical text.
    moves: Vec<String>,
    /// The searcher's score of each move, mover's view, as in the file
    /// (`35`, `w12`, `l7`, `d`), `None` for a move not chosen by search.
    scores: Vec<Option<String>>,
    /// The file and line the game was read from.
    file: String,
    game: Game,
}

#[pymethods]
impl Record {
    fn __repr__(&self) -> String {
        format!(
            "Record(id={}, white='{}', black='{}', result='{}', plies={})",
            self.id, self.white, self.black, self.result, self.plies
        )
    }

    /// Every position of the game, the start first.
    fn positions(&self) -> Vec<Position> {
        let rules = self.game.game.rules();
        self.game.game.positions().iter().map(|&p| Position::new(p, rules)).collect()
    }
}

fn record_of(game: ReplayedGame, file: &std::path::Path) -> Record {
    let rules = game.game.rules();
    let r = &game.record;
    Record {
        id: r.id,
        seed: r.seed,
        rules: r.rules.clone(),
        start: Position::new(game.game.start(), rules),
        white: r.white.clone(),
        black: r.black.clone(),
        result: r.result.clone(),
        termination: r.termination.clone(),
        plies: r.plies,
        opening_plies: r.opening_plies,
        opening: r.opening.clone(),
        moves: r.moves.split_whitespace().map(str::to_string).collect(),
        scores: r.scores.split(' ').map(|s| (!s.is_empty()).then(|| s.to_string())).take(r.plies as usize).collect(),
        file: file.display().to_string(),
        game: Game { game: game.game.clone() },
    }
}

/// Streams the games of one or more records files, file by file; memory
/// does not grow with the files. A damaged row raises `RecordError` naming
/// the file and line.
#[pyclass(module = "alquerque_lab")]
pub struct GameReader {
    files: Vec<PathBuf>,
    next_file: usize,
    current: Option<(PathBuf, RecordReader)>,
    rules: Option<RuleSet>,
}

impl GameReader {
    fn next_game(&mut self) -> Result<Option<(PathBuf, ReplayedGame)>, alq_records::RecordError> {
        loop {
            if let Some((path, reader)) = &mut self.current {
                match reader.next() {
                    Some(game) => return Ok(Some((path.clone(), game?))),
                    None => self.current = None,
                }
            }
            let Some(path) = self.files.get(self.next_file).cloned() else { return Ok(None) };
            self.next_file += 1;
            let mut reader = RecordReader::open(&path)?;
            if let Some(rules) = self.rules {
                reader = reader.expecting(rules);
            }
            self.current = Some((path, reader));
        }
    }
}

#[pymethods]
impl GameReader {
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__(&mut self) -> PyResult<Option<Record>> {
        Ok(self.next_game().map_err(record_err)?.map(|(path, game)| record_of(game, &path)))
    }
}

/// Streams the games of `paths` (a path or a list). With `rules`, a game
/// played under other rules is an error.
#[pyfunction]
#[pyo3(signature = (paths, *, rules = None))]
fn read_games(paths: Paths, rules: Option<Wrap<RuleSet>>) -> GameReader {
    GameReader { files: paths.into_vec(), next_file: 0, current: None, rules: rules.map(|Wrap(r)| r) }
}

/// Appends games to a records file (created with its header if new), one
/// row per game, flushed as written so that a crash loses at most the game
/// being written. Usable as a context manager.
#[pyclass(module = "alquerque_lab")]
pub struct GameWriter {
    writer: Mutex<Option<RecordWriter>>,
    path: PathBuf,
    next_id: u64,
}

#[pymethods]
impl GameWriter {
    #[new]
    fn py_new(path: PathBuf) -> PyResult<GameWriter> {
        let writer = RecordWriter::append(&path).map_err(record_err)?;
        let next_id = match RecordReader::open(&path) {
            Ok(reader) => reader.filter_map(Result::ok).map(|g| g.record.id + 1).max().unwrap_or(0),
            Err(_) => 0,
        };
        Ok(GameWriter { writer: Mutex::new(Some(writer)), path, next_id })
    }

    fn __enter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    #[pyo3(signature = (*_args))]
    fn __exit__(&self, _args: &Bound<'_, pyo3::types::PyTuple>) -> PyResult<bool> {
        self.close()?;
        Ok(false)
    }

    /// Writes one game. `white` and `black` name the players; `scores` (one
    /// per move, mover's view: centipawns as int, or text such as `"w12"`,
    /// or `None`) are optional; `opening_plies` counts the first moves not
    /// chosen by the players' own search. Returns the game's id (the next
    /// after the file's largest unless given).
    #[pyo3(signature = (game, *, white = "python", black = "python", id = None, seed = 0, scores = None, opening_plies = 0))]
    #[allow(clippy::too_many_arguments)]
    fn write(
        &mut self,
        game: PyRef<'_, Game>,
        white: &str,
        black: &str,
        id: Option<u64>,
        seed: u64,
        scores: Option<Vec<Option<Bound<'_, PyAny>>>>,
        opening_plies: u32,
    ) -> PyResult<u64> {
        let plies = game.game.plies();
        let mut parsed = vec![None; plies];
        if let Some(scores) = scores {
            if scores.len() != plies {
                return Err(ArgumentError::new_err(format!(
                    "{} scores for a game of {plies} moves: give one per move (None where there is none)",
                    scores.len()
                )));
            }
            for (i, s) in scores.iter().enumerate() {
                let Some(s) = s else { continue };
                let text = match s.extract::<i64>() {
                    Ok(cp) => cp.to_string(),
                    Err(_) => s.str()?.to_string(),
                };
                parsed[i] =
                    alq_records::parse_score(&text).map_err(|e| ArgumentError::new_err(format!("scores[{i}]: {e}")))?;
            }
        }
        if opening_plies as usize > plies {
            return Err(ArgumentError::new_err(format!(
                "opening_plies {opening_plies} exceeds the game's {plies} moves"
            )));
        }
        let id = id.unwrap_or(self.next_id);
        let record = GameRecord::from_game(id, seed, white, black, &game.game, opening_plies, &parsed);
        let mut guard = self.writer.lock().unwrap_or_else(|e| e.into_inner());
        let writer = guard
            .as_mut()
            .ok_or_else(|| RecordError::new_err(format!("{}: the writer is closed", self.path.display())))?;
        writer.write(&record).map_err(record_err)?;
        self.next_id = self.next_id.max(id + 1);
        Ok(id)
    }

    /// Syncs the file to disk and closes it.
    fn close(&self) -> PyResult<()> {
        if let Some(mut w) = self.writer.lock().unwrap_or_else(|e| e.into_inner()).take() {
            w.sync().map_err(record_err)?;
        }
        Ok(())
    }
}

/// The trainer's samples of the games in `paths` as numpy arrays, exactly as
/// `alq train` sees them before shuffling and mirroring: one row per
/// position kept (the options are the trainer's, with its defaults), with
/// `features` (float32, n × 50, side to move's view), `results` (the
/// game's result for the side to move: 1, 0.5, 0), `scores` (the squashed
/// search score, the result where there is none), both exact where `tb`
/// covers the position, `targets` (`result_weight * results + (1 -
/// result_weight) * scores`, what a scalar network fits), `plies`,
/// `game_ids` (unique across the files: the record's id plus the ids of the
/// files before it), `record_ids` (the id in its file), `files` (the index
/// of its file in `paths`), `exact` (bool: the tables gave the value), and
/// policy targets: `actions` (int32, the action id of the move played from
/// the position; -1 at a game's final position) and `searched` (bool: that
/// move was the players' own search's choice: past the opening, whose
/// moves are random or sampled, and with a score; the records keep no
/// scores of the other moves, so there is no soft target over the legal
/// moves). `part` picks
/// the trainer's `"train"` or `"validation"` games (split by game with
/// `validation_fraction`), or `"all"`. Runs without the GIL.
#[pyfunction]
#[pyo3(
    signature = (paths, *, rules = Wrap::BRAINKING, tb = None, result_weight = 0.5, skip_opening = true, skip_forced_captures = true, part = "all", validation_fraction = 0.1),
    text_signature = "(paths, *, rules=\"brainking\", tb=None, result_weight=0.5, skip_opening=True, skip_forced_captures=True, part=\"all\", validation_fraction=0.1)"
)]
#[allow(clippy::too_many_arguments)]
fn samples<'py>(
    py: Python<'py>,
    paths: Paths,
    rules: Wrap<RuleSet>,
    tb: Option<TablesArg<'py>>,
    result_weight: f32,
    skip_opening: bool,
    skip_forced_captures: bool,
    part: &str,
    validation_fraction: f64,
) -> PyResult<Bound<'py, PyDict>> {
    let Wrap(rules) = rules;
    if !(0.0..=1.0).contains(&result_weight) {
        return Err(ArgumentError::new_err(format!("result_weight must be between 0 and 1, not {result_weight}")));
    }
    let part = match part {
        "all" => None,
        "train" => Some(false),
        "validation" => Some(true),
        other => {
            return Err(ArgumentError::new_err(format!(
                "part: {other:?} is not a part (expected \"all\", \"train\" or \"validation\")"
            )))
        }
    };
    if part.is_some() && !(validation_fraction > 0.0 && validation_fraction < 1.0) {
        return Err(ArgumentError::new_err(format!(
            "validation_fraction must be strictly between 0 and 1, not {validation_fraction}"
        )));
    }
    // Whether a game is kept by `part` (None: every game).
    let part_of =
        move |record: &GameRecord| part.map(|validation| is_validation(record, validation_fraction) == validation);
    let tables: Option<Arc<dyn EndgameTables>> = match tb {
        Some(t) => {
            let tables = t.open(py)? as Arc<dyn EndgameTables>;
            if tables.rules() != rules {
                return Err(RulesError::new_err(format!(
                    "the tables were built for the {} rules, the samples are read under {}",
                    tables.rules().name(),
                    rules.name()
                )));
            }
            Some(tables)
        }
        None => None,
    };
    let files = paths.into_vec();
    let collected = py.detach(move || -> Result<Columns, alq_records::RecordError> {
        let options = SampleOptions { skip_opening, skip_forced_captures, dedup: false };
        let tables = tables.as_deref();
        let mut c = Columns::default();
        let index = ActionIndex::of(rules);
        // `game_ids`: the record's id plus the ids of the files before it
        // (their largest id + 1), so ids are unique across files.
        let mut offset = 0u64;
        for (file_no, file) in files.iter().enumerate() {
            let mut largest: Option<u64> = None;
            // Rows are read in order and replayed in parallel, a chunk at a
            // time; the samples keep the file's order.
            let mut reader = RecordReader::open(file)?;
            let mut next = reader.read_chunk(CHUNK);
            loop {
                let chunk = next?;
                if chunk.is_empty() {
                    break;
                }
                // Read the next chunk while this one is replayed.
                let (following, parts) = rayon::join(
                    || reader.read_chunk(CHUNK),
                    || {
                        // Games in runs of 32 per task: few, large allocations.
                        chunk
                            .par_chunks(32)
                            .map(|games| -> Result<Columns, alq_records::RecordError> {
                                let mut part = Columns::with_capacity(games.len() * 40);
                                for (line, record) in games {
                                    if part_of(record).is_some_and(|keep| !keep) {
                                        continue;
                                    }
                                    let game = alq_records::replay_row(file, *line, record, Some(rules))?;
                                    let moves = game.game.moves();
                                    let opening = record.opening_plies;
                                    for s in Samples::new(options).of_game(&game) {
                                        let (result, score) = s.training_values(tables);
                                        part.features.extend_from_slice(&alq_engine::features(&s.position));
                                        part.results.push(result);
                                        part.scores.push(score);
                                        part.targets.push(blend(result, score, result_weight));
                                        part.plies.push(s.ply);
                                        part.game_ids.push(offset + s.game_id);
                                        part.record_ids.push(s.game_id);
                                        part.files.push(file_no as u32);
                                        // The move played from here (-1: the
                                        // game's final position).
                                        let played = moves.get(s.ply as usize).and_then(|&m| index.action(m));
                                        part.actions.push(played.map_or(-1, |a| a as i32));
                                        part.searched.push(played.is_some() && s.ply >= opening && s.score.is_some());
                                        part.exact.push(alq_records::exact_target(tables, &s.position).is_some());
                                    }
                                }
                                Ok(part)
                            })
                            .collect::<Vec<_>>()
                    },
                );
                next = following;
                for part in parts {
                    let part = part?;
                    largest = largest.max(part.record_ids.iter().copied().max());
                    c.append(part);
                }
            }
            offset += largest.map_or(0, |id| id + 1);
        }
        Ok(c)
    });
    let c = collected.map_err(record_err)?;
    let n = c.results.len();
    let out = PyDict::new(py);
    let features = PyArray1::from_vec(py, c.features).reshape([n, INPUTS])?;
    let features: Bound<'py, PyArray2<f32>> = features;
    out.set_item("features", features)?;
    out.set_item("targets", c.targets.into_pyarray(py))?;
    out.set_item("results", c.results.into_pyarray(py))?;
    out.set_item("scores", c.scores.into_pyarray(py))?;
    out.set_item("plies", c.plies.into_pyarray(py))?;
    out.set_item("game_ids", c.game_ids.into_pyarray(py))?;
    out.set_item("record_ids", c.record_ids.into_pyarray(py))?;
    out.set_item("files", c.files.into_pyarray(py))?;
    out.set_item("actions", c.actions.into_pyarray(py))?;
    out.set_item("searched", c.searched.into_pyarray(py))?;
    out.set_item("exact", c.exact.into_pyarray(py))?;
    Ok(out)
}

/// Games replayed in parallel at a time by `samples`.
const CHUNK: usize = 512;

#[derive(Default)]
struct Columns {
    features: Vec<f32>,
    results: Vec<f32>,
    scores: Vec<f32>,
    targets: Vec<f32>,
    plies: Vec<u32>,
    game_ids: Vec<u64>,
    record_ids: Vec<u64>,
    files: Vec<u32>,
    actions: Vec<i32>,
    searched: Vec<bool>,
    exact: Vec<bool>,
}

impl Columns {
    fn with_capacity(rows: usize) -> Columns {
        Columns {
            features: Vec::with_capacity(rows * INPUTS),
            results: Vec::with_capacity(rows),
            scores: Vec::with_capacity(rows),
            targets: Vec::with_capacity(rows),
            plies: Vec::with_capacity(rows),
            game_ids: Vec::with_capacity(rows),
            record_ids: Vec::with_capacity(rows),
            files: Vec::with_capacity(rows),
            actions: Vec::with_capacity(rows),
            searched: Vec::with_capacity(rows),
            exact: Vec::with_capacity(rows),
        }
    }

    fn append(&mut self, mut other: Columns) {
        self.features.append(&mut other.features);
        self.results.append(&mut other.results);
        self.scores.append(&mut other.scores);
        self.targets.append(&mut other.targets);
        self.plies.append(&mut other.plies);
        self.game_ids.append(&mut other.game_ids);
        self.record_ids.append(&mut other.record_ids);
        self.files.append(&mut other.files);
        self.actions.append(&mut other.actions);
        self.searched.append(&mut other.searched);
        self.exact.append(&mut other.exact);
    }
}
