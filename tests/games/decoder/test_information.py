"""Who can learn what in Decoder: the two-world information check over seeded random matches,
and the seed's Information list for setup ("Whether you win a tile from a timer tank: only you
know yours") played as two matches that differ only in that."""

from __future__ import annotations

import random

import pytest

from games.core.contract import Timeout
from games.core.information import first_difference, observe, run_information
from games.decoder import GAME
from games.decoder.commands import ChooseHand, ChooseRarities, Ready
from games.decoder.rules import rarity_options
from games.decoder.settings import DecoderSettings, Items
from tests.support.games.decoder import settings, started, submit

ALL_ITEMS = Items(hand_insurance=2, new_evidence=2, power_surge=2, unexpected_sabotage=2)


# The 150 default matches and the 40 with every item are each played in two parts: the first
# in the pure tier (quick), the rest marked slow (the service tier and the whole suite), each
# part held to its share of the bounds the whole run had, so the whole suite plays the same
# seeds and checks no less; the pure tier stays under its minute (issue 44).
DEFAULT, DEFAULT_QUICK = 150, 30
ITEMS, ITEMS_QUICK = 40, 10


def _default_matches(first: int, count: int) -> None:
    summary = run_information(GAME, count, first_seed=first)
    assert summary.twins >= count and summary.compared_steps > 500 * count // DEFAULT
    assert summary.reveals > 0


def _matches_with_every_item(first: int, count: int) -> None:
    s = DecoderSettings(items=[ALL_ITEMS, ALL_ITEMS])
    summary = run_information(GAME, count, s, first_seed=1_000 + first)
    assert summary.twins >= count and summary.compared_steps > 200 * count // ITEMS


def test_two_worlds_in_default_matches() -> None:
    """The first 30 of the 150 default matches (the other 120: the slow test below)."""
    _default_matches(0, DEFAULT_QUICK)


@pytest.mark.slow
def test_two_worlds_in_the_other_120_default_matches() -> None:
    _default_matches(DEFAULT_QUICK, DEFAULT - DEFAULT_QUICK)


def test_two_worlds_with_every_item() -> None:
    """The first 10 of the 40 matches with every item (the other 30: the slow test below)."""
    _matches_with_every_item(0, ITEMS_QUICK)


@pytest.mark.slow
def test_two_worlds_with_every_item_the_other_30_matches() -> None:
    _matches_with_every_item(ITEMS_QUICK, ITEMS - ITEMS_QUICK)


@pytest.mark.slow
def test_two_worlds_in_many_matches() -> None:
    run_information(GAME, 500, first_seed=10_000)
    s = DecoderSettings(items=[ALL_ITEMS, ALL_ITEMS])
    run_information(GAME, 150, s, first_seed=20_000)


def test_twin_keeps_what_the_opponent_and_spectators_know() -> None:
    state = started(seed="twin")
    rng = random.Random(0)
    twin = GAME.twin(state, 0, rng)
    assert twin is not None and twin.seats[0].hand != state.seats[0].hand
    assert twin.chance == state.chance and twin.seats[1] == state.seats[1]
    for viewer in (1, None):
        assert first_difference(observe(GAME, state, [], viewer),
                                observe(GAME, twin, [], viewer)) is None
    assert GAME.twin(GAME.setup(settings(), "tuning"), 0, rng) is None  # nothing dealt yet


# --- Issue 10: whether a player earned extra tiles is private ------------------------------
NO_EXTRAS = [[100] * 7, [100] * 7]
SEVEN_EXTRAS = [[50] * 7, [100] * 7]  # seat 0 earns all seven; seat 1 none in both worlds


def _setup_worlds(timeout_seat0: bool) -> None:
    """Play letter selection in both worlds with the same moves for seat 1 and matching moves
    for seat 0, comparing everything seat 1 and a spectator can observe at every step."""
    worlds = [GAME.setup(settings(t), "earned") for t in (NO_EXTRAS, SEVEN_EXTRAS)]
    for seat in (0, 1):
        events = [submit(w, seat, Ready()) for w in worlds]
    assert [w.seats[0].extra_count for w in worlds] == [0, 7]
    steps = 0
    while all(w.phase == "selection" for w in worlds):
        prompts = [GAME.prompts(w) for w in worlds]
        for viewer in (1, None):
            found = first_difference(observe(GAME, worlds[0], events[0], viewer),
                                     observe(GAME, worlds[1], events[1], viewer))
            assert found is None, f"step {steps}: {found}"
        seat = steps % len(prompts[0])
        seat = prompts[0][seat].seat
        events = []
        for w, ps in zip(worlds, prompts, strict=True):
            p = next(p for p in ps if p.seat == seat)
            me = w.seats[seat]
            if seat == 0 and timeout_seat0:
                command = Timeout(prompt_key=p.key)
            elif p.kind == "rarity":
                c, u, r = rarity_options(me.extra_count)[-1]
                command = ChooseRarities(common=c, uncommon=u, rare=r, elapsed=20.0)
            else:
                command = ChooseHand(letters=tuple(me.setup_letters[-6:]), elapsed=20.0)
            events.append(submit(w, seat, command))
        steps += 1
    assert all(w.phase == "play" for w in worlds) and steps >= 3
    for viewer in (1, None):
        assert first_difference(observe(GAME, worlds[0], events[0], viewer),
                                observe(GAME, worlds[1], events[1], viewer)) is None


def test_both_players_go_through_the_same_setup_steps_whether_or_not_they_earned_tiles() -> None:
    """Same prompts (kinds, clocks), same public events, same views and descriptions; the
    game starts when both are done."""
    _setup_worlds(timeout_seat0=False)


def test_running_out_of_setup_time_looks_the_same_with_or_without_extra_tiles() -> None:
    _setup_worlds(timeout_seat0=True)


def test_views_show_no_hand_before_it_is_chosen_for_either_player() -> None:
    state = GAME.setup(settings(SEVEN_EXTRAS), "views")
    submit(state, 0, Ready())
    submit(state, 1, Ready())
    for viewer in (0, 1, None):
        view = GAME.view(state, viewer)
        assert [p.hand_size for p in view.players] == [None, None]
        assert GAME.describe(state, viewer).count("hand not chosen yet") == 2
