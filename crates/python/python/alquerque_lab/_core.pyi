"""Alquerque Lab's native core.

The native half of the package ``alquerque_lab``: thin pyo3 wrappers over the
project's Rust libraries (engine, records, tablebase, solver, play).

Errors never panic across the boundary: every failure of the libraries
becomes one of the package's exceptions (all ``ValueError`` subclasses),
carrying the library's message, which is the message the CLI prints.
"""

import os
from collections.abc import Callable, Sequence
from typing import Final, Literal, TypedDict, final, type_check_only

import numpy as np
from numpy.typing import ArrayLike, NDArray
from typing_extensions import Self, TypeAlias

# Aliases used by the annotations below (they exist only in the stubs).

_Rules: TypeAlias = Literal["brainking", "classic"]
"""A rule-set name."""
_Side: TypeAlias = Literal["white", "black"]
"""A side, as the package returns it."""
_SideArg: TypeAlias = Literal["white", "black", "w", "b"]
"""A side, as the package accepts it."""
_MoveArg: TypeAlias = Move | str | int
"""A move given as a ``Move``, as move text (``d3-c3``) or as an action id."""
_Searchable: TypeAlias = Position | Game | str
"""A position to search: a ``Position``, a ``Game`` (its history counts for
repetitions) or position text."""
_Path: TypeAlias = str | os.PathLike[str]
_Tables: TypeAlias = Tablebase | str | os.PathLike[str]
"""Endgame tables: an open ``Tablebase`` or the folder to open."""
_Paths: TypeAlias = _Path | Sequence[_Path]
"""One records file or several."""
_Result: TypeAlias = Literal["1-0", "0-1", "1/2-1/2"]
_Termination: TypeAlias = Literal["no_moves", "repetition", "no_progress", "max_plies"]
_ScoreKind: TypeAlias = Literal["cp", "win", "loss", "draw"]
_ValueKind: TypeAlias = Literal["win", "loss", "draw"]

@type_check_only
class _Samples(TypedDict):
    """What ``samples`` returns: one row per position kept."""

    features: NDArray[np.float32]
    """float32, n × ``INPUTS`` (50): the network's inputs, side to move's view."""
    targets: NDArray[np.float32]
    """``result_weight * results + (1 - result_weight) * scores``."""
    results: NDArray[np.float32]
    """The game's result for the side to move: 1, 0.5 or 0."""
    scores: NDArray[np.float32]
    """The squashed search score (the result where there is none)."""
    plies: NDArray[np.uint32]
    """The ply of the position in its game."""
    game_ids: NDArray[np.uint64]
    """The game the position comes from, unique across the files: its record
    id plus the ids of the files before it (their largest id + 1)."""
    record_ids: NDArray[np.uint64]
    """The game's id in its own file."""
    files: NDArray[np.uint32]
    """The index in ``paths`` of the game's file."""
    actions: NDArray[np.int32]
    """The action id of the move played from the position (the policy target);
    -1 at a game's final position."""
    searched: NDArray[np.bool_]
    """Whether that move was the players' own search's choice: past the
    opening (whose moves are random or sampled) and with a score."""
    exact: NDArray[np.bool_]
    """Whether the endgame tables gave the value."""

# Constants

START_TEXT: Final[str]
"""The start position's text: ``BBBBB/BBBBB/BB.WW/WWWWW/WWWWW w``."""
INPUTS: Final[int]
"""The number of network input features (50)."""
SCORE_SCALE: Final[float]
"""Centipawns per unit of the network's output logit (200.0)."""
__version__: Final[str]
"""The package's version."""

# Exceptions

class AlquerqueError(ValueError):
    """Base class of the package's errors (a ValueError)."""

class ArgumentError(AlquerqueError):
    """An argument of the wrong kind or out of range (a side, a point, a
    limit, a part name), named in the message."""

class PositionError(AlquerqueError):
    """Position text that cannot be read."""

class MoveError(AlquerqueError):
    """A malformed or illegal move, or a move after the game ended."""

class ActionError(AlquerqueError):
    """An action id out of range or not legal in the position."""

class RulesError(AlquerqueError):
    """An unknown rule set, or data made under other rules."""

class RecordError(AlquerqueError):
    """A records file that is missing, unreadable or damaged."""

class TablebaseError(AlquerqueError):
    """Endgame tables that are missing, damaged or do not cover a position."""

class EvalError(AlquerqueError):
    """An evaluator spec or network file that cannot be used."""

