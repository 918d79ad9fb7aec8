"""bot/discord/visibility.py against the fake Discord's own permission algorithm: whoever
the fake lets read a channel or a private thread is exactly whom the bot's cache says can read
it (random roles, overwrites, Administrator, Manage Threads, thread members); and which
readers are not meant to read a table or the host log."""

from __future__ import annotations

import random

import discord

from bot.discord.visibility import Intended, Place, describe, unintended_readers
from testbed.fake_discord import permissions as P
from testbed.fake_discord.models import PRIVATE_THREAD, Role, User
from tests.discord.conftest import World, umpire

BITS = (P.VIEW_CHANNEL, P.MANAGE_THREADS, P.SEND_MESSAGES)


def _random_bits(rng: random.Random) -> int:
    return sum(b for b in BITS if rng.random() < 0.4)


async def test_readers_match_the_fakes_permission_algorithm(world: World) -> None:
    fake, guild = world.fake, world.guild
    rng = random.Random(26)
    roles: list[Role] = [fake.add_role(guild, f"r{i}", permissions=_random_bits(rng))
                         for i in range(5)]
    fake.set_role_permissions(roles[0], P.ADMINISTRATOR)
    users: list[User] = [fake.add_member(guild, f"m{i}", roles=rng.sample(roles[1:], rng.randint(0, 3)))
                         for i in range(20)]
    channel = fake.add_text_channel(guild, "arena")
    fake.set_role_permissions(fake.bot_role(guild), P.THREADS_BOT)
    thread = fake.create_thread(channel, "t", PRIVATE_THREAD, owner=fake.bot_user)
    everyone = guild.roles[guild.id]
    async with umpire(world) as up:
        for _ in range(25):
            target = rng.choice([everyone, *roles[1:], *users])
            fake.set_overwrite(channel, target, allow=_random_bits(rng), deny=_random_bits(rng))
            user = rng.choice(users)
            if rng.random() < 0.5:
                fake.add_thread_member(thread, user)
            else:
                fake.remove_thread_member(thread, user)
            fake.set_member_roles(guild, rng.choice(users), rng.sample(roles, rng.randint(0, 2)))
            await fake.sync()
            ours = up.bot.get_guild(guild.id)
            assert ours is not None
            for where in (channel, thread):
                found = ours.get_channel_or_thread(where.id)
                assert isinstance(found, discord.TextChannel | discord.Thread)
                members = {m.id for m in found.members} if isinstance(found, discord.Thread) \
                    else set()
                place = Place.of(found, members)
                nobody = Intended(hosts=False)
                seen = {m.id for m in unintended_readers(place, nobody).members}
                expected = {uid for uid in guild.members if uid != fake.bot_user.id
                            and fake.can_view(uid, where)}
                assert seen == expected, where.name


async def test_who_may_read_a_table_and_the_host_log(world: World) -> None:
    fake, guild = world.fake, world.guild
    mods = fake.add_role(guild, "Mods")
    admins = fake.add_role(guild, "Admins", permissions=P.ADMINISTRATOR)
    table = fake.add_text_channel(guild, "table-alice")
    fake.set_overwrite(table, guild.roles[guild.id], deny=P.VIEW_CHANNEL)
    fake.set_overwrite(table, world.host_role, allow=P.VIEW_CHANNEL)
    fake.set_overwrite(table, world.alice, allow=P.VIEW_CHANNEL)
    fake.set_overwrite(table, world.bob, deny=P.VIEW_CHANNEL)
    async with umpire(world) as up:
        await fake.sync()
        ours = up.bot.get_guild(guild.id)
        assert ours is not None
        seat0 = Intended(members=frozenset({world.alice.id}), barred=frozenset({world.bob.id}),
                         host_role_id=world.host_role.id)
        host_log = Intended(barred=frozenset({world.alice.id, world.bob.id}),
                            host_role_id=world.host_role.id)

        def readers(intended: Intended) -> tuple[set[str], set[str]]:
            found = ours.get_channel(table.id)
            assert isinstance(found, discord.TextChannel)
            out = unintended_readers(Place.of(found), intended)
            return {r.name for r in out.roles}, {m.name for m in out.members}

        # As made: alice, the hosts (hannah), the owner and admins; bob denied.
        assert readers(seat0) == (set(), set())
        assert readers(host_log) == (set(), {"alice"})  # a player never reads the log
        # bob made a host: his member deny still holds.
        fake.add_member_role(guild, world.bob, world.host_role)
        await fake.sync()
        assert readers(seat0) == (set(), set())
        # Mods may read (nobody holds it yet): the role counts on its own.
        fake.set_overwrite(table, mods, allow=P.VIEW_CHANNEL)
        await fake.sync()
        assert readers(seat0) == ({"Mods"}, set())
        fake.add_member_role(guild, world.eve, mods)
        await fake.sync()
        assert readers(seat0) == ({"Mods"}, {"eve"})
        fake.remove_overwrite(table, mods)
        # bob given Administrator: no overwrite hides anything from him.
        fake.add_member_role(guild, world.bob, admins)
        await fake.sync()
        assert readers(seat0) == (set(), {"bob"})
        found = ours.get_channel(table.id)
        assert isinstance(found, discord.TextChannel)
        said = describe(Place.of(found), unintended_readers(Place.of(found), seat0), seat0)
        assert said == "bob (a player of this match, Administrator reads every channel)"
