"""With sharding on, a process answers only the servers of the shards it owns (the others'
input is another process's), and starts answering a server as soon as it takes its shard."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from bot.config import DiscordSettings, Settings, ShardSettings
from bot.discord.client import UmpireBot
from bot.discord.transport import DiscordTransport
from bot.store.database import create_engine
from bot.store.fence import Fence
from bot.store.leases import shard_of
from bot.store.repository import Repository
from bot.umpire import MatchService
from testbed.fake_discord.harness import running_client
from tests.discord.conftest import Umpire, World, channel_of, start_rps, umpire
from tests.support.driver import drive


@contextlib.asynccontextmanager
async def sharded(world: World, shards: set[int]) -> AsyncIterator[Umpire]:
    """A sharded process (two shards) owning `shards`, connected to the fake."""
    engine = create_engine(f"sqlite+aiosqlite:///{world.db}")
    transport = DiscordTransport()
    repo = Repository(engine, shard_count=2, shards=shards)
    service = MatchService(repo, transport, bot_think=0.0, heartbeat_seconds=0.05)
    settings = Settings(discord=DiscordSettings(token="fake-bot-token"),
                        shards=ShardSettings(count=2))
    try:
        await service.start()
        bot = UmpireBot(service, settings, transport)
        async with running_client(bot, world.fake):
            yield Umpire(service, bot, transport)
    finally:
        await service.stop()
        await engine.dispose()



async def test_a_sharded_process_answers_only_servers_of_the_shards_it_owns(world: World):
    fake = world.fake
    shard = shard_of(world.guild.id, 2)
    async with sharded(world, {1 - shard}) as up:  # another process's server
        service = up.service
        ignored = await fake.slash_command(world.alice, world.general, "help", wait=False)
        await asyncio.sleep(0.3)
        await fake.settle()
        assert not ignored.responded, "answered a server of a shard it does not own"
        before = len(fake.messages(world.general))
        await fake.send_user_message(world.alice, world.general, "!help")
        await asyncio.sleep(0.3)
        await fake.settle()
        assert len(fake.messages(world.general)) == before + 1  # only alice's own message
        await service.adopt({shard})  # the shard is taken (over): its server is answered
        answered = await fake.slash_command(world.alice, world.general, "help")
        assert answered.responded


async def test_a_taken_over_match_is_played_on_from_its_channels(world: World):
    """A match started by one process; a sharded process that does not own its server
    ignores a move typed at its table; once it adopts the shard the same move is applied."""
    fake = world.fake
    async with umpire(world) as up:  # the process that started it (then stopped)
        drive(up.service).set_shard_count(2)
        started = await start_rps(world, up)
        match_id, table0 = started.id, channel_of(world, started, "seat0")
        move = started.prompts[0].choices[0]
    shard = shard_of(world.guild.id, 2)
    engine = create_engine(f"sqlite+aiosqlite:///{world.db}")
    transport = DiscordTransport()
    repo = Repository(engine, shard_count=2, shards={1 - shard})
    service = MatchService(repo, transport, bot_think=0.0, heartbeat_seconds=0.05)
    settings = Settings(discord=DiscordSettings(token="fake-bot-token"),
                        shards=ShardSettings(count=2))
    try:
        await service.start()
        bot = UmpireBot(service, settings, transport)
        async with running_client(bot, fake):
            assert match_id not in service.matches
            await fake.send_user_message(world.alice, table0, move)
            await asyncio.sleep(0.3)
            await fake.settle()
            assert await repo.actions(match_id) == []
            await service.adopt({shard})
            await bot.shards_adopted({shard})
            await fake.send_user_message(world.alice, table0, move)
            await fake.wait_for(lambda: service.matches[match_id].seq == 1, 10)
            assert [a.source for a in await repo.actions(match_id)] == ["player"]
    finally:
        await service.stop()
        await engine.dispose()


class _Clock:
    def __init__(self) -> None:
        self.at = datetime.now(UTC)

    def __call__(self) -> datetime:
        return self.at


def _holding(up: Umpire, shard: int) -> tuple[Fence, _Clock]:
    """The service's store fenced as a sharded process's is: `shard` held for a minute."""
    clock = _Clock()
    fence = Fence("me", clock)
    fence.hold(shard, 1, clock() + timedelta(seconds=60))
    drive(up.service).set_fence(fence)
    return fence, clock


async def test_a_process_past_its_lease_deadline_takes_no_command_in(world: World):
    """The deadline decides at the gate too: once two thirds of the lease passed without a
    renewal (a pause), a command of the shard's server is ignored, though the process
    still counts the shard as its own (its drop not yet run)."""
    fake = world.fake
    shard = shard_of(world.guild.id, 2)
    async with sharded(world, {shard}) as up:
        fence, clock = _holding(up, shard)
        fence.on_lost = lambda shards: None  # (the keeper's drop: not under test)
        assert (await fake.slash_command(world.alice, world.general, "help")).responded
        clock.at += timedelta(seconds=61)
        late = await fake.slash_command(world.alice, world.general, "help", wait=False)
        await asyncio.sleep(0.3)
        await fake.settle()
        assert not late.responded, "answered a command past the lease's deadline"


async def test_a_command_s_reply_is_not_posted_once_the_shard_is_lost(
        world: World, monkeypatch: pytest.MonkeyPatch):
    """A command taken in while the shard was held, whose lease's deadline passes while it
    runs (a pause in the middle): its reply is not posted (`ShardContext`)."""
    import bot.discord.command_help as help_module

    fake = world.fake
    async with umpire(world) as up:
        _, clock = _holding(up, 0)
        made = help_module.help_text

        def paused_meanwhile(*args: Any) -> str:
            clock.at += timedelta(seconds=61)
            return made(*args)

        monkeypatch.setattr(help_module, "help_text", paused_meanwhile)
        asked = await fake.slash_command(world.alice, world.general, "help", wait=False)
        await asyncio.sleep(0.5)
        await fake.settle()
        assert not asked.finished, "the reply was posted after the shard was lost"
        drive(up.service).set_fence(None)


async def test_posts_outside_the_outbox_wait_for_the_lease(world: World):
    """Posts the front end makes itself (a line in an ended match's room, the Rematch
    offer) are made only while the match's shard is held here: none once it is lost."""
    from bot.discord.friendly import offer_rematch
    from bot.discord.host_tools import post_in_room

    fake = world.fake
    async with umpire(world) as up:
        live = await start_rps(world, up)
        await up.idle(fake)
        room = channel_of(world, live, "public")
        fence, clock = _holding(up, 0)
        before = len(fake.messages(room))
        await post_in_room(up.bot, live, "a host's line")
        assert len(fake.messages(room)) == before + 1  # (held: posted)
        fence.on_lost = lambda shards: None
        clock.at += timedelta(seconds=61)  # the deadline passed: the shard is lost here
        await post_in_room(up.bot, live, "a stale line")
        await offer_rematch(up.bot, live, up.bot.api)
        await fake.settle()
        assert len(fake.messages(room)) == before + 1, "posted for a shard lost here"
        drive(up.service).set_fence(None)


