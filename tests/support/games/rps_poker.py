"""Shared helpers of the RPS Poker tests: drive whole matches through the engine."""

from __future__ import annotations

import random

from games.core import Bot
from games.rps_poker import GAME
from games.rps_poker.settings import RpsSettings
from games.rps_poker.state import RpsState


def new_match(seed: str = "t", **settings: object) -> RpsState:
    return GAME.setup(RpsSettings(**settings), seed)


def play_match(seed: str, bots: tuple[Bot, Bot], rng_seed: int = 0) -> RpsState:
    """Play a whole match with two contract bots answering every prompt."""
    state = new_match(seed)
    rng = random.Random(rng_seed)
    while prompts := GAME.prompts(state):
        for p in prompts:
            if GAME.prompt(state, p.key) is None:
                continue
            command = bots[p.seat].choose(GAME.view(state, p.seat), p, rng)
            GAME.submit(state, p.seat, command)
    return state


def first_pick_all(state: RpsState, choose_index: int = 0) -> list:
    """Answer every pending prompt with the card at `choose_index` (or the last one)."""
    events = []
    for p in GAME.prompts(state):
        opts = state.offers[p.seat] if state.phase == "draft" else state.hand[p.seat]
        card = opts[min(choose_index, len(opts) - 1)]
        events += GAME.submit(state, p.seat, GAME.parse(state, p.seat, card))
    return events
