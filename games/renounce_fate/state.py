"""The state of a Renounce Fate match (a mutable pydantic model that survives JSON)."""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, Field

from games.core.betting import BettingPhase
from games.core.chance import Chance
from games.renounce_fate.settings import RenounceFateSettings

LOG_KEEP = 60  # public history lines kept for the views


class Phase(StrEnum):
    STARTER = "starter"  # the advantage holder names the round-1 starter
    BETTING = "betting"
    RENOUNCE = "renounce"  # both pick a fate card (simultaneous, private)
    OVER = "over"


class FateSet(BaseModel):
    """One of the three public sets of fate cards."""

    dealt: list[str]  # the three cards dealt, in order
    remaining: list[str]
    discarded: list[str] = Field(default_factory=list)
    kept: str | None = None  # the card both players renounced: locked, the rest discarded

    @property
    def locked(self) -> bool:
        return len(self.remaining) <= 1


class Pick(BaseModel):
    """A renounce pick (1-based set number)."""

    set_no: int
    card: str
    timed_out: bool = False


class RenounceStep(BaseModel):
    """A resolved renounce step (public once resolved)."""

    picks: list[Pick]  # by seat
    same: bool  # both picked the same card of the same set


class RenounceFateState(BaseModel):
    settings: RenounceFateSettings
    chance: Chance
    phase: Phase = Phase.STARTER
    serial: int = 0  # counts decision instances: prompt keys are unique over the match
    round: int = 0
    starter: int = 0
    chips: list[int] = Field(default_factory=lambda: [0, 0])
    # The round's deal.
    hands: list[list[str]] = Field(default_factory=lambda: list[list[str]]([[], []]))
    sets: list[FateSet] = Field(default_factory=list)
    unused: list[str] = Field(default_factory=list)  # the seven cards not used this round
    # Chips.
    ante: int = 0  # what each player put in as the ante this round
    all_in_ante: bool = False  # a player could not afford the ante: no betting this round
    round_bets: list[int] = Field(default_factory=lambda: [0, 0])  # in the pot, ante included
    betting: BettingPhase | None = None
    betting_no: int = 0  # 1 or 2 while betting
    # Renouncing.
    picks: list[Pick | None] = Field(default_factory=lambda: list[Pick | None]([None, None]))
    steps: list[RenounceStep] = Field(default_factory=list)  # this round's resolved steps
    community: list[str] | None = None  # once every set is locked
    # Accounting and history.
    removed_ties: int = 0  # chips that left the match with tied pots
    # Hands never shown (a fold): (seat, token); secret to that seat for ever.
    hidden_hands: list[tuple[int, str]] = Field(default_factory=list)
    last_result: str = ""  # the last round's result line (public)
    log: list[str] = Field(default_factory=list)  # recent public event texts
    winner: int | None = None
    reason: str = ""

    @property
    def pot(self) -> int:
        return sum(self.round_bets)
