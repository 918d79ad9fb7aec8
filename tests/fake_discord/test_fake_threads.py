"""Private threads on the fake Discord, as the real discord.py client sees them: creation
and its permissions, who may read a private thread, adding members to a thread nobody else
may invite to, archive/lock/delete, THREAD_* events, and the channel limits (threads do not
count towards the 500 channels; a category holds 50)."""

from __future__ import annotations

import discord
import pytest

from testbed.fake_discord import permissions as P
from testbed.fake_discord.harness import running_client
from testbed.fake_discord.rest_channels import MAX_GUILD_CHANNELS
from testbed.fake_discord.server import FakeDiscord
from tests.support.fake_world import World, make_bot, world  # noqa: F401


async def _room(bot: discord.Client, fake: FakeDiscord, world: World) -> discord.TextChannel:  # noqa: F811
    await fake.sync()
    guild = bot.get_guild(world.guild.id)
    assert guild is not None
    channel = guild.get_channel(world.general.id)
    assert isinstance(channel, discord.TextChannel)
    return channel


async def test_a_private_thread_is_read_only_by_its_members_and_thread_moderators(
        fake_discord: FakeDiscord, world: World) -> None:  # noqa: F811
    fake = fake_discord
    fake.set_role_permissions(fake.bot_role(world.guild), P.THREADS_BOT)
    mods = fake.add_role(world.guild, "Mods", permissions=P.MANAGE_THREADS)
    mona = fake.add_member(world.guild, "mona", roles=[mods])
    async with running_client(make_bot(), fake) as bot:
        room = await _room(bot, fake, world)
        thread = await room.create_thread(name="table-alice", invitable=False,
                                          type=discord.ChannelType.private_thread,
                                          auto_archive_duration=10080)
        await thread.add_user(discord.Object(world.alice.id))
        await fake.sync()
        stored = fake.channels[thread.id]
        assert stored.type == 12 and stored.parent_id == room.id and not stored.invitable
        assert stored.id not in world.guild.channel_ids and stored.id in world.guild.thread_ids
        assert bot.get_guild(world.guild.id).get_thread(thread.id) is not None  # THREAD_CREATE
        assert fake.can_view(world.alice, stored) and not fake.can_view(world.bob, stored)
        assert fake.can_view(mona, stored)  # Manage Threads reads every private thread
        fake.set_overwrite(world.general, world.guild.everyone, deny=P.MANAGE_THREADS)
        assert not fake.can_view(mona, stored)  # unless the parent denies it
        fake.set_overwrite(world.general, fake.bot_user, allow=P.MANAGE_THREADS)  # but to us
        with pytest.raises(PermissionError):
            await fake.send_user_message(world.bob, stored, "peek")
        sent = await fake.send_user_message(world.alice, stored, "rock")
        assert sent.channel_id == thread.id
        posted = await thread.send("noted")
        assert fake.get_message(posted.id).channel_id == thread.id

        # Locked: the player may no longer write; archived: it leaves discord.py's cache.
        await thread.edit(archived=True, locked=True)
        await fake.sync()
        assert stored.archived and stored.locked
        assert bot.get_guild(world.guild.id).get_thread(thread.id) is None
        with pytest.raises(PermissionError):
            await fake.send_user_message(world.alice, stored, "paper")
        with pytest.raises(discord.HTTPException) as archived:
            await thread.send("after the end")
        assert archived.value.code == 50083
        await bot.http.delete_channel(thread.id)
        assert stored.deleted and stored.id not in world.guild.thread_ids


async def test_thread_permissions_are_enforced(fake_discord: FakeDiscord, world: World) -> None:  # noqa: F811
    fake = fake_discord
    async with running_client(make_bot(), fake) as bot:
        room = await _room(bot, fake, world)
        with pytest.raises(discord.Forbidden):  # the default bot may not make private threads
            await room.create_thread(name="t", type=discord.ChannelType.private_thread)
        fake.set_role_permissions(fake.bot_role(world.guild),
                                  P.DEFAULT_BOT | P.CREATE_PRIVATE_THREADS)
        await fake.sync()
        thread = await room.create_thread(name="t", type=discord.ChannelType.private_thread,
                                          invitable=False)
        with pytest.raises(discord.Forbidden):  # not invitable: adding takes Manage Threads
            await thread.add_user(discord.Object(world.alice.id))
        with pytest.raises(discord.Forbidden):  # locking too
            await thread.edit(locked=True)
        with pytest.raises(discord.HTTPException) as bad:
            await bot.http.start_thread_without_message(room.id, name="x", type=12,
                                                        auto_archive_duration=99)  # type: ignore[arg-type]
        assert bad.value.status == 400
        [wrong] = fake.take_spec_violations()  # a value the spec does not allow, on purpose
        assert wrong.part == "request" and "auto_archive_duration" in wrong.message
        await thread.edit(archived=True)  # its owner may archive it
        assert fake.channels[thread.id].archived


async def test_thread_delete_events_and_a_deleted_parent_takes_its_threads(
        fake_discord: FakeDiscord, world: World) -> None:  # noqa: F811
    fake = fake_discord
    fake.set_role_permissions(fake.bot_role(world.guild), P.THREADS_BOT)
    deleted: list[int] = []
    bot = make_bot()

    @bot.event
    async def on_raw_thread_delete(payload: discord.RawThreadDeleteEvent) -> None:
        deleted.append(payload.thread_id)

    async with running_client(bot, fake):
        room = await _room(bot, fake, world)
        one = await room.create_thread(name="one", type=discord.ChannelType.private_thread)
        two = await room.create_thread(name="two", type=discord.ChannelType.private_thread)
        fake.delete_channel(fake.channels[one.id])  # a moderator deletes it: THREAD_DELETE
        await fake.wait_for(lambda: one.id in deleted)
        fake.delete_channel(world.general)  # the parent: its threads go (discord.py says so)
        await fake.wait_for(lambda: two.id in deleted)
        assert fake.channels[two.id].deleted


async def test_threads_do_not_count_towards_the_channel_limit_and_a_category_holds_50(
        fake_discord: FakeDiscord, world: World) -> None:  # noqa: F811
    fake = fake_discord
    fake.set_role_permissions(fake.bot_role(world.guild), P.THREADS_BOT)
    category = fake.add_category(world.guild, "full")
    for i in range(50):
        fake.add_text_channel(world.guild, f"c{i}", category=category)
    while len(world.guild.channel_ids) < MAX_GUILD_CHANNELS:
        fake.add_text_channel(world.guild, f"x{len(world.guild.channel_ids)}")
    async with running_client(make_bot(), fake) as bot:
        room = await _room(bot, fake, world)
        guild = room.guild
        with pytest.raises(discord.HTTPException) as full:
            await guild.create_text_channel("one-too-many")
        assert full.value.code == 30013
        thread = await room.create_thread(name="still fine",
                                          type=discord.ChannelType.private_thread)
        assert thread.id in world.guild.thread_ids
        fake.delete_channel(fake.channels[world.guild.channel_ids[-1]])
        await fake.sync()
        with pytest.raises(discord.HTTPException) as crowded:
            await guild.create_text_channel("c50", category=guild.get_channel(category.id))
        assert crowded.value.code == 50035 and "50" in crowded.value.text
