#!/usr/bin/env python3
"""A small Alquerque bot speaking the `alq engine` protocol (UCI-style).

It asks `alq moves` for the legal moves and plays the capture that takes
the most pieces, else a random move (seeded by the `Seed` option). Standard
library only. The `alq` binary is taken from `--alq PATH`, else from the
`ALQ` environment variable, else from the PATH.

    python3 scripts/example_bot.py --alq target/release/alq
    alq match --a "engine:python3 scripts/example_bot.py" --b greedy --games 10
"""

import os
import random
import subprocess
import sys

START = "startpos"


def send(line):
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def legal_moves(alq, position, moves):
    """The legal moves after `moves` from `position` (None: the start)."""
    args = [alq, "moves", "--after", " ".join(moves)]
    if position is not None:
        args += ["--position", position]
    out = subprocess.run(args, capture_output=True, text=True)
    if out.returncode != 0:
        raise ValueError(out.stderr.strip() or "alq moves failed")
    return out.stdout.split()


def jumps(move):
    return move.count("x")


def main():
    alq = os.environ.get("ALQ", "alq")
    if "--alq" in sys.argv:
        alq = sys.argv[sys.argv.index("--alq") + 1]
    rng = random.Random(0)
    position, moves = None, []
    for raw in sys.stdin:
        words = raw.split()
        if not words:
            continue
        cmd = words[0]
        if cmd == "uci":
            send("id name example_bot")
            send("id author Alquerque Lab")
            send("option name Seed type spin default 0 min 0 max 1000000")
            send("uciok")
        elif cmd == "isready":
            send("readyok")
        elif cmd == "ucinewgame":
            position, moves = None, []
        elif cmd == "setoption":
            if len(words) >= 5 and words[2] == "Seed" and words[3] == "value" and words[4].isdigit():
                rng = random.Random(int(words[4]))
            else:
                send("info string error: unknown option line: " + raw.strip())
        elif cmd == "position":
            rest = words[1:]
            cut = rest.index("moves") if "moves" in rest else len(rest)
            setup, new_moves = rest[:cut], rest[cut + 1:]
            if setup == [START]:
                position, moves = None, new_moves
            elif setup[:1] == ["fen"] and len(setup) > 1:
                position, moves = " ".join(setup[1:]), new_moves
            else:
                send("info string error: expected position startpos|fen TEXT [moves ...]")
        elif cmd == "go":
            try:
                legal = legal_moves(alq, position, moves)
            except (OSError, ValueError) as e:
                send("info string error: " + str(e))
                legal = []
            if not legal:
                send("bestmove none")
                continue
            most = max(jumps(m) for m in legal)
            best = rng.choice([m for m in legal if jumps(m) == most])
            send("info depth 1 score cp %d nodes %d pv %s" % (100 * most, len(legal), best))
            send("bestmove " + best)
        elif cmd == "stop":
            pass
        elif cmd == "quit":
            break
        else:
            send("info string unknown command " + cmd)


if __name__ == "__main__":
    main()
