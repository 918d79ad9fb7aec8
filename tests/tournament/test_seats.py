"""Seat 0 is the advantage in every game: every format gives it as chess gives White
(docs/tournaments.md, "Seats"), for every count of entrants from 2 to 33."""

from __future__ import annotations

import random

import pytest

from bot.tournament.formats import FormatState, Pairing, Result, format_named
from bot.tournament.formats.seats import ABSOLUTE, histories, preference

COUNTS = range(2, 34)


def played_out(name: str, count: int, seed: int) -> FormatState:
    """A whole event with random results (draws where the format takes them)."""
    fmt = format_named(name)
    rng = random.Random(seed * 100 + count)
    state = fmt.start([f"p{i + 1}" for i in range(count)], seed)
    while True:
        state, pairings = fmt.next_round(state)
        if not pairings:
            return state
        for p in state.pending():
            roll = rng.random()
            winner = p.player0 if roll < 0.45 else p.player1
            if roll > 0.9 and fmt.allows_draws:
                winner = None
            state = fmt.record(state, Result(pairing=p.id, winner=winner))


def difference(seats: str) -> int:
    return seats.count("0") - seats.count("1")


@pytest.mark.parametrize("count", COUNTS)
def test_round_robin_seats_follow_berger_tables(count: int) -> None:
    state = played_out("roundrobin", count, 1)
    for name, seats in histories(state).items():
        assert abs(difference(seats)) <= 1, (name, seats)


#: Swiss events of every size are played with three seeds: the first in the quick pure tier,
#: the other two marked slow (the whole suite plays all three). A 33-player event takes
#: about 0.5 s a seed (its pairings are maximum-weight matchings), 26 s for all three.
SWISS_SEEDS = (1, *(pytest.param(seed, marks=pytest.mark.slow) for seed in (2, 3)))


@pytest.mark.parametrize("seed", SWISS_SEEDS)
@pytest.mark.parametrize("count", COUNTS)
def test_swiss_keeps_fides_absolute_colour_rules(count: int, seed: int) -> None:
    state = played_out("swiss", count, seed)
    for name, seats in histories(state).items():
        assert abs(difference(seats)) <= 2, (name, seats)
        assert "000" not in seats and "111" not in seats, (name, seats)


@pytest.mark.parametrize("name", ["single", "double"])
@pytest.mark.parametrize("count", COUNTS)
def test_elimination_seats_follow_the_colour_rules(name: str, count: int) -> None:
    """An elimination match cannot choose its players: an absolute preference gives way
    only to the opponent's absolute preference for the same seat; otherwise every
    preference the rules grant is granted."""
    for seed in (1, 2):
        state = played_out(name, count, seed)
        seen = {n: "" for n in state.entrants}
        for p in state.pairings:
            result = state.results[p.id]
            if p.player1 is None or result.walkover:
                continue
            for me, other, seat in ((p.player0, p.player1, 0), (p.player1, p.player0, 1)):
                mine, theirs = preference(seen[me]), preference(seen[other])
                if mine.strength == ABSOLUTE and mine.seat != seat:
                    assert theirs.strength == ABSOLUTE and theirs.seat == mine.seat, (p, seen)
                if mine.seat is not None and mine.seat != seat:
                    assert theirs.seat == mine.seat, (p, seen)  # both wanted it
            seen[p.player0] += "0"
            seen[p.player1] += "1"
        assert seen == histories(state)


def test_seat_zero_is_not_the_better_seed_s_by_default() -> None:
    """The old rule gave seat 0 to the better-placed player in every match."""
    for name in ("single", "double", "roundrobin", "swiss"):
        state = played_out(name, 8, 4)
        ranks = {n: i for i, n in enumerate(state.entrants)}
        played = [p for p in state.pairings if p.player1 is not None]
        better_first = sum(ranks[p.player0] < ranks[p.player1] for p in played)
        assert 0.25 < better_first / len(played) < 0.75, (name, better_first, len(played))


def test_swiss_pairs_the_two_unbeaten_leaders_in_the_last_round() -> None:
    """Six players (Cal, Bea, Dot, Ada, Eli, Fay in seed order); round 1 winners Cal, Ada,
    Fay; round 2 winners Cal, Fay, Dot: round 3 must pair Cal with Fay (the top score
    group paired within itself, as the Dutch system pairs it), not leave two on 3-0."""
    swiss = format_named("swiss")
    state = swiss.start(["Cal", "Bea", "Dot", "Ada", "Eli", "Fay"], 0, rounds=3)
    games = [(1, "Cal", "Bea", "Cal"), (1, "Dot", "Ada", "Ada"), (1, "Eli", "Fay", "Fay"),
             (2, "Cal", "Ada", "Cal"), (2, "Fay", "Bea", "Fay"), (2, "Dot", "Eli", "Dot")]
    for i, (number, a, b, winner) in enumerate(games):
        pairing = Pairing(id=f"r{number}m{i % 3 + 1}", round=number, player0=a, player1=b)
        state = state.model_copy(update={"pairings": [*state.pairings, pairing],
                                         "round": number})
        state = swiss.record(state, Result(pairing=pairing.id, winner=winner))
    state, pairings = swiss.next_round(state)
    pairs = {frozenset((p.player0, p.player1)) for p in pairings}
    assert frozenset(("Cal", "Fay")) in pairs, pairs


def test_swiss_floats_as_few_as_possible_out_of_the_top_group_first() -> None:
    """Two floats either way, but the Dutch system pairs the top score group within itself
    first: A-B and C-D, not A-C with B and D floating down."""
    from bot.tournament.formats.dutch import pair_round

    met = {frozenset(p) for p in (("A", "D"), ("A", "F"), ("B", "D"), ("B", "E"), ("C", "E"),
                                  ("C", "G"), ("C", "H"), ("D", "H"), ("E", "F"))}
    pairs = pair_round(list("ABCDEFGH"), [2, 2, 2, 2, 1, 1, 0, 0], met, set(), {}, 0)
    assert {frozenset(p) for p in pairs} == {frozenset(p) for p in ("AB", "CD", "EG", "FH")}
