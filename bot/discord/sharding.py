"""With sharding on, a process answers only the servers of the shards it owns.

Every process connects to the gateway as one client and receives every server's events; it
ignores interactions (slash commands, buttons, modals) and messages of servers whose shard it
does not own at the moment, so exactly one process answers each. Ownership moves with the
leases (bot/shards.py): when a process takes a dead one's shard over, it starts answering
those servers at once, without reconnecting. (Discord's own gateway sharding would split
the events too, but a process could then not take over the servers of a shard it is not
connected to.)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

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
