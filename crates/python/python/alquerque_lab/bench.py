"""Speed of the package, measured side by side in one run.

    python -m alquerque_lab.bench [--games FILE] [--alq PATH] [--quick] [--threads T] [--batch-only]

Prints one Markdown table (the README's) with:

- per-call overhead: ``Position.legal_moves()``, ``Position.push()``,
  ``Game.push()`` from Python, one call at a time;
- batch calls: ``legal_actions_batch`` and ``play_batch`` over a million
  packed positions, ``action_masks_batch`` (bool, into a reused array, and
  bit-packed) beside stacking ``Position.action_mask()`` (positions per
  second), on all cores and again on one (a second process with
  ``--batch-only --threads 1``);
- ``samples()``: the trainer's samples of a records file (samples per second);
- search: nodes per second of ``alquerque_lab.search`` beside ``alq analyze``
  on the positions and depths of ``alq bench`` (the same evaluator, one
  thread, 16 MiB hash), seven runs interleaved, medians;
- the PettingZoo environment: steps per second (the time of ``last()``,
  ``step()`` and ``reset()``, random legal moves) beside
  PettingZoo's own ``connect_four_v3`` (needs ``pygame``) in the same run.

``--games`` defaults to a fresh self-play file made with ``alq selfplay``
(2,000 games, hce at 200 nodes) in a temporary folder; ``--alq`` defaults to
``$ALQ`` or ``alq`` on the PATH.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

import alquerque_lab as aq

SEARCH_WORK = [
    ("BBBBB/BBBBB/BB.WW/WWWWW/WWWWW w", 16),
    ("BBBBB/BB.BB/W..WW/W..WW/WWBWW b", 14),
    ("BB.../BBB.B/B.B../WWW.W/W.W.W b", 14),
    ("B.B.B/BBB.B/...../.WWW./WWW.W w", 12),
]


def rate(count: float, seconds: float) -> str:
    per = count / max(seconds, 1e-12)
    if per >= 1e6:
        return f"{per / 1e6:.2f} M/s"
    if per >= 1e3:
        return f"{per / 1e3:.1f} k/s"
    return f"{per:.1f} /s"


def best_of(repeats: int, fn) -> float:
    """The fastest of `repeats` timings of fn() (seconds)."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def random_keys(count: int, seed: int) -> np.ndarray:
    """Packed positions from random games (the start included), built with
    the batch calls themselves."""
    rng = np.random.default_rng(seed)
    out = []
    start = aq.Position().key
    keys = np.full(4096, start, dtype=np.uint64)
    total = 0
    while total < count:
        out.append(keys.copy())
        total += len(keys)
        offsets, actions = aq.legal_actions_batch(keys)
        counts = np.diff(offsets)
        alive = counts > 0
        pick = offsets[:-1] + (rng.random(len(keys)) * np.maximum(counts, 1)).astype(np.int64)
        nxt = keys.copy()
        nxt[alive] = aq.play_batch(keys[alive], actions[pick[alive]].astype(np.int32))
        # Restart finished games (and some others) from the start.
        restart = ~alive | (rng.random(len(keys)) < 0.01)
        nxt[restart] = start
        keys = nxt
    return np.concatenate(out)[:count]


def bench_calls(rows: list[tuple[str, str, str]]) -> None:
    p = aq.Position("BBBBB/BB.BB/W..WW/W..WW/WWBWW b")
    n = 100_000
    t = best_of(3, lambda: [p.legal_moves() for _ in range(n)])
    rows.append(("`Position.legal_moves()`, one call", f"{t / n * 1e6:.2f} µs a call", rate(n, t)))
    mv = p.legal_moves()[0]
    t = best_of(3, lambda: [p.push(mv) for _ in range(n)])
    rows.append(("`Position.push(move)`, one call", f"{t / n * 1e6:.2f} µs a call", rate(n, t)))
    t = best_of(3, lambda: [p.legal_actions() for _ in range(n)])
    rows.append(("`Position.legal_actions()`, one call", f"{t / n * 1e6:.2f} µs a call", rate(n, t)))


