//! Positions, moves and games (the fixed action index and the batch
//! functions are in `actions.rs`).

// Method names are the Python API's (`to_array`, `from_point`), and pyo3
// methods take `&self`: clippy's Rust naming convention does not apply.
#![allow(clippy::wrong_self_convention)]

use numpy::{IntoPyArray, PyArray1, PyArray3};
use pyo3::prelude::*;
use pyo3::types::PyType;

use alq_engine::{features, ActionIndex, Bitboard, Game as EngineGame, GameConfig, Point, RuleSet, Side};

use crate::convert::Wrap;
use crate::{ActionError, MoveError, PositionError};

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Move>()?;
    m.add_class::<Position>()?;
    m.add_class::<Game>()?;
    Ok(())
}

pub(crate) fn side_name(side: Side) -> &'static str {
    match side {
        Side::White => "white",
        Side::Black => "black",
    }
}

pub(crate) fn point_names(bb: Bitboard) -> Vec<String> {
    bb.into_iter().map(|p| p.to_string()).collect()
}

pub(crate) fn parse_position(text: &str) -> PyResult<alq_engine::Position> {
    text.parse().map_err(|e: alq_engine::PositionError| PositionError::new_err(e.to_string()))
}

/// A move of one position: its canonical text, origin, end and captured
/// points, and its action id in the rule set's fixed action index. Moves
/// sort by rule set, then by action id.
#[pyclass(frozen, eq, ord, hash, module = "alquerque_lab", from_py_object)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Move {
    pub(crate) mv: alq_engine::Move,
    pub(crate) rules: RuleSet,
}

impl Move {
    pub(crate) fn new(mv: alq_engine::Move, rules: RuleSet) -> Move {
        Move { mv, rules }
    }

    fn action_id(&self) -> u32 {
        ActionIndex::of(self.rules).action(self.mv).expect("every legal move is indexed")
    }
}

impl PartialOrd for Move {
    fn partial_cmp(&self, other: &Move) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Move {
    fn cmp(&self, other: &Move) -> std::cmp::Ordering {
        // Equal action ids under one rule set are equal moves (a move is its
        // origin, end and captured set), so this agrees with `==`.
        (self.rules as u8, self.action_id()).cmp(&(other.rules as u8, other.action_id()))
    }
}

#[pymethods]
impl Move {
    fn __str__(&self) -> String {
        self.mv.to_string()
    }

    fn __repr__(&self) -> String {
        format!("Move('{}')", self.mv)
    }

    /// The canonical move text (`d3-c3`, `b2xb4xd4`).
    #[getter]
    fn text(&self) -> String {
        self.mv.to_string()
    }

    /// Where the piece starts (`c2`).
    #[getter]
    fn from_point(&self) -> String {
        self.mv.from().to_string()
    }

    /// Where the piece ends.
    #[getter]
    fn to_point(&self) -> String {
        self.mv.to().to_string()
    }

    /// The captured points, in board order (a1, b1, … e5).
    #[getter]
    fn captured(&self) -> Vec<String> {
        point_names(self.mv.captured())
    }

    /// The landing points of the canonical path (empty for a simple move).
    #[getter]
    fn path(&self) -> Vec<String> {
        self.mv.landings().map(|p| p.to_string()).collect()
    }

    #[getter]
    fn is_capture(&self) -> bool {
        self.mv.is_capture()
    }

    /// The move's id in the fixed action index of its rule set.
    #[getter]
    fn action(&self) -> u32 {
        self.action_id()
    }

    #[getter]
    fn rules(&self) -> &'static str {
        self.rules.name()
    }
}

/// A move given as a `Move`, as move text, or as an action id.
#[derive(FromPyObject)]
pub(crate) enum MoveArg<'py> {
    #[pyo3(transparent, annotation = "Move")]
    Obj(PyRef<'py, Move>),
    #[pyo3(transparent, annotation = "str")]
    Text(String),
    /// Refused: `True` is an int to Python, not a move.
    #[pyo3(transparent, annotation = "bool")]
    Flag(bool),
    #[pyo3(transparent, annotation = "int")]
    Action(i64),
    /// Anything else (a float, a list): refused with one line naming it.
    #[pyo3(transparent, annotation = "object")]
    Other(Bound<'py, PyAny>),
}

impl MoveArg<'_> {
    /// How the argument reads in a message.
    fn described(&self) -> String {
        match self {
            MoveArg::Obj(m) => m.mv.to_string(),
            MoveArg::Text(t) => format!("{t:?}"),
            MoveArg::Action(a) => format!("action {a}"),
            MoveArg::Flag(b) => if *b { "True" } else { "False" }.to_string(),
            MoveArg::Other(o) => crate::convert::described(&o.as_borrowed()),
        }
    }
}

