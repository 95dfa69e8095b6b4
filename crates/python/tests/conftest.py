"""Shared fixtures: the `alq` binary the package is compared with, and
small data made with it (self-play records, 5-piece tables)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]


def alq_path() -> Path:
    """The CLI: $ALQ, else the workspace's release build (`cargo build --release`)."""
    path = Path(os.environ.get("ALQ", ROOT / "target" / "release" / "alq"))
    if not path.is_file():
        pytest.fail(f"the alq binary is not at {path}: run `cargo build --release -p alq` or set ALQ")
    return path


def run_alq(*args: str, check: bool = True) -> subprocess.CompletedProcess:
    proc = subprocess.run([str(alq_path()), *args], capture_output=True, text=True, timeout=600)
    if check and proc.returncode != 0:
        raise AssertionError(f"alq {' '.join(args)} failed ({proc.returncode}): {proc.stderr}")
    return proc


@pytest.fixture(scope="session")
def alq():
    return run_alq


@pytest.fixture(scope="session")
def games_file(tmp_path_factory) -> Path:
    """300 self-play games (hce at 200 nodes, random and softmax openings)."""
    out = tmp_path_factory.mktemp("selfplay") / "run"
    run_alq("selfplay", "--games", "300", "--nodes", "200", "--seed", "3", "--out", str(out), "--quiet", "--threads", "2")
    return out / "games.csv"


@pytest.fixture(scope="session")
def tables_dir(tmp_path_factory) -> Path:
    """Distance tables for every position with at most 5 pieces."""
    out = tmp_path_factory.mktemp("tb") / "tb5"
    run_alq("tb", "build", "--pieces", "5", "--out", str(out), "--threads", "2")
    return out
