"""The channel keeper (bot/discord/keeper.py): a moderator changes a channel the bot made
for a running match, and the bot puts it back at once, holds it while it is wrong, tells
the hosts once; a secret posted just as a table is opened is reported with the match and
the table closed again. In both channel modes. (A channel a host named is held and the hosts
told, never changed: tests/discord/test_privacy.py.)"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from testbed.fake_discord import permissions as P
from testbed.fake_discord.models import Channel
from tests.discord.conftest import (
    World,
    assert_channels_match_outbox,
    bot_posts,
    channel_of,
    held_reasons,
    log_entries,
    play_round_one,
    start_rps,
    threads_allowed,
    umpire,
)
from tests.support.driver import drive


def told(world: World, match: Any, mark: str) -> list[str]:
    """The host log's entries about match `match` that begin with `mark` (🔧, ⛔, ⚠️, 🔒)."""
    log = channel_of(world, match, "umpire")
    return [e for e in log_entries(world, log) if f"{mark} Match #{match.id}:" in e]


def pairs(channel: Channel) -> set[tuple[int, int, int, int]]:
    return {(o.id, o.type, o.allow, o.deny) for o in channel.overwrites}


def as_posted(world: World, channel: Channel, change: Callable[[], None]) -> list[Any]:
    """`change` is made in the fake the instant the bot's next post to `channel` is stored
    (before Discord answers the post); returns the list that then holds that post."""
    fake = world.fake
    real = fake.create_message
    posted: list[Any] = []

    def create_message(where: Any, author: Any, *args: Any, **kwargs: Any) -> Any:
        message = real(where, author, *args, **kwargs)
        if where.id == channel.id and author.id == fake.bot_user.id and not posted:
            posted.append(message)
            change()
        return message

    fake.create_message = create_message  # type: ignore[method-assign]
    return posted


async def test_a_table_synced_with_its_category_is_put_back_at_once(world: World) -> None:
    fake = world.fake
    async with umpire(world) as up:
        match = await start_rps(world, up)
        table0 = channel_of(world, match, "seat0")
        before = pairs(table0)
        fake.sync_with_category(table0)  # a moderator's "Sync Now": @everyone reads it now
        assert fake.can_view(world.eve, table0)
        await fake.wait_for(lambda: pairs(table0) == before, 10)
        assert not fake.can_view(world.eve, table0) and not fake.can_view(world.bob, table0)
        await fake.wait_for(lambda: told(world, match, "🔧"), 10)
        [said] = told(world, match, "🔧")
        assert f"<#{table0.id}>" in said and "of alice" in said and "everyone" in said
        assert "synced with its category" in said
        await play_round_one(world, up, match)
        await up.idle(fake)
        await assert_channels_match_outbox(world, up, match)
        assert len(told(world, match, "🔧")) == 1 and not told(world, match, "⚠️")


async def test_a_table_put_back_late_is_held_meanwhile_then_released(world: World) -> None:
    fake = world.fake
    async with umpire(world) as up:
        up.bot.keeper.retry_seconds = 0.5
        match = await start_rps(world, up)
        reasons = held_reasons(up)
        table0 = channel_of(world, match, "seat0")
        before, posted = pairs(table0), len(bot_posts(world, table0))
        # Discord refuses the bot's first repair (say it had lost Manage Roles a moment).
        fake.fail_next("PATCH", f"/channels/{table0.id}", status=403)
        fake.sync_with_category(table0)
        await fake.wait_for(lambda: told(world, match, "⛔"), 10)
        [said] = told(world, match, "⛔")
        assert f"<#{table0.id}>" in said and "could not put its permissions back" in said
        await play_round_one(world, up, match)  # alice's next prompt is due there: held
        await fake.wait_for(lambda: reasons, 10)
        assert "of alice" in reasons[0] and "synced with its category" in reasons[0]
        assert len(bot_posts(world, table0)) == posted or pairs(table0) == before
        # The retry puts it back; what was held arrives, in order.
        await fake.wait_for(lambda: pairs(table0) == before, 10)
        await fake.wait_for(lambda: len(bot_posts(world, table0)) > posted, 10)
        await up.idle(fake)
        assert not fake.can_view(world.eve, table0)
        await assert_channels_match_outbox(world, up, match)
        # Told once of the refusal, not again for the repair that followed; and once
        # (by delivery) that the table's messages were held.
        assert len(told(world, match, "⛔")) == 1 and not told(world, match, "🔧")
        assert len(told(world, match, "🔒")) == 1
        assert drive(up.service).failures == []


