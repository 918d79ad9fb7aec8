"""The state of a Double or Nothing match (a mutable pydantic model that survives JSON)."""

from __future__ import annotations

import copy
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, Field

from games.core.chance import Chance
from games.double_or_nothing.settings import DoubleOrNothingSettings

LOG_KEEP = 12  # public history lines kept for the views


class Phase(StrEnum):
    STARTER = "starter"  # the advantage holder picks who starts bout 1
    TURN = "turn"  # `turn` takes an action in the room
    PLACE = "place"  # `turn` places the drawn card or joker (private)
    POSITION = "position"  # unused since the quiet question (`which`); kept for old states
    DOUBLE = "double"  # the opponent of `turn` accepts or forfeits the proposed double
    OVER = "over"


class DoubleOrNothingState(BaseModel):
    settings: DoubleOrNothingSettings
    chance: Chance
    phase: Phase = Phase.STARTER
    serial: int = 0  # counts decisions: prompt keys are unique over the match
    bout: int = 0
    score: list[int] = Field(default_factory=lambda: [0, 0])
    starter: int = 0  # who started the current bout
    turn: int = 0  # whose action (or placement / position choice, or double proposal) it is
    first_move: bool = True  # the bout's first move is still to be made (longer clock)
    # Cards of the bout. Hands keep their order; the table set keeps each card's fixed value.
    hands: list[list[str]] = Field(default_factory=lambda: list[list[str]]([[], []]))
    unused: list[str] = Field(default_factory=list)  # never shown
    table: list[str] = Field(default_factory=list)
    table_values: list[int] = Field(default_factory=list)
    discard: list[str] = Field(default_factory=list)  # public, in order
    jokers: list[int] = Field(default_factory=lambda: [0, 0])  # still in front of each player
    # The doubling die.
    stake: int = 1
    last_doubler: int | None = None  # who made the last accepted double this bout
    crawford: bool = False  # this bout is played without the die
    # Pending private follow-ups.
    placing: str | None = None  # the card or joker the turn player is placing
    # A set played that the hand held more than once, where the copies leave different hands:
    # `which` owes the quiet private answer (before their next move), `which_hand` is their
    # hand before the play, `options` the starts of the copies in it (the leftmost is played
    # until they answer) and `option_cards` the cards named.
    which: int | None = None
    which_key: str = ""
    which_hand: list[str] = Field(default_factory=list)
    options: list[int] = Field(default_factory=list)
    option_cards: list[str] = Field(default_factory=list)
    log: list[str] = Field(default_factory=list)
    bout_winners: list[int] = Field(default_factory=list)
    # The hands each bout ended with, bout by bout (`feed.closing`: each hand's cards, then
    # a card being placed): the players' secret until the match is over, when the feed, the
    # export and the transcript show them.
    bout_ends: list[list[str]] = Field(default_factory=list)
    winner: int | None = None
    reason: str = ""

    def __deepcopy__(self, memo: dict[int, Any] | None = None) -> DoubleOrNothingState:
        """A deep copy made field by field (every field is a list of plain values, a list of
        such lists, the frozen settings or the one-integer Chance): several times quicker
        than the generic deepcopy, and the harnesses copy states at every step."""
        copied = copy.copy(self)
        fields = copied.__dict__
        for name, value in fields.items():
            if isinstance(value, list):
                fields[name] = [list(x) if isinstance(x, list) else x for x in value]
        fields["chance"] = Chance(state=self.chance.state)
        return copied
