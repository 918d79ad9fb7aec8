"""The types the service's pieces and its callers share."""

from __future__ import annotations

import dataclasses
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from sqlalchemy.engine import Connection

from bot.live import LiveMatch
from bot.store.repository import MatchWrite
from bot.transport import render_names
from games.core import Command

#: A statement run in the transaction of a write (`MatchWrite.also`); what it returns is
#: not used.
Statement = Callable[[Connection], object]


@dataclass(frozen=True)
class Reply:
    """The answer to a submitted message, for the player who sent it."""

    accepted: bool
    message: str = ""
    delete: bool = False  # a private move typed in the public room: remove it
    ignored: bool = False  # not a player of this match: spectator chat


PRIVATE_IN_ROOM = ("That decision is private: make it in your table channel. Nothing was "
                   "applied.")
PUBLIC_AT_TABLE = ("Make that move in the public game room, where both players can see it. "
                   "Nothing was applied.")


def rendered(match: LiveMatch, reply: Reply) -> Reply:
    """The reply with `{P0}` / `{P1}` filled in (one pass: names are data, never templates)."""
    if not reply.message:
        return reply
    return dataclasses.replace(reply, message=render_names(reply.message, match.names))


class EndHook(Protocol):
    """What is built on matches and advances with their results (a tournament's runner)."""

    def statement(self, match: LiveMatch, now: datetime) -> Statement | None:
        """A statement stored in the same transaction as the match's end (`match` has its
        status and result as they will be stored), or None."""

    def ended(self, match: LiveMatch) -> None:
        """The end is stored (called under the match's lock: start work, never wait)."""


#: Store one step's write, or raise `NotStored` (nothing of it took effect).
Store = Callable[[LiveMatch, MatchWrite, datetime], Awaitable[None]]
#: Check, apply, store and make live one command of a seat (`source`: who made it).
Accept = Callable[[LiveMatch, int, Command, str], Awaitable[Reply]]
