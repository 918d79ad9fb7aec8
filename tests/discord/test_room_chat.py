"""Moves versus chat in the game room: only text starting with one of the game's move words
is a move; anything else is chat and gets no answer; a refusal never pings; one refusal per
player within the cooldown."""

from __future__ import annotations

import asyncio

from tests.discord.conftest import (
    World,
    bot_posts,
    channel_of,
    next_decision,
    start_match,
    start_rps,
    umpire,
)


async def test_chat_in_the_room_is_ignored_and_a_move_is_accepted(world: World) -> None:
    fake = world.fake
    async with umpire(world) as up:
        match = await start_match(world, up, "devils-deal")
        room = channel_of(world, match, "public")
        tables = [channel_of(world, match, f"seat{s}") for s in (0, 1)]
        prompt = await next_decision(world, up, match, 0)
        assert prompt is not None and not prompt.private  # who starts round 1: in the room
        posts = {c.id: len(bot_posts(world, c)) for c in (room, *tables)}
        for user, text in ((world.alice, "nice one"), (world.bob, "good luck, have fun!"),
                           (world.alice, "really?")):
            typed = await fake.send_user_message(user, room, text)
            await up.idle(fake)
            assert not typed.deleted
        assert {c.id: len(bot_posts(world, c)) for c in (room, *tables)} == posts  # no answer
        assert match.seq == 0
        await fake.send_user_message(world.alice, room, "I start")
        await fake.wait_for(lambda: match.seq == 1)
        await up.idle(fake)
        assert len(bot_posts(world, room)) > posts[room.id]


async def test_a_refusal_never_pings_and_cools_down(world: World) -> None:
    fake = world.fake
    async with umpire(world, refusal_cooldown_seconds=60) as up:
        match = await start_rps(world, up)
        room, table0 = channel_of(world, match, "public"), channel_of(world, match, "seat0")
        before = len(bot_posts(world, table0))
        start = len(fake.request_log)
        first = await fake.send_user_message(world.alice, room, "play r3")
        second = await fake.send_user_message(world.alice, room, "keep p5")
        await fake.wait_for(lambda: first.deleted and second.deleted)
        await up.idle(fake)
        notes = bot_posts(world, table0)[before:]
        assert len(notes) == 1  # one refusal within the cooldown; both private moves deleted
        assert "deleted your message" in notes[0].content
        sends = [e.json for e in fake.request_log[start:]
                 if e.method == "POST" and e.path == f"/channels/{table0.id}/messages"]
        assert sends and all(s["allowed_mentions"]["parse"] == [] and
                             not s["allowed_mentions"].get("users") and
                             not s["allowed_mentions"].get("replied_user") for s in sends)
        # Her own table shares that cooldown (one per member and channel the answer goes
        # to): a wrong move typed there now gets no answer.
        typed = await fake.send_user_message(world.alice, table0, "play Z9")
        await up.idle(fake)
        assert bot_posts(world, table0)[before:] == notes
        # In bob's table, a wrong move gets a reply that pings nobody.
        table1 = channel_of(world, match, "seat1")
        typed = await fake.send_user_message(world.bob, table1, "play Z9")
        reply = await fake.wait_for_message(table1, from_bot=True, after=typed)
        assert reply.message_reference is not None
        request = next(e for e in reversed(fake.request_log) if e.method == "POST"
                       and e.path == f"/channels/{table1.id}/messages")
        assert request.json["allowed_mentions"] == {"parse": [], "replied_user": False} or (
            request.json["allowed_mentions"]["parse"] == [] and
            not request.json["allowed_mentions"].get("replied_user"))
        assert match.seq == 0


async def test_chat_gets_no_request_at_all_from_the_bot(world: World) -> None:
    """Chat in the room: no answer anywhere, no reaction, no deletion, no ping; nothing."""
    fake = world.fake
    async with umpire(world) as up:
        match = await start_match(world, up, "devils-deal")
        room = channel_of(world, match, "public")
        await next_decision(world, up, match, 0)
        start = len(fake.request_log)
        for user, text in ((world.alice, "gg"), (world.bob, "nice one @everyone"),
                           (world.eve, "who is winning?")):
            await fake.send_user_message(user, room, text)
        await up.idle(fake)
        writes = [(e.method, e.path) for e in fake.request_log[start:]
                  if e.method in ("POST", "PUT", "PATCH", "DELETE")]
        assert writes == [] and match.seq == 0


async def test_the_refusal_cooldown_is_per_player(world: World) -> None:
    """alice's cooldown does not silence bob's refusal; after it, alice is answered again."""
    fake = world.fake
    cooldown = 1.0
    async with umpire(world, refusal_cooldown_seconds=cooldown) as up:
        match = await start_rps(world, up)
        room = channel_of(world, match, "public")
        tables = [channel_of(world, match, f"seat{s}") for s in (0, 1)]
        before = [len(bot_posts(world, t)) for t in tables]
        await fake.send_user_message(world.alice, room, "play r3")
        await fake.send_user_message(world.alice, room, "keep p5")
        await fake.send_user_message(world.bob, room, "play s1")
        await up.idle(fake)
        notes = [bot_posts(world, t)[n:] for t, n in zip(tables, before, strict=True)]
        assert [len(n) for n in notes] == [1, 1]  # one each, bob's despite alice's cooldown
        assert all("deleted your message" in n[0].content for n in notes)
        await asyncio.sleep(cooldown + 0.2)
        await fake.send_user_message(world.alice, room, "play r3")
        await up.idle(fake)
        assert len(bot_posts(world, tables[0])) == before[0] + 2  # the cooldown is over
