"""DiscordTransport: the service's outbox, delivered to the match's channels.

Audiences map to channels stored with the match (`match.transport`): "public" -> the game
room, "seat0"/"seat1" -> that player's table channel, "umpire" -> the host log. Every send
carries the outbox id as its nonce with `enforce_nonce`, so a resend after a crash (sent,
but not yet marked delivered) returns the first message instead of posting a duplicate.
Discord keeps a nonce for a few minutes only and never returns it when history is read, so
every post also ends with an invisible marker of its outbox id (`bot/discord/marker.py`):
an older resend looks for that marker among the channel's recent posts.

Rate limits: every REST request of the client first waits in `Pacer` (bot/discord/pacing.py)
for Discord's global limit and its route's bucket, so Discord need not answer 429.
Failures: discord.py itself waits out rate limits and retries 5xx a few times; what is left
becomes a retryable TransportError (the service's delivery retries it with capped backoff
until it goes through, one queue per channel, so a rate-limited channel holds up no other).
Holding (`ChannelHeld`, never given up while the match runs): before every post, and so on
every retry, the bot works out from its cached guild state whether it may post in the
channel and, for a private audience (a table, the host log), whether anyone but its intended
readers could read it (bot/discord/privacy.py, from bot/discord/visibility.py). A table is
for its player, the hosts who do not play the match and the bot; the host log for the hosts
who do not play it. Otherwise nothing is posted and `ChannelHeld` says what is wrong and how
to fix it; a 403 or 404 from Discord is held the same way. The game room is public: only the
bot's own access is checked there. A spectator feed (bot/feed.py) is read by anyone: who may
write there is checked instead (bot/discord/feed.py), and a held feed stops no clock. The
guild update listeners (bot/discord/cogs/watch.py) retry a held channel as soon as something
changed.

The host log is batched per server (`send_many`): its entries are handed, once their
match's privacy check passed, to `HostLog` (bot/discord/host_log.py), which keeps the
batches, their timers and budget, and posts them through this transport (`LogOutlet`).

The end of a match's channels (read-only, the Rematch offer, the archive) is not done
here: `MatchClosing` (bot/discord/closing.py) is told of each post and does it once the
match has ended; this module imports none of the channel, challenge and archive code.

Mentions: every send lists the user ids it may ping (the players its text names); the
client's default pings nobody, so a name or echoed text with "@everyone" pings no one.
"""

from __future__ import annotations

import asyncio
import logging
import re
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

import aiohttp
import discord
from discord.http import handle_message_parameters

from bot.discord.answer import FOLLOW_SECONDS, Answer, Answers
from bot.discord.components import build_view, notes_for
from bot.discord.host_log import LOG_BATCH_SECONDS, LOG_WINDOW_SECONDS, HostLog
from bot.discord.marker import ROOM, mark, read_mark
from bot.discord.pacing import Pacer, Priority, bucket_key, sending
from bot.discord.places import AUDIENCE_KEYS, channel_for, server_of, where
from bot.discord.privacy import ChannelPrivacy
from bot.discord.render import LIMIT, render, seat_mentions, split
from bot.facade import StoredMessage
from bot.transport import ChannelHeld, MatchInfo, TransportError

if TYPE_CHECKING:
    from bot.facade import UmpireApi

log = logging.getLogger(__name__)

#: Discord enforces a nonce for a few minutes only. A message whose first try may be older
#: than this (committed longer ago, or before this process started: a resend after a
#: restart) is first looked for in its channel's recent messages, and not posted again if it
#: is there.
NONCE_TRUST_SECONDS = 60.0
HISTORY_PAGES = 10  # at most this many pages of 100 messages are read per channel

#: The audiences whose messages queued behind a rate limit are folded into one post
#: (Delivery asks `coalesces`; the host log is batched instead).
COALESCED = ("public", "seat0", "seat1", "feed")
#: An announcement leaves this many of its channel's posts per window to decisions.
ANNOUNCE_RESERVE = 1


def parts_of(text: str) -> list[str]:
    """A rendered message as the posts it takes (room left in each for the marker)."""
    return split(text, LIMIT - ROOM)


#: A Discord timestamp (`<t:UNIX:R>`): a resend renders a deadline as it is at that try.
TIMESTAMP = re.compile(r"<t:-?\d+(?::[tTdDfFR])?>")


