"""What players type: bets, renounce picks in several forms, the starter; refusals teach."""

from __future__ import annotations

import pytest

from games.core.contract import IllegalMove, ParseError
from games.renounce_fate import GAME
from games.renounce_fate.commands import Bet, ChooseStarter, Renounce
from tests.support.games.renounce_fate import bet, new_match, set_deal

SETS = [["R3", "Y3", "R1"], ["Y5", "R5", "Y4"], ["R4", "Y4", "R2"]]


def renouncing():
    state = new_match("grammar")
    set_deal(state, [["R1", "Y1"], ["R2", "Y2"]], SETS)
    bet(state, "raise", 1)
    bet(state, "call")
    return state


@pytest.mark.parametrize("text", ["renounce Y3 set 1", "Y3 1", "🟨3 in set 1", "y3  SET1",
                                  "yellow 3 from set 1", "set 1 yellow 3", "3 yellow, set 1",
                                  "🟡3 #1", "RENOUNCE y3 s1", "renounce 🟨️3 set 1"])
def test_renounce_forms(text):
    state = renouncing()
    assert GAME.parse(state, 0, text) == Renounce(set_no=1, card="Y3")


@pytest.mark.parametrize("text,why", [("Y3", "Name the set"), ("Y3 Y4 1", "exactly one card"),
                                      ("Y7 set 1", "no card Y7"), ("R3 set 1 2", "one set"),
                                      ("blue 3 set 1", "Name the fate card")])
def test_renounce_refusals_say_what_is_wrong(text, why):
    state = renouncing()
    with pytest.raises(ParseError, match=why):
        GAME.parse(state, 0, text)


def test_every_renounce_choice_is_accepted_by_the_parser():
    state = renouncing()
    for prompt in GAME.prompts(state):
        for choice in prompt.choices:
            command = GAME.parse(state, prompt.seat, choice)
            GAME.check(state, prompt.seat, command)


@pytest.mark.parametrize("text,command", [
    ("raise 4", Bet(action="raise", amount=4)), ("Raise4", Bet(action="raise", amount=4)),
    ("fold", Bet(action="fold")), ("F", Bet(action="fold")),
    ("all in", Bet(action="raise", amount=10)),
])
def test_bet_forms(text, command):
    state = new_match("bets")
    assert GAME.parse(state, 0, text) == command


def test_call_and_check_and_the_call_button_text():
    state = new_match("call")
    bet(state, "raise", 2)
    for text in ("call", "CALL", "call 2"):
        assert GAME.parse(state, 1, text) == Bet(action="call")
    [prompt] = GAME.prompts(state)
    assert prompt.choices[0] == "call 2" and prompt.choices[-1] == "fold"
    for choice in prompt.choices:
        GAME.check(state, 1, GAME.parse(state, 1, choice))


def test_bet_refusals():
    state = new_match("bet-refusals")
    with pytest.raises(ParseError, match="How much"):
        GAME.parse(state, 0, "raise")
    with pytest.raises(ParseError, match="whole number"):
        GAME.parse(state, 0, "raise -3")
    with pytest.raises(ParseError, match="call"):
        GAME.parse(state, 0, "hello")
    with pytest.raises(IllegalMove, match="not your turn|not your decision"):
        GAME.check(state, 1, GAME.parse(state, 1, "raise 2"))


def test_starter_choice():
    state = GAME.setup(GAME.settings_model(), "starter")
    assert GAME.parse(state, 0, "me") == ChooseStarter(starter=0)
    assert GAME.parse(state, 0, "opponent") == ChooseStarter(starter=1)
    [prompt] = GAME.prompts(state)
    assert prompt.seat == 0 and prompt.choices == ("me", "opponent") and not prompt.private


# --- issue 29, finding 1: check and call as ruled ------------------------------------------
def test_finding_1_check_facing_a_raise_is_refused_with_the_amount_to_call():
    state = new_match("check-facing")
    bet(state, "raise", 5)
    before = state.model_dump_json()
    for text in ("check", "i check", "checks"):
        with pytest.raises(ParseError, match=r"^5 to call: type call, raise N or fold"):
            GAME.parse(state, 1, text)
    assert state.model_dump_json() == before and state.chips[1] == 29


def test_finding_1_call_with_another_amount_is_refused_with_the_amount_owed():
    state = new_match("call-amount")
    bet(state, "raise", 5)
    for text in ("call 2", "call 9", "call -5", "call 0"):
        with pytest.raises(ParseError, match=r"^5 to call: .*call 5"):
            GAME.parse(state, 1, text)
    assert GAME.parse(state, 1, "call 5") == Bet(action="call")
    assert GAME.parse(state, 1, "call") == Bet(action="call")


def test_finding_1_check_is_the_call_for_0_when_nothing_is_owed():
    from games.core.contract import Timeout
    from games.renounce_fate.state import Phase

    state = new_match("check-capped")
    bet(state, "raise", 10)
    bet(state, "raise", 4)
    bet(state, "call")  # 15 each: the leader of round 2's betting cannot raise
    while state.phase == Phase.RENOUNCE:
        for prompt in GAME.prompts(state):
            GAME.submit(state, prompt.seat, Timeout(prompt_key=prompt.key))
    leader = state.betting.to_act
    assert GAME.parse(state, leader, "check") == Bet(action="call")
    GAME.check(state, leader, GAME.parse(state, leader, "check"))


def test_finding_1_the_opening_leader_cannot_check():
    state = new_match("check-opening")
    with pytest.raises(IllegalMove, match="nothing to call"):
        GAME.check(state, 0, GAME.parse(state, 0, "check"))
