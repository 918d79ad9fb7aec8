"""The end of a match's channels, as its own job: once a match has ended and its last post
went out, its room and tables become read-only, the Rematch offer is made (on the final
post itself where it can be, else as a post of its own), the archive is scheduled after
the server's delay, and `closed` is stored so that a restart does none of it twice.

The transport only tells it of each post (`sent`) and asks what the final post carries
(`final_items`); it imports none of the channel, challenge and archive code, so the
sending side of the Discord layer has no import circle through the end of a match."""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, Any

import discord

from bot.discord.channel_lifecycle import schedule_archive
from bot.discord.channels import lock_match_channels
from bot.discord.friendly import RematchButton, offer_rematch
from bot.discord.pacing import SENDING, Priority, Sending
from bot.discord.render import user_id_of
from bot.facade import StoredMessage, UmpireApi
from bot.transport import MatchInfo, PlayerRef

if TYPE_CHECKING:
    from bot.discord.client import UmpireBot
    from bot.discord.transport import DiscordTransport

log = logging.getLogger(__name__)

ENDED = ("finished", "aborted")


class MatchClosing:
    def __init__(self, client: UmpireBot, transport: DiscordTransport,
                 api: UmpireApi) -> None:
        self.client, self.transport, self.api = client, transport, api
        self._closing: set[int] = set()  # matches being closed right now
        self._tasks: set[asyncio.Task[Any]] = set()

    # --- what the transport asks -------------------------------------------------------------
    def final_items(self, match: MatchInfo, message: StoredMessage) -> list[discord.ui.Item[Any]]:
        """What this post carries besides its own buttons: the Rematch button on the room's
        last message of a match (`final`), unless the offer was made already (by an earlier
        try of it)."""
        if message.audience == "public" and message.payload.get("final") and \
                not match.transport.get("rematch_offered"):
            return [RematchButton(match.id)]
        return []

    async def sent(self, match: MatchInfo, offered: bool) -> None:
        """A post of the match went out (`offered`: it carried the Rematch offer): the offer
        is stored, and an ended match's channels are closed once."""
        if offered:
            await self._rematch_offered(match)
        self.after_send(match)

    async def _rematch_offered(self, match: MatchInfo) -> None:
        """Record that the final post carried the Rematch offer, so that closing the channels
        posts none of its own (stored at once: a restart before closing finds it)."""
        match.transport["rematch_offered"] = True
        live = self.api.live(match.id)
        if live is not None:
            live.transport["rematch_offered"] = True
        try:
            await self.api.remember(match.id, {"rematch_offered": True})
        except Exception as exc:  # kept in memory: closing stores it with `closed`
            log.warning("match %s: could not store the Rematch offer: %s", match.id, exc)

    # --- closing ----------------------------------------------------------------------------
    def after_send(self, match: MatchInfo) -> None:
        live = self.api.live(match.id)
        if live is None or live.status not in ENDED or live.transport.get("closed"):
            return
        self._close_in_background(match)

    def _close_in_background(self, match: MatchInfo) -> None:
        if match.id in self._closing:
            return
        self._closing.add(match.id)
        task = asyncio.create_task(self._close(match), name=f"lock-{match.id}")
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _close(self, match: MatchInfo) -> None:
        """Make the match's channels read-only, then record that it is done (`closed` in the
        match's transport data) so that a restart does not do it again."""
        SENDING.set(Sending(Priority.LOG, int(match.transport.get("guild") or 0)))
        playing = frozenset(
            uid for m in self.api.held()
            if m.id != match.id and m.status not in ENDED
            for p in m.players if (uid := user_id_of(p)) is not None)
        doomed = await self._deleted_soon(match)
        try:
            if not await lock_match_channels(self.client, match, playing, doomed):
                return  # the server is not known yet: a later sweep retries
            await offer_rematch(self.client, match, self.api)
            done = {"closed": True, **({"rematch_offered": True} if
                                       match.transport.get("rematch_offered") else {})}
            data = await self.api.remember(match.id, done)
            match.transport.update(data)
            live = self.api.live(match.id)
            if live is not None:  # a MatchInfo read from the store holds a copy
                live.transport.update(data)
            schedule_archive(self.client, match, unlocked=doomed)
            self.transport.forget(match)
        finally:
            self._closing.discard(match.id)

    async def _deleted_soon(self, match: MatchInfo) -> frozenset[int]:
        """The match's tables that its archive deletes as soon as it is closed (the server
        archives at once): not worth making read-only first."""
        config = getattr(self.client, "guild_config", None)
        data = match.transport
        created = {str(c) for c in data.get("created") or ()}
        if config is None or not created or data.get("archived"):
            return frozenset()
        try:
            delay = (await config(int(data.get("guild") or 0))).archive_delay_minutes
        except Exception as exc:  # the settings could not be read: close as usual
            log.warning("match %s: archive delay unknown (%s): tables locked", match.id, exc)
            return frozenset()
        return frozenset(int(t) for key in ("table0", "table1") if (t := data.get(key))
                         and str(t) in created) if delay == 0 else frozenset()

    async def close_ended(self) -> int:
        """Close the channels of every ended match that still has them open: the bot stopped
        between a match's last message and closing its channels. Called once connected;
        returns how many matches it closed."""
        rows = [row for row in await self.api.ended_with_open_places()
                if row.transport.get("room")]  # played on Discord
        for row in rows:
            self._close_in_background(MatchInfo(
                id=row.id, game=row.game, transport=dict(row.transport),
                players=tuple(PlayerRef.from_json(p) for p in row.players)))
        await self.wait_idle()
        return len(rows)

    def memory(self) -> int:
        """Matches kept here (none once closed: for the tests that it does not grow)."""
        return len(self._closing)

    async def wait_idle(self) -> None:
        """Wait for the closings under way (shutdown, tests)."""
        while self._tasks:
            await asyncio.gather(*list(self._tasks), return_exceptions=True)
