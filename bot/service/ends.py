"""A match's end, for what is built on matches (tournaments) and for who waits on it."""

from __future__ import annotations

import asyncio
import copy
import logging
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from bot.live import LiveMatch
from bot.service.types import EndHook, Statement
from bot.status import MatchStatus

log = logging.getLogger(__name__)


class Ends:
    """The end hooks (told of every match's end, in its transaction and once stored) and
    the condition that `wait_finished` waits on."""

    def __init__(self) -> None:
        self.hooks: list[EndHook] = []
        self.finished = asyncio.Condition()

    def statements(self, ended: LiveMatch, now: datetime) -> list[Statement]:
        """What the end hooks store in the transaction of a match's result."""
        return [s for hook in self.hooks if (s := hook.statement(ended, now)) is not None]

    def tell(self, match: LiveMatch) -> None:
        """A match's end is stored: the end hooks hear of it (they must not wait on it)."""
        for hook in self.hooks:
            try:
                hook.ended(match)
            except Exception:
                log.exception("an end hook failed for match %s", match.id)

    async def notify(self) -> None:
        """Wake whoever waits for matches to end (`wait`)."""
        async with self.finished:
            self.finished.notify_all()

    async def wait(self, matches: Mapping[int, LiveMatch], match_ids: Sequence[int],
                   timeout: float | None = None) -> None:
        """Wait until every match in `match_ids` has ended (or is no longer in `matches`)."""
        async def done() -> None:
            async with self.finished:
                await self.finished.wait_for(lambda: all(
                    m not in matches or matches[m].ended for m in match_ids))
        await asyncio.wait_for(done(), timeout)


def as_ended(match: LiveMatch, status: MatchStatus, result: dict[str, Any] | None) -> LiveMatch:
    """The match as it will be once its end is stored, for the result's statement (which
    reads status and result), while the live match stays as it is until then."""
    ended = copy.copy(match)
    ended.status, ended.result = status, result
    return ended
