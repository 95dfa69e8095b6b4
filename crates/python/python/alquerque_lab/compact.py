"""A compact action index for policy heads: a move by its origin and end.

The full action index (``alquerque_lab.num_actions``: 49,100 actions under
BrainKing's rules, 93,186 under the classic rules) numbers every (origin,
end, captured set) a jump chain can have, so that every legal move has its
own id. Most of those ids differ only in the captured set, and a position
almost never has two legal moves with the same origin and end: in 114,727
positions of 2,000 self-play games (``alq selfplay --games 2000 --nodes 200
--seed 1``) it happened in 3 (0.0026 %), 3 of 698,241 legal moves. Only 256
(origin, end) pairs occur under BrainKing's rules, so a policy head over
pairs has 256 outputs instead of 49,100.

The compact index numbers those pairs in (origin, end) order (a1 = 0, …,
e5 = 24). A compact action stands for the legal move with that origin and
end; where a position has several, for the one that captures the most
pieces, then the one with the lowest full action id. That tie-break makes
the rare other move unplayable through the compact index: an agent on it
plays a very slightly smaller game (say so when you report results).

>>> import alquerque_lab as aq
>>> from alquerque_lab.compact import CompactIndex
>>> index = CompactIndex("brainking")
>>> len(index)
256
>>> p = aq.Position()
>>> [index.pair(c) for c in index.legal_actions(p)]
[('b2', 'c3'), ('c2', 'c3'), ('d2', 'c3'), ('d3', 'c3')]
>>> str(index.to_move(p, index.legal_actions(p)[1]))
'c2-c3'
"""

from __future__ import annotations

from functools import lru_cache
from typing import Literal, Union

import numpy as np

from alquerque_lab._core import ActionError, Game, Move, Position, action_triple, num_actions

__all__ = ["CompactIndex"]

_Rules = Literal["brainking", "classic"]
_Board = Union[Position, Game]


class CompactIndex:
    """The (origin, end) index of one rule set (see the module documentation)."""

    def __init__(self, rules: _Rules = "brainking"):
        self.rules = rules
        self._pairs, self._of_action = _tables(rules)
        self._id = {pair: i for i, pair in enumerate(self._pairs)}

    def __len__(self) -> int:
        """The number of compact actions (256 under BrainKing's rules)."""
        return len(self._pairs)

    def __repr__(self) -> str:
        return f"CompactIndex({self.rules!r}, {len(self)} actions)"

    def pair(self, compact: int) -> tuple[str, str]:
        """The (origin, end) a compact action stands for."""
        if not 0 <= compact < len(self._pairs):
            raise ActionError(f"compact action {compact} is out of range (0 … {len(self._pairs) - 1})")
        return self._pairs[compact]

    def of_action(self, action: int) -> int:
        """The compact action of a full action id."""
        if not 0 <= action < len(self._of_action):
            raise ActionError(f"action {action} is out of range (0 … {len(self._of_action) - 1})")
        return int(self._of_action[action])

    def of_move(self, move: Move) -> int:
        """The compact action of a move."""
        return self._id[(move.from_point, move.to_point)]

    def actions_of(self, actions: np.ndarray) -> np.ndarray:
        """The compact actions of an array of full action ids (vectorised; e.g.
        the ``actions`` column of ``samples()``, where -1 stays -1)."""
        actions = np.asarray(actions, dtype=np.int64)
        out = np.full(actions.shape, -1, dtype=np.int32)
        valid = actions >= 0
        out[valid] = self._of_action[actions[valid]]
        return out

    def legal_actions(self, board: _Board) -> list[int]:
        """The compact actions legal in a position or game, ascending."""
        return sorted({self.of_move(m) for m in board.legal_moves()})

    def action_mask(self, board: _Board) -> np.ndarray:
        """An int8 mask over the compact index, 1 where the action is legal."""
        mask = np.zeros(len(self._pairs), dtype=np.int8)
        for m in board.legal_moves():
            mask[self.of_move(m)] = 1
        return mask

    def to_move(self, board: _Board, compact: int) -> Move:
        """The legal move a compact action stands for: the one with its origin
        and end, the most captures first, then the lowest full action id.
        ``ActionError`` when no legal move has that origin and end."""
        origin, end = self.pair(compact)
        moves = [m for m in board.legal_moves() if m.from_point == origin and m.to_point == end]
        if not moves:
            raise ActionError(f"compact action {compact} ({origin} to {end}) is not legal in {_text(board)}")
        return min(moves, key=lambda m: (-len(m.captured), m.action))


def _text(board: _Board) -> str:
    return str(board.position if isinstance(board, Game) else board)


@lru_cache(maxsize=None)
def _tables(rules: _Rules) -> tuple[list[tuple[str, str]], np.ndarray]:
    """The (origin, end) pairs in point order and the full → compact map."""
    points = [f"{f}{r}" for r in "12345" for f in "abcde"]
    order = {p: i for i, p in enumerate(points)}
    triples = [action_triple(a, rules)[:2] for a in range(num_actions(rules))]
    pairs = sorted(set(triples), key=lambda p: (order[p[0]], order[p[1]]))
    ids = {p: i for i, p in enumerate(pairs)}
    return pairs, np.array([ids[t] for t in triples], dtype=np.int32)
