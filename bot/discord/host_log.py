"""HostLog: the host log's batches, one server's log shared by every match of the server.

It takes a batch at most once per `batch_seconds` (5 s) and at most `LOG_PARTS_PER_BATCH`
(4) posts per `window` (5 s), a batch's posts counted at its time (Discord allows 5
messages per 5 s in a channel; the budget matters when the interval is shorter than the
window), kept before posting, not learnt from a 429. Each entry carries its match and
time, in order per match. An entry is added to a batch only after the privacy check of its
own match (its players must not read the log; the transport checks as it hands the entries
over), again at the moment the batch is posted; a held match's entries stay out of it. A
batch waits (up to `LOG_HANDOVER_SECONDS`) for a match that was told it is due and is still
handing its entries over.

Each entry ends with the invisible marker of its outbox id and each post carries a nonce
derived from its entries: a batch tried again within Discord's nonce window returns the
first post, and one that may have been posted by an earlier try first looks for its
entries' markers in the log.

It posts through `LogOutlet`, the few things it needs of the transport (the privacy check,
one post, the read-back, the check after a secret post), and so imports none of it.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import time
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Protocol

import discord
from discord.http import handle_message_parameters

from bot.discord.marker import mark, tags_in
from bot.discord.pacing import Priority, sending
from bot.discord.places import server_of
from bot.discord.render import render, split
from bot.facade import StoredMessage
from bot.transport import ChannelHeld, MatchInfo, TransportError

log = logging.getLogger(__name__)

#: A server's host log takes a batch at most once per this many seconds (a shorter interval
#: shows entries sooner but posts more: at 1 s a match played alone took 0.1 to 0.2 more
#: requests per move)...
LOG_BATCH_SECONDS = 5.0
#: ...and at most this many posts in any `LOG_WINDOW_SECONDS` (Discord allows 5 messages per
#: 5 s in a channel: one left to spare).
LOG_PARTS_PER_BATCH = 4
LOG_WINDOW_SECONDS = 5.0
#: A quiet log (entries of at most `LOG_QUIET_MATCHES` matches in its last
#: `LOG_QUIET_FACTOR` * 2 batch intervals, 15 s: a match or two on the server) takes its next
#: batch once its oldest entry was written `LOG_QUIET_FACTOR` times `batch_seconds` ago
#: (7.5 s), at most that long after the last batch and never sooner than a busy log's
#: `batch_seconds`: a match played alone posts its log about every 7.5 s instead of every
#: 5 s, and no entry waits longer than it would in a busy log or 7.5 s, within the 10 s a
#: host may wait. A busy log keeps the 5 s: a longer wait there would only make its bursts
#: overflow the window's budget of posts.
LOG_QUIET_MATCHES = 2
LOG_QUIET_FACTOR = 1.5
#: A batch waits up to this long for the entries of a match whose Delivery was told the
#: batch is due (`batch_due`) and is still handing them over (its privacy check can take a
#: request or two): under load that hand-over took longer than `batch_due`'s margin, and the
#: entries went one batch later (10 s after they were written instead of 5).
LOG_HANDOVER_SECONDS = 1.0
LOG_PIECE = 1900  # a batch post: its content and 3 embeds of at most this many characters


class LogOutlet(Protocol):
    """What the host log needs of the transport (DiscordTransport is one)."""

    #: The private channels being posted to right now (the keeper reads it).
    posting: set[int]

    async def check(self, match: MatchInfo, audience: str, channel_id: int) -> None:
        """Raise `ChannelHeld` unless the channel may take the post now."""

    async def post(self, channel_id: int, params: Any, place: str) -> None:
        """One post; Discord's failures as `ChannelHeld` or `TransportError`."""

    async def history(self, channel_id: int, since: datetime) -> list[dict[str, Any]]:
        """The bot's posts in the channel from a little before `since`, oldest first."""

    async def after_secret(self, match: MatchInfo, audience: str, channel_id: int) -> None:
        """The privacy check again, right after a secret post."""


