"""The examples run: the Python engine plays a match through the protocol."""

from __future__ import annotations

import json
import sys

import pytest

from conftest import ROOT


def test_the_python_engine_plays_a_match(alq, tmp_path):
    engine = f"engine:{sys.executable} {ROOT / 'crates' / 'python' / 'examples' / 'engine.py'}"
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


def test_the_training_example_runs(tmp_path, games_file):
    pytest.importorskip("torch")
    import subprocess

    proc = subprocess.run(
        [sys.executable, str(ROOT / "crates" / "python" / "examples" / "train_value_net.py"),
         "--games", str(games_file), "--epochs", "2", "--play", "4"],
        capture_output=True, text=True, timeout=600,
    )
    assert proc.returncode == 0, proc.stderr
    assert "vs greedy" in proc.stdout
