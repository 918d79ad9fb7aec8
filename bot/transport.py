"""What the match service needs from a transport (Discord, the console, a test fake).

Messages are addressed to an audience of a match: "public" (the game room), "seat0" /
"seat1" (that player's private table channel) or "umpire" (the host log). Their text may
hold `{P0}` / `{P1}` (player names) and `{until:ISO-8601}` (a deadline); each transport
renders those its own way: Discord as mentions and relative timestamps, a terminal as plain
names and "in 25 s".
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol

from bot.store.repository import StoredMessage

UNTIL = re.compile(r"\{until:([^}]+)\}")
#: Every placeholder of the umpire's texts, matched in one pass so that a substituted value
#: (a player's name such as "X {P1}") is never read as a placeholder again.
PLACEHOLDER = re.compile(r"\{P(\d)\}|\{until:([^}]+)\}")


@dataclass(frozen=True)
class PlayerRef:
    id: str  # transport's user id ("discord:1234", "console:you", "bot:random")
    name: str
    bot: str | None = None  # built-in bot name when a bot plays this seat

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "name": self.name, "bot": self.bot}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> PlayerRef:
        return cls(id=str(data["id"]), name=str(data["name"]), bot=data.get("bot"))


@dataclass(frozen=True)
class MatchInfo:
    """What a transport needs to know about a match to deliver its messages."""

    id: int
    game: str
    players: tuple[PlayerRef, ...]
    transport: dict[str, Any]


class TransportError(Exception):
    """Delivery failed. `permanent` failures (an unreachable channel) are not retried."""

    def __init__(self, message: str, *, permanent: bool = False) -> None:
        super().__init__(message)
        self.permanent = permanent


class ChannelHeld(TransportError):
    """The message must not go to its channel now, and must not be given up on either.

    Raised by a transport before it posts when the channel is not as the match needs it:
    someone other than its intended readers could read a secret there, or the bot has lost
    access to it. Delivery holds the channel's queue (nothing later in that channel is
    posted before it), stops the clocks of the decisions waiting on it, tells the hosts
    `for_hosts` once, and retries: with backoff, and at once when `Delivery.wake` is called
    (the transport's guild update listeners do). `for_hosts` says what is wrong and how to
    fix it; it names channels and people, never a match's private state."""

    def __init__(self, message: str, *, for_hosts: str) -> None:
        super().__init__(message, permanent=False)
        self.for_hosts = for_hosts


class Transport(Protocol):
    async def send(self, match: MatchInfo, message: StoredMessage) -> None:
        """Deliver one message; `message.id` is unique and stable (use it to de-duplicate)."""


def render_text(text: str, name: Callable[[int], str | None],
                deadline: Callable[[datetime], str] | None = None) -> str:
    """Fill `{P<seat>}` with `name(seat)` and `{until:ISO}` with `deadline(moment)` in one
    pass: names are data, never templates. A placeholder without a value (an unknown seat, a
    malformed time, no `deadline`) stays as it is."""
    def one(m: re.Match[str]) -> str:
        if m.group(1) is not None:
            value = name(int(m.group(1)))
            return m.group(0) if value is None else value
        if deadline is None:
            return m.group(0)
        try:
            return deadline(datetime.fromisoformat(m.group(2)))
        except ValueError:
            return m.group(0)
    return PLACEHOLDER.sub(one, text)


def render_names(text: str, names: Sequence[str]) -> str:
    """`{P0}` / `{P1}` as the players' names (one pass; deadlines left as they are)."""
    return render_text(text, lambda seat: names[seat] if seat < len(names) else None)


def render_deadlines(text: str, render: Callable[[datetime], str]) -> str:
    """`{until:ISO}` rendered; names left as they are."""
    return render_text(text, lambda seat: None, render)


def seconds_left(deadline: datetime, now: datetime) -> str:
    """A deadline for a terminal: "in 25 s", "in 2 min 5 s", "now"."""
    left = int(round((deadline - now).total_seconds()))
    if left <= 0:
        return "now"
    minutes, seconds = divmod(left, 60)
    return f"in {minutes} min {seconds} s" if minutes else f"in {seconds} s"
