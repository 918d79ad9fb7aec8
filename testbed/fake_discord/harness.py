"""Run a real discord.py client against a FakeDiscord inside a test."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator
from typing import TypeVar

import discord

from .server import FakeDiscord

ClientT = TypeVar("ClientT", bound=discord.Client)


class _ErrorCollector(logging.Handler):
    """discord.py logs (and swallows) exceptions raised in event handlers, views and commands."""

    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


@contextlib.asynccontextmanager
async def running_client(
    client: ClientT,
    fake: FakeDiscord,
    *,
    ready_timeout: float = 10.0,
    guild_ready_timeout: float | None = 0.05,
    fail_on_errors: bool = True,
) -> AsyncIterator[ClientT]:
    """Start ``client`` (login + gateway) in a task, wait for on_ready, close it on exit.

    discord.py waits ``guild_ready_timeout`` (default 2 s) after the last GUILD_CREATE before
    firing on_ready; this lowers it to keep tests fast (pass None to keep the client's value).
    With ``fail_on_errors``, any exception discord.py logged from bot code fails the test.
    """
    if guild_ready_timeout is not None:
        client._connection.guild_ready_timeout = guild_ready_timeout
    collector = _ErrorCollector()
    discord_logger = logging.getLogger("discord")
    discord_logger.addHandler(collector)
    task = asyncio.create_task(client.start(fake.token), name="fake-discord-client")
    try:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + ready_timeout
        while not client.is_ready():
            if task.done():
                task.result()  # re-raise the login/connect error
                raise RuntimeError("discord client stopped before becoming ready")
            if loop.time() > deadline:
                raise TimeoutError(f"discord client not ready after {ready_timeout}s")
            await asyncio.sleep(0.01)
        try:
            yield client
            await fake.settle()
        except Exception as exc:
            # The bot-side traceback usually explains a test-side timeout.
            if collector.records:
                exc.add_note(
                    "discord.py logged errors from bot code:\n" + _format(collector.records)
                )
            raise
    finally:
        await client.close()
        try:
            await asyncio.wait_for(task, 10)
        finally:
            discord_logger.removeHandler(collector)
    if fail_on_errors and collector.records:
        raise AssertionError(
            "discord.py logged errors from bot code:\n" + _format(collector.records)
        )


def _format(records: list[logging.LogRecord]) -> str:
    formatter = logging.Formatter("%(name)s: %(message)s")
    return "\n".join(formatter.format(r) for r in records)
