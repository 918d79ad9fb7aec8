"""The formats' rules, one by one, as docs/tournaments.md states them."""

from __future__ import annotations

import pytest

from bot.tournament.formats import FormatError, Pairing, Result, format_named
from bot.tournament.formats.bracket import seed_order

SINGLE = format_named("single")
DOUBLE = format_named("double")
ROBIN = format_named("roundrobin")
SWISS = format_named("swiss")


def names(count):
    return [f"p{i + 1}" for i in range(count)]


def better(p):
    """The better seed of a pairing (names p1, p2, ... in seed order)."""
    return min(p.player0, p.player1, key=lambda n: int(n[1:]))


def worse(p):
    return max(p.player0, p.player1, key=lambda n: int(n[1:]))


def seeds(pairings):
    """Each pairing's players, better seed first (the seats aside)."""
    return [tuple(sorted((p.player0, p.player1 or ""), key=lambda n: int(n[1:] or 99)))
            for p in pairings]


def win(fmt, state, winner_of):
    """Record every pending pairing, the winner chosen by `winner_of(pairing)`."""
    for p in state.pending():
        state = fmt.record(state, Result(pairing=p.id, winner=winner_of(p)))
    return state


def test_format_named_lists_the_valid_names():
    assert format_named(" Swiss ") is SWISS
    with pytest.raises(FormatError, match="single, double, roundrobin, swiss"):
        format_named("ladder")


def test_standard_seeding_pairs_one_with_eight_and_four_with_five():
    assert seed_order(8) == [1, 8, 4, 5, 2, 7, 3, 6]
    state, pairings = SINGLE.next_round(SINGLE.start(names(8), 0))
    assert seeds(pairings) == [("p1", "p8"), ("p4", "p5"), ("p2", "p7"), ("p3", "p6")]
    # seats: the better seed takes seat 0 when their seed is odd (the event's coin: 0)
    assert [(p.player0, p.player1) for p in pairings] == [
        ("p1", "p8"),
        ("p5", "p4"),
        ("p7", "p2"),
        ("p3", "p6"),
    ]


def test_a_bye_goes_to_the_top_seed():
    state, pairings = SINGLE.next_round(SINGLE.start(names(5), 0))
    byes = [p.player0 for p in pairings if p.player1 is None]
    assert byes == ["p1", "p2", "p3"]
    assert all(state.decided(p.id) for p in pairings if p.player1 is None)
    assert [(p.player0, p.player1) for p in state.pending()] == [("p5", "p4")]


def test_the_winners_meet_in_the_next_round_and_the_last_one_is_champion():
    state, _ = SINGLE.next_round(SINGLE.start(names(4), 0))
    state = win(SINGLE, state, worse)  # p4 and p3 win
    state, pairings = SINGLE.next_round(state)
    assert seeds(pairings) == [("p3", "p4")] and pairings[0].round == 2
    state = win(SINGLE, state, better)
    assert SINGLE.finished(state) and SINGLE.champion(state) == "p3"
    assert [(s.rank, s.player) for s in SINGLE.standings(state)] == [
        (1, "p3"),
        (2, "p4"),
        (3, "p1"),
        (3, "p2"),
    ]


def test_an_elimination_match_needs_a_winner():
    state, _ = SINGLE.next_round(SINGLE.start(names(2), 0))
    with pytest.raises(FormatError, match="needs a winner; replay pairing R1-1 or award it"):
        SINGLE.record(state, Result(pairing="R1-1", winner=None))


def test_a_result_is_recorded_once_and_names_a_player_of_the_pairing():
    state, _ = SINGLE.next_round(SINGLE.start(names(2), 0))
    with pytest.raises(FormatError, match="p3 is not in pairing R1-1"):
        SINGLE.record(state, Result(pairing="R1-1", winner="p3"))
    with pytest.raises(FormatError, match="no pairing 'R9-9'"):
        SINGLE.record(state, Result(pairing="R9-9", winner="p1"))
    state = SINGLE.record(state, Result(pairing="R1-1", winner="p1"))
    with pytest.raises(FormatError, match="already decided"):
        SINGLE.record(state, Result(pairing="R1-1", winner="p2"))


def test_a_withdrawn_player_loses_their_match_by_walkover_and_plays_no_more():
    state, _ = SINGLE.next_round(SINGLE.start(names(4), 0))
    state = SINGLE.withdraw(state, "p4")  # p1 v p4 is pending
    walkover = state.results["R1-1"]
    assert walkover.winner == "p1" and walkover.walkover
    state = SINGLE.withdraw(state, "p1")  # p1 won, then left: p2/p3's winner gets a bye
    state = win(SINGLE, state, better)
    state, pairings = SINGLE.next_round(state)
    assert [(p.player0, p.player1) for p in pairings] == [("p2", None)]
    assert SINGLE.finished(state) and SINGLE.champion(state) == "p2"
    with pytest.raises(FormatError, match="p1 is not playing"):
        SINGLE.withdraw(state, "p1")


