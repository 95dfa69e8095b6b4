"""Alquerque Lab from Python: Alquerque under BrainKing's rules (and the
classic rules) for people who train bots.

The core is the project's Rust engine, compiled in: positions and games with
the draw rules, a fixed action index, search with the shipped network or the
handcrafted evaluator, endgame tables, the exact solver, and game records
(read, turned into the trainer's numpy samples, and written). On top of it:

- ``alquerque_lab.env(...)``: a PettingZoo AEC environment (needs
  ``pettingzoo``);
- ``alquerque_lab.openspiel.register()``: the game for OpenSpiel (needs
  ``open_spiel``), loadable as ``pyspiel.load_game("alquerque_lab")``.

>>> import alquerque_lab as aq
>>> p = aq.Position()
>>> sorted(str(m) for m in p.legal_moves())
['b2-c3', 'c2-c3', 'd2-c3', 'd3-c3']
>>> str(p.push("c2-c3"))
'BBBBB/BBBBB/BBWWW/WW.WW/WWWWW b'
"""

from alquerque_lab._core import (
    INPUTS,
    SCORE_SCALE,
    START_TEXT,
    ActionError,
    AlquerqueError,
    ArgumentError,
    Analysis,
    Engine,
    EvalError,
    Game,
    GameReader,
    GameWriter,
    Info,
    Move,
    MoveError,
    Oracle,
    OracleAnswer,
    Player,
    Position,
    PositionError,
    Record,
    RecordError,
    RulesError,
    SearchResult,
    SolveError,
    SolveResult,
    Tablebase,
    TablebaseError,
    Value,
    __version__,
    action_masks_batch,
    action_to_move,
    action_triple,
    analyze,
    keys_of,
    legal_actions_batch,
    move_to_action,
    num_actions,
    play_batch,
    read_games,
    samples,
    search,
    solve,
)

RULES = ("brainking", "classic")


def env(**kwargs):
    """The PettingZoo AEC environment (see ``alquerque_lab.pettingzoo_env``)."""
    from alquerque_lab.pettingzoo_env import env as _env

    return _env(**kwargs)


def raw_env(**kwargs):
    """The environment without PettingZoo's wrappers."""
    from alquerque_lab.pettingzoo_env import raw_env as _raw_env

    return _raw_env(**kwargs)


__all__ = [
    "INPUTS",
    "RULES",
    "SCORE_SCALE",
    "START_TEXT",
    "ActionError",
    "AlquerqueError",
    "ArgumentError",
    "Analysis",
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
    "env",
    "keys_of",
    "legal_actions_batch",
    "move_to_action",
    "num_actions",
    "play_batch",
    "raw_env",
    "read_games",
    "samples",
    "search",
    "solve",
]
