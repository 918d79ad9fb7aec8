"""Decoder's prompt fix on Discord: a move typed in the room is taken `fix_seconds` after it
was sent; editing the message within that window replaces the move, deleting it withdraws
it (discord.py's raw message edit and delete events), and the room sees only the move taken.
alice (seat 0) against the built-in `deducer`."""

from __future__ import annotations

import asyncio

from games.decoder.letters import ALPHABET
from tests.discord.conftest import World, bot_posts, channel_of, next_decision, start_vs_bot, umpire


async def to_alices_turn(world: World, up, match) -> None:  # type: ignore[no-untyped-def]
    while (prompt := await next_decision(world, up, match, 0)) is not None and \
            prompt.kind != "turn":
        await world.fake.slash_command(world.host, world.general, "match lock", match=match.id)
        if prompt.private:
            for p in [p for p in match.prompts if p.seat == 0]:
                choice = p.choices[0] if p.choices else None
                if choice:
                    await up.service.submit(match.id, match.players[0].id, choice,
                                            table_of=0, prompt_key=p.key)
    assert prompt is not None and prompt.kind == "turn"


async def test_an_edit_in_the_window_replaces_the_move_and_a_deletion_withdraws_it(
        world: World) -> None:
    fake = world.fake
    async with umpire(world) as up:
        match = await start_vs_bot(world, up, "decoder", "deducer", seed="dec-fix",
                                   settings="time_bank=60 lock_when_ready=true fix_seconds=2")
        room, table = channel_of(world, match, "public"), channel_of(world, match, "seat0")
        await to_alices_turn(world, up, match)
        me, other = match.state.seats
        tank = me.unused()[0].name
        right = other.hand[0]
        typo = next(ch for ch in ALPHABET if ch not in other.hand and ch not in me.hand
                    and ch not in match.state.revealed)
        seq, posts = match.seq, len(bot_posts(world, room))

        # A deletion withdraws: nothing is taken, nothing said in the room.
        typed = await fake.send_user_message(world.alice, room, f"use {tank} guess {typo}")
        await asyncio.sleep(0.3)
        fake.delete_message(typed)
        await fake.gateway.flush()
        await asyncio.sleep(2.5)
        await up.idle(fake)
        assert match.seq == seq and len(bot_posts(world, room)) == posts
        assert any("withdrew your move" in m.content for m in fake.messages(table))

        # A typo fixed by an edit within the window: the fixed move is the one taken.
        typed = await fake.send_user_message(world.alice, room, f"use {tank} guess {typo}")
        await asyncio.sleep(0.3)
        fake.edit_message(typed, {"content": f"use {tank} guess {right}"})
        await fake.gateway.flush()
        await fake.wait_for(lambda: match.seq > seq, 10)
        await up.idle(fake)
        said = " ".join(m.content for m in bot_posts(world, room)[posts:])
        assert f"guesses {right}: correct" in said and f"guesses {typo}" not in said
        assert [r.letter for r in match.state.history if r.seat == 0][-1] == right

        # An edit after the window changes nothing (the bot's own turn may go on meanwhile).
        mine = len([r for r in match.state.history if r.seat == 0])
        fake.edit_message(typed, {"content": f"use {tank} restore"})
        await fake.gateway.flush()
        await asyncio.sleep(0.5)
        await up.idle(fake)
        assert len([r for r in match.state.history if r.seat == 0]) == mine
        assert not any(r.action == "restore" for r in match.state.history if r.seat == 0)
