"""The examples run: the Python engine plays a match through the protocol."""

from __future__ import annotations

import json
import sys

import pytest

from conftest import ROOT


def test_the_python_engine_plays_a_match(alq, tmp_path):
    engine = f"engine:{sys.executable} {ROOT / 'crates' / 'python' / 'examples' / 'engine.py'}"
    out = tmp_path / "match.json"
    alq("match", "--a", engine, "--b", "random", "--games", "6", "--nodes", "300", "--quiet", "--out", str(out))
    result = json.loads(out.read_text())
    assert result["games"] == 6
    assert result["forfeits"] == [0, 0], result
    # Deterministic (the match's seed, the engine's node limit): 5 of 6 won.
    assert result["score"] >= 0.75, result


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
