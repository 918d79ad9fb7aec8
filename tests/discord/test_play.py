"""Routing and refusals on Discord: private moves in the room, hosts only, seats, buttons."""

from __future__ import annotations

import pytest

from testbed.fake_discord import permissions as P
from tests.discord.conftest import World, bot_posts, channel_of, start_rps, umpire
from tests.support.driver import drive


async def test_private_move_typed_in_the_room_is_deleted_and_not_applied(world: World) -> None:
    fake = world.fake
    async with umpire(world) as up:
        match = await start_rps(world, up)
        room, table0 = channel_of(world, match, "public"), channel_of(world, match, "seat0")
        choice = match.prompts[0].choices[0]
        room_before, table_before = len(fake.messages(room)), len(fake.messages(table0))
        typed = await fake.send_user_message(world.alice, room, choice)
        await fake.wait_for(lambda: typed.deleted)
        note = await fake.wait_for_message(table0, from_bot=True,
                                           after=fake.messages(table0)[-1] if table_before else None)
        await up.idle(fake)
        assert match.seq == 0 and match.prompts[0].key == "draft1-seat0"
        assert await drive(up.service).actions(match.id) == []
        assert "deleted your message in the game room" in note.content
        assert "table channel" in note.content
        assert f"<@{world.alice.id}>" not in note.content  # a refusal never pings
        assert len(fake.messages(room)) == room_before  # nothing posted in the room about it
        assert len(fake.messages(room, include_deleted=True)) == room_before + 1


async def test_without_manage_messages_the_move_stays_but_is_not_applied(world: World) -> None:
    fake = world.fake
    async with umpire(world) as up:
        match = await start_rps(world, up)
        fake.set_role_permissions(fake.bot_role(world.guild), P.DEFAULT_BOT & ~P.MANAGE_MESSAGES)
        await fake.sync()
        room, table0 = channel_of(world, match, "public"), channel_of(world, match, "seat0")
        last = fake.messages(table0)[-1]
        # The room channel's own overwrite for the bot still grants Manage Messages: drop it.
        fake.set_overwrite(room, fake.bot_user, allow=P.VIEW_CHANNEL | P.SEND_MESSAGES)
        await fake.sync()
        typed = await fake.send_user_message(world.alice, room, match.prompts[0].choices[0])
        note = await fake.wait_for_message(table0, from_bot=True, after=last)
        assert not typed.deleted and match.seq == 0
        assert "could not delete your message" in note.content


async def test_a_non_host_cannot_start_a_match_and_is_told_why(world: World) -> None:
    fake = world.fake
    async with umpire(world) as up:
        channels_before = len(fake.channels)
        with pytest.raises(PermissionError, match="hidden"):  # /match: Manage Server by default
            await fake.slash_command(world.eve, world.general, "match start", game="rps-poker",
                                     player1=world.alice, player2=world.bob)
        # An admin may show /match to more people (Integrations); the bot still checks.
        fake.allow_command(world.guild, "match", world.eve)
        fake.allow_command(world.guild, "match", world.alice)
        inter = await fake.slash_command(world.eve, world.general, "match start", game="rps-poker",
                                         player1=world.alice, player2=world.bob)
        assert inter.response is not None and inter.answer.ephemeral
        assert "Only hosts can run matches" in inter.answer.content
        assert "Umpire Host" in inter.answer.content
        typed = await fake.send_user_message(world.eve, world.general,
                                             f"!match start rps-poker <@{world.alice.id}> "
                                             f"<@{world.bob.id}>")
        reply = await fake.wait_for_message(world.general, from_bot=True, after=typed)
        assert "Only hosts can run matches" in reply.content
        await up.idle(fake)
        assert up.service.matches == {} and len(fake.channels) == channels_before
        # A player cannot pause either.
        paused = await fake.slash_command(world.alice, world.general, "match pause")
        assert "Only hosts" in paused.answer.content


async def test_bad_settings_are_refused_with_the_reason(world: World) -> None:
    fake = world.fake
    async with umpire(world) as up:
        channels_before = len(fake.channels)
        inter = await fake.slash_command(world.host, world.general, "match start",
                                         game="rps-poker", player1=world.alice,
                                         player2=world.bob, settings="decision_seconds=-5")
        await fake.wait_for(lambda: inter.responses)
        assert "decision_seconds" in inter.answer.content and inter.answer.ephemeral
        assert up.service.matches == {} and len(fake.channels) == channels_before


async def test_settings_seed_and_advantage_reach_the_match(world: World) -> None:
    async with umpire(world) as up:
        match = await start_rps(world, up, settings="decision_seconds=45 reminders=[20]",
                                seed="abc", advantage=2)
        assert [p.name for p in match.players] == ["bob", "alice"]  # seat 0: advantage
        assert match.settings.decision_seconds == 45 and match.settings.reminders == (20.0,)
        assert match.seed == "abc"
        assert world.fake.can_view(world.bob, channel_of(world, match, "seat0"))


