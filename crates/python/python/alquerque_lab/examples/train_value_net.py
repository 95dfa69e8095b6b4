#!/usr/bin/env python3
"""Train a small PyTorch value network on self-play records, then play it
against a greedy player through the PettingZoo environment.

1. Samples: ``alquerque_lab.samples(paths, part="train" | "validation")``
   gives the trainer's rows (``features``: float32, n × 50, side to move's
   view; ``targets``: the blend of the game's result and the squashed search
   score, in [0, 1]) exactly as ``alq train`` sees them; the split is by game.
2. Network: 50 -> hidden -> 1 (default 64, 16), clipped ReLU, sigmoid output,
   mean squared error on ``targets``, AdamW: the shape of the shipped network.
3. Play: ``alquerque_lab.env(rules=..., max_plies=...)``, the network's side
   alternating between ``player_0`` (White) and ``player_1``. The network
   player looks one ply ahead: from the observation (the two piece planes and
   the action mask) it rebuilds the position, plays every legal action, and
   picks the one whose position is worst for the opponent by the network (a
   move that leaves the opponent without a move wins at once). The greedy
   player takes the move that captures the most pieces (a move that wins at
   once first, as ``alq match``'s ``greedy``), ties at random.

Records come from self-play, e.g. (a few seconds)::

    alq selfplay --out /tmp/aq_selfplay1000 --games 1000 --nodes 300 --seed 1 --quiet
    python -m alquerque_lab.examples.train_value_net --games /tmp/aq_selfplay1000/games.csv \\
        --epochs 10 --play 200

Needs ``torch`` (``pip install torch``; the CPU wheel: ``pip install torch
--index-url https://download.pytorch.org/whl/cpu``) and ``pettingzoo``
(``pip install alquerque_lab[pettingzoo]``).

Measured on this project's 2-core development machine (torch 2.15.0 on the
CPU, one torch thread), in the package's environment; the records from
``alq selfplay --out /tmp/aq_selfplay1000 --games 1000 --nodes 300 --seed 1 --quiet``
(1000 games, 8.8 s; a folder given to ``--games`` stands for its
``games.csv``)::

    $ python -m alquerque_lab.examples.train_value_net --games /tmp/aq_selfplay1000 \\
          --epochs 10 --play 200 --baseline
    samples: 29405 train, 2396 validation from 1 file(s) (0.18 s)
    network: 50 -> 64 -> 16 -> 1, 4321 parameters, torch 2.15.0+cu132, 1 threads
    untrained network vs greedy: 200 games, wins 46 draws 0 losses 154, score 0.230 (no_moves 200; 3.3 s)
    epoch  0  train loss 0.06706  validation loss 0.09754  (untrained)
    epoch  1  train loss 0.03121  validation loss 0.01959  (0.19 s)
    epoch  2  train loss 0.01383  validation loss 0.01736  (0.31 s)
    ...
    epoch  9  train loss 0.00940  validation loss 0.01489  (0.24 s)
    epoch 10  train loss 0.00912  validation loss 0.01461  (0.27 s)
    training: 5.8 s
    trained network vs greedy: 200 games, wins 158 draws 4 losses 38, score 0.800 (no_moves 196, repetition 4; 3.8 s)
    (19.9 s in all, most of it importing torch)

    With --mirror (same data): validation loss 0.01452 after 10 epochs, score
    0.860 against greedy (171 wins, 2 draws, 27 losses; 17.3 s in all).
    On 400 games (alq selfplay --games 400 --nodes 200 --seed 1: 11963 train,
    1557 validation samples): validation loss 0.01342 after 10 epochs, score
    0.588 (116 wins, 3 draws, 81 losses; 13.4 s in all).

The runs are reproducible (seeded; one torch thread): the same command
printed the same losses and games twice. The epoch-0 losses differ between
the parts because the 96 validation games happen to hold fewer draws (target
variance 0.097 against 0.067).
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from typing import Any, Callable, Dict, List, Literal, Mapping, Optional, Sequence, Tuple, cast

import numpy as np

import alquerque_lab as aq

TORCH_MISSING = (
    "train_value_net.py needs PyTorch, which is not installed in this Python ({python}).\n"
    "Install it with `pip install torch` (CPU-only wheel: "
    "`pip install torch --index-url https://download.pytorch.org/whl/cpu`)."
)


def import_torch() -> Any:
    """Imports torch, or exits with a message saying how to install it."""
    try:
        import torch
    except ImportError:
        sys.exit(TORCH_MISSING.format(python=sys.executable))
    return torch


def records_files(paths: Sequence[str]) -> List[str]:
    """Records files; a folder stands for its ``games.csv`` (as ``alq selfplay`` writes it)."""
    files = []
    for p in paths:
        files.append(os.path.join(p, "games.csv") if os.path.isdir(p) else p)
    return files


# -- the network --------------------------------------------------------------


def build_model(torch: Any, hidden: Sequence[int]) -> Any:
    """50 -> hidden... -> 1 logit, clipped ReLU between the layers."""
    layers: List[Any] = []
    width = aq.INPUTS
    for h in hidden:
        layers += [torch.nn.Linear(width, h), torch.nn.Hardtanh(0.0, 1.0)]
        width = h
    layers.append(torch.nn.Linear(width, 1))
    return torch.nn.Sequential(*layers)


def train(torch: Any, model: Any, data: Mapping[str, Any], valid: Mapping[str, Any], args: argparse.Namespace) -> None:
    xs = torch.from_numpy(data["features"])
    ys = torch.from_numpy(data["targets"]).unsqueeze(1)
    vx = torch.from_numpy(valid["features"])
    vy = torch.from_numpy(valid["targets"]).unsqueeze(1)
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=1e-4)
    gen = torch.Generator().manual_seed(args.seed)
    n = len(xs)

    def loss_of(x: Any, y: Any) -> Any:
        return torch.mean((torch.sigmoid(model(x)) - y) ** 2)

    with torch.no_grad():
        print(f"epoch  0  train loss {loss_of(xs, ys).item():.5f}  validation loss {loss_of(vx, vy).item():.5f}  (untrained)")
    for epoch in range(1, args.epochs + 1):
        start = time.perf_counter()
        model.train()
        order = torch.randperm(n, generator=gen)
        total = 0.0
        for i in range(0, n, args.batch):
            idx = order[i : i + args.batch]
            x, y = xs[idx], ys[idx]
            if args.mirror:
                # Left-right mirroring keeps the value (Position.mirror); on the
                # feature vector it reverses the files of both 25-point halves.
                flip = torch.rand(len(x), generator=gen) < 0.5
                x = torch.where(flip.unsqueeze(1), x[:, MIRROR], x)
            loss = loss_of(x, y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += loss.item() * len(x)
        model.eval()
        with torch.no_grad():
            v = loss_of(vx, vy).item()
        secs = time.perf_counter() - start
        print(f"epoch {epoch:2d}  train loss {total / n:.5f}  validation loss {v:.5f}  ({secs:.2f} s)")


def mirror_permutation() -> np.ndarray:
    """The feature permutation of a left-right mirror. The features are two
    halves of 25 (the side to move's pieces, then the opponent's), each
    indexed ``5 * rank + file`` from the side to move's view; mirroring
    swaps file f with 4 - f. Checked against ``Position.mirror``."""
    i = np.arange(aq.INPUTS)
    half, q = i // 25, i % 25
    perm = half * 25 + (q // 5) * 5 + (4 - q % 5)
    for text in ("B.B../.BB../B...W/..W.W/W.WW. w", "B.B../.BB../B...W/..W.W/W.WW. b"):
        pos = aq.Position(text)
        assert np.array_equal(pos.to_array()[perm], pos.mirror().to_array()), "feature layout changed"
    return perm


MIRROR: Any = None  # set in main when --mirror is on


# -- players on the PettingZoo environment --------------------------------------


def position_of(observation: np.ndarray, side: str, rules: str) -> "aq.Position":
    """The position the observing agent sees: plane 0 holds its pieces, plane 1
    the opponent's, indexed [rank - 1][file]; the agent is to move."""
    me, other = ("W", "B") if side == "white" else ("B", "W")
    ranks = []
    for r in range(4, -1, -1):
        row = ""
        for f in range(5):
            row += me if observation[r, f, 0] else other if observation[r, f, 1] else "."
        ranks.append(row)
    return aq.Position("/".join(ranks) + (" w" if side == "white" else " b"), rules=cast(Rules, rules))