class SolveError(AlquerqueError):
    """A solver run that could not be done."""

# Positions, moves, games and the fixed action index

@final
class Move:
    """A move of one position: its canonical text, origin, end and captured
    points, and its action id in the rule set's fixed action index.

    Moves are not made directly: they come from ``Position.legal_moves``,
    ``Position.parse_move``, ``Game.push`` and the like. A ``Move`` is not
    equal to its text: test text with ``Position.is_legal``. Moves sort by
    rule set, then by action id.
    """

    def __eq__(self, other: object, /) -> bool: ...
    def __ne__(self, other: object, /) -> bool: ...
    def __lt__(self, other: Move, /) -> bool: ...
    def __le__(self, other: Move, /) -> bool: ...
    def __gt__(self, other: Move, /) -> bool: ...
    def __ge__(self, other: Move, /) -> bool: ...
    def __hash__(self, /) -> int: ...
    @property
    def text(self) -> str:
        """The canonical move text (``d3-c3``, ``b2xb4xd4``)."""
    @property
    def from_point(self) -> str:
        """Where the piece starts (``c2``)."""
    @property
    def to_point(self) -> str:
        """Where the piece ends."""
    @property
    def captured(self) -> list[str]:
        """The captured points, in board order (a1, b1, … e5)."""
    @property
    def path(self) -> list[str]:
        """The landing points of the canonical path (empty for a simple move)."""
    @property
    def is_capture(self) -> bool:
        """Whether the move captures."""
    @property
    def action(self) -> int:
        """The move's id in the fixed action index of its rule set."""
    @property
    def rules(self) -> _Rules:
        """The rule set the move was made under."""

@final
class Position:
    """A position (the points of both sides and the side to move) under a rule
    set. Immutable: ``push`` returns a new position and leaves this one as it
    is (a ``Game`` is what changes in place)."""

    def __new__(cls, text: str | None = None, *, rules: _Rules = "brainking") -> Self:
        """The position ``text`` (ranks 5 to 1, then ``w`` or ``b``), or the start."""
    @classmethod
    def from_text(cls, text: str, *, rules: _Rules = "brainking") -> Position:
        """Reads position text such as ``BBBBB/BBBBB/BB.WW/WWWWW/WWWWW w``."""
    @classmethod
    def start(cls, *, rules: _Rules = "brainking") -> Position:
        """The standard start position."""
    @classmethod
    def from_key(cls, key: int, *, rules: _Rules = "brainking") -> Position:
        """The position packed into one integer (see ``key``)."""
    def __eq__(self, other: object, /) -> bool: ...
    def __ne__(self, other: object, /) -> bool: ...
    def __lt__(self, other: Position, /) -> bool:
        """Positions sort by rule set, then by ``key``: a fixed order with no
        meaning beyond that."""
    def __le__(self, other: Position, /) -> bool: ...
    def __gt__(self, other: Position, /) -> bool: ...
    def __ge__(self, other: Position, /) -> bool: ...
    def __hash__(self, /) -> int: ...
    def __copy__(self) -> Position: ...
    def __deepcopy__(self, _memo: object) -> Position: ...
    def __reduce__(self) -> tuple[Callable[[str, str], Position], tuple[str, str]]: ...
    @property
    def text(self) -> str:
        """The position text."""
    @property
    def key(self) -> int:
        """The packed integer: White's points in bits 0–24 (a1 = bit 0), Black's in
        bits 25–49, bit 50 set when Black is to move. For the batch functions."""
    @property
    def rules(self) -> _Rules:
        """The rule set the position is played under."""
    @property
    def side_to_move(self) -> _Side:
        """``"white"`` or ``"black"``."""
    def legal_moves(self) -> list[Move]:
        """The legal moves in action order (ascending action id): the i-th
        pairs with ``legal_actions()[i]``."""
    def legal_actions(self) -> list[int]:
        """The action ids of the legal moves, ascending."""
    def action_mask(self) -> NDArray[np.int8]:
        """An int8 array over the whole action index, 1 where the action is legal."""
    def parse_move(self, mv: _MoveArg) -> Move:
        """The legal move a text, a ``Move`` or an action id names."""
    def is_legal(self, mv: _MoveArg) -> bool:
        """Whether ``mv`` (move text such as ``"c2-c3"``, a ``Move`` or an action
        id) is a legal move here. Never raises for a move that is merely
        illegal or malformed text; a ``Move`` of other rules is not legal."""
    def push(self, mv: _MoveArg) -> Position:
        """A new position: this one after a legal move (a ``Move``, move text or
        an action id). This position does not change (positions are
        immutable); ``Game.push``, by contrast, plays the move in the game."""
    def is_over(self) -> bool:
        """Whether the side to move has no legal move (and so has lost). Draws by
        repetition or no progress need the game's history: see ``Game``."""
    def result(self) -> Literal["1-0", "0-1"] | None:
        """``"1-0"`` or ``"0-1"`` when the side to move has lost, else ``None``."""
    def to_array(self) -> NDArray[np.float32]:
        """The network's input features, side to move's view (float32, 50)."""
    def to_planes(self, side: _SideArg | None = None) -> NDArray[np.int8]:
        """Two int8 planes of shape (5, 5, 2), indexed [rank - 1][file][plane]:
        plane 0 holds ``side``'s pieces, plane 1 the other side's (default: the
        side to move's view; the board is not turned)."""
    def piece_at(self, point: str) -> _Side | None:
        """``"white"``, ``"black"`` or ``None`` for the point (``"c3"``)."""
    def pieces(self, side: _SideArg) -> list[str]:
        """The points of ``side``'s pieces, in board order."""
    def mirror(self) -> Position:
        """The position mirrored left-right (file a <-> e); same value."""

