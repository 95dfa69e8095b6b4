#!/usr/bin/env python3
"""How often the perfect player converts positions won under the 60-ply
no-progress rule, with the rule on, against a searching opponent.

    python3 scripts/rule_conversion.py --tb DIR [--positions 200]
        [--pieces 8-10] [--opponent nn@nodes=10000] [--seed 1]

DIR holds distance-to-progress tables (``alq tb build --kind dtz``) of at
least the largest piece count asked for; the perfect player plays with
``perfect@tb=DIR``, so it ranks moves by their values under the rule at the
game's count. Positions: random placements of the piece counts asked for,
both sides present, either side to move, kept when the side to move has a
move and no capture (a quiet position: with a capture on the board most
random placements are won at once) and the dtz tables say it wins under the
rule (count 0) in at least ``--min-plies`` plies to its next progress move. Each is played
once, the winner perfect, the loser the opponent, in a ``Game`` with the
repetition and 60-ply no-progress rules on. Prints the conversion rate with
a 95 % Wilson interval, how the others ended, and the time.

Needs the Python package (crates/python/README.md); nothing is written.
"""

import argparse
import math
import random
import sys
import time

import alquerque_lab as aq


def wilson(k: int, n: int) -> tuple[float, float]:
    if n == 0:
        return (0.0, 1.0)
    p, z = k / n, 1.96
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (centre - half, centre + half)


def random_text(rng: random.Random, pieces: int) -> str:
    points = rng.sample(range(25), pieces)
    whites = rng.randint(1, pieces - 1)
    board = ["."] * 25
    for i, p in enumerate(points):
        board[p] = "W" if i < whites else "B"
    # Point p = 5 * rank + file, rank 0 = rank 1; the text lists rank 5 first.
    ranks = ["".join(board[5 * r : 5 * r + 5]) for r in range(4, -1, -1)]
    return "/".join(ranks) + " " + rng.choice("wb")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tb", required=True, help="folder with dtz tables (alq tb build --kind dtz)")
    parser.add_argument("--positions", type=int, default=200, help="positions to play (default 200)")
    parser.add_argument("--pieces", default="8-10", help="piece counts, e.g. 8-10 (default)")
    parser.add_argument("--opponent", default="nn@nodes=10000", help="the losing side's player spec")
    parser.add_argument("--min-plies", type=int, default=2, help="least plies to the next progress move (default 2)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    try:
        low, high = (int(x) for x in args.pieces.split("-")) if "-" in args.pieces else (int(args.pieces),) * 2
    except ValueError:
        parser.error(f"--pieces {args.pieces!r}: expected N or N-M")
    if not 2 <= low <= high <= 24 or args.positions < 1:
        parser.error("--pieces must be within 2-24 and --positions at least 1")
    oracle = aq.Oracle(tb=args.tb, movetime=None, nodes=1)
    rng = random.Random(args.seed)
    started = time.time()
    converted, ends, plies, tried = 0, {}, 0, 0
    for n in range(args.positions):
        while True:
            tried += 1
            pos = aq.Position(random_text(rng, rng.randint(low, high)))
            rule = oracle.rule_value(pos)
            if rule is None:
                print(f"error: the tables in {args.tb} do not cover {pos} (build dtz tables of {high} pieces)", file=sys.stderr)
                return 2
            moves = pos.legal_moves()
            quiet = moves and not any(m.is_capture for m in moves)
            if rule[0] == "win" and quiet and (rule[1] or 0) >= args.min_plies:
                break
        game = aq.Game(pos)
        me = game.side_to_move
        players = {me: aq.Player(f"perfect@tb={args.tb}", seed=n), "other": aq.Player(args.opponent, seed=n)}
        while not game.is_over():
            player = players[me] if game.side_to_move == me else players["other"]
            game.push(player.choose(game))
        plies += game.plies
        if game.winner() == me:
            converted += 1
        else:
            end = f"{game.result()} by {game.termination()}"
            ends[end] = ends.get(end, 0) + 1
            print(f"not converted: {pos} -> {end} after {game.plies} plies", file=sys.stderr)
        if (n + 1) % 20 == 0:
            print(f"{n + 1} games, {converted} converted, {time.time() - started:.0f} s", file=sys.stderr)
    low_ci, high_ci = wilson(converted, args.positions)
    print(
        f"positions {args.positions} of {args.pieces} pieces, quiet, won under the 60-ply rule in at least "
        f"{args.min_plies} plies to progress (of {tried} drawn at random)"
    )
    print(f"perfect@tb={args.tb} against {args.opponent}: converted {converted} ({converted / args.positions:.3f} [{low_ci:.3f}, {high_ci:.3f}])")
    for end, count in sorted(ends.items()):
        print(f"  {end}: {count}")
    print(f"mean plies {plies / args.positions:.1f}, {time.time() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
