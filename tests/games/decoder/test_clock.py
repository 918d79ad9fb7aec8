"""Turn timers and time banks (ADMINISTRATION: Timing), at engine level: the runtime reports how
long a decision took in `command.elapsed` and sends Timeout when the timer and bank ran out."""

from __future__ import annotations

import pytest

from games.core.contract import OnTimeout, Timeout
from games.decoder import GAME, rules
from games.decoder.commands import ChooseClue, TakeTurn
from tests.support.games.decoder import set_hands, settings, started, submit, texts


@pytest.mark.parametrize(("elapsed", "charge"), [(None, 0), (0, 0), (90, 0), (90.2, 5), (95, 5),
                                                 (95.01, 10), (150, 60), (390, 300)])
def test_bank_is_charged_in_whole_5_second_steps_rounded_up(elapsed, charge) -> None:
    assert rules.bank_charge(elapsed, 90, 5) == charge


def test_prompts_carry_turn_timer_bank_and_reminders() -> None:
    state = started()
    (p,) = GAME.prompts(state)
    assert (p.seat, p.kind, p.private) == (0, "turn", False)
    assert p.time_limit == 90 and p.bank == 300 and p.bank_step == 5
    assert p.reminders == (30, 15, 5) and p.bank_reminder_every == 30
    assert p.on_timeout == OnTimeout.LOSE
    submit(state, 0, TakeTurn(tank="Arithmetic Box", action="ask", word="DECODER", exclude="ANY"))
    (r,) = GAME.prompts(state)
    assert (r.seat, r.kind, r.time_limit, r.bank, r.on_timeout) == (1, "clue", 60, 300, OnTimeout.LOSE)


def test_active_player_over_90_seconds_uses_the_bank() -> None:
    state = started()
    events = submit(state, 0, TakeTurn(tank="Arithmetic Box", action="ask", word="DECODER",
                                       exclude="ANY", elapsed=101.0))
    assert state.seats[0].bank == 285  # 11 s over -> 15 s
    assert "used 15 s of their time bank (285 s left)" in texts(events)
    assert GAME.view(state, 1).players[0].bank == 285  # banks are public
    assert GAME.view(state, None).players[0].bank == 285


def test_responder_over_60_seconds_uses_the_bank_and_within_does_not() -> None:
    state = started()
    submit(state, 0, TakeTurn(tank="Arithmetic Box", action="ask", word="DECODER", exclude="ANY",
                              elapsed=89.9))
    assert state.seats[0].bank == 300
    submit(state, 1, ChooseClue(clue="ODD", elapsed=61.0))
    assert state.seats[1].bank == 295


def test_bank_exhausted_by_elapsed_loses() -> None:
    state = started(settings(time_bank=10))
    submit(state, 0, TakeTurn(tank="Arithmetic Box", action="ask", word="DECODER", exclude="ANY",
                              elapsed=100.0))
    assert state.seats[0].bank == 0 and state.phase == "play"
    events = submit(state, 1, ChooseClue(clue="ODD", elapsed=71.0))  # 11 s over, 10 s of bank
    assert state.phase == "over" and GAME.outcome(state).winner == 0
    assert "ran out of time" in texts(events)


def test_timeout_of_the_active_player_loses() -> None:
    state = started()
    key = GAME.prompts(state)[0].key
    with pytest.raises(Exception, match="not pending"):
        GAME.check(state, 1, Timeout(prompt_key=key))  # not that seat's prompt
    submit(state, 0, Timeout(prompt_key=key))
    out = GAME.outcome(state)
    assert out is not None and out.winner == 1 and state.seats[0].bank == 0
    assert GAME.prompts(state) == []


def test_timeout_of_the_responding_player_loses() -> None:
    state = started()
    old = GAME.prompts(state)[0].key
    submit(state, 0, TakeTurn(tank="Arithmetic Box", action="ask", word="DECODER", exclude="ANY"))
    with pytest.raises(Exception, match="not pending"):
        GAME.check(state, 0, Timeout(prompt_key=old))  # a stale timer does nothing
    (p,) = GAME.prompts(state)
    submit(state, 1, Timeout(prompt_key=p.key))
    assert GAME.outcome(state).winner == 0


def test_timeout_of_a_private_swap_loses_too() -> None:
    from games.decoder.commands import GiveUp
    state = started()
    set_hands(state, "ABCDEF", "GHIJKL")
    submit(state, 0, TakeTurn(tank="Arithmetic Box", action="guess", letter="Z"))
    submit(state, 0, GiveUp(letter="A"))
    (p,) = GAME.prompts(state)
    assert p.kind == "swap" and p.private and p.on_timeout == OnTimeout.LOSE
    submit(state, 1, Timeout(prompt_key=p.key))
    assert GAME.outcome(state).winner == 0


