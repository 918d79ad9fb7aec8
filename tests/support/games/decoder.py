"""Shared set-ups for the Decoder tests: matches driven through the engine, with chosen hands."""

from __future__ import annotations

from games.core.contract import Command
from games.decoder import GAME
from games.decoder.commands import (
    ChooseClue,
    ChooseHand,
    ChooseRarities,
    GuessTotal,
    Ready,
    TakeTurn,
)
from games.decoder.rules import rarity_options
from games.decoder.settings import DecoderSettings, Items
from games.decoder.state import DecoderState

NAMES = ["Arithmetic Box", "Bijective Matrix", "Cipher Wheel", "Domino Grid", "Encrypted Image",
         "Folding Map", "Gear Train"]
# Equal times: no extra tiles, so hands are the initial deals.
EVEN = [[100] * 7, [100] * 7]


def settings(times: list[list[int]] | None = None, items: tuple[Items, Items] | None = None,
             **kw: object) -> DecoderSettings:
    """Test settings; setup locks once both say ready (the house option: by default only the
    host locks), so a test can get past tuning with two `Ready` commands."""
    kw.setdefault("lock_when_ready", True)
    return DecoderSettings(times=times or EVEN, items=list(items or (Items(), Items())), **kw)


def submit(state: DecoderState, seat: int, command: Command) -> list:
    GAME.check(state, seat, command)
    return GAME.apply(state, seat, command)


def started(s: DecoderSettings | None = None, seed: str = "t") -> DecoderState:
    """A match past setup: both ready, first rarity options, first six tiles kept (every player
    goes through both steps, extra tiles or not)."""
    state = GAME.setup(s or settings(), seed)
    for seat in (0, 1):
        submit(state, seat, Ready())
    for seat in (0, 1):
        me = state.seats[seat]
        c, u, r = rarity_options(me.extra_count)[0]
        submit(state, seat, ChooseRarities(common=c, uncommon=u, rare=r))
        submit(state, seat, ChooseHand(letters=tuple(me.setup_letters[:6])))
    assert state.phase == "play"
    return state


def set_hands(state: DecoderState, hand0: str, hand1: str) -> None:
    """Give each seat a chosen hand (as if dealt so): setup tiles = hand."""
    for seat, hand in ((0, hand0), (1, hand1)):
        me = state.seats[seat]
        me.initial = sorted(hand)
        me.extras = []
        me.hand = sorted(hand)
        me.private_letters = sorted(hand)


def ask(state: DecoderState, seat: int, tank: str, word: str, exclude: str = "ANY",
        clue: str | None = None) -> list:
    events = submit(state, seat, TakeTurn(tank=tank, action="ask", word=word, exclude=exclude))
    if clue is not None:
        events += submit(state, 1 - seat, ChooseClue(clue=clue))
    return events


def texts(events: list, audience: str = "public") -> str:
    return "\n".join(e.text for e in events if str(e.audience) == audience)


def pass_turn(state: DecoderState) -> None:
    """The active seat restores with its first unused tank; a total guess, if any, is 0 (wrong)."""
    seat = state.active
    assert seat is not None and state.step == "turn"
    tank = state.seats[seat].unused()[0].name
    submit(state, seat, TakeTurn(tank=tank, action="restore"))
    if state.step == "guess_total":
        submit(state, 1 - seat, GuessTotal(total=0))
    assert state.step == "turn"
