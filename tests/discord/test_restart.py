"""Restart end to end, and REST calls per game action."""

from __future__ import annotations

import asyncio
from collections import Counter

from bot.discord.closing import MatchClosing
from testbed.fake_discord import permissions as P
from tests.discord.conftest import (
    World,
    assert_channels_match_outbox,
    bot_posts,
    channel_of,
    play_prompt,
    start_rps,
    umpire,
)
from tests.discord.conftest import undelivered as _undelivered
from tests.discord.conftest import unmark as _unmark
from tests.support.driver import drive


async def test_restart_mid_match_continues_without_losing_or_duplicating(world: World) -> None:
    """(Each outbox message its own post, so that the posts can be counted: no folding, no
    host log batches.)"""
    fake = world.fake
    one_by_one = {"coalesce": False, "log_batch_seconds": 0}
    async with umpire(world, drain=False, **one_by_one) as up:
        match = await start_rps(world, up)
        match_id = match.id
        await play_prompt(world, up, match, 0)
        await play_prompt(world, up, match, 1)
        await play_prompt(world, up, match, 0)
        await up.idle(fake)
        delivered = [m.id for m in await drive(up.service).messages(match_id)]
        # Discord rate-limits the next send for long: bob's move is stored, that message not
        # yet posted (the other channels' messages go on: one queue per channel).
        fake.fail_next("POST", "/channels/*/messages", status=429, retry_after=30)
        n = len(fake.request_log)
        await play_prompt(world, up, match, 1)
        await fake.wait_for(lambda: any(e.status == 429 for e in fake.request_log[n:]))
        await fake.wait_for(lambda: sum(e.status == 200 and e.method == "POST" and
                                        e.path.endswith("/messages")
                                        for e in fake.request_log[n:]) == 3)
        seq = match.seq
        armed = {k: c.limit_at for k, c in match.clocks.items() if c.status == "armed"}
        assert armed and seq == 4
        await asyncio.sleep(0.1)  # a few heartbeats
    stopped = asyncio.get_running_loop().time()
    undelivered = await _undelivered(world)
    assert len(undelivered) == 1  # the rate-limited one of bob's move's four messages
    # Crash between "posted" and "marked delivered": the last three posts are sent again.
    await _unmark(world, delivered[-3:])
    await asyncio.sleep(1.0)  # the bot is down for a second

    requests_before = len(fake.requests)
    async with umpire(world, **one_by_one) as up:
        downtime = asyncio.get_running_loop().time() - stopped
        match = up.service.matches[match_id]
        assert match.seq == seq and match.status == "active"
        # Clocks resumed with the time they had left (a decision whose message was the
        # rate-limited one may start later still: from its delivery, at the latest now).
        since_stop = asyncio.get_running_loop().time() - stopped
        for key, limit in armed.items():
            shift = (match.clocks[key].limit_at - limit).total_seconds()
            assert 0.9 <= shift <= since_stop + 0.5, (key, shift, downtime)
        await up.idle(fake)
        assert await _undelivered(world) == []
        nonces = [str((j or {}).get("nonce")) for m, p, j in fake.requests[requests_before:]
                  if m == "POST" and p.endswith("/messages")]
        # The three posted ones are found in their channels (a resend after a restart looks
        # there first: Discord keeps a nonce only for minutes); the rate-limited one is posted.
        assert up.transport.skipped == 3
        assert nonces[:len(undelivered)] == [str(i) for i in undelivered]
        assert all((j or {}).get("enforce_nonce") for m, p, j in fake.requests[requests_before:]
                   if m == "POST" and p.endswith("/messages"))
        # Continue to the end, partly with buttons posted before the restart.
        table0 = channel_of(world, match, "seat0")
        message = next(m for m in reversed(bot_posts(world, table0)) if m.components)
        await fake.click_button(world.alice, message, message.iter_components()[0]["custom_id"])
        await fake.wait_for(lambda: match.seq == seq + 1)
        while match.status == "active":
            for prompt in list(match.prompts):
                await play_prompt(world, up, match, prompt.seat)
        await up.idle(fake)
        await assert_channels_match_outbox(world, up, match)
    assert match.status == "finished"


