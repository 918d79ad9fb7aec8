"""The spectator feed's reveals, as each game declares them (`contract.Reveals`).

Anyone may read a match's feed, its players included. So while a match runs the feed shows
what both players may know, the game room's lines, and nothing else: a step that ends a
round or a bout reveals nothing of it there, whatever the unit of play. What the rules keep
from a player is shown once the match is over (by the rules, or because the hosts ended
it: then `before` and `after` are the same state): the game's declared `Reveals.text` of
the state it ended in, in the message of that last step. The export and the transcript of
an ended match show the same text (`end_reveal`). Pure and deterministic, like the rules:
the runtime stores the reveal with the step that caused it. Each game writes its text in
its own `games/<game>/feed.py`; the two-world harness (`games.core.information`) compares
the feed of twin worlds at every step until the end.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from games.core.contract import Game


def feed_reveals(game: Game[Any], before: BaseModel, after: BaseModel,
                 ended: bool) -> list[str]:
    """What the feed shows beyond the room's lines after the step from `before` to
    `after`: the declared reveal in the step that ends the match, else nothing."""
    declared = type(game).reveals
    if declared is None or not ended or (after is not before and game.is_over(before)):
        return []
    return [declared.text(after)]


def end_reveal(game: Game[Any], state: BaseModel, ended: bool) -> str | None:
    """The reveal of a match for its export and transcript: the declared text of the state
    it ended in, once it has ended; None while it runs (or for a game that reveals nothing)."""
    declared = type(game).reveals
    return declared.text(state) if declared is not None and ended else None
