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


def test_rule_values_come_from_dtz_tables_and_count_the_games_plies(alq, tmp_path):
    tb = tmp_path / "tb"
    for kind in ("wdl", "dtz"):
        alq("tb", "build", "--pieces", "4", "--kind", kind, "--out", str(tb), "--threads", "2")
    oracle = aq.Oracle(tb=str(tb), movetime=0.5)
    # 2v2, White to move: won under the rule, as `alq tb probe` says.
    pos = "...../...../B.B../...../WW... w"
    probe = alq("tb", "probe", "--tb", str(tb), "--position", pos).stdout
    line = next(l for l in probe.splitlines() if l.startswith("under the 60-ply rule "))
    value, plies = line.removeprefix("under the 60-ply rule ").split()
    assert oracle.rule_value(pos) == (value, int(plies)) == ("win", int(plies))
    # A game counts its plies without progress: after a sideways move (no
    # capture, no forward move) the count is 1, and the value is the new
    # position's with that count.
    game = aq.Game(aq.Position(pos))
    sideways = next(m for m in game.legal_moves() if "x" not in str(m) and str(m)[1] == str(m)[-1])
    game.push(sideways)
    assert game.quiet_plies == 1
    after = oracle.rule_value(str(game.position))
    assert after is not None
    value, n = after
    expected = after if n is None or n <= 59 else ("cursed-win" if value == "win" else "blessed-loss", None)
    assert oracle.rule_value(game) == expected
    # Without dtz tables: no rule value.
    assert aq.Oracle(movetime=0.5).rule_value(pos) is None
