"""Decoder's commands: one frozen pydantic model per decision."""

from __future__ import annotations

from typing import Literal

from games.core.contract import Command, Timeout
from games.decoder.rules import Clue


class RaiseTime(Command):
    """Setup: raise one of your puzzle times (seconds, up to the maximum)."""

    type: Literal["raise_time"] = "raise_time"
    puzzle: str
    seconds: int


class Ready(Command):
    """Setup: your times are final."""

    type: Literal["ready"] = "ready"


class ChooseRarities(Command):
    """Setup: the rarities of your extra tiles."""

    type: Literal["choose_rarities"] = "choose_rarities"
    common: int = 0
    uncommon: int = 0
    rare: int = 0


class ChooseHand(Command):
    """Setup: the six tiles you keep."""

    type: Literal["choose_hand"] = "choose_hand"
    letters: tuple[str, ...]


class TakeTurn(Command):
    """Your turn: the tank you use and the action (ask a word, guess a letter, restore)."""

    type: Literal["take_turn"] = "take_turn"
    tank: str
    action: Literal["ask", "guess", "restore"]
    word: str | None = None
    exclude: Clue | None = None
    letter: str | None = None
    power_surge: bool = False
    new_evidence: bool = False


class GiveUp(Command):
    """After your wrong guess: the letter you give up, or Hand Insurance."""

    type: Literal["give_up"] = "give_up"
    letter: str | None = None
    insurance: bool = False


class ChooseClue(Command):
    """Responding to an asked word: the clue you answer."""

    type: Literal["choose_clue"] = "choose_clue"
    clue: Clue
    unexpected_sabotage: bool = False


class Swap(Command):
    """Compensation (private): swap one of your letters for the offered one, or decline."""

    type: Literal["swap"] = "swap"
    give: str | None = None  # None: no swap
    unexpected_sabotage: bool = False


class GuessTotal(Command):
    """The opponent restored: your guess of the restored tanks' total recharge time."""

    type: Literal["guess_total"] = "guess_total"
    total: int
    unexpected_sabotage: bool = False


class SabotageTank(Command):
    """After a correct total: the restored tank you sabotage."""

    type: Literal["sabotage_tank"] = "sabotage_tank"
    tank: str


class UnexpectedSabotage(Command):
    """Whether to play Unexpected Sabotage on the tank the opponent just used."""

    type: Literal["unexpected_sabotage"] = "unexpected_sabotage"
    use: bool


COMMAND_TYPES: tuple[type[Command], ...] = (
    RaiseTime, Ready, ChooseRarities, ChooseHand, TakeTurn, GiveUp, ChooseClue, Swap,
    GuessTotal, SabotageTank, UnexpectedSabotage, Timeout,
)
