"""Search from Python against `alq analyze`."""

from __future__ import annotations

import threading
import time

import pytest

import alquerque_lab as aq

POSITIONS = [
    aq.START_TEXT,
    "BBBBB/BBBBB/BBWWW/WW.WW/WWWWW b",
    "B.B.B/.BBB./B.BWW/W.W.W/WW.WW w",
    "....B/...../...B./..B.B/WB.B. w",
]


def cli_result(alq, position: str, *args: str) -> tuple[list[str], str]:
    lines = alq("analyze", "--position", position, *args).stdout.splitlines()
    return [l for l in lines if l.startswith("info")], lines[-1]


@pytest.mark.parametrize("position", POSITIONS)
@pytest.mark.parametrize("evaluator", ["nn", "hce"])
def test_search_matches_the_cli(alq, position, evaluator):
    infos, best = cli_result(alq, position, "--nodes", "20000", "--eval", evaluator)
    r = aq.search(aq.Position(position), nodes=20000, eval=evaluator)
    assert best == f"bestmove {r.best_move}"
    last = infos[-1].split()
    assert last[last.index("score") + 1 : last.index("nodes")] == r.score.split()
    assert int(last[last.index("depth") + 1]) == r.depth
    assert int(last[last.index("nodes") + 1]) <= r.nodes
    assert " ".join(last[last.index("pv") + 1 :]) == " ".join(str(m) for m in r.pv)
    assert r.score_kind in ("cp", "win", "loss", "draw")


def test_analyze_streams_the_cli_iterations(alq):
    infos, _ = cli_result(alq, POSITIONS[2], "--depth", "9", "--eval", "hce")
    analysis = aq.Engine(eval="hce").analyze(aq.Position(POSITIONS[2]), depth=9)
    got = list(analysis)
    assert [i.depth for i in got] == list(range(1, 10))
    strip = lambda line: [w for k, w in enumerate(line.split()) if line.split()[k - 1] not in ("nps", "time")]
    assert [strip(i.line) for i in got] == [strip(l) for l in infos]
    assert analysis.result is not None and analysis.result.depth == 9


def test_analysis_stops_early_and_keeps_a_move():
    analysis = aq.analyze(aq.Position(), depth=60, eval="hce")
    first = next(analysis)
    assert first.depth == 1
    analysis.stop()
    assert analysis.result is not None and analysis.result.best_move is not None
    assert list(analysis) == []


def test_search_releases_the_gil():
    ticks = 0
    done = threading.Event()

    def count():
        nonlocal ticks
        while not done.is_set():
            ticks += 1
            time.sleep(0.001)

    t = threading.Thread(target=count)
    t.start()
    r = aq.search(aq.Position(), movetime=0.5, eval="hce")
    done.set()
    t.join()
    assert r.best_move is not None
    assert ticks > 50, f"the other thread ran only {ticks} times during a 0.5 s search"


def test_games_carry_history_and_tables_give_exact_scores(tables_dir):
    # A won 4-piece ending: the tables give the exact distance.
    p = aq.Position(".B.../....W/...../...../W.B.. w")
    r = aq.search(p, depth=4, tb=str(tables_dir))
    assert r.score_kind == "win" and r.score_value is not None
    tb_value = aq.Tablebase(str(tables_dir)).probe(p)
    assert str(tb_value) == f"win {r.score_value}"


def test_engine_errors():
    with pytest.raises(aq.EvalError, match="unknown evaluator"):
        aq.Engine(eval="nope")
    with pytest.raises(aq.ArgumentError, match="give a limit"):
        aq.search(aq.Position())
    with pytest.raises(aq.RulesError):
        aq.Engine(rules="brainking").search(aq.Position(rules="classic"), nodes=10)
    with pytest.raises(aq.TablebaseError):
        aq.Engine(tb="/nonexistent/tables")
    # The shipped network is BrainKing's: refused under the classic rules.
    with pytest.raises(aq.RulesError, match="brainking"):
        aq.Engine(eval="nn", rules="classic")


def test_a_finished_game_has_no_best_move():
    g = aq.Game(max_plies=2)
    g.push("c2-c3")
    g.push("c4xc2")
    r = aq.Engine(eval="hce").search(g, nodes=100)
    assert r.best_move is None and r.score == "draw" and r.nodes == 0
    lost = aq.Game("...../...../...../...../W.... b")
    assert aq.search(lost, depth=3, eval="hce").score == "loss 0"


def test_stop_from_another_thread_keeps_the_result():
    engine = aq.Engine(eval="hce")
    for _ in range(20):
        analysis = engine.analyze(aq.Position(), depth=60)
        seen = {}

        def consume():
            for _ in analysis:
                pass
            seen["result"] = analysis.result

        t = threading.Thread(target=consume)
        t.start()
        time.sleep(0.005)
        analysis.stop()
        t.join()
        assert seen["result"] is not None and seen["result"].best_move is not None


def test_tables_as_a_path_or_an_object(tables_dir):
    from pathlib import Path

    p = aq.Position(".B.../....W/...../...../W.B.. w")
    by_path = aq.search(p, depth=4, tb=Path(tables_dir))
    assert by_path.score_kind == "win"
    assert aq.solve(p, nodes=100000, tb=str(tables_dir)).value == aq.solve(p, nodes=100000, tb=aq.Tablebase(tables_dir)).value
