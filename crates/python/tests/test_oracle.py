"""The oracle and the players: against `alq oracle` and the tables."""

from __future__ import annotations

import json

import pytest

import alquerque_lab as aq


def test_the_oracle_answers_as_the_cli(alq, tables_dir):
    oracle = aq.Oracle(tb=aq.Tablebase(str(tables_dir)), movetime=2.0)
    start = aq.Position()
    answer = oracle.value(start)
    assert (answer.value, answer.source, answer.is_exact) == ("draw", "proof", True)
    values = {str(m): a.value for m, a in oracle.move_values(start)}
    cli = json.loads(alq("oracle", "--json").stdout)
    assert values == {m["move"]: m["value"] for m in cli["moves"]}
    assert values["d2-c3"] == "loss"
    # A position in the tables is answered by them; a path works as tables too.
    small = aq.Position("...../...../..B../..W../..... w")
    by_path = aq.Oracle(tb=str(tables_dir))
    assert (by_path.value(small).value, by_path.value(small).source) == ("win", "table")
    # Text and games are positions too.
    game = aq.Game()
    game.push("d2-c3")
    assert oracle.value(game).value == "win"
    assert oracle.value(str(start)).value == "draw"


def test_a_search_settles_and_is_stored(tmp_path):
    store = tmp_path / "user.store"
    oracle = aq.Oracle(store=store, nodes=20_000, movetime=None, shipped=False)
    won = aq.Position("...../...../..B../..W../..... w")
    first = oracle.value(won)
    assert (first.value, first.source) == ("win", "search") and first.nodes > 0
    assert oracle.value(won).source == "store"
    assert store.exists()
    again = aq.Oracle(store=store, nodes=1, movetime=None, shipped=False)
    assert again.value(won).source == "store"
    assert again.known_positions > 0


def test_nothing_within_the_budget_is_unknown():
    oracle = aq.Oracle(nodes=1, movetime=None, shipped=False)
    answer = oracle.value(aq.Position("BB.BB/B.B.B/...../W.W.W/WW.WW w"))
    assert (answer.value, answer.source, answer.is_exact) == ("unknown", "none", False)


def test_bad_oracle_arguments_raise_the_package_errors(tmp_path):
    with pytest.raises(aq.ArgumentError, match="give a budget"):
        aq.Oracle(movetime=None)
    with pytest.raises(aq.ArgumentError, match="positive number of seconds"):
        aq.Oracle(movetime=-1.0)
    damaged = tmp_path / "bad.store"
    damaged.write_bytes(b"not a store")
    with pytest.raises(aq.SolveError, match="bad.store"):
        aq.Oracle(store=damaged)
    with pytest.raises(aq.TablebaseError):
        aq.Oracle(tb=tmp_path / "no-tables")


def test_perfect_plays_in_a_game_and_never_loses_to_random():
    # 20 ms a position asked: enough against random (this game took 46 s
    # at 200 ms, most of the Python tests' time).
    perfect = aq.Player("perfect@movetime=20", seed=1)
    other = aq.Player("random", seed=2)
    assert perfect.spec == "perfect@movetime=20"
    for perfect_is_white in (True, False):
        game = aq.Game(max_plies=300)
        while not game.is_over():
            white_to_move = game.side_to_move == "white"
            player = perfect if white_to_move == perfect_is_white else other
            move = player.choose(game)
            assert move is not None
            game.push(move)
        assert game.result() != ("0-1" if perfect_is_white else "1-0"), game.moves
    assert perfect.choose(game) is None
    with pytest.raises(aq.EvalError, match="unknown key"):
        aq.Player("perfect@colour=red")
