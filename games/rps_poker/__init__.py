"""Turn-based RPS Poker (seed 001): a draft, then ten simultaneous plays against a base card.

`rules` holds the pure rules shared with the bot arena; `engine.RpsPoker` is the Game.
`GAME` and `RpsPoker` are imported on first use (the registry reads `GAME`), so that the
arena, which needs only `rules`, `codes` and `players`, does not import the game engine.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from games.rps_poker.engine import RpsPoker  # noqa: PLC0415 (lazy: see the docstring)

    GAME: RpsPoker

__all__ = ["GAME", "RpsPoker"]


def __getattr__(name: str) -> Any:
    if name not in __all__:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from games.rps_poker.engine import GAME, RpsPoker  # noqa: PLC0415 (lazy: see the docstring)

    globals().update(GAME=GAME, RpsPoker=RpsPoker)
    return globals()[name]
