"""A click in a player's own table is answered with the table's next post (the interaction's
response, which Discord does not count against the bot's rate limits) instead of a silent
acknowledgement and a post of its own; nothing is lost when that response fails, and only
a click in the clicker's own table is answered so (bot/discord/answer.py)."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace
from typing import Any

import aiohttp
import discord
import pytest

from bot.discord import answer as answer_module
from bot.discord.marker import read_mark
from testbed.fake_discord.limits import TEST_SCALE
from tests.discord.conftest import (
    World,
    assert_channels_match_outbox,
    bot_posts,
    channel_of,
    next_decision,
    start_rps,
    start_vs_bot,
    umpire,
    with_key,
)
from tests.support.driver import drive


def table_button(world: World, match: Any, seat: int) -> tuple[Any, str]:
    """The latest message in the seat's table with a button for its open decision."""
    table = channel_of(world, match, f"seat{seat}")
    prompt = next(p for p in match.prompts if p.seat == seat)
    message = next(m for m in reversed(bot_posts(world, table))
                   if any(c["custom_id"].endswith(f":{prompt.key}")
                          for c in m.iter_components()))
    button = next(c["custom_id"] for c in message.iter_components()
                  if c["custom_id"].startswith(f"ump:b:{match.id}:0:"))
    return message, button


def posts_to(world: World, channel: Any, start: int) -> list[Any]:
    return [e for e in world.fake.request_log[start:]
            if e.method == "POST" and e.path == f"/channels/{channel.id}/messages"]


async def alice_clicks(world: World, up: Any, *,
                       too_late: bool = False) -> tuple[Any, Any, int, Any]:
    """Alice clicks a choice in her table: (match, her table, the request log's length
    before the click, the interaction), once everything is delivered. `too_late`: Discord
    refuses every response to the click (past its 3 s)."""
    fake = world.fake
    match = await start_rps(world, up)
    table0 = channel_of(world, match, "seat0")
    message, button = table_button(world, match, 0)
    start = len(fake.request_log)
    if too_late:
        fake.interaction_timeout = 0.0
    click = await fake.click_button(world.alice, message, button, wait=not too_late)
    await fake.wait_for(lambda: match.seq == 1, 10)
    await up.idle(fake)
    return match, table0, start, click


async def test_a_click_in_the_own_table_is_answered_with_the_tables_next_post(
        world: World) -> None:
    async with umpire(world) as up:
        match, table0, start, click = await alice_clicks(world, up)
        assert click.response.type == 4, click.responses  # a message, not a silent ack
        assert not int(click.response.data.get("flags") or 0) & 64  # in the table, for all
        outbox = [m for m in await drive(up.service).messages(match.id)
                  if m.audience == "seat0"]
        answered = click.response.message
        assert answered.channel_id == table0.id
        assert read_mark(answered.content)[1] == str(outbox[-1].id)  # the outbox's post
        assert bot_posts(world, table0)[-1].id == answered.id
        assert posts_to(world, table0, start) == []  # no post of its own
        assert up.transport.answers.responses == 1
        await assert_channels_match_outbox(world, up, match)  # each message exactly once


async def test_a_tables_post_after_the_opponents_slow_move_follows_the_click(
        world: World) -> None:
    """Alice picks in her table (acknowledged: nothing for her table yet); Bob thinks the
    equivalent of 50 s (1 s at the tests' scale of 0.02) before his pick. Her table's next
    post (the round's result and her next prompt) is still a follow-up of her click: it
    is the next decision asked that ends a click's follow-ups, not 10 s (issue 40)."""
    async with umpire(world) as up:
        fake = world.fake
        match = await start_rps(world, up)
        table0 = channel_of(world, match, "seat0")
        message, button = table_button(world, match, 0)
        click = await fake.click_button(world.alice, message, button)
        await fake.wait_for(lambda: match.seq == 1, 10)
        await up.idle(fake)
        await asyncio.sleep(50 * TEST_SCALE)  # Bob thinks
        start = len(fake.request_log)
        message1, button1 = table_button(world, match, 1)
        await fake.click_button(world.bob, message1, button1)
        await fake.wait_for(lambda: match.seq == 2, 10)
        await up.idle(fake)
        assert posts_to(world, table0, start) == []  # no post of its own
        assert click.followups and click.followups[-1].channel_id == table0.id
        prompt = await next_decision(world, up, match, 0)
        assert prompt is not None
        assert with_key(world, table0, prompt.key).id == click.followups[-1].id  # her prompt
        await assert_channels_match_outbox(world, up, match)


