"""Trust on Discord (issue 10): hosts control only their own server's matches, refusals never
reach the room, a host who plays sees nothing of the opponent's, nobody is mass-pinged, and
channels a host names must be distinct and private."""

from __future__ import annotations

from typing import Any

import pytest

from bot.discord.errors import NO_SUCH_MATCH
from bot.umpire import PRIVATE_IN_ROOM
from games.decoder.letters import ALPHABET
from testbed.fake_discord import permissions as P
from testbed.fake_discord.models import Interaction
from testbed.fake_discord.server import FakeDiscord
from tests.discord.conftest import (
    HOST_ROLE,
    World,
    bot_posts,
    channel_of,
    next_decision,
    start_rps,
    start_vs_bot,
    umpire,
)
from tests.support.driver import drive


async def answer(fake: FakeDiscord, inter: Interaction) -> str:
    """The bot's answer to a command: its response, or the follow-up of a deferred one."""
    await fake.wait_for(lambda: inter.response is not None and (
        inter.response.content is not None or (inter.original is not None and
                                               inter.original.content)), 10)
    assert inter.response is not None
    if inter.response.content is not None:
        return inter.response.content
    assert inter.original is not None
    return inter.original.content


async def test_host_commands_components_and_exports_only_reach_this_servers_matches(
        world: World) -> None:
    fake = world.fake
    async with umpire(world) as up:
        match = await start_rps(world, up)
        other = fake.add_guild("Other Club")
        other_hosts = fake.add_role(other, HOST_ROLE)
        fake.allow_command(other, "match", other_hosts)
        oscar = fake.add_member(other, "oscar", roles=[other_hosts])
        general2 = fake.get_channel(other, "general")
        await fake.sync()
        unknown = await answer(fake, await fake.slash_command(
            oscar, general2, "match status", match=match.id + 1000))
        assert unknown == NO_SUCH_MATCH
        for command, options in [("match status", {}), ("match pause", {}),
                                 ("match extend", {"seconds": 600}), ("match lock", {}),
                                 ("match award", {"seat": 2}), ("match abort", {}),
                                 ("match export", {})]:
            inter = await fake.slash_command(oscar, general2, command, match=match.id, **options)
            assert await answer(fake, inter) == unknown, command
            assert inter.response is not None and inter.response.ephemeral
            assert not inter.original or not inter.original.attachments
        assert match.status == "active" and match.seq == 0
        # Without a match id, nothing of the first server is found either.
        inter = await fake.slash_command(oscar, general2, "match status")
        assert "No match is running in this server" in await answer(fake, inter)
        # A forged component (a custom id naming the match) used in the other server, or in
        # a channel of this server that is not the match's, is refused the same way.
        key = next(p.key for p in match.prompts if p.seat == 0)
        table0 = channel_of(world, match, "seat0")
        assert up.bot.routing.click_refusal(world.alice.id, match.id, key, other.id,
                                    general2.id) == NO_SUCH_MATCH
        assert up.bot.routing.click_refusal(world.alice.id, match.id, key, world.guild.id,
                                    world.general.id) == NO_SUCH_MATCH
        assert up.bot.routing.click_refusal(world.alice.id, match.id, key, world.guild.id,
                                    table0.id) is None
        # Once it has ended, its record (seed and every secret) still goes to this server only.
        await fake.slash_command(world.host, world.general, "match award", player=world.bob)
        assert match.status == "finished"
        inter = await fake.slash_command(oscar, general2, "match export", match=match.id)
        assert await answer(fake, inter) == unknown and not inter.followups
        mine = await fake.slash_command(world.host, world.general, "match export", match=match.id)
        await fake.wait_for(lambda: mine.original is not None and mine.original.attachments)