/// Resolves a move argument to a legal move of `pos` under `rules`.
pub(crate) fn resolve_move(pos: &alq_engine::Position, rules: RuleSet, mv: &MoveArg) -> PyResult<alq_engine::Move> {
    match mv {
        MoveArg::Obj(m) => {
            if m.rules != rules {
                return Err(crate::RulesError::new_err(format!(
                    "move {} was made under the {} rules, the position is played under {}",
                    m.mv,
                    m.rules.name(),
                    rules.name()
                )));
            }
            if pos.legal_moves_in(rules).contains(&m.mv) {
                Ok(m.mv)
            } else {
                pos.parse_move_in(rules, &m.mv.to_string()).map_err(|e| MoveError::new_err(e.to_string()))
            }
        }
        MoveArg::Text(text) => pos.parse_move_in(rules, text).map_err(|e| MoveError::new_err(e.to_string())),
        MoveArg::Action(action) => action_move(pos, rules, *action),
        MoveArg::Flag(_) | MoveArg::Other(_) => Err(MoveError::new_err(format!(
            "move: {} is not a move (give a Move, move text or an action id)",
            mv.described()
        ))),
    }
}

/// `is_legal`: whether a move argument names a legal move of `pos`; only
/// an argument that is no move at all (a float, a bool) raises.
fn legal_here(pos: &alq_engine::Position, rules: RuleSet, mv: &MoveArg) -> PyResult<bool> {
    match mv {
        MoveArg::Flag(_) | MoveArg::Other(_) => resolve_move(pos, rules, mv).map(|_| true),
        MoveArg::Obj(m) if m.rules != rules => Ok(false),
        _ => Ok(resolve_move(pos, rules, mv).is_ok()),
    }
}

pub(crate) fn action_move(pos: &alq_engine::Position, rules: RuleSet, action: i64) -> PyResult<alq_engine::Move> {
    let index = ActionIndex::of(rules);
    let Ok(id) = u32::try_from(action) else {
        return Err(ActionError::new_err(format!("action {action} is out of range (0 .. {})", index.len())));
    };
    if id as usize >= index.len() {
        return Err(ActionError::new_err(format!("action {action} is out of range (0 .. {})", index.len())));
    }
    index.to_move(pos, id).ok_or_else(|| {
        let (from, to, captured) = index.triple(id).expect("in range");
        let mut legal = index.legal_actions(pos);
        legal.sort_unstable();
        ActionError::new_err(format!(
            "action {action} ({from} to {to}, capturing {}) is not legal in {pos}; legal actions: {}",
            if captured.is_empty() { "nothing".to_string() } else { point_names(captured).join(" ") },
            if legal.is_empty() {
                "none (the side to move has lost)".to_string()
            } else {
                legal.iter().map(u32::to_string).collect::<Vec<_>>().join(" ")
            }
        ))
    })
}

/// A position (the points of both sides and the side to move) under a rule
/// set. Immutable: `push` returns a new position and leaves this one as it
/// is (a `Game` is what changes in place).
#[pyclass(frozen, module = "alquerque_lab", from_py_object)]
#[derive(Clone, Copy, Debug)]
pub struct Position {
    pub(crate) pos: alq_engine::Position,
    pub(crate) rules: RuleSet,
}

impl Position {
    pub(crate) fn new(pos: alq_engine::Position, rules: RuleSet) -> Position {
        Position { pos, rules }
    }

    fn order(&self) -> (u8, u64) {
        (self.rules as u8, self.pos.key())
    }
}

#[pymethods]
impl Position {
    /// The position `text` (ranks 5 to 1, then `w` or `b`), or the start.
    #[new]
    #[pyo3(signature = (text = None, *, rules = Wrap::BRAINKING), text_signature = "(text=None, *, rules=\"brainking\")")]
    fn py_new(text: Option<&str>, rules: Wrap<RuleSet>) -> PyResult<Position> {
        let Wrap(rules) = rules;
        let pos = match text {
            Some(t) => parse_position(t)?,
            None => alq_engine::Position::start_of(rules),
        };
        Ok(Position { pos, rules })
    }

