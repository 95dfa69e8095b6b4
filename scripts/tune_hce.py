#!/usr/bin/env python3
"""Tune the handcrafted evaluator's weights by self-play matches.

Coordinate search: for each weight in turn, a candidate with the weight moved
up or down by its step plays a paired match against the current best
(`alq match`, equal nodes, random openings). The candidate replaces the best
when it scores above 50 % with the lower end of its 95 % Elo interval above
zero. Each accepted change and every match result is printed, so the run is a
record of why the weights are what they are.

Usage: scripts/tune_hce.py [--games 1000] [--nodes 1000] [--rounds 2] [--threads 2]
The final weights are printed as an `hce@...` spec; copy them into
`HceWeights::default()` in crates/engine/src/eval.rs.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

STEPS = {
    "advance": 4, "last_row": 15, "mobility": 2, "threat": 6, "hanging": 10,
    "defended": 3, "blocked": 4, "in_play": 8, "tempo": 5,
}


def spec(weights):
    return "hce@" + ",".join(f"{k}={v}" for k, v in weights.items())


def match(alq, a, b, args, seed):
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "m.json")
        subprocess.run([alq, "match", "--a", a, "--b", b, "--games", str(args.games), "--nodes", str(args.nodes),
                        "--random-plies", "6", "--seed", str(seed), "--threads", str(args.threads), "--quiet",
                        "--out", out], check=True, stdout=subprocess.DEVNULL)
        with open(out) as f:
            return json.load(f)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--alq", default="target/release/alq")
    p.add_argument("--games", type=int, default=1000)
    p.add_argument("--nodes", type=int, default=1000)
    p.add_argument("--rounds", type=int, default=2)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--start", default="", help="comma-separated name=value overrides to start from")
    args = p.parse_args()
    # The hand-set starting point of the first tuning run; pass --start to
    # continue from the current defaults instead.
    weights = {"advance": 4, "last_row": -30, "mobility": 3, "threat": 12, "hanging": -20,
               "defended": 4, "blocked": -6, "in_play": 10, "tempo": 5}
    for pair in filter(None, args.start.split(",")):
        k, v = pair.split("=")
        weights[k] = int(v)
    seed = 100
    for rnd in range(args.rounds):
        changed = False
        for name, step in STEPS.items():
            for direction in (1, -1):
                cand = dict(weights)
                cand[name] += direction * step
                seed += 1
                r = match(args.alq, spec(cand), spec(weights), args, seed)
                lo, hi = r["elo_ci95"]
                verdict = "accept" if r["score"] > 0.5 and lo > 0 else "reject"
                print(f"round {rnd} {name}={cand[name]:>4}: {r['wins']}-{r['draws']}-{r['losses']} "
                      f"elo {r['elo']:+.1f} [{lo:+.1f}, {hi:+.1f}] {verdict}", flush=True)
                if verdict == "accept":
                    weights = cand
                    changed = True
                    break
        if not changed:
            break
    print("best", spec(weights))


if __name__ == "__main__":
    sys.exit(main())
