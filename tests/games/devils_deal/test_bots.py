"""The built-in players: random legal play, and the heuristic "dealer"."""

from __future__ import annotations

import random
import time

from games.devils_deal import GAME
from games.devils_deal.bots import BOTS, HeuristicBot, RandomBot, card_values
from games.devils_deal.cards import DECK
from games.devils_deal.commands import Division, PrivateCards
from games.devils_deal.partition import best_division
from games.devils_deal.rules import check_division
from tests.support.games.devils_deal import play_bots, to_poker

EXAMPLE = ["G5", "B3", "R3", "R7", "B6", "G1", "G2", "G8", "B5", "R2", "B9", "G6"]


def test_bots_are_listed_strongest_first():
    assert list(GAME.bots()) == ["dealer", "random"]
    assert BOTS["dealer"] is HeuristicBot


def test_heuristic_beats_random_clearly():
    matches, wins = 200, 0
    for i in range(matches):
        seat = i % 2  # play both seats
        bots = [RandomBot(), RandomBot()]
        bots[seat] = HeuristicBot()
        state = play_bots(bots, f"arena-{i}")
        outcome = GAME.outcome(state)
        assert outcome is not None
        wins += outcome.winner == seat
    assert wins / matches >= 0.9, f"heuristic won only {wins} of {matches}"


def test_division_search_returns_within_1_second_and_is_valid():
    rng = random.Random(7)
    for _ in range(60):
        offered = rng.sample(DECK, 12)
        pool = rng.sample(DECK, rng.randint(0, 10))
        start = time.perf_counter()
        piles, aside, value = best_division(offered, card_values(pool, offered))
        assert time.perf_counter() - start < 1.0
        result = check_division(offered, pool, Division(piles=tuple(piles), aside=aside), 100)
        assert len(result.taken) >= 1 and value > 0


def test_division_search_keeps_the_most_cards_of_the_seed_example():
    # With every card worth 1, the best division takes 10 cards: 11 would need a single-card
    # set-aside pile of sum 19 (57 = 3 x 19), which cannot exist.
    piles, aside, value = best_division(EXAMPLE, [1.0] * 12)
    assert value == 10
    taken = [c for i, p in enumerate(piles) if i != aside for c in p]
    assert len(taken) == 10 and len(set(taken)) == 10


def test_heuristic_division_is_legal_and_locked():
    state = to_poker((["R1"], ["G1"]), "B5")
    from games.devils_deal.state import Phase
    state.phase = Phase.STARTER  # back to the start, then refill through the API
    state.community = None
    state.round = 0
    GAME.submit(state, 0, GAME.parse(state, 0, "me"))
    GAME.submit(state, 0, GAME.parse(state, 0, "yes"))
    assert state.refill is not None
    state.refill.offered = list(EXAMPLE)
    [prompt] = GAME.prompts(state)
    command = HeuristicBot().choose(GAME.view(state, 0), prompt, random.Random(1))
    assert isinstance(command, Division) and command.lock
    GAME.submit(state, 0, command)
    assert len(state.pools[0]) == 11 - 1  # R1 + 10 taken, within the limit


def test_heuristic_picks_the_straight():
    state = to_poker((["R4", "R6", "G1", "G9", "B2"], ["G1", "G9", "G4", "G6", "B3"]), "B5")
    prompt = next(p for p in GAME.prompts(state) if p.seat == 0)
    command = HeuristicBot().choose(GAME.view(state, 0), prompt, random.Random(1))
    assert isinstance(command, PrivateCards)
    assert {command.first, command.second} == {"R4", "R6"}
    assert command.first == "R4"  # the lower card is revealed first


def test_random_bot_plays_only_legal_moves():
    for i in range(30):
        state = play_bots([RandomBot(), RandomBot()], f"random-{i}")
        assert GAME.outcome(state) is not None
