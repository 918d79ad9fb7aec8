"""Property tests of every tournament format over random events: entrant counts 2..33,
random results, walkovers, withdrawals and replacements in random order."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.tournament.formats import FORMATS, format_named
from bot.tournament.formats.swiss import max_rounds

from .driver import check_consistent, play

EVENTS = settings(
    max_examples=40, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow]
)
COUNTS = st.integers(2, 33)
SEEDS = st.integers(0, 2**16)
UPSETS = st.sampled_from([0.0, 0.05, 0.2])


@pytest.mark.parametrize("name", sorted(FORMATS))
@EVENTS
@given(count=COUNTS, seed=SEEDS, ops=SEEDS, upsets=UPSETS)
def test_every_event_finishes_with_one_match_per_player_per_round_and_a_consistent_table(
    name, count, seed, ops, upsets
):
    # play() checks after every step: at most one pairing per place per round, the table
    # complete and consistent, the state unchanged through JSON; and that it finishes
    state = play(format_named(name), count, seed, ops, upsets=upsets)
    check_consistent(format_named(name), state)


@pytest.mark.parametrize("name", sorted(FORMATS))
@settings(max_examples=10, deadline=None, derandomize=True)
@given(count=st.integers(2, 20), seed=SEEDS, ops=SEEDS)
def test_the_same_inputs_give_the_same_pairings(name, count, seed, ops):
    fmt = format_named(name)
    assert play(fmt, count, seed, ops) == play(fmt, count, seed, ops)


@EVENTS
@given(count=COUNTS, seed=SEEDS, ops=SEEDS, upsets=UPSETS)
def test_the_single_elimination_champion_won_every_match_they_played(count, seed, ops, upsets):
    fmt = format_named("single")
    state = play(fmt, count, seed, ops, upsets=upsets)
    champion = fmt.champion(state)
    table = fmt.standings(state)
    if champion is not None:
        assert table[0].player == champion and table[0].rank == 1
        assert table[0].losses == 0
        assert table[1].rank == 2
    assert all(s.out for s in table if s.player != champion)
    assert state.round <= (count - 1).bit_length()


@EVENTS
@given(count=COUNTS, seed=SEEDS, ops=SEEDS, upsets=UPSETS)
def test_a_double_elimination_player_is_out_after_two_losses(count, seed, ops, upsets):
    fmt = format_named("double")
    state = play(fmt, count, seed, ops, upsets=upsets)
    champion = fmt.champion(state)
    for s in fmt.standings(state):
        if s.player == champion:
            assert s.losses <= 1 and s.rank == 1
        else:
            assert s.out
        assert s.losses <= 2


@settings(max_examples=20, deadline=None, derandomize=True)
@given(count=COUNTS, seed=SEEDS, ops=SEEDS)
def test_round_robin_meets_every_pair_of_places_exactly_once(count, seed, ops):
    fmt = format_named("roundrobin")
    state = play(fmt, count, seed, ops)
    cur = state.current
    met = [frozenset((cur(p.player0), cur(p.player1))) for p in state.pairings if p.player1]
    assert len(met) == len(set(met)) == count * (count - 1) // 2
    byes = [cur(p.player0) for p in state.pairings if p.player1 is None]
    assert sorted(byes) == (sorted(state.entrants) if count % 2 else [])


def _has_fresh_pairing(players: list[str], met: set[frozenset[str]]) -> bool:
    """Brute force: can `players` be paired (one bye if odd) with no pair that met before?"""
    if len(players) <= 1:
        return True
    if len(players) % 2:
        return any(
            _has_fresh_pairing(players[:i] + players[i + 1 :], met) for i in range(len(players))
        )
    first, rest = players[0], players[1:]
    return any(
        frozenset((first, other)) not in met
        and _has_fresh_pairing([x for x in rest if x != other], met)
        for other in rest
    )


def _swiss_round_check(before, after, made):
    cur = after.current
    met = {frozenset((cur(p.player0), cur(p.player1))) for p in before.pairings if p.player1}
    for _, group in itertools.groupby(made, key=lambda p: p.round):
        pairings = list(group)
        players = [cur(p.player0) for p in pairings] + [
            cur(p.player1) for p in pairings if p.player1
        ]
        # every player still in is paired, each once, with at most one bye
        assert sorted(players) == sorted(before.active())
        assert sum(p.player1 is None for p in pairings) == len(players) % 2
        pairs = {frozenset((cur(p.player0), cur(p.player1))) for p in pairings if p.player1}
        if pairs & met:
            assert not _has_fresh_pairing(sorted(players), met), "a rematch that was avoidable"
        met |= pairs


@settings(max_examples=120, deadline=None, derandomize=True)
@given(count=st.integers(2, 9), seed=SEEDS, ops=SEEDS, upsets=UPSETS, data=st.data())
def test_swiss_never_repeats_a_pairing_while_a_fresh_one_exists(count, seed, ops, upsets, data):
    rounds = data.draw(st.integers(1, max_rounds(count)))
    play(
        format_named("swiss"),
        count,
        seed,
        ops,
        rounds=rounds,
        upsets=upsets,
        on_round=_swiss_round_check,
    )


@EVENTS
@given(count=st.integers(10, 33), seed=SEEDS, ops=SEEDS)
def test_swiss_pairs_everyone_each_round_in_large_events(count, seed, ops):
    play(format_named("swiss"), count, seed, ops, on_round=_swiss_round_check_large)


def _swiss_round_check_large(before, after, made):
    if not made:
        return
    cur = after.current
    players = [cur(p.player0) for p in made] + [cur(p.player1) for p in made if p.player1]
    assert sorted(players) == sorted(before.active())
