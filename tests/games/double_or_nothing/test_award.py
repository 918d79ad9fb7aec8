"""Seed (timing): no penalty for going over the time; the hosts may award the bout or the match."""

import pytest

from games.core import IllegalMove, ParseError
from games.double_or_nothing import GAME
from tests.support.games.double_or_nothing import new, say


def test_hosts_can_award_the_running_bout_at_its_stake():
    state = new("award", target=3)
    assert GAME.host_award_units(state) == ()  # bout 1 has not started: only the match
    say(state, 0, "I start")
    assert GAME.host_award_units(state) == ("bout",)
    command = GAME.host_award(state, 1, "bout", "seat 0 did not move for 10 minutes")
    GAME.check(state, 1, command)  # whoever's move is pending
    events = GAME.apply(state, 1, command)
    assert state.score == [0, 1] and state.bout == 2
    assert any("award bout 1 to {P1}" in e.text for e in events)
    assert state.starter == 0  # the loser of the awarded bout starts the next


def test_only_a_running_bout_can_be_awarded():
    state = new("award-early")
    with pytest.raises(IllegalMove, match="No bout is running"):
        GAME.host_award(state, 0, "bout", "")
    with pytest.raises(IllegalMove, match="not 'round'"):
        say(state, 0, "I start")
        GAME.host_award(state, 0, "round", "")


def test_players_cannot_type_an_award():
    state = new("award-typed")
    say(state, 0, "I start")
    for text in ("award bout", "award_bout", "award me the bout"):
        with pytest.raises(ParseError):
            GAME.parse(state, 0, text)
