"""Resends after Discord's nonce window: the umpire looks in the channel first.
Discord answers a repeated nonce with the first message only for a few minutes. A message
posted but not yet marked delivered when the bot stopped, and sent again after a longer
downtime, would be posted twice; so a message committed before this process started (or
longer ago than the window) is first looked for among the channel's recent bot posts and
marked delivered without posting when it is there. Here the fake's nonce window and the
transport's are shortened to a fraction of a second, and the downtime is longer.
These tests count one post per outbox message: folding and the host log's batches are off.
"""
from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from typing import Any

import aiohttp
import pytest

from bot.discord.marker import read_mark
from bot.discord.render import render
from bot.discord.transport import DiscordTransport
from tests.discord.conftest import (
    WINDOW,
    World,
    assert_channels_match_outbox,
    bot_posts,
    channel_of,
    play_prompt,
    start_rps,
)
from tests.discord.conftest import umpire as umpire_with_defaults
from tests.discord.conftest import undelivered as _undelivered
from tests.discord.conftest import unmark as _unmark
from tests.support.driver import drive


def umpire(world: World, **options: Any) -> Any:
    """The bot posting each outbox message as its own post (no folding, no log batches)."""
    return umpire_with_defaults(world, coalesce=False, log_batch_seconds=0, **options)


async def test_a_restart_after_the_nonce_window_posts_nothing_twice_and_loses_nothing(
        world: World, short_nonce_window: None) -> None:
    fake = world.fake
    async with umpire(world, drain=False) as up:
        match = await start_rps(world, up)
        match_id = match.id
        for seat in (0, 1, 0):
            await play_prompt(world, up, match, seat)
        await up.idle(fake)
        posted = [m.id for m in await drive(up.service).messages(match_id)]
        # The next message to the room never gets through before the bot stops.
        fake.fail_next("POST", "/channels/*/messages", status=429, retry_after=60)
        n = len(fake.request_log)
        await play_prompt(world, up, match, 1)
        await fake.wait_for(lambda: any(e.status == 429 for e in fake.request_log[n:]))
        await asyncio.sleep(0.1)
    never_sent = await _undelivered(world)
    assert len(never_sent) == 1
    # Stopped between "posted" and "marked delivered" for the last five posts...
    await _unmark(world, posted[-5:])
    await asyncio.sleep(3 * WINDOW)  # ...and down for longer than Discord keeps a nonce.
    posts_before = sum(1 for m, p, _ in fake.requests if m == "POST" and p.endswith("/messages"))

    async with umpire(world) as up:
        match = up.service.matches[match_id]
        await up.idle(fake)
        assert await _undelivered(world) == []
        assert up.transport.skipped == 5, "the five posted ones were found in their channels"
        posts = [j for m, p, j in fake.requests if m == "POST" and p.endswith("/messages")]
        assert [str(j.get("nonce")) for j in posts[posts_before:]] == [str(never_sent[0])]
        await assert_channels_match_outbox(world, up, match)  # each message exactly once
        while match.status == "active":  # and the match goes on to its end
            for prompt in list(match.prompts):
                await play_prompt(world, up, match, prompt.seat)
        await up.idle(fake)
        await assert_channels_match_outbox(world, up, match)
    assert match.status == "finished"


async def test_without_the_look_back_the_same_restart_posts_duplicates(
        world: World, short_nonce_window: None, monkeypatch: pytest.MonkeyPatch) -> None:
    """The check above can fail: with the look-back switched off, the fake posts again."""
    async def never(self, *args) -> bool:  # type: ignore[no-untyped-def]
        return False
    monkeypatch.setattr(DiscordTransport, "_already_posted", never)
    fake = world.fake
    async with umpire(world) as up:
        match = await start_rps(world, up)
        await up.idle(fake)
        posted = [m.id for m in await drive(up.service).messages(match.id)]
    await _unmark(world, posted[-2:])
    await asyncio.sleep(3 * WINDOW)
    async with umpire(world) as up:
        await up.idle(fake)
        with pytest.raises(AssertionError, match="channel differs"):
            await assert_channels_match_outbox(world, up, up.service.matches[match.id])


