"""Who can read a match's channels, checked before every secret post (the world changes
mid-match): a table made public, a player made a host, the bot's access lost, a moderator
with Manage Threads in threads mode, a player who left their table thread. Nothing private is
posted while someone else could read it; once fixed, what was held arrives in order and no
clock was charged meanwhile."""

from __future__ import annotations

import asyncio
from typing import Any

from testbed.fake_discord import permissions as P
from testbed.fake_discord.models import Channel, User
from tests.discord.conftest import (
    World,
    assert_channels_match_outbox,
    bot_posts,
    channel_of,
    held_reasons,
    log_entries,
    log_text,
    play_round_one,
    restore,
    start_rps,
    threads_allowed,
    umpire,
)
from tests.support.driver import drive


async def try_start(world: World, **channels: Any) -> Any:
    """A host starts alice vs bob with these named channels; the answer, once given."""
    inter = await world.fake.slash_command(world.host, world.general, "match start",
                                           game="rps-poker", player1=world.alice,
                                           player2=world.bob, **channels)
    await world.fake.wait_for(lambda: inter.finished, 10)
    return inter


def secret_posts(world: World, channel: Channel) -> int:
    return len(bot_posts(world, channel))


def named_table(world: World, name: str, player: User) -> Channel:
    """A channel a host names as `player`'s table: private to them (and the bot), in a
    category that hides nothing (a sync with it opens the table to @everyone)."""
    fake = world.fake
    hall = fake.add_category(world.guild, f"{name}-hall")
    table = fake.add_text_channel(world.guild, name, category=hall)
    fake.set_overwrite(table, world.guild.roles[world.guild.id], deny=P.VIEW_CHANNEL)
    for who in (player, fake.bot_user):
        fake.set_overwrite(table, who, allow=P.VIEW_CHANNEL | P.SEND_MESSAGES)
    return table


async def test_a_named_table_synced_with_its_category_gets_no_secret_until_fixed(
        world: World) -> None:
    """A table the host named is never changed by the bot: held, and the hosts told,
    until someone fixes it (a table the bot made is put back: tests/discord/test_keeper.py)."""
    fake = world.fake
    named = named_table(world, "alices-corner", world.alice)
    async with umpire(world, refusal_cooldown_seconds=0) as up:
        match = await start_rps(world, up, table1=named)
        reasons = held_reasons(up)
        table0, room = channel_of(world, match, "seat0"), channel_of(world, match, "public")
        assert table0.id == named.id
        before = list(table0.overwrites)
        fake.sync_with_category(table0)  # a moderator's "Sync Now": @everyone reads it now
        await fake.sync()
        assert fake.can_view(world.eve, table0) and fake.can_view(world.bob, table0)
        posted = secret_posts(world, table0)
        await play_round_one(world, up, match)
        await fake.wait_for(lambda: reasons, 10)
        # A wrong move typed there is not answered there either (the answer may be private).
        await fake.send_user_message(world.alice, table0, "banana")
        await fake.settle()
        await fake.wait_for(lambda: any(p.seat == 1 for p in match.prompts), 10)
        assert secret_posts(world, table0) == posted
        assert f"<#{table0.id}>" in reasons[0] and "alice" in reasons[0]
        assert "everyone" in reasons[0] and "synced with its category" in reasons[0]
        assert reasons[0].endswith("Remove that access.")
        # The hosts were told at once, in the host log, what is held and why.
        log = channel_of(world, match, "umpire")
        await fake.wait_for(lambda: "are held, not posted" in log_text(world, log), 10)
        told = [e for e in log_entries(world, log) if "are held, not posted" in e]
        assert len(told) == 1 and "synced with its category" in told[0]
        await up.bot.keeper.wait_idle()
        assert up.bot.keeper.repairs == 0 and fake.can_view(world.eve, table0)  # not changed
        assert not [e for e in log_entries(world, log) if "🔧" in e or "⚠️" in e]
        # Alice's next decision was held: her clock has not run out, nothing was picked.
        [waiting] = [p for p in match.prompts if p.seat == 0]
        assert match.status == "active" and match.seq == 2
        restore(world, table0, before)  # the moderator puts the permissions back
        await fake.wait_for(lambda: secret_posts(world, table0) > posted, 10)
        await up.idle(fake)
        assert not fake.can_view(world.eve, table0)
        counts = await assert_channels_match_outbox(world, up, match)  # in order, nothing lost
        assert counts["seat0"] > 1
        ids = [str(c.get("custom_id")) for m in bot_posts(world, table0)
               for c in m.iter_components()]
        assert f"ump:b:{match.id}:0:{waiting.key}" in ids
        assert any(p.key == waiting.key for p in match.prompts)  # still Alice's to make
        assert drive(up.service).failures == []
        assert len(bot_posts(world, room)) > 0


