"""Issue 29 finding 5: Decoder's setup as ruled. The room learns nothing of a player's setup
steps (so an instant `none` shows nothing), only that setup is over; a choice that arrives
after the setup clock is refused and the default applies; `ready` locks nothing by default,
and locking when both are ready is a house option."""

from __future__ import annotations

import pytest

from games.core.contract import IllegalMove, Timeout
from games.decoder import GAME
from games.decoder.commands import ChooseHand, ChooseRarities, Ready
from games.decoder.rules import rarity_options
from games.decoder.settings import DecoderSettings
from tests.support.games.decoder import settings, submit, texts

SEVEN_EXTRAS = [[50] * 7, [100] * 7]  # seat 0 earns seven extra tiles, seat 1 none


def _selection(seed: str = "setup") -> object:
    state = GAME.setup(settings(SEVEN_EXTRAS), seed)
    submit(state, 0, Ready())
    submit(state, 1, Ready())
    assert state.phase == "selection"
    return state


def test_finding_5_no_setup_step_is_announced_only_that_setup_is_over():
    state = _selection()
    public: list[str] = []
    events = submit(state, 1, ChooseRarities())  # `none` at once: no extra tiles
    public.append(texts(events))
    events = submit(state, 1, ChooseHand(letters=tuple(state.seats[1].setup_letters[:6])))
    public.append(texts(events))
    assert public == ["", ""]  # nothing of seat 1's steps reaches the room
    c, u, r = rarity_options(state.seats[0].extra_count)[0]
    assert texts(submit(state, 0, ChooseRarities(common=c, uncommon=u, rare=r))) == ""
    events = submit(state, 0, ChooseHand(letters=tuple(state.seats[0].setup_letters[:6])))
    assert texts(events) == "Setup is over: the match begins. {P0} makes the first turn."


def test_finding_5_the_second_setup_step_is_quiet():
    """Reaching the hand step is not announced in the room ("waiting for ..."), nor seen by
    the opponent in the two-world harness (Prompt.quiet)."""
    state = _selection("quiet")
    submit(state, 1, ChooseRarities())
    kinds = {(p.seat, p.kind): p.quiet for p in GAME.prompts(state)}
    assert kinds == {(0, "rarity"): False, (1, "hand"): True}


def test_finding_5_a_choice_after_the_setup_clock_is_refused_and_the_default_applies():
    state = _selection("late")
    [prompt] = [p for p in GAME.prompts(state) if p.seat == 0]
    limit = prompt.time_limit
    c, u, r = rarity_options(state.seats[0].extra_count)[-1]
    late = ChooseRarities(common=c, uncommon=u, rare=r, elapsed=limit + 0.5)
    before = state.model_dump_json()
    with pytest.raises(IllegalMove, match="setup time ran out before this choice arrived"):
        GAME.check(state, 0, late)
    assert state.model_dump_json() == before
    in_time = ChooseRarities(common=c, uncommon=u, rare=r, elapsed=limit - 0.5)
    GAME.check(state, 0, in_time)  # just inside the clock: taken
    events = submit(state, 0, Timeout(prompt_key=prompt.key))  # the clock's own default
    first = rarity_options(state.seats[0].extra_count)[0]
    assert state.seats[0].rarities == first and state.seats[0].hand_chosen
    assert "setup time ran out" in texts(events, "seat0") and texts(events) == ""


def test_finding_5_ready_locks_nothing_by_default():
    assert DecoderSettings().lock_when_ready is False
    state = GAME.setup(DecoderSettings(), "ready")
    events = submit(state, 0, Ready()) + submit(state, 1, Ready())
    assert state.phase == "tuning" and not any(s.locked for s in state.seats)
    assert "setup is locked." not in texts(events) and "Letter selection" not in texts(events)
    for p in GAME.prompts(state):  # the host's lock (every clock ended) starts selection
        submit(state, p.seat, Timeout(prompt_key=p.key))
    assert state.phase == "selection"


def test_finding_5_locking_when_both_are_ready_is_a_house_option():
    state = GAME.setup(DecoderSettings(lock_when_ready=True), "house")
    submit(state, 0, Ready())
    assert state.phase == "tuning"
    submit(state, 1, Ready())
    assert state.phase == "selection"