    /// Reads position text such as `BBBBB/BBBBB/BB.WW/WWWWW/WWWWW w`.
    #[classmethod]
    #[pyo3(signature = (text, *, rules = Wrap::BRAINKING), text_signature = "($cls, text, *, rules=\"brainking\")")]
    fn from_text(_cls: &Bound<'_, PyType>, text: &str, rules: Wrap<RuleSet>) -> PyResult<Position> {
        Position::py_new(Some(text), rules)
    }

    /// The standard start position.
    #[classmethod]
    #[pyo3(signature = (*, rules = Wrap::BRAINKING), text_signature = "($cls, *, rules=\"brainking\")")]
    fn start(_cls: &Bound<'_, PyType>, rules: Wrap<RuleSet>) -> PyResult<Position> {
        Position::py_new(None, rules)
    }

    /// The position packed into one integer (see `key`).
    #[classmethod]
    #[pyo3(signature = (key, *, rules = Wrap::BRAINKING), text_signature = "($cls, key, *, rules=\"brainking\")")]
    fn from_key(_cls: &Bound<'_, PyType>, key: &Bound<'_, PyAny>, rules: Wrap<RuleSet>) -> PyResult<Position> {
        // A negative or too large int is named as a key, not pyo3's OverflowError.
        let key: u64 = key.extract().map_err(|_| {
            let shown = key.repr().map_or_else(|_| "?".to_string(), |r| r.to_string());
            PositionError::new_err(format!("{shown} is not a position key (a whole number from 0, see Position.key)"))
        })?;
        let pos = alq_engine::Position::from_key(key).map_err(|e| PositionError::new_err(e.to_string()))?;
        Ok(Position { pos, rules: rules.0 })
    }

    fn __str__(&self) -> String {
        self.pos.to_string()
    }

    fn __repr__(&self) -> String {
        match self.rules {
            RuleSet::BrainKing => format!("Position('{}')", self.pos),
            other => format!("Position('{}', rules='{}')", self.pos, other.name()),
        }
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other.cast::<Position>().is_ok_and(|o| {
            let o = o.get();
            o.pos == self.pos && o.rules == self.rules
        })
    }

    fn __hash__(&self) -> u64 {
        self.pos.key() ^ (self.rules as u64) << 60
    }

    /// Positions sort by rule set, then by `key`: a fixed order with no
    /// meaning beyond that (for sorted output and `sorted()` of a set).
    fn __lt__(&self, other: PyRef<'_, Position>) -> bool {
        self.order() < other.order()
    }

    fn __le__(&self, other: PyRef<'_, Position>) -> bool {
        self.order() <= other.order()
    }

    fn __gt__(&self, other: PyRef<'_, Position>) -> bool {
        self.order() > other.order()
    }

    fn __ge__(&self, other: PyRef<'_, Position>) -> bool {
        self.order() >= other.order()
    }

    fn __copy__(&self) -> Position {
        *self
    }