async def test_an_overwrite_for_a_spectator_role_holds_the_named_table(world: World) -> None:
    fake = world.fake
    spectators = fake.add_role(world.guild, "Spectators")
    named = named_table(world, "bobs-den", world.bob)
    async with umpire(world) as up:
        match = await start_rps(world, up, table2=named)
        reasons = held_reasons(up)
        table1 = channel_of(world, match, "seat1")
        assert table1.id == named.id
        posted = secret_posts(world, table1)
        # Nobody holds the role yet: anyone given it could read, so the role counts.
        fake.set_overwrite(table1, spectators, allow=P.VIEW_CHANNEL)
        await fake.sync()
        await play_round_one(world, up, match)
        await fake.wait_for(lambda: reasons, 10)
        assert "the role “Spectators”" in reasons[-1] and "of bob" in reasons[-1]
        assert secret_posts(world, table1) == posted
        fake.remove_overwrite(table1, spectators)
        await fake.wait_for(lambda: secret_posts(world, table1) > posted, 10)
        await up.idle(fake)
        await assert_channels_match_outbox(world, up, match)


async def test_a_player_made_a_host_mid_match_reads_nothing_of_their_match(world: World) -> None:
    fake = world.fake
    async with umpire(world) as up:
        match = await start_rps(world, up)
        reasons = held_reasons(up)
        log, table0 = channel_of(world, match, "umpire"), channel_of(world, match, "seat0")
        fake.add_member_role(world.guild, world.bob, world.host_role)  # bob is made a host
        await fake.sync()
        assert not fake.can_view(world.bob, log) and not fake.can_view(world.bob, table0)
        assert fake.can_view(world.host, log)
        posted = secret_posts(world, log)
        await play_round_one(world, up, match)
        await up.idle(fake)
        assert secret_posts(world, log) > posted and reasons == []  # the log goes on
        # A moderator then removes bob's deny on the host log: it is put back at once.
        bob_deny = log.overwrite_for(world.bob.id)
        assert bob_deny is not None and bob_deny.deny & P.VIEW_CHANNEL
        fake.remove_overwrite(log, world.bob)
        await fake.wait_for(lambda: not fake.can_view(world.bob, log), 10)
        # (and the hosts are told, in the log)
        await fake.wait_for(lambda: any("🔧" in e and "bob (a player of this match" in e
                                        for e in log_entries(world, log)), 10)
        await up.idle(fake)  # (the post of that line checked again after it, as every one)
        # Given Administrator, no overwrite hides the log from him: the log of his match is
        # held (the check before every post), and the hosts are told why.
        admins = fake.add_role(world.guild, "Admins", permissions=P.ADMINISTRATOR)
        fake.add_member_role(world.guild, world.bob, admins)
        await fake.sync()
        assert fake.can_view(world.bob, log)
        await up.idle(fake)
        posted = secret_posts(world, log)
        before = len(reasons)
        await play_round_one(world, up, match, check=(True, True))
        # (his Administrator also holds alice's table: which of the two is told last
        # depends on when the log's batch is due)
        await fake.wait_for(lambda: any("host log" in r for r in reasons[before:]), 10)
        assert secret_posts(world, log) == posted
        [told] = [r for r in reasons[before:] if "host log" in r][-1:]
        assert "bob (a player of this match, Administrator" in told
        fake.remove_member_role(world.guild, world.bob, admins)
        await fake.wait_for(lambda: secret_posts(world, log) > posted, 10)
        await up.idle(fake)
        await assert_channels_match_outbox(world, up, match)
        # Once the match is over, bob (a host) gets the log back.
        await up.service.abort(match.id, "test over")
        await up.idle(fake)
        await fake.wait_for(lambda: fake.can_view(world.bob, log), 5)


