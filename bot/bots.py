"""Finding the built-in player for a bot seat.

A bot seat names its player: a game's built-in bot ("heuristic", "arena:basic-odds"), or
for RPS Poker an arena bot file ("file:path/to/bot.py" or ".js"), so that any arena bot can
also take a seat in `umpire play` and in Discord matches.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

from games.core import BotFactory, Game


def resolve_bot(game: Game, name: str) -> BotFactory | None:
    """The factory for bot `name` in `game`, or None if there is no such bot."""
    factory = game.bots().get(name)
    if factory is not None:
        return factory
    if name.startswith("file:") and game.slug == "rps-poker":
        return _arena_file_bot(name[len("file:"):])
    return None


@cache
def _arena_file_bot(path: str) -> BotFactory:
    from bot.arena.seat import seat_factory

    return seat_factory(path)


def known_bot(game: Game, name: str) -> bool:
    if name in game.bots():
        return True
    return (name.startswith("file:") and game.slug == "rps-poker"
            and Path(name[len("file:"):]).is_file())
