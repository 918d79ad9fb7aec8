"""The match settings of Renounce Fate: the seed's numbers and the house rulings.

The hand-ranking lists are a setting because the seed's own lists are lost; the defaults are
the house ruling's lists. Each list names categories of `games.core.poker` (best first); a
hand that fits no listed category ranks nothing.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from games.core.poker import KNOWN_CATEGORIES

RANKING_4 = ("four_of_a_kind", "straight_flush", "three_of_a_kind", "two_pair", "flush",
             "straight")
RANKING_3 = ("three_of_a_kind", "straight_flush", "straight", "pair")
RANKING_2 = ("pair", "straight_flush", "straight", "flush")


class RenounceFateSettings(BaseModel):
    """Every number of the game; every timer is in seconds."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    starting_chips: int = Field(30, ge=1, description="Chips each player starts with.")
    ante_start: int = Field(1, ge=0, description="Ante of round 1.")
    ante_step: int = Field(1, ge=0, description="How much the ante rises ...")
    ante_every: int = Field(5, ge=1, description="... every this many rounds.")
    max_raise: int = Field(10, ge=1, description="Largest raise on top of the call.")
    max_in_pot: int = Field(15, ge=1, description="Most chips one player may have in the "
                            "pot in a round, ante included.")
    bet_seconds: float = Field(30.0, gt=0, description="Time per betting decision; then fold.")
    renounce_seconds: float = Field(40.0, gt=0, description="Time per renounce pick; then a "
                                    "random legal pick.")
    starter_choice_seconds: float = Field(90.0, gt=0, description="Time for the advantage "
                                          "holder to name the round-1 starter; then they start.")
    break_seconds: float = Field(10.0, ge=0, description="Pause after a round before the "
                                 "next round's clocks start.")
    ranking_4: tuple[str, ...] = Field(RANKING_4, description="4-card hand categories, best "
                                       "first (3 community cards).")
    ranking_3: tuple[str, ...] = Field(RANKING_3, description="3-card hand categories, best "
                                       "first (2 community cards).")
    ranking_2: tuple[str, ...] = Field(RANKING_2, description="2-card hand categories, best "
                                       "first (1 community card).")
    tiebreak: Literal["high", "grouped"] = Field(
        "high", description="Ties within a category: 'high' compares every card's number "
        "from the highest down; 'grouped' compares the most-repeated numbers first.")

    @field_validator("ranking_4", "ranking_3", "ranking_2")
    @classmethod
    def _known(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        names = tuple(str(v).strip().lower().replace(" ", "_").replace("-", "_") for v in value)
        bad = [n for n in names if n not in KNOWN_CATEGORIES]
        if bad:
            raise ValueError(f"unknown hand categories {bad}; known: {', '.join(KNOWN_CATEGORIES)}")
        if len(set(names)) != len(names):
            raise ValueError("a category is listed twice")
        return names

    def ranking(self, size: int) -> tuple[str, ...]:
        """The category order for a hand of `size` cards (2, 3 or 4)."""
        return {4: self.ranking_4, 3: self.ranking_3, 2: self.ranking_2}[size]

    def ante(self, round_no: int) -> int:
        """The ante of round `round_no` (1-based): 1 + (r - 1) // 5 by default."""
        return self.ante_start + (round_no - 1) // self.ante_every * self.ante_step


def reminders_for(limit: float) -> tuple[float, ...]:
    """Reminder points (seconds left): 60/30/10 for long timers, 10/5 for short ones."""
    points = (60.0, 30.0, 10.0) if limit > 60 else (10.0, 5.0)
    return tuple(p for p in points if p < limit)