async def test_a_role_given_view_channel_on_a_table_is_removed_again(world: World) -> None:
    fake = world.fake
    spectators = fake.add_role(world.guild, "Spectators")
    async with umpire(world) as up:
        match = await start_rps(world, up)
        table1 = channel_of(world, match, "seat1")
        before = pairs(table1)
        fake.set_overwrite(table1, spectators, allow=P.VIEW_CHANNEL | P.SEND_MESSAGES)
        # A deny someone adds opens nothing: it stays.
        fake.set_overwrite(table1, world.eve, deny=P.SEND_MESSAGES)
        # It loses View Channel (what it may send there matters no more).
        await fake.wait_for(lambda: pairs(table1) == before | {
            (spectators.id, 0, P.SEND_MESSAGES, 0), (world.eve.id, 1, 0, P.SEND_MESSAGES)}, 10)
        fake.add_member_role(world.guild, world.eve, spectators)
        assert not fake.can_view(world.eve, table1)
        await fake.wait_for(lambda: told(world, match, "🔧"), 10)
        [said] = told(world, match, "🔧")
        assert "the role “Spectators”" in said and "of bob" in said
        await play_round_one(world, up, match)
        await up.idle(fake)
        await assert_channels_match_outbox(world, up, match)


async def test_a_secret_posted_just_as_its_table_is_opened_is_reported_once(
        world: World) -> None:
    fake = world.fake
    async with umpire(world) as up:
        match = await start_rps(world, up)
        table0 = channel_of(world, match, "seat0")
        before = pairs(table0)
        # The moderator's "Sync Now" lands in the same instant as the bot's next post.
        opened = as_posted(world, table0, lambda: fake.sync_with_category(table0))
        await play_round_one(world, up, match)
        await fake.wait_for(lambda: opened, 10)
        await fake.wait_for(lambda: pairs(table0) == before, 10)
        assert not fake.can_view(world.eve, table0)
        await fake.wait_for(lambda: told(world, match, "⚠️"), 10)
        await up.idle(fake)
        [said] = told(world, match, "⚠️")
        assert f"<#{table0.id}>" in said and "of alice" in said and "everyone" in said
        assert "closed it again at once" in said
        assert not told(world, match, "🔧")  # told once, with the post
        await assert_channels_match_outbox(world, up, match)


async def test_threads_mode_the_room_and_table_threads_are_put_back(world: World) -> None:
    fake = world.fake
    threads_allowed(world)
    mods = fake.add_role(world.guild, "Mods")
    mona = fake.add_member(world.guild, "mona", roles=[mods])  # moderates, neither plays nor hosts
    async with umpire(world) as up:
        match = await start_rps(world, up)
        assert match.transport["mode"] == "threads"
        room, table0 = channel_of(world, match, "public"), channel_of(world, match, "seat0")
        before = pairs(room)
        # Manage Threads in the room reads every private thread there: taken out again.
        fake.set_overwrite(room, mods, allow=P.MANAGE_THREADS)
        await fake.wait_for(lambda: pairs(room) == before, 10)
        assert not fake.can_view(mona, table0)
        # Someone with Manage Threads adds eve to alice's table thread: taken out again.
        fake.add_thread_member(table0, world.eve)
        assert fake.can_view(world.eve, table0)
        await fake.wait_for(lambda: world.eve.id not in table0.member_ids, 10)
        assert world.alice.id in table0.member_ids
        await fake.wait_for(lambda: len(told(world, match, "🔧")) == 2, 10)
        room_said, thread_said = told(world, match, "🔧")
        assert "“Mods”" in room_said or "mona" in room_said, room_said
        assert "eve (not a host" in thread_said and "of alice" in thread_said, thread_said
        await play_round_one(world, up, match)
        await up.idle(fake)
        await assert_channels_match_outbox(world, up, match)


