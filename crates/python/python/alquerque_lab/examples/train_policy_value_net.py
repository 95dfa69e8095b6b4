#!/usr/bin/env python3
"""Train a small value + policy network on self-play records with numpy alone,
then play it against ``greedy`` and ``hce@nodes=100`` through the PettingZoo
environment.

1. Samples: ``alquerque_lab.samples(paths, part=..., skip_forced_captures=False)``
   gives the trainer's rows with the policy target: ``actions``, the action id
   of the move played, and ``searched``, whether the players' own search chose
   it (the opening's random or sampled moves are not targets). The records
   keep no scores of the other moves, so the target is the move played, not a
   distribution over the legal moves.
2. Policy over the compact index (``alquerque_lab.compact``): a move by its
   origin and end, 256 outputs instead of the full index's 49,100; the
   environment plays it with ``actions="compact"``. ``CompactIndex.actions_of``
   turns the ``actions`` column into compact ids.
3. Network: 50 -> hidden (ReLU) -> a value head (1, sigmoid, mean squared
   error on ``targets``) and a policy head (256 logits, softmax cross-entropy
   on the searched moves), trained together with Adam, written out in numpy
   (about 80 lines; no deep-learning framework needed).
4. Play, in pairs of games from one random 4-ply opening with colours
   swapped, against ``greedy`` (captures the most, a
   winning move first) and against ``alq``'s ``hce@nodes=100``
   (``alquerque_lab.Player``), each of three ways of using the network:
   ``value`` (one ply ahead, the move whose position is worst for the
   opponent by the value head), ``policy`` (the legal move the policy head
   rates highest, no lookahead) and ``policy+value`` (the value head's
   choice among the policy's three best moves).

Records come from self-play, e.g. (a few seconds)::

    alq selfplay --out /tmp/aq_selfplay1000 --games 1000 --nodes 300 --seed 1 --quiet
    python -m alquerque_lab.examples.train_policy_value_net --games /tmp/aq_selfplay1000 \\
        --epochs 10 --play 200

Needs numpy and ``pettingzoo`` (``pip install alquerque_lab[pettingzoo]``).
The figures measured with this command are in crates/python/README.md
("Training a value + policy network").
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from typing import Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np

import alquerque_lab as aq
from alquerque_lab.compact import CompactIndex


def records_files(paths: Sequence[str]) -> List[str]:
    """Records files; a folder stands for its ``games.csv`` (as ``alq selfplay`` writes it)."""
    return [os.path.join(p, "games.csv") if os.path.isdir(p) else p for p in paths]


# -- the network, in numpy -----------------------------------------------------


class Net:
    """50 -> hidden (ReLU) -> value logit (1) and policy logits (P)."""

    def __init__(self, hidden: int, policy: int, rng: np.random.Generator):
        def layer(n_in: int, n_out: int) -> Tuple[np.ndarray, np.ndarray]:
            return (rng.normal(0, np.sqrt(2 / n_in), (n_in, n_out)).astype(np.float32),
                    np.zeros(n_out, np.float32))

        self.params: Dict[str, np.ndarray] = {}
        self.params["w1"], self.params["b1"] = layer(aq.INPUTS, hidden)
        self.params["wv"], self.params["bv"] = layer(hidden, 1)
        self.params["wp"], self.params["bp"] = layer(hidden, policy)
        self.m = {k: np.zeros_like(v) for k, v in self.params.items()}
        self.v = {k: np.zeros_like(v) for k, v in self.params.items()}
        self.t = 0

    def size(self) -> int:
        return sum(v.size for v in self.params.values())

    def forward(self, x: np.ndarray) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Hidden activations, value (sigmoid, side to move's expected score) and policy logits."""
        p = self.params
        h = np.maximum(x @ p["w1"] + p["b1"], 0)
        value = 1 / (1 + np.exp(-(h @ p["wv"] + p["bv"])[:, 0]))
        return h, value, h @ p["wp"] + p["bp"]

    def losses(self, x, target, action, use) -> Tuple[float, float, Dict[str, np.ndarray]]:
        """Value loss (MSE), policy loss (cross-entropy over the rows in ``use``) and gradients."""
        p = self.params
        h, value, logits = self.forward(x)
        n = len(x)
        dv = 2 * (value - target) * value * (1 - value) / n  # d loss / d value logit
        logits = logits - logits.max(axis=1, keepdims=True)
        prob = np.exp(logits)
        prob /= prob.sum(axis=1, keepdims=True)
        k = max(int(use.sum()), 1)
        rows = np.flatnonzero(use)
        policy_loss = float(-np.log(prob[rows, action[rows]] + 1e-12).sum() / k)
        dp = prob * use[:, None] / k
        dp[rows, action[rows]] -= 1 / k
        grads = {
            "wv": h.T @ dv[:, None], "bv": dv[None].sum(axis=1),
            "wp": h.T @ dp, "bp": dp.sum(axis=0),
        }
        dh = (dv[:, None] @ p["wv"].T + dp @ p["wp"].T) * (h > 0)
        grads["w1"], grads["b1"] = x.T @ dh, dh.sum(axis=0)
        return float(np.mean((value - target) ** 2)), policy_loss, grads

    def step(self, grads: Dict[str, np.ndarray], lr: float) -> None:
        """One Adam step."""
        self.t += 1
        for k, g in grads.items():
            self.m[k] = 0.9 * self.m[k] + 0.1 * g
            self.v[k] = 0.999 * self.v[k] + 0.001 * g * g
            mhat = self.m[k] / (1 - 0.9 ** self.t)
            vhat = self.v[k] / (1 - 0.999 ** self.t)
            self.params[k] -= lr * mhat / (np.sqrt(vhat) + 1e-8)


