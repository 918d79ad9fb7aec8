"""Folding under rate limits (issue 33): a post that its channel's own rate limit holds takes
what the channel queues meanwhile (one request, not several, and no later than the first
would have gone), and an announcement's fold wait does not count the time its match's room
is held, up to `FOLD_MOST` times the wait. Delivery alone, on a transport that says which
channels are held, under fast-forwarded loop time."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from bot.clock import loop_clock
from bot.delivery import FOLD_MOST, Delivery
from bot.discord.transport import folded
from bot.store.repository import StoredMessage
from bot.transport import MatchInfo
from tests.support.memory_repo import MemoryRepository

pytestmark = pytest.mark.looptime

FOLD = 1.0
INFO = MatchInfo(id=1, game="x", players=(), transport={})


class HeldTransport:
    """Posts recorded as (loop time, audience, texts); `held[audience]` is the loop time until
    which that channel's rate limit holds its posts."""

    def __init__(self) -> None:
        self.held: dict[str, float] = {}
        self.posts: list[tuple[float, str, list[str]]] = []

    def fold_seconds(self, audience: str) -> float:
        return FOLD if audience != "umpire" else 0.0

    def held_for(self, match: MatchInfo, audience: str) -> float:
        return max(0.0, self.held.get(audience, 0.0) - asyncio.get_running_loop().time())

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


async def test_a_held_channel_posts_what_it_queued_meanwhile_at_once() -> None:
    transport, delivery, outbox, start = await setup()
    transport.held["public"] = start + 3.0  # the room's 5 posts of its window are spent
    outbox.add("public", "A")  # decisions: never held back to fold, but the limit holds them
    await asyncio.sleep(1)
    outbox.add("public", "B")
    await asyncio.sleep(1)
    outbox.add("public", "C")
    await asyncio.wait_for(delivery.drain(), 10)
    assert [(round(t - start, 1), texts) for t, _, texts in transport.posts] == \
        [(3.0, ["A", "B", "C"])]  # one request, when A could first have gone anyway
    await delivery.stop()


async def test_a_channel_not_held_posts_a_decision_at_once() -> None:
    transport, delivery, outbox, start = await setup()
    outbox.add("public", "A")
    await asyncio.sleep(1)
    outbox.add("public", "B")
    await asyncio.wait_for(delivery.drain(), 10)
    assert [(round(t - start, 1), texts) for t, _, texts in transport.posts] == \
        [(0.0, ["A"]), (1.0, ["B"])]
    await delivery.stop()


async def test_a_table_announcement_waits_out_its_rooms_hold() -> None:
    """The room is held for 0.8 s: the table's announcement (fold wait 1 s) still waits for
    the table's next message 1.5 s later, then goes with it."""
    transport, delivery, outbox, start = await setup()
    transport.held["public"] = start + 0.8
    outbox.add("seat0", "your pool", announcement=True)
    await asyncio.sleep(1.5)
    outbox.add("seat0", "your decision")
    await asyncio.wait_for(delivery.drain(), 10)
    assert [(round(t - start, 1), a, texts) for t, a, texts in transport.posts] == \
        [(pytest.approx(1.5, abs=0.1), "seat0", ["your pool", "your decision"])]
    await delivery.stop()


async def test_an_announcement_waits_at_most_fold_most_times_its_wait() -> None:
    transport, delivery, outbox, start = await setup()
    transport.held["public"] = start + 100  # a room held for long
    outbox.add("seat0", "your pool", announcement=True)
    await asyncio.sleep(10)
    outbox.add("seat0", "your decision")
    await asyncio.wait_for(delivery.drain(), 10)
    assert [(round(t - start, 1), texts) for t, _, texts in transport.posts] == \
        [(pytest.approx(FOLD * FOLD_MOST, abs=0.1), ["your pool"]), (10.0, ["your decision"])]
    await delivery.stop()


async def test_a_room_announcement_does_not_wait_for_a_held_table() -> None:
    """The room's fold depends on the room alone: a held table (a player's secret traffic)
    changes nothing there."""
    transport, delivery, outbox, start = await setup()
    transport.held["seat1"] = start + 100
    outbox.add("public", "bob has chosen", announcement=True)
    await asyncio.wait_for(delivery.drain(), 10)
    assert [(round(t - start, 1), texts) for t, _, texts in transport.posts] == \
        [(FOLD, ["bob has chosen"])]
    await delivery.stop()


async def test_the_pacer_knows_how_long_a_spent_bucket_holds() -> None:
    from bot.discord.pacing import Pacer

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


async def test_announcements_in_a_row_wait_no_longer_than_the_first_while_nothing_is_held(
        ) -> None:
    """Nothing held: the first announcement's wait is all; the second, 0.8 s later, goes
    with it at 1 s, and the decision at 1.6 s on its own."""
    transport, delivery, outbox, start = await setup()
    outbox.add("seat0", "you kept your hand", announcement=True)
    await asyncio.sleep(0.8)
    outbox.add("seat0", "your tanks now", announcement=True)
    await asyncio.sleep(0.8)
    outbox.add("seat0", "your decision")
    await asyncio.wait_for(delivery.drain(), 10)
    assert [(round(t - start, 1), texts) for t, _, texts in transport.posts] == [
        (pytest.approx(1.0, abs=0.1), ["you kept your hand", "your tanks now"]),
        (pytest.approx(1.6, abs=0.1), ["your decision"])]
    await delivery.stop()


async def test_an_announcement_taken_while_the_room_is_held_waits_in_turn() -> None:
    """The room is held from 0.7 s to 1.0 s; the second announcement, taken at 0.8 s while
    it is held, waits its own second: the decision at 1.7 s joins them."""
    transport, delivery, outbox, start = await setup()
    outbox.add("seat0", "you kept your hand", announcement=True)
    await asyncio.sleep(0.7)
    transport.held["public"] = start + 1.0
    await asyncio.sleep(0.1)
    outbox.add("seat0", "your tanks now", announcement=True)
    await asyncio.sleep(0.9)
    outbox.add("seat0", "your decision")
    await asyncio.wait_for(delivery.drain(), 10)
    assert [(round(t - start, 1), texts) for t, _, texts in transport.posts] == [
        (pytest.approx(1.7, abs=0.15), ["you kept your hand", "your tanks now", "your decision"])]
    await delivery.stop()


async def test_a_resend_of_an_earlier_process_is_posted_on_its_own() -> None:
    """A message committed before this process started may have been posted by it: it goes
    alone (the transport looks for it in its channel), never merged with what follows."""
    from datetime import timedelta

    transport, delivery, outbox, start = await setup()
    transport.held["public"] = start + 2.0
    delivery.enqueue(INFO, StoredMessage(
        id=99, match_id=1, seq=99, audience="public", text="resent", payload={"fold": True},
        created_at=outbox.now() - timedelta(seconds=30)))
    outbox.add("public", "new")
    await asyncio.wait_for(delivery.drain(), 10)
    assert [texts for _, _, texts in transport.posts] == [["resent"], ["new"]]
    await delivery.stop()
