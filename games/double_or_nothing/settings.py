"""The match settings of Double or Nothing: the seed's numbers and clocks (every timer in
seconds)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class DoubleOrNothingSettings(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    target: int = Field(9, ge=1, description="Bout wins needed to win the match.")
    hand_size: int = Field(17, ge=1, le=20, description="Cards dealt to each player per bout.")
    jokers: int = Field(2, ge=0, le=5, description="Jokers placed in front of each player per bout.")
    max_stake: int = Field(8, ge=1, description="The doubling die stops at this stake.")
    crawford: bool = Field(True, description="No doubling for one bout after a player first "
                           "reaches one bout short of the target.")
    first_move_seconds: float = Field(120.0, gt=0, description="A bout's first move.")
    move_seconds: float = Field(60.0, gt=0, description="Every other move, placement and "
                                "answer to a double.")
    starter_seconds: float = Field(120.0, gt=0, description="The advantage holder's choice of "
                                   "who starts bout 1.")


def reminders_for(limit: float) -> tuple[float, ...]:
    """Seconds left at which the player is reminded (the runtime also tells the hosts at 0)."""
    return tuple(p for p in (30.0, 10.0) if p < limit / 2)
