"""Arguments converted by type (rule sets, sides, points, keys): the same
errors from every function that takes one, defaults that are what the
signatures say, and push on a position against push on a game."""

from __future__ import annotations

import inspect

import numpy as np
import pytest

import alquerque_lab as aq

UNKNOWN_RULES = 'unknown rules "chess" (expected brainking or classic)'
START_KEY = aq.Position().key
AFTER_C3 = aq.Position().push("c2-c3").key

# Every callable that takes `rules`, called with it (and with nothing else
# that could fail first).
RULES_TAKERS = {
    "Position": lambda rules: aq.Position(rules=rules),
    "Position.from_text": lambda rules: aq.Position.from_text(aq.START_TEXT, rules=rules),
    "Position.start": lambda rules: aq.Position.start(rules=rules),
    "Position.from_key": lambda rules: aq.Position.from_key(START_KEY, rules=rules),
    "Game": lambda rules: aq.Game(rules=rules),
    "num_actions": lambda rules: aq.num_actions(rules),
    "action_triple": lambda rules: aq.action_triple(0, rules),
    "legal_actions_batch": lambda rules: aq.legal_actions_batch([START_KEY], rules),
    "play_batch": lambda rules: aq.play_batch([START_KEY], [31], rules),
    "Engine": lambda rules: aq.Engine(eval="hce", hash=1, rules=rules),
    "search": lambda rules: aq.search(aq.START_TEXT, nodes=1, eval="hce", hash=1, rules=rules),
    "analyze": lambda rules: aq.analyze(aq.START_TEXT, nodes=1, eval="hce", hash=1, rules=rules),
    "read_games": lambda rules: aq.read_games("no-such-file.csv", rules=rules),
    "Tablebase": lambda rules: aq.Tablebase("no-such-folder", rules=rules),
    "samples": lambda rules: aq.samples("no-such-file.csv", rules=rules),
}


@pytest.mark.parametrize("name", sorted(RULES_TAKERS))
def test_every_rules_argument_refuses_an_unknown_name_alike(name):
    call = RULES_TAKERS[name]
    with pytest.raises(aq.RulesError) as e:
        call("chess")
    assert str(e.value) == UNKNOWN_RULES
    with pytest.raises(TypeError):
        call(7)


# The callables whose `rules` defaults to "brainking", and what each makes of
# the rule set it was given (or defaulted to).
DEFAULTED = {
    aq.Position: lambda **kw: aq.Position(**kw).rules,
    aq.Position.from_text: lambda **kw: aq.Position.from_text(aq.START_TEXT, **kw).rules,
    aq.Position.start: lambda **kw: aq.Position.start(**kw).rules,
    aq.Position.from_key: lambda **kw: aq.Position.from_key(START_KEY, **kw).rules,
    aq.Game: lambda **kw: aq.Game(**kw).rules,
    aq.Engine: lambda **kw: aq.Engine(eval="hce", hash=1, **kw).rules,
    aq.num_actions: lambda **kw: aq.num_actions(**kw),
    aq.action_triple: lambda **kw: aq.action_triple(112, **kw),  # BrainKing's first capture
    # After c2-c3, Black's one move c4xc2 is action 29393 under BrainKing's
    # rules and 62500 under the classic ones.
    aq.legal_actions_batch: lambda **kw: aq.legal_actions_batch([AFTER_C3], **kw)[1].tolist(),
    aq.play_batch: lambda **kw: outcome(lambda: aq.play_batch([AFTER_C3], [29393], **kw).tolist()),
}


def outcome(call):
    """What `call` returns, or the class of what it raises."""
    try:
        return call()
    except aq.AlquerqueError as e:
        return type(e)


@pytest.mark.parametrize("fn", list(DEFAULTED), ids=lambda f: f.__qualname__)
def test_the_signatures_show_the_rules_default_in_effect(fn):
    rules = inspect.signature(fn).parameters["rules"]
    assert rules.default == "brainking"
    made = DEFAULTED[fn]
    assert made() == made(rules="brainking")
    assert made(rules="classic") != made(rules="brainking")


def test_rules_are_not_optional_where_they_have_a_default():
    with pytest.raises(TypeError):
        aq.Position(rules=None)
    with pytest.raises(TypeError):
        aq.num_actions(None)
    # Where the default is None, None is the default.
    assert aq.search(aq.Position(rules="classic"), nodes=1, eval="hce", hash=1, rules=None).best_move.rules == "classic"