def bench_batch(rows: list[tuple[str, str, str]], count: int) -> None:
    keys = random_keys(count, seed=1)
    t = best_of(3, lambda: aq.legal_actions_batch(keys))
    rows.append((f"`legal_actions_batch`, {count:,} positions", f"{t:.3f} s", rate(count, t) + " positions"))
    offsets, actions = aq.legal_actions_batch(keys)
    alive = np.diff(offsets) > 0
    first = actions[offsets[:-1][alive]].astype(np.int32)
    live = keys[alive]
    t = best_of(3, lambda: aq.play_batch(live, first))
    rows.append((f"`play_batch`, {len(live):,} positions", f"{t:.3f} s", rate(len(live), t) + " positions"))

    def both():
        o, a = aq.legal_actions_batch(live)
        aq.play_batch(live, a[o[:-1]].astype(np.int32))

    t = best_of(3, both)
    rows.append(("legal actions then play, batch", f"{t:.3f} s", rate(len(live), t) + " positions"))

    n = min(10_000, count)
    few = keys[:n]
    width = aq.num_actions()
    t = best_of(3, lambda: aq.action_masks_batch(few))
    rows.append((f"`action_masks_batch`, {n:,} positions, new bool array ({n * width / 1e6:.0f} MB)", f"{t:.3f} s", rate(n, t) + " positions"))
    out = np.empty((n, width), dtype=np.bool_)
    t = best_of(3, lambda: aq.action_masks_batch(few, out))
    rows.append((f"`action_masks_batch`, {n:,} positions, into a reused bool array", f"{t:.3f} s", rate(n, t) + " positions"))
    many = keys[: min(100_000, count)]
    packed = np.empty((len(many), (width + 7) // 8), dtype=np.uint8)
    t = best_of(3, lambda: aq.action_masks_batch(many, packed, packed=True))
    rows.append((f"`action_masks_batch`, {len(many):,} positions, packed into a reused array ({packed.nbytes / 1e6:.0f} MB)", f"{t:.3f} s", rate(len(many), t) + " positions"))
    positions = [aq.Position.from_key(int(k)) for k in few]
    t = best_of(3, lambda: np.stack([p.action_mask() for p in positions]))
    rows.append((f"stacking `Position.action_mask()`, {n:,} positions", f"{t:.3f} s", rate(n, t) + " positions"))


def bench_samples(rows: list[tuple[str, str, str]], games: Path) -> None:
    holder = {}

    def run():
        holder["s"] = aq.samples(str(games))

    first = best_of(1, run)
    t = best_of(5, run)
    n = len(holder["s"]["targets"])
    rows.append((f"`samples()`, {n:,} samples (trainer's defaults), first call", f"{first:.3f} s", rate(n, first) + " samples"))
    rows.append((f"`samples()`, {n:,} samples, best of 5 later calls", f"{t:.3f} s", rate(n, t) + " samples"))


def cli_search(alq: str, text: str, depth: int, evaluator: str) -> tuple[int, float]:
    out = subprocess.run(
        [alq, "analyze", "--position", text, "--depth", str(depth), "--eval", evaluator, "--hash", "16"],
        capture_output=True, text=True, check=True,
    ).stdout.splitlines()
    last = [l for l in out if l.startswith("info")][-1].split()
    return int(last[last.index("nodes") + 1]), int(last[last.index("time") + 1]) / 1000.0


def py_search(text: str, depth: int, evaluator: str) -> tuple[int, float, float]:
    engine = aq.Engine(eval=evaluator, hash=16)
    start = time.perf_counter()
    analysis = engine.analyze(aq.Position(text), depth=depth)
    infos = list(analysis)
    wall = time.perf_counter() - start
    return infos[-1].nodes, infos[-1].time, wall


def bench_search(rows: list[tuple[str, str, str]], alq: str, evaluator: str, repeats: int) -> None:
    cli_rates, py_rates, py_wall_rates = [], [], []
    for _ in range(repeats):
        cn = ct = pn = pt = pw = 0.0
        for text, depth in SEARCH_WORK:
            n, t = cli_search(alq, text, depth, evaluator)
            cn, ct = cn + n, ct + t
            n, t, w = py_search(text, depth, evaluator)
            pn, pt, pw = pn + n, pt + t, pw + w
        cli_rates.append(cn / ct)
        py_rates.append(pn / pt)
        py_wall_rates.append(pn / pw)
    c, p, w = statistics.median(cli_rates), statistics.median(py_rates), statistics.median(py_wall_rates)
    spread = f"CLI {min(cli_rates) / 1e6:.2f}–{max(cli_rates) / 1e6:.2f}, package {min(py_rates) / 1e6:.2f}–{max(py_rates) / 1e6:.2f} M nodes/s over {len(cli_rates)} interleaved runs"
    rows.append((f"search `{evaluator}`, `alq analyze` (alq bench's positions)", f"{c / 1e6:.3f} M nodes/s", "reference"))
    rows.append((f"search `{evaluator}`, `alquerque_lab` (same work)", f"{p / 1e6:.3f} M nodes/s", f"{(p / c - 1) * 100:+.1f} % vs CLI"))
    rows.append((f"search `{evaluator}`, `alquerque_lab`, Python wall clock", f"{w / 1e6:.3f} M nodes/s", f"{(w / c - 1) * 100:+.1f} % vs CLI"))
    rows.append(("search spread (medians above)", spread, ""))


def env_steps(make, steps: int, seed: int) -> float:
    """Steps per second of the environment's own calls (`last()` and
    `step()`, wrappers included); choosing the random legal move is not
    timed, so that a large action mask does not count against the env."""
    env = make()
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    done = 0
    spent = 0.0
    clock = time.perf_counter
    while done < steps:
        for agent in env.agent_iter():
            t = clock()
            obs, _, terminated, truncated, _ = env.last()
            spent += clock() - t
            if terminated or truncated:
                t = clock()
                env.step(None)
                spent += clock() - t
                continue
            action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
            t = clock()
            env.step(action)
            spent += clock() - t
            done += 1
        t = clock()
        env.reset(seed=seed)
        spent += clock() - t
    return done / spent


def bench_env(rows: list[tuple[str, str, str]], steps: int) -> None:
    try:
        import pettingzoo  # noqa: F401
    except ImportError:
        rows.append(("PettingZoo environment", "skipped", "pettingzoo not installed"))
        return
    ours = env_steps(lambda: aq.env(max_plies=1000), steps, 0)
    rows.append(("PettingZoo `alquerque_v0`, random legal steps", f"{ours / 1e3:.1f} k steps/s", "this run"))
    try:
        from pettingzoo.classic import connect_four_v3
    except ImportError as e:
        rows.append(("PettingZoo `connect_four_v3`", "skipped", f"{e}"))
        return
    theirs = env_steps(connect_four_v3.env, steps, 0)
    rows.append(("PettingZoo `connect_four_v3`, random legal steps", f"{theirs / 1e3:.1f} k steps/s", "same run"))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=Path, help="records file for samples() (default: a fresh self-play run)")
    parser.add_argument("--alq", default=os.environ.get("ALQ") or shutil.which("alq"), help="the alq binary (default: $ALQ or alq on PATH)")
    parser.add_argument("--eval", default="hce", help="evaluator of the search comparison (default hce, as alq bench)")
    parser.add_argument("--quick", action="store_true", help="smaller counts (a smoke test, not figures)")
    parser.add_argument("--threads", type=int, help="cores for the batch calls (RAYON_NUM_THREADS; default: all)")
    parser.add_argument("--batch-only", action="store_true", help="only the batch calls (no records, search or environment)")
    args = parser.parse_args(argv)
    if args.threads is not None:
        # Read by the batch calls' thread pool when it starts, at their first call.
        os.environ["RAYON_NUM_THREADS"] = str(args.threads)
    count = 100_000 if args.quick else 1_000_000
    if args.batch_only:
        rows: list[tuple[str, str, str]] = []
        bench_batch(rows, count)
        for what, t, r in rows:
            print(f"| {what} | {t} | {r} |")
        return 0
    if not args.alq:
        parser.error("the alq binary was not found: pass --alq PATH or set ALQ")
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        games = args.games
        if games is None:
            out = Path(tmp) / "run"
            n = "200" if args.quick else "2000"
            subprocess.run([args.alq, "selfplay", "--games", n, "--nodes", "200", "--out", str(out), "--quiet"], check=True)
            games = out / "games.csv"
        if not games.is_file():
            parser.error(f"{games}: no such file")
        bench_calls(rows)
        bench_batch(rows, count)
        one_core = subprocess.run(
            [sys.executable, "-m", "alquerque_lab.bench", "--batch-only", "--threads", "1"] + (["--quick"] if args.quick else []),
            capture_output=True, text=True, check=True,
        ).stdout.splitlines()
        for line in one_core:
            what, t, r = [c.strip() for c in line.strip("|").split("|")]
            rows.append((f"{what} (1 core)", t, r))
        bench_samples(rows, games)
        bench_search(rows, args.alq, args.eval, 1 if args.quick else 7)
        bench_env(rows, 2_000 if args.quick else 20_000)
    print(f"alquerque_lab {aq.__version__}, Python {sys.version.split()[0]}, numpy {np.__version__}")
    print()
    print("| measured | time | rate |")
    print("|---|---:|---:|")
    for what, t, r in rows:
        print(f"| {what} | {t} | {r} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
