#!/usr/bin/env python3
"""How networks evaluate positions the endgame tables call drawn, by how the
game from there ended: what exact training targets take from a network.

For a sample of the positions of games (side to move's view, after the
opening plies, with a choice of move) that the oracle over the tables values
exactly, each network's depth-1 search score in pawns is grouped by exact
value and by the game's result from there, and printed as count, mean and
standard deviation. A network trained on exact draws scores every drawn
position near 0 (a small deviation), and no longer tells the drawn positions
a fallible opponent went on to lose from those that stayed drawn.

    python3 scripts/exact_flatness.py --games data/exact/rescored.csv --tb data/tb10w \\
        shipped=nn base=data/exact/base/network.alqnet tables=data/exact/tables/network.alqnet

Needs the Python package (`pip install ./crates/python` or maturin develop).
"""
import argparse
import random
import statistics

import alquerque_lab as alq


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", required=True, nargs="+", help="games files (records format)")
    ap.add_argument("--tb", required=True, help="endgame tables folder (alq tb build)")
    ap.add_argument("--pieces", type=int, default=10, help="positions with at most this many pieces (default 10)")
    ap.add_argument("--share", type=float, default=0.05, help="share of the eligible positions sampled (default 0.05)")
    ap.add_argument("--every", type=int, default=4, help="take every N-th game (default 4)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("networks", nargs="+", help="NAME=EVAL: `nn`, `hce` or a network file")
    args = ap.parse_args()
    oracle = alq.Oracle(tb=args.tb, nodes=1, shipped=False)
    rng = random.Random(args.seed)
    rows = []
    for i, game in enumerate(alq.read_games(args.games)):
        if i % args.every:
            continue
        white_result = {"1-0": 1.0, "0-1": 0.0}.get(game.result, 0.5)
        for ply, pos in enumerate(game.positions()):
            pieces = len(pos.pieces("white")) + len(pos.pieces("black"))
            if ply < game.opening_plies or pieces > args.pieces or len(pos.legal_moves()) < 2:
                continue
            if rng.random() >= args.share:
                continue
            value = str(oracle.value(pos).value)
            result = white_result if str(pos).endswith(" w") else 1.0 - white_result
            rows.append((pos, value, result))
    print(f"{len(rows)} positions")
    names = {1.0: "won", 0.5: "drawn", 0.0: "lost"}
    for spec in args.networks:
        name, _, evaluator = spec.partition("=")
        engine = alq.Engine(eval=evaluator or name)
        groups = {}
        for pos, value, result in rows:
            found = engine.search(pos, depth=1)
            if found.pawns is not None:
                groups.setdefault((value, result), []).append(found.pawns)
        parts = []
        for key in [("draw", 1.0), ("draw", 0.5), ("draw", 0.0), ("win", 1.0), ("loss", 0.0)]:
            xs = groups.get(key, [])
            if xs:
                parts.append(f"{key[0]}, {names[key[1]]} in the game: n {len(xs)} mean {statistics.mean(xs):+.2f} sd {statistics.pstdev(xs):.2f}")
        print(f"{name}: " + " | ".join(parts))


if __name__ == "__main__":
    main()