async def test_a_player_cannot_act_for_the_other_seat(world: World) -> None:
    fake = world.fake
    async with umpire(world) as up:
        match = await start_rps(world, up)
        room, table0, table1 = (channel_of(world, match, a) for a in ("public", "seat0", "seat1"))
        bob_choice = next(p for p in match.prompts if p.seat == 1).choices[0]
        # Alice somehow writes in Bob's table (e.g. a host let her see it): refused, and the
        # refusal goes to her own table only, never where Bob reads.
        before1 = len(bot_posts(world, table1))
        last0 = fake.messages(table0)[-1]
        await fake.send_user_message(world.alice, table1, bob_choice, check_permissions=False)
        reply = await fake.wait_for_message(table0, from_bot=True, after=last0)
        assert "not your table channel" in reply.content
        await up.idle(fake)
        assert len(bot_posts(world, table1)) == before1
        # Bob's card typed in Alice's own table is not one of her cards.
        typed = await fake.send_user_message(world.alice, table0, bob_choice)
        reply = await fake.wait_for_message(table0, from_bot=True, after=typed)
        assert "not one of your two cards" in reply.content
        # Alice sees Bob's table and clicks his button: refused, ephemerally. (The channel
        # keeper would take her access away at once, tests/discord/test_keeper.py: it is
        # kept from looking here, so that the click is made.)
        up.bot.keeper.keep = lambda guild_id: None  # type: ignore[method-assign]
        fake.set_overwrite(table1, world.alice, allow=P.VIEW_CHANNEL)
        bob_prompt = next(m for m in reversed(bot_posts(world, table1)) if m.components)
        clicked = await fake.click_button(world.alice, bob_prompt,
                                          bob_prompt.iter_components()[0]["custom_id"])
        assert clicked.answer.ephemeral and "for bob" in clicked.answer.content
        # Malformed, then wrong time (after her pick), then spectators are ignored.
        typed = await fake.send_user_message(world.alice, table0, "banana")
        reply = await fake.wait_for_message(table0, from_bot=True, after=typed)
        assert "keep" in reply.content
        await fake.send_user_message(world.alice, table0, match.prompts[0].choices[0])
        await fake.wait_for(lambda: match.seq == 1)
        typed = await fake.send_user_message(world.alice, table0, "keep 1")
        reply = await fake.wait_for_message(table0, lambda m: m.message_reference is not None,
                                            after=typed)
        assert "not your decision now" in reply.content and "bob" in reply.content
        await up.idle(fake)  # (her pick's announcement may wait to be folded)
        posts_before = len(bot_posts(world, room))
        await fake.send_user_message(world.eve, room, "gl hf")
        await up.idle(fake)
        assert len(bot_posts(world, room)) == posts_before
        assert match.seq == 1


async def test_button_click_works_and_a_stale_click_is_refused(world: World) -> None:
    fake = world.fake
    async with umpire(world) as up:
        match = await start_rps(world, up)
        table0 = channel_of(world, match, "seat0")
        prompt = next(p for p in match.prompts if p.seat == 0)
        message = next(m for m in reversed(bot_posts(world, table0)) if m.components)
        button = message.iter_components()[1]
        clicked = await fake.click_button(world.alice, message, button["custom_id"])
        # answered with the table's next post (bot/discord/answer.py): no separate post
        assert clicked.response.type == 4 and not clicked.response.data.get("flags")
        await fake.wait_for(lambda: match.seq == 1)
        await up.idle(fake)
        kept = prompt.choices[1].split(" ", 1)[1]
        assert f"You keep {kept}" in bot_posts(world, table0)[-1].content
        assert bot_posts(world, table0)[-1].id == clicked.response.message.id
        stale = await fake.click_button(world.alice, message, message.iter_components()[0]["custom_id"])
        assert stale.answer.ephemeral and "no longer open" in stale.answer.content
        assert match.seq == 1


async def test_select_menu_for_many_choices_and_clicks_survive_a_restart(world: World) -> None:
    """The toy game offers nine numbers: a select menu. A new client handles an old menu."""
    fake = world.fake
    async with umpire(world) as up:
        inter = await fake.slash_command(world.host, world.general, "match start", game="duel",
                                         player1=world.alice, player2=world.bob)
        await fake.wait_for(lambda: up.service.matches and inter.original is not None
                            and "started" in (inter.original.content or ""))
        match = next(iter(drive(up.service).matches()))
        await up.idle(fake)
    async with umpire(world) as up:
        match = up.service.matches[match.id]
        table0 = channel_of(world, match, "seat0")
        message = next(m for m in reversed(bot_posts(world, table0)) if m.components)
        [menu] = message.iter_components()
        assert menu["type"] == 3 and len(menu["options"]) == 9
        picked = await fake.select(world.alice, message, menu["custom_id"], ["4"])
        assert picked.response.type == 4 and "You picked n5" in picked.response.data["content"]
        await fake.wait_for(lambda: match.seq == 1)
        assert (await drive(up.service).actions(match.id))[0].command["number"] == 5


async def test_mine_tells_a_player_their_own_view_privately(world) -> None:
    """Seeds: a player may ask for what only they know (their cards) at any time, in private."""
    from tests.discord.conftest import channel_of, start_rps, umpire

    fake = world.fake
    async with umpire(world) as up:
        match = await start_rps(world, up)
        room = channel_of(world, match, "public")
        offer = match.game.view(match.state, 0).offer
        asked = await fake.slash_command(world.alice, room, "mine")
        assert asked.answer.ephemeral
        from games.rps_poker.cards import render  # /mine reads as sentences, cards as shown

        assert all(render(card) in asked.answer.content for card in offer)
        bob_offer = match.game.view(match.state, 1).offer
        assert not any(render(card) in asked.answer.content for card in bob_offer)
        before = len(fake.messages(room))
        typed = await fake.send_user_message(world.alice, room, "!mine")
        answer = await fake.wait_for_message(room, from_bot=True, after=typed)
        assert "/mine" in answer.content and not any(render(c) in answer.content for c in offer)
        assert len([m for m in fake.messages(room)[before:] if m.author.id == fake.bot_user.id]) == 1
        table = channel_of(world, match, "seat0")
        typed = await fake.send_user_message(world.alice, table, "!mine")
        answer = await fake.wait_for_message(table, from_bot=True, after=typed)
        assert all(render(card) in answer.content for card in offer)
        stranger = await fake.slash_command(world.eve, room, "mine")
        assert stranger.answer.ephemeral and "not playing" in stranger.answer.content