async def test_a_lost_answer_retried_after_the_nonce_window_posts_nothing_twice(
        world: World, short_nonce_window: None, monkeypatch: pytest.MonkeyPatch) -> None:
    """Discord took the message but its answer was lost (a reset connection), and the retry
    comes after the nonce window: the message is found in its channel, not posted again."""
    fake = world.fake
    async with umpire(world) as up:
        match = await start_rps(world, up)
        http = up.transport.client.http
        real = http.send_message
        lost: list[object] = []

        async def answer_lost(channel_id, *, params):  # type: ignore[no-untyped-def]
            result = await real(channel_id, params=params)
            if len(lost) < 3:
                lost.append(params.payload.get("nonce"))
                raise aiohttp.ClientOSError("connection reset after Discord accepted")
            return result
        monkeypatch.setattr(http, "send_message", answer_lost)
        await play_prompt(world, up, match, 0)
        await up.idle(fake)
        assert len(lost) == 3 and up.transport.skipped >= 3
        await assert_channels_match_outbox(world, up, match)


async def _same_text_twice_second_never_posted(world: World) -> tuple[int, str]:
    """Two host lines of the same text in the room ("⏱ The hosts gave everyone 60 s more."):
    the first delivered, the second never posted before the bot stops; then a downtime
    longer than the nonce window. Returns the match id and the line."""
    fake = world.fake
    async with umpire(world, drain=False) as up:
        match = await start_rps(world, up)
        await up.service.extend(match.id, 60)
        await up.idle(fake)
        fake.fail_next("POST", "/channels/*/messages", status=429, retry_after=60)
        n = len(fake.request_log)
        await up.service.extend(match.id, 60)
        await fake.wait_for(lambda: any(e.status == 429 for e in fake.request_log[n:]))
        await asyncio.sleep(0.1)
        line = render((await drive(up.service).messages(match.id))[-1].text, match.players)
    assert len(await _undelivered(world)) == 1
    await asyncio.sleep(3 * WINDOW)
    return match.id, line


async def test_a_message_reading_like_a_delivered_one_is_still_sent_after_the_window(
        world: World, short_nonce_window: None) -> None:
    """Discord's history carries no nonce: the look-back goes by the outbox marker each post
    ends with, so the same text posted for an earlier message does not count."""
    match_id, line = await _same_text_twice_second_never_posted(world)
    async with umpire(world) as up:
        await up.idle(world.fake)
        assert await _undelivered(world) == []
        room = channel_of(world, up.service.matches[match_id], "public")
        assert [read_mark(m.content)[0] for m in bot_posts(world, room)].count(line) == 2
        assert up.transport.skipped == 0
        await assert_channels_match_outbox(world, up, up.service.matches[match_id])


async def test_matching_by_text_alone_would_lose_that_message(
        world: World, short_nonce_window: None, monkeypatch: pytest.MonkeyPatch) -> None:
    """The check above can fail: a look-back that takes any bot post with the same text
    (the earlier fallback) marks the second line delivered without posting it."""
    async def by_text(self, channel_id, nonce, content, since):  # type: ignore[no-untyped-def]
        posted = self._posted.get(channel_id)
        if posted is None:
            posted = self._posted[channel_id] = await self._read_back(channel_id, since)
        for i, (_, seen) in enumerate(posted):
            if seen == content:
                del posted[i]
                return True
        return False
    monkeypatch.setattr(DiscordTransport, "_already_posted", by_text)
    match_id, line = await _same_text_twice_second_never_posted(world)
    async with umpire(world) as up:
        await up.idle(world.fake)
        room = channel_of(world, up.service.matches[match_id], "public")
        assert [read_mark(m.content)[0] for m in bot_posts(world, room)].count(line) == 1
        assert up.transport.skipped == 1  # lost: marked delivered, never posted


async def test_a_resent_part_whose_deadline_moved_is_found_already_posted() -> None:
    """A prompt posted before a crash, not yet marked, is resent with its deadline as it is
    then: the read-back still recognises it by marker and text, deadlines aside, and does
    not post it twice."""
    transport = DiscordTransport()
    transport._posted[7] = [("41", "Your move, <@1>: time runs out <t:1000:R>.")]
    since = datetime.now(UTC)
    assert await transport._already_posted(7, "41", "Your move, <@1>: time runs out <t:1060:R>.",
                                           since)
    transport._posted[7] = [("41", "Your move, <@1>: time runs out <t:1000:R>.")]
    assert not await transport._already_posted(7, "41", "Your move, <@2>: time runs out "
                                                        "<t:1000:R>.", since)