def columns(s: dict, index: CompactIndex) -> Tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Features, value targets, compact policy targets and which rows have one."""
    compact = index.actions_of(s["actions"])
    use = s["searched"] & (compact >= 0)
    return s["features"], s["targets"].astype(np.float32), np.maximum(compact, 0), use.astype(np.float32)


def train(net: Net, data, valid, args: argparse.Namespace, rng: np.random.Generator) -> None:
    x, y, a, use = data
    vx, vy, va, vuse = valid

    def evaluate() -> str:
        vl, pl, _ = net.losses(vx, vy, va, vuse)
        _, _, logits = net.forward(vx)
        rows = vuse > 0
        top1 = float((logits[rows].argmax(axis=1) == va[rows]).mean()) if rows.any() else float("nan")
        return f"validation value loss {vl:.5f} policy loss {pl:.3f} top-1 {top1:.3f}"

    print(f"epoch  0  {evaluate()}  (untrained)")
    n = len(x)
    for epoch in range(1, args.epochs + 1):
        start = time.perf_counter()
        order = rng.permutation(n)
        for i in range(0, n, args.batch):
            idx = order[i : i + args.batch]
            _, _, grads = net.losses(x[idx], y[idx], a[idx], use[idx])
            net.step(grads, args.lr)
        print(f"epoch {epoch:2d}  {evaluate()}  ({time.perf_counter() - start:.2f} s)")


# -- players --------------------------------------------------------------------

# A player gets the game (the environment's own, read only), the legal compact
# actions and returns one of them.
Chooser = Callable[["aq.Game", List[int]], int]


def greedy_player(index: CompactIndex, rng: random.Random) -> Chooser:
    def play(game: "aq.Game", legal: List[int]) -> int:
        def value(c: int) -> float:
            mv = index.to_move(game, c)
            return float("inf") if game.position.push(mv).is_over() else len(mv.captured)

        values = [value(c) for c in legal]
        return rng.choice([c for c, v in zip(legal, values) if v == max(values)])

    return play


def engine_player(spec: str, index: CompactIndex, seed: int) -> Chooser:
    player = aq.Player(spec, seed=seed)

    def play(game: "aq.Game", legal: List[int]) -> int:
        mv = player.choose(game)
        assert mv is not None
        return index.of_move(mv)

    return play


def network_player(net: Net, index: CompactIndex, way: str) -> Chooser:
    def by_value(game: "aq.Game", legal: List[int]) -> int:
        children = [game.position.push(index.to_move(game, c)) for c in legal]
        for c, child in zip(legal, children):
            if child.is_over():
                return c
        _, v, _ = net.forward(np.stack([ch.to_array() for ch in children]))
        return legal[int(v.argmin())]  # the opponent's expected score: lowest

    def play(game: "aq.Game", legal: List[int]) -> int:
        if way == "value" or len(legal) == 1:
            return by_value(game, legal)
        _, _, logits = net.forward(game.position.to_array()[None])
        ranked = sorted(legal, key=lambda c: -logits[0, c])
        return ranked[0] if way == "policy" else by_value(game, ranked[:3])

    return play


def play_match(env, index: CompactIndex, net_player: Chooser, other: Chooser, games: int, args):
    """Games in pairs: the same random opening (``--random-plies`` moves, seeded
    per pair) with the network on either side, as ``alq match`` pairs them;
    both players here are deterministic, so the openings make the games differ."""
    wins = draws = losses = 0
    for g in range(games):
        env.reset(seed=args.seed + g)
        net_agent = "player_0" if g % 2 == 0 else "player_1"
        opening = random.Random(args.seed * 1_000_003 + g // 2)
        final: Dict[str, float] = {}
        for ply, agent in enumerate(env.agent_iter()):
            obs, reward, terminated, truncated, _ = env.last()
            if terminated or truncated:
                final[agent] = reward
                env.step(None)
                continue
            legal = np.flatnonzero(obs["action_mask"]).tolist()
            if ply < args.random_plies:
                env.step(opening.choice(legal))
                continue
            chooser = net_player if agent == net_agent else other
            env.step(chooser(env.unwrapped.game, legal))
        r = final.get(net_agent, 0)
        wins, draws, losses = wins + (r > 0), draws + (r == 0), losses + (r < 0)
    return wins, draws, losses


def main(argv: Optional[List[str]] = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--games", nargs="+", required=True, metavar="PATH",
                   help="records files (games.csv), or folders written by alq selfplay")
    p.add_argument("--epochs", type=int, default=10)
    p.add_argument("--hidden", type=int, default=64)
    p.add_argument("--batch", type=int, default=256)
    p.add_argument("--lr", type=float, default=2e-3)
    p.add_argument("--play", type=int, default=100, metavar="N",
                   help="games against each opponent per way of playing (0: none)")
    p.add_argument("--opponents", default="greedy,hce@nodes=100",
                   help="comma-separated: greedy, or any alq match player spec")
    p.add_argument("--random-plies", type=int, default=4,
                   help="random opening moves of each pair of games (default 4)")
    p.add_argument("--max-plies", type=int, default=400, help="the environment's ply cap (a draw)")
    p.add_argument("--seed", type=int, default=1)
    args = p.parse_args(argv)

    index = CompactIndex("brainking")
    files = records_files(args.games)
    start = time.perf_counter()
    try:
        kw = dict(skip_forced_captures=False)
        data = columns(aq.samples(files, part="train", **kw), index)
        valid = columns(aq.samples(files, part="validation", **kw), index)
    except aq.AlquerqueError as e:
        sys.exit(f"cannot read the records: {e}")
    print(f"samples: {len(data[0])} train ({int(data[3].sum())} with a policy target), "
          f"{len(valid[0])} validation from {len(files)} file(s) ({time.perf_counter() - start:.2f} s)")
    if len(data[0]) == 0 or len(valid[0]) == 0:
        sys.exit("not enough samples: play more games (alq selfplay --games N)")
    rng = np.random.default_rng(args.seed)
    net = Net(args.hidden, len(index), rng)
    print(f"network: {aq.INPUTS} -> {args.hidden} -> value 1 + policy {len(index)}, {net.size()} parameters")
    t = time.perf_counter()
    train(net, data, valid, args, rng)
    print(f"training: {time.perf_counter() - t:.1f} s")

    if args.play > 0:
        try:
            env = aq.env(actions="compact", max_plies=args.max_plies)
        except ImportError as e:
            sys.exit(f"playing needs PettingZoo ({e}); or pass --play 0")
        for spec in args.opponents.split(","):
            pyrng = random.Random(args.seed)
            other = greedy_player(index, pyrng) if spec == "greedy" else engine_player(spec, index, args.seed)
            for way in ("value", "policy", "policy+value"):
                t = time.perf_counter()
                w, d, l = play_match(env, index, network_player(net, index, way), other, args.play, args)
                n = w + d + l
                print(f"{way} vs {spec}: {n} games, wins {w} draws {d} losses {l}, "
                      f"score {(w + d / 2) / n:.3f} ({time.perf_counter() - t:.2f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
