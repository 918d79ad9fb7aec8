"""A match's spectator feed: a read-only channel that shows the match as it is played.

The feed gets what the game room gets (every public line, without buttons) and nothing
more while the match runs: anyone may read it, the players included, so it shows only what
both players may know. In the message of the step that ends the match (or of the hosts'
ending it) it adds what the game declares it reveals then (`contract.Reveals`, through
`games.core.feed`): the hands a fold left unshown, say. It is an audience of its own,
"feed", in the same outbox as the room and the tables, so it has the same order, retries
and checks before every post (a Discord feed must be writable by no one but the bot: see
bot/discord/feed.py). The match's clocks never wait on it.

A match has a feed when its transport data names one (`FEED_KEY`): `/match start feed:`
sets it, and an event runtime turns it on for its matches with `with_feed`.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from typing import Any

from bot.store.repository import OutboxData
from games.core.contract import Game
from games.core.feed import feed_reveals

log = logging.getLogger(__name__)

FEED = "feed"  # the audience
FEED_KEY = "feed"  # the match's transport data: the feed channel's id
LABEL_KEY = "feed_label"  # a heading for each of its feed messages (a feed shared by matches)


def with_feed(transport: Mapping[str, Any], channel_id: int | str,
              label: str | None = None) -> dict[str, Any]:
    """`transport` (a match's channels, before `MatchService.start_match`) with its feed
    in `channel_id`: how a host's start or an event's runtime turns the feed on. `label`
    heads each of the match's feed messages, so that the matches of an event's round,
    posting in one feed at once, can be told apart."""
    return {**transport, FEED_KEY: int(channel_id), **({LABEL_KEY: label} if label else {})}


def has_feed(transport: Mapping[str, Any]) -> bool:
    return bool(transport.get(FEED_KEY))


def reveal_rows(game: Game[Any], before: Any, after: Any, ended: bool) -> list[OutboxData]:
    """The feed's reveals of one step (none but in the step that ends the match), as outbox
    rows (joined to the step's feed message by `mirrored`). A failing feed module costs the feed its reveal, never the match its
    move: it is logged, and the step is stored without it."""
    try:
        texts = feed_reveals(game, before, after, ended)
    except Exception:
        log.exception("%s: the spectator feed's reveals failed; the step goes on without",
                      game.slug)
        return []
    return [OutboxData(FEED, text) for text in texts]


def mirrored(transport: Mapping[str, Any], outbox: Sequence[OutboxData]) -> list[OutboxData]:
    """The outbox of one write with the feed's message: the room's lines, then the reveals,
    as one message (one per audience per step). No feed: the outbox as it is. Idempotent:
    a write composed once is not mirrored again if it is stored again."""
    rows = list(outbox)
    if not has_feed(transport) or any(o.audience == FEED and o.payload.get("room")
                                      for o in rows):
        return rows
    public = [o for o in rows if o.audience == "public"]
    reveals = [o for o in rows if o.audience == FEED]
    lines = [o.text for o in (*public, *reveals)]
    if not lines:
        return rows
    if transport.get(LABEL_KEY):
        lines.insert(0, f"**{transport[LABEL_KEY]}**")
    payload: dict[str, Any] = {"room": True}  # no "prompts": no buttons, no clock waits on it
    for o in public:
        if "status" in o.payload:
            payload["status"] = o.payload["status"]
        if "deadlines" in o.payload:  # (the deadlines it shows move as the room's do)
            payload["deadlines"] = {**payload.get("deadlines", {}), **o.payload["deadlines"]}
    if public and all(o.payload.get("fold") for o in public):
        payload["fold"] = True  # the room's announcement: the feed's may be folded as it is
    return [*(o for o in rows if o.audience != FEED), OutboxData(FEED, "\n".join(lines), payload)]
