"""The decisions of Turn-based RPS Poker."""

from __future__ import annotations

from typing import Literal

from games.core import Command


class Keep(Command):
    """Draft: keep `card` of the two you were given; the other goes to the opponent."""

    type: Literal["keep"] = "keep"
    card: str


class Play(Command):
    """Main phase: play `card` from your hand in the current game."""

    type: Literal["play"] = "play"
    card: str