@final
class Game:
    """A game: a start position, the moves played, and the draw rules
    (repetition, no progress, an optional ply cap). Mutable: ``push`` plays a
    move in place (and returns the ``Move``), ``pop`` takes one back; compare
    ``Position.push``, which returns a new position."""

    def __new__(
        cls,
        start: Position | str | None = None,
        *,
        rules: _Rules = "brainking",
        no_progress: int | None = ...,  # 60: the runtime signature cannot show it
        max_plies: int | None = None,
    ) -> Self:
        """A game from ``start`` (a ``Position`` or position text; default the
        standard start). ``no_progress``: plies without a capture or forward
        move that end the game in a draw (default 60, as in the records;
        ``None`` switches it off); ``max_plies``: a cap, a draw when reached."""
    def __len__(self) -> int:
        """The number of moves played."""
    def __copy__(self) -> Game: ...
    def __deepcopy__(self, _memo: object) -> Game: ...
    def __reduce__(
        self,
    ) -> tuple[
        Callable[[str, str, list[str], int | None, int | None], Game],
        tuple[str, str, list[str], int | None, int | None],
    ]: ...
    def copy(self) -> Game:
        """A copy that can be played on independently."""
    @property
    def position(self) -> Position:
        """The current position."""
    @property
    def start(self) -> Position:
        """The start position."""
    @property
    def rules(self) -> _Rules:
        """The rule set the game is played under."""
    @property
    def no_progress(self) -> int | None:
        """The no-progress limit in plies (``None``: off)."""
    @property
    def max_plies(self) -> int | None:
        """The ply cap (``None``: none)."""
    @property
    def moves(self) -> list[Move]:
        """The moves played so far."""
    def positions(self) -> list[Position]:
        """Every position of the game, the start first."""
    @property
    def plies(self) -> int:
        """The number of moves played."""
    @property
    def quiet_plies(self) -> int:
        """Plies since the last capture or forward move."""
    @property
    def repetition_count(self) -> int:
        """How often the current position (with its side to move) has occurred."""
    @property
    def side_to_move(self) -> _Side:
        """``"white"`` or ``"black"``."""
    def legal_moves(self) -> list[Move]:
        """The legal moves in action order (the i-th pairs with
        ``legal_actions()[i]``); none once the game is over."""
    def legal_actions(self) -> list[int]:
        """The legal action ids, ascending; none once the game is over."""
    def action_mask(self) -> NDArray[np.int8]:
        """An int8 mask over the action index; all zero once the game is over."""
    def is_legal(self, mv: _MoveArg) -> bool:
        """Whether ``mv`` (move text, a ``Move`` or an action id) is legal now;
        ``False`` for every move once the game is over."""
    def push(self, mv: _MoveArg) -> Move:
        """Plays a legal move (a ``Move``, move text or an action id) in this
        game, in place, and returns the ``Move`` played; refused once the game
        is over. ``Position.push``, by contrast, returns a new position."""
    def pop(self) -> Move | None:
        """Takes back the last move; ``None`` at the start."""
    def is_over(self) -> bool:
        """Whether the game has ended (no move, repetition, no progress or the cap)."""
    def result(self) -> _Result | None:
        """``"1-0"``, ``"0-1"``, ``"1/2-1/2"``, or ``None`` while the game goes on."""
    def winner(self) -> _Side | None:
        """``"white"``, ``"black"``, or ``None`` (game on, or drawn)."""
    def termination(self) -> _Termination | None:
        """``"no_moves"``, ``"repetition"``, ``"no_progress"``, ``"max_plies"`` or ``None``."""

