"""`umpire run`: the match service on Discord."""

from __future__ import annotations

import asyncio
import logging
import sys
from datetime import timedelta

import discord

from bot.config import Settings

log = logging.getLogger(__name__)

NO_TOKEN = """No Discord bot token is configured, so the bot cannot start.
Provide one either way:
  - in config.toml:   [discord]
                      token = "YOUR-BOT-TOKEN"
  - or in the environment: DISCORD_TOKEN=YOUR-BOT-TOKEN umpire run
(create the bot at https://discord.com/developers/applications; enable the Server Members
and Message Content intents.)
Without Discord you can still play: `umpire play rps-poker` (you against a built-in bot in
the terminal) or `umpire demo` (bots play every game)."""

SQLITE_SHARDS = """[shards] count is more than 1, but the database is an SQLite file. Sharded
processes must share one PostgreSQL database ([database] url = "postgresql+asyncpg://...");
one SQLite file per process is not sharding. Set [shards] count = 1 to run one process."""


def main(settings: Settings) -> int:
    token = settings.discord.token.get_secret_value() if settings.discord.token else ""
    if not token.strip():
        print(NO_TOKEN, file=sys.stderr)
        return 2
    try:
        return asyncio.run(run(settings, token.strip()))
    except KeyboardInterrupt:
        return 0


async def run(settings: Settings, token: str) -> int:
    from bot.discord.client import UmpireBot
    from bot.discord.transport import DiscordTransport
    from bot.gc_tuning import collect_less, settle_after_start
    from bot.shards import ShardKeeper, process_name
    from bot.store.database import create_engine, is_sqlite
    from bot.store.leases import Leases
    from bot.store.repository import Repository
    from bot.umpire import MatchService

    shards = settings.shards
    if shards.enabled and is_sqlite(settings.database.url):
        print(SQLITE_SHARDS, file=sys.stderr)
        return 2
    engine = create_engine(settings.database.url, echo=settings.database.echo)
    transport = DiscordTransport()
    repo = Repository(engine, shard_count=shards.count,
                      shards=set() if shards.enabled else None)
    repo.writer.wait = settings.database.store_wait_seconds
    service = MatchService(repo, transport, bot_think=settings.bots.think_seconds,
                           snapshot_every=settings.database.snapshot_every,
                           heartbeat_seconds=settings.clock.heartbeat_seconds,
                           outbox_retention=settings.database.outbox_retention)
    keeper: ShardKeeper | None = None
    try:
        collect_less()
        await service.start()  # migrate, recover active matches, resend the outbox
        if shards.enabled:  # take this process's shards and resume their matches
            keeper = ShardKeeper(
                service, Leases(engine, process_name(), timedelta(seconds=shards.lease_seconds)),
                shard_count=shards.count, preferred=shards.preferred,
                renew_seconds=min(settings.clock.heartbeat_seconds, shards.lease_seconds / 3))
            await keeper.start()
        settle_after_start()
        bot = UmpireBot(service, settings, transport)
        if keeper is not None:
            keeper.on_adopt.append(bot.shards_adopted)
        async with bot:
            try:
                await bot.start(token)
            except discord.LoginFailure:
                print("Discord refused the token (LoginFailure): check [discord] token or "
                      "DISCORD_TOKEN.", file=sys.stderr)
                return 1
            except discord.PrivilegedIntentsRequired:
                print("Enable the Server Members and Message Content intents for the bot in the "
                      "Discord developer portal, then start again.", file=sys.stderr)
                return 1
        return 0
    finally:
        if keeper is not None:
            await keeper.stop()
        await service.stop()
        if keeper is not None:
            await keeper.release()
        await engine.dispose()
