"""The built-in players: random legal play, and the planner that plans plays over its fixed
hand order and doubles when ahead."""

from __future__ import annotations

import random

from games.double_or_nothing import GAME
from games.double_or_nothing.bots import BOTS, PlannerBot, RandomBot, best_place
from games.double_or_nothing.commands import Double, Play
from games.double_or_nothing.rules import min_sets
from tests.support.games.double_or_nothing import arrange, new, prompt_of


def play_bots(bots, seed: str, max_steps: int = 5000):
    state = new(seed)
    rng = random.Random(seed)
    for _ in range(max_steps):
        prompts = GAME.prompts(state)
        if not prompts:
            return state
        prompt = prompts[0]
        command = bots[prompt.seat].choose(GAME.view(state, prompt.seat), prompt, rng)
        GAME.submit(state, prompt.seat, command)
    raise AssertionError(f"match {seed} did not end")


def test_bots_are_listed_strongest_first():
    assert list(GAME.bots()) == ["planner", "random"]
    assert BOTS["planner"] is PlannerBot


def test_planner_beats_random_clearly_over_200_matches():
    matches, wins = 200, 0
    for i in range(matches):
        seat = i % 2  # both seats, so the advantage holder's choice does not decide it
        bots = [RandomBot(), RandomBot()]
        bots[seat] = PlannerBot()
        state = play_bots(bots, f"arena-{i}")
        outcome = GAME.outcome(state)
        assert outcome is not None
        wins += outcome.winner == seat
    print(f"planner beat random in {wins} of {matches} matches ({wins / matches:.0%})")
    assert wins / matches >= 0.8, f"planner won only {wins} of {matches}"


def test_min_sets_counts_the_fewest_adjacent_sets():
    assert min_sets(["1", "2", "3", "7", "7"]) == 2
    assert min_sets(["2", "3", "1"]) == 2
    assert min_sets(["5", "J", "7", "9"]) == 2


def test_planner_places_a_card_where_it_joins_a_set():
    assert best_place(["1", "2", "9", "9"], "3") == (2, 2)


def test_planner_plays_the_set_that_leaves_the_fewest_sets():
    state = arrange(new(), [["4", "5", "6", "9", "2", "9"], ["1", "8", "1", "8", "1"]])
    command = PlannerBot().choose(GAME.view(state, 0), prompt_of(state, 0), random.Random(1))
    # Playing the 2 lets 9 and 9 meet (4-5-6 and 9-9 are left); the run alone leaves 9, 2, 9.
    assert command == Play(cards=("2",))


def test_planner_doubles_when_far_ahead():
    state = arrange(new(), [["4", "5"], ["1", "8", "2", "9", "3", "10", "6", "1", "7", "3"]])
    command = PlannerBot().choose(GAME.view(state, 0), prompt_of(state, 0), random.Random(1))
    assert command == Double()
