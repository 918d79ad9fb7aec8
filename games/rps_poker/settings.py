"""Per-match settings of Turn-based RPS Poker (defaults: the seed and the house rulings)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class RpsSettings(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    decision_seconds: float = Field(
        30.0, gt=0, description="Time for each draft pick and each play (ruling: 30 s)."
    )
    reminders: tuple[float, ...] = Field(
        (10.0,), description="Seconds left at which a player who has not chosen is reminded."
    )
    auto_play_last_card: bool = Field(
        True,
        description="When both hands hold a single card (game 10) there is no choice: the bot "
        "plays both cards at once instead of waiting for the players.",
    )
