"""Turn-based RPS Poker (seed 001): a draft, then ten simultaneous plays against a base card.

`rules` holds the pure rules shared with the bot arena; `engine.RpsPoker` is the Game.
"""

from games.rps_poker.engine import RpsPoker

GAME = RpsPoker()

__all__ = ["GAME", "RpsPoker"]
