"""Built-in players of the Discord game: random, and any arena-API player as a seat.

`ArenaSeat` lets a player written for the arena (players.py, or any object with the seed's
four methods) take a seat in a regular match. It decides from the seat's view only: for
every decision it builds a fresh player and replays to it, in the arena's call order, what
the seat has seen (each draft pair and received card, each game's hand, base and the
opponent's play). So it survives restarts and needs no memory between decisions. A player
that raises or returns an invalid index is replaced by a random legal choice for that
decision (a person's match must not stop because of a bot).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from pydantic import BaseModel

from games.core import BotFactory, Command, Prompt
from games.rps_poker.commands import Keep, Play
from games.rps_poker.players import PLAYERS
from games.rps_poker.views import RpsView


class RandomBot:
    name = "random"

    def choose(self, view: BaseModel, prompt: Prompt, rng: random.Random) -> Command:
        assert isinstance(view, RpsView)
        if view.phase == "draft":
            return Keep(card=rng.choice(view.offer))
        return Play(card=rng.choice(view.hand))


class ArenaSeat:
    """A contract Bot driven by an arena-API player built by `make_player()`."""

    def __init__(self, name: str, make_player: Callable[[], Any]) -> None:
        self.name = name
        self.make_player = make_player
        self.errors = 0  # decisions where the player failed and a random card was chosen

    def choose(self, view: BaseModel, prompt: Prompt, rng: random.Random) -> Command:
        assert isinstance(view, RpsView) and view.seat is not None
        other = 1 - view.seat
        draft = view.phase == "draft"
        options = list(view.offer if draft else view.hand)
        try:
            player = self.make_player()
            for d in view.drafts:
                player.draft_pick(list(d.offer))
                player.draft_receive(d.received)
            if draft:
                index = player.draft_pick(list(options))
            else:
                for g in view.games:
                    player.main_play(list(g.hand), g.base)
                    player.main_postprocess(g.plays[other])
                index = player.main_play(list(options), view.base)
            if type(index) is not int or not 0 <= index < len(options):
                raise ValueError(f"invalid index {index!r}")
        except Exception:  # any failure of foreign bot code
            self.errors += 1
            index = rng.randrange(len(options))
        card = options[index]
        return Keep(card=card) if draft else Play(card=card)


def arena_factory(name: str, make_player: Callable[[], Any]) -> BotFactory:
    return lambda: ArenaSeat(name, make_player)


BOTS: dict[str, BotFactory] = {
    "heuristic": arena_factory("heuristic", PLAYERS["saver"]),
    "random": RandomBot,
    **{f"arena:{name}": arena_factory(f"arena:{name}", cls) for name, cls in PLAYERS.items()},
}
