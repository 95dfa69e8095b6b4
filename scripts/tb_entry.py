#!/usr/bin/env python3
"""Where were a match's games decided: before the endgame tables, or in them?

For every game of a games file (`alq match --save-games F.csv`, from the
standard start) it replays the moves to the first position with at most
`--pieces` pieces, asks the tables for that position's exact value
(`alq tb probe`), and counts each game by its result and that value, both
from White's view. A draw that entered the tables drawn was decided before
them; a win that entered them drawn is an endgame error by the loser.

    alq match --a P --b Q --games 200 --nodes 2000 --book configs/balanced-10.csv --save-games m.csv
    python3 scripts/tb_entry.py m.csv --tb data/tb8 [--pieces 8] [--alq target/release/alq]

Standard library only.
"""
import argparse
import collections
import csv
import subprocess
import sys

START = list("WWWWW" "WWWWW" "BB.WW" "BBBBB" "BBBBB")  # a1..e1, a2..e2, ..., a5..e5


def point(name):
    if len(name) != 2 or name[0] not in "abcde" or name[1] not in "12345":
        raise ValueError(f"bad point {name!r}")
    return 5 * (int(name[1]) - 1) + "abcde".index(name[0])


def play(board, move):
    """Plays `move` (`a1-b2` or `a1xa3xc3`) on `board`, in place."""
    if "x" in move:
        points = [point(p) for p in move.split("x")]
        piece = board[points[0]]
        board[points[0]] = "."
        for a, b in zip(points, points[1:]):
            board[(a + b) // 2] = "."  # the jumped piece lies halfway
        board[points[-1]] = piece
    else:
        a, b = (point(p) for p in move.split("-"))
        board[b], board[a] = board[a], "."


def text(board, side):
    return "/".join("".join(board[5 * r + f] for f in range(5)) for r in range(4, -1, -1)) + " " + side


def entry(moves, pieces):
    """The first position with at most `pieces` pieces, or None."""
    board, side = START[:], "w"
    for move in moves:
        play(board, move)
        side = "b" if side == "w" else "w"
        if sum(c != "." for c in board) <= pieces:
            return text(board, side)
    return None


def white_value(alq, tb, position, rules):
    # The game's rule set: `tb probe` refuses tables of another one.
    args = [alq, "tb", "probe", "--tb", tb, "--position", position, "--rules", rules]
    out = subprocess.run(args, capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"alq tb probe failed on {position!r}: {out.stderr.strip()}")
    value = out.stdout.split()[1]  # "value win 12": the side to move's view
    if position.endswith(" b") and value in ("win", "loss"):
        value = {"win": "loss", "loss": "win"}[value]
    return value


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("games", help="a games file (records format) of games from the standard start")
    ap.add_argument("--tb", required=True, help="tablebase folder (alq tb build)")
    ap.add_argument("--pieces", type=int, default=8, help="the tables' largest piece count (default 8)")
    ap.add_argument("--alq", default="target/release/alq", help="the alq binary (default target/release/alq)")
    args = ap.parse_args()
    counts = collections.Counter()
    skipped = 0
    with open(args.games, newline="") as f:
        for row in csv.DictReader(f):
            if row["start"]:
                skipped += 1
                continue
            position = entry(row["moves"].split(), args.pieces)
            value = "never entered" if position is None else "White " + white_value(args.alq, args.tb, position, row["rules"])
            counts[(row["result"], value)] += 1
    print(f"| result | value on entering the {args.pieces}-piece tables | games |")
    print("|---|---|---|")
    for (result, value), n in sorted(counts.items()):
        print(f"| {result} | {value} | {n} |")
    if skipped:
        print(f"\n{skipped} games from other start positions skipped")


if __name__ == "__main__":
    main()