Rules = Literal["brainking", "classic"]
Player = Callable[["aq.Position", np.ndarray], int]


def greedy_player(rng: random.Random) -> Player:
    def play(pos: "aq.Position", legal: np.ndarray) -> int:
        def value(a: int) -> float:
            if pos.push(a).is_over():
                return float("inf")  # the opponent has no move: a win
            return len(aq.action_triple(a, pos.rules)[2])

        values = [value(int(a)) for a in legal]
        best = max(values)
        return int(rng.choice([int(a) for a, v in zip(legal, values) if v == best]))

    return play


def network_player(torch: Any, model: Any, rng: random.Random) -> Player:
    def play(pos: "aq.Position", legal: np.ndarray) -> int:
        children = [pos.push(int(a)) for a in legal]
        for a, child in zip(legal, children):
            if child.is_over():
                return int(a)
        with torch.no_grad():
            x = torch.from_numpy(np.stack([c.to_array() for c in children]))
            # The network gives the side to move's expected score, i.e. the
            # opponent's after our move: pick the lowest.
            v = torch.sigmoid(model(x)).squeeze(1).numpy()
        best = v.min()
        return int(rng.choice([int(a) for a, x in zip(legal, v) if x <= best + 1e-6]))

    return play


def make_env(args: argparse.Namespace) -> Any:
    """The PettingZoo environment, or an exit with a message when PettingZoo is missing."""
    try:
        return aq.env(rules=args.rules, max_plies=args.max_plies)
    except ImportError as e:
        sys.exit(f"playing needs PettingZoo ({e}); or pass --play 0")


