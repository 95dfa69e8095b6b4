"""Records: read back equal, the trainer's samples, writing games."""

from __future__ import annotations

import csv
import math
import random

import numpy as np
import pytest

import alquerque_lab as aq

SCORE_SCALE = aq.SCORE_SCALE


def test_reading_matches_the_file(games_file):
    rows = list(csv.DictReader(open(games_file, newline="")))
    games = list(aq.read_games(str(games_file)))
    assert len(games) == len(rows) == 300
    for g, row in zip(games, rows):
        assert (g.id, g.white, g.black, g.result, g.termination) == (
            int(row["id"]), row["white"], row["black"], row["result"], row["termination"],
        )
        assert g.moves == row["moves"].split() and g.plies == int(row["plies"]) == len(g.moves)
        assert [str(m) for m in g.game.moves] == g.moves
        assert g.game.result() == g.result
        assert len(g.positions()) == g.plies + 1


def squash(result: float, score: str | None) -> float:
    if score is None:
        return result
    if score.startswith("w"):
        return 1.0
    if score.startswith("l"):
        return 0.0
    if score == "d":
        return 0.5
    return 1.0 / (1.0 + math.exp(-int(score) / SCORE_SCALE))


def test_samples_equal_an_independent_computation(games_file):
    s = aq.samples(str(games_file))
    features, targets, results, scores = s["features"], s["targets"], s["results"], s["scores"]
    assert features.dtype == np.float32 and features.shape == (len(targets), aq.INPUTS)
    exp_f, exp_r, exp_s = [], [], []
    for g in aq.read_games(str(games_file)):
        winner = g.game.winner()
        for ply, p in enumerate(g.positions()):
            if ply < g.opening_plies:
                continue  # skip_opening
            if any(m.is_capture for m in p.legal_moves()):
                continue  # skip_forced_captures
            r = 0.5 if winner is None else (1.0 if winner == p.side_to_move else 0.0)
            exp_f.append(p.to_array())
            exp_r.append(r)
            exp_s.append(squash(r, g.scores[ply] if ply < len(g.scores) else None))
    assert len(exp_r) == len(targets) > 1000
    np.testing.assert_array_equal(features, np.array(exp_f))
    np.testing.assert_array_equal(results, np.array(exp_r, dtype=np.float32))
    np.testing.assert_allclose(scores, np.array(exp_s, dtype=np.float32), rtol=1e-6)
    np.testing.assert_allclose(targets, 0.5 * results + 0.5 * scores, rtol=1e-6)
    # The trainer's split by game: train and validation partition the samples.
    train = aq.samples(str(games_file), part="train")
    val = aq.samples(str(games_file), part="validation")
    assert len(train["targets"]) + len(val["targets"]) == len(targets) and len(val["targets"]) > 0
    assert not set(train["game_ids"]) & set(val["game_ids"])


def test_samples_use_the_tables(games_file, tables_dir):
    tb = aq.Tablebase(str(tables_dir))
    s = aq.samples(str(games_file), tb=tb)
    exact = s["exact"]
    assert exact.any()
    for i in np.flatnonzero(exact)[:200]:
        assert s["results"][i] == s["scores"][i] in (0.0, 0.5, 1.0)


def test_written_games_read_back_equal_and_the_cli_accepts_them(alq, tmp_path):
    path = tmp_path / "mine.csv"
    rng = random.Random(4)
    played = []
    with aq.GameWriter(str(path)) as w:
        for i in range(25):
            g = aq.Game(max_plies=150)
            scores = []
            while not g.is_over():
                g.push(rng.choice(g.legal_moves()))
                scores.append(rng.choice([None, rng.randint(-300, 300)]))
            assert w.write(g, white="mybot", black="random", scores=scores) == i
            played.append((g, scores))
    back = list(aq.read_games(str(path)))
    assert len(back) == 25
    for (g, scores), r in zip(played, back):
        assert [str(m) for m in g.moves] == r.moves and r.result == g.result()
        assert r.scores == [None if s is None else str(s) for s in scores]
        assert r.white == "mybot"
    # Appending continues the ids; the CLI reads the file.
    with aq.GameWriter(str(path)) as w:
        assert w.write(played[0][0]) == 25
    out = alq("records", "stats", str(path)).stdout.splitlines()
    assert out[0] == "games 26"


def test_damaged_and_missing_files_raise(tmp_path, games_file):
    with pytest.raises(aq.RecordError, match="nope.csv"):
        list(aq.read_games(str(tmp_path / "nope.csv")))
    lines = open(games_file).read().splitlines()
    fields = lines[5].split(",")
    fields[11] = "a1-a5 " + fields[11]
    bad = tmp_path / "bad.csv"
    bad.write_text("\n".join(lines[:5] + [",".join(fields)] + lines[6:]) + "\n")
    with pytest.raises(aq.RecordError, match=r"bad\.csv:6"):
        list(aq.read_games(str(bad)))
    with pytest.raises(aq.RecordError, match=r"bad\.csv:6"):
        aq.samples(str(bad))
    with pytest.raises(aq.RecordError, match="played under the brainking rules, not classic"):
        list(aq.read_games(str(games_file), rules="classic"))