async def test_the_bots_access_removed_and_restored_the_prompt_arrives_and_no_move_is_made(
        world: World) -> None:
    fake = world.fake
    async with umpire(world) as up:
        match = await start_rps(world, up, settings="decision_seconds=1 reminders=[]")
        reasons = held_reasons(up)
        table1 = channel_of(world, match, "seat1")
        me = fake.users[fake.bot_user.id]
        posted, before = secret_posts(world, table1), list(table1.overwrites)
        fake.set_overwrite(table1, me, deny=P.VIEW_CHANNEL)  # the bot's access is removed
        await fake.sync()
        await play_round_one(world, up, match, check=(True, True))
        await fake.wait_for(lambda: reasons, 10)
        assert "I cannot post in the table" in reasons[0] and "View Channel" in reasons[0]
        [waiting] = [p for p in match.prompts if p.seat == 1]
        await asyncio.sleep(2.5)  # longer than the decision's 1 s
        assert any(p.key == waiting.key for p in match.prompts)  # no move made for bob
        assert secret_posts(world, table1) == posted
        restore(world, table1, before)  # and given back
        await fake.wait_for(lambda: secret_posts(world, table1) > posted, 10)
        await up.idle(fake)
        ids = [str(c.get("custom_id")) for m in bot_posts(world, table1)
               for c in m.iter_components()]
        assert f"ump:b:{match.id}:1:{waiting.key}" in ids
        await up.service.abort(match.id, "test over")
        await up.idle(fake)
        await assert_channels_match_outbox(world, up, match)
        assert drive(up.service).failures == []


async def test_a_table_that_answers_403_is_held_and_sent_when_it_answers_again(
        world: World) -> None:
    fake = world.fake
    async with umpire(world) as up:
        match = await start_rps(world, up)
        reasons = held_reasons(up)
        table1 = channel_of(world, match, "seat1")
        fake.unreachable_channels.add(table1.id)  # Discord refuses, the cache says nothing
        await play_round_one(world, up, match, check=(True, False))
        await fake.wait_for(lambda: reasons, 10)
        assert "Discord refused my post in the table" in reasons[0] and "of bob" in reasons[0]
        assert match.status == "active" and drive(up.service).failures == []
        fake.unreachable_channels.clear()
        drive(up.service).wake(match.id)
        await up.idle(fake)
        await assert_channels_match_outbox(world, up, match)


async def test_threads_mode_a_moderator_who_does_not_play_holds_a_named_rooms_tables(world: World) -> None:
    fake = world.fake
    threads_allowed(world)
    mods = fake.add_role(world.guild, "Mods", permissions=P.MANAGE_THREADS)
    mona = fake.add_member(world.guild, "mona", roles=[mods])  # moderates, neither plays nor hosts
    hall = fake.add_text_channel(world.guild, "hall")
    async with umpire(world) as up:
        # At the start: a named room where she has Manage Threads is refused, saying why.
        inter = await try_start(world, room=hall)
        text = inter.answer.content
        assert "mona (not a host, Manage Threads in" in text and "“Mods”" in text, text
        assert "channel_mode:channels" in text and not up.service.matches
        # Mid-match: a room the host named (the bot's own would be put back:
        # tests/discord/test_keeper.py), then someone gives the moderators Manage Threads.
        fake.set_overwrite(hall, mods, deny=P.MANAGE_THREADS)
        match = await start_rps(world, up, room=hall)
        reasons = held_reasons(up)
        room, table0 = channel_of(world, match, "public"), channel_of(world, match, "seat0")
        assert not fake.can_view(mona, table0)
        posted = secret_posts(world, table0)
        fake.set_overwrite(room, mods, allow=P.MANAGE_THREADS)
        await fake.sync()
        assert fake.can_view(mona, table0)
        await play_round_one(world, up, match)
        await fake.wait_for(lambda: any("of alice" in r for r in reasons), 10)
        said = next(r for r in reasons if "of alice" in r)
        assert "mona (not a host, Manage Threads in" in said or "“Mods”" in said, said
        assert secret_posts(world, table0) == posted
        fake.set_overwrite(room, mods, deny=P.MANAGE_THREADS)
        await fake.wait_for(lambda: secret_posts(world, table0) > posted, 10)
        await up.idle(fake)
        await assert_channels_match_outbox(world, up, match)


async def test_a_player_who_left_their_table_thread_is_added_back(world: World) -> None:
    fake = world.fake
    threads_allowed(world)
    async with umpire(world) as up:
        match = await start_rps(world, up)
        room = channel_of(world, match, "public")
        tables = [channel_of(world, match, f"seat{s}") for s in (0, 1)]
        users: list[User] = [world.alice, world.bob]
        for user, table in zip(users, tables, strict=True):
            fake.remove_thread_member(table, user)  # each leaves their thread
            await fake.sync()
            assert not fake.can_view(user, table)
        # Alice's next message in the room (chat) puts her back in.
        await fake.send_user_message(world.alice, room, "hello all")
        await fake.wait_for(lambda: fake.can_view(world.alice, tables[0]), 10)
        assert not fake.can_view(world.bob, tables[0])
        # Bob asks /mine: he is back in too.
        await fake.slash_command(world.bob, room, "mine")
        await fake.wait_for(lambda: fake.can_view(world.bob, tables[1]), 10)
        await up.idle(fake)
        await play_round_one(world, up, match)
        await up.idle(fake)
        await assert_channels_match_outbox(world, up, match)


