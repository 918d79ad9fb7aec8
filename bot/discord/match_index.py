"""The matches of each server, in memory, for `/match` autocomplete.

Discord drops an autocomplete answer that takes more than three seconds, and autocomplete
cannot be deferred, so the answer never waits on the store: it is made from the matches the
service holds (every running match and the recently ended ones) and a per-server list of
older matches read from the database (refreshed when older than `REFRESH_SECONDS`; an
answer waits for that read at most `WAIT_SECONDS`, and while a read is slow or failing the
last list, or none, is used)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time

from bot.facade import MatchSummary, UmpireApi

log = logging.getLogger(__name__)

REFRESH_SECONDS = 30.0
#: How long an answer waits for a database read under way (well inside Discord's 3 s).
WAIT_SECONDS = 1.0


class MatchIndex:
    """Per server: (when read, the stored matches) and the background read under way."""

    def __init__(self, api: UmpireApi) -> None:
        self.api = api
        self.stored: dict[int, tuple[float, list[MatchSummary]]] = {}
        self.reading: dict[int, asyncio.Task[None]] = {}

    async def find(self, guild_id: int, starts_with: str = "",
                   limit: int = 25) -> list[MatchSummary]:
        """This server's matches whose number starts with the digits typed, newest first.
        When the stored list is old a database read starts; it is waited for at most
        `WAIT_SECONDS` (then it goes on in the background and this answer does without)."""
        when, _ = self.stored.get(guild_id, (None, []))
        if when is None or time.monotonic() - when > REFRESH_SECONDS:
            task = self._refresh(guild_id)
            with contextlib.suppress(TimeoutError, asyncio.TimeoutError):
                await asyncio.wait_for(asyncio.shield(task), WAIT_SECONDS)
        _, older = self.stored.get(guild_id, (None, []))
        found = {m.id: m for m in older}
        for match in self.api.held():
            if match.transport.get("guild") == guild_id:
                found[match.id] = MatchSummary(match.id, match.game.slug,
                                               tuple(p.name for p in match.players),
                                               match.status)
        digits = "".join(ch for ch in starts_with if ch.isdigit())
        hits = [m for m in found.values() if str(m.id).startswith(digits)]
        return sorted(hits, key=lambda m: m.id, reverse=True)[:limit]

    def _refresh(self, guild_id: int) -> asyncio.Task[None]:
        """The read of this server's stored matches under way (started if none is)."""
        task = self.reading.get(guild_id)
        if task is None:
            task = asyncio.get_running_loop().create_task(self._read(guild_id))
            self.reading[guild_id] = task
            task.add_done_callback(lambda _: self.reading.pop(guild_id, None))
        return task

    async def _read(self, guild_id: int) -> None:
        try:
            rows = await self.api.guild_matches(guild_id, limit=100)
        except Exception:  # the store is down: answer from what is held, try again later
            log.warning("could not read the matches of server %s for autocomplete", guild_id,
                        exc_info=True)
            return
        self.stored[guild_id] = (time.monotonic(), rows)
