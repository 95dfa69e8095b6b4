"""What a bot trainer hits first: tables passed one way, one order of
actions, moves tested by their text, typed scores, batch masks and policy
targets in the samples."""

from __future__ import annotations

import shutil

import numpy as np
import pytest

import alquerque_lab as aq


def game_positions(games_file, limit=20_000):
    """Positions of real self-play games (every ply), the final ones included."""
    out = []
    for record in aq.read_games(str(games_file)):
        out.extend(record.positions())
        if len(out) >= limit:
            break
    return out


# 1. Tables: an open Tablebase or a folder, wherever tables are taken.


def test_tables_are_taken_as_an_object_or_a_path(tables_dir):
    won = aq.Position(".B.../....W/...../...../W.B.. w")
    tables = aq.Tablebase(str(tables_dir))
    by_object = aq.search(won, depth=4, tb=tables)
    by_path = aq.search(won, depth=4, tb=tables_dir)
    assert by_object.score_kind == by_path.score_kind == "win"
    assert by_object.score_value == by_path.score_value == tables.probe(won).plies
    engine = aq.Engine(eval="hce", hash=1, tb=tables)
    assert "≤ 5 pieces" in engine.description
    assert engine.search(won, depth=4).value == "win"
    analysis = aq.analyze(won, depth=3, tb=tables, eval="hce", hash=1)
    infos = list(analysis)
    assert infos and analysis.result is not None and analysis.result.value == "win"
    assert aq.solve(won, tb=tables, nodes=100_000).exact == tables.probe(won)
    with pytest.raises(aq.RulesError):
        aq.Engine(eval="hce", tb=tables, rules="classic")


# 2. Errors: the package's types, one line; pop() on an empty game; ordering.


def test_an_empty_game_pops_none_and_positions_and_moves_sort():
    g = aq.Game()
    assert g.pop() is None and len(g) == 0
    g.push("c2-c3")
    assert str(g.pop()) == "c2-c3" and g.pop() is None
    p, q = aq.Position(), aq.Position().push("c2-c3")
    assert (p < q) == (p.key < q.key) and (p > q) == (p.key > q.key)
    assert p <= p and p >= p and not p < p
    assert sorted([q, p]) == sorted([p, q])
    classic = aq.Position(rules="classic")
    assert p < classic  # BrainKing's rules sort first, whatever the key
    moves = p.legal_moves()
    assert [m.action for m in sorted(moves)] == sorted(m.action for m in moves)
    assert max(moves).action == max(p.legal_actions())


# 3. One order: ascending action ids, batch and single.


def test_batched_actions_are_ascending_as_the_single_call(games_file):
    positions = game_positions(games_file)
    keys = aq.keys_of(positions)
    offsets, actions = aq.legal_actions_batch(keys)
    assert len(offsets) == len(positions) + 1
    for i, p in enumerate(positions):
        batch = actions[offsets[i]:offsets[i + 1]].tolist()
        assert batch == p.legal_actions(), p.text
        assert batch == sorted(batch)


# 4. Testing a move by its text.


def test_is_legal_takes_text_moves_and_ids_and_never_raises_for_a_mere_illegal_move():
    p = aq.Position()
    assert p.is_legal("c2-c3")
    assert not p.is_legal("a1-a2") and not p.is_legal("nonsense") and not p.is_legal("")
    assert all(p.is_legal(m) and p.is_legal(m.action) and p.is_legal(m.text) for m in p.legal_moves())
    assert not p.is_legal(0) and not p.is_legal(-1) and not p.is_legal(10**12)
    assert not p.is_legal(aq.Position(rules="classic").legal_moves()[0])
    after = p.push("c2-c3")
    assert not after.is_legal("c2-c3") and after.is_legal("c4xc2")
    with pytest.raises(aq.MoveError, match="^move: 3.5 is not a move"):
        p.is_legal(3.5)
    g = aq.Game()
    assert g.is_legal("d2-c3")
    g.push("d2-c3")
    assert not g.is_legal("d2-c3")
    done = aq.Game("...../...../...../...../..W.. b")
    assert done.is_over() and not done.is_legal("c1-c2")


