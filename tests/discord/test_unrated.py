"""`/match unrated` says so in the match's room: the hosts' mark is public, like a pause."""

from __future__ import annotations

from bot.discord.host_tools import UNRATED_LINE
from bot.discord.marker import read_mark
from tests.discord.conftest import (
    World,
    assert_channels_match_outbox,
    bot_posts,
    channel_of,
    start_rps,
    umpire,
)


async def test_marking_a_running_match_unrated_posts_a_line_in_its_room(world: World) -> None:
    fake = world.fake
    async with umpire(world) as up:
        match = await start_rps(world, up)
        room = channel_of(world, match, "public")
        before = len(bot_posts(world, room))
        marked = await fake.slash_command(world.host, world.general, "match unrated",
                                          match=match.id)
        await fake.wait_for(lambda: marked.answer is not None, 10)
        await up.idle(fake)
        new = bot_posts(world, room)[before:]
        assert [read_mark(m.content)[0] for m in new] == [UNRATED_LINE]
        assert "unrated" in UNRATED_LINE and "will not change ratings" in UNRATED_LINE
        assert new[0].mentions == [], "the line pings nobody"
        assert marked.answer.ephemeral
        # It is an outbox message (in the transcript, delivered once, crash-safe).
        await assert_channels_match_outbox(world, up, match)
        assert match.transport.get("unrated") is True
    async with umpire(world) as up:  # the mark was stored with the line
        assert up.service.matches[match.id].transport.get("unrated") is True


async def test_marking_an_ended_match_unrated_posts_a_line_in_its_room(world: World) -> None:
    fake = world.fake
    async with umpire(world) as up:
        match = await start_rps(world, up)
        won = await fake.slash_command(world.host, world.general, "match award",
                                       player=world.alice, match=match.id)
        await fake.wait_for(lambda: won.answer is not None, 10)
        await up.idle(fake)
        room = channel_of(world, match, "public")
        before = len(bot_posts(world, room))
        marked = await fake.slash_command(world.host, world.general, "match unrated",
                                          match=match.id)
        await fake.wait_for(lambda: marked.answer is not None, 10)
        await up.idle(fake)
        assert "recomputed" in marked.answer.content
        assert [m.content for m in bot_posts(world, room)[before:]] == [UNRATED_LINE]