def num_actions(rules: _Rules = "brainking") -> int:
    """The number of actions in the fixed action index of ``rules``."""

def action_to_move(position: Position, action: int) -> Move:
    """The legal move of ``position`` that ``action`` stands for."""

def move_to_action(mv: _MoveArg, position: Position | None = None) -> int:
    """The action id of a move (a ``Move``, or move text read in ``position``)."""

def action_triple(action: int, rules: _Rules = "brainking") -> tuple[str, str, list[str]]:
    """The (origin, end, captured points) an action id stands for."""

def legal_actions_batch(
    keys: ArrayLike, rules: _Rules = "brainking"
) -> tuple[NDArray[np.int64], NDArray[np.int32]]:
    """The legal actions of many positions at once, given as packed keys
    (uint64, see ``Position.key``): returns ``(offsets, actions)``, where the
    actions of position i are ``actions[offsets[i]:offsets[i + 1]]``
    (ascending within each position, as ``Position.legal_actions()``). Runs
    without the GIL.

    ``keys`` must be a one-dimensional numpy array of dtype uint64 (a list or
    an int64 array is refused with ``TypeError``)."""

def action_masks_batch(
    keys: ArrayLike,
    out: NDArray[np.bool_] | NDArray[np.uint8] | None = None,
    *,
    packed: bool = False,
    rules: _Rules = "brainking",
) -> NDArray[np.bool_] | NDArray[np.uint8]:
    """The action masks of many positions at once, given as packed keys: row i
    is the mask of ``keys[i]``. Unpacked (the default) a bool array of shape
    (n, num_actions); with ``packed=True`` a uint8 array of shape (n,
    ceil(num_actions / 8)) in numpy's ``packbits`` order (action a is bit
    ``7 - a % 8`` of byte ``a // 8``), so ``np.unpackbits(m, axis=1,
    count=num_actions)`` gives the unpacked mask. With ``out`` (a C-contiguous
    array of that dtype and shape, e.g. reused between batches) the masks are
    written into it and it is returned; nothing is allocated. Runs without the
    GIL, on all cores."""

def play_batch(
    keys: ArrayLike, actions: ArrayLike, rules: _Rules = "brainking"
) -> NDArray[np.uint64]:
    """Plays ``actions[i]`` in the position ``keys[i]`` for every i and returns the
    keys of the positions reached (uint64). An action that is not legal in its
    position raises ``ActionError`` naming the index. Runs without the GIL.

    ``keys`` must be a uint64 and ``actions`` an int32 numpy array (other
    dtypes are refused with ``TypeError``)."""

def keys_of(positions: Sequence[Position]) -> NDArray[np.uint64]:
    """The packed keys (uint64) of a sequence of positions."""

# Search

@final
class SearchResult:
    """What a search found."""

    @property
    def score_kind(self) -> _ScoreKind:
        """``"cp"`` (centipawns), ``"win"`` / ``"loss"`` (proven, in plies) or ``"draw"``."""
    @property
    def score_value(self) -> int | None:
        """Centipawns or plies; ``None`` for a draw."""
    @property
    def pawns(self) -> float | None:
        """The score in pawns (centipawns / 100) when it is an evaluation;
        ``None`` when it is proven."""
    @property
    def value(self) -> _ValueKind | None:
        """``"win"``, ``"draw"`` or ``"loss"`` for the side to move when the score
        is proven (tables or a search to the end); ``None`` for an evaluation."""
    @property
    def score(self) -> str:
        """The score as the CLI prints it (``cp 35``, ``win 12``, ``draw``)."""
    @property
    def best_move(self) -> Move | None:
        """The move to play; ``None`` when the side to move has no legal move."""
    @property
    def pv(self) -> list[Move]:
        """The principal variation, the best move first."""
    @property
    def depth(self) -> int:
        """The depth of the deepest completed iteration."""
    @property
    def nodes(self) -> int:
        """Nodes searched."""
    @property
    def time(self) -> float:
        """Seconds."""
    @property
    def nps(self) -> float:
        """Nodes per second."""
    @property
    def tb_hits(self) -> int:
        """Endgame-table probes that gave a value."""

