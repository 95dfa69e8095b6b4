"""Tables and the solver against `alq tb probe` and `alq solve`."""

from __future__ import annotations

import random

import pytest

import alquerque_lab as aq


def small_positions(count: int, seed: int) -> list[aq.Position]:
    """Random legal-looking positions with 2 to 5 pieces, both sides present."""
    rng = random.Random(seed)
    points = [f"{f}{r}" for r in range(1, 6) for f in "abcde"]
    out = []
    while len(out) < count:
        n = rng.randint(2, 5)
        chosen = rng.sample(points, n)
        white = rng.randint(1, n - 1)
        board = {p: ("W" if i < white else "B") for i, p in enumerate(chosen)}
        rows = ["".join(board.get(f"{f}{r}", ".") for f in "abcde") for r in range(5, 0, -1)]
        out.append(aq.Position("/".join(rows) + rng.choice([" w", " b"])))
    return out


def test_probe_matches_the_cli(alq, tables_dir):
    tb = aq.Tablebase(str(tables_dir))
    assert tb.max_pieces == 5 and tb.rules == "brainking"
    for p in small_positions(150, seed=2):
        lines = alq("tb", "probe", "--tb", str(tables_dir), "--position", str(p)).stdout.splitlines()
        assert lines[0] == f"value {tb.probe(p)}"
        cli_moves = dict(l.split(" ", 1) for l in lines[1:] if not l.startswith("from "))
        mine = {str(m): str(v) for m, v in tb.probe_moves(p)}
        assert mine == cli_moves, str(p)


def test_solve_matches_the_cli(alq, tables_dir):
    tb = aq.Tablebase(str(tables_dir))
    for text in ["....B/...../...B./..B.B/WB.B. w", "B.B.B/...../..W../...../W.W.. w", "..B../.B.../...../.W.W./..... b"]:
        p = aq.Position(text)
        lines = alq("solve", "--position", text, "--nodes", "200000", "--tb", str(tables_dir), "--quiet").stdout.splitlines()
        fields = dict(l.split(" ", 1) for l in lines)
        r = aq.solve(p, nodes=200000, tb=tb)
        assert fields["value"] == (r.value or "unknown")
        assert fields["bounds"] == f"{r.lower} .. {r.upper}"
        best = fields["bestmove"]
        assert best == (str(r.best_move) if r.best_move else "(none proven)")


def test_table_errors(tables_dir):
    tb = aq.Tablebase(str(tables_dir))
    with pytest.raises(aq.TablebaseError, match="cover at most 5"):
        tb.probe(aq.Position())
    with pytest.raises(aq.RulesError):
        tb.probe(aq.Position("....B/...../...../...../WW... w", rules="classic"))
    with pytest.raises(aq.TablebaseError):
        aq.Tablebase("/nonexistent/tables")
    with pytest.raises(aq.RulesError):
        aq.Tablebase(str(tables_dir), rules="classic")
