"""Per-server settings on the fake Discord: two servers with different host roles and
settings, /umpire settings for Manage Server only with clear validation errors, settings kept
across a restart."""

from __future__ import annotations

import pytest

from bot.discord.errors import NO_SUCH_MATCH
from bot.discord.friendly import NO_FRIENDLIES
from games.rps_poker.settings import RpsSettings
from testbed.fake_discord import permissions as P
from tests.discord.conftest import World, umpire
from tests.support.driver import drive


async def test_two_servers_with_different_host_roles_and_settings(world: World) -> None:
    fake = world.fake
    chess = fake.add_guild("Chess Club", bot_permissions=P.THREADS_BOT)  # threads set below
    general2 = fake.get_channel(chess, "general")
    referees = fake.add_role(chess, "Referees")
    by_name = fake.add_role(chess, "Umpire Host")  # the default *name*, not this server's role
    fake.allow_command(chess, "match", referees)
    fake.allow_command(chess, "match", by_name)
    mods = fake.add_role(chess, "Mods", permissions=P.MANAGE_GUILD)
    manager = fake.add_member(chess, "maud", roles=[mods])
    rita = fake.add_member(chess, "rita", roles=[referees])
    umberto = fake.add_member(chess, "umberto", roles=[by_name])
    carla, dan = fake.add_member(chess, "carla"), fake.add_member(chess, "dan")
    async with umpire(world) as up:
        # Only Manage Server sees /umpire; a host of the other server does not.
        with pytest.raises(PermissionError, match="hidden"):
            await fake.slash_command(rita, general2, "umpire settings")
        shown = await fake.slash_command(manager, general2, "umpire settings")
        assert shown.response.ephemeral
        assert (f"host role: <@&{by_name.id}> (the role named “Umpire Host”) *(default)*"
                in shown.response.content)
        saved = await fake.slash_command(manager, general2, "umpire settings",
                                         host_role=referees, friendly_matches=True,
                                         channel_mode="threads", archive_delay=30,
                                         game="rps-poker", game_settings="decision_seconds=45")
        text = saved.response.content
        assert text.startswith("Saved.") and saved.response.ephemeral
        assert f"<@&{referees.id}>" in text and "friendly matches (players start without a " \
            "host): allowed" in text and "channel mode: threads" in text
        assert "archive delay: 30 min" in text and "rps-poker: decision_seconds=45" in text

        # On Chess Club the host role is Referees (by id): rita hosts, umberto no longer does.
        refused = await fake.slash_command(umberto, general2, "match start", game="rps-poker",
                                           player1=carla, player2=dan)
        assert "Only hosts can run matches" in refused.response.content
        assert "Referees" in refused.response.content and not up.service.matches
        started = await fake.slash_command(rita, general2, "match start", game="rps-poker",
                                           player1=carla, player2=dan)
        assert "started" in started.response.content
        [match] = drive(up.service).matches()
        assert match.settings.decision_seconds == 45  # the server's default timer
        assert match.transport["guild"] == chess.id

        # Card Club set nothing: the default role name still works there, defaults apply.
        mine = await fake.slash_command(world.host, world.general, "match start",
                                        game="rps-poker", player1=world.alice, player2=world.bob,
                                        settings="reminders=[]")
        assert "started" in mine.response.content
        card_match = max(drive(up.service).matches(), key=lambda m: m.id)
        assert card_match.transport["guild"] == world.guild.id
        assert card_match.settings.decision_seconds == RpsSettings().decision_seconds != 45
        await up.idle(fake)

    # After a restart Chess Club's settings are still there (the database).
    async with umpire(world) as up:
        shown = await fake.slash_command(manager, general2, "umpire settings")
        assert f"<@&{referees.id}>" in shown.response.content
        assert "channel mode: threads" in shown.response.content
        ours = await fake.slash_command(fake.users[world.guild.owner_id], world.general,
                                        "umpire settings")
        assert "channel mode: threads *(default)*" in ours.response.content
        assert "friendly matches (players start without a host): not allowed *(default)*" in \
            ours.response.content