@final
class Info:
    """One completed iteration of an analysis."""

    @property
    def depth(self) -> int:
        """The iteration's depth."""
    @property
    def score_kind(self) -> _ScoreKind:
        """``"cp"`` (centipawns), ``"win"`` / ``"loss"`` (proven, in plies) or ``"draw"``."""
    @property
    def score_value(self) -> int | None:
        """Centipawns or plies; ``None`` for a draw."""
    @property
    def pawns(self) -> float | None:
        """The score in pawns (centipawns / 100) when it is an evaluation;
        ``None`` when it is proven."""
    @property
    def value(self) -> _ValueKind | None:
        """``"win"``, ``"draw"`` or ``"loss"`` for the side to move when the score
        is proven (tables or a search to the end); ``None`` for an evaluation."""
    @property
    def score(self) -> str:
        """The score as the CLI prints it (``cp 35``, ``win 12``, ``draw``)."""
    @property
    def nodes(self) -> int:
        """Nodes searched so far."""
    @property
    def time(self) -> float:
        """Seconds since the search started."""
    @property
    def nps(self) -> float:
        """Nodes per second."""
    @property
    def pv(self) -> list[Move]:
        """The principal variation."""
    @property
    def tb_hits(self) -> int:
        """Endgame-table probes that gave a value."""
    @property
    def line(self) -> str:
        """The line ``alq analyze`` and the engine protocol print."""

@final
class Analysis:
    """A running analysis: iterate for ``Info`` per completed depth."""

    def __iter__(self) -> Self: ...
    def __next__(self) -> Info: ...
    def stop(self) -> None:
        """Stops the search; its result (best so far) is then in ``.result``."""
    @property
    def result(self) -> SearchResult | None:
        """The final result once the search has ended (else ``None``)."""

@final
class Engine:
    """A searching engine: an evaluator (``"nn"``, the shipped network; ``"hce"``,
    optionally with weights as ``"hce@mobility=4"``; or a network file), a
    transposition table of ``hash`` MiB kept between searches, optional endgame
    tables (a folder built by ``alq tb build``), and ``threads`` search threads
    (Lazy SMP; with more than one, searches limited by nodes or depth are no
    longer reproducible). To search many positions, make one ``Engine`` and call
    its ``search``: the module's ``search()`` builds an engine and its hash on
    every call (1,000-node searches of the start, measured: 0.96 ms a call
    with the default 64 MiB, 0.20 ms with ``hash=1``, 0.15 ms on a kept
    ``Engine``)."""

    def __new__(
        cls,
        *,
        eval: str = "nn",
        tb: _Tables | None = None,
        threads: int = 1,
        hash: int = 64,
        rules: _Rules = "brainking",
    ) -> Self: ...
    @property
    def rules(self) -> _Rules:
        """The rule set the engine searches under."""
    @property
    def description(self) -> str:
        """The evaluator (and tables) as matches and records name them."""
    def search(
        self,
        position: _Searchable,
        *,
        nodes: int | None = None,
        depth: int | None = None,
        movetime: float | None = None,
    ) -> SearchResult:
        """Searches with the GIL released. Limits: ``nodes``, ``depth``, ``movetime``
        (seconds); the search stops at the first one reached."""
    def analyze(
        self,
        position: _Searchable,
        *,
        nodes: int | None = None,
        depth: int | None = None,
        movetime: float | None = None,
    ) -> Analysis:
        """Starts a search in the background and returns an iterator over its
        iterations (``Info``); ``.result`` holds the final result once the
        iterator is exhausted, ``.stop()`` ends it early."""
    def clear(self) -> None:
        """Forgets the transposition table (a new game)."""

def search(
    position: _Searchable,
    *,
    nodes: int | None = None,
    depth: int | None = None,
    movetime: float | None = None,
    eval: str = "nn",
    tb: _Tables | None = None,
    threads: int = 1,
    hash: int = 64,
    rules: _Rules | None = None,
) -> SearchResult:
    """One search with a fresh engine and hash (see ``Engine`` for the
    arguments; for many searches make one ``Engine``, which keeps its hash)."""

