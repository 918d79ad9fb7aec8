"""The spectator feed's reveals: the secrets of a match that are over.

A spectator feed shows a match as it is played: what is public, plus, once a round or bout
has ended, the secrets of it that can no longer matter (both hands of a finished Renounce
Fate round, say). It never shows a secret that is still live: a card still held, a pool a
later round draws on, a choice that tells something of a deck still in play. Each game says
what its unit of play is and what of it is over in its own `games/<game>/feed.py`, as

    reveals(before, after, ended) -> list[str]

the reveal texts of the secrets one step made over: `before` and `after` are the match's
state around the step, `ended` whether the match is over after it (by the rules, or because
the hosts ended it: then `before` and `after` are the same state and everything of the unit
in progress is over too). Pure and deterministic, like the rules: the runtime stores the
reveals with the step that caused them. Texts name players with `{P0}` / `{P1}`.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from functools import cache
from typing import Any

from pydantic import BaseModel

from games.core.contract import Game

Reveals = Callable[[Any, Any, bool], list[str]]


@cache
def _reveals_of(game_type: type[Game[Any]]) -> Reveals | None:
    package = game_type.__module__.rsplit(".", 1)[0]
    try:
        module = importlib.import_module(f"{package}.feed")
    except ModuleNotFoundError as exc:
        if exc.name != f"{package}.feed":
            raise
        return None  # a game without a feed module reveals nothing beyond what is public
    found: Reveals = module.reveals
    return found


def feed_reveals(game: Game[Any], before: BaseModel, after: BaseModel,
                 ended: bool) -> list[str]:
    """What of `game`'s secrets the step from `before` to `after` made over (see above)."""
    reveals = _reveals_of(type(game))
    return reveals(before, after, ended) if reveals is not None else []
