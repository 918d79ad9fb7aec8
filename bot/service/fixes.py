"""The prompt fix: a typed move that waits a few seconds before it is taken.

Decoder's seed: "the host will take the first legal submission you make, unless you promptly
fix the submission". A decision whose prompt has `fix_seconds` takes a legal move typed in
the room only once its window closes, `fix_seconds` after the message arrived. Until then
its sender may edit the message (the edited text is the move) or delete it (no move); a
second message does not replace the first. The sender's clock stands still from the first
message on: the window is never charged, and no reminder or timeout falls due meanwhile.

This module keeps the waiting moves and their due times; the command path (`CommandPath`)
takes, replaces and withdraws them. A waiting move lives in memory only: one still waiting
when the process stops is not taken (nothing was accepted yet), and its sender types it
again once the match resumes.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import NamedTuple

from bot.clock import Scheduler


class FixDue(NamedTuple):
    """The scheduler's token for a waiting move's window (match id first, like a clock's,
    so that forgetting a match's clocks forgets its windows too)."""

    match_id: int
    seat: int


@dataclass
class Waiting:
    """A legal move in its fix window."""

    seat: int
    key: str  # the decision it answers (taken only while that decision is still pending)
    text: str  # as typed, or as last edited
    ref: str | None  # the message it was typed in: an edit or a deletion names it
    arrived: datetime  # the sender's clock stands still from here
    due: datetime  # when it is taken


class FixWindows:
    """The moves waiting in their fix windows, by (match id, seat): at most one a seat."""

    def __init__(self, scheduler: Scheduler) -> None:
        self.scheduler = scheduler
        self.waiting: dict[tuple[int, int], Waiting] = {}

    def of(self, match_id: int, seat: int) -> Waiting | None:
        return self.waiting.get((match_id, seat))

    def by_ref(self, match_id: int, ref: str) -> Waiting | None:
        return next((w for (m, _), w in self.waiting.items() if m == match_id and w.ref == ref),
                    None)

    def holds(self, match_id: int, key: str) -> bool:
        """Whether the clock of decision `key` stands still for a move in its window."""
        return any(m == match_id and w.key == key for (m, _), w in self.waiting.items())

    def open(self, match_id: int, seat: int, key: str, text: str, ref: str | None,
             arrived: datetime, seconds: float) -> Waiting:
        waiting = Waiting(seat, key, text, ref, arrived, arrived + timedelta(seconds=seconds))
        self.waiting[(match_id, seat)] = waiting
        self.scheduler.set(FixDue(match_id, seat), waiting.due)
        return waiting

    def close(self, match_id: int, seat: int) -> Waiting | None:
        """The seat's waiting move, no longer waiting (taken, withdrawn or dropped)."""
        self.scheduler.set(FixDue(match_id, seat), None)
        return self.waiting.pop((match_id, seat), None)

    def of_match(self, match_id: int) -> list[Waiting]:
        return [w for (m, _), w in self.waiting.items() if m == match_id]

    def forget(self, gone: set[int]) -> None:
        for key in [k for k in self.waiting if k[0] in gone]:
            self.close(*key)