def analyze(
    position: _Searchable,
    *,
    nodes: int | None = None,
    depth: int | None = None,
    movetime: float | None = None,
    eval: str = "nn",
    tb: _Tables | None = None,
    threads: int = 1,
    hash: int = 64,
    rules: _Rules | None = None,
) -> Analysis:
    """An analysis with a fresh engine (see ``Engine.analyze``)."""

# Endgame tables and the exact solver

@final
class Value:
    """An exact value, side to move's view: ``kind`` is ``"win"``, ``"loss"`` or
    ``"draw"``; ``plies`` the distance to the end with perfect play where known
    (distance tables, solver) and ``None`` for a draw or a win/draw/loss-only
    table. ``str()`` is the CLI's text (``win 12``, ``loss 7``, ``draw``, ``win``)."""

    def __eq__(self, other: object, /) -> bool: ...
    def __ne__(self, other: object, /) -> bool: ...
    def __hash__(self, /) -> int: ...
    @property
    def kind(self) -> _ValueKind:
        """``"win"``, ``"loss"`` or ``"draw"``."""
    @property
    def plies(self) -> int | None:
        """The distance to the end with perfect play, where known."""
    @property
    def score(self) -> float:
        """1.0 for a win, 0.5 for a draw, 0.0 for a loss (the trainer's target)."""

@final
class Tablebase:
    """A folder of endgame tables (built by ``alq tb build``), opened once and
    probed from memory or disk."""

    def __new__(cls, dir: _Path, *, rules: _Rules | None = None) -> Self:
        """Opens the tables in ``dir``; with ``rules``, tables built for other rules
        are refused."""
    @property
    def max_pieces(self) -> int:
        """Every position with at most this many pieces is covered."""
    @property
    def distance_max_pieces(self) -> int | None:
        """Up to this many pieces the tables give distances (``win 12``); beyond,
        win/draw/loss only."""
    @property
    def rules(self) -> _Rules:
        """The rule set the tables were built for."""
    @property
    def dir(self) -> str:
        """The tables' folder."""
    def covers(self, position: Position) -> bool:
        """Whether the tables cover the position."""
    def probe(self, position: Position) -> Value:
        """The position's exact value, side to move's view (as ``alq tb probe``
        prints it: with the distance where distance tables cover it)."""
    def probe_moves(self, position: Position) -> list[tuple[Move, Value]]:
        """Every legal move with the value of the position it leads to, from the
        mover's view (the lines ``alq tb probe`` prints after the value)."""

@final
class SolveResult:
    """What the exact solver proved (``alq solve``'s output as fields)."""

    @property
    def value(self) -> str | None:
        """What was proven, as ``alq solve`` prints it (``win 12``, ``draw``, or a
        bound such as ``win ≤ 14``), or ``None`` within the budget."""
    @property
    def exact(self) -> Value | None:
        """The exact value with its distance, when that is what was proven."""
    @property
    def lower(self) -> Value:
        """The proven lower bound on the value (``str()`` as ``alq solve`` prints it)."""
    @property
    def upper(self) -> Value:
        """The proven upper bound on the value."""
    @property
    def best_move(self) -> Move | None:
        """A move that achieves the proven value (``None`` when nothing is proven
        or there is no legal move)."""
    @property
    def nodes(self) -> int:
        """Positions expanded."""
    @property
    def graph_nodes(self) -> int:
        """Positions held in the solver's graph."""
    @property
    def tb_hits(self) -> int:
        """Leaves valued by the endgame tables."""
    @property
    def time(self) -> float:
        """Seconds."""
    @property
    def out_of_budget(self) -> bool:
        """Whether the budget ran out before the value was proven."""

# The oracle and players

@final
class OracleAnswer:
    """The oracle's answer for a position, side to move's view."""

    @property
    def value(self) -> Literal["win", "draw", "loss", "≥draw", "≤draw", "unknown"]:
        """``win``, ``draw``, ``loss``, ``≥draw`` (the mover does not lose), ``≤draw``
        (the mover does not win) or ``unknown`` (the budget ran out)."""
    @property
    def source(self) -> Literal["end", "table", "proof", "store", "search", "none"]:
        """``end``, ``table``, ``proof`` (a checked certificate), ``store`` (settled by
        searches, no certificate), ``search``, or ``none`` for ``unknown``."""
    @property
    def nodes(self) -> int:
        """Positions the searches of this question expanded."""
    @property
    def time(self) -> float:
        """Seconds."""
    @property
    def is_exact(self) -> bool:
        """Whether the value is win, draw or loss (not a bound, not unknown)."""

