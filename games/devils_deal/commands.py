"""The typed decisions of Devil's Deal (each a frozen pydantic model, `type` discriminated)."""

from __future__ import annotations

from typing import Literal

from games.core.contract import Command, Timeout


class ChooseStarter(Command):
    """The advantage holder names the starting player of round 1 (a seat number)."""

    type: Literal["choose_starter"] = "choose_starter"
    starter: int


class RefillAnswer(Command):
    """Yes or no to the offer to refill (5 chips for 12 cards to divide)."""

    type: Literal["refill_answer"] = "refill_answer"
    refill: bool


class Division(Command):
    """A refill division: equal-sum piles, which one is set aside, and the discards.

    `piles` empty (and `aside` None) means no piles at all: every card is set aside.
    Cards of the offer that are in no pile are unused (set aside). `lock` makes it final
    at once instead of waiting for the clock.
    """

    type: Literal["division"] = "division"
    piles: tuple[tuple[str, ...], ...] = ()
    aside: int | None = None  # index into `piles`
    discards: tuple[str, ...] = ()
    lock: bool = False


class LockDivision(Command):
    """Make the last valid division final now ("done", "lock")."""

    type: Literal["lock_division"] = "lock_division"


class Take(Command):
    """The opponent takes one set-aside card (or none), discarding one if over the limit."""

    type: Literal["take"] = "take"
    card: str | None = None
    discard: str | None = None


class PrivateCards(Command):
    """The two private cards, in reveal order."""

    type: Literal["private_cards"] = "private_cards"
    first: str
    second: str


class Bet(Command):
    """A betting choice: call, raise `amount` on top of the call, or fold."""

    type: Literal["bet"] = "bet"
    action: Literal["call", "raise", "fold"]
    amount: int = 0


COMMAND_TYPES = (ChooseStarter, RefillAnswer, Division, LockDivision, Take, PrivateCards, Bet,
                 Timeout)
