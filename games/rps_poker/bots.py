"""Built-in players of the Discord game: random, and any arena-API player as a seat.

`ArenaSeat` lets a player written for the arena (players.py, or any object with the seed's
four methods) take a seat in a regular match. It decides from the seat's view only: for
every decision it builds a fresh player and replays to it, in the arena's call order, what
the seat has seen (each draft pair and received card, each game's hand, base and the
opponent's play). So it survives restarts and needs no memory between decisions. A player
that raises or returns an invalid index is replaced by a random legal choice for that
decision (a person's match must not stop because of a bot); each failure counts once, at
the decision where the failing call was first made (see `ArenaSeat`).
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
    """A contract Bot driven by an arena-API player built by `make_player()`.

    Each decision replays the seat's history to a fresh player, so a call that failed once
    fails again in every later replay: such a failure was told at the decision where the
    call was first made, and the replay goes on past it. The one call of a replay made for
    the first time is its last notification (the card received, or the opponent's last
    play: a notification is first made just before the next decision's call), so its
    failure, like the decision's own call's, is this decision's. `errors` counts the
    decisions that failed (a random card was chosen) and `error` says why the last one did.
    """

    def __init__(self, name: str, make_player: Callable[[], Any]) -> None:
        self.name = name
        self.make_player = make_player
        self.errors = 0  # decisions where the player failed and a random card was chosen
        self.error = ""  # why the last failed decision failed

    def choose(self, view: BaseModel, prompt: Prompt, rng: random.Random) -> Command:
        assert isinstance(view, RpsView) and view.seat is not None
        other = 1 - view.seat
        draft = view.phase == "draft"
        options = list(view.offer if draft else view.hand)
        replay: list[tuple[str, tuple[Any, ...]]] = []
        for d in view.drafts:
            replay += [("draft_pick", (list(d.offer),)), ("draft_receive", (d.received,))]
        for g in view.games:
            replay += [("main_play", (list(g.hand), g.base)),
                       ("main_postprocess", (g.plays[other],))]
        method = "draft_pick" if draft else "main_play"
        try:
            player = self.make_player()
            sync = getattr(player, "arena_sync", None)  # a bot file: its failures now
            for n, (replayed, args) in enumerate(replay):
                try:
                    getattr(player, replayed)(*args)
                    if sync is not None and replayed in _NOTICES:
                        sync()
                except Exception:
                    if n == len(replay) - 1 and replayed in _NOTICES:
                        method = replayed  # made for the first time: this decision's failure
                        raise
                    # (told at the decision where it was first made; the replay goes on)
            index = player.draft_pick(list(options)) if draft else \
                player.main_play(list(options), view.base)
            if type(index) is not int or not 0 <= index < len(options):
                raise _Invalid(f"returned an invalid index {index!r} from {method}")
        except Exception as exc:  # any failure of foreign bot code
            self.errors += 1
            self.error = getattr(exc, "arena_reason", None) or (
                str(exc) if isinstance(exc, _Invalid) else
                f"raised {type(exc).__name__}: {exc} in {method}")
            index = rng.randrange(len(options))
        card = options[index]
        return Keep(card=card) if draft else Play(card=card)


_NOTICES = ("draft_receive", "main_postprocess")


class _Invalid(ValueError):
    """The player's answer is not an index of the cards it was offered."""


def arena_factory(name: str, make_player: Callable[[], Any]) -> BotFactory:
    return lambda: ArenaSeat(name, make_player)


BOTS: dict[str, BotFactory] = {
    "heuristic": arena_factory("heuristic", PLAYERS["saver"]),
    "random": RandomBot,
    **{f"arena:{name}": arena_factory(f"arena:{name}", cls) for name, cls in PLAYERS.items()},
}
