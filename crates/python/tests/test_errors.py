"""Bad input raises the package's exceptions (ValueError subclasses) with
the CLI's message, never a crash."""

from __future__ import annotations

import pytest

import alquerque_lab as aq


def cli_error(alq, *args: str) -> str:
    proc = alq(*args, check=False)
    assert proc.returncode != 0
    return proc.stderr.strip().removeprefix("error: ")


@pytest.mark.parametrize(
    "text",
    ["", "BBBBB/BBBBB/BB.WW/WWWWW/WWWWW", "BBBBB/BBBBB/BB.WW/WWWWW w", "BBBBB/BBBBB/BBxWW/WWWWW/WWWWW w",
     "BBBBB/BBBBB/BB.WW/WWWWW/WWWWW q", "BBBBB/BBBBB/BBBBB/...../WWWWW w"],
)
def test_bad_position_text(alq, text):
    with pytest.raises(aq.PositionError) as e:
        aq.Position(text)
    assert isinstance(e.value, ValueError)
    assert str(e.value) == cli_error(alq, "moves", "--position", text)


@pytest.mark.parametrize("move", ["a1-a2", "c2xc4", "z9-a1", "c2-c3-c4", "c2-c3xc4", ""])
def test_bad_moves(alq, move):
    with pytest.raises(aq.MoveError) as e:
        aq.Position().push(move)
    # The CLI names where the move came from first ("--after: move 1: ").
    if move:
        assert cli_error(alq, "moves", "--after", move) == f"--after: move 1: {e.value}"


def test_bad_actions():
    p = aq.Position()
    for action in (-1, aq.num_actions(), 10**12, 0):
        with pytest.raises(aq.ActionError):
            p.push(action)
    with pytest.raises(aq.ActionError, match="not legal"):
        aq.action_to_move(p, 0)
    with pytest.raises(aq.MoveError) as e:
        p.push(3.5)
    assert str(e.value) == "move: 3.5 is not a move (give a Move, move text or an action id)"
    with pytest.raises(aq.MoveError, match=r"^move: \[1\] \(list\) is not a move"):
        p.push([1])
    import numpy as np

    with pytest.raises(aq.ActionError):
        aq.play_batch(aq.keys_of([p]), np.array([0], dtype=np.int32))
    with pytest.raises(aq.ActionError, match="one action per position"):
        aq.play_batch(aq.keys_of([p]), np.array([], dtype=np.int32))
    with pytest.raises(aq.PositionError):
        aq.legal_actions_batch(np.array([(1 << 25) | 1], dtype=np.uint64))


def test_rules_errors():
    with pytest.raises(aq.RulesError, match="unknown rules"):
        aq.Position(rules="chess")
    with pytest.raises(aq.RulesError):
        aq.num_actions("chess")
    classic_move = aq.Position(rules="classic").legal_moves()[0]
    with pytest.raises(aq.RulesError):
        aq.Position().push(classic_move)


def test_every_error_is_a_value_error():
    for cls in (aq.PositionError, aq.MoveError, aq.ActionError, aq.RulesError, aq.RecordError,
                aq.TablebaseError, aq.EvalError, aq.SolveError, aq.ArgumentError):
        assert issubclass(cls, aq.AlquerqueError) and issubclass(cls, ValueError)


def test_bools_are_not_moves_and_batches_take_any_integer_arrays():
    import numpy as np

    with pytest.raises(aq.MoveError, match="^move: True is not a move"):
        aq.Position().push(True)
    p = aq.Position()
    offsets, actions = aq.legal_actions_batch([p.key])
    assert sorted(actions.tolist()) == p.legal_actions()
    after = aq.play_batch(np.array([p.key], dtype=np.int64), [p.legal_actions()[0]])
    assert aq.Position.from_key(int(after[0])) == p.push(p.legal_actions()[0])
    assert "_position_with" not in aq._core.__all__
