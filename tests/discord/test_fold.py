"""Coalescing end to end (issue 40): an announcement to a channel with room in its rate
limits is posted at once, on its own (no fixed wait for the channel's next message); what a
channel queues behind its own limit goes as one post; nothing is lost, the outbox is all
there, in order. (tests/discord/test_fold_held.py has the timing under fast-forwarded time.)"""

from __future__ import annotations

import asyncio

from testbed.fake_discord.limits import RateLimits
from tests.discord.conftest import (
    World,
    assert_channels_match_outbox,
    bot_posts,
    channel_of,
    start_rps,
    umpire,
)


async def test_the_first_pick_is_shown_at_once_while_the_other_player_thinks(
        world: World) -> None:
    fake = world.fake
    async with umpire(world) as up:
        match = await start_rps(world, up)
        room = channel_of(world, match, "public")
        await up.idle(fake)
        before = len(bot_posts(world, room))
        prompt = next(p for p in match.prompts if p.seat == 0)
        await fake.send_user_message(world.alice, channel_of(world, match, "seat0"),
                                     prompt.choices[0])
        await fake.wait_for(lambda: len(bot_posts(world, room)) > before, 10)
        assert "has chosen" in bot_posts(world, room)[before].content  # bob has not picked
        prompt = next(p for p in match.prompts if p.seat == 1)
        await fake.send_user_message(world.bob, channel_of(world, match, "seat1"),
                                     prompt.choices[0])
        await fake.wait_for(lambda: not match.prompt_pending(prompt.key), 10)
        await up.idle(fake)
        await assert_channels_match_outbox(world, up, match)


async def test_what_a_channel_queues_behind_its_limit_goes_as_one_post(world: World) -> None:
    """The room's bucket is spent (5 posts per 5 s, Discord's own numbers: on the suite's
    scaled clock a busy machine played the rounds too slowly for the bucket to bind, and
    nothing queued): the match's next room messages, queued meanwhile, go together."""
    fake = world.fake
    async with umpire(world) as up:
        match = await start_rps(world, up)
        room = channel_of(world, match, "public")
        await up.idle(fake)
        fake.limits = RateLimits()  # (the starts above on the suite's scale)
        up.transport.pacer.window = 1.0
        for seat, user in ((0, world.alice), (1, world.bob)) * 4:  # four rounds at once
            prompt = next((p for p in match.prompts if p.seat == seat), None)
            if prompt is None or match.status != "active":
                break
            await fake.send_user_message(user, channel_of(world, match, f"seat{seat}"),
                                         prompt.choices[0])
            await fake.wait_for(lambda p=prompt: not match.prompt_pending(p.key), 10)
            await asyncio.sleep(0)
        await up.idle(fake)
        counts = await assert_channels_match_outbox(world, up, match)
        assert counts["public"] > len(bot_posts(world, room))  # messages > posts: folded
