"""The bot paces its REST requests under Discord's limits before sending them
(bot/discord/pacing.py): discord.py learns of the global limit only from a 429, and lets
too many through at a bucket's reset when many requests wait on it."""

from __future__ import annotations

import asyncio
import time
from types import SimpleNamespace

import discord
import yarl

from bot.discord.pacing import Pacer, bucket_key
from testbed.fake_discord.harness import running_client
from testbed.fake_discord.limits import RateLimits
from testbed.fake_discord.server import FakeDiscord
from tests.support.fake_world import World, make_bot, world  # noqa: F401


async def burst(fake: FakeDiscord, world: World, pacer: Pacer | None) -> float:  # noqa: F811
    """20 messages at once, one in each of 20 channels (no route bucket binds), under a
    global limit of 8 requests per second; returns how long they took."""
    fake.limits = RateLimits(global_per_second=8)
    channels = [fake.add_text_channel(world.guild, f"c{i}") for i in range(20)]
    bot = make_bot()
    if pacer is not None:
        pacer.install(bot.http)
    async with running_client(bot, fake):
        await asyncio.sleep(1.1)  # the login's requests out of the window
        fake.limits.limited = 0
        began = time.monotonic()
        sent = [bot.get_channel(c.id) for c in channels]
        assert all(isinstance(c, discord.TextChannel) for c in sent)
        await asyncio.gather(*(c.send("x") for c in sent))  # type: ignore[union-attr]
        took = time.monotonic() - began
    assert all(len(fake.messages(c)) == 1 for c in channels)
    return took


async def test_a_burst_over_the_global_limit_waits_instead_of_getting_429s(
        fake_discord: FakeDiscord, world: World) -> None:  # noqa: F811
    pacer = Pacer(per_second=7)
    took = await burst(fake_discord, world, pacer)
    assert fake_discord.limits.limited == 0
    assert pacer.waits > 0 and took >= 2.0  # 20 requests at 7 per second


async def test_without_the_pacer_discord_py_meets_the_global_limit_as_429s(
        fake_discord: FakeDiscord, world: World) -> None:  # noqa: F811
    """The reason for the pacer: the same burst through discord.py alone."""
    await burst(fake_discord, world, None)
    assert fake_discord.limits.refused["global"] > 0


async def test_interaction_callbacks_are_not_paced() -> None:
    pacer = Pacer(per_second=1, window=60.0)
    await pacer.wait()  # the window is full now
    began = time.monotonic()

    for path in ("/api/v10/interactions/1/token/callback", "/api/v10/webhooks/1/token"):
        params = SimpleNamespace(method="POST", url=yarl.URL(f"http://discord{path}"))
        await pacer._on_request_start(None, SimpleNamespace(), params)  # type: ignore[arg-type]
    assert time.monotonic() - began < 0.5
    paced = asyncio.create_task(pacer._on_request_start(  # type: ignore[arg-type]
        None, SimpleNamespace(), SimpleNamespace(
            method="POST", url=yarl.URL("http://discord/api/v10/channels/1/messages"))))
    await asyncio.sleep(0.2)
    assert not paced.done()  # any other request waits
    paced.cancel()


async def test_a_request_waits_while_its_bucket_has_nothing_left() -> None:
    """Discord answered a bucket's last request (remaining 0, reset in 0.3 s): the next
    requests on it wait for the reset, then only as many go as the bucket holds until
    Discord answers again; another bucket is not held."""
    pacer = Pacer()
    key, other = bucket_key("POST", "/guilds/1/channels"), bucket_key("POST", "/guilds/2/channels")
    await pacer.take(key)
    pacer.answered(key, {"X-RateLimit-Limit": "2", "X-RateLimit-Remaining": "0",
                         "X-RateLimit-Reset-After": "0.3"})
    began = time.monotonic()
    await pacer.take(other)
    assert time.monotonic() - began < 0.1
    takes = [asyncio.create_task(pacer.take(key)) for _ in range(4)]
    await asyncio.sleep(0.2)
    assert not any(t.done() for t in takes)  # before the reset: none
    await asyncio.sleep(0.2)
    assert sum(t.done() for t in takes) == 2  # after it: the bucket's 2, no more
    assert pacer.bucket_waits == 4
    for _ in range(2):  # Discord answers them: a new window with 2 left
        pacer.answered(key, {"X-RateLimit-Limit": "2", "X-RateLimit-Remaining": "2",
                             "X-RateLimit-Reset-After": "1"})
    await asyncio.sleep(0.1)
    assert all(t.done() for t in takes)
    pacer.answered(key, None)  # a request that failed on the way is no longer in flight
    assert pacer._buckets[key].inflight == 1


def test_a_bucket_is_its_route_and_major_id() -> None:
    assert bucket_key("POST", "/channels/1/messages") != bucket_key("POST", "/channels/2/messages")
    assert bucket_key("PATCH", "/channels/1/messages/11") == \
        bucket_key("PATCH", "/channels/1/messages/12")
    assert bucket_key("POST", "/webhooks/1/a/messages") != \
        bucket_key("POST", "/webhooks/1/b/messages")


async def test_a_busy_event_loop_does_not_slow_the_pace() -> None:
    """Each request takes its slot at once: a loop that wakes the sleepers late (here a task
    holding it 20 ms at a time) does not push the later slots back."""
    pacer = Pacer(per_second=100)
    stop = asyncio.Event()

    async def hog() -> None:
        while not stop.is_set():
            time.sleep(0.02)  # noqa: ASYNC251 (the point: the loop is busy)
            await asyncio.sleep(0)

    busy = asyncio.create_task(hog())
    began = time.monotonic()
    await asyncio.gather(*(pacer.wait() for _ in range(150)))  # 1.5 s at 100 a second
    took = time.monotonic() - began
    stop.set()
    await busy
    assert 1.4 <= took < 2.5  # one request a turn of the loop would take 3 s


async def test_after_the_loop_was_held_the_waiting_requests_do_not_go_at_once() -> None:
    """The slots that ended while the loop was held do not all go when it is free: never
    more than `per_second` in a second."""
    pacer = Pacer(per_second=10)
    released: list[float] = []

    async def one() -> None:
        await pacer.wait()
        released.append(time.monotonic())

    tasks = [asyncio.create_task(one()) for _ in range(30)]
    await asyncio.sleep(0)  # each takes its slot
    time.sleep(1.5)  # noqa: ASYNC251 (the loop held: 15 slots end meanwhile)
    await asyncio.gather(*tasks)
    assert max(sum(1 for u in released if 0 <= u - t < 0.99) for t in released) <= 10
