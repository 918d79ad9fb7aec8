"""The typed decisions of Renounce Fate (frozen pydantic models, `type` discriminated)."""

from __future__ import annotations

from typing import Literal

from games.core.contract import Command, Timeout


class ChooseStarter(Command):
    """The advantage holder names the starting player of round 1 (a seat number)."""

    type: Literal["choose_starter"] = "choose_starter"
    starter: int


class Bet(Command):
    """Call, raise `amount` on top of the call, or fold."""

    type: Literal["bet"] = "bet"
    action: Literal["call", "raise", "fold"]
    amount: int = 0


class Renounce(Command):
    """The fate card to renounce: `card` from set `set_no` (1, 2 or 3)."""

    type: Literal["renounce"] = "renounce"
    set_no: int
    card: str


COMMAND_TYPES = (ChooseStarter, Bet, Renounce, Timeout)
