"""Devil's Deal (seed 000_9d36c9eee8efe0cb): refill by equal-sum piles, then 3-card poker
with two betting phases. `GAME` is the engine the runtime discovers."""

from games.devils_deal.engine import DevilsDeal
from games.devils_deal.settings import DevilsDealSettings
from games.devils_deal.state import DevilsDealState

GAME = DevilsDeal()

__all__ = ["GAME", "DevilsDeal", "DevilsDealSettings", "DevilsDealState"]
