"""Decoder (seed 002): deduce the opponent's letter tiles from word clues, on turns paced by
timer tanks, under turn timers and time banks."""

from games.decoder.engine import DecoderGame
from games.decoder.settings import DecoderSettings, Items
from games.decoder.state import DecoderState
from games.decoder.views import DecoderView

GAME = DecoderGame()

__all__ = ["GAME", "DecoderGame", "DecoderSettings", "DecoderState", "DecoderView", "Items"]