async def test_a_private_decision_typed_in_the_room_is_never_parsed_or_answered_there(
        world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    """Decoder: `give up Z` typed in the room while the decision is private gets a fixed
    sentence in the player's table (no hand listing), and nothing in the room."""
    fake = world.fake
    async with umpire(world, refusal_cooldown_seconds=0) as up:
        match = await start_vs_bot(world, up, "decoder", "deducer", seed="room-refusals")
        await up.idle(fake)
        room, table0 = channel_of(world, match, "public"), channel_of(world, match, "seat0")
        assert all(p.private for p in match.prompts if p.seat == 0)
        parsed: list[str] = []
        real_parse = match.game.parse
        monkeypatch.setattr(match.game, "parse",
                            lambda state, seat, text: parsed.append(text) or
                            real_parse(state, seat, text))
        room_posts, last0 = len(bot_posts(world, room)), fake.messages(table0)[-1]
        typed = await fake.send_user_message(world.alice, room, "give up Z")
        note = await fake.wait_for_message(table0, from_bot=True, after=last0)
        await up.idle(fake)
        assert parsed == [] and typed.deleted
        assert note.content.endswith(PRIVATE_IN_ROOM)
        hand = match.state.seats[0].hand
        assert "letters" not in note.content and not any(f" {ch} " in note.content
                                                         for ch in hand)
        assert len(bot_posts(world, room)) == room_posts
        monkeypatch.undo()

        # A public decision typed wrongly in the room: the refusal (which may describe the
        # player's own hand) goes to their table only.
        await fake.slash_command(world.host, world.general, "match lock", match=match.id)
        while (prompt := await next_decision(world, up, match, 0)) is not None and prompt.private:
            await fake.slash_command(world.host, world.general, "match lock", match=match.id)
        assert prompt is not None and not prompt.private
        room_posts, last0 = len(bot_posts(world, room)), fake.messages(table0)[-1]
        wrong = next(ch for ch in ALPHABET if ch not in match.state.seats[0].hand)
        await fake.send_user_message(world.alice, room, f"give up {wrong}")
        note = await fake.wait_for_message(table0, from_bot=True, after=last0)
        await up.idle(fake)
        assert note.content.startswith("Your message in the game room was not applied: ")
        assert len(bot_posts(world, room)) == room_posts
        assert all(m.author.id == fake.bot_user.id or m.author.id == world.alice.id
                   for m in fake.messages(room))


def _bot_sends(fake: FakeDiscord) -> list[tuple[str, dict[str, Any]]]:
    """(path, body) of every message the bot posted or edited, and every interaction answer."""
    out = []
    for request in fake.requests:
        body = request.json if isinstance(request.json, dict) else None
        if body is None or request.method not in ("POST", "PATCH"):
            continue
        if request.path.startswith("/interactions/"):
            body = body.get("data") or {}
        if "content" in body:
            out.append((request.path, body))
    return out


async def test_a_player_nicknamed_everyone_pings_nobody_and_names_are_never_templates(
        world: World) -> None:
    fake = world.fake
    mallory = fake.add_member(world.guild, "mallory", nick="@everyone {P1}")
    async with umpire(world) as up:
        await fake.sync()
        inter = await fake.slash_command(world.host, world.general, "match start",
                                         game="rps-poker", player1=mallory, player2=world.bob)
        started = await answer(fake, inter)
        shown = "\\@everyone {P1}"  # the name as typed, its mention defused (escaped)
        assert f"{shown} (advantage) vs bob" in started
        [match] = drive(up.service).matches()
        await up.idle(fake)
        table0, room = channel_of(world, match, "seat0"), channel_of(world, match, "public")
        await fake.send_user_message(mallory, table0, "@here banana")
        await fake.send_user_message(mallory, room, "@everyone look")
        status = await answer(fake, await fake.slash_command(world.host, world.general,
                                                             "match status"))
        assert f"{shown} vs bob" in status and f"Waiting for {shown}" in status
        await up.service.abort(match.id, "test over")
        await up.idle(fake)
        sends = _bot_sends(fake)
        assert len(sends) > 5
        players = {str(mallory.id), str(world.bob.id)}
        for path, body in sends:
            mentions = body.get("allowed_mentions")
            assert mentions is not None, path
            assert mentions.get("parse") == [], (path, body.get("content"))
            assert {str(u) for u in mentions.get("users") or []} <= players, path


async def test_a_host_who_plays_sees_nothing_of_the_opponents_and_cannot_referee(
        world: World) -> None:
    fake = world.fake
    harriet = fake.add_member(world.guild, "harriet", roles=[world.host_role])
    async with umpire(world) as up:
        await fake.sync()
        inter = await fake.slash_command(harriet, world.general, "match start", game="rps-poker",
                                         player1=world.host, player2=world.bob)
        assert "started" in await answer(fake, inter)
        [match] = drive(up.service).matches()
        await up.idle(fake)
        mine, theirs = channel_of(world, match, "seat0"), channel_of(world, match, "seat1")
        log = channel_of(world, match, "umpire")
        hannah = world.host
        assert fake.can_view(hannah, mine) and not fake.can_view(hannah, theirs)
        assert not fake.can_view(hannah, log)
        assert not fake.can_view(world.bob, mine) and not fake.can_view(world.eve, mine)
        assert fake.can_view(harriet, theirs) and fake.can_view(harriet, log)
        for command, options in [("match status", {}), ("match extend", {"seconds": 60}),
                                 ("match lock", {}), ("match award", {"player": hannah}),
                                 ("match export", {})]:
            inter = await fake.slash_command(hannah, world.general, command, match=match.id,
                                             **options)
            assert "You play in match" in await answer(fake, inter), command
        assert match.status == "active" and match.seq == 0
        await fake.slash_command(harriet, world.general, "match award", match=match.id,
                                 player=world.bob)
        assert match.status == "finished"
        await up.idle(fake)
        await fake.wait_for(lambda: fake.can_view(hannah, log), 5)
        assert not fake.can_view(hannah, theirs)


async def test_the_starter_without_the_host_role_gets_nothing_extra(world: World) -> None:
    fake = world.fake
    manager = fake.add_member(world.guild, "manny", roles=[
        fake.add_role(world.guild, "Mods", permissions=P.MANAGE_GUILD)])
    owner = fake.users[world.guild.owner_id]
    async with umpire(world) as up:
        await fake.sync()
        inter = await fake.slash_command(manager, world.general, "match start", game="rps-poker",
                                         player1=world.alice, player2=world.bob)
        assert "started" in await answer(fake, inter)
        [match] = drive(up.service).matches()
        await up.idle(fake)
        for audience in ("seat0", "seat1", "umpire"):
            assert not fake.can_view(manager, channel_of(world, match, audience)), audience
        # The owner sees every channel whatever the overwrites: they cannot play.
        inter = await fake.slash_command(world.host, world.general, "match start",
                                         game="rps-poker", player1=owner, player2=world.eve)
        assert "Administrator" in await answer(fake, inter)
        assert len(up.service.matches) == 1


async def test_named_channels_must_be_distinct_and_private(world: World) -> None:
    fake = world.fake
    secret = fake.add_text_channel(world.guild, "bobs-den")
    fake.set_overwrite(secret, world.guild.roles[world.guild.id], deny=P.VIEW_CHANNEL)
    fake.set_overwrite(secret, world.bob, allow=P.VIEW_CHANNEL | P.SEND_MESSAGES)
    async with umpire(world) as up:
        await fake.sync()
        general = world.general
        inter = await fake.slash_command(world.host, general, "match start", game="rps-poker",
                                         player1=world.alice, player2=world.bob,
                                         table1=general, table2=general)
        text = await answer(fake, inter)
        assert "table1 and table2 are the same channel" in text
        assert "Everyone can read" in text and "alice's private table" in text
        inter = await fake.slash_command(world.host, general, "match start", game="rps-poker",
                                         player1=world.alice, player2=world.bob,
                                         table1=secret)
        text = await answer(fake, inter)
        assert "bob can read" in text and "alice cannot write" in text
        # An existing host log that others can read is not used.
        log = fake.add_text_channel(world.guild, "umpire-log")
        await fake.sync()
        inter = await fake.slash_command(world.host, general, "match start", game="rps-poker",
                                         player1=world.alice, player2=world.bob)
        assert "Everyone can read the host log" in await answer(fake, inter)
        fake.set_overwrite(log, world.guild.roles[world.guild.id], deny=P.VIEW_CHANNEL)
        fake.set_overwrite(log, world.eve, allow=P.VIEW_CHANNEL)
        await fake.sync()
        inter = await fake.slash_command(world.host, general, "match start", game="rps-poker",
                                         player1=world.alice, player2=world.bob)
        assert "can be read by eve, who is not a host" in await answer(fake, inter)
        assert up.service.matches == {}
        assert not [m for m in bot_posts(world, general) if "Match #" in m.content]


async def test_a_host_playing_two_matches_gets_the_log_back_when_the_last_one_ends(
        world: World) -> None:
    fake = world.fake
    harriet = fake.add_member(world.guild, "harriet", roles=[world.host_role])
    hannah = world.host
    async with umpire(world) as up:
        await fake.sync()
        matches = []
        for opponent in (world.bob, world.eve):
            inter = await fake.slash_command(harriet, world.general, "match start",
                                             game="rps-poker", player1=hannah, player2=opponent)
            assert "started" in await answer(fake, inter)
            [match] = [m for m in drive(up.service).matches() if m not in matches]
            matches.append(match)
            await up.idle(fake)
        log = channel_of(world, matches[0], "umpire")
        assert not fake.can_view(hannah, log)
        await fake.slash_command(harriet, world.general, "match abort", match=matches[0].id)
        await up.idle(fake)
        assert matches[0].status == "aborted" and not fake.can_view(hannah, log)
        await fake.slash_command(harriet, world.general, "match abort", match=matches[1].id)
        await up.idle(fake)
        await fake.wait_for(lambda: fake.can_view(hannah, log), 5)
        assert fake.can_view(harriet, log) and not fake.can_view(world.bob, log)
