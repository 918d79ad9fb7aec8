"""A SIGTERM during the start (before the Discord client exists) still stops `umpire run`
cleanly: the client is closed as soon as it is attached, after the outbox is delivered."""

from __future__ import annotations

import asyncio
import os
import signal

from bot.discord.runner import Stopper


class Delivery:
    def __init__(self) -> None:
        self.drained = False

    async def drain(self) -> None:
        self.drained = True


class Service:
    def __init__(self) -> None:
        self.delivery = Delivery()


class Client:
    def __init__(self) -> None:
        self.closed = asyncio.Event()

    async def close(self) -> None:
        self.closed.set()


async def test_a_signal_before_the_client_exists_closes_it_when_attached() -> None:
    loop = asyncio.get_running_loop()
    service = Service()
    stopper = Stopper(service)
    try:
        os.kill(os.getpid(), signal.SIGTERM)
        for _ in range(100):
            if stopper.requested:
                break
            await asyncio.sleep(0.01)
        assert stopper.requested  # handled: the test process is still here
        client = Client()
        stopper.attach(client)  # type: ignore[arg-type]
        await asyncio.wait_for(client.closed.wait(), 5)
        assert service.delivery.drained
    finally:
        for signum in (signal.SIGTERM, signal.SIGINT):
            loop.remove_signal_handler(signum)


async def test_no_signal_no_stop() -> None:
    loop = asyncio.get_running_loop()
    stopper = Stopper(Service())
    try:
        client = Client()
        stopper.attach(client)  # type: ignore[arg-type]
        await asyncio.sleep(0.05)
        assert not client.closed.is_set() and not stopper.requested
    finally:
        for signum in (signal.SIGTERM, signal.SIGINT):
            loop.remove_signal_handler(signum)


def test_the_gateway_counts_as_connected_only_while_its_socket_is_open() -> None:
    from types import SimpleNamespace

    from bot.discord.runner import gateway_open

    ready = asyncio.Event()
    bot = SimpleNamespace(ws=SimpleNamespace(open=True), is_closed=lambda: False)
    assert not gateway_open(bot, ready)  # type: ignore[arg-type]  # not logged in yet
    ready.set()
    assert gateway_open(bot, ready)  # type: ignore[arg-type]
    bot.ws.open = False  # dropped: discord.py is reconnecting
    assert not gateway_open(bot, ready)  # type: ignore[arg-type]
    bot.ws = None
    assert not gateway_open(bot, ready)  # type: ignore[arg-type]
