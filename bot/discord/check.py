"""`umpire run --check`: the token, the intents, the database (reachable, migrated) and,
for each server, the bot's permissions in that server's channel mode, one line each. The
server lines are also logged at every start (`log_server_permissions`)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Any

import discord

from bot.discord.invite import missing_in
from bot.health import Check, database_check, migration_check

log = logging.getLogger(__name__)

#: How long the check waits for Discord to accept the login and list the servers.
LOGIN_TIMEOUT_SECONDS = 30.0


async def server_checks(client: discord.Client, settings: Any, store: Any = None
                        ) -> list[Check]:
    """Each server: the permissions its channel mode needs that the bot lacks (`store`: the
    servers' settings, for each one's channel mode; the configured mode without it)."""
    from bot.discord.guild import GuildConfig

    out = []
    for guild in client.guilds:
        mode = settings.discord.channel_mode
        if store is not None:
            with contextlib.suppress(Exception):
                mode = GuildConfig(await store.get(guild.id), settings.discord).channel_mode
        missing = missing_in(guild, mode)
        where = f"server {guild.name!r} ({guild.id})"
        out.append(Check(where, not missing, f"every permission {mode} mode needs" if not missing
                         else f"missing {', '.join(missing)} ({mode} mode): give them to the "
                         "bot's role, or invite it again with `umpire invite`'s link"))
    if not client.guilds:
        out.append(Check("servers", True, "the bot is in no server yet: add it with the link "
                         "`umpire invite` prints"))
    return out


async def log_server_permissions(client: discord.Client, settings: Any, store: Any) -> None:
    """At start: one log line per server that lacks a permission its mode needs."""
    for check in await server_checks(client, settings, store):
        if not check.ok:
            log.warning("%s", check.line())


async def run_check(settings: Any, token: str, url: str) -> list[Check]:
    """Every check of `umpire run --check`, in order."""
    from bot.discord.client import intents

    checks = [await database_check(url, start_creates=True)]
    if checks[0].ok:
        checks.append(await migration_check(url))
    client = discord.Client(intents=intents())
    ready = asyncio.Event()
    client.event(_on_ready(ready))
    task = asyncio.create_task(client.start(token), name="umpire-check-login")
    waiting = asyncio.create_task(ready.wait())
    try:
        await asyncio.wait({task, waiting}, timeout=LOGIN_TIMEOUT_SECONDS,
                           return_when=asyncio.FIRST_COMPLETED)
        if ready.is_set():
            user = client.user
            checks.append(Check("token", True, f"Discord accepts it: logged in as {user} "
                                f"(application {client.application_id})"))
            checks.append(Check("intents", True, "Server Members and Message Content are "
                                "enabled"))
            checks += await server_checks(client, settings)
        elif task.done() and isinstance(task.exception(), discord.LoginFailure):
            checks.append(Check("token", False, "Discord refuses it (LoginFailure): check "
                                "[discord] token or DISCORD_TOKEN"))
        elif task.done() and isinstance(task.exception(), discord.PrivilegedIntentsRequired):
            checks.append(Check("token", True, "Discord accepts it"))
            checks.append(Check("intents", False, "enable the Server Members and Message "
                                "Content intents (developer portal > Bot), then check again"))
        else:
            error = task.exception() if task.done() else None
            checks.append(Check("token", False, "cannot reach Discord to check it (" +
                                (f"{type(error).__name__}: {error}" if error else
                                 f"no answer in {LOGIN_TIMEOUT_SECONDS:g} s") + ")"))
    finally:
        waiting.cancel()
        await client.close()
        with contextlib.suppress(BaseException):
            await asyncio.wait_for(task, 10)
    return checks


def _on_ready(ready: asyncio.Event) -> Any:
    async def on_ready() -> None:
        ready.set()
    return on_ready
