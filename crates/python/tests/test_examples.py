"""The examples run, as the installed modules ``alquerque_lab.examples.*``:
the Python engine plays a match through the protocol."""

from __future__ import annotations

import json
import sys

import pytest



def test_the_python_engine_plays_a_match(alq, tmp_path):
    engine = f"engine:{sys.executable} -m alquerque_lab.examples.engine"
    out = tmp_path / "match.json"
    alq("match", "--a", engine, "--b", "random", "--games", "6", "--nodes", "300", "--book", "balanced",
        "--quiet", "--out", str(out))
    result = json.loads(out.read_text())
    assert result["games"] == 6
    assert result["forfeits"] == [0, 0], result
    # From balanced openings a searching player beats random play every time
    # (the built-in nn@nodes=300 won 200 of 200, as did the previous network;
    # from the default 8-ply openings, many of them lopsided, random play
    # wins about 7 %).
    assert result["wins"] == 6, result


def run_example(name: str, *args: str) -> str:
    """Runs the installed example NAME (a module of alquerque_lab.examples)
    with ARGS, from a folder outside the clone; its standard output (it must
    succeed)."""
    import subprocess
    import tempfile

    module = "alquerque_lab.examples." + name.removesuffix(".py")
    with tempfile.TemporaryDirectory() as elsewhere:
        proc = subprocess.run([sys.executable, "-m", module, *args], capture_output=True, text=True, timeout=600,
                              cwd=elsewhere)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_the_training_example_runs(tmp_path, games_file):
    pytest.importorskip("torch")
    out = run_example("train_value_net.py", "--games", str(games_file), "--epochs", "2", "--play", "4")
    assert "vs greedy" in out


def test_the_policy_value_example_trains_and_plays(games_file):
    """numpy only: the value and policy heads learn (the validation losses
    fall) and every way of playing finishes its games against both opponents."""
    pytest.importorskip("pettingzoo")
    import re

    out = run_example("train_policy_value_net.py", "--games", str(games_file), "--epochs", "3", "--play", "4")
    losses = [tuple(map(float, m)) for m in re.findall(r"value loss ([\d.]+) policy loss ([\d.]+)", out)]
    assert len(losses) == 4, out
    assert losses[-1][0] < losses[0][0] and losses[-1][1] < losses[0][1], out
    for way in ("value", "policy", "policy+value"):
        for opponent in ("greedy", "hce@nodes=100"):
            assert re.search(rf"^{re.escape(way)} vs {re.escape(opponent)}: 4 games", out, re.M), out