async def test_settings_are_validated_and_nothing_is_changed_on_a_mistake(world: World) -> None:
    fake = world.fake
    owner = fake.users[world.guild.owner_id]
    public = world.general  # everyone reads it: not a host log
    async with umpire(world) as up:
        everyone = world.guild.everyone
        bad = await fake.slash_command(owner, world.general, "umpire settings",
                                       host_role=everyone, log_channel=public,
                                       game_settings="decision_seconds=45")
        text = bad.response.content
        assert text.startswith("Nothing was changed:")
        assert "host_role cannot be @everyone" in text
        assert "Everyone can read the host log" in text
        assert "game_settings needs `game`" in text
        wrong = await fake.slash_command(owner, world.general, "umpire settings",
                                         game="rps-poker", game_settings="decision_seconds=-3")
        assert "Nothing was changed" in wrong.response.content
        assert "decision_seconds" in wrong.response.content
        stored = await up.bot.guild_store.get(world.guild.id)
        assert stored.host_role_id is None and stored.game_settings == {}
        # A private channel is accepted as the host log and used by the next match.
        log = fake.add_text_channel(world.guild, "secrets")
        fake.set_overwrite(log, everyone, deny=P.VIEW_CHANNEL)
        fake.set_overwrite(log, world.host_role, allow=P.VIEW_CHANNEL)
        fake.set_overwrite(log, fake.bot_user, allow=P.VIEW_CHANNEL | P.SEND_MESSAGES)
        ok = await fake.slash_command(owner, world.general, "umpire settings", log_channel=log)
        assert ok.response.content.startswith("Saved.") and f"<#{log.id}>" in ok.response.content
        started = await fake.slash_command(world.host, world.general, "match start",
                                           game="rps-poker", player1=world.alice,
                                           player2=world.bob)
        assert "started" in started.response.content
        [match] = drive(up.service).matches()
        assert match.transport["log"] == log.id
        reset = await fake.slash_command(owner, world.general, "umpire settings",
                                         reset="log_channel")
        assert "host log: #umpire-log *(default)*" in reset.response.content
        await up.idle(fake)


async def test_a_host_of_one_server_is_not_a_host_in_another_and_defaults_differ(
        world: World) -> None:
    """hannah hosts Card Club (its role by name); rita hosts Chess Club (Referees, by id).
    Each is a plain member of the other server: refused there by the bot itself (the
    command is shown to them in both, so Discord's hiding is not what stops them).
    Chess Club allows friendly matches, Card Club keeps the default (off)."""
    fake = world.fake
    chess = fake.add_guild("Chess Club")
    general2 = fake.get_channel(chess, "general")
    referees = fake.add_role(chess, "Referees")
    owner = fake.users[chess.owner_id]
    rita = fake.add_member(chess, "rita", roles=[referees])
    carla, dan = fake.add_member(chess, "carla"), fake.add_member(chess, "dan")
    fake.add_member(chess, world.host)  # hannah, without any role there
    fake.add_member(world.guild, rita)  # rita, a plain member of Card Club
    fake.allow_command(chess, "match", world.host)  # an admin shows them /match anyway
    fake.allow_command(world.guild, "match", rita)
    fake.allow_command(chess, "match", referees)
    async with umpire(world) as up:
        saved = await fake.slash_command(owner, general2, "umpire settings",
                                         host_role=referees, friendly_matches=True)
        assert saved.response.content.startswith("Saved.")
        there = await fake.slash_command(world.host, general2, "match start", game="rps-poker",
                                         player1=carla, player2=dan)
        assert "Only hosts can run matches" in there.response.content
        assert "Referees" in there.response.content and there.response.ephemeral
        here = await fake.slash_command(rita, world.general, "match start", game="rps-poker",
                                        player1=world.alice, player2=world.bob)
        assert "Only hosts can run matches" in here.response.content
        assert not up.service.matches
        # Each in their own server: accepted.
        ok = await fake.slash_command(rita, general2, "match start", game="rps-poker",
                                      player1=carla, player2=dan)
        assert "started" in ok.response.content
        [chess_match] = drive(up.service).matches()
        # A hosted match of one server is out of reach of the other's host.
        status = await fake.slash_command(world.host, world.general, "match status",
                                          match=chess_match.id)
        assert status.response.content == NO_SUCH_MATCH
        # Friendly matches: on in Chess Club only.
        refused = await fake.slash_command(world.alice, world.general, "challenge",
                                           member=world.bob, game="rps-poker")
        assert refused.answer.content == NO_FRIENDLIES
        offered = await fake.slash_command(carla, general2, "challenge", member=dan,
                                           game="rps-poker")
        assert offered.answer.content != NO_FRIENDLIES
        assert any("challenges" in m.content for m in fake.messages(general2))
        await up.idle(fake)