    fn __deepcopy__(&self, _memo: &Bound<'_, PyAny>) -> Position {
        *self
    }

    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<(Bound<'py, PyAny>, (String, &'static str))> {
        let me = slf.get();
        let ctor = slf.py().import("alquerque_lab._core")?.getattr("_position_with")?;
        Ok((ctor, (me.pos.to_string(), me.rules.name())))
    }

    /// The position text.
    #[getter]
    fn text(&self) -> String {
        self.pos.to_string()
    }

    /// The packed integer: White's points in bits 0–24 (a1 = bit 0), Black's in
    /// bits 25–49, bit 50 set when Black is to move. For the batch functions.
    #[getter]
    fn key(&self) -> u64 {
        self.pos.key()
    }

    #[getter]
    fn rules(&self) -> &'static str {
        self.rules.name()
    }

    /// `"white"` or `"black"`.
    #[getter]
    fn side_to_move(&self) -> &'static str {
        side_name(self.pos.side_to_move())
    }

    /// The legal moves in action order (ascending action id): the i-th pairs
    /// with `legal_actions()[i]`.
    fn legal_moves(&self) -> Vec<Move> {
        in_action_order(&self.pos, self.rules)
    }

    /// The action ids of the legal moves, ascending.
    fn legal_actions(&self) -> Vec<u32> {
        let mut a = ActionIndex::of(self.rules).legal_actions(&self.pos);
        a.sort_unstable();
        a
    }

    /// An int8 array over the whole action index, 1 where the action is legal.
    fn action_mask<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<i8>> {
        action_mask(py, &self.pos, self.rules)
    }

    /// Whether `mv` (move text such as `"c2-c3"`, a `Move` or an action id)
    /// is a legal move here. Never raises for a move that is merely illegal
    /// or malformed text; a `Move` of other rules is not legal.
    fn is_legal(&self, mv: MoveArg<'_>) -> PyResult<bool> {
        legal_here(&self.pos, self.rules, &mv)
    }

    /// The legal move a text, a `Move` or an action id names.
    fn parse_move(&self, mv: MoveArg<'_>) -> PyResult<Move> {
        Ok(Move::new(resolve_move(&self.pos, self.rules, &mv)?, self.rules))
    }

    /// A new position: this one after a legal move (a `Move`, move text or
    /// an action id). This position does not change (positions are
    /// immutable); `Game.push`, by contrast, plays the move in the game.
    fn push(&self, mv: MoveArg<'_>) -> PyResult<Position> {
        let m = resolve_move(&self.pos, self.rules, &mv)?;
        Ok(Position { pos: self.pos.play(m), rules: self.rules })
    }

    /// Whether the side to move has no legal move (and so has lost). Draws by
    /// repetition or no progress need the game's history: see `Game`.
    fn is_over(&self) -> bool {
        self.pos.is_lost_in(self.rules)
    }

    /// `"1-0"` or `"0-1"` when the side to move has lost, else `None`.
    fn result(&self) -> Option<&'static str> {
        self.is_over().then(|| match self.pos.side_to_move() {
            Side::White => "0-1",
            Side::Black => "1-0",
        })
    }

    /// The network's input features, side to move's view (float32, 50).
    fn to_array<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f32>> {
        features(&self.pos).to_vec().into_pyarray(py)
    }

    /// Two int8 planes of shape (5, 5, 2), indexed [rank - 1][file][plane]:
    /// plane 0 holds `side`'s pieces, plane 1 the other side's (default: the
    /// side to move's view; the board is not turned).
    #[pyo3(signature = (side = None))]
    fn to_planes<'py>(&self, py: Python<'py>, side: Option<Wrap<Side>>) -> Bound<'py, PyArray3<i8>> {
        planes(py, &self.pos, side.map_or(self.pos.side_to_move(), |Wrap(s)| s))
    }

    /// `"white"`, `"black"` or `None` for the point (`"c3"`).
    fn piece_at(&self, point: Wrap<Point>) -> Option<&'static str> {
        self.pos.piece_at(point.0).map(side_name)
    }

    /// The points of `side`'s pieces, in board order.
    fn pieces(&self, side: Wrap<Side>) -> Vec<String> {
        point_names(self.pos.pieces(side.0))
    }

    /// The position mirrored left-right (file a <-> e); same value.
    fn mirror(&self) -> Position {
        Position { pos: self.pos.mirror(), rules: self.rules }
    }
}

/// Rebuilds a pickled position.
#[pyfunction]
#[pyo3(signature = (text, rules = Wrap::BRAINKING), text_signature = "(text, rules=\"brainking\")")]
fn _position_with(text: &str, rules: Wrap<RuleSet>) -> PyResult<Position> {
    Position::py_new(Some(text), rules)
}

pub(crate) fn register_private(m: &Bound<'_, PyModule>) -> PyResult<()> {
    // Set as attributes, not added: they stay out of `__all__`.
    m.setattr("_position_with", wrap_pyfunction!(_position_with, m)?)?;
    m.setattr("_game_with", wrap_pyfunction!(_game_with, m)?)?;
    Ok(())
}

fn action_mask<'py>(py: Python<'py>, pos: &alq_engine::Position, rules: RuleSet) -> Bound<'py, PyArray1<i8>> {
    let index = ActionIndex::of(rules);
    let mut mask = vec![0i8; index.len()];
    for a in index.legal_actions(pos) {
        mask[a as usize] = 1;
    }
    mask.into_pyarray(py)
}

fn planes<'py>(py: Python<'py>, pos: &alq_engine::Position, me: Side) -> Bound<'py, PyArray3<i8>> {
    let mut out = numpy::ndarray::Array3::<i8>::zeros((5, 5, 2));
    for (plane, side) in [(0, me), (1, me.opponent())] {
        for p in pos.pieces(side) {
            out[[p.rank() as usize, p.file() as usize, plane]] = 1;
        }
    }
    out.into_pyarray(py)
}