def test_a_substitute_takes_over_the_place_and_its_record():
    state, _ = SINGLE.next_round(SINGLE.start(names(4), 0))
    state = SINGLE.record(state, Result(pairing="R1-1", winner="p1"))
    state = SINGLE.replace(state, "p1", "sub")
    state = SINGLE.replace(state, "p2", "sub2")  # p2's pending match goes to sub2
    assert "sub2" in (state.pairing("R1-2").player0, state.pairing("R1-2").player1)
    assert "p1" in (state.pairing("R1-1").player0, state.pairing("R1-1").player1)  # as played
    state = win(SINGLE, state, lambda p: "sub2" if "sub2" in (p.player0, p.player1) else None)
    state, pairings = SINGLE.next_round(state)
    assert sorted([pairings[0].player0, pairings[0].player1]) == ["sub", "sub2"]
    line = next(s for s in SINGLE.standings(state) if s.player == "sub")
    assert line.wins == 1
    with pytest.raises(FormatError, match="never held a place"):
        SINGLE.replace(state, "sub", "p1")
    state = SINGLE.withdraw(state, "sub")
    with pytest.raises(FormatError, match="has withdrawn"):
        SINGLE.replace(state, "sub", "new")


def test_only_swiss_takes_a_number_of_rounds():
    with pytest.raises(FormatError, match="leave the number of rounds out"):
        ROBIN.start(names(4), 0, rounds=2)
    with pytest.raises(FormatError, match="1 to 3 rounds"):
        SWISS.start(names(4), 0, rounds=4)
    assert SWISS.start(names(5), 0).rounds == 3  # ceil(log2 5)


def test_an_event_needs_two_distinct_entrants():
    with pytest.raises(FormatError, match="at least 2 entrants"):
        SWISS.start(["p1"], 0)
    with pytest.raises(FormatError, match="p1 entered more than once"):
        SWISS.start(["p1", "p2", "p1"], 0)


def test_a_stored_event_loads_only_with_its_own_format():
    data = SWISS.start(names(4), 0).model_dump(mode="json")
    assert SWISS.load(data) == SWISS.start(names(4), 0)
    with pytest.raises(FormatError, match="is 'swiss', not 'single'"):
        SINGLE.load(data)


def test_double_elimination_losers_drop_to_the_losers_bracket():
    state, _ = DOUBLE.next_round(DOUBLE.start(names(4), 0))
    state = win(DOUBLE, state, better)  # p1, p2 win; p4, p3 drop
    state, pairings = DOUBLE.next_round(state)
    assert sorted((p.bracket, *sorted((p.player0, p.player1))) for p in pairings) == [
        ("losers", "p3", "p4"),
        ("winners", "p1", "p2"),
    ]


def test_the_grand_final_is_one_match_with_no_bracket_reset():
    state = DOUBLE.start(names(2), 0)
    state, _ = DOUBLE.next_round(state)
    state = win(DOUBLE, state, better)  # p1 beats p2
    state, pairings = DOUBLE.next_round(state)
    # seats: p1 had seat 0, p2 seat 1: each prefers the other seat now (both granted)
    assert [(p.id, p.bracket, p.player0, p.player1) for p in pairings] == [
        ("GF", "final", "p2", "p1"),
    ]
    state = win(DOUBLE, state, worse)  # p2 wins the grand final
    assert DOUBLE.finished(state) and DOUBLE.champion(state) == "p2"
    assert DOUBLE.next_round(state)[1] == []


def test_round_robin_with_an_odd_count_gives_one_bye_per_round():
    state = ROBIN.start(names(5), 0)
    byes = []
    while not ROBIN.finished(state):
        state, pairings = ROBIN.next_round(state)
        assert sum(p.player1 is None for p in pairings) == 1
        byes += [p.player0 for p in pairings if p.player1 is None]
        state = win(ROBIN, state, lambda p: None)  # all drawn
    assert sorted(byes) == names(5) and state.round == 5
    assert all(s.points == 2.0 for s in ROBIN.standings(state))  # a bye is worth nothing


def test_a_round_robin_withdrawal_loses_every_later_match_by_walkover():
    state, _ = ROBIN.next_round(ROBIN.start(names(4), 0))
    state = ROBIN.withdraw(state, "p4")
    state = win(ROBIN, state, lambda p: p.player0)
    state, pairings = ROBIN.next_round(state)
    with_p4 = [p for p in pairings if "p4" in (p.player0, p.player1)]
    assert len(with_p4) == 1 and state.results[with_p4[0].id].walkover


