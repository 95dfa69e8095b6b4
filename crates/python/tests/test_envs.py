"""The PettingZoo environment and the OpenSpiel game."""

from __future__ import annotations

import numpy as np
import pytest

import alquerque_lab as aq

pettingzoo = pytest.importorskip("pettingzoo")
from pettingzoo.test import api_test, seed_test  # noqa: E402


@pytest.mark.parametrize("rules", aq.RULES)
def test_pettingzoo_api(rules):
    api_test(aq.env(rules=rules, max_plies=300), num_cycles=1000)
    api_test(aq.raw_env(rules=rules, max_plies=40), num_cycles=200)


def test_pettingzoo_seed():
    seed_test(lambda: aq.env(max_plies=300), num_cycles=200)


def test_pettingzoo_plays_whole_games_with_the_right_rewards():
    env = aq.env(max_plies=1000)
    rng = np.random.default_rng(1)
    outcomes = set()
    for _ in range(30):
        env.reset(seed=0)
        game = aq.Game()
        final = {}
        for agent in env.agent_iter():
            obs, reward, terminated, truncated, info = env.last()
            if terminated or truncated:
                final[agent] = reward
                env.step(None)
                continue
            legal = np.flatnonzero(obs["action_mask"])
            assert sorted(legal.tolist()) == game.legal_actions()
            side = "white" if agent == "player_0" else "black"
            assert (obs["observation"] == game.position.to_planes(side)).all()
            action = int(rng.choice(legal))
            game.push(action)
            env.step(action)
        rewards = final
        winner = game.winner()
        expected = {"white": (1, -1), "black": (-1, 1), None: (0, 0)}[winner]
        assert (rewards["player_0"], rewards["player_1"]) == expected
        outcomes.add(game.termination())
    assert "no_moves" in outcomes


def test_pettingzoo_illegal_action_ends_the_game():
    env = aq.env()
    env.reset()
    env.step(0)  # a1-b1 is not legal at the start
    assert all(env.terminations.values())
    assert env.rewards["player_0"] == -1


def test_render():
    env = aq.env(render_mode="ansi")
    env.reset()
    text = env.render()
    assert text.splitlines()[0] == "5 B B B B B" and "white to move" in text


pyspiel = pytest.importorskip("pyspiel")


def test_openspiel_random_sims():
    import alquerque_lab.openspiel  # noqa: F401  (registers the game)

    game = pyspiel.load_game("alquerque_lab")
    assert game.num_distinct_actions() == aq.num_actions()
    pyspiel.random_sim_test(game, num_sims=20, serialize=True, verbose=False)
    classic = pyspiel.load_game("alquerque_lab(rules=classic,max_plies=300)")
    pyspiel.random_sim_test(classic, num_sims=5, serialize=False, verbose=False)


def test_openspiel_state_api():
    import alquerque_lab.openspiel  # noqa: F401

    game = pyspiel.load_game("alquerque_lab")
    state = game.new_initial_state()
    assert [state.action_to_string(a) for a in state.legal_actions()] == ["b2-c3", "c2-c3", "d2-c3", "d3-c3"]
    state.apply_action(aq.Position().parse_move("c2-c3").action)
    clone = state.clone()
    clone.apply_action(clone.legal_actions()[0])
    assert str(state) == "BBBBB/BBBBB/BBWWW/WW.WW/WWWWW b" and str(clone) != str(state)
    assert state.current_player() == 1 and not state.is_terminal()
    assert np.asarray(state.observation_tensor(0)).shape == (50,)
    rng = np.random.default_rng(3)
    while not state.is_terminal():
        state.apply_action(int(rng.choice(state.legal_actions())))
    assert sum(state.returns()) == 0 and state.returns()[0] in (-1.0, 0.0, 1.0)
