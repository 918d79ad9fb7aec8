"""Renounce Fate (seed 003_7849cebaec5d7305): two private cards, three public sets of fate
cards renounced simultaneously down to the community cards, two capped betting rounds and a
showdown whose hand size depends on how many fate cards survive. `GAME` is the engine the
runtime discovers."""

from games.renounce_fate.bots import BOTS
from games.renounce_fate.engine import RenounceFate
from games.renounce_fate.settings import RenounceFateSettings
from games.renounce_fate.state import RenounceFateState

GAME = RenounceFate(bots=BOTS)

__all__ = ["GAME", "RenounceFate", "RenounceFateSettings", "RenounceFateState"]
