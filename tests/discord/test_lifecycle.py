"""Channel lifecycle on the fake Discord: ended matches archived after the server's delay
(transcript to the host log first, tables and category removed, the room kept), `/match
delete`, Discord's 500-channel limit never reached over 200 matches, and a table deleted
mid-match made again with its open decision posted again and no time charged."""

from __future__ import annotations

from typing import Any

import pytest

from bot.discord import channel_lifecycle
from bot.discord.channel_lifecycle import wait_archived
from bot.discord.errors import Refusal
from bot.discord.render import render
from testbed.fake_discord import permissions as P
from testbed.fake_discord.rest_channels import MAX_GUILD_CHANNELS
from tests.discord.conftest import World, bot_posts, channel_of, start_rps, umpire
from tests.support.driver import drive


def _log_files(world: World) -> list[str]:
    log = world.fake.get_channel(world.guild, "umpire-log")
    return [a.filename for m in world.fake.messages(log) for a in m.attachments]


async def test_200_matches_in_one_server_never_reach_the_channel_limit(world: World) -> None:
    fake = world.fake
    most = 0
    started: list[int] = []
    async with umpire(world, archive_delay_minutes=0) as up:
        for _ in range(200):
            match = await start_rps(world, up)
            started.append(match.id)
            most = max(most, len(world.guild.channel_ids))
            await up.service.award(match.id, 0, "fast award")
        await up.idle(fake)
        # Ended matches leave the service's memory (only the latest few stay): read the store.
        await fake.wait_for(lambda: len(_log_files(world)) == 200, 60)
        await wait_archived(up.bot)
        count = len(world.guild.channel_ids)
        rows = await drive(up.service).rows(started)
    assert most < MAX_GUILD_CHANNELS and count < MAX_GUILD_CHANNELS
    assert not [e for e in fake.request_log if e.status == 400]
    assert len(rows) == 200 and all(r.transport.get("archived") for r in rows)
    assert sorted(_log_files(world)) == sorted(f"match-{i}.txt" for i in started)
    for r in rows:  # the room stays (read-only, with its Rematch button), the rest is gone
        assert r.transport["room"] in world.guild.channel_ids
        assert r.transport["table0"] not in world.guild.channel_ids
        assert r.transport["category"] not in world.guild.channel_ids
    # Without archiving, four channels a match would have passed 500 after 125 matches.
    assert count <= 200 + 5


async def test_match_delete_posts_the_transcript_then_removes_every_channel(world: World) -> None:
    fake = world.fake
    async with umpire(world, archive_delay_minutes=600) as up:
        match = await start_rps(world, up)
        early = await fake.slash_command(world.host, world.general, "match delete", match=match.id)
        assert "still on" in early.answer.content
        await up.service.award(match.id, 1, "bob wins")
        await up.idle(fake)
        assert match.transport["room"] in world.guild.channel_ids  # the delay is 10 hours
        done = await fake.slash_command(world.host, world.general, "match delete", match=match.id)
        assert "channels deleted" in done.answer.content and done.answer.ephemeral
        for key in ("room", "table0", "table1", "category"):
            assert match.transport[key] not in world.guild.channel_ids, key
        assert _log_files(world) == [f"match-{match.id}.txt"]
        log = fake.get_channel(world.guild, "umpire-log")
        [posted] = [m for m in fake.messages(log) if m.attachments]
        assert "bob wins" in posted.attachments[0].data.decode()
        again = await fake.slash_command(world.host, world.general, "match delete", match=match.id)
        assert "already removed" in again.answer.content


