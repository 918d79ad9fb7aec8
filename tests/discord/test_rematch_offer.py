"""The Rematch button rides on the match's final message in the room (its result), instead
of a post of its own after it; a press leaves that message's text as it is."""

from __future__ import annotations

import random

from bot.discord.marker import read_mark
from tests.discord.conftest import (
    World,
    assert_channels_match_outbox,
    bot_posts,
    channel_of,
    start_match,
    umpire,
)
from tests.support.driver import drive


async def test_the_final_message_carries_the_rematch_button(world: World) -> None:
    fake, rng = world.fake, random.Random(1)
    async with umpire(world, friendly_matches=True) as up:
        match = await start_match(world, up, "duel", settings="rounds=1")
        room = channel_of(world, match, "public")
        while match.status == "active":
            for prompt in list(match.prompts):
                await up.service.submit_command(
                    match.id, prompt.seat, match.game.random_command(match.state, prompt, rng))
        await up.idle(fake)
        offers = [m for m in fake.messages(room) if any(
            str(c.get("custom_id")) == f"ump:rm:{match.id}" for c in m.iter_components())]
        assert len(offers) == 1, "one Rematch button, on one message"
        [final] = offers
        assert final.id == bot_posts(world, room)[-1].id and "🏁" in final.content
        assert read_mark(final.content)[1] is not None  # an outbox message, not an extra post
        await assert_channels_match_outbox(world, up, match)  # nothing else in the room
        stored = await drive(up.service).stored(match.id)
        assert stored is not None and stored.row.transport.get("rematch_offered") is True
        text = final.content
        await fake.click_button(world.alice, final, f"ump:rm:{match.id}")
        await fake.wait_for(lambda: "waiting for bob" in str(final.embeds), 10)
        assert final.content == text