def test_setup_timeouts_apply_the_defaults() -> None:
    from games.decoder.commands import ChooseRarities, Ready
    times = [[20] * 7, [100] * 7]  # seat 0 earns 7 extras
    state = GAME.setup(settings(times), "setup-timeouts")
    (t0, t1) = GAME.prompts(state)
    assert t0.time_limit is None and t0.on_timeout == OnTimeout.DEFAULT  # until the host locks
    submit(state, 0, Timeout(prompt_key=t0.key))
    submit(state, 1, Ready())
    assert state.phase == "tuning"  # ready locks nothing; the host's lock does
    submit(state, 1, Timeout(prompt_key=t1.key))
    assert state.phase == "selection"
    rarity, other = GAME.prompts(state)
    assert rarity.kind == other.kind == "rarity" and rarity.time_limit == other.time_limit == 180
    assert rarity.private
    submit(state, 0, ChooseRarities(common=3, uncommon=3, rare=1, elapsed=100.0))
    hand, other = GAME.prompts(state)
    assert hand.kind == "hand" and hand.time_limit == 80  # 3 minutes for the whole selection
    tiles = state.seats[0].setup_letters
    submit(state, 0, Timeout(prompt_key=hand.key))
    assert state.seats[0].hand == sorted(tiles[:6]) == sorted(state.seats[0].initial)
    submit(state, 1, Timeout(prompt_key=other.key))  # the default rarity and hand at once
    assert state.seats[1].hand == state.seats[1].initial
    assert state.phase == "play"


# --- Ruling: the turn timer is a budget per turn ------------------------------------------
def test_the_active_players_90_s_cover_all_their_decisions_in_the_turn() -> None:
    """A guesser who takes 89 s to guess has 1 s left to give up a letter, not a fresh 90 s."""
    from games.decoder.commands import GiveUp
    state = started()
    set_hands(state, "ABCDEF", "GHIJKL")
    submit(state, 0, TakeTurn(tank="Arithmetic Box", action="guess", letter="Z", elapsed=89.0))
    (p,) = GAME.prompts(state)
    assert (p.kind, p.time_limit, p.bank) == ("give_up", 1.0, 300)
    submit(state, 0, GiveUp(letter="A", elapsed=11.0))  # 100 s in all: 10 s over
    assert state.seats[0].bank == 290


def test_a_bank_step_already_paid_is_not_charged_twice() -> None:
    from games.decoder.commands import GiveUp
    state = started()
    set_hands(state, "ABCDEF", "GHIJKL")
    submit(state, 0, TakeTurn(tank="Arithmetic Box", action="guess", letter="Z", elapsed=92.0))
    assert state.seats[0].bank == 295  # 2 s over: one 5 s step
    (p,) = GAME.prompts(state)
    assert p.time_limit == 3.0  # the rest of the step already paid for
    submit(state, 0, GiveUp(letter="A", elapsed=2.0))
    assert state.seats[0].bank == 295


def test_the_opponents_60_s_cover_all_their_decisions_and_each_turn_starts_afresh() -> None:
    from games.decoder.commands import GuessTotal
    state = started()
    for name in ("Arithmetic Box", "Bijective Matrix"):
        state.seats[0].tank(name).used = True
    submit(state, 0, TakeTurn(tank="Cipher Wheel", action="restore"))
    total = sum(state.seats[0].tank(n).units for n in ("Arithmetic Box", "Bijective Matrix"))
    submit(state, 1, GuessTotal(total=total, elapsed=45.0))
    (p,) = GAME.prompts(state)
    assert (p.seat, p.kind, p.time_limit) == (1, "sabotage_tank", 15.0)
    from games.decoder.commands import SabotageTank
    submit(state, 1, SabotageTank(tank="Arithmetic Box", elapsed=20.0))  # 65 s: 5 s over
    assert state.seats[1].bank == 295
    (nxt,) = GAME.prompts(state)
    budget = 90 if nxt.seat == state.active else 60
    assert nxt.time_limit == budget  # a new turn: a fresh budget


def test_unexpected_sabotage_is_offered_never_required_silence_is_pass() -> None:
    """Ruling: the question runs on the holder's remaining turn budget without the time bank,
    and at its limit the answer is "pass"."""
    from games.decoder.settings import Items
    state = started(settings(items=(Items(), Items(unexpected_sabotage=1))))
    submit(state, 0, TakeTurn(tank="Arithmetic Box", action="restore"))  # nothing to restore
    (p,) = GAME.prompts(state)
    assert (p.seat, p.kind, p.time_limit, p.bank) == (1, "sabotage_option", 60, None)
    assert p.on_timeout == OnTimeout.DEFAULT and p.timeout_text == "you pass"
    events = submit(state, 1, Timeout(prompt_key=p.key))
    assert GAME.outcome(state) is None and state.seats[1].bank == 300
    assert "{P1} passes." in texts(events)
    assert state.seats[1].items.unexpected_sabotage == 1 and state.step == "turn"
