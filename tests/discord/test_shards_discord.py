"""With sharding on, a process answers only the servers of the shards it owns (the others'
input is another process's), and starts answering a server as soon as it takes its shard."""

from __future__ import annotations

import asyncio

from bot.config import DiscordSettings, Settings, ShardSettings
from bot.discord.client import UmpireBot
from bot.discord.transport import DiscordTransport
from bot.store.database import create_engine
from bot.store.leases import shard_of
from bot.store.repository import Repository
from bot.umpire import MatchService
from tests.discord.conftest import World, channel_of, start_rps, umpire
from tests.fake_discord.harness import running_client


async def test_a_sharded_process_answers_only_servers_of_the_shards_it_owns(world: World):
    fake = world.fake
    shard = shard_of(world.guild.id, 2)
    engine = create_engine(f"sqlite+aiosqlite:///{world.db}")
    transport = DiscordTransport()
    repo = Repository(engine, shard_count=2, shards={1 - shard})  # another process's server
    service = MatchService(repo, transport, bot_think=0.0, heartbeat_seconds=0.05)
    settings = Settings(discord=DiscordSettings(token="fake-bot-token"),
                        shards=ShardSettings(count=2))
    try:
        await service.start()
        bot = UmpireBot(service, settings, transport)
        async with running_client(bot, fake):
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
    finally:
        await service.stop()
        await engine.dispose()


async def test_a_taken_over_match_is_played_on_from_its_channels(world: World):
    """A match started by one process; a sharded process that does not own its server
    ignores a move typed at its table; once it adopts the shard the same move is applied."""
    fake = world.fake
    async with umpire(world) as up:  # the process that started it (then stopped)
        up.service.repo.shard_count = 2
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