async def test_rest_calls_per_action_are_one_message_per_audience(world: World) -> None:
    """(Counted per action, in the outbox's order: no folding into a later action's post, no
    host log batches; tests/discord/test_fold.py and test_log_batch.py have those.)"""
    fake = world.fake
    async with umpire(world, coalesce=False, log_batch_seconds=0) as up:
        match = await start_rps(world, up)
        for seat in (0, 1, 0, 1):
            start = len(fake.requests)
            await play_prompt(world, up, match, seat)
            await up.idle(fake)
            calls = fake.requests[start:]
            outbox = [m for m in await drive(up.service).messages(match.id) if m.seq == match.seq]
            per_audience = Counter(m.audience for m in outbox)
            assert max(per_audience.values()) == 1
            assert [(m, p) for m, p, _ in calls] == [
                ("POST", f"/channels/{channel_of(world, match, m.audience).id}/messages")
                for m in outbox]
        # A click: one interaction callback carrying the table's message (bot/discord/
        # answer.py), plus one post for each other audience.
        table0 = channel_of(world, match, "seat0")
        message = next(m for m in reversed(bot_posts(world, table0)) if m.components)
        start = len(fake.requests)
        await fake.click_button(world.alice, message, message.iter_components()[0]["custom_id"])
        await fake.wait_for(lambda: match.seq == 5)
        await up.idle(fake)
        calls = [(m, p) for m, p, _ in fake.requests[start:]]
        assert sum(1 for m, p in calls if p.startswith("/interactions/")) == 1
        posts = [p for m, p in calls if p.endswith("/messages")]
        outbox = [m for m in await drive(up.service).messages(match.id) if m.seq == 5]
        assert len(outbox) == len({m.audience for m in outbox})
        assert len(posts) == len(outbox) - 1 and "seat0" in {m.audience for m in outbox}
        assert f"/channels/{table0.id}/messages" not in posts
        assert len(calls) == len(posts) + 1


async def test_channels_left_open_by_a_stop_after_the_end_are_closed_on_the_next_start(
        world: World, monkeypatch) -> None:
    """The bot stops between a match's last message and closing its channels: the next start
    makes them read-only and records it, and the start after that does nothing more."""
    fake = world.fake

    async def stopped_before_closing(self, match) -> None:
        return None

    with monkeypatch.context() as patch:
        patch.setattr(MatchClosing, "_close", stopped_before_closing)
        async with umpire(world) as up:
            match = await start_rps(world, up)
            await fake.slash_command(world.host, world.general, "match abort", match=match.id)
            await fake.wait_for(lambda: match.status == "aborted")
            await up.idle(fake)
    room, table0 = channel_of(world, match, "public"), channel_of(world, match, "seat0")
    assert fake.permissions_for(world.alice, room) & P.SEND_MESSAGES
    assert fake.permissions_for(world.alice, table0) & P.SEND_MESSAGES

    async with umpire(world) as up:
        await fake.wait_for(lambda: not fake.permissions_for(world.alice, room) & P.SEND_MESSAGES)
        await up.idle(fake)
        for user, channel in ((world.alice, room), (world.eve, room), (world.alice, table0),
                              (world.bob, channel_of(world, match, "seat1"))):
            assert fake.can_view(user, channel)
            assert not fake.permissions_for(user, channel) & P.SEND_MESSAGES
        stored = await drive(up.service).stored(match.id)
        assert stored is not None and stored.row.transport.get("closed") is True
        assert await drive(up.service).ended_with_open_places() == []

    edits_before = _channel_edits(world)
    async with umpire(world) as up:
        await fake.wait_for(lambda: up.transport.ready.is_set())
        assert await up.bot.closing.close_ended() == 0
        await up.idle(fake)
    assert _channel_edits(world) == edits_before


def _channel_edits(world: World) -> int:
    return sum(1 for m, p, _ in world.fake.requests if m == "PATCH" and p.startswith("/channels/"))