def same_post(posted: str, content: str) -> bool:
    """Whether a post read back from a channel is this part, deadlines aside: each try
    renders a deadline as it is then, so a part posted before a crash and resent after it
    differs from its first try only in its timestamps."""
    return TIMESTAMP.sub("<t>", posted) == TIMESTAMP.sub("<t>", content)


def folded(messages: list[StoredMessage]) -> StoredMessage:
    """Messages of one channel as one: their texts in order, the decisions and deadlines of
    all of them, the status of the last; the first's id (nonce and marker) and time."""
    first, last = messages[0], messages[-1]
    payload: dict[str, Any] = dict(last.payload)
    prompts = [p for m in messages for p in m.payload.get("prompts") or ()]
    deadlines: dict[str, list[str]] = {}
    for m in messages:
        for shown, keys in (m.payload.get("deadlines") or {}).items():
            deadlines.setdefault(shown, []).extend(keys)
    payload.pop("prompts", None)
    payload.pop("deadlines", None)
    payload.pop("fold", None)
    if any(m.payload.get("final") for m in messages):  # (the Rematch button goes on it)
        payload["final"] = True
    if prompts:
        payload["prompts"] = prompts
    if deadlines:
        payload["deadlines"] = deadlines
    return replace(first, text="\n".join(m.text for m in messages), payload=payload)


def priority_of(messages: list[StoredMessage]) -> Priority:
    """A post's class at the global limit: a decision's prompt or a deadline first, then an
    announcement to a room or a table, then the spectator feed (and the host log)."""
    if any(m.payload.get("prompts") or m.payload.get("deadlines") for m in messages):
        return Priority.PROMPT
    return Priority.LOG if all(m.audience in ("feed", "umpire") for m in messages) else \
        Priority.ROOM


def _asks_a_person(match: MatchInfo, message: StoredMessage) -> bool:
    """Whether a message asks a player (not a built-in bot) for a decision: the last post a
    click's follow-ups carry (bot/discord/answer.py)."""
    seats = [p.get("seat") for p in message.payload.get("prompts") or ()]
    return any(isinstance(s, int) and 0 <= s < len(match.players) and
               match.players[s].bot is None for s in seats)