def play_match(
    torch: Any, env: Any, players: Dict[str, Player], games: int, args: argparse.Namespace
) -> Tuple[int, int, int, Dict[str, int]]:
    """Plays ``games`` games of ``players["net"]`` against ``players["other"]``,
    colours alternating; returns wins, draws, losses (the network's view) and
    how the games ended."""
    # One thread for the tiny forward passes of play: handing a batch of a
    # dozen rows to several threads costs far more than the arithmetic
    # (measured: 200 games in 22 s with 2 threads, 4 s with one).
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        return _play_match(env, players, games, args)
    finally:
        torch.set_num_threads(threads)


def _play_match(env: Any, players: Dict[str, Player], games: int, args: argparse.Namespace) -> Tuple[int, int, int, Dict[str, int]]:
    sides = {"player_0": "white", "player_1": "black"}
    wins = draws = losses = 0
    endings: Dict[str, int] = {}
    for g in range(games):
        env.reset(seed=args.seed + g)
        net_agent = "player_0" if g % 2 == 0 else "player_1"
        final: Dict[str, float] = {}
        ending = "?"
        for agent in env.agent_iter():
            obs, reward, terminated, truncated, info = env.last()
            if terminated or truncated:
                final[agent] = reward
                ending = info.get("termination", ending)
                env.step(None)
                continue
            legal = np.flatnonzero(obs["action_mask"])
            pos = position_of(obs["observation"], sides[agent], args.rules)
            who = "net" if agent == net_agent else "other"
            env.step(players[who](pos, legal))
        endings[ending] = endings.get(ending, 0) + 1
        r = final.get(net_agent, 0)
        if r > 0:
            wins += 1
        elif r < 0:
            losses += 1
        else:
            draws += 1
    return wins, draws, losses, endings