@dataclass
class LogEntry:
    match: MatchInfo
    text: str  # the line as posted: match, time, the rendered entry, its outbox marker
    done: asyncio.Future[None]
    message_id: int
    created_at: datetime
    doubtful: bool  # an earlier try may have posted it: looked for in the log first
    queued: float  # when it was written (time.monotonic(); `monotonic_of`)


def monotonic_of(moment: datetime) -> float:
    """A wall-clock moment (naive: UTC) on time.monotonic()'s scale."""
    moment = moment if moment.tzinfo else moment.replace(tzinfo=UTC)
    return time.monotonic() - (datetime.now(UTC) - moment).total_seconds()


def log_nonce(message_ids: list[int]) -> str:
    """A batch's nonce, the same for the same entries (a post's own gets `.<part>`: at most
    25 characters in all, as Discord allows)."""
    digest = hashlib.sha256(",".join(map(str, message_ids)).encode()).hexdigest()
    return f"L{digest[:20]}"


def posts_of(text: str) -> list[list[str]]:
    """A batch's text as posts, each its content and up to 3 embeds of the same size (a
    message takes 2,000 characters of content and 6,000 in its embeds)."""
    pieces = split(text, LOG_PIECE)
    return [pieces[i:i + 4] for i in range(0, len(pieces), 4)]


def fit(entries: list[LogEntry], parts: int) -> tuple[list[LogEntry], list[LogEntry]]:
    """The most entries, from the first, whose text takes at most `parts` posts (at least
    one entry), and the rest. Exact, by the posts' own split: an estimate of 90 % per post
    left entries for a batch later that fitted (posts here are about 95 % full), and a busy
    log is near its window's budget of posts."""
    def posts(count: int) -> int:
        return len(posts_of("\n".join(e.text for e in entries[:count])))

    low, high = 1, len(entries)  # (a prefix takes no fewer posts than a shorter one)
    while low < high:
        mid = (low + high + 1) // 2
        if posts(mid) <= parts:
            low = mid
        else:
            high = mid - 1
    return entries[:low], entries[low:]