async def test_a_transcript_goes_only_to_a_host_log_that_hosts_alone_read(world: World) -> None:
    fake = world.fake
    async with umpire(world) as up:
        match = await start_rps(world, up)
        log = channel_of(world, match, "umpire")
        await up.service.abort(match.id, "test over")
        await up.idle(fake)
        fake.set_overwrite(log, world.eve, allow=P.VIEW_CHANNEL)  # eve is let in by mistake
        await fake.sync()
        files = sum(len(m.attachments) for m in fake.messages(log))
        inter = await fake.slash_command(world.host, world.general, "match delete",
                                         match=match.id)
        await fake.wait_for(lambda: inter.finished, 10)
        assert "can be read by eve (not a host)" in inter.answer.content
        assert "Nothing was deleted" in inter.answer.content
        assert sum(len(m.attachments) for m in fake.messages(log)) == files
        assert not channel_of(world, match, "seat0").deleted
        fake.remove_overwrite(log, world.eve)
        await fake.sync()
        again = await fake.slash_command(world.host, world.general, "match delete",
                                         match=match.id)
        await fake.wait_for(lambda: again.finished, 10)
        assert "transcript posted in the host log" in again.answer.content


async def test_a_named_table_or_host_log_a_spectators_role_could_read_is_refused_at_the_start(
        world: World) -> None:
    fake = world.fake
    spectators = fake.add_role(world.guild, "Spectators")
    den = fake.add_text_channel(world.guild, "alices-den")
    fake.set_overwrite(den, world.guild.roles[world.guild.id], deny=P.VIEW_CHANNEL)
    fake.set_overwrite(den, world.alice, allow=P.VIEW_CHANNEL | P.SEND_MESSAGES)
    fake.set_overwrite(den, spectators, allow=P.VIEW_CHANNEL)
    log = fake.add_text_channel(world.guild, "umpire-log")
    fake.set_overwrite(log, world.guild.roles[world.guild.id], deny=P.VIEW_CHANNEL)
    fake.set_overwrite(log, world.host_role, allow=P.VIEW_CHANNEL)
    for channel in (den, log):
        fake.set_overwrite(channel, fake.bot_user, allow=P.VIEW_CHANNEL | P.SEND_MESSAGES)
    async with umpire(world) as up:
        await fake.sync()
        inter = await try_start(world, table1=den)
        assert "can be read by the role “Spectators”" in inter.answer.content
        assert "alice's private table" in inter.answer.content
        fake.remove_overwrite(den, spectators)
        fake.set_overwrite(log, spectators, allow=P.VIEW_CHANNEL)
        await fake.sync()
        inter = await try_start(world, table1=den)
        assert f"The host log <#{log.id}> can be read by the role “Spectators”" in \
            inter.answer.content
        assert not up.service.matches
        fake.remove_overwrite(log, spectators)
        await fake.sync()
        inter = await try_start(world, table1=den)
        assert "started" in inter.answer.content


async def test_after_a_restart_a_table_threads_members_are_fetched_then_followed(
        world: World) -> None:
    """The gateway does not say who was in a thread before the bot connected: the transport
    lists the members once, then follows the gateway's updates."""
    fake = world.fake
    threads_allowed(world)
    mona = fake.add_member(world.guild, "mona")
    async with umpire(world) as up:
        match = await start_rps(world, up)
        match_id = match.id
    table0 = fake.channels[match.transport["table0"]]
    fake.add_thread_member(table0, mona)  # added while the bot was away
    start = len(fake.request_log)
    async with umpire(world) as up:
        match = up.service.matches[match_id]
        # Once connected, the keeper lists the thread's members and takes her out again
        # (the bot made that thread); the hosts are told.
        await fake.wait_for(lambda: mona.id not in table0.member_ids, 10)
        log = channel_of(world, match, "umpire")
        await fake.wait_for(lambda: any("🔧" in e and "mona (not a host)" in e
                                        for e in log_entries(world, log)), 10)
        posted = secret_posts(world, table0)
        await play_round_one(world, up, match)
        await fake.wait_for(lambda: secret_posts(world, table0) > posted, 10)
        await up.idle(fake)
        await assert_channels_match_outbox(world, up, match)
        fetched = [e.path for e in fake.request_log[start:] if e.method == "GET"
                   and e.path.endswith("/thread-members")]
        assert sorted(fetched) == sorted(f"/channels/{match.transport[f'table{s}']}"
                                         "/thread-members" for s in (0, 1))  # once each