/// A game: a start position, the moves played, and the draw rules
/// (repetition, no progress, an optional ply cap). Mutable: `push` plays a
/// move in place (and returns the `Move`), `pop` takes one back; compare
/// `Position.push`, which returns a new position.
#[pyclass(module = "alquerque_lab")]
#[derive(Clone)]
pub struct Game {
    pub(crate) game: EngineGame,
}

#[derive(FromPyObject)]
pub(crate) enum PositionArg<'py> {
    #[pyo3(transparent, annotation = "Position")]
    Obj(PyRef<'py, Position>),
    #[pyo3(transparent, annotation = "str")]
    Text(String),
}

#[pymethods]
impl Game {
    /// A game from `start` (a `Position` or position text; default the
    /// standard start). `no_progress`: plies without a capture or forward
    /// move that end the game in a draw (default 60, as in the records;
    /// `None` switches it off); `max_plies`: a cap, a draw when reached.
    #[new]
    #[pyo3(
        signature = (start = None, *, rules = Wrap::BRAINKING, no_progress = Some(60), max_plies = None),
        text_signature = "(start=None, *, rules='brainking', no_progress=60, max_plies=None)"
    )]
    fn py_new(
        start: Option<PositionArg<'_>>,
        rules: Wrap<RuleSet>,
        no_progress: Option<u32>,
        max_plies: Option<u32>,
    ) -> PyResult<Game> {
        let Wrap(rules) = rules;
        let pos = match start {
            None => alq_engine::Position::start_of(rules),
            Some(PositionArg::Text(t)) => parse_position(&t)?,
            Some(PositionArg::Obj(p)) => {
                if p.rules != rules {
                    return Err(crate::RulesError::new_err(format!(
                        "the start position is under the {} rules, the game under {} (pass rules={:?})",
                        p.rules.name(),
                        rules.name(),
                        p.rules.name()
                    )));
                }
                p.pos
            }
        };
        let config = GameConfig { no_progress_limit: no_progress, max_plies, rules };
        Ok(Game { game: EngineGame::new(pos, config) })
    }

    fn __repr__(&self) -> String {
        let moves: Vec<String> = self.game.moves().iter().map(|m| m.to_string()).collect();
        format!(
            "Game(start='{}', moves='{}', rules='{}')",
            self.game.start(),
            moves.join(" "),
            self.game.rules().name()
        )
    }

    fn __len__(&self) -> usize {
        self.game.plies()
    }

    fn __copy__(&self) -> Game {
        self.clone()
    }

    fn __deepcopy__(&self, _memo: &Bound<'_, PyAny>) -> Game {
        self.clone()
    }

    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<(Bound<'py, PyAny>, GameParts)> {
        let g = &slf.borrow().game;
        let config = g.config();
        let moves: Vec<String> = g.moves().iter().map(|m| m.to_string()).collect();
        let ctor = slf.py().import("alquerque_lab._core")?.getattr("_game_with")?;
        Ok((
            ctor,
            (g.start().to_string(), g.rules().name().to_string(), moves, config.no_progress_limit, config.max_plies),
        ))
    }

    /// A copy that can be played on independently.
    fn copy(&self) -> Game {
        self.clone()
    }

    /// The current position.
    #[getter]
    fn position(&self) -> Position {
        Position::new(self.game.position(), self.game.rules())
    }

    #[getter]
    fn start(&self) -> Position {
        Position::new(self.game.start(), self.game.rules())
    }

    #[getter]
    fn rules(&self) -> &'static str {
        self.game.rules().name()
    }

    #[getter]
    fn no_progress(&self) -> Option<u32> {
        self.game.config().no_progress_limit
    }

    #[getter]
    fn max_plies(&self) -> Option<u32> {
        self.game.config().max_plies
    }

    /// The moves played so far.
    #[getter]
    fn moves(&self) -> Vec<Move> {
        self.game.moves().iter().map(|&m| Move::new(m, self.game.rules())).collect()
    }

    /// Every position of the game, the start first.
    fn positions(&self) -> Vec<Position> {
        self.game.positions().iter().map(|&p| Position::new(p, self.game.rules())).collect()
    }

    #[getter]
    fn plies(&self) -> usize {
        self.game.plies()
    }

    /// Plies since the last capture or forward move.
    #[getter]
    fn quiet_plies(&self) -> u32 {
        self.game.quiet_plies()
    }

    /// How often the current position (with its side to move) has occurred.
    #[getter]
    fn repetition_count(&self) -> u8 {
        self.game.repetition_count()
    }

    #[getter]
    fn side_to_move(&self) -> &'static str {
        side_name(self.game.position().side_to_move())
    }

    /// The legal moves in action order (the i-th pairs with
    /// `legal_actions()[i]`); none once the game is over.
    fn legal_moves(&self) -> Vec<Move> {
        if self.game.is_over() {
            return Vec::new();
        }
        in_action_order(&self.game.position(), self.game.rules())
    }

    /// The legal action ids, ascending; none once the game is over.
    fn legal_actions(&self) -> Vec<u32> {
        if self.game.is_over() {
            return Vec::new();
        }
        let mut a = ActionIndex::of(self.game.rules()).legal_actions(&self.game.position());
        a.sort_unstable();
        a
    }

    /// An int8 mask over the action index; all zero once the game is over.
    fn action_mask<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<i8>> {
        if self.game.is_over() {
            return vec![0i8; ActionIndex::of(self.game.rules()).len()].into_pyarray(py);
        }
        action_mask(py, &self.game.position(), self.game.rules())
    }

    /// Whether `mv` (move text, a `Move` or an action id) is legal now;
    /// `False` for every move once the game is over.
    fn is_legal(&self, mv: MoveArg<'_>) -> PyResult<bool> {
        if self.game.is_over() {
            return legal_here(&self.game.position(), self.game.rules(), &mv).map(|_| false);
        }
        legal_here(&self.game.position(), self.game.rules(), &mv)
    }

    /// Plays a legal move (a `Move`, move text or an action id) in this
    /// game, in place, and returns the `Move` played; refused once the game
    /// is over. `Position.push`, by contrast, returns a new position.
    fn push(&mut self, mv: MoveArg<'_>) -> PyResult<Move> {
        let rules = self.game.rules();
        if let Some(outcome) = self.game.outcome() {
            return Err(MoveError::new_err(format!(
                "move {}: the game is over ({} by {})",
                mv.described(),
                outcome.result_text(),
                outcome.termination
            )));
        }
        let m = resolve_move(&self.game.position(), rules, &mv)?;
        self.game.play(m).map_err(|e| MoveError::new_err(e.to_string()))?;
        Ok(Move::new(m, rules))
    }

    /// Takes back the last move; `None` at the start.
    fn pop(&mut self) -> Option<Move> {
        let rules = self.game.rules();
        self.game.undo().map(|m| Move::new(m, rules))
    }

    fn is_over(&self) -> bool {
        self.game.is_over()
    }

    /// `"1-0"`, `"0-1"`, `"1/2-1/2"`, or `None` while the game goes on.
    fn result(&self) -> Option<&'static str> {
        self.game.outcome().map(|o| o.result_text())
    }

    /// `"white"`, `"black"`, or `None` (game on, or drawn).
    fn winner(&self) -> Option<&'static str> {
        self.game.outcome().and_then(|o| o.winner).map(side_name)
    }

    /// `"no_moves"`, `"repetition"`, `"no_progress"`, `"max_plies"` or `None`.
    fn termination(&self) -> Option<&'static str> {
        self.game.outcome().map(|o| o.termination.name())
    }
}

