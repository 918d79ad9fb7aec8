"""Delivery through Discord's failures, and clocks running out on Discord."""

from __future__ import annotations

from tests.discord.conftest import (
    World,
    assert_channels_match_outbox,
    bot_posts,
    channel_of,
    start_rps,
    umpire,
)


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
        assert up.service.delivery.failures == []
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
