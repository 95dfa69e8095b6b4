"""What a trainer meeting the package tripped over, each fixed: moves and
actions in one order, key arrays of another dtype refused (never cast), and
numbers out of range named as such."""

from __future__ import annotations

import random

import numpy as np
import pytest

import alquerque_lab as aq


def test_legal_moves_pair_with_legal_actions_by_position_in_the_lists() -> None:
    # The position where the two orders used to differ, the start, and the
    # positions of random games under both rule sets.
    rng = random.Random(63)
    seen = 0
    for rules in ("brainking", "classic"):
        positions = [aq.Position("B.BBB/B.BBB/BBWWW/W.W.W/WWWW. b", rules=rules), aq.Position(rules=rules)]
        for _ in range(20):
            game = aq.Game(rules=rules)
            while not game.is_over():
                positions.append(game.position)
                game.push(rng.choice(game.legal_moves()))
        for p in positions:
            assert [m.action for m in p.legal_moves()] == p.legal_actions(), str(p)
            game = aq.Game(p, rules=rules)
            assert [m.action for m in game.legal_moves()] == game.legal_actions(), str(p)
            seen += 1
    assert seen > 200


def test_key_arrays_of_another_dtype_are_type_errors() -> None:
    keys = np.array([aq.Position().key, aq.Position("B.BBB/B.BBB/BBWWW/W.W.W/WWWW. b").key], dtype=np.uint64)
    offsets, actions = aq.legal_actions_batch(keys)
    # Any integer dtype, a list of ints, an empty list: converted.
    for same in (keys.astype(np.int64), [int(k) for k in keys]):
        o, a = aq.legal_actions_batch(same)
        assert o.tolist() == offsets.tolist() and a.tolist() == actions.tolist()
    assert aq.legal_actions_batch([])[0].tolist() == [0]
    # A float array would round a key to another position; strings are no keys.
    for wrong, dtype in ((keys.astype(np.float64), "float64"), (np.array(["1", "2"]), "<U1")):
        with pytest.raises(TypeError, match=f"dtype {dtype}"):
            aq.legal_actions_batch(wrong)
        with pytest.raises(TypeError, match=f"dtype {dtype}"):
            aq.action_masks_batch(wrong)
    with pytest.raises(TypeError, match="dtype float64"):
        aq.play_batch(keys, np.array([0.0, 1.0]))


def test_numbers_out_of_range_are_named() -> None:
    with pytest.raises(aq.PositionError, match=r"^-1 is not a position key"):
        aq.Position.from_key(-1)
    with pytest.raises(aq.PositionError, match="is not a position key"):
        aq.Position.from_key(2**70)
    with pytest.raises(aq.ArgumentError, match=r"nodes must be at most 18446744073709551615 \(2\^64 - 1\)"):
        aq.search(aq.Position(), nodes=10**30, eval="hce")
    with pytest.raises(aq.ArgumentError, match="nodes must be a whole number of at least 1, not -5"):
        aq.search(aq.Position(), nodes=-5, eval="hce")


def test_the_readme_says_how_to_get_the_alq_program() -> None:
    # `pip install` gives the package, not the `alq` program its examples
    # call: the README's way must name a crate that installs a binary `alq`.
    from pathlib import Path

    tomllib = pytest.importorskip("tomllib")  # Python 3.11 and newer

    root = Path(__file__).resolve().parents[3]
    readme = (root / "crates/python/README.md").read_text()
    assert "cargo install --path crates/cli" in readme
    cli = tomllib.loads((root / "crates/cli/Cargo.toml").read_text())
    assert any(b["name"] == "alq" for b in cli.get("bin", [])), cli.get("bin")
    # One environment name in the package's documents and examples.
    examples = sorted((root / "crates/python/python/alquerque_lab/examples").glob("*.py"))
    assert len(examples) >= 3, examples
    for path in [root / "crates/python/README.md", *examples]:
        assert "target/pyenv/" not in path.read_text(), path


def test_environment_arguments_get_the_packages_error() -> None:
    pytest.importorskip("pettingzoo")
    for kwargs, message in (
        ({"actions": "tiny"}, "actions: 'tiny' is not an action set"),
        ({"max_plies": 0}, "max_plies must be a whole number of at least 1"),
        ({"render_mode": "3d"}, "render_mode '3d'"),
    ):
        with pytest.raises(aq.ArgumentError, match=message):
            aq.env(**kwargs)
