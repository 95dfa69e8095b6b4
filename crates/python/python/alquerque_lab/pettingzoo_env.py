"""Alquerque as a PettingZoo AEC environment.

>>> import alquerque_lab
>>> env = alquerque_lab.env(rules="brainking", max_plies=400)
>>> env.reset(seed=0)
>>> obs, reward, terminated, truncated, info = env.last()
>>> obs["observation"].shape, int(obs["action_mask"].sum())
((5, 5, 2), 4)

Agents: ``player_0`` plays White (moves first), ``player_1`` Black.

Actions: ``Discrete(alquerque_lab.num_actions(rules))``, the fixed action
index (every move the rules can produce, numbered once; see
``alquerque_lab.action_triple``). Only legal actions may be played: the
observation's ``action_mask`` marks them. With ``actions="compact"``:
``Discrete(256)``, a move by its origin and end (``alquerque_lab.compact``;
a rare second move with the same origin and end cannot be played), for
policy heads of 256 outputs instead of 49,100.

Observation: ``{"observation": int8 (5, 5, 2), "action_mask": int8 (A,)}``.
``observation[r, f, 0]`` is 1 where the observing agent has a piece on file
``f`` (a = 0) and rank ``r + 1``; plane 1 holds the opponent's pieces. The
board is not turned for Black.

Rewards: +1 to the winner and -1 to the loser when a side has no legal move;
0 to both for a draw by repetition or by the no-progress rule (the game is
over: ``terminated``) or when ``max_plies`` is reached (``truncated``).

The environment has no randomness: ``reset(seed=...)`` only seeds
``np_random`` for users who want it.
"""

from __future__ import annotations

from typing import Any

import numpy as np

try:
    import gymnasium
    from gymnasium import spaces
    from pettingzoo import AECEnv
    from pettingzoo.utils import AgentSelector, wrappers
except ImportError as e:  # pragma: no cover - exercised only without pettingzoo
    raise ImportError(
        "alquerque_lab.env needs PettingZoo: pip install pettingzoo"
    ) from e

from alquerque_lab._core import ArgumentError, Game, Position, num_actions
from alquerque_lab.compact import CompactIndex

__all__ = ["env", "raw_env", "board_text"]


def board_text(position: Position) -> str:
    """The board as five lines (rank 5 first), ``W``, ``B`` and ``.``,
    with coordinates, then the side to move."""
    rows = str(position).split()[0].split("/")
    lines = [f"{5 - i} {' '.join(row)}" for i, row in enumerate(rows)]
    lines.append("  a b c d e")
    lines.append(f"{position.side_to_move} to move")
    return "\n".join(lines)


def env(**kwargs: Any) -> AECEnv:
    """The environment with PettingZoo's usual wrappers: an illegal action
    ends the game with reward -1 for the agent that made it, out-of-range
    actions are refused, and the call order is enforced."""
    e = raw_env(**kwargs)
    e = wrappers.TerminateIllegalWrapper(e, illegal_reward=-1)
    e = wrappers.AssertOutOfBoundsWrapper(e)
    e = wrappers.OrderEnforcingWrapper(e)
    return e


class raw_env(AECEnv):
    """Alquerque for two agents (see the module documentation)."""

    metadata = {
        "render_modes": ["human", "ansi"],
        "name": "alquerque_v0",
        "is_parallelizable": False,
        "render_fps": 2,
    }

    def __init__(
        self,
        rules: str = "brainking",
        max_plies: int | None = 1000,
        no_progress: int | None = 60,
        render_mode: str | None = None,
        actions: str = "full",
    ):
        super().__init__()
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ArgumentError(
                f"render_mode {render_mode!r}: expected one of {self.metadata['render_modes']} or None"
            )
        if actions not in ("full", "compact"):
            raise ArgumentError(f'actions: {actions!r} is not an action set (expected "full" or "compact")')
        if max_plies is not None and max_plies < 1:
            raise ArgumentError(f"max_plies must be a whole number of at least 1 (or None), not {max_plies!r}")
        self.rules = rules
        self.max_plies = max_plies
        self.no_progress = no_progress
        self.render_mode = render_mode
        self._num_actions = num_actions(rules)  # raises RulesError for unknown rules
        self.actions = actions
        self._compact = CompactIndex(rules) if actions == "compact" else None
        if self._compact is not None:
            self._num_actions = len(self._compact)
        self.possible_agents = ["player_0", "player_1"]
        self._sides = {"player_0": "white", "player_1": "black"}
        self.observation_spaces = {
            a: spaces.Dict(
                {
                    "observation": spaces.Box(0, 1, shape=(5, 5, 2), dtype=np.int8),
                    "action_mask": spaces.Box(0, 1, shape=(self._num_actions,), dtype=np.int8),
                }
            )
            for a in self.possible_agents
        }
        self.action_spaces = {a: spaces.Discrete(self._num_actions) for a in self.possible_agents}
        self.game: Game | None = None

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        assert self.game is not None, "reset() first"
        planes = self.game.position.to_planes(self._sides[agent])
        if agent == self.agent_selection and not self.game.is_over() and not self.truncations[agent]:
            mask = self.game.action_mask() if self._compact is None else self._compact.action_mask(self.game)
        else:
            mask = np.zeros(self._num_actions, dtype=np.int8)
        return {"observation": planes, "action_mask": mask}

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        if seed is not None or not hasattr(self, "np_random"):
            self.np_random, _ = gymnasium.utils.seeding.np_random(seed)
        self.game = Game(rules=self.rules, no_progress=self.no_progress, max_plies=None)
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0 for a in self.agents}
        self._cumulative_rewards = {a: 0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self._agent_selector = AgentSelector(self.agents)
        self.agent_selection = self._agent_selector.reset()

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        assert self.game is not None, "reset() first"
        self._cumulative_rewards[agent] = 0
        self._clear_rewards()
        if self._compact is not None:
            move = self.game.push(self._compact.to_move(self.game, int(action)))
        else:
            move = self.game.push(int(action))
        other = self._agent_selector.next()
        for a in self.agents:
            self.infos[a] = {"move": str(move), "plies": self.game.plies}
        if self.game.is_over():
            winner = self.game.winner()
            for a in self.agents:
                self.terminations[a] = True
                self.infos[a]["termination"] = self.game.termination()
                if winner is not None:
                    self.rewards[a] = 1 if self._sides[a] == winner else -1
        elif self.max_plies is not None and self.game.plies >= self.max_plies:
            for a in self.agents:
                self.truncations[a] = True
                self.infos[a]["termination"] = "max_plies"
        self.agent_selection = other
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def render(self) -> str | None:
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode; pass render_mode='ansi' or 'human'")
            return None
        assert self.game is not None, "reset() first"
        text = board_text(self.game.position)
        if self.render_mode == "ansi":
            return text
        print(text)
        return None

    def close(self) -> None:
        pass
