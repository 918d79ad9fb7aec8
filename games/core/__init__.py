"""The contract every game implements, and what the games share."""

from games.core.cards import CardStyle, Suit
from games.core.chance import Chance, seed_commitment
from games.core.contract import (
    Audience,
    Bot,
    BotFactory,
    Command,
    Controls,
    Event,
    Game,
    IllegalMove,
    OnTimeout,
    Outcome,
    ParseError,
    Prompt,
    Quick,
    Reveals,
    Secret,
    Timeout,
    seat_name,
)
from games.core.replay import replay

__all__ = [
    "Audience", "Bot", "BotFactory", "CardStyle", "Chance", "Command", "Controls", "Event", "Game",
    "IllegalMove", "OnTimeout", "Outcome", "ParseError", "Prompt", "Quick", "Reveals", "Secret", "Suit",
    "Timeout", "replay", "seat_name", "seed_commitment",
]