def test_swiss_points_are_win_one_draw_half_bye_one():
    state, pairings = SWISS.next_round(SWISS.start(names(5), 0, rounds=1))
    # the Dutch system: top half v bottom half (1 v 3, 2 v 4), the bye to the last
    assert [(p.player0, p.player1) for p in pairings] == [("p1", "p3"), ("p4", "p2"), ("p5", None)]
    state = SWISS.record(state, Result(pairing="r1m1", winner="p3"))
    state = SWISS.record(state, Result(pairing="r1m2", winner=None))
    table = {s.player: s.points for s in SWISS.standings(state)}
    assert table == {"p1": 0.0, "p3": 1.0, "p2": 0.5, "p4": 0.5, "p5": 1.0}
    assert SWISS.finished(state)


def test_swiss_pairs_equal_points_and_gives_the_bye_to_the_lowest_ranked_without_one():
    state, _ = SWISS.next_round(SWISS.start(names(5), 0, rounds=3))
    state = win(SWISS, state, better)  # p1, p2 win; p5 had the bye
    state, pairings = SWISS.next_round(state)
    # p1, p2, p5 on 1 point: p1 v p2 (top half v bottom half), p5 floats down to the top
    # of p3, p4 (on 0); the bye goes to p4 (lowest, no bye yet). Seats: p1 had seat 0 and
    # p2 seat 1, so each gets the other; p3 had seat 1, p5 none.
    assert [(p.player0, p.player1) for p in pairings] == [("p2", "p1"), ("p3", "p5"), ("p4", None)]


def played(fmt, count, games):
    """A state with these games played: (player0, player1, winner or None for a draw)."""
    state = fmt.start(names(count), 0)
    for i, (a, b, winner) in enumerate(games):
        pid = f"g{i + 1}"
        state = state.model_copy(
            update={
                "pairings": [*state.pairings, Pairing(id=pid, round=i + 1, player0=a, player1=b)]
            }
        )
        state = fmt.record(state, Result(pairing=pid, winner=winner))
    return state


def order(fmt, state):
    return [s.player for s in fmt.standings(state)]


def test_swiss_ties_are_broken_by_buchholz_first():
    games = [("p1", "p3", "p1"), ("p2", "p3", "p2"), ("p3", "p4", "p3"), ("p2", "p4", "p2")]
    state = played(SWISS, 4, games)
    # p3 and p1 have 1 point; p3 met p1, p2 and p4 (Buchholz 3), p1 met p3 only (1), though
    # p1's Sonneborn-Berger (1: beat p3) is higher than p3's (0: beat p4, on 0)
    assert [(s.player, s.points, s.tiebreaks[:2]) for s in SWISS.standings(state)] == [
        ("p2", 2.0, (1.0, 1.0)),
        ("p3", 1.0, (3.0, 0.0)),
        ("p1", 1.0, (1.0, 1.0)),
        ("p4", 0.0, (3.0, 0.0)),
    ]


# four players who all met: p1 and p2 on 2 points, p4 and p3 on 1 (p4 beat p1, p3 beat p4)
ALL_MET = [
    ("p4", "p1", "p4"),
    ("p3", "p4", "p3"),
    ("p2", "p4", "p2"),
    ("p1", "p3", "p1"),
    ("p2", "p3", "p2"),
    ("p1", "p2", "p1"),
]


def test_swiss_ties_are_broken_by_sonneborn_berger_after_buchholz():
    state = played(SWISS, 4, ALL_MET)
    # all met all: equal points give equal Buchholz; p4 beat p1 (2), p3 beat p4 (1)
    table = SWISS.standings(state)
    assert [(s.player, s.points, s.tiebreaks[:2]) for s in table] == [
        ("p1", 2.0, (4.0, 3.0)),
        ("p2", 2.0, (4.0, 2.0)),
        ("p4", 1.0, (5.0, 2.0)),
        ("p3", 1.0, (5.0, 1.0)),
    ]


def test_swiss_ties_are_broken_by_head_to_head_then_seed():
    games = [("p4", "p5", "p4"), ("p1", "p5", None), ("p2", "p3", None)]
    state = played(SWISS, 5, games)
    # p1, p2, p3: 0.5 points, Buchholz 0.5, Sonneborn-Berger 0.25; p2 and p3 scored 0.5
    # against the others of that group, p1 nothing; p2 before p3 by seed
    assert order(SWISS, state) == ["p4", "p5", "p2", "p3", "p1"]
    assert [s.rank for s in SWISS.standings(state)] == [1, 2, 3, 4, 5]


def test_round_robin_ties_are_broken_by_sonneborn_berger_then_head_to_head():
    state = played(ROBIN, 4, ALL_MET)
    # p4 beat p1 (2 points), p3 beat p4 (1): p4 first, though p3 won their game;
    # head-to-head counts only among players level on everything before it (none here)
    assert [(s.player, s.tiebreaks) for s in ROBIN.standings(state)] == [
        ("p1", (3.0, 0.0)),
        ("p2", (2.0, 0.0)),
        ("p4", (2.0, 0.0)),
        ("p3", (1.0, 0.0)),
    ]