async def test_an_events_lines_wait_for_the_lease(world: World):
    """The tournament runner's lines in an event's channel (a round paired, a match's
    result) and the edits of its show message are made only while the server's shard is
    held here: none once it is lost (the process that took it posts them)."""
    fake = world.fake
    async with umpire(world) as up:
        asked = await fake.slash_command(world.host, world.general, "tournament create",
                                         {"name": "Lease Cup", "game": "rps-poker",
                                          "format": "single"})
        await fake.wait_for(lambda: asked.finished, 10)
        [event] = await up.bot.get_cog("Tournament").runner.of_guild(world.guild.id)
        cog = up.bot.get_cog("Tournament")
        fence, clock = _holding(up, 0)
        before = len(fake.messages(world.general))
        await cog._changed(event, "a round's line")
        assert len(fake.messages(world.general)) == before + 1  # (held: posted)
        fence.on_lost = lambda shards: None
        clock.at += timedelta(seconds=61)  # the deadline passed: the shard is lost here
        await cog._changed(event, "a stale line")
        await fake.settle()
        assert len(fake.messages(world.general)) == before + 1, "posted for a shard lost here"
        drive(up.service).set_fence(None)


async def test_the_keeper_puts_nothing_back_for_a_shard_lost_here(world: World):
    """The channel keeper changes a match's channels only while its shard is held here: a
    table a moderator changed after the lease's deadline passed is left to the process that
    took the shard (a held shard's table is put back at once: tests/discord/test_keeper.py)."""
    fake = world.fake
    async with umpire(world) as up:
        live = await start_rps(world, up)
        await up.idle(fake)
        table0 = channel_of(world, live, "seat0")
        fence, clock = _holding(up, 0)
        fence.on_lost = lambda shards: None
        clock.at += timedelta(seconds=61)  # the deadline passed: the shard is lost here
        fake.sync_with_category(table0)  # a moderator's "Sync Now"
        assert fake.can_view(world.eve, table0)
        await asyncio.sleep(0.5)
        await up.bot.keeper.wait_idle()
        await fake.settle()
        assert fake.can_view(world.eve, table0), "put back for a shard lost here"
        drive(up.service).set_fence(None)
