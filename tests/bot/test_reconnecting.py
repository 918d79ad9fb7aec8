"""`reconnecting`: a server out of reach is tried again for a while, then refused in words;
any other error goes through at once."""

from __future__ import annotations

import asyncio

import asyncpg
import pytest

from bot.store.database import reconnecting, unreachable
from bot.store.errors import StoreUnavailable


async def test_an_unreachable_server_is_tried_again_then_refused():
    loop = asyncio.get_running_loop()
    tries: list[float] = []

    async def refused() -> None:
        tries.append(loop.time())
        raise ConnectionRefusedError(111, "Connect call failed")

    with pytest.raises(StoreUnavailable, match="cannot be reached"):
        await reconnecting(refused, wait=0.6)
    assert len(tries) >= 3 and 0.5 <= tries[-1] - tries[0] <= 0.8


async def test_a_server_back_within_the_wait_is_not_noticed():
    answers = [asyncpg.CannotConnectNowError("the database system is starting up")] * 2

    async def starting() -> str:
        if answers:
            raise answers.pop()
        return "stored"

    assert await reconnecting(starting, wait=2) == "stored"


async def test_a_statement_the_server_refuses_is_not_retried():
    tries = 0

    async def unique() -> None:
        nonlocal tries
        tries += 1
        raise asyncpg.UniqueViolationError("duplicate key")

    with pytest.raises(asyncpg.UniqueViolationError):
        await reconnecting(unique, wait=2)
    assert tries == 1
    assert not unreachable(asyncpg.UniqueViolationError("duplicate key"))
    assert unreachable(asyncpg.AdminShutdownError("terminating connection"))
