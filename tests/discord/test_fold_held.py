"""Coalescing that waits only when it must (issue 40): a channel with room in its rate limits
posts at once, with no fixed wait; what queues behind a limit (the channel's own bucket, or
the token's global budget) is folded into the post that waits, one request at the moment the
first could have gone. Delivery with the bot's own transport policy (`DiscordTransport`: which
audiences coalesce), its posts recorded and its limits simulated, under fast-forwarded loop
time."""

from __future__ import annotations

import asyncio
from datetime import timedelta
from types import SimpleNamespace
from typing import Any

import pytest

from bot.clock import loop_clock
from bot.delivery import Delivery
from bot.discord.pacing import Pacer, bucket_key
from bot.discord.transport import DiscordTransport, folded
from bot.store.repository import StoredMessage
from bot.transport import MatchInfo
from tests.support.memory_repo import MemoryRepository

pytestmark = pytest.mark.looptime

INFO = MatchInfo(id=1, game="x", players=(), transport={})


class HeldTransport(DiscordTransport):
    """The bot's transport with its posts recorded as (loop time, audience, texts):
    `held[audience]` is the loop time until which that channel's own rate limit holds its
    posts, `global_until` the loop time from which the token's global budget has a slot."""

    def __init__(self) -> None:
        super().__init__()
        self.held: dict[str, float] = {}
        self.global_until = 0.0
        self.posts: list[tuple[float, str, list[str]]] = []

    def held_for(self, match: MatchInfo, audience: str,
                 messages: list[StoredMessage] | None = None) -> float:
        return max(0.0, self.held.get(audience, 0.0) - asyncio.get_running_loop().time())

    async def turn(self, match: MatchInfo, messages: list[StoredMessage]) -> None:
        await asyncio.sleep(max(0.0, self.global_until - asyncio.get_running_loop().time()))

    async def send(self, match: MatchInfo, message: StoredMessage) -> None:
        self.posts.append((asyncio.get_running_loop().time(), message.audience,
                           message.text.split("\n")))

    async def send_many(self, match: MatchInfo, messages: list[StoredMessage]) -> None:
        await self.send(match, folded(messages))


class Outbox:
    def __init__(self, delivery: Delivery) -> None:
        self.delivery, self.now, self.next_id = delivery, loop_clock(), 1

    def add(self, audience: str, text: str, *, announcement: bool = False) -> None:
        payload: dict[str, Any] = {"fold": True} if announcement else \
            {"prompts": [{"key": text, "seat": 0, "kind": "k", "choices": []}]}
        self.delivery.enqueue(INFO, StoredMessage(
            id=self.next_id, match_id=1, seq=self.next_id, audience=audience, text=text,
            payload=payload, created_at=self.now()))
        self.next_id += 1


async def setup() -> tuple[HeldTransport, Delivery, Outbox, float]:
    transport = HeldTransport()
    delivery = Delivery(MemoryRepository(), transport, loop_clock())  # type: ignore[arg-type]
    return transport, delivery, Outbox(delivery), asyncio.get_running_loop().time()


def timeline(transport: HeldTransport, start: float) -> list[tuple[float, list[str]]]:
    return [(round(t - start, 1), texts) for t, _, texts in transport.posts]


async def test_an_announcement_with_budget_is_posted_at_once() -> None:
    """Nothing held: the table's announcement goes at once, not after a fold wait (the old
    3 s), and the decision after it goes on its own when it comes."""
    transport, delivery, outbox, start = await setup()
    outbox.add("seat0", "you kept your hand", announcement=True)
    await asyncio.sleep(0.8)
    outbox.add("seat0", "your decision")
    await asyncio.wait_for(delivery.drain(), 10)
    assert timeline(transport, start) == [(0.0, ["you kept your hand"]),
                                          (0.8, ["your decision"])]
    await delivery.stop()


async def test_a_held_channel_posts_what_it_queued_meanwhile_at_once() -> None:
    transport, delivery, outbox, start = await setup()
    transport.held["public"] = start + 3.0  # the room's 5 posts of its window are spent
    outbox.add("public", "A")
    await asyncio.sleep(1)
    outbox.add("public", "B", announcement=True)
    await asyncio.sleep(1)
    outbox.add("public", "C")
    await asyncio.wait_for(delivery.drain(), 10)
    assert timeline(transport, start) == [(3.0, ["A", "B", "C"])]  # one request, when A
    await delivery.stop()  # could first have gone anyway