@final
class Oracle:
    """The exact value of positions (as ``alq oracle``): the end, the tables, the
    shipped proofs and the store, then threshold searches within the budget.
    What a search settles is kept, and written back to ``store`` when given.
    Safe to share between threads; questions run without the GIL."""

    def __new__(
        cls,
        *,
        tb: _Tables | None = None,
        store: _Path | None = None,
        movetime: float | None = 1.0,
        nodes: int | None = None,
        shipped: bool = True,
        rules: _Rules = "brainking",
    ) -> Self:
        """``tb``: endgame tables; ``store``: the user's proven-position store (read,
        then written back, merged and atomically); ``movetime`` seconds and/or
        ``nodes`` per question; ``shipped``: the shipped proofs of the start."""
    @property
    def known_positions(self) -> int:
        """Positions whose win questions the oracle knows (proofs, store and
        searches since)."""
    def value(self, position: _Searchable) -> OracleAnswer:
        """The value of ``position`` (a ``Position``, a ``Game``'s current position,
        or position text) for its side to move."""
    def rule_value(self, position: _Searchable) -> tuple[str, int | None] | None:
        """The value under the 60-ply no-progress rule, for the side to move, where
        the oracle's tables include distance-to-progress tables that cover the
        position (``alq tb build --kind dtz``), else ``None``: ``(value, plies)``,
        the value ``win``, ``loss``, ``draw``, ``cursed-win`` (won only without the
        rule) or ``blessed-loss``, and for a win or a loss the plies to the next
        capture or forward move. A ``Game`` counts the plies it has played
        without progress; a position starts at 0."""
    def move_values(self, position: _Searchable) -> list[tuple[Move, OracleAnswer]]:
        """Every legal move with the value it gives the side that plays it (so
        a best move's value is the position's), sorted as ``alq moves`` sorts.
        All the moves share the oracle's budget (``movetime`` or ``nodes``):
        each open move is asked with an equal share of what is left."""

@final
class Player:
    """A player of ``alq match`` by its spec: ``random``, ``greedy``, ``hce@nodes=N``,
    ``nn@movetime=MS``, a network file, ``perfect@tb=DIR,store=FILE,movetime=MS``,
    or ``engine:COMMAND``. ``choose`` gives its move in a game; use it as the
    opponent in an environment (``game.push(player.choose(game))``)."""

    def __new__(cls, spec: str, *, seed: int = 0) -> Self:
        """``spec`` as ``alq match --a`` takes it (searchers without a limit get
        2,000 nodes); ``seed`` for its random choices."""
    @property
    def spec(self) -> str:
        """The spec, as ``alq match`` prints it."""
    @property
    def fallbacks(self) -> int:
        """Moves a perfect player chose by search because the oracle knew no
        value within its budget (0 for other players)."""
    def choose(self, game: Game) -> Move | None:
        """The player's move in ``game`` (a ``Game``, so that the draw rules and the
        positions played count), or ``None`` when the game is over or an
        external engine failed."""

def solve(
    position: Position,
    *,
    nodes: int | None = None,
    movetime: float | None = None,
    tb: _Tables | None = None,
    hash: int = 256,
) -> SolveResult:
    """Solves a position exactly (``alq solve --goal value``): the value with its
    distance, or bounds when the budget (``nodes`` expanded positions,
    ``movetime`` seconds, ``hash`` MiB for the graph) runs out first. Leaves in
    ``tb``'s tables get their exact value. Runs without the GIL."""

# Game records

@final
class Record:
    """One game of a records file, replayed and checked."""

    @property
    def id(self) -> int:
        """The game's id in its file."""
    @property
    def seed(self) -> int:
        """The seed the game was played with."""
    @property
    def rules(self) -> str:
        """The rule set's name, as written in the file."""
    @property
    def start(self) -> Position:
        """The start position."""
    @property
    def white(self) -> str:
        """The White player."""
    @property
    def black(self) -> str:
        """The Black player."""
    @property
    def result(self) -> str:
        """``1-0``, ``0-1`` or ``1/2-1/2``."""
    @property
    def termination(self) -> str:
        """How the game ended (``no_moves``, ``repetition``, ``no_progress``,
        ``max_plies``, ``forfeit``, ...)."""
    @property
    def plies(self) -> int:
        """The number of moves."""
    @property
    def opening_plies(self) -> int:
        """The first moves not chosen by the players' own search."""
    @property
    def opening(self) -> str:
        """The opening's name, as written in the file."""
    @property
    def moves(self) -> list[str]:
        """The moves in canonical text."""
    @property
    def scores(self) -> list[str | None]:
        """The searcher's score of each move, mover's view, as in the file
        (``35``, ``w12``, ``l7``, ``d``), ``None`` for a move not chosen by search."""
    @property
    def file(self) -> str:
        """The file and line the game was read from."""
    @property
    def game(self) -> Game:
        """The replayed game (a new copy on each access)."""
    def positions(self) -> list[Position]:
        """Every position of the game, the start first."""

