"""Finds the games: every package under games/ (except core) that exposes `GAME`.

Discovery instead of a hand-kept list, so adding a game is adding its package.
"""

from __future__ import annotations

import importlib
import pkgutil
from functools import cache

import games
from games.core.contract import Game

# The order games are listed in (help, demo); games not named here follow alphabetically.
PREFERRED_ORDER = ("rps-poker", "devils-deal", "decoder", "renounce-fate", "double-or-nothing")


@cache
def all_games() -> dict[str, Game]:
    """Every installed game by slug, in PREFERRED_ORDER."""
    found: dict[str, Game] = {}
    for module in pkgutil.iter_modules(games.__path__):
        if not module.ispkg or module.name == "core":
            continue
        package = importlib.import_module(f"games.{module.name}")
        game = getattr(package, "GAME", None)
        if isinstance(game, Game):
            found[game.slug] = game
    rank = {slug: i for i, slug in enumerate(PREFERRED_ORDER)}
    return dict(sorted(found.items(), key=lambda kv: (rank.get(kv[0], len(rank)), kv[0])))


def installed_games() -> list[str]:
    """The slugs of the games of the games/ packages, in `all_games`' order (not a game a test
    registered beside them): what "every game" means to a test or a bench."""
    return [slug for slug, game in all_games().items()
            if type(game).__module__.startswith("games.")]


@cache
def warm_games() -> None:
    """Every installed game imported and warmed (`Game.warm`): once per process."""
    for game in all_games().values():
        game.warm()


def get_game(name: str) -> Game:
    """A game by slug, accepting "rps_poker", "RPS Poker" and the like."""
    wanted = name.strip().lower().replace("_", "-").replace(" ", "-").replace("'", "")
    table = all_games()
    if wanted in table:
        return table[wanted]
    raise KeyError(f"Unknown game {name!r}. Games: {', '.join(table) or 'none installed'}.")
