"""`/match start` checks the bot's permissions before creating anything and is all or
nothing: a failure half-way leaves no channel behind."""

from __future__ import annotations

from testbed.fake_discord import permissions as P
from tests.discord.conftest import World, channel_ids, umpire


async def test_a_missing_manage_channels_permission_is_named_and_nothing_is_created(
        world: World) -> None:
    fake = world.fake
    bot_role = fake.bot_role(world.guild)
    fake.set_role_permissions(bot_role, P.DEFAULT_BOT & ~P.MANAGE_CHANNELS)
    before = channel_ids(world)
    async with umpire(world) as up:
        inter = await fake.slash_command(world.host, world.general, "match start",
                                         game="rps-poker", player1=world.alice, player2=world.bob)
        text = inter.response.content
        assert inter.response.ephemeral
        assert "missing permissions" in text and "in this server: Manage Channels" in text
        assert "Manage Roles" not in text  # only what is missing
        assert "Nothing was created" in text
        assert up.service.matches == {} and channel_ids(world) == before
        # With the permission back, the same command works.
        fake.set_role_permissions(bot_role, P.DEFAULT_BOT)
        again = await fake.slash_command(world.host, world.general, "match start",
                                         game="rps-poker", player1=world.alice,
                                         player2=world.bob)
        assert "started" in again.response.content
        await up.idle(fake)


async def test_a_failure_half_way_leaves_nothing_behind(world: World) -> None:
    fake = world.fake
    before = channel_ids(world)
    # The host log, the category and the room are made; the first table fails.
    fake.fail_next("POST", f"/guilds/{world.guild.id}/channels", status=400, skip=3)
    async with umpire(world) as up:
        inter = await fake.slash_command(world.host, world.general, "match start",
                                         game="rps-poker", player1=world.alice, player2=world.bob)
        text = inter.response.content
        assert inter.response.ephemeral
        assert "everything I had made for it was removed" in text
        assert up.service.matches == {}
        await fake.settle()
        assert channel_ids(world) == before  # the new host log is gone too
        posts = [e for e in fake.request_log if e.method == "POST"
                 and e.path == f"/guilds/{world.guild.id}/channels"]
        assert len(posts) == 4  # the failure really came half-way


async def test_a_missing_permission_in_a_named_room_is_named(world: World) -> None:
    fake = world.fake
    room = fake.add_text_channel(world.guild, "arena")
    fake.set_overwrite(room, fake.bot_role(world.guild), deny=P.EMBED_LINKS)
    async with umpire(world) as up:
        inter = await fake.slash_command(world.host, world.general, "match start",
                                         game="rps-poker", player1=world.alice, player2=world.bob,
                                         room=room)
        assert f"in <#{room.id}>: Embed Links" in inter.response.content
        assert up.service.matches == {}


async def test_a_challenge_accepted_without_manage_channels_names_it_and_creates_nothing(
        world: World) -> None:
    """The friendly path (Accept) checks first too: the note goes only to who clicked."""
    fake = world.fake
    bot_role = fake.bot_role(world.guild)
    fake.set_role_permissions(bot_role, P.DEFAULT_BOT & ~P.MANAGE_CHANNELS)
    before = channel_ids(world)
    async with umpire(world, friendly_matches=True) as up:
        await fake.slash_command(world.alice, world.general, "challenge", member=world.bob,
                                 game="rps-poker")
        message = fake.messages(world.general)[-1]
        accept = next(str(c["custom_id"]) for c in message.iter_components()
                      if str(c["custom_id"]).endswith(":a"))
        click = await fake.click_button(world.bob, message, accept)
        await fake.wait_for(lambda: click.followups, 10)
        note = click.followups[0]
        assert note.ephemeral and "Manage Channels" in note.content, note.content
        assert "Manage Roles" not in note.content
        assert up.service.matches == {} and channel_ids(world) == before