@final
class GameReader:
    """Streams the games of one or more records files, file by file; memory
    does not grow with the files. A damaged row raises ``RecordError`` naming
    the file and line."""

    def __iter__(self) -> Self: ...
    def __next__(self) -> Record: ...

def read_games(paths: _Paths, *, rules: _Rules | None = None) -> GameReader:
    """Streams the games of ``paths`` (a path or a list). With ``rules``, a game
    played under other rules is an error."""

@final
class GameWriter:
    """Appends games to a records file (created with its header if new), one
    row per game, flushed as written so that a crash loses at most the game
    being written. Usable as a context manager."""

    def __new__(cls, path: _Path) -> Self: ...
    def __enter__(self) -> Self: ...
    def __exit__(self, *_args: object) -> bool: ...
    def write(
        self,
        game: Game,
        *,
        white: str = "python",
        black: str = "python",
        id: int | None = None,
        seed: int = 0,
        scores: Sequence[int | str | None] | None = None,
        opening_plies: int = 0,
    ) -> int:
        """Writes one game. ``white`` and ``black`` name the players; ``scores`` (one
        per move, mover's view: centipawns as int, or text such as ``"w12"``,
        or ``None``) are optional; ``opening_plies`` counts the first moves not
        chosen by the players' own search. Returns the game's id (the next
        after the file's largest unless given)."""
    def close(self) -> None:
        """Syncs the file to disk and closes it."""

def samples(
    paths: _Paths,
    *,
    rules: _Rules = "brainking",
    tb: _Tables | None = None,
    result_weight: float = 0.5,
    skip_opening: bool = True,
    skip_forced_captures: bool = True,
    part: Literal["all", "train", "validation"] = "all",
    validation_fraction: float = 0.1,
) -> _Samples:
    """The trainer's samples of the games in ``paths`` as numpy arrays, exactly as
    ``alq train`` sees them before shuffling and mirroring: one row per
    position kept (the options are the trainer's, with its defaults), with
    ``features`` (float32, n × 50, side to move's view), ``results`` (the
    game's result for the side to move: 1, 0.5, 0), ``scores`` (the squashed
    search score, the result where there is none), both exact where ``tb``
    covers the position, ``targets`` (``result_weight * results + (1 -
    result_weight) * scores``, what a scalar network fits), ``plies``,
    ``game_ids`` (unique across the files), ``record_ids``, ``files``, ``exact``
    (bool: the tables gave the value), and the policy targets ``actions``
    (the action id of the move played; -1 at a game's final position) and
    ``searched`` (that move was the search's choice); the records keep no
    scores of the other moves, so there is no soft target. ``part`` picks
    the trainer's ``"train"`` or ``"validation"`` games (split by game with
    ``validation_fraction``), or ``"all"``. Runs without the GIL."""

__all__ = [
    "INPUTS",
    "SCORE_SCALE",
    "START_TEXT",
    "ActionError",
    "AlquerqueError",
    "Analysis",
    "ArgumentError",
    "Engine",
    "EvalError",
    "Game",
    "GameReader",
    "GameWriter",
    "Info",
    "Move",
    "MoveError",
    "Oracle",
    "OracleAnswer",
    "Player",
    "Position",
    "PositionError",
    "Record",
    "RecordError",
    "RulesError",
    "SearchResult",
    "SolveError",
    "SolveResult",
    "Tablebase",
    "TablebaseError",
    "Value",
    "__version__",
    "action_masks_batch",
    "action_to_move",
    "action_triple",
    "analyze",
    "keys_of",
    "legal_actions_batch",
    "move_to_action",
    "num_actions",
    "play_batch",
    "read_games",
    "samples",
    "search",
    "solve",
]
