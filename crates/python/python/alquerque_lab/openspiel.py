"""Alquerque as an OpenSpiel game.

>>> import pyspiel
>>> import alquerque_lab.openspiel
>>> alquerque_lab.openspiel.register()
>>> game = pyspiel.load_game("alquerque_lab")
>>> state = game.new_initial_state()
>>> [state.action_to_string(a) for a in state.legal_actions()]
['b2-c3', 'c2-c3', 'd2-c3', 'd3-c3']

Parameters (``pyspiel.load_game("alquerque_lab(rules=classic,max_plies=500)")``):

- ``rules``: ``brainking`` (default) or ``classic``;
- ``max_plies``: the game is a draw when it reaches this many plies (default
  1000; OpenSpiel needs a bound on the game's length);
- ``no_progress``: plies without a capture or forward move that end the game
  in a draw (default 60; 0 switches the rule off);
- ``actions``: ``full`` (default, the fixed action index) or ``compact``
  (256 actions, a move by its origin and end: ``alquerque_lab.compact``).

Player 0 is White (moves first), player 1 Black. Actions are the fixed action
index (``alquerque_lab.num_actions``); ``action_to_string`` gives the move
text. Returns are +1 / -1 for a win / loss and 0 for a draw (repetition, no
progress, or the ply cap). The observation tensor is the observing player's
pieces and the opponent's as two 5 x 5 planes, shape (5, 5, 2), as in the
PettingZoo environment.
"""

from __future__ import annotations

import numpy as np

try:
    import pyspiel
except ImportError as e:  # pragma: no cover - exercised only without open_spiel
    raise ImportError("alquerque_lab.openspiel needs OpenSpiel: pip install open_spiel") from e

from alquerque_lab._core import ArgumentError, Game, action_to_move, action_triple, num_actions
from alquerque_lab.compact import CompactIndex

__all__ = ["GAME_TYPE", "AlquerqueGame", "AlquerqueState", "register"]

_DEFAULTS = {"rules": "brainking", "max_plies": 1000, "no_progress": 60, "actions": "full"}

GAME_TYPE = pyspiel.GameType(
    short_name="alquerque_lab",
    long_name="Alquerque (Alquerque Lab)",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.DETERMINISTIC,
    information=pyspiel.GameType.Information.PERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=2,
    min_num_players=2,
    provides_information_state_string=False,
    provides_information_state_tensor=False,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=_DEFAULTS,
)


class AlquerqueGame(pyspiel.Game):
    """The game: rules, ply cap and no-progress limit from the parameters."""

    def __init__(self, params=None):
        merged = dict(_DEFAULTS)
        merged.update(params or {})
        rules = merged["rules"]
        max_plies = int(merged["max_plies"])
        if max_plies < 1:
            raise ArgumentError(f"max_plies must be a whole number of at least 1, not {max_plies!r}")
        if merged["actions"] not in ("full", "compact"):
            raise ArgumentError(f'actions: {merged["actions"]!r} is not an action set (expected "full" or "compact")')
        self.compact = CompactIndex(rules) if merged["actions"] == "compact" else None
        info = pyspiel.GameInfo(
            num_distinct_actions=num_actions(rules) if self.compact is None else len(self.compact),
            max_chance_outcomes=0,
            num_players=2,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=0.0,
            max_game_length=max_plies,
        )
        super().__init__(GAME_TYPE, info, params or {})
        self.rules = rules
        self.max_plies = max_plies
        no_progress = int(merged["no_progress"])
        self.no_progress = no_progress if no_progress > 0 else None

    def new_initial_state(self) -> "AlquerqueState":
        return AlquerqueState(self)

    def make_py_observer(self, iig_obs_type=None, params=None) -> "AlquerqueObserver":
        return AlquerqueObserver(params)


class AlquerqueState(pyspiel.State):
    """A game in progress; it keeps the whole game for the draw rules."""

    def __init__(self, game: AlquerqueGame):
        super().__init__(game)
        self.game = Game(rules=game.rules, no_progress=game.no_progress, max_plies=game.max_plies)
        self.compact = game.compact

    def current_player(self) -> int:
        if self.game.is_over():
            return pyspiel.PlayerId.TERMINAL
        return 0 if self.game.side_to_move == "white" else 1

    def _legal_actions(self, player: int) -> list[int]:
        if self.compact is not None:
            return self.compact.legal_actions(self.game)
        return self.game.legal_actions()

    def _apply_action(self, action: int) -> None:
        if self.compact is not None:
            self.game.push(self.compact.to_move(self.game, int(action)))
        else:
            self.game.push(int(action))

    def _action_to_string(self, player: int, action: int) -> str:
        if self.compact is not None:
            try:
                return str(self.compact.to_move(self.game, action))
            except ValueError:
                origin, end = self.compact.pair(action)
                return f"{origin}>{end}"
        try:
            return str(action_to_move(self.game.position, action))
        except ValueError:
            # Not legal here (e.g. printing a history): name the triple.
            origin, end, captured = action_triple(action, self.game.rules)
            return f"{origin}x{end}[{' '.join(captured)}]" if captured else f"{origin}-{end}"

    def is_terminal(self) -> bool:
        return self.game.is_over()

    def returns(self) -> list[float]:
        winner = self.game.winner()
        if winner == "white":
            return [1.0, -1.0]
        if winner == "black":
            return [-1.0, 1.0]
        return [0.0, 0.0]

    def __str__(self) -> str:
        return str(self.game.position)


class AlquerqueObserver:
    """Two 5 x 5 planes (own pieces, opponent's), shape (5, 5, 2)."""

    def __init__(self, params=None):
        if params:
            raise ValueError(f"observation parameters are not supported; got {params}")
        self.tensor = np.zeros(50, np.float32)
        self.dict = {"observation": self.tensor.reshape(5, 5, 2)}

    def set_from(self, state: AlquerqueState, player: int) -> None:
        side = "white" if player == 0 else "black"
        self.dict["observation"][...] = state.game.position.to_planes(side)

    def string_from(self, state: AlquerqueState, player: int) -> str:
        return str(state.game.position)


_registered = False


def register() -> None:
    """Registers the game with OpenSpiel (once), as ``alquerque_lab``."""
    global _registered
    if not _registered:
        pyspiel.register_game(GAME_TYPE, AlquerqueGame)
        _registered = True


register()
