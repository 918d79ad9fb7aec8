"""The state of a Devil's Deal match (a mutable pydantic model that survives JSON)."""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, Field

from games.core.betting import BettingPhase
from games.core.chance import Chance
from games.devils_deal.commands import Division
from games.devils_deal.settings import DevilsDealSettings

LOG_KEEP = 80  # public history lines kept for the views


class Phase(StrEnum):
    STARTER = "starter"  # the advantage holder picks the round-1 starter
    REFILL_OFFER = "refill_offer"  # `offer_seat` answers yes/no
    DIVISION = "division"  # `refill.refiller` divides the 12 cards
    TAKE = "take"  # the refiller's opponent may take one set-aside card
    PRIVATE = "private"  # both choose their private cards (simultaneous)
    BETTING = "betting"
    OVER = "over"


class Refill(BaseModel):
    """A refill in progress."""

    refiller: int
    offered: list[str]  # the 12 cards, in the order dealt
    division: Division | None = None  # the last valid division posted (resubmittable)


class DevilsDealState(BaseModel):
    settings: DevilsDealSettings
    chance: Chance
    phase: Phase = Phase.STARTER
    serial: int = 0  # counts decision instances: prompt keys are unique over the match
    round: int = 0
    starter: int = 0
    chips: list[int] = Field(default_factory=lambda: [0, 0])
    pools: list[list[str]] = Field(default_factory=lambda: list[list[str]]([[], []]))
    # What everyone can know each pool may hold: the pool plus cards that left it unseen
    # (private cards a fold left unrevealed). The pool itself is a sub-multiset of this.
    known_pools: list[list[str]] = Field(default_factory=lambda: list[list[str]]([[], []]))
    # Refill step.
    offer_seat: int | None = None
    refill: Refill | None = None
    set_aside: list[str] = Field(default_factory=list)  # what the opponent may take from
    # Poker step.
    community: str | None = None
    private: list[list[str] | None] = Field(default_factory=lambda: list[list[str] | None]([None, None]))
    private_failed: list[bool] = Field(default_factory=lambda: [False, False])  # clock ran out
    revealed: list[int] = Field(default_factory=lambda: [0, 0])  # private cards shown so far
    ante_pot: int = 0
    round_bets: list[int] = Field(default_factory=lambda: [0, 0])  # bets of both phases
    betting: BettingPhase | None = None
    betting_no: int = 0  # 1 or 2 while betting
    # Accounting (invariants): chips that left the game, cards in and out of each pool.
    removed_refills: int = 0
    removed_ante: int = 0
    removed_ties: int = 0
    refills: list[int] = Field(default_factory=lambda: [0, 0])
    received: list[int] = Field(default_factory=lambda: [0, 0])
    discarded: list[int] = Field(default_factory=lambda: [0, 0])
    used: list[int] = Field(default_factory=lambda: [0, 0])
    discards: list[list[str]] = Field(default_factory=lambda: list[list[str]]([[], []]))  # public, in order
    # Private pairs a fold left (partly) unrevealed: (seat, token); secret to that seat forever.
    hidden_pairs: list[tuple[int, str]] = Field(default_factory=list)
    past_private: list[list[str]] = Field(default_factory=lambda: list[list[str]]([[], []]))  # own pair tokens
    log: list[str] = Field(default_factory=list)  # recent public event texts
    # Result.
    winner: int | None = None
    reason: str = ""
