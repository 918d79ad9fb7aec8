"""The token's global budget shared by priority (issue 40, bot/discord/pacing.py): when it is
short, a decision's prompt goes before room announcements and those before the host log,
and within a class the servers take turns, so a busy server never delays another server's
prompt. Each request goes through the pacer's aiohttp hook, its class and server told by
`sending` as the transport tells them; the assertions are on the order of release."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace

import yarl

from bot.discord.pacing import Pacer, Priority, sending

CHANNEL = 0


def request(pacer: Pacer, order: list[str], name: str, priority: Priority,
            server: int) -> asyncio.Task[None]:
    """A post to a channel of its own (no bucket binds), from a task of its own."""
    global CHANNEL
    CHANNEL += 1
    url = yarl.URL(f"http://discord/api/v10/channels/{CHANNEL}/messages")

    async def post() -> None:
        with sending(priority, server):
            await pacer._on_request_start(  # type: ignore[arg-type]
                None, SimpleNamespace(), SimpleNamespace(method="POST", url=url))
        order.append(name)

    return asyncio.create_task(post())


async def spend(pacer: Pacer) -> None:
    """Take the next slot, so that what follows has to wait in line."""
    await pacer.wait()


async def test_prompts_go_before_log_entries_when_the_budget_is_short() -> None:
    pacer = Pacer(per_second=20)  # a slot every 50 ms
    order: list[str] = []
    await spend(pacer)
    tasks = [request(pacer, order, f"log{i}", Priority.LOG, 1) for i in range(6)]
    tasks += [request(pacer, order, f"room{i}", Priority.ROOM, 1) for i in range(2)]
    await asyncio.sleep(0)  # all of those wait in line first
    tasks += [request(pacer, order, "prompt", Priority.PROMPT, 1)]
    await asyncio.gather(*tasks)
    # the first log entry may have had the slot before the prompt asked; nothing else
    assert order.index("prompt") <= 1, order
    assert order.index("room0") < order.index("log2") and order.index("room1") < \
        order.index("log2"), order
    assert pacer.waited[Priority.LOG] > pacer.waited[Priority.PROMPT]


async def test_a_busy_servers_host_log_never_delays_another_servers_prompt() -> None:
    """Server 1 has 30 log posts and 10 prompts waiting; server 2's one prompt, asked
    after them all, goes within two slots (the servers take turns among the prompts)."""
    pacer = Pacer(per_second=20)
    order: list[str] = []
    await spend(pacer)
    tasks = [request(pacer, order, f"log{i}", Priority.LOG, 1) for i in range(30)]
    tasks += [request(pacer, order, f"busy{i}", Priority.PROMPT, 1) for i in range(10)]
    await asyncio.sleep(0)
    tasks += [request(pacer, order, "other", Priority.PROMPT, 2)]
    await asyncio.gather(*tasks)
    assert order.index("other") <= 2, order
    assert all(order.index(f"busy{i}") < order.index("log1") for i in range(10)), order


async def test_a_slot_taken_ahead_is_kept_for_the_posts_request() -> None:
    """`turn` (Delivery, before it builds a post) takes a slot in line; the task's next
    request then goes at once, not in line a second time behind what queued since."""
    pacer = Pacer(per_second=20)
    order: list[str] = []
    await spend(pacer)

    async def poster() -> None:
        await pacer.turn(Priority.ROOM, 1)
        order.append("turn")
        await asyncio.sleep(0.01)  # building the post: the others wait in line meanwhile
        await request(pacer, order, "post", Priority.ROOM, 1)  # (a task copies the grant)

    mine = asyncio.create_task(poster())
    await asyncio.sleep(0)
    tasks = [request(pacer, order, f"log{i}", Priority.LOG, 2) for i in range(10)]
    await asyncio.gather(*tasks, mine)
    assert order[:2] == ["turn", "post"], order
    assert len(order) == 12


async def test_a_short_budget_does_not_starve_the_host_log() -> None:
    """Prompts enough for a second of slots, then one log post: the post goes
    once it has waited its class's patience (5 windows: 0.5 s here), not after them all."""
    pacer = Pacer(per_second=20, window=0.1)  # a slot every 5 ms
    order: list[str] = []
    await spend(pacer)
    tasks = [request(pacer, order, f"prompt{i}", Priority.PROMPT, 2) for i in range(200)]
    await asyncio.sleep(0)  # they wait in line first
    tasks += [request(pacer, order, "log", Priority.LOG, 1)]
    await asyncio.gather(*tasks)
    assert 50 < order.index("log") < 150, order.index("log")
