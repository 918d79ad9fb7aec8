"""A click answered in its interaction: the channel's next post as the click's response, the
posts that follow from it as the interaction's follow-ups.

A move made with a button or menu used to cost a post against the bot's global rate limit
for every message it made the umpire post where the click was made: the click acknowledged
without a visible change, then the outbox's posts (the confirmation, a built-in bot's
reply, the next prompt). Discord counts neither an interaction's response nor its follow-ups
(the interaction token's webhook, valid 15 minutes) against that limit. So, for a click in
a channel of its match by a player who may make moves there (any player in the room, only
its own player in a table):

- while the click is not yet acknowledged, the channel's next outbox post goes out as the
  interaction's response (a channel message, type 4), within `ANSWER_SECONDS`; else the
  click is acknowledged without a message (type 6), as before;
- after that, the channel's posts go out as follow-ups of the interaction, until one of
  them asks a person (not a built-in bot) for a decision (that one included: the player's
  next prompt) or `FOLLOW_SECONDS` have passed, whichever is first; a later click in the
  channel takes over. The next decision asked is the bound that matters: what comes before
  it in the channel follows from the click, however long the other player or a built-in
  bot takes (a table's round result after the opponent's pick, a minute later); the time
  limit only keeps well inside the 15 minutes Discord keeps the interaction's token (a
  follow-up it no longer takes is posted normally, below).

Each is the post the outbox would have made there, marker included, in its turn. Nothing
goes anywhere the post would not have gone: a response or follow-up lands in the channel the
click was made in, the one the post was for; a post for another channel (a table after a
click in the room) is an ordinary post. A click on a private (ephemeral) menu answers
nothing itself: the public button or menu that opened it does. What decides a response or
follow-up is the channel's own clicks and posts only, so a channel's readers learn nothing
of what happens in any other channel (a table's click changes nothing in the room).

A response or follow-up refused outright is posted normally; one that may have reached
Discord (a 5xx, a lost answer) is looked for in the channel first (by its marker: a
response has no nonce), then posted. Either way the click stops answering posts.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Awaitable
from typing import TYPE_CHECKING, Any

import aiohttp
import discord

from bot.discord.render import player_id

if TYPE_CHECKING:
    from bot.discord.client import UmpireBot

log = logging.getLogger(__name__)

#: How long after a click its channel's next post may still be its response (Discord allows
#: 3 s for the first response; the rest is margin for the request itself).
ANSWER_SECONDS = 2.0
#: How long after a click its channel's posts may be its follow-ups at most: the next decision
#: asked ends them first unless a player takes longer than this (Discord keeps the
#: interaction's token 15 minutes; 10 leave room for a follow-up queued behind a limit).
#: With 10 s, a table's post that follows the opponent's move (RPS Poker's round result and
#: next prompt) missed the window whenever the opponent thought longer (issue 40).
FOLLOW_SECONDS = 600.0

OPEN, CLAIMED, SETTLED = "open", "claimed", "settled"


class Answer:
    """One click answering its channel's posts: open (the next post may be its response),
    claimed by the transport for that post, then settled (answered or acknowledged); while
    `following`, the channel's posts are its follow-ups."""

    def __init__(self, interaction: discord.Interaction[Any], channel_id: int,
                 seconds: float = ANSWER_SECONDS, follow: float = FOLLOW_SECONDS, *,
                 respond: bool = True) -> None:
        self.interaction = interaction
        self.channel_id = channel_id
        now = asyncio.get_running_loop().time()
        self.until = now + (seconds if respond else 0.0)
        self.follow_until = now + follow
        self.state = OPEN if respond else SETTLED
        self.following = True
        self._settled = asyncio.Event()  # claimed and answered (or failed), or closed
        if not respond:
            self._settled.set()
        self._lock = asyncio.Lock()

    @property
    def open(self) -> bool:
        return self.state == OPEN and asyncio.get_running_loop().time() < self.until

    @property
    def busy(self) -> bool:
        """Whether the click may still get (or is getting) a post as its response."""
        return self.open or (self.state == CLAIMED and not self._settled.is_set())

    @property
    def followable(self) -> bool:
        """Whether the channel's next post may be a follow-up of this click."""
        return self.following and self.state != OPEN and self.interaction.response.is_done() \
            and asyncio.get_running_loop().time() < self.follow_until

    def claim(self) -> discord.Interaction[Any] | None:
        """The interaction to answer the channel's next post with, if it still may be."""
        if not self.open:
            return None
        self.state = CLAIMED
        return self.interaction

    def answered(self) -> None:
        """The claimed response went out or failed: the click may be settled."""
        self._settled.set()

    async def wait(self) -> None:
        """Until a claimed response is settled, or the time for one is up."""
        timeout = self.until - asyncio.get_running_loop().time()
        if self.state == CLAIMED:
            timeout += 2.0  # a response under way: its request may take a moment
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._settled.wait(), max(0.0, timeout))

    async def settle(self) -> None:
        """Close the answer (no post claims it as its response any more) and acknowledge the
        click if no response went out: within Discord's 3 s either way. Safe to call more
        than once."""
        async with self._lock:
            if self.state == CLAIMED:
                await self.wait()
            self.state = SETTLED
            self._settled.set()
            response = self.interaction.response
            if not response.is_done():
                try:
                    await response.defer()
                except (discord.HTTPException, discord.InteractionResponded) as exc:
                    log.warning("could not acknowledge a click: %s", exc)

    async def deliver(self, content: str, view: Any, embeds: Any,
                      mentions: discord.AllowedMentions, *, asks: bool) -> bool | None:
        """Post as this click's response or follow-up: True when posted, None when it may
        not be (or was refused outright: post it normally), False when it failed and Discord
        may still have taken it (a 5xx, a lost answer: look for it, then post). `asks`: the
        post asks a person for a decision (the last this click answers)."""
        interaction = self.claim()
        send: Awaitable[Any]
        if interaction is not None:
            send = interaction.response.send_message(
                content=content, view=view, embeds=embeds, allowed_mentions=mentions)
            what = "response"
        elif self.followable:
            send = self.interaction.followup.send(
                content=content, view=view, embeds=embeds, allowed_mentions=mentions)
            what = "follow-up"
        else:
            return None
        try:
            await send
        except (discord.NotFound, discord.Forbidden, discord.InteractionResponded) as exc:
            log.info("a click's %s was refused (%s): posted normally", what, exc)
            return self._stopped(None)
        except discord.HTTPException as exc:
            if exc.status < 500:
                log.info("a click's %s was refused (%s): posted normally", what, exc)
                return self._stopped(None)
            log.warning("a click's %s failed (%s): looked for, then posted", what, exc)
            return self._stopped(False)
        except (aiohttp.ClientError, TimeoutError, OSError) as exc:
            log.warning("a click's %s failed (%r): looked for, then posted", what, exc)
            return self._stopped(False)
        finally:
            if interaction is not None:
                self.answered()
        if asks:
            self.following = False
        return True

    def stop(self) -> None:
        """No more follow-ups (the click was refused: nothing follows from it)."""
        self.following = False

    def _stopped(self, result: bool | None) -> bool | None:
        self.stop()
        return result