class DiscordTransport:
    nonce_window = NONCE_TRUST_SECONDS

    def __init__(self, *, log_batch_seconds: float = LOG_BATCH_SECONDS,
                 log_window: float = LOG_WINDOW_SECONDS,
                 coalesce: bool = True, pacer: Pacer | None = None,
                 follow_seconds: float = FOLLOW_SECONDS) -> None:
        #: Whether what a room or table queues behind a rate limit goes as one post.
        self.coalesce = coalesce
        #: Every REST request of the client waits for Discord's global limit (pacing.py).
        self.pacer = pacer or Pacer()
        self.client: discord.Client | None = None
        self.api: UmpireApi | None = None  # the match service, as the Discord side sees it
        self.ready = asyncio.Event()  # set by the bot's on_ready: sends wait for it
        #: Who may read each channel, and whether only they can (bot/discord/privacy.py).
        self.privacy = ChannelPrivacy()
        self.started_at = datetime.now(UTC)
        #: channel id -> the bot's posts read back from it (tag, visible text), oldest first.
        self._posted: dict[int, list[tuple[str | None, str]]] = {}
        self._skipped = 0  # parts found already posted, not sent again
        #: The host log's batches, posted through this transport (bot/discord/host_log.py).
        self.host_log = HostLog(self, batch_seconds=log_batch_seconds, window=log_window)
        #: Per channel, the click answering its posts (bot/discord/answer.py).
        self.answers = Answers(follow_seconds)
        #: The channel keeper (bot/discord/keeper.py), told of a secret post that landed in
        #: a channel opened meanwhile; and the private channels being posted to right now.
        self.keeper: Any = None
        self.posting: set[int] = set()
        #: The end of a match's channels (bot/discord/closing.py): what the final post
        #: carries (the Rematch button), told of every post so that an ended match closes.
        self.closing: Any = None

    @property
    def skipped(self) -> int:
        """Parts and host log entries found already posted, not sent again (for tests and
        logs)."""
        return self._skipped + self.host_log.skipped

    def attach(self, client: discord.Client, api: UmpireApi) -> None:
        self.client, self.api = client, api
        self.privacy.attach(client, api)
        self.pacer.install(client.http)

    async def send(self, match: MatchInfo, message: StoredMessage) -> None:
        with sending(priority_of([message]), server_of(match)):
            await self._send(match, message)

    async def _send(self, match: MatchInfo, message: StoredMessage) -> None:
        await self.ready.wait()
        client = self.client
        assert client is not None
        channel_id = channel_for(match.transport, message.audience)
        if channel_id is None:  # a built-in bot's seat has no table channel
            return
        await self.check(match, message.audience, channel_id)
        text = render(message.text, match.players)
        prompts = list(message.payload.get("prompts") or [])
        live = self.api.live(match.id) if self.api is not None else None
        view = build_view(match.id, match.game, prompts, live) if prompts else None
        closing = self.closing
        final = closing.final_items(match, message) if closing is not None else []
        if final:
            view = view or discord.ui.View(timeout=None)
            for item in final:
                view.add_item(item)
        notes = notes_for(match.id, match.game, prompts, live, message.payload.get("status"))
        embeds = [discord.Embed(description=render("\n".join(notes), match.players)[:4096],
                                colour=discord.Colour.dark_grey())] if notes else []
        mentions = discord.AllowedMentions(
            everyone=False, roles=False, replied_user=False,
            users=[discord.Object(u) for u in seat_mentions(match, message.text)])
        parts = parts_of(text)
        secret = message.audience.startswith("seat")
        if secret:
            self.posting.add(channel_id)
        try:
            await self._send_parts(match, message, channel_id, parts, view, embeds, mentions)
        finally:
            self.posting.discard(channel_id)
        if secret:
            await self.after_secret(match, message.audience, channel_id)
        if closing is not None:  # (the final post offered a rematch; an ended match closes)
            await closing.sent(match, bool(final))

    async def _send_parts(self, match: MatchInfo, message: StoredMessage, channel_id: int,
                          parts: list[str], view: Any, embeds: list[discord.Embed],
                          mentions: discord.AllowedMentions) -> None:
        check = self._maybe_posted(message)
        for i, part in enumerate(parts):
            nonce = message.id if i == 0 else f"{message.id}.{i}"
            last = i == len(parts) - 1
            if check and await self._already_posted(channel_id, str(nonce), part,
                                                    message.created_at):
                self._skipped += 1
                continue
            items = view if (last and view is not None) else discord.utils.MISSING
            notes = embeds if (last and embeds) else discord.utils.MISSING
            if not check:
                answered = await self.answers.deliver(
                    channel_id, mark(part, str(nonce)), items, notes, mentions,
                    asks=last and _asks_a_person(match, message))
                if answered is not None:
                    if answered:
                        self._posted.pop(channel_id, None)
                        continue
                    check = True  # Discord may have taken it: look before posting
                    self._posted.pop(channel_id, None)
                    if await self._already_posted(channel_id, str(nonce), part,
                                                  message.created_at):
                        self._skipped += 1
                        continue
            with handle_message_parameters(
                content=mark(part, str(nonce)), nonce=nonce, allowed_mentions=mentions,
                view=items, embeds=notes,
            ) as params:
                params.payload["enforce_nonce"] = True  # type: ignore[index]  # (a message's payload is a dict; discord.py types it loosely)
                await self.post(channel_id, params,
                                 where(match, message.audience, channel_id))
                self._posted.pop(channel_id, None)  # read back again for the next old one

    async def after_secret(self, match: MatchInfo, audience: str, channel_id: int) -> None:
        """Right after a secret post, the check again (from the cached state, recomputed
        only if an event came in meanwhile): the keeper reports a post that landed in a
        channel opened as it was posted, and closes the channel."""
        client, keeper = self.client, self.keeper
        if keeper is None or client is None or self.privacy.ended(match.id):
            return
        guild = client.get_guild(int(match.transport.get("guild") or 0))
        found = guild.get_channel_or_thread(channel_id) if guild is not None else None
        if guild is None or not isinstance(found, discord.TextChannel | discord.Thread):
            return
        try:
            problem = await self.privacy.verdict(match, audience, guild, found)
        except (LookupError, discord.ClientException, TransportError) as exc:
            log.warning("match %s: could not check %s again after a post: %s", match.id,
                        channel_id, exc)
            return
        await keeper.posted(match, audience, channel_id, problem)

    # --- a click answered in its interaction (bot/discord/answer.py) -----------------------
    def open_answer(self, interaction: discord.Interaction[Any], channel_id: int, *,
                    respond: bool = True) -> Answer | None:
        """Let the channel's posts answer this click (`Answers.open`)."""
        return self.answers.open(interaction, channel_id, respond=respond)

    def close_answer(self, answer: Answer) -> None:
        self.answers.close(answer)

    def answering(self, match: MatchInfo, audience: str) -> bool:
        """Whether a click waits for this channel's next post as its response (Delivery then
        posts it at once, not held back to be folded with a later one)."""
        channel_id = channel_for(match.transport, audience)
        return channel_id is not None and self.answers.waiting(channel_id)

    # --- folding, the global budget and the host log (bot/discord/host_log.py) -----------
    def batches(self, audience: str) -> bool:
        """Whether `send_many` takes this audience's messages together (the host log)."""
        return audience == "umpire" and self.host_log.batch_seconds > 0

    def coalesces(self, audience: str) -> bool:
        """Whether what `audience`'s channel queues behind a rate limit (its own bucket, or
        the token's global budget) is posted as one (Delivery asks; the log is batched)."""
        return self.coalesce and audience in COALESCED

    async def turn(self, match: MatchInfo, messages: list[StoredMessage]) -> None:
        """Return once the token's global budget has a slot for the post of `messages`, by
        its class (`priority_of`), and keep that slot for it: Delivery takes into the post
        what its channel queued meanwhile (at once when the budget has room)."""
        if self.client is not None and messages and \
                channel_for(match.transport, messages[0].audience) is not None:
            await self.pacer.turn(priority_of(messages), server_of(match))

    def held_for(self, match: MatchInfo, audience: str,
                 messages: list[StoredMessage] | None = None) -> float:
        """Seconds until the channel's messages bucket takes the post of `messages` again
        (0: now, or not known; Delivery takes what the channel queues meanwhile into the
        same post). The bucket's last request of its window is kept for a decision: an
        announcement waits for the reset when only one is left (`ANNOUNCE_RESERVE`), so a
        prompt never waits behind one that took it."""
        channel_id = channel_for(match.transport, audience)
        if channel_id is None or self.client is None:
            return 0.0
        reserve = ANNOUNCE_RESERVE if messages and \
            priority_of(messages) is not Priority.PROMPT else 0
        return self.pacer.held_for(bucket_key("POST", f"/channels/{channel_id}/messages"),
                                   reserve)

    async def batch_due(self, match: MatchInfo, written: datetime | None = None) -> None:
        """Return just before the match's host log takes its next batch (`HostLog.batch_due`;
        at once when the log has been idle), so that Delivery hands over everything written
        until then; `written`: when the oldest entry Delivery holds for it was written."""
        channel_id = channel_for(match.transport, "umpire")
        if channel_id is not None:
            await self.host_log.batch_due(channel_id, match.id, written)

    async def send_many(self, match: MatchInfo, messages: list[StoredMessage]) -> None:
        """Several messages of one channel in order: to a room or table, as one post (the
        announcements folded into the message after them); to the host log, its match's
        entries in order into the server's next log batch (returns once the batch holding
        them is posted). Raises as `send` does."""
        if messages and messages[0].audience != "umpire":
            await self.send(match, folded(messages))
            return
        channel_id = channel_for(match.transport, "umpire")
        try:
            await self.ready.wait()
            if channel_id is None or not messages:
                return
            await self.check(match, "umpire", channel_id)
            done = self.host_log.add(match, channel_id, messages,
                                     [self._maybe_posted(m) for m in messages])
        finally:  # handed over (or held): the batch need not wait for this match
            if channel_id is not None:
                self.host_log.handed_over(channel_id, match.id)
        await done

    # --- one post (the host log's too: `LogOutlet`) ------------------------------------------
    async def post(self, channel_id: int, params: Any, place: str) -> None:
        """One post, Discord's failures as delivery reads them: refused or not found (the
        bot lost access) holds the channel; the rest (5xx, rate limit, network) is retried."""
        client = self.client
        assert client is not None
        try:
            await client.http.send_message(channel_id, params=params)
        except (discord.Forbidden, discord.NotFound) as exc:
            reason = exc.text or f"{exc.status}"
            raise ChannelHeld(f"channel {channel_id}: {reason}", for_hosts=(
                f"Discord refused my post in {place} ({reason}). Let me see it and post "
                "there.")) from exc
        except discord.HTTPException as exc:
            raise TransportError(f"Discord answered {exc.status}: {exc.text}") from exc
        except discord.RateLimited as exc:
            raise TransportError(f"rate limited for {exc.retry_after:.0f} s") from exc
        except (aiohttp.ClientError, TimeoutError, OSError) as exc:
            raise TransportError(f"network error: {exc!r}") from exc

    # --- re-sends beyond Discord's nonce window ---------------------------------------------
    def _maybe_posted(self, message: StoredMessage) -> bool:
        """Whether an earlier try of this message may have been posted outside the nonce
        window: it was committed before this process started, or longer ago than the window."""
        created = message.created_at
        if created.tzinfo is None:
            created = created.replace(tzinfo=UTC)
        return created < self.started_at or \
            (datetime.now(UTC) - created).total_seconds() > self.nonce_window

    async def _already_posted(self, channel_id: int, nonce: str, content: str,
                              since: datetime) -> bool:
        """Whether the channel already shows this part: a bot post with its marker (or its
        nonce, where a message carries one) and the same text. Text alone never counts:
        another message of the channel may read the same."""
        posted = self._posted.get(channel_id)
        if posted is None:
            posted = self._posted[channel_id] = await self._read_back(channel_id, since)
        for i, (seen_tag, seen_content) in enumerate(posted):
            if seen_tag == nonce and same_post(seen_content, content):
                del posted[i]
                return True
        return False

    async def _read_back(self, channel_id: int, since: datetime) -> list[tuple[str | None, str]]:
        """The bot's posts in the channel from a little before `since`, oldest first, as
        (tag, visible text)."""
        posts = []
        for m in await self.history(channel_id, since):
            text, tag = read_mark(m.get("content", ""))
            if m.get("nonce") is not None:  # history has none on Discord; a cache might
                tag = str(m["nonce"])
            posts.append((tag, text))
        return posts

    async def history(self, channel_id: int, since: datetime) -> list[dict[str, Any]]:
        """The bot's posts in the channel from a little before `since`, oldest first. A read
        that fails finds nothing: the message is then sent (at worst once more)."""
        client = self.client
        assert client is not None
        if since.tzinfo is None:
            since = since.replace(tzinfo=UTC)
        after = discord.utils.time_snowflake(since - timedelta(seconds=5))
        found: list[dict[str, Any]] = []
        try:
            for _ in range(HISTORY_PAGES):
                page = await client.http.logs_from(channel_id, 100, after=after)
                if not page:
                    break
                found.extend(page)  # type: ignore[arg-type]  # (typed dicts: Discord's JSON)
                after = max(int(m["id"]) for m in page)
                if len(page) < 100:
                    break
        except (discord.HTTPException, aiohttp.ClientError, OSError) as exc:
            log.warning("could not read back channel %s before a resend: %s", channel_id, exc)
        me = client.user.id if client.user else None
        found.sort(key=lambda m: int(m["id"]))
        return [m for m in found if me is None or int(m["author"]["id"]) == me]

    # --- who can read a channel, checked before every post -----------------------------------
    async def check(self, match: MatchInfo, audience: str, channel_id: int) -> None:
        """Raise `ChannelHeld` unless the channel may take the post now (`ChannelPrivacy`)."""
        await self.privacy.check(match, audience, channel_id)

    def forget(self, match: MatchInfo) -> None:
        """Drop what this transport keeps per match once the match is closed (`closed` in
        its stored transport data guards against closing it twice), so that a bot running
        for months keeps nothing per finished match."""
        for key in AUDIENCE_KEYS.values():
            if key != "log" and (cid := match.transport.get(key)):
                self._posted.pop(int(cid), None)
        self.privacy.forget(match)
        self.host_log.forget(match.id)

    def memory(self) -> int:
        """Entries kept per match or channel (for tests: it must not grow with ended ones)."""
        return len(self._posted) + self.host_log.memory() + self.privacy.memory() + \
            (self.closing.memory() if self.closing is not None else 0)

    async def wait_idle(self) -> None:
        """Wait for background work (closing ended matches' channels); for shutdown and
        tests."""
        if self.closing is not None:
            await self.closing.wait_idle()
