"""Announcements folded into the next message of their channel (one request, not two): an
announcement with no decision and no deadline waits `fold_seconds` for the channel's next
message and is posted with it; nothing is lost, the outbox is all there, in order."""

from __future__ import annotations

import asyncio

from tests.discord.conftest import (
    World,
    assert_channels_match_outbox,
    bot_posts,
    channel_of,
    start_rps,
    umpire,
)


async def first_picks(world: World, up: object, match: object, pause: float) -> None:
    fake = world.fake
    for seat, user in enumerate((world.alice, world.bob)):
        prompt = next(p for p in match.prompts if p.seat == seat)  # type: ignore[attr-defined]
        await fake.send_user_message(user, channel_of(world, match, f"seat{seat}"),
                                     prompt.choices[0])
        await fake.wait_for(lambda p=prompt: not match.prompt_pending(p.key), 10)  # type: ignore[attr-defined]
        if seat == 0:
            await asyncio.sleep(pause)


async def test_the_first_pick_is_folded_into_the_round_that_follows(world: World) -> None:
    fake = world.fake
    async with umpire(world, fold_seconds=2.0) as up:
        match = await start_rps(world, up)
        room, table0 = channel_of(world, match, "public"), channel_of(world, match, "seat0")
        before_room, before_table = len(bot_posts(world, room)), len(bot_posts(world, table0))
        await first_picks(world, up, match, 0.3)  # bob picks a moment after alice
        await up.idle(fake)
        new_room = bot_posts(world, room)[before_room:]
        new_table = bot_posts(world, table0)[before_table:]
        assert len(new_room) == 1 and "has chosen" in new_room[0].content
        assert len(new_table) == 1 and "your decision" in new_table[0].content
        counts = await assert_channels_match_outbox(world, up, match)
        assert counts["public"] > len(bot_posts(world, room))  # messages > posts: folded


async def test_an_announcement_waits_no_longer_than_fold_seconds(world: World) -> None:
    fake = world.fake
    async with umpire(world, fold_seconds=0.5) as up:
        match = await start_rps(world, up)
        room = channel_of(world, match, "public")
        before = len(bot_posts(world, room))
        await first_picks(world, up, match, 2.0)  # bob takes his time
        await up.idle(fake)
        assert len(bot_posts(world, room)) == before + 2  # alice's pick shown on its own
        await assert_channels_match_outbox(world, up, match)