type GameParts = (String, String, Vec<String>, Option<u32>, Option<u32>);

/// Rebuilds a pickled game.
#[pyfunction]
fn _game_with(
    start: &str,
    rules: Wrap<RuleSet>,
    moves: Vec<String>,
    no_progress: Option<u32>,
    max_plies: Option<u32>,
) -> PyResult<Game> {
    let Wrap(rules) = rules;
    let mut game =
        EngineGame::new(parse_position(start)?, GameConfig { no_progress_limit: no_progress, max_plies, rules });
    for m in &moves {
        game.play_text(m).map_err(|e| MoveError::new_err(e.to_string()))?;
    }
    Ok(Game { game })
}

/// The legal moves of `pos`, in ascending action id: the order of
/// `legal_actions()`, so that moves and mask indexes pair by position in the
/// lists.
fn in_action_order(pos: &alq_engine::Position, rules: RuleSet) -> Vec<Move> {
    let index = ActionIndex::of(rules);
    let mut moves: Vec<(u32, alq_engine::Move)> =
        pos.legal_moves_in(rules).iter().map(|&m| (index.action(m).expect("every legal move is indexed"), m)).collect();
    moves.sort_unstable_by_key(|&(a, _)| a);
    moves.into_iter().map(|(_, m)| Move::new(m, rules)).collect()
}
