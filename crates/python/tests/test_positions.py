"""Positions, moves, games and the action index, against the CLI and the
independent move-generation vectors."""

from __future__ import annotations

import copy
import pickle
import random
from pathlib import Path

import numpy as np
import pytest

import alquerque_lab as aq

from conftest import ROOT

VECTORS = ROOT / "crates" / "engine" / "tests" / "data" / "moves.txt"


def random_positions(rules: str, count: int, seed: int) -> list[aq.Position]:
    """Positions met in random games from the start (the start included)."""
    rng = random.Random(seed)
    out: list[aq.Position] = []
    while len(out) < count:
        game = aq.Game(rules=rules, max_plies=rng.randint(1, 120))
        out.append(game.position)
        while not game.is_over() and len(out) < count:
            game.push(rng.choice(game.legal_moves()))
            out.append(game.position)
    return out


def test_start_position_and_text_round_trip():
    p = aq.Position()
    assert str(p) == aq.START_TEXT == "BBBBB/BBBBB/BB.WW/WWWWW/WWWWW w"
    assert p.side_to_move == "white"
    assert sorted(str(m) for m in p.legal_moves()) == ["b2-c3", "c2-c3", "d2-c3", "d3-c3"]
    q = p.push("c2-c3")
    assert str(q) == "BBBBB/BBBBB/BBWWW/WW.WW/WWWWW b"
    assert aq.Position.from_text(str(q)) == q
    assert aq.Position.from_key(q.key) == q
    assert str(p) == aq.START_TEXT, "push returns a new position"


def test_moves_match_the_independent_vectors():
    blocks = VECTORS.read_text().split("\nid ")
    checked = 0
    for block in blocks[1:]:
        fields = dict(line.split(" ", 1) for line in block.splitlines()[1:] if " " in line and not line.startswith("perft"))
        if "position" not in fields or "moves" not in fields:
            continue
        p = aq.Position(fields["position"])
        assert sorted(str(m) for m in p.legal_moves()) == sorted(fields["moves"].split()), fields["position"]
        checked += 1
    assert checked > 50


@pytest.mark.parametrize("rules,count", [("brainking", 1200), ("classic", 400)])
def test_moves_match_the_cli_on_random_positions(alq, rules, count):
    for p in random_positions(rules, count, seed=11):
        out = alq("moves", "--position", str(p), "--rules", rules).stdout.split()
        assert sorted(str(m) for m in p.legal_moves()) == out, str(p)


@pytest.mark.parametrize("rules", aq.RULES)
def test_actions_round_trip(rules):
    n = aq.num_actions(rules)
    assert n == {"brainking": 49_100, "classic": 93_186}[rules]
    for p in random_positions(rules, 3000, seed=5):
        moves = p.legal_moves()
        actions = p.legal_actions()
        assert actions == sorted(m.action for m in moves)
        mask = p.action_mask()
        assert mask.dtype == np.int8 and mask.shape == (n,)
        assert list(np.flatnonzero(mask)) == actions
        for m in moves:
            assert aq.action_to_move(p, m.action) == m
            assert aq.move_to_action(m) == m.action
            assert aq.move_to_action(str(m), p) == m.action
            origin, end, captured = aq.action_triple(m.action, rules)
            assert (origin, end, captured) == (m.from_point, m.to_point, m.captured)
            assert p.push(m.action) == p.push(m) == p.push(str(m))


def test_batch_calls_equal_one_by_one_calls():
    positions = random_positions("brainking", 2000, seed=9)
    keys = aq.keys_of(positions)
    assert keys.dtype == np.uint64
    offsets, actions = aq.legal_actions_batch(keys)
    assert offsets[0] == 0 and offsets[-1] == len(actions) and len(offsets) == len(positions) + 1
    chosen = np.empty(len(positions), dtype=np.int32)
    live = []
    for i, p in enumerate(positions):
        mine = actions[offsets[i] : offsets[i + 1]]
        assert sorted(mine.tolist()) == p.legal_actions()
        if len(mine):
            chosen[i] = mine[-1]
            live.append(i)
    after = aq.play_batch(keys[live], chosen[live])
    for i, k in zip(live, after):
        assert aq.Position.from_key(int(k)) == positions[i].push(int(chosen[i]))


def test_game_draw_rules_and_undo():
    # Shuffling back and forth repeats the position: a draw on the third time.
    g = aq.Game("..B../...../...../...../..W.. w")
    shuffle = ["c1-b1", "c5-b5", "b1-c1", "b5-c5"]
    for mv in shuffle * 2:
        g.push(mv)
    assert g.is_over() and g.result() == "1/2-1/2" and g.termination() == "repetition"
    with pytest.raises(aq.MoveError, match="the game is over"):
        g.push("c1-b1")
    assert g.pop() is not None and not g.is_over()
    capped = aq.Game(max_plies=2)
    capped.push("c2-c3")
    capped.push("c4xc2")
    assert capped.termination() == "max_plies" and capped.result() == "1/2-1/2"
    lost = aq.Game("...../...../...../...../W.... b")
    assert lost.is_over() and lost.result() == "1-0" and lost.winner() == "white"


def test_copies_and_pickles_are_equal_and_independent():
    g = aq.Game()
    g.push("c2-c3")
    h = copy.deepcopy(g)
    h.push("c4xc2")
    assert g.plies == 1 and h.plies == 2
    again = pickle.loads(pickle.dumps(h))
    assert [str(m) for m in again.moves] == ["c2-c3", "c4xc2"] and again.position == h.position
    c = aq.Position(rules="classic")
    assert pickle.loads(pickle.dumps(c)) == c and c != aq.Position()


def test_features_and_planes():
    p = aq.Position().push("c2-c3")
    f = p.to_array()
    assert f.dtype == np.float32 and f.shape == (aq.INPUTS,) and f.sum() == 24
    planes = p.to_planes()
    assert planes.shape == (5, 5, 2) and planes.dtype == np.int8
    # Black to move: plane 0 holds Black's pieces; c4 is file 2, rank 4.
    assert planes[3, 2, 0] == 1 and planes[2, 2, 1] == 1 and planes[1, 2].sum() == 0
    assert (p.to_planes("white") == planes[:, :, ::-1]).all()
    assert p.piece_at("c3") == "white" and p.piece_at("c2") is None
    assert len(p.pieces("black")) == 12 and p.mirror().mirror() == p