async def test_a_deleted_table_is_made_again_with_the_open_decision_and_no_time_charged(
        world: World) -> None:
    fake = world.fake
    async with umpire(world, channel_mode="channels") as up:  # tables as channels
        match = await start_rps(world, up)
        table = channel_of(world, match, "seat0")
        [prompt] = [p for p in match.prompts if p.seat == 0]
        limit = match.clocks[prompt.key].limit_at
        [asked] = [m for m in bot_posts(world, table) if any(
            str(c.get("custom_id", "")).endswith(f":{prompt.key}") for c in m.iter_components())]
        fake.delete_channel(table)
        await fake.wait_for(lambda: match.transport["table0"] != table.id, 10)
        await up.idle(fake)
        new = channel_of(world, match, "seat0")
        assert new.name == table.name and new.parent_id == table.parent_id
        assert fake.can_view(world.alice, new) and not fake.can_view(world.bob, new)
        assert not fake.can_view(world.eve, new)
        posts = bot_posts(world, new)
        assert "made again" in posts[0].content
        ids = [str(c.get("custom_id")) for m in posts for c in m.iter_components()]
        assert f"ump:b:{match.id}:0:{prompt.key}" in ids  # the decision's buttons again
        [again] = [m for m in posts if any(str(c.get("custom_id", "")).endswith(
            f":{prompt.key}") for c in m.iter_components())]
        asked_text = render(prompt.text, match.players)
        assert asked_text in asked.content and asked_text in again.content  # its text too
        assert match.clocks[prompt.key].limit_at > limit  # the gap is not charged
        log = fake.get_channel(world.guild, "umpire-log")
        assert any("was deleted; I made it again" in m.content for m in fake.messages(log))
        # The decision can be made in the new table.
        typed = await fake.send_user_message(world.alice, new, prompt.choices[0])
        await fake.wait_for(lambda: not any(p.key == prompt.key for p in match.prompts), 10)
        assert typed.id


async def test_a_deleted_room_is_made_again_with_the_open_public_decision(world: World) -> None:
    fake = world.fake
    async with umpire(world, channel_mode="channels") as up:
        match = await start_rps(world, up)
        room = channel_of(world, match, "public")
        fake.delete_channel(room)
        await fake.wait_for(lambda: match.transport["room"] != room.id, 10)
        await up.idle(fake)
        new = channel_of(world, match, "public")
        assert new.name == room.name and fake.can_view(world.eve, new)
        posts = bot_posts(world, new)
        assert "made again" in posts[0].content
        # Only private decisions are open: the room says who it waits for, as it did.
        assert all(p.private for p in match.prompts)
        # (in the note's post or after it: messages queued together go out in one post)
        assert any("Waiting for" in m.content and str(world.alice.id) in m.content
                   and str(world.bob.id) in m.content for m in posts)
        # Chat and moves in the new room reach the match.
        before = len(bot_posts(world, channel_of(world, match, "seat0")))
        await fake.send_user_message(world.alice, new, match.prompts[0].choices[0])
        await fake.wait_for(lambda: len(bot_posts(world, channel_of(world, match, "seat0")))
                            > before, 10)


async def _closed_at_once(world: World, up: Any) -> tuple[Any, set[int], list[Any]]:
    """A match awarded on a server that archives at once: (the match, its tables, the
    requests since the award), once it is closed and archived (or its archive refused)."""
    fake = world.fake
    match = await start_rps(world, up)
    tables = {int(match.transport["table0"]), int(match.transport["table1"])}
    start = len(fake.request_log)
    await up.service.award(match.id, 0, "fast award")
    await up.idle(fake)
    await wait_archived(up.bot)
    await fake.settle()
    return match, tables, fake.request_log[start:]


def _edits(requests: list[Any], channels: set[int]) -> list[str]:
    """Permission or channel edits of these channels (what making them read-only takes)."""
    return [f"{e.method} {e.path}" for e in requests if e.method in ("PATCH", "PUT")
            and int(e.path.split("/")[2]) in channels]


async def test_tables_archived_at_once_are_not_made_read_only_first(world: World) -> None:
    async with umpire(world, archive_delay_minutes=0) as up:
        match, tables, requests = await _closed_at_once(world, up)
        assert _edits(requests, tables) == []  # deleted right after: no edit before
        assert {int(e.path.split("/")[2]) for e in requests if e.method == "DELETE"
                and e.route == "/channels/{channel_id}"} >= tables
        assert _edits(requests, {int(match.transport["room"])})  # the room stays: read-only


async def test_tables_an_archive_could_not_delete_are_made_read_only(
        world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    async def refused(*args: Any, **kwargs: Any) -> str:
        raise Refusal("The host log of this match is gone.")
    monkeypatch.setattr(channel_lifecycle, "archive_match", refused)
    async with umpire(world, archive_delay_minutes=0) as up:
        match, tables, requests = await _closed_at_once(world, up)
        assert {int(e.path.split("/")[2]) for e in requests if e.method == "PATCH"} >= tables
        for table in tables:
            overwrites = world.fake.channels[table].overwrites
            assert any(o.deny & P.SEND_MESSAGES for o in overwrites), table
