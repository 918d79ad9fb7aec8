"""The typed decisions of Double or Nothing (frozen pydantic models, `type` discriminated).

Public moves (game room): ChooseStarter, Play (cards named), Draw, DrawJoker, Double,
Answer (accept / forfeit), Pass. Private follow-ups (table channel): Place (where a drawn
card or joker goes) and PlayAt (which of several identical sets to play).
"""

from __future__ import annotations

from typing import Literal

from games.core.contract import Command, Timeout


class ChooseStarter(Command):
    """The advantage holder names the first player of bout 1 (a seat number)."""

    type: Literal["choose_starter"] = "choose_starter"
    starter: int


class Play(Command):
    """Play the adjacent cards named, in hand order ("5", "J", ...)."""

    type: Literal["play"] = "play"
    cards: tuple[str, ...]


class PlayAt(Command):
    """Which of several identical sets: the one starting at hand position `start` (0-based)."""

    type: Literal["play_at"] = "play_at"
    start: int


class Draw(Command):
    """Draw the card of this number from the table set."""

    type: Literal["draw"] = "draw"
    number: int


class DrawJoker(Command):
    type: Literal["draw_joker"] = "draw_joker"


class Place(Command):
    """Put the drawn card or joker so that it becomes hand position `position` (0-based)."""

    type: Literal["place"] = "place"
    position: int


class Double(Command):
    type: Literal["double"] = "double"


class Answer(Command):
    """Answer to a proposed double: accept (the stake doubles) or forfeit the bout."""

    type: Literal["answer"] = "answer"
    accept: bool


class Pass(Command):
    """Only when no draw, no joker and no double is possible (house ruling)."""

    type: Literal["pass"] = "pass"


class AwardBout(Command):
    """The hosts award the running bout to the seat that submits it (clocks here have no
    automatic outcome: the hosts decide). Never typed by a player: only `host_award` makes it."""

    type: Literal["award_bout"] = "award_bout"
    reason: str = "awarded by the hosts"


COMMAND_TYPES = (ChooseStarter, Play, PlayAt, Draw, DrawJoker, Place, Double, Answer, Pass,
                 AwardBout, Timeout)
