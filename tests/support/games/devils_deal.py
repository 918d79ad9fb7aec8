"""Building Devil's Deal positions for the tests, through the public API where it matters."""

from __future__ import annotations

import random
from collections.abc import Sequence

from games.core.contract import Event, Timeout
from games.devils_deal import GAME
from games.devils_deal.settings import DevilsDealSettings
from games.devils_deal.state import DevilsDealState, Phase


def new(seed: str = "test", **settings: object) -> DevilsDealState:
    return GAME.setup(DevilsDealSettings(**settings), seed)


def say(state: DevilsDealState, seat: int, text: str) -> list[Event]:
    """What a player typed: parse, check, apply, then the invariants."""
    command = GAME.parse(state, seat, text)
    events = GAME.submit(state, seat, command)
    GAME.invariants(state)
    return events


def timeout(state: DevilsDealState, seat: int, kind: str) -> list[Event]:
    prompt = next(p for p in GAME.prompts(state) if p.seat == seat and p.kind == kind)
    events = GAME.submit(state, seat, Timeout(prompt_key=prompt.key))
    GAME.invariants(state)
    return events


def kinds(state: DevilsDealState) -> list[tuple[int, str]]:
    return [(p.seat, p.kind) for p in GAME.prompts(state)]


def public_text(events: Sequence[Event]) -> str:
    return "\n".join(e.text for e in events if e.audience.kind == "public")


def arrange(state: DevilsDealState, *, pools: Sequence[Sequence[str]] | None = None,
            chips: Sequence[int] | None = None) -> None:
    """Replace pools and/or chips, keeping the accounting consistent (the difference in
    chips is booked as chips that left the game)."""
    if pools is not None:
        state.pools = [list(p) for p in pools]
        state.known_pools = [list(p) for p in pools]
        state.received = [len(p) + state.discarded[i] + state.used[i] for i, p in enumerate(pools)]
    if chips is not None:
        state.chips = list(chips)
        gone = 2 * state.settings.starting_chips - sum(chips) - sum(state.round_bets) \
            - state.ante_pot - state.removed_refills - state.removed_ante
        assert gone >= 0, "tests keep the chip total at or below the start"
        state.removed_ties = gone
    GAME.invariants(state)


def to_refill_offer(state: DevilsDealState, starter: int = 0) -> None:
    """Choose the starter; the starter is then offered a refill."""
    say(state, 0, "me" if starter == 0 else "opponent")
    assert state.phase == Phase.REFILL_OFFER and state.offer_seat == starter


def to_poker(pools: Sequence[Sequence[str]], community: str, *, chips: Sequence[int] = (30, 30),
             starter: int = 0, seed: str = "poker") -> DevilsDealState:
    """A state at the private-card choice of round 1 with the given pools and community."""
    state = new(seed)
    arrange(state, pools=pools, chips=chips)
    state.round = 1
    state.starter = starter
    state.community = community
    state.phase = Phase.PRIVATE
    state.serial += 1
    GAME.invariants(state)
    return state


def play_bots(bots: Sequence[object], seed: str, max_steps: int = 5000) -> DevilsDealState:
    """A whole match between two bots (seat 0 plays bots[0])."""
    rng = random.Random(seed)
    state = GAME.setup(DevilsDealSettings(), seed)
    for _ in range(max_steps):
        prompts = GAME.prompts(state)
        if not prompts:
            return state
        prompt = prompts[0]
        bot = bots[prompt.seat]
        command = bot.choose(GAME.view(state, prompt.seat), prompt, rng)  # type: ignore[attr-defined]
        GAME.submit(state, prompt.seat, command)
    raise AssertionError("match did not end")