class Answers:
    """The clicks answering their channels' posts: at most one per channel (the latest)."""

    def __init__(self, follow_seconds: float = FOLLOW_SECONDS) -> None:
        self.follow_seconds = follow_seconds
        self._by_channel: dict[int, Answer] = {}
        self.responses = 0  # posts that went out as a click's response (tests, the bench)
        self.followups = 0  # ... as a click's follow-up

    def open(self, interaction: discord.Interaction[Any], channel_id: int, *,
             respond: bool = True) -> Answer | None:
        """Let the channel's posts answer this click (None: another click there may still
        get the next post as its response, and this one is acknowledged as before).
        `respond`: False for a click already acknowledged (follow-ups only)."""
        current = self._by_channel.get(channel_id)
        if current is not None and current.busy:
            return None
        self._prune()
        answer = Answer(interaction, channel_id, follow=self.follow_seconds, respond=respond)
        self._by_channel[channel_id] = answer
        return answer

    def _prune(self) -> None:
        for channel_id, answer in list(self._by_channel.items()):
            if not answer.busy and not answer.followable:
                del self._by_channel[channel_id]

    def close(self, answer: Answer) -> None:
        """The click's own handling is over: it stays only while it may have follow-ups."""
        if self._by_channel.get(answer.channel_id) is answer and not answer.followable:
            del self._by_channel[answer.channel_id]

    def waiting(self, channel_id: int) -> bool:
        """Whether a click waits for this channel's next post as its response."""
        answer = self._by_channel.get(channel_id)
        return answer is not None and answer.open

    async def deliver(self, channel_id: int, content: str, view: Any, embeds: Any,
                      mentions: discord.AllowedMentions, *, asks: bool) -> bool | None:
        """A post of the channel as its click's response or follow-up (`Answer.deliver`;
        None when no click answers it)."""
        answer = self._by_channel.get(channel_id)
        if answer is None:
            return None
        responding = answer.open
        done = await answer.deliver(content, view, embeds, mentions, asks=asks)
        if done:
            if responding:
                self.responses += 1
            else:
                self.followups += 1
        return done

    def __len__(self) -> int:
        return len(self._by_channel)


