"""The match settings of Devil's Deal: the seed's values (with its rule and timing changes)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class DevilsDealSettings(BaseModel):
    """Every number of the game; every timer is in seconds."""

    model_config = ConfigDict(frozen=True)

    starting_chips: int = Field(30, ge=1)
    starting_pool: int = Field(5, ge=0, le=13)  # both pools come from one 27-card deck
    pool_limit: int = Field(10, ge=2)
    refill_cost: int = Field(5, ge=0)
    refill_cards: int = Field(12, ge=1, le=27)
    ante: int = Field(2, ge=0)
    ante_removed: int = Field(1, ge=0)  # chips taken out of the ante pot (leave the game)
    fold_penalty: int = Field(2, ge=0)  # paid by a player folding a high-card hand
    # Timers (seconds).
    starter_choice_seconds: float = 90.0
    refill_offer_seconds: float = 20.0
    refill_division_seconds: float = 90.0
    take_seconds: float = 20.0
    private_cards_seconds: float = 90.0
    bet_seconds: float = 20.0
    break_seconds: float = 20.0  # the pause between rounds (honoured by the runtime)


def reminders_for(limit: float) -> tuple[float, ...]:
    """Reminder points (seconds left) for a timer: 60/30/10 for long ones, 10/5 for short ones."""
    points = (60.0, 30.0, 10.0) if limit > 60 else (10.0, 5.0)
    return tuple(p for p in points if p < limit)
