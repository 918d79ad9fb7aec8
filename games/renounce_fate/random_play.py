"""Uniformly random legal play from a seat's view: the engine's `random_command` (conformance
harness, demo) and the random bot share it, so the engine never imports the bots."""

from __future__ import annotations

import random

from games.core.contract import Command, Prompt
from games.renounce_fate.commands import Bet, ChooseStarter, Renounce
from games.renounce_fate.views import RenounceFateView


def random_from_view(view: RenounceFateView, prompt: Prompt, rng: random.Random) -> Command:
    """A random legal answer to `prompt` (uniform over the kinds of bet, then the amount)."""
    if prompt.kind == "choose_starter":
        return ChooseStarter(starter=rng.randrange(2))
    if prompt.kind == "renounce":
        set_no, card = rng.choice(view.legal_picks)
        return Renounce(set_no=int(set_no), card=str(card))
    if prompt.kind == "bet":
        b = view.bet
        assert b is not None
        kinds = ["fold"]
        if b.can_call:
            kinds.append("call")
        if b.min_raise is not None:
            kinds.append("raise")
        kind = rng.choice(kinds)
        if kind == "raise":
            assert b.min_raise is not None and b.max_raise is not None
            return Bet(action="raise", amount=rng.randint(b.min_raise, b.max_raise))
        return Bet(action=kind)
    raise ValueError(f"unknown prompt kind {prompt.kind}")
