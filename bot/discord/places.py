"""Where each audience of a match is on Discord: the key of its channel in the match's
transport data ("public" -> "room", "seat0" -> "table0", "umpire" -> "log", "feed"), its
server, and the channel named for the hosts ("the table <#1> of ann (match #12)").

Its own module, not the transport's: the channel keeper, the routing of typed moves and the
end of a match's channels need these names, and none of them may import the transport
(which closes no channels itself and imports none of them)."""

from __future__ import annotations

from typing import Any

from bot.discord.render import escape
from bot.transport import MatchInfo

AUDIENCE_KEYS = {"public": "room", "seat0": "table0", "seat1": "table1", "umpire": "log",
                 "feed": "feed"}
PLACE_NAMES = {"public": "the game room", "umpire": "the host log", "feed": "the spectator feed"}


def channel_for(transport: dict[str, Any], audience: str) -> int | None:
    """The channel id of `audience` in a match's transport data (None: it has none)."""
    value = transport.get(AUDIENCE_KEYS.get(audience, audience))
    return int(value) if value else None


def server_of(match: MatchInfo) -> int:
    """The id of the match's server (0: none stored)."""
    return int(match.transport.get("guild") or 0)


def _name(match: MatchInfo, audience: str) -> str | None:
    if not audience.startswith("seat"):
        return None
    seat = int(audience[4:])
    name = match.players[seat].name if seat < len(match.players) else f"seat {seat + 1}"
    return escape(name)


def where(match: MatchInfo, audience: str, channel_id: int) -> str:
    """The channel of `audience`, for the hosts: "the table <#1> of ann (match #12)"."""
    name = _name(match, audience)
    if name is not None:
        return f"the table <#{channel_id}> of {name} (match #{match.id})"
    return f"{PLACE_NAMES.get(audience, audience)} <#{channel_id}> (match #{match.id})"