def test_sides_and_points():
    p = aq.Position()
    assert p.pieces("w") == p.pieces("white") and len(p.pieces("b")) == 12
    assert (p.to_planes("b") == p.to_planes("black")).all()
    assert (p.to_planes() == p.to_planes("white")).all()
    for bad in ("red", "White", ""):
        with pytest.raises(aq.ArgumentError) as e:
            p.pieces(bad)
        assert str(e.value) == f'side: unknown side "{bad}" (expected white or black)'
        with pytest.raises(aq.ArgumentError, match="unknown side"):
            p.to_planes(bad)
    assert p.piece_at("c3") is None and p.piece_at("a1") == "white" and p.piece_at("e5") == "black"
    for bad in ("z9", "c6", "C3", ""):
        with pytest.raises(aq.ArgumentError) as e:
            p.piece_at(bad)
        assert str(e.value) == f'point: "{bad}" is not a point (a1 … e5)'
    # pytest's `match` also reads the exception's notes (pyo3 adds "while
    # processing 'side'"), so the message itself is compared.
    with pytest.raises(aq.ArgumentError) as e:
        p.pieces(0)
    assert str(e.value) == "side: 0 is not a side (expected white or black)"
    with pytest.raises(aq.ArgumentError) as e:
        p.piece_at(12)
    assert str(e.value) == "point: 12 is not a point (a1 … e5)"


# Counted arguments: each refusal is one line naming the argument and value,
# an ArgumentError (never pyo3's OverflowError or TypeError).
BAD_LIMITS = [
    (lambda: aq.search(aq.START_TEXT, nodes=-5, eval="hce", hash=1), "nodes must be a whole number of at least 1, not -5"),
    (lambda: aq.search(aq.START_TEXT, nodes=0, eval="hce", hash=1), "nodes must be a whole number of at least 1, not 0"),
    (lambda: aq.search(aq.START_TEXT, nodes=2.5, eval="hce", hash=1), "nodes must be a whole number of at least 1, not 2.5"),
    (lambda: aq.search(aq.START_TEXT, nodes=True, eval="hce", hash=1), "nodes must be a whole number of at least 1, not True"),
    (lambda: aq.search(aq.START_TEXT, depth=0, eval="hce", hash=1), "depth must be a whole number of at least 1, not 0"),
    (lambda: aq.search(aq.START_TEXT, movetime=-1, eval="hce", hash=1), "movetime must be a positive number of seconds, not -1"),
    (lambda: aq.search(aq.START_TEXT, movetime="1", eval="hce", hash=1), "movetime must be a positive number of seconds, not '1' (str)"),
    (lambda: aq.search(aq.START_TEXT, eval="hce", hash=1), "give a limit: nodes=N, depth=D or movetime=SECONDS (one or more)"),
    (lambda: aq.Engine(eval="hce", threads=0), "threads must be a whole number of at least 1, not 0"),
    (lambda: aq.Engine(eval="hce", hash=-1), "hash must be a whole number of at least 0, not -1"),
    (lambda: aq.Oracle(movetime=0), "movetime must be a positive number of seconds, not 0"),
    (lambda: aq.samples([], part="test"), 'part: "test" is not a part (expected "all", "train" or "validation")'),
]


@pytest.mark.parametrize("call, message", BAD_LIMITS, ids=[m for _, m in BAD_LIMITS])
def test_bad_limits_are_argument_errors_of_one_line(call, message):
    with pytest.raises(aq.ArgumentError) as e:
        call()
    assert str(e.value) == message
    # numpy's integers count as whole numbers.
    assert aq.search(aq.START_TEXT, nodes=np.uint64(5), eval="hce", hash=1).nodes >= 1


BAD_KEYS = [
    (1 << 51, "key 0x8000000000000 has bits above bit 50"),
    (START_KEY | 1 << 63, f"key {START_KEY | 1 << 63:#x} has bits above bit 50"),
    (1 << 7 | 1 << 32, "key 0x100000080 puts both sides on one point"),
    ((1 << 13) - 1, "key 0x1fff has more than 12 pieces of one side"),
    (((1 << 13) - 1) << 37, f"key {((1 << 13) - 1) << 37:#x} has more than 12 pieces of one side"),
]


@pytest.mark.parametrize("key, message", BAD_KEYS)
def test_keys_that_are_no_position_are_refused(key, message):
    with pytest.raises(aq.PositionError) as e:
        aq.Position.from_key(key)
    assert str(e.value) == message
    keys = np.array([START_KEY, key], dtype=np.uint64)
    for batch in (lambda: aq.legal_actions_batch(keys), lambda: aq.play_batch(keys, [31, 0])):
        with pytest.raises(aq.PositionError) as e:
            batch()
        assert str(e.value) == f"keys[1]: {message}"


def test_keys_round_trip_at_the_limits():
    twelve = (1 << 12) - 1
    for key in (0, twelve, twelve << 25, twelve | (twelve << 12) << 25 | 1 << 50, START_KEY):
        assert aq.Position.from_key(key).key == key
    with pytest.raises(aq.PositionError, match="is not a position key"):
        aq.Position.from_key(-1)  # named as a key, not Python's OverflowError


def test_position_push_returns_a_new_position_and_game_push_plays_in_place():
    p = aq.Position()
    q = p.push("c2-c3")
    assert isinstance(q, aq.Position) and q != p
    assert p == aq.Position() and p.side_to_move == "white"
    g = aq.Game()
    played = g.push("c2-c3")
    assert isinstance(played, aq.Move) and str(played) == "c2-c3"
    assert g.position == q and g.plies == 1 and g.moves == [played]