async def test_a_refused_response_is_posted_by_the_outbox(world: World) -> None:
    """Past Discord's 3 s the response is refused: the post goes out as an ordinary one,
    once, and the move stands."""
    async with umpire(world) as up:
        match, table0, start, _ = await alice_clicks(world, up, too_late=True)
        assert up.transport.answers.responses == 0
        assert len(posts_to(world, table0, start)) == 1
        await assert_channels_match_outbox(world, up, match)


async def test_a_response_taken_but_unanswered_is_not_posted_again(
        world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    """Discord took the response but its answer was lost (a reset connection): the post is
    looked for in the table before it is posted, found by its marker, not posted twice."""
    real = discord.InteractionResponse.send_message

    async def lost(self: Any, *args: Any, **kwargs: Any) -> Any:
        await real(self, *args, **kwargs)
        raise aiohttp.ClientOSError("connection reset after Discord accepted")
    monkeypatch.setattr(discord.InteractionResponse, "send_message", lost)
    async with umpire(world) as up:
        match, table0, start, click = await alice_clicks(world, up)
        assert click.response.type == 4
        assert posts_to(world, table0, start) == [] and up.transport.skipped == 1
        await assert_channels_match_outbox(world, up, match)


async def test_only_a_player_whose_channel_it_is_has_its_posts_answer_the_click(
        world: World) -> None:
    """The response lands where the click was made: a table's posts answer only its own
    player's clicks (a host reads tables too, the opponent must never get them), the room's
    any player's (it is everyone's); never a host's or a spectator's, never a click on a
    private menu (its response would be private), never one of another match."""
    async with umpire(world) as up:
        match = await start_rps(world, up)
        table0 = channel_of(world, match, "seat0")
        room = channel_of(world, match, "public")

        def click(user: Any, channel: Any, match_id: int = match.id,
                  ephemeral: bool = False) -> Any:
            interaction = SimpleNamespace(
                channel_id=channel.id, user=SimpleNamespace(id=user.id),
                message=SimpleNamespace(flags=SimpleNamespace(ephemeral=ephemeral)),
                response=SimpleNamespace(is_done=lambda: False))
            found = answer_module._open(up.bot, interaction, match_id)  # type: ignore[arg-type]
            if found is not None:
                found.stop()
                found.state = answer_module.SETTLED
                up.transport.close_answer(found)
            return found

        assert click(world.alice, table0) is not None
        assert click(world.bob, table0) is None
        assert click(world.host, table0) is None
        assert click(world.alice, room) is not None
        assert click(world.bob, room) is not None
        assert click(world.host, room) is None
        assert click(world.eve, room) is None
        assert click(world.alice, table0, ephemeral=True) is None
        assert click(world.alice, room, ephemeral=True) is None
        assert click(world.alice, table0, match.id + 1) is None
        assert not len(up.transport.answers)


async def test_an_announcement_a_click_waits_for_is_not_held_back_to_be_folded(
        world: World) -> None:
    """The first chooser's confirmation is an announcement, which the outbox may hold while
    its table is rate limited, to fold it into the table's next post; a click waiting for it
    takes it at once instead (free, and the click is answered well within Discord's 3 s)."""
    fake = world.fake
    async with umpire(world) as up:
        match = await start_rps(world, up)
        message, button = table_button(world, match, 0)
        click = await fake.click_button(world.alice, message, button)
        assert click.response.type == 4 and "You keep" in click.response.data["content"]
        assert click.acked_after is not None and click.acked_after < 3.0
        await up.idle(fake)


async def room_click_with_followups(world: World, up: Any) -> tuple[Any, Any, Any, int]:
    """Alice plays Devil's Deal against the dealer by the room's buttons (her first option)
    until a click of hers is answered with more than one post: (match, room, click, the
    request log's length before it), once everything is delivered."""
    fake = world.fake
    match = await start_vs_bot(world, up, "devils-deal", "dealer", seed="dd-buttons",
                               settings="starting_chips=12 break_seconds=0")
    room = channel_of(world, match, "public")
    for _ in range(20):
        prompt = await next_decision(world, up, match, 0)
        assert prompt is not None and not prompt.private, prompt
        message = with_key(world, room, prompt.key)
        button = next(c["custom_id"] for c in message.iter_components() if c["type"] == 2)
        start = len(fake.request_log)
        click = await fake.click_button(world.alice, message, button)
        await fake.wait_for(lambda p=prompt: not match.prompt_pending(p.key), 10)
        await up.idle(fake)
        if click.followups:
            return match, room, click, start
    raise AssertionError("no click had follow-ups")


async def test_a_click_in_the_room_is_answered_with_what_follows_there(world: World) -> None:
    """The room's next post is the click's response, the room's posts after it (the dealer's
    reply, her next decision) its follow-ups, up to the one asking her: no post of its own
    in the room; a post for her table stays an ordinary post."""
    async with umpire(world) as up:
        match, room, click, start = await room_click_with_followups(world, up)
        assert click.response.type == 4 and click.original.channel_id == room.id
        assert all(m.channel_id == room.id and not m.ephemeral for m in click.followups)
        assert posts_to(world, room, start) == []
        last = click.followups[-1]
        assert last.iter_components() and f"<@{world.alice.id}>" in last.content  # asks her
        assert up.transport.answers.followups >= len(click.followups)
        await assert_channels_match_outbox(world, up, match)


async def test_a_refused_follow_up_is_posted_normally(
        world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    """Discord refuses the follow-up (an interaction token it no longer knows): the post
    goes out as an ordinary one, once."""
    real = discord.Webhook.send
    tried: list[str] = []

    async def refused(self: Any, *args: Any, **kwargs: Any) -> Any:
        if read_mark(str(kwargs.get("content")))[1] is None:  # not an outbox post
            return await real(self, *args, **kwargs)
        tried.append(str(kwargs.get("content")))
        raise discord.NotFound(SimpleNamespace(status=404, reason="Not Found"),
                               {"code": 10015, "message": "Unknown Webhook"})
    monkeypatch.setattr(discord.Webhook, "send", refused)
    async with umpire(world) as up:
        match = await start_vs_bot(world, up, "devils-deal", "dealer", seed="dd-buttons",
                                   settings="starting_chips=12 break_seconds=0")
        room = channel_of(world, match, "public")
        for _ in range(4):  # (her first decisions: the starter, refills, divisions)
            prompt = await next_decision(world, up, match, 0)
            assert prompt is not None
            if prompt.private:
                break
            message = with_key(world, room, prompt.key)
            button = next(c["custom_id"] for c in message.iter_components() if c["type"] == 2)
            await world.fake.click_button(world.alice, message, button)
            await world.fake.wait_for(lambda p=prompt: not match.prompt_pending(p.key), 10)
        await up.idle(world.fake)
        assert tried and up.transport.answers.followups == 0
        await assert_channels_match_outbox(world, up, match)  # each post exactly once


async def test_a_follow_up_taken_but_unanswered_is_not_posted_again(
        world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    """Discord took the follow-up but its answer was lost: the post is looked for in the
    room by its marker before it is posted, found, not posted twice."""
    real = discord.Webhook.send

    async def lost(self: Any, *args: Any, **kwargs: Any) -> Any:
        sent = await real(self, *args, **kwargs)
        if read_mark(str(kwargs.get("content")))[1] is None:  # not an outbox post
            return sent
        raise aiohttp.ClientOSError("connection reset after Discord accepted")
    monkeypatch.setattr(discord.Webhook, "send", lost)
    async with umpire(world) as up:
        match, room, click, start = await room_click_with_followups(world, up)
        assert up.transport.skipped >= 1
        await assert_channels_match_outbox(world, up, match)


async def test_a_click_in_a_table_leaves_no_trace_elsewhere(world: World) -> None:
    """Both players pick in their tables by clicks: everything in the room and in the other
    player's table is an ordinary post (what typed moves give), never a response or
    follow-up of a click made in a table."""
    fake = world.fake
    async with umpire(world) as up:
        match = await start_rps(world, up)
        for seat, user in ((0, world.alice), (1, world.bob), (0, world.alice)):
            message, button = table_button(world, match, seat)
            seq = match.seq
            await fake.click_button(user, message, button)
            await fake.wait_for(lambda s=seq: match.seq != s, 10)
            await up.idle(fake)
        assert up.transport.answers.responses == 3
        room = channel_of(world, match, "public")
        tables = [channel_of(world, match, f"seat{s}") for s in (0, 1)]
        clicked_in = {i.channel.id: i for i in fake.interactions.values() if i.message}
        for channel in (room, *tables):
            for post in bot_posts(world, channel):
                meta = post.interaction_metadata
                if meta is None:
                    continue
                inter = next(i for i in fake.interactions.values() if str(i.id) == meta["id"])
                assert inter.channel.id == channel.id, (channel.name, post.content)
        assert room.id not in clicked_in
        assert not any(p.interaction_metadata for p in bot_posts(world, room))
        await assert_channels_match_outbox(world, up, match)