# 5. Scores as numbers.


def test_search_scores_are_typed():
    r = aq.search(aq.Position(), nodes=500, eval="hce", hash=1)
    assert r.score_kind == "cp" and r.value is None
    assert isinstance(r.pawns, float) and r.pawns == r.score_value / 100
    # A position with one move to an immediate win: a proven score.
    won = aq.search(aq.Position("...../...../..B../..W../..... w"), depth=3, eval="hce", hash=1)
    assert won.score_kind == "win" and won.value == "win" and won.pawns is None
    # No piece left to move: lost at once.
    lost = aq.search(aq.Position("...../...../...../...../..W.. b"), depth=3, eval="hce", hash=1)
    assert lost.value == "loss" and lost.pawns is None and lost.best_move is None
    for info in aq.analyze(aq.Position(), depth=2, eval="hce", hash=1):
        assert (info.pawns is None) == (info.score_kind != "cp")


# 9. Batch masks.


def test_batch_masks_equal_the_single_masks_packed_or_not(games_file):
    positions = game_positions(games_file, limit=3_000)
    keys = aq.keys_of(positions)
    n, a = len(positions), aq.num_actions()
    masks = aq.action_masks_batch(keys)
    assert masks.dtype == np.bool_ and masks.shape == (n, a)
    for i in range(0, n, 97):
        assert (masks[i] == positions[i].action_mask().astype(bool)).all()
    assert (masks.sum(axis=1) == [len(p.legal_actions()) for p in positions]).all()
    packed = aq.action_masks_batch(keys, packed=True)
    assert packed.dtype == np.uint8 and packed.shape == (n, (a + 7) // 8)
    assert (np.unpackbits(packed, axis=1, count=a).astype(bool) == masks).all()
    # Written into a reused array, which is returned and fully overwritten.
    out = np.ones((n, a), dtype=np.bool_)
    assert aq.action_masks_batch(keys, out) is out and (out == masks).all()
    out_packed = np.full((n, (a + 7) // 8), 255, dtype=np.uint8)
    assert aq.action_masks_batch(keys, out_packed, packed=True) is out_packed
    assert (out_packed == packed).all()
    classic = aq.action_masks_batch(aq.keys_of([aq.Position(rules="classic")]), rules="classic")
    assert classic.shape == (1, aq.num_actions("classic"))
    assert np.flatnonzero(classic[0]).tolist() == aq.Position(rules="classic").legal_actions()


def test_batch_masks_refuse_an_array_that_does_not_fit():
    keys = aq.keys_of([aq.Position()] * 3)
    a = aq.num_actions()
    for bad, packed in [
        (np.zeros((2, a), dtype=np.bool_), False),
        (np.zeros((3, a), dtype=np.uint8), False),
        (np.zeros((3, a), dtype=np.bool_), True),
        (np.zeros((3, a), dtype=np.bool_)[:, ::2], False),
    ]:
        with pytest.raises(aq.ArgumentError, match="^out must be a C-contiguous "):
            aq.action_masks_batch(keys, bad, packed=packed)
    with pytest.raises(aq.PositionError, match=r"^keys\[0\]"):
        aq.action_masks_batch(np.array([1 << 51], dtype=np.uint64))


# 8. Policy targets in the samples.


def test_samples_carry_the_move_played_and_unique_game_ids(games_file, tmp_path):
    s = aq.samples(str(games_file), skip_forced_captures=False, skip_opening=False)
    records = list(aq.read_games(str(games_file)))
    by_id = {r.id: r for r in records}
    n = len(s["targets"])
    assert s["actions"].dtype == np.int32 and s["searched"].dtype == np.bool_ and len(s["actions"]) == n
    assert n == sum(r.plies + 1 for r in records)
    for i in range(0, n, 53):
        record = by_id[int(s["record_ids"][i])]
        ply = int(s["plies"][i])
        if ply == record.plies:
            assert s["actions"][i] == -1 and not s["searched"][i]
            continue
        position = record.positions()[ply]
        assert aq.action_to_move(position, int(s["actions"][i])).text == record.moves[ply]
        assert s["searched"][i] == (ply >= record.opening_plies and record.scores[ply] is not None)
    # Two copies of one file: game ids stay unique, record ids and files say
    # where each row came from.
    copy = tmp_path / "copy.csv"
    shutil.copy(games_file, copy)
    both = aq.samples([str(games_file), str(copy)])
    one = aq.samples(str(games_file))
    m = len(one["targets"])
    assert len(both["targets"]) == 2 * m
    assert (both["files"][:m] == 0).all() and (both["files"][m:] == 1).all()
    assert (both["record_ids"][:m] == both["record_ids"][m:]).all()
    assert (both["game_ids"][:m] == one["game_ids"]).all()
    assert set(both["game_ids"][:m].tolist()).isdisjoint(both["game_ids"][m:].tolist())
    assert (both["game_ids"][m:] == both["record_ids"][m:] + max(r.id for r in records) + 1).all()
    assert (both["actions"][:m] == both["actions"][m:]).all()


# 9. The compact index: a move by its origin and end.


def test_the_compact_index_names_every_legal_move_but_rare_ties(games_file):
    from alquerque_lab.compact import CompactIndex

    index = CompactIndex()
    assert len(index) == 256 and len(CompactIndex("classic")) > 256
    seen_tie = False
    for p in game_positions(games_file, limit=5_000) + [aq.Position("..W../...../BW.../.WW../...W. b")]:
        moves = p.legal_moves()
        compact = index.legal_actions(p)
        assert compact == sorted({index.of_move(m) for m in moves})
        assert np.flatnonzero(index.action_mask(p)).tolist() == compact
        for c in compact:
            mv = index.to_move(p, c)
            assert index.pair(c) == (mv.from_point, mv.to_point) and p.is_legal(mv)
            same = [m for m in moves if (m.from_point, m.to_point) == index.pair(c)]
            assert len(mv.captured) == max(len(m.captured) for m in same)
            seen_tie |= len(same) > 1
        assert (index.actions_of(np.array([m.action for m in moves])) == [index.of_move(m) for m in moves]).all()
    assert seen_tie, "the tie position has two moves with one origin and end"
    with pytest.raises(aq.ActionError, match="not legal"):
        index.to_move(aq.Position(), index.of_action(0) if index.pair(index.of_action(0)) != ("b2", "c3") else 1)
    with pytest.raises(aq.ActionError, match="out of range"):
        index.pair(256)


def test_the_environments_play_the_compact_index():
    pytest.importorskip("pettingzoo")
    from pettingzoo.test import api_test

    api_test(aq.env(actions="compact", max_plies=200), num_cycles=500)
    env = aq.env(actions="compact")
    env.reset(seed=0)
    obs, *_ = env.last()
    assert obs["action_mask"].shape == (256,) and int(obs["action_mask"].sum()) == 4
    with pytest.raises(ValueError, match="actions"):
        aq.env(actions="small")
    pyspiel = pytest.importorskip("pyspiel")
    import alquerque_lab.openspiel  # noqa: F401

    game = pyspiel.load_game("alquerque_lab(actions=compact,max_plies=300)")
    assert game.num_distinct_actions() == 256
    state = game.new_initial_state()
    assert [state.action_to_string(a) for a in state.legal_actions()] == ["b2-c3", "c2-c3", "d2-c3", "d3-c3"]
    pyspiel.random_sim_test(game, num_sims=10, serialize=True, verbose=False)


def test_the_bench_measures_the_batch_calls_on_one_core():
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-m", "alquerque_lab.bench", "--batch-only", "--quick", "--threads", "1"],
                         capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    rows = [line for line in out.stdout.splitlines() if line.startswith("| ")]
    assert len(rows) == 7 and any("packed" in r for r in rows) and all("positions" in r for r in rows), out.stdout
