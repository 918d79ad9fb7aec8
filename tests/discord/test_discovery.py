"""Help and discovery: /help lists every command and game; autocomplete for this server's
match ids (from the database, after a restart too) and for bots; /match and /umpire hidden
from members without Manage Server; slash commands synced globally once per version and per
development server on every start."""

from __future__ import annotations

import pytest

from games.registry import installed_games
from testbed.fake_discord import permissions as P
from tests.discord.conftest import World, start_rps, umpire


def command_puts(world: World, guild_id: int | None = None) -> int:
    app = world.fake.application_id
    path = f"/applications/{app}/commands" if guild_id is None else \
        f"/applications/{app}/guilds/{guild_id}/commands"
    return sum(1 for e in world.fake.request_log if e.method == "PUT" and e.path == path)


async def test_help_lists_every_command_and_game(world: World) -> None:
    fake = world.fake
    async with umpire(world):
        inter = await fake.slash_command(world.eve, world.general, "help")
        text = inter.answer.content
        assert inter.answer.ephemeral
        synced = fake.commands[None]
        names = []
        for command in synced:
            subs = [o["name"] for o in command.data.get("options", []) if o.get("type") == 1]
            names += [f"/{command.name} {s}" for s in subs] or [f"/{command.name}"]
        assert len(names) >= 14
        for name in names:
            assert f"`{name}`" in text, name
        for slug in installed_games():
            assert f"`{slug}`" in text, slug


async def test_match_ids_autocomplete_with_this_servers_matches_only_after_a_restart_too(
        world: World) -> None:
    fake = world.fake
    other = fake.add_guild("Other Club")
    hosts = fake.add_role(other, "Umpire Host")
    fake.allow_command(other, "match", hosts)
    oscar = fake.add_member(other, "oscar", roles=[hosts])
    ann, ben = fake.add_member(other, "ann"), fake.add_member(other, "ben")
    general2 = fake.get_channel(other, "general")
    async with umpire(world) as up:
        first = await start_rps(world, up)
        theirs = await fake.slash_command(oscar, general2, "match start", game="rps-poker",
                                          player1=ann, player2=ben)
        assert "started" in theirs.answer.content
        await fake.slash_command(world.host, world.general, "match abort", match=first.id)
        second = await start_rps(world, up)
        choices = await fake.autocomplete(world.host, world.general, "match status", "match")
        assert [c["value"] for c in choices] == [second.id, first.id]
        assert choices[0]["name"].startswith(f"#{second.id} rps-poker: alice vs bob")
        typed = await fake.autocomplete(world.host, world.general, "match export", "match",
                                        str(first.id))
        assert [c["value"] for c in typed] == [first.id]
        bots = await fake.autocomplete(world.host, world.general, "match start", "bot", "",
                                       game="decoder", player1=world.alice)
        from games.registry import get_game
        assert {c["value"] for c in bots} == set(get_game("decoder").bots())
        await up.idle(fake)
    async with umpire(world) as up:  # a restart: ended matches are not in memory
        assert first.id not in up.service.matches
        choices = await fake.autocomplete(world.host, world.general, "match export", "match")
        assert [c["value"] for c in choices] == [second.id, first.id]
        theirs_ids = await fake.autocomplete(oscar, general2, "match status", "match")
        assert first.id not in {c["value"] for c in theirs_ids} and len(theirs_ids) == 1


async def test_host_and_settings_commands_hidden_by_default_permissions(world: World) -> None:
    fake = world.fake
    async with umpire(world):
        synced = {c.name: c.data for c in fake.commands[None]}
        assert int(synced["match"]["default_member_permissions"]) == P.MANAGE_GUILD
        assert int(synced["umpire"]["default_member_permissions"]) == P.MANAGE_GUILD
        assert synced["help"].get("default_member_permissions") is None
        for name in ("match", "umpire", "challenge", "history", "leaderboard", "board"):
            assert synced[name].get("contexts") == [0] or synced[name].get("dm_permission") \
                is False, name
        # What Discord makes of the payload: hidden from a plain member, shown to Manage
        # Server and to the host role an admin allowed.
        with pytest.raises(PermissionError, match="hidden"):
            await fake.slash_command(world.eve, world.general, "match list")
        listed = await fake.slash_command(world.host, world.general, "match list")
        assert listed.answer is not None and listed.answer.ephemeral
        owner = fake.users[world.guild.owner_id]
        assert (await fake.slash_command(owner, world.general, "match list")).answer


async def test_commands_synced_globally_once_per_version_and_per_dev_server(
        world: World) -> None:
    async with umpire(world):
        pass
    assert command_puts(world) == 1
    async with umpire(world, dev_guilds=[world.guild.id]):
        pass
    assert command_puts(world) == 1  # same version, same commands: no global sync again
    assert command_puts(world, world.guild.id) == 1
    async with umpire(world, dev_guilds=[world.guild.id]):
        pass
    assert command_puts(world, world.guild.id) == 2  # development servers: every start
    assert command_puts(world) == 1