def report(label: str, result: Tuple[int, int, int, Dict[str, int]], secs: float) -> None:
    w, d, l, endings = result
    n = w + d + l
    score = (w + 0.5 * d) / n if n else float("nan")
    ends = ", ".join(f"{k} {v}" for k, v in sorted(endings.items()))
    print(f"{label}: {n} games, wins {w} draws {d} losses {l}, score {score:.3f} ({ends}; {secs:.1f} s)")


def main(argv: Optional[List[str]] = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--games", nargs="+", required=True, metavar="PATH",
                   help="records files (games.csv), or folders written by alq selfplay")
    p.add_argument("--epochs", type=int, default=10)
    p.add_argument("--play", type=int, default=100, metavar="N", help="games against greedy after training (0: none)")
    p.add_argument("--hidden", default="64,16", help="hidden widths (default 64,16)")
    p.add_argument("--batch", type=int, default=256)
    p.add_argument("--lr", type=float, default=2e-3)
    p.add_argument("--result-weight", type=float, default=0.5,
                   help="weight of the game result in the target (the rest: the search score)")
    p.add_argument("--mirror", action="store_true", help="mirror half of each batch left-right")
    p.add_argument("--baseline", action="store_true", help="also play the untrained network against greedy")
    p.add_argument("--rules", choices=["brainking", "classic"], default="brainking")
    p.add_argument("--max-plies", type=int, default=400, help="the environment's ply cap (a draw)")
    p.add_argument("--threads", type=int, default=1,
                   help="torch threads (default 1: for a network this small, more threads only cost; 0: torch's default)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--save", metavar="FILE", help="save the network's state_dict here")
    args = p.parse_args(argv)

    torch = import_torch()
    if args.threads:
        torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    hidden = [int(w) for w in args.hidden.split(",") if w]

    files = records_files(args.games)
    start = time.perf_counter()
    try:
        data = aq.samples(files, rules=args.rules, result_weight=args.result_weight, part="train")
        valid = aq.samples(files, rules=args.rules, result_weight=args.result_weight, part="validation")
    except aq.AlquerqueError as e:
        sys.exit(f"cannot read the records: {e}")
    print(f"samples: {len(data['targets'])} train, {len(valid['targets'])} validation "
          f"from {len(files)} file(s) ({time.perf_counter() - start:.2f} s)")
    if len(data["targets"]) == 0 or len(valid["targets"]) == 0:
        sys.exit("not enough samples: play more games (alq selfplay --games N)")

    global MIRROR
    if args.mirror:
        MIRROR = torch.from_numpy(mirror_permutation())

    model = build_model(torch, hidden)
    print(f"network: {aq.INPUTS} -> {' -> '.join(map(str, hidden))} -> 1, "
          f"{sum(p.numel() for p in model.parameters())} parameters, torch {torch.__version__}, "
          f"{torch.get_num_threads()} threads")
    rng = random.Random(args.seed)
    env = make_env(args) if args.play > 0 else None  # checked before training
    if args.play > 0 and args.baseline:
        model.eval()
        t = time.perf_counter()
        res = play_match(torch, env, {"net": network_player(torch, model, rng), "other": greedy_player(rng)}, args.play, args)
        report("untrained network vs greedy", res, time.perf_counter() - t)

    t = time.perf_counter()
    train(torch, model, data, valid, args)
    print(f"training: {time.perf_counter() - t:.1f} s")
    if args.save:
        torch.save(model.state_dict(), args.save)
        print(f"saved {args.save}")

    if args.play > 0:
        model.eval()
        t = time.perf_counter()
        res = play_match(torch, env, {"net": network_player(torch, model, rng), "other": greedy_player(rng)}, args.play, args)
        report("trained network vs greedy", res, time.perf_counter() - t)
    return 0


if __name__ == "__main__":
    sys.exit(main())
