"""Delivery through Discord's failures, and clocks running out on Discord."""

from __future__ import annotations

import re
from datetime import datetime

from bot.transport import UNTIL
from tests.discord.conftest import (
    World,
    assert_channels_match_outbox,
    bot_posts,
    channel_of,
    start_rps,
    umpire,
)
from tests.support.driver import drive


async def test_server_errors_and_rate_limits_are_retried_without_duplicates(world: World) -> None:
    fake = world.fake
    async with umpire(world) as up:
        match = await start_rps(world, up)
        fake.fail_next("POST", "/channels/*/messages", status=500)
        fake.fail_next("POST", "/channels/*/messages", status=429, retry_after=0.05)
        for seat, user in enumerate((world.alice, world.bob)):
            prompt = next(p for p in match.prompts if p.seat == seat)
            await fake.send_user_message(user, channel_of(world, match, f"seat{seat}"),
                                         prompt.choices[0])
            await fake.wait_for(lambda p=prompt: p.key not in {q.key for q in match.prompts})
        await up.idle(fake)
        assert [e.status for e in fake.request_log if e.status >= 400] == [500, 429]
        assert drive(up.service).failures == []
        await assert_channels_match_outbox(world, up, match)


async def test_a_clock_running_out_is_announced_and_the_bot_picks(world: World) -> None:
    fake = world.fake
    async with umpire(world) as up:
        match = await start_rps(world, up, settings="decision_seconds=0.3 reminders=[]")
        await fake.wait_for(lambda: match.seq == 2, 5)
        await up.idle(fake)
        room = channel_of(world, match, "public")
        assert any("time" in m.content.lower() and "random" in m.content.lower()
                   for m in bot_posts(world, room))
        await up.service.abort(match.id, "test over")
        await up.idle(fake)
        await assert_channels_match_outbox(world, up, match)


async def test_a_sustained_rate_limit_then_recovery_loses_nothing_and_charges_no_clock(
        world: World) -> None:
    fake = world.fake
    async with umpire(world) as up:
        drive(up.service).set_backoff(0.05, 0.2, stall_after=0.5)
        up.service.delivery_grace = 0.3
        match = await start_rps(world, up)
        table0, log = channel_of(world, match, "seat0"), channel_of(world, match, "umpire")
        for seat, user in enumerate((world.alice, world.bob)):
            prompt = next(p for p in match.prompts if p.seat == seat)
            if seat == 1:
                # Alice's table now refuses every post for a while: far more 429s than
                # discord.py's own five tries per send, so the service has to keep retrying.
                await up.idle(fake)
                rule = fake.fail_next("POST", f"/channels/{table0.id}/messages", status=429,
                                      retry_after=0.05, times=40)
            await fake.send_user_message(user, channel_of(world, match, f"seat{seat}"),
                                         prompt.choices[0])
            await fake.wait_for(lambda p=prompt: not match.prompt_pending(p.key))
        [next_key] = [p.key for p in match.prompts if p.seat == 0]
        await fake.wait_for(lambda: rule.remaining == 0, 20)
        await up.idle(fake)
        assert drive(up.service).failures == []
        await assert_channels_match_outbox(world, up, match)
        # Alice's next decision reached her late: her clock started when it arrived.
        [asked] = [m for m in await drive(up.service).messages(match.id) if m.audience == "seat0"
                   and next_key in {p["key"] for p in m.payload.get("prompts") or []}]
        [posted] = [m for m in bot_posts(world, table0) if m.nonce == str(asked.id)]
        assert (posted.timestamp - asked.created_at).total_seconds() >= 40 * 0.05
        started = match.clocks[next_key].started_at
        assert 0 <= (started - posted.timestamp).total_seconds() < 1.0
        # ...and the prompt shows the deadline it really has, not the one it was written with
        shown = int(re.search(r"<t:(\d+):R>", posted.content).group(1))  # type: ignore[union-attr]
        limit = match.clocks[next_key].limit_at
        assert limit is not None and abs(shown - limit.timestamp()) <= 1
        written = datetime.fromisoformat(UNTIL.search(asked.text).group(1))  # type: ignore[union-attr]
        assert shown - written.timestamp() >= 1, "later than written: it arrived 2 s late"
        told = [m.content for m in bot_posts(world, log) if "nothing has gone through" in m.content]
        assert len(told) == 1 and "table channel of" in told[0]


async def test_a_rate_limited_host_log_does_not_delay_the_room(world: World) -> None:
    fake = world.fake
    async with umpire(world) as up:
        match = await start_rps(world, up)
        room, log = channel_of(world, match, "public"), channel_of(world, match, "umpire")
        fake.fail_next("POST", f"/channels/{log.id}/messages", status=429, retry_after=3.0)
        log_before, last_room = len(bot_posts(world, log)), fake.messages(room)[-1]
        for seat, user in enumerate((world.alice, world.bob)):
            prompt = next(p for p in match.prompts if p.seat == seat)
            await fake.send_user_message(user, channel_of(world, match, f"seat{seat}"),
                                         prompt.choices[0])
            await fake.wait_for(lambda p=prompt: not match.prompt_pending(p.key))
        # Alice's move put a line in the log (held for 3 s by the rate limit) before Bob's
        # move put one in the room: the room's arrives first all the same.
        await fake.wait_for_message(room, from_bot=True, after=last_room)
        assert len(bot_posts(world, log)) == log_before
        await up.idle(fake)
        assert len(bot_posts(world, log)) > log_before
        assert drive(up.service).failures == []
        await assert_channels_match_outbox(world, up, match)