async def test_posts_queued_behind_the_global_budget_are_folded_into_one() -> None:
    """The token's global budget has no slot for 2 s (other servers' posts): the room's
    decision waits for its slot and takes what the room queued meanwhile."""
    transport, delivery, outbox, start = await setup()
    transport.global_until = start + 2.0
    outbox.add("public", "A")
    await asyncio.sleep(0.5)
    outbox.add("public", "B", announcement=True)
    await asyncio.sleep(0.5)
    outbox.add("public", "C")
    await asyncio.wait_for(delivery.drain(), 10)
    assert timeline(transport, start) == [(2.0, ["A", "B", "C"])]
    await delivery.stop()


async def test_a_channel_not_held_posts_a_decision_at_once() -> None:
    transport, delivery, outbox, start = await setup()
    outbox.add("public", "A")
    await asyncio.sleep(1)
    outbox.add("public", "B")
    await asyncio.wait_for(delivery.drain(), 10)
    assert timeline(transport, start) == [(0.0, ["A"]), (1.0, ["B"])]
    await delivery.stop()


async def test_a_table_announcement_does_not_wait_for_its_held_room() -> None:
    """Only the channel's own limits count: a held room keeps no table post back."""
    transport, delivery, outbox, start = await setup()
    transport.held["public"] = start + 100
    outbox.add("seat0", "your pool", announcement=True)
    await asyncio.wait_for(delivery.drain(), 10)
    assert timeline(transport, start) == [(0.0, ["your pool"])]
    await delivery.stop()


async def test_a_resend_of_an_earlier_process_is_posted_on_its_own() -> None:
    """A message committed before this process started may have been posted by it: it goes
    alone (the transport looks for it in its channel), never merged with what follows."""
    transport, delivery, outbox, start = await setup()
    transport.held["public"] = start + 2.0
    delivery.enqueue(INFO, StoredMessage(
        id=99, match_id=1, seq=99, audience="public", text="resent", payload={"fold": True},
        created_at=outbox.now() - timedelta(seconds=30)))
    outbox.add("public", "new")
    await asyncio.wait_for(delivery.drain(), 10)
    assert [texts for _, _, texts in transport.posts] == [["resent"], ["new"]]
    await delivery.stop()


async def test_the_pacer_knows_how_long_a_spent_bucket_holds() -> None:
    pacer = Pacer()
    key = "POST /channels/1/messages"
    assert pacer.held_for(key) == 0.0  # never used: not known to be held
    await pacer.take(key)
    pacer.answered(key, {"X-RateLimit-Limit": "5", "X-RateLimit-Remaining": "1",
                         "X-RateLimit-Reset-After": "2.0"})
    assert pacer.held_for(key) == 0.0  # one left
    await pacer.take(key)  # in flight: the last one
    assert pacer.held_for(key) == pytest.approx(2.0, abs=0.01)
    pacer.answered(key, {"X-RateLimit-Limit": "5", "X-RateLimit-Remaining": "0",
                         "X-RateLimit-Reset-After": "2.0"})
    await asyncio.sleep(1.5)
    assert pacer.held_for(key) == pytest.approx(0.5, abs=0.01)
    await asyncio.sleep(0.6)
    assert pacer.held_for(key) == 0.0  # reset


async def test_the_last_post_of_a_channels_window_is_kept_for_a_decision() -> None:
    """One post left in the room's window: an announcement waits for the reset (and takes
    what queues meanwhile), a decision takes it."""
    transport = DiscordTransport()
    transport.client = SimpleNamespace()  # type: ignore[assignment]
    key = bucket_key("POST", "/channels/5/messages")
    await transport.pacer.take(key)
    transport.pacer.answered(key, {"X-RateLimit-Limit": "5", "X-RateLimit-Remaining": "1",
                                   "X-RateLimit-Reset-After": "2.0"})
    info = MatchInfo(id=1, game="x", players=(), transport={"room": 5})
    now = loop_clock()()

    def message(payload: dict[str, Any]) -> StoredMessage:
        return StoredMessage(id=1, match_id=1, seq=1, audience="public", text="t",
                             payload=payload, created_at=now)

    announcement = message({"fold": True})
    decision = message({"prompts": [{"key": "k", "seat": 0, "kind": "k", "choices": []}]})
    assert transport.held_for(info, "public", [announcement]) == pytest.approx(2.0, abs=0.01)
    assert transport.held_for(info, "public", [announcement, decision]) == 0.0
    assert transport.held_for(info, "public", [decision]) == 0.0
