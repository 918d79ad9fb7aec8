"""Tables as private threads (channel mode "threads") on the fake Discord: one game room per
match with a private thread per player that only that player (and the bot) is in; moves
typed in a thread; threads locked at the end, archived after the delay (the transcript
first), deleted by /match delete; 200 matches in one server under the channel limit; a
deleted table thread made again with the open decision and no time charged; what happens
without the thread permissions; and the transport forgetting finished matches."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bot.discord.channel_lifecycle import wait_archived
from testbed.fake_discord import permissions as P
from testbed.fake_discord.models import PRIVATE_THREAD, Channel
from testbed.fake_discord.rest_channels import MAX_GUILD_CHANNELS
from tests.discord.conftest import (
    World,
    assert_channels_match_outbox,
    bot_posts,
    channel_of,
    start_rps,
    threads_allowed,
    umpire,
)
from tests.support.driver import drive


def _log_files(world: World) -> list[str]:
    log = world.fake.get_channel(world.guild, "umpire-log")
    return [a.filename for m in world.fake.messages(log) for a in m.attachments]


async def test_the_category_prefix_names_the_categories_as_the_example_config_says(
        world: World) -> None:
    """Threads: one category "<prefix> rooms" (no "es" added: "duel" is not "dueles");
    channels: "<prefix> <player> vs <player>"; config.example.toml says the same."""
    threads_allowed(world)
    async with umpire(world, category_prefix="duel") as up:
        match = await start_rps(world, up)
        room = channel_of(world, match, "public")
        assert world.fake.channels[room.parent_id].name == "duel rooms"
    async with umpire(world, category_prefix="duel", channel_mode="channels") as up:
        match = await start_rps(world, up)
        room = channel_of(world, match, "public")
        assert world.fake.channels[room.parent_id].name == "duel alice vs bob"
    example = (Path(__file__).resolve().parents[2] / "config.example.toml").read_text()
    assert '"<prefix> rooms"' in example and '"<prefix> <player> vs <player>"' in example


def _tables(world: World, match: Any) -> list[Channel]:
    return [channel_of(world, match, "seat0"), channel_of(world, match, "seat1")]


async def test_threads_mode_one_room_and_a_private_thread_per_player_played_to_the_end(
        world: World) -> None:
    fake = world.fake
    threads_allowed(world)
    mods = fake.add_role(world.guild, "Mods", permissions=P.MANAGE_THREADS)
    mona = fake.add_member(world.guild, "mona", roles=[mods])  # a moderator, not a host
    async with umpire(world) as up:
        channels_before = set(world.guild.channel_ids)
        match = await start_rps(world, up)
        room = channel_of(world, match, "public")
        tables = _tables(world, match)
        users = [world.alice, world.bob]
        assert match.transport["mode"] == "threads"
        # One room (in the bot's category of game rooms): no category or channel per table.
        category = fake.channels[room.parent_id]
        assert category.name == "match rooms"  # "<category_prefix> rooms"
        made = set(world.guild.channel_ids) - channels_before
        log = channel_of(world, match, "umpire")
        assert made == {category.id, room.id, log.id}  # (the host log: made by a first match)
        for seat, table in enumerate(tables):
            assert table.type == PRIVATE_THREAD and table.parent_id == room.id
            assert not table.invitable
            assert set(table.member_ids) == {fake.bot_user.id, users[seat].id}
            assert fake.can_view(users[seat], table)
            for other in (users[1 - seat], world.eve, world.host, mona):
                assert not fake.can_view(other, table), other.username
        for u in (world.alice, world.bob, world.eve, mona):
            assert fake.can_view(u, room)

        # Every decision typed in the player's thread.
        while match.status == "active":
            for prompt in list(match.prompts):
                await fake.send_user_message(users[prompt.seat], tables[prompt.seat],
                                             prompt.choices[0])
                await fake.wait_for(lambda p=prompt: p.key not in {q.key for q in match.prompts}
                                    or match.status != "active")
                await up.idle(fake)
        assert match.status == "finished"
        await up.idle(fake)
        counts = await assert_channels_match_outbox(world, up, match)
        assert counts["seat0"] > 10 and counts["seat1"] > 10

        # Ended: the threads are locked (read-only), not archived before the delay (60 min).
        for seat, table in enumerate(tables):
            assert table.locked and not table.archived and not table.deleted
            assert fake.can_view(users[seat], table)
            assert not fake.permissions_for(users[seat], table) & P.SEND_MESSAGES
        assert not fake.permissions_for(world.alice, room) & P.SEND_MESSAGES

        done = await fake.slash_command(world.host, world.general, "match delete", match=match.id)
        assert "deleted" in done.answer.content and done.answer.ephemeral
        assert all(t.deleted for t in tables) and room.deleted
        assert not category.deleted  # kept for the next matches' rooms
        assert _log_files(world) == [f"match-{match.id}.txt"]


async def test_threads_are_archived_after_the_delay_the_transcript_first(world: World) -> None:
    fake = world.fake
    threads_allowed(world)
    async with umpire(world, archive_delay_minutes=0) as up:
        match = await start_rps(world, up)
        tables = _tables(world, match)
        await up.service.award(match.id, 0, "fast award")
        await up.idle(fake)
        await wait_archived(up.bot)
        await fake.wait_for(lambda: all(t.archived for t in tables), 10)
        rows = await drive(up.service).rows([match.id])
    assert rows[0].transport.get("archived")
    assert all(t.archived and t.locked and not t.deleted for t in tables)
    assert _log_files(world) == [f"match-{match.id}.txt"]
    log_id = fake.get_channel(world.guild, "umpire-log").id
    order = [(e.method, e.path, e.json) for e in fake.request_log if e.status < 300]
    transcript = next(i for i, (m, p, _) in enumerate(order)
                      if m == "POST" and p == f"/channels/{log_id}/messages"
                      and "transcript" in str(fake.request_log[i].json))
    archived = [i for i, (m, p, j) in enumerate(order)
                if m == "PATCH" and p in {f"/channels/{t.id}" for t in tables}
                and isinstance(j, dict) and j.get("archived")]
    assert len(archived) == 2 and transcript < min(archived)
    room = channel_of(world, match, "public")
    assert not room.deleted  # the room stays, read-only


async def test_200_matches_in_threads_mode_never_reach_the_channel_limit(world: World) -> None:
    fake = world.fake
    threads_allowed(world)
    most = 0
    started: list[int] = []
    async with umpire(world, archive_delay_minutes=0) as up:
        for _ in range(200):
            match = await start_rps(world, up)
            started.append(match.id)
            most = max(most, len(world.guild.channel_ids))
            await up.service.award(match.id, 0, "fast award")
        await up.idle(fake)
        await fake.wait_for(lambda: len(_log_files(world)) == 200, 60)
        await wait_archived(up.bot)
        rows = await drive(up.service).rows(started)
        memory = up.transport.memory()
    assert not [e for e in fake.request_log if e.status >= 400]
    assert most < MAX_GUILD_CHANNELS
    assert len(rows) == 200 and all(r.transport.get("archived") for r in rows)
    assert all(r.transport["mode"] == "threads" for r in rows)
    threads = [fake.channels[r.transport[f"table{s}"]] for r in rows for s in (0, 1)]
    assert all(t.archived and t.locked for t in threads) and len(world.guild.thread_ids) == 400
    # 200 rooms in categories of at most 50, plus #general and the host log.
    categories = {fake.channels[r.transport["room"]].parent_id for r in rows}
    assert len(categories) == 4 and len(world.guild.channel_ids) == 200 + 4 + 2
    assert memory == 0  # the transport keeps nothing per finished match


async def test_a_deleted_table_thread_is_made_again_with_the_open_decision_and_no_time_charged(
        world: World) -> None:
    fake = world.fake
    threads_allowed(world)
    async with umpire(world) as up:
        match = await start_rps(world, up)
        table = channel_of(world, match, "seat0")
        [prompt] = [p for p in match.prompts if p.seat == 0]
        limit = match.clocks[prompt.key].limit_at
        fake.delete_channel(table)  # a moderator deletes alice's thread
        await fake.wait_for(lambda: match.transport["table0"] != table.id, 10)
        await up.idle(fake)
        new = channel_of(world, match, "seat0")
        assert new.type == PRIVATE_THREAD and new.parent_id == table.parent_id
        assert set(new.member_ids) == {fake.bot_user.id, world.alice.id}
        assert not fake.can_view(world.bob, new) and not fake.can_view(world.eve, new)
        posts = bot_posts(world, new)
        assert "made again" in posts[0].content
        ids = [str(c.get("custom_id")) for m in posts for c in m.iter_components()]
        assert f"ump:b:{match.id}:0:{prompt.key}" in ids  # the decision's buttons again
        assert match.clocks[prompt.key].limit_at > limit  # the gap is not charged
        log = fake.get_channel(world.guild, "umpire-log")
        assert any("was deleted; I made it again" in m.content for m in fake.messages(log))
        await fake.send_user_message(world.alice, new, prompt.choices[0])
        await fake.wait_for(lambda: not any(p.key == prompt.key for p in match.prompts), 10)


async def test_a_deleted_room_is_made_again_with_new_table_threads(world: World) -> None:
    fake = world.fake
    threads_allowed(world)
    async with umpire(world) as up:
        match = await start_rps(world, up)
        room, old_tables = channel_of(world, match, "public"), _tables(world, match)
        fake.delete_channel(room)  # its threads go with it
        await fake.wait_for(lambda: match.transport["room"] != room.id and all(
            match.transport[f"table{s}"] != old_tables[s].id for s in (0, 1)), 10)
        await up.idle(fake)
        new_room = channel_of(world, match, "public")
        tables = _tables(world, match)
        assert all(t.parent_id == new_room.id and not t.deleted for t in tables)
        assert fake.can_view(world.alice, tables[0]) and not fake.can_view(world.bob, tables[0])
        for seat, table in enumerate(tables):
            [prompt] = [p for p in match.prompts if p.seat == seat]
            ids = [str(c.get("custom_id")) for m in bot_posts(world, table)
                   for c in m.iter_components()]
            assert f"ump:b:{match.id}:{seat}:{prompt.key}" in ids


async def test_without_thread_permissions_the_default_falls_back_to_channels_and_says_why(
        world: World) -> None:
    fake = world.fake  # the fake's default bot role cannot create private threads
    async with umpire(world) as up:
        inter = await fake.slash_command(world.host, world.general, "match start",
                                         game="rps-poker", player1=world.alice,
                                         player2=world.bob)
        await fake.wait_for(lambda: inter.finished, 10)
        text = inter.answer.content
        assert "started" in text and "Tables are channels" in text
        assert "Create Private Threads" in text and "Manage Threads" in text
        [match] = drive(up.service).matches()
        assert match.transport["mode"] == "channels"
        assert all(t.type == 0 for t in _tables(world, match))
        assert not world.guild.thread_ids


async def test_a_host_who_chose_threads_is_told_exactly_which_permission_is_missing(
        world: World) -> None:
    fake = world.fake
    fake.set_role_permissions(fake.bot_role(world.guild),
                              P.THREADS_BOT & ~P.CREATE_PRIVATE_THREADS)
    owner = fake.users[world.guild.owner_id]
    async with umpire(world) as up:
        await fake.slash_command(owner, world.general, "umpire settings", channel_mode="threads")
        before = list(world.guild.channel_ids)
        inter = await fake.slash_command(world.host, world.general, "match start",
                                         game="rps-poker", player1=world.alice,
                                         player2=world.bob)
        await fake.wait_for(lambda: inter.finished, 10)
        answer = inter.answer
        assert answer.ephemeral and "Create Private Threads" in answer.content
        assert "Manage Threads" not in answer.content  # only what is missing
        assert "channel_mode:channels" in answer.content
        assert not up.service.matches and world.guild.channel_ids == before
        assert not world.guild.thread_ids


async def test_a_failure_half_way_removes_the_room_and_threads_made(world: World) -> None:
    fake = world.fake
    threads_allowed(world)
    async with umpire(world) as up:
        # Make the host log first, so that only the match's own channels are at stake.
        match = await start_rps(world, up)
        await up.service.award(match.id, 0, "warm-up")
        await up.idle(fake)
        channels, threads = list(world.guild.channel_ids), list(world.guild.thread_ids)
        fake.fail_next("PUT", "/channels/*/thread-members/*", status=403)
        inter = await fake.slash_command(world.host, world.general, "match start",
                                         game="rps-poker", player1=world.alice,
                                         player2=world.bob)
        await fake.wait_for(lambda: inter.finished, 10)
        await up.idle(fake)
        assert "nothing was started" in inter.answer.content and inter.answer.ephemeral
        assert list(up.service.matches) == [match.id]
        assert world.guild.channel_ids == channels and world.guild.thread_ids == threads


async def test_the_transport_forgets_a_finished_match_whose_room_was_unreachable(
        world: World) -> None:
    fake = world.fake
    async with umpire(world) as up:
        threads_allowed(world)
        await fake.sync()
        matches = [await start_rps(world, up) for _ in range(3)]
        for match in matches:
            fake.unreachable_channels.add(channel_of(world, match, "public").id)
            await up.service.award(match.id, 0, "the room is unreachable")
        for match in matches:  # each room's last messages are held, not given up
            await fake.wait_for(lambda m=match: fake.count_requests(
                "POST", f"/channels/{channel_of(world, m, 'public').id}/messages") > 0, 10)
        assert drive(up.service).failures == []
        # The rooms come back; what was held goes out and the ended matches are closed...
        fake.unreachable_channels.clear()
        drive(up.service).wake()
        await up.idle(fake)
        assert await up.bot.closing.close_ended() == 0
        await up.idle(fake)
        rows = await drive(up.service).rows([m.id for m in matches])
        assert all(r.transport.get("closed") for r in rows)
        assert up.transport.memory() == 0  # ...and nothing of them is kept once closed
        # A late send for a closed match neither closes it again nor offers a second rematch.
        last = matches[-1]
        assert drive(up.service).match(last.id) is last  # still in memory
        requests = len(fake.requests)
        up.bot.closing.after_send(last.info)
        await up.idle(fake)
        assert fake.requests[requests:] == []


async def test_a_named_room_where_a_player_moderates_threads_is_refused(world: World) -> None:
    fake = world.fake
    threads_allowed(world)
    mods = fake.add_role(world.guild, "Mods", permissions=P.MANAGE_THREADS)
    fake.add_member_role(world.guild, world.bob, mods)
    hall = fake.add_text_channel(world.guild, "hall")
    async with umpire(world) as up:
        inter = await fake.slash_command(world.host, world.general, "match start",
                                         game="rps-poker", player1=world.alice,
                                         player2=world.bob, room=hall)
        await fake.wait_for(lambda: inter.finished, 10)
        assert "bob has Manage Threads" in inter.answer.content and inter.answer.ephemeral
        assert not up.service.matches and not world.guild.thread_ids
        fake.set_overwrite(hall, mods, deny=P.MANAGE_THREADS)  # the host fixes the room
        await fake.sync()
        again = await fake.slash_command(world.host, world.general, "match start",
                                         game="rps-poker", player1=world.alice,
                                         player2=world.bob, room=hall)
        await fake.wait_for(lambda: again.finished, 10)
        assert "started" in again.answer.content
        [match] = drive(up.service).matches()
        assert match.transport["mode"] == "threads" and match.transport["room"] == hall.id
        assert all(t.parent_id == hall.id for t in _tables(world, match))
        assert not fake.can_view(world.bob, channel_of(world, match, "seat0"))


async def test_a_match_started_with_channels_keeps_them_when_the_mode_changes(
        world: World) -> None:
    fake = world.fake
    owner = fake.users[world.guild.owner_id]
    async with umpire(world, archive_delay_minutes=0) as up:
        await fake.slash_command(owner, world.general, "umpire settings", channel_mode="channels")
        threads_allowed(world)
        await fake.sync()
        old = await start_rps(world, up)
        await fake.slash_command(owner, world.general, "umpire settings", channel_mode="threads")
        new = await start_rps(world, up)
        assert old.transport["mode"] == "channels" and new.transport["mode"] == "threads"
        old_tables = _tables(world, old)
        fake.delete_channel(old_tables[0])  # still made again as a channel
        await fake.wait_for(lambda: old.transport["table0"] != old_tables[0].id, 10)
        await up.idle(fake)
        assert channel_of(world, old, "seat0").type == 0
        for match in (old, new):
            await up.service.award(match.id, 0, "done")
        await up.idle(fake)
        await wait_archived(up.bot)
        rows = {r.id: r for r in await drive(up.service).rows([old.id, new.id])}
    assert all(r.transport.get("archived") for r in rows.values())
    assert all(fake.channels[rows[old.id].transport[f"table{s}"]].deleted for s in (0, 1))
    assert rows[old.id].transport["category"] not in world.guild.channel_ids
    assert all(fake.channels[rows[new.id].transport[f"table{s}"]].archived for s in (0, 1))
