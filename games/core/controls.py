"""What a front end with buttons and menus shows beside a decision, in plain data.

A game describes its controls (`contract.Controls`) with these values and never with a chat
library's classes, so the rules stay pure; the Discord layer turns each value into its
component (`bot.discord.components`). Every control submits text the game's `parse`
accepts, exactly as if the player had typed it where the control is.

A game's hooks see a decision as an `Asked`: its prompt's public facts and the view of the
audience the message goes to (the seat's own view in its table channel, the public view in
the game room). That is all they may show, so a control or a note can leak nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import StrEnum

from pydantic import BaseModel

#: (label, value): an option of a menu; the value is what it submits.
Option = tuple[str, str]


class Tone(StrEnum):
    """A button's colour, by what it does."""

    PRIMARY = "primary"  # the usual choice
    SECONDARY = "secondary"  # a quiet one (pass, no)
    SUCCESS = "success"  # a go-ahead (call, accept, ready)
    DANGER = "danger"  # a costly one (fold, forfeit, sabotage)


@dataclass(frozen=True)
class Asked:
    """One decision a message asks for, as a game's controls see it."""

    key: str
    seat: int
    kind: str
    choices: tuple[str, ...]
    #: What the message's audience may know while the decision is pending (`Game.view` of
    #: the seat for a private decision, of a spectator for a public one; for a private menu,
    #: the clicker's own view); None once the decision is no longer pending (a late delivery).
    view: BaseModel | None = None


@dataclass(frozen=True)
class Button:
    """A button submitting one of the decision's `choices`."""

    choice: str
    label: str = ""  # "" : the choice's text
    tone: Tone = Tone.PRIMARY


@dataclass(frozen=True)
class Menu:
    """A menu of the decision's `choices`, one label per choice in their order."""

    labels: tuple[str, ...]
    placeholder: str = "Choose…"


@dataclass(frozen=True)
class InOrder:
    """Pick `count` options one after the other (the order matters: what is revealed first);
    submits the picked values joined by spaces. Later picks are asked privately."""

    count: int
    options: tuple[Option, ...]
    placeholder: str = "Choose…"


@dataclass(frozen=True)
class Several:
    """Pick `count` options at once (order irrelevant); submits `<verb> <values...>`."""

    verb: str
    options: tuple[Option, ...]
    count: int = 1
    placeholder: str = "Choose…"


@dataclass(frozen=True)
class Private:
    """A button in a public room answered to the clicker alone with a menu of their own
    options (`Controls.private_options`, from their view); the menu submits
    `<verb> <value>`. A public decision over a secret (a letter of your hand) thus needs no
    typing and shows nothing to the room."""

    verb: str
    label: str
    tone: Tone = Tone.SECONDARY


Control = Button | Menu | InOrder | Several | Private


def bet_rows(choices: Sequence[str], label: Callable[[str], str],
             tone: Callable[[str], Tone]) -> list[list[Control]]:
    """A bet's buttons for the poker games: calls and folds on the first row, the raises on
    the second (at most five), the largest marked max."""
    raises = [c for c in choices if c.startswith("raise ")]
    first: list[Control] = []
    second: list[Control] = []
    for c in choices:
        text = label(c)
        if raises and c == raises[-1] and len(raises) > 1:
            text += " (max)"
        (second if c.startswith("raise") else first).append(Button(c, text, tone(c)))
    return [row for row in (first, second[:5]) if row]
