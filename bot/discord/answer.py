"""A click in a player's own table, answered with the umpire's next post there.

A move made with a button or menu used to cost two requests: the click acknowledged
without a visible change, then the outbox's post to the table (the confirmation or the next
prompt) against the channel's message bucket. Instead, while the click is not yet
acknowledged, the next outbox post of that same channel goes out as the interaction's
response (a channel message, type 4), which Discord does not count against the bot's rate
limits. It is the post the outbox would have made there, marker included, in its turn.

Only for a click in the clicker's own table: the response lands in the channel the click was
made in, the one the post was for, so it goes nowhere the post would not have gone, and the
opponent sees nothing of it in any world. Discord allows 3 s for a first response: a post
not ready within `ANSWER_SECONDS` of the click goes out as a normal post and the click is
acknowledged as before; a response that fails is posted normally by the outbox (looked for
in the channel first when Discord may have taken it).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any

import discord

from bot.discord.render import player_id

if TYPE_CHECKING:
    from bot.discord.client import UmpireBot

log = logging.getLogger(__name__)

#: How long after a click its channel's next post may still be its response (Discord allows
#: 3 s for the first response; the rest is margin for the request itself).
ANSWER_SECONDS = 2.0


class Answer:
    """One click waiting for its channel's next post: open, then claimed by the transport
    for that post (and settled once the response went out or failed) or closed unused."""

    def __init__(self, interaction: discord.Interaction[Any], channel_id: int,
                 seconds: float = ANSWER_SECONDS) -> None:
        self.interaction = interaction
        self.channel_id = channel_id
        self.until = asyncio.get_running_loop().time() + seconds
        self.state = "open"
        self._settled = asyncio.Event()  # claimed and answered (or failed), or closed
        self._lock = asyncio.Lock()

    @property
    def open(self) -> bool:
        return self.state == "open" and asyncio.get_running_loop().time() < self.until

    def claim(self) -> discord.Interaction[Any] | None:
        """The interaction to answer the channel's next post with, if it still may be."""
        if not self.open:
            return None
        self.state = "claimed"
        return self.interaction

    def answered(self) -> None:
        """The claimed response went out or failed: the click may be settled."""
        self._settled.set()

    async def wait(self) -> None:
        """Until a claimed response is settled, or the time for one is up."""
        timeout = self.until - asyncio.get_running_loop().time()
        if self.state == "claimed":
            timeout += 2.0  # a response under way: its request may take a moment
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._settled.wait(), max(0.0, timeout))

    async def settle(self) -> None:
        """Close the answer (no post claims it any more) and acknowledge the click if no
        response went out: within Discord's 3 s either way. Safe to call more than once."""
        async with self._lock:
            if self.state == "open":
                self.state = "closed"
                self._settled.set()
            elif self.state == "claimed":
                await self.wait()
            response = self.interaction.response
            if not response.is_done():
                try:
                    await response.defer()
                except (discord.HTTPException, discord.InteractionResponded) as exc:
                    log.warning("could not acknowledge a click: %s", exc)


@contextlib.asynccontextmanager
async def answering(bot: UmpireBot, interaction: discord.Interaction[Any],
                    match_id: int) -> AsyncIterator[Answer | None]:
    """While a click's move is submitted: its table's next post may answer it (an `Answer`,
    None when the click is not in the clicker's own table: acknowledged at once). On exit
    the click is settled; at `ANSWER_SECONDS` it is acknowledged in any case."""
    answer = _open(bot, interaction, match_id)
    if answer is None:
        if not interaction.response.is_done():
            await interaction.response.defer()
        yield None
        return
    loop = asyncio.get_running_loop()
    late: list[asyncio.Task[None]] = []
    timer = loop.call_at(answer.until, lambda: late.append(loop.create_task(answer.settle())))
    try:
        yield answer
    finally:
        timer.cancel()
        try:
            await answer.settle()
            for task in late:
                await task
        finally:
            bot.transport.close_answer(answer)


async def wait_for_post(bot: UmpireBot, answer: Answer | None, match_id: int) -> None:
    """After an accepted move: if its table has a post on its way, give it the time to be
    the click's response (at most until the answer's time is up)."""
    if answer is None:
        return
    place = bot.routing.place_of(answer.channel_id)
    audience = f"seat{place.seat}" if place is not None else ""
    if bot.api.post_pending(match_id, audience):
        await answer.wait()


def _open(bot: UmpireBot, interaction: discord.Interaction[Any], match_id: int) -> Answer | None:
    """An answer for a click in the clicker's own table of a running match, else None."""
    place = bot.routing.place_of(interaction.channel_id)
    match = bot.api.live(match_id)
    if place is None or place.match_id != match_id or place.seat is None or match is None \
            or interaction.response.is_done():
        return None
    if match.seat_of(player_id(interaction.user.id)) != place.seat:
        return None
    return bot.transport.open_answer(interaction, int(interaction.channel_id or 0))
