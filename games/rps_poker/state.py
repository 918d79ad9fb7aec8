"""The state of one match of Turn-based RPS Poker (a mutable pydantic model).

Where each of the 30 cards is at any moment (`invariants` checks that each is in exactly
one place): during the draft, in `undealt` (the full deck, top first), in a current
`offers[seat]` pair, or in a player's `kept`/`received` cards; in the main phase, in
`remaining` (the undrawn base cards, top first), `base`, a `draw_pile`, a `hand`, or in
`history` (played cards and used base cards).
"""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, Field

from games.core import Chance
from games.rps_poker.settings import RpsSettings


class Phase(StrEnum):
    DRAFT = "draft"  # five rounds: keep one of two cards, pass the other
    MAIN = "main"  # ten games: play a card against the base card
    OVER = "over"


class DraftRound(BaseModel):
    """One resolved draft round, per seat: the two cards given, kept and passed."""

    offers: list[list[str]]
    kept: list[str]
    timed_out: list[bool] = Field(default_factory=lambda: [False, False])


class GameRecord(BaseModel):
    """One resolved game of the main phase."""

    number: int  # 1..10
    base: str
    plays: list[str]  # per seat
    hands: list[list[str]]  # each seat's hand when it played (private to that seat)
    winner: int
    reason: str  # rules.PAIR / HIGHER / RPS
    timed_out: list[bool] = Field(default_factory=lambda: [False, False])
    auto: bool = False  # played automatically (single card left)


class RpsState(BaseModel):
    settings: RpsSettings
    chance: Chance
    phase: Phase = Phase.DRAFT
    step: int = 0  # counts resolved decisions rounds: keys prompts uniquely
    # draft
    undealt: list[str] = Field(default_factory=list)
    draft_round: int = 0  # 0-based current round; 5 once the draft is over
    offers: list[list[str]] = Field(default_factory=lambda: list[list[str]]([[], []]))
    kept: list[list[str]] = Field(default_factory=lambda: list[list[str]]([[], []]))
    received: list[list[str]] = Field(default_factory=lambda: list[list[str]]([[], []]))
    drafts: list[DraftRound] = Field(default_factory=list)
    # submitted, not yet revealed choices (a card code), per seat
    pending: list[str | None] = Field(default_factory=lambda: list[str | None]([None, None]))
    timed_out: list[bool] = Field(default_factory=lambda: [False, False])
    # main phase
    remaining: list[str] = Field(default_factory=list)
    base: str | None = None
    draw_pile: list[list[str]] = Field(default_factory=lambda: list[list[str]]([[], []]))
    hand: list[list[str]] = Field(default_factory=lambda: list[list[str]]([[], []]))
    history: list[GameRecord] = Field(default_factory=list)
    score: list[int] = Field(default_factory=lambda: [0, 0])
