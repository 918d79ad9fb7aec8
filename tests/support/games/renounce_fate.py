"""Shared helpers for the Renounce Fate tests: build states by hand, play bots."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from games.core.contract import Command, Event
from games.renounce_fate import GAME, RenounceFateSettings
from games.renounce_fate.commands import Bet, ChooseStarter, Renounce
from games.renounce_fate.state import FateSet, RenounceFateState


def new_match(seed: str = "t", starter: int = 0, **settings: Any) -> RenounceFateState:
    """A match with round 1 dealt (`starter` chosen by the advantage holder)."""
    state = GAME.setup(RenounceFateSettings(**settings), seed)
    GAME.submit(state, 0, ChooseStarter(starter=starter))
    return state


def set_deal(state: RenounceFateState, hands: Sequence[Sequence[str]],
             sets: Sequence[Sequence[str]]) -> None:
    """Replace the round's deal (the unused cards become the rest of the deck)."""
    from collections import Counter

    from games.renounce_fate.cards import DECK

    state.hands = [list(h) for h in hands]
    state.sets = [FateSet(dealt=list(s), remaining=list(s)) for s in sets]
    used = Counter(c for h in hands for c in h) + Counter(c for s in sets for c in s)
    state.unused = list((Counter(DECK) - used).elements())


def do(state: RenounceFateState, seat: int, command: Command) -> list[Event]:
    return GAME.submit(state, seat, command)


def bet(state: RenounceFateState, action: str, amount: int = 0) -> list[Event]:
    assert state.betting is not None
    return do(state, state.betting.to_act, Bet(action=action, amount=amount))  # type: ignore[arg-type]


def renounce_both(state: RenounceFateState, pick0: tuple[int, str],
                  pick1: tuple[int, str]) -> list[Event]:
    ev = do(state, 0, Renounce(set_no=pick0[0], card=pick0[1]))
    return ev + do(state, 1, Renounce(set_no=pick1[0], card=pick1[1]))


def public_texts(events: Sequence[Event]) -> str:
    return "\n".join(e.text for e in events if e.audience.kind == "public")


def play_bots(bots: Sequence[Any], seed: str, max_steps: int = 20_000) -> RenounceFateState:
    """A whole match between two bots (each sees only its view)."""
    rng = random.Random(seed)
    state = GAME.setup(RenounceFateSettings(), seed)
    for _ in range(max_steps):
        prompts = GAME.prompts(state)
        if not prompts:
            return state
        prompt = prompts[0]
        command = bots[prompt.seat].choose(GAME.view(state, prompt.seat), prompt, rng)
        GAME.submit(state, prompt.seat, command)
    raise AssertionError("match did not end")