async def test_threads_mode_a_secret_posted_as_someone_joins_the_table_is_reported(
        world: World) -> None:
    fake = world.fake
    threads_allowed(world)
    async with umpire(world) as up:
        match = await start_rps(world, up)
        table0 = channel_of(world, match, "seat0")
        # Someone with Manage Threads adds eve to alice's table as the bot posts there.
        opened = as_posted(world, table0, lambda: fake.add_thread_member(table0, world.eve))
        await play_round_one(world, up, match)
        await fake.wait_for(lambda: opened, 10)
        await fake.wait_for(lambda: world.eve.id not in table0.member_ids, 10)
        await fake.wait_for(lambda: told(world, match, "⚠️"), 10)
        await up.idle(fake)
        [said] = told(world, match, "⚠️")
        assert f"<#{table0.id}>" in said and "eve" in said
        assert not told(world, match, "🔧")
        await assert_channels_match_outbox(world, up, match)



async def test_the_host_log_and_a_table_it_made_are_kept_after_a_restart(world: World) -> None:
    fake = world.fake
    spectators = fake.add_role(world.guild, "Spectators")
    async with umpire(world) as up:
        match = await start_rps(world, up)  # the first start makes the host log too
        match_id = match.id
    log, table0 = channel_of(world, match, "umpire"), channel_of(world, match, "seat0")
    log_before, table_before = pairs(log), pairs(table0)
    async with umpire(world) as up:  # what it made is read back from the database
        match = up.service.matches[match_id]
        await fake.sync()
        fake.set_overwrite(log, world.guild.roles[world.guild.id], allow=P.VIEW_CHANNEL)
        fake.set_overwrite(log, spectators, allow=P.VIEW_CHANNEL)
        fake.sync_with_category(table0)
        await fake.wait_for(lambda: pairs(log) == log_before, 10)
        await fake.wait_for(lambda: pairs(table0) == table_before, 10)
        assert not fake.can_view(world.eve, log) and not fake.can_view(world.eve, table0)
        # The hosts are told, in the log once it is private again.
        await fake.wait_for(lambda: len(told(world, match, "🔧")) == 2, 10)
        said = " ".join(told(world, match, "🔧"))
        assert f"<#{log.id}>" in said and f"<#{table0.id}>" in said
        await play_round_one(world, up, match)
        await up.idle(fake)
        await assert_channels_match_outbox(world, up, match)


async def test_a_new_host_role_takes_the_old_ones_place_on_the_tables_and_log_it_made(
        world: World) -> None:
    fake = world.fake
    managers = fake.add_role(world.guild, "Managers", permissions=P.MANAGE_GUILD)
    mia = fake.add_member(world.guild, "mia", roles=[managers])
    referees = fake.add_role(world.guild, "Referees")
    rita = fake.add_member(world.guild, "rita", roles=[referees])
    async with umpire(world) as up:
        match = await start_rps(world, up)
        log, table0 = channel_of(world, match, "umpire"), channel_of(world, match, "seat0")
        assert fake.can_view(world.host, table0) and not fake.can_view(rita, table0)
        saved = await fake.slash_command(mia, world.general, "umpire settings",
                                         host_role=referees)
        assert saved.response.content.startswith("Saved.")
        # The old host role is no host now: it would read a secret. The new one takes its
        # place on every channel the bot made.
        for channel in (table0, log):
            await fake.wait_for(lambda c=channel: fake.can_view(rita, c) and
                                not fake.can_view(world.host, c), 10)
        await play_round_one(world, up, match)
        await up.idle(fake)
        await assert_channels_match_outbox(world, up, match)
