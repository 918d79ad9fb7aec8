"""`umpire run`: the match service on Discord."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
import sys
from collections.abc import Awaitable, Callable
from datetime import timedelta
from typing import TYPE_CHECKING, Any

import discord

from bot.config import Settings
from bot.store.settle import run_settled

if TYPE_CHECKING:
    from bot.health import StatusFile

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


class StoreStartFailed(Exception):
    """The database could not be opened, migrated or read at start (the cause is chained):
    `umpire` says so in one sentence naming the database, not as a Discord problem."""


BAD_TOKEN = ("umpire: the configured Discord token does not look like a bot token (its first "
             "part is not the application id), so Discord would refuse it; copy it again from "
             "the developer portal (Bot > Reset Token) into [discord] token or DISCORD_TOKEN.")


def start_refusal(settings: Settings, token: str) -> str | None:
    """Why `umpire run` would refuse to start with these settings, found without the
    network (no token, a token of the wrong shape, shards on an SQLite file); None if it
    would start. `run --check` applies the same rules first."""
    from bot.discord.invite import client_id_of
    from bot.store.database import is_sqlite

    if not token:
        return NO_TOKEN
    if client_id_of(token) is None:
        return BAD_TOKEN
    if settings.shards.enabled and is_sqlite(settings.database.url or ""):
        return SQLITE_SHARDS
    return None


def main(settings: Settings, check: bool = False) -> int:
    token = settings.discord.token.get_secret_value() if settings.discord.token else ""
    refusal = start_refusal(settings, token.strip())
    if refusal is not None:
        print(refusal, file=sys.stderr)
        return 2
    if check:
        return run_settled(check_only(settings, token.strip()))
    try:
        return run_settled(run(settings, token.strip()))
    except KeyboardInterrupt:
        return 0


async def check_only(settings: Settings, token: str) -> int:
    """`umpire run --check`: one line per check on stdout; 1 if any fails."""
    from bot.discord.check import run_check

    checks = await run_check(settings, token, settings.database.url)
    for item in checks:
        print(item.line())
    return 0 if all(c.ok for c in checks) else 1


async def run(settings: Settings, token: str) -> int:
    from bot.discord.client import UmpireBot
    from bot.discord.transport import DiscordTransport
    from bot.gc_tuning import collect_less, settle_after_start
    from bot.health import StatusFile, default_status_file
    from bot.shards import ShardKeeper, process_name
    from bot.store.database import create_engine
    from bot.store.leases import Leases
    from bot.store.repository import Repository
    from bot.umpire import MatchService

    shards = settings.shards  # start_refusal has refused shards on SQLite
    assert settings.database.url, "bot.cli chooses the database (bot.database_choice)"
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
    status: StatusFile | None = None
    if settings.metrics.port:
        from bot import metrics

        try:
            metrics.serve(service, settings.metrics.port, settings.metrics.address)
        except metrics.MetricsUnavailable as exc:
            print(f"umpire: {exc}", file=sys.stderr)
            await engine.dispose()
            return 2
    stopper = Stopper(service)
    try:
        collect_less()
        # migrate, recover active matches, queue the outbox; the clocks wait for the login
        try:
            await service.start(hold_clocks=True)
        except Exception as exc:
            raise StoreStartFailed(str(exc)) from exc
        if shards.enabled:
            keeper = ShardKeeper(
                service, Leases(engine, process_name(), timedelta(seconds=shards.lease_seconds)),
                shard_count=shards.count, preferred=shards.preferred,
                renew_seconds=min(settings.clock.heartbeat_seconds, shards.lease_seconds / 3))
        settle_after_start()
        bot = UmpireBot(service, settings, transport)
        if keeper is not None:
            keeper.on_adopt.append(bot.shards_adopted)

        async def logged_in() -> None:
            await service.run_clocks()  # charge no one for the downtime, login included
            if keeper is not None:  # take this process's shards (their clocks shift then)
                await keeper.start()
            from bot.discord.check import log_server_permissions

            await log_server_permissions(bot, settings, bot.guild_store)  # --check's lines

        status = StatusFile(settings.health.status_file or default_status_file(),
                            lambda: gateway_open(bot, transport.ready))
        status.start()
        if stopper.requested:  # stopped during the start: no login
            return 0
        stopper.attach(bot)
        async with bot:
            try:
                await run_after_login(bot.start(token), transport.ready, logged_in)
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
        if settings.metrics.port:
            from bot import metrics

            metrics.disable()
        if status is not None:
            await status.stop()
        if keeper is not None:
            await keeper.stop()
        await service.stop()
        if keeper is not None:
            await keeper.release()
        await engine.dispose()
        log.info("stopped: shard leases released, database closed")


#: discord.py's tasks that run a command, a click or an event handler (their names).
_COMMAND_TASKS = ("discord.py: ", "CommandTree-invoker", "discord-ui-view-dispatch")
#: How long a stop waits for the commands in progress, then for the outbox to be delivered.
STOP_WAIT_SECONDS = 10.0


def gateway_open(bot: discord.Client, ready: asyncio.Event) -> bool:
    """Whether the bot is logged in and its gateway connection is open now (a dropped
    connection that discord.py is re-opening is not)."""
    ws = getattr(bot, "ws", None)
    return ready.is_set() and not bot.is_closed() and ws is not None and bool(ws.open)


class Stopper:
    """SIGTERM (`docker stop`) and SIGINT (Ctrl-C) stop the bot cleanly: the commands in
    progress finish, the outbox is delivered, then the client closes; `run` then stops the
    service, releases the shard leases and closes the database, and exits 0. A signal
    during the start (before the client exists) ends `run` as soon as the start is done,
    before logging in. A second signal stops at once (the store is safe against a kill)."""

    def __init__(self, service: Any) -> None:
        self.service = service
        self.bot: discord.Client | None = None
        self.requested = False
        self._task: asyncio.Task[None] | None = None
        loop = asyncio.get_running_loop()
        for signum in (signal.SIGTERM, signal.SIGINT):
            with contextlib.suppress(NotImplementedError, RuntimeError):  # not on this OS
                loop.add_signal_handler(signum, self._on_signal, signum)

    def _on_signal(self, signum: int) -> None:
        name = signal.Signals(signum).name
        if self.requested:
            log.warning("received %s again: stopping at once", name)
            os._exit(128 + signum)
        self.requested = True
        log.warning("received %s: finishing the commands in progress, then stopping", name)
        self.attach(self.bot)

    def attach(self, bot: discord.Client | None) -> None:
        """The client to close on a signal (closed now if one came already)."""
        self.bot = bot
        if bot is not None and self.requested and self._task is None:
            self._task = asyncio.get_running_loop().create_task(
                graceful_stop(bot, self.service), name="umpire-stop")


async def graceful_stop(bot: discord.Client, service: Any,
                        wait: float = STOP_WAIT_SECONDS) -> None:
    """Let the commands in progress finish, deliver the outbox, then close the client."""
    me = asyncio.current_task()
    running = [t for t in asyncio.all_tasks() if t is not me and not t.done()
               and t.get_name().startswith(_COMMAND_TASKS)]
    if running:
        await asyncio.wait(running, timeout=wait)
    with contextlib.suppress(Exception):
        await asyncio.wait_for(service.delivery.drain(), wait)
    await bot.close()


async def run_after_login(client: Awaitable[None], ready: asyncio.Event,
                          logged_in: Callable[[], Awaitable[None]]) -> None:
    """Run the client (`client`: log in, then serve until it closes) and call `logged_in`
    once it is `ready` (connected: players can see and play again). The clocks are shifted
    for the downtime there, not before the login: the time it takes is nobody's fault."""
    serving = asyncio.ensure_future(client)
    waiting = asyncio.create_task(ready.wait())
    try:
        await asyncio.wait({serving, waiting}, return_when=asyncio.FIRST_COMPLETED)
        if waiting.done() and not serving.done():
            await logged_in()
        await serving
    finally:
        for task in (waiting, serving):
            if not task.done():
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