class HostLog:
    """The host logs' pending entries, batch timers and posts, per log channel."""

    def __init__(self, outlet: LogOutlet, *, batch_seconds: float = LOG_BATCH_SECONDS,
                 window: float = LOG_WINDOW_SECONDS) -> None:
        self.outlet = outlet
        self.batch_seconds = batch_seconds
        self.window = window
        #: Host log channel -> entries waiting for its next batch, in order of arrival.
        self._pending: dict[int, list[LogEntry]] = {}
        self._flushers: dict[int, asyncio.Task[None]] = {}
        self._last: dict[int, float] = {}  # channel -> monotonic time of its last batch
        #: channel -> its last `LOG_PARTS_PER_BATCH` posts, each at its batch's time
        self._sent: dict[int, deque[float]] = {}
        self.batches_posted = 0  # (for tests and the bench)
        self.skipped = 0  # entries found already posted, not sent again
        #: channel -> match -> when its last entry was posted (see `LOG_QUIET_FACTOR`)
        self._recent: dict[int, dict[int, float]] = {}
        #: channel -> the matches whose Delivery waits in `batch_due` to hand entries over
        self._waiting: dict[int, set[int]] = {}
        #: channel -> match -> until when (monotonic) its batch waits for the entries its
        #: Delivery is handing over, `batch_due` having returned
        self._handing: dict[int, dict[int, float]] = {}
        #: Entries (outbox id -> match id) whose batch failed after Discord may have taken
        #: it (dropped with their match by `forget`).
        self._doubtful: dict[int, int] = {}

    # --- entries handed over ------------------------------------------------------------
    def add(self, match: MatchInfo, channel_id: int, messages: Sequence[StoredMessage],
            maybe_posted: Sequence[bool]) -> asyncio.Future[None]:
        """Queue a match's entries, in order, for the log's next batch (its privacy check
        done); done once the batch holding them is posted. `maybe_posted`: per message,
        whether an earlier try of it may have been posted outside the nonce window."""
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        pending = self._pending.setdefault(channel_id, [])
        for message, maybe in zip(messages, maybe_posted, strict=True):
            created = message.created_at if message.created_at.tzinfo else \
                message.created_at.replace(tzinfo=UTC)
            text = render(message.text, match.players)
            line = f"**#{match.id}** <t:{int(created.timestamp())}:T> {text}"
            pending.append(LogEntry(
                match, mark(line, str(message.id)), done, message.id, created,
                message.id in self._doubtful or maybe, monotonic_of(created)))
        if channel_id not in self._flushers:  # (it starts at the caller's next await)
            task = asyncio.create_task(self._flush(channel_id), name=f"log-{channel_id}")
            self._flushers[channel_id] = task
        return done

    def handed_over(self, channel_id: int, match_id: int) -> None:
        """The match's entries are in (or held): its log's batch need not wait for them."""
        self._handing.get(channel_id, {}).pop(match_id, None)

    async def batch_due(self, channel_id: int, match_id: int,
                        written: datetime | None = None) -> None:
        """Return just before the log takes its next batch (at once when it has been idle),
        so that Delivery hands over everything written until then; `written`: when the
        oldest entry Delivery holds for the match was written."""
        margin = min(0.1, self.batch_seconds / 4)
        oldest = None if written is None else monotonic_of(written)
        waiting = self._waiting.setdefault(channel_id, set())
        waiting.add(match_id)  # (counted as a match of the log: a burst is not quiet)
        try:
            while (wait := self._next_batch_at(channel_id, oldest) - time.monotonic()
                    - margin) > 0:
                await asyncio.sleep(min(wait, self.batch_seconds / 5))
            self._handing.setdefault(channel_id, {})[match_id] = (
                time.monotonic() + LOG_HANDOVER_SECONDS)
        finally:
            waiting.discard(match_id)

    async def _handing_done(self, channel_id: int) -> None:
        """Return once no match told its batch is due is still handing entries over (or
        its `LOG_HANDOVER_SECONDS` have passed)."""
        handing = self._handing.get(channel_id, {})
        while handing:
            now = time.monotonic()
            for match_id in [m for m, until in handing.items() if until <= now]:
                del handing[match_id]
            if handing:
                await asyncio.sleep(0.01)

    # --- when the next batch goes -------------------------------------------------------
    def _next_batch_at(self, channel_id: int, oldest: float | None = None) -> float:
        """When the log may take its next batch: `batch_seconds` after the last one (after
        a quiet one, see `LOG_QUIET_FACTOR`; `oldest`: when an entry not yet handed over was
        written, time.monotonic()), and once it has a post left in its window's budget."""
        last = self._last.get(channel_id, -1e9)
        at = last + self.batch_seconds
        if self._is_quiet(channel_id):
            quiet = self.batch_seconds * LOG_QUIET_FACTOR
            written = [e.queued for e in self._pending.get(channel_id, ())]
            if oldest is not None:
                written.append(oldest)
            at = max(at, min([last + quiet, *(w + quiet for w in written)]))
        sent = self._sent.get(channel_id, ())
        if len(sent) >= LOG_PARTS_PER_BATCH:
            at = max(at, sent[0] + self.window)  # type: ignore[misc]  # (a deque, not the empty default)
        return at

    def _is_quiet(self, channel_id: int) -> bool:
        """Whether the log's recent batches, its pending entries and the matches about to
        hand entries over are of `LOG_QUIET_MATCHES` matches at most (a match without an
        entry for a while is forgotten)."""
        recent = self._recent.get(channel_id)
        if not recent:
            return False
        since = time.monotonic() - self.batch_seconds * LOG_QUIET_FACTOR * 2
        for match_id in [m for m, at in recent.items() if at < since]:
            del recent[match_id]
        matches = {*recent, *self._waiting.get(channel_id, ()),
                   *(e.match.id for e in self._pending.get(channel_id, ()))}
        return len(matches) <= LOG_QUIET_MATCHES

    def _budget(self, channel_id: int) -> int:
        """Posts the log may make now without going over its window's budget."""
        now = time.monotonic()
        sent = self._sent.get(channel_id, ())
        return LOG_PARTS_PER_BATCH - sum(1 for t in sent if t > now - self.window)

    def _server_of_pending(self, channel_id: int) -> int:
        """The server of a log's pending entries (0: none)."""
        entries = self._pending.get(channel_id)
        return server_of(entries[0].match) if entries else 0

    def _patient_since(self, channel_id: int) -> float:
        """When a batch counts as having asked for the global budget (the pacer's patience
        runs from it): one batch interval after its oldest entry was written, or now if
        sooner. Its checks, read-back and posts go one after another, and each waiting out
        the log's patience anew put an entry past the 10 s promised (10.2 s, 20 matches on
        one server); so the batch goes ahead of prompts once its oldest entry is one
        interval and the patience (5 + 3 s) old at the latest."""
        now = asyncio.get_running_loop().time()  # (the loop's clock is time.monotonic())
        pending = self._pending.get(channel_id) or []
        oldest = min((e.queued for e in pending), default=now)
        return min(now, oldest + self.batch_seconds)

    # --- the batches ----------------------------------------------------------------------
    async def _flush(self, channel_id: int) -> None:
        """Post the channel's pending entries, at most one batch per `batch_seconds` and
        within the window's budget of posts (after prompts and announcements, when the
        global budget is short: this task's own class)."""
        with sending(Priority.LOG, self._server_of_pending(channel_id)):
            await self._flush_batches(channel_id)

    async def _flush_batches(self, channel_id: int) -> None:
        try:
            while self._pending.get(channel_id):
                # read again while waiting: an older entry handed over meanwhile brings a
                # quiet batch's moment forward
                while (wait := self._next_batch_at(channel_id) - time.monotonic()) > 0:
                    await asyncio.sleep(min(wait, self.batch_seconds / 5))
                await self._handing_done(channel_id)
                self._last[channel_id] = time.monotonic()
                try:
                    with sending(Priority.LOG, self._server_of_pending(channel_id),
                                 self._patient_since(channel_id)):
                        await self._post_batch(channel_id)
                except Exception as exc:  # a bug here must not leave a delivery waiting
                    log.exception("host log batch of channel %s failed", channel_id)
                    for entry in self._pending.pop(channel_id, []):
                        if not entry.done.done():
                            entry.done.set_exception(TransportError(repr(exc)))
        finally:
            del self._flushers[channel_id]
            if not self._pending.get(channel_id):
                self._pending.pop(channel_id, None)

    async def _post_batch(self, channel_id: int) -> None:
        outlet = self.outlet
        entries = self._pending.pop(channel_id, [])
        held: dict[int, BaseException] = {}
        for match in {id(e.match): e.match for e in entries}.values():
            try:  # the privacy check again, now, for each match in the batch
                await outlet.check(match, "umpire", channel_id)
            except (ChannelHeld, TransportError) as exc:
                held[match.id] = exc
        ok = [e for e in entries if e.match.id not in held]
        found = await self._logged_already(channel_id, ok)
        fresh = [e for e in ok if e.message_id not in found]
        posts = posts_of("\n".join(e.text for e in fresh)) if fresh else []
        recent = self._recent.setdefault(channel_id, {})
        for entry in fresh:
            recent[entry.match.id] = time.monotonic()
        budget = max(1, self._budget(channel_id))
        if len(posts) > budget:  # the rest waits for the next batch
            fresh, later = fit(fresh, budget)
            self._pending.setdefault(channel_id, [])[:0] = later
            ok = [e for e in ok if e not in later]
            posts = posts_of("\n".join(e.text for e in fresh))
        self.skipped += len(ok) - len(fresh)
        nonce = log_nonce([e.message_id for e in fresh])
        error: BaseException | None = None
        outlet.posting.add(channel_id)
        try:
            for i, post in enumerate(posts):
                await self._post_part(channel_id, post, f"{nonce}.{i}", first=i == 0)
        except (ChannelHeld, TransportError) as exc:
            error = exc
            self._doubtful.update(  # (some may be posted)
                (e.message_id, e.match.id) for e in fresh)
        else:
            for e in ok:
                self._doubtful.pop(e.message_id, None)
        finally:
            outlet.posting.discard(channel_id)
        if posts and error is None:
            for match in {id(e.match): e.match for e in fresh}.values():
                await outlet.after_secret(match, "umpire", channel_id)
        self.batches_posted += 1 if posts else 0
        for entry in entries:
            if entry.done.done() or any(e.done is entry.done for e in
                                        self._pending.get(channel_id, ())):
                continue  # (one of its match's entries waits for the next batch)
            failed = held.get(entry.match.id) or (error if entry in ok else None)
            if failed is not None:
                entry.done.set_exception(failed)
            elif entry in ok:
                entry.done.set_result(None)

    async def _post_part(self, channel_id: int, pieces: list[str], nonce: str,
                         first: bool = False) -> None:
        """One post of a batch; its nonce (from the batch's entries) makes a retry of the
        same batch within Discord's nonce window return the first post. The batch's time is
        when its first post went (it may wait in line for the global budget, after prompts
        and announcements: counted from the batch's start, the next batch came early)."""
        embeds = [discord.Embed(description=p, colour=discord.Colour.dark_grey())
                  for p in pieces[1:]]
        with handle_message_parameters(
                content=pieces[0], embeds=embeds or discord.utils.MISSING, nonce=nonce,
                allowed_mentions=discord.AllowedMentions.none()) as params:
            params.payload["enforce_nonce"] = True  # type: ignore[index]  # (a message's payload is a dict; discord.py types it loosely)
            await self.outlet.post(channel_id, params, f"the host log <#{channel_id}>")
        if first:
            self._last[channel_id] = time.monotonic()
        # counted at its batch's time: a batch's posts go out together and reach Discord's
        # bucket in one window; counted at each post's own time, the next batch, 5 s on,
        # found the window still holding them, took one post and left the rest for later
        self._sent.setdefault(channel_id, deque(maxlen=LOG_PARTS_PER_BATCH)).append(
            self._last.get(channel_id, time.monotonic()))

    async def _logged_already(self, channel_id: int, entries: list[LogEntry]) -> set[int]:
        """The outbox ids of those entries the log already shows (each entry ends with its
        marker), looked for only when one of them may have been posted by an earlier try:
        after a restart or the nonce window, or a batch that failed on its way."""
        doubtful = [e for e in entries if e.doubtful or e.message_id in self._doubtful]
        if not doubtful:
            return set()
        since = min(e.created_at for e in doubtful)
        tags: set[str] = set()
        for post in await self.outlet.history(channel_id, since):
            tags |= tags_in("\n".join([post.get("content", ""), *(
                str(e.get("description", "")) for e in post.get("embeds") or ())]))
        return {e.message_id for e in doubtful if str(e.message_id) in tags}

    # --- what is kept -------------------------------------------------------------------
    def forget(self, match_id: int) -> None:
        """Drop the match's doubtful entries once it is closed."""
        self._doubtful = {m: k for m, k in self._doubtful.items() if k != match_id}

    def memory(self) -> int:
        """Entries kept per match (for tests: it must not grow with ended ones)."""
        return len(self._doubtful)