@contextlib.asynccontextmanager
async def answering(bot: UmpireBot, interaction: discord.Interaction[Any],
                    match_id: int) -> AsyncIterator[Answer | None]:
    """While a click's move is submitted: its channel's next post may answer it (an `Answer`,
    None when the click may not answer posts there: acknowledged at once). On exit the click
    is settled; at `ANSWER_SECONDS` it is acknowledged in any case."""
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


async def acknowledged(bot: UmpireBot, interaction: discord.Interaction[Any],
                       match_id: int) -> None:
    """Acknowledge a click at once (it opens a private menu): the posts that follow from that
    menu's move, in this channel, are this click's follow-ups (the menu's own click is on a
    private message and answers nothing)."""
    if not interaction.response.is_done():
        await interaction.response.defer()
    if _may_answer(bot, interaction, match_id):
        bot.transport.open_answer(interaction, int(interaction.channel_id or 0), respond=False)


async def wait_for_post(bot: UmpireBot, answer: Answer | None, match_id: int) -> None:
    """After an accepted move: if its channel has a post on its way, give it the time to be
    the click's response (at most until the answer's time is up)."""
    if answer is None:
        return
    place = bot.routing.place_of(answer.channel_id)
    audience = "public" if place is None or place.seat is None else f"seat{place.seat}"
    if bot.api.post_pending(match_id, audience):
        await answer.wait()


def _may_answer(bot: UmpireBot, interaction: discord.Interaction[Any], match_id: int) -> bool:
    """Whether a click may answer its channel's posts: in the room or a table of a running
    match, by a player of it (in a table: its own player), on a message all the channel's
    readers see (a private menu's response would be private too)."""
    place = bot.routing.place_of(interaction.channel_id)
    match = bot.api.live(match_id)
    if place is None or place.match_id != match_id or match is None:
        return False
    message = interaction.message
    if message is None or message.flags.ephemeral:
        return False
    seat = match.seat_of(player_id(interaction.user.id))
    return seat is not None and (place.seat is None or seat == place.seat)


def _open(bot: UmpireBot, interaction: discord.Interaction[Any], match_id: int) -> Answer | None:
    """An answer for a click that may answer its channel's posts, else None."""
    if interaction.response.is_done() or not _may_answer(bot, interaction, match_id):
        return None
    return bot.transport.open_answer(interaction, int(interaction.channel_id or 0))
