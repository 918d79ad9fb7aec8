"""With sharding on, a process answers only the servers of the shards it owns.

Every process connects to the gateway as one client and receives every server's events; it
ignores interactions (slash commands, buttons, modals) and messages of servers whose shard it
does not own at the moment, so exactly one process answers each. Ownership moves with the
leases (bot/shards.py): when a process takes a dead one's shard over, it starts answering
those servers at once, without reconnecting. (Discord's own gateway sharding would split
the events too, but a process could then not take over the servers of a shard it is not
connected to.)

Input already taken in when the shard is lost (a pause: a process stopped for longer than
its lease resumes with events and replies under way) must not be answered either: every
post the front end makes outside the outbox (the outbox's own are fenced in the service)
asks `may_post` right before it is sent, and a command's replies go through `ShardContext`,
whose `send` asks it too. A stale process so never posts for a server it no longer umpires.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from typing import Any

from discord.ext import commands

from bot.discord.errors import Silenced

log = logging.getLogger(__name__)

#: The gateway events filtered: those a person's input arrives by.
INPUT_EVENTS = ("INTERACTION_CREATE", "MESSAGE_CREATE")


def answer_only_owned(client: Any, owns_guild: Callable[[int], bool]) -> None:
    """Wrap the client's parsers of input events: an event of a server `owns_guild` refuses
    is dropped before discord.py dispatches it (direct messages count as server 0)."""
    parsers = client._connection.parsers
    for event in INPUT_EVENTS:
        parse = parsers[event]

        def only_owned(data: dict[str, Any], parse: Callable[[Any], None] = parse) -> None:
            if owns_guild(int(data.get("guild_id") or 0)):
                parse(data)

        parsers[event] = only_owned


class LostShard(Silenced):
    """This process lost the shard of the server or match it was about to post for: it
    answers nothing (the process that took the shard answers from now on)."""


def may_post(client: Any, transport: Mapping[str, Any]) -> bool:
    """Whether this process may post now for a match played where `transport` says (or a
    server: {"guild": id}): always, unless sharded; then only while it holds the shard's
    lease, its two-thirds deadline not passed (`UmpireApi.acting`)."""
    api = getattr(client, "api", None)
    if api is None or api.acting(transport):
        return True
    log.warning("not posting for server %s: its shard was lost here (another process "
                "umpires it now)", transport.get("guild"))
    return False


class ShardContext(commands.Context[Any]):
    """A command's context whose replies are posted only while `may_post` for its server."""

    async def send(self, *args: Any, **kwargs: Any) -> Any:
        if not may_post(self.bot, {"guild": self.guild.id if self.guild else 0}):
            return None
        return await super().send(*args, **kwargs)
