"""Delivery that never drops (issue 10), under fast-forwarded loop time: a channel that fails
for minutes loses nothing, the hosts are told once, and the player whose decision could not
reach them is not charged for the outage."""

from __future__ import annotations

import asyncio
from collections import defaultdict

import pytest

from bot.clock import loop_clock
from bot.delivery import Delivery
from bot.store.repository import StoredMessage
from bot.transport import UNTIL, MatchInfo, TransportError
from bot.umpire import MatchService
from tests.bot.conftest import ANN, BOB
from tests.support.driver import drive
from tests.support.memory_repo import MemoryRepository

pytestmark = pytest.mark.looptime


class FlakyTransport:
    """Refuses every send to the audiences in `down` (a sustained 429 / 5xx), records the
    rest with the loop time they went through."""

    def __init__(self) -> None:
        self.down: set[str] = set()
        self.gone: set[str] = set()  # unreachable for good (deleted channel, no access)
        self.attempts: dict[str, int] = defaultdict(int)
        self.sent: list[tuple[float, StoredMessage]] = []

    async def send(self, match: MatchInfo, message: StoredMessage) -> None:
        self.attempts[message.audience] += 1
        if message.audience in self.gone:
            raise TransportError("channel: Missing Access", permanent=True)
        if message.audience in self.down:
            raise TransportError("Discord answered 429: You are being rate limited.")
        self.sent.append((asyncio.get_running_loop().time(), message))

    def texts(self, audience: str) -> list[str]:
        return [m.text for _, m in self.sent if m.audience == audience]


async def test_a_sustained_outage_loses_nothing_and_charges_no_clock() -> None:
    repo = MemoryRepository()
    transport = FlakyTransport()
    service = MatchService(repo, transport, now=loop_clock())  # type: ignore[arg-type]
    await service.start()
    start = asyncio.get_running_loop().time()
    try:
        transport.down.add("seat1")  # Bob's table refuses everything for two minutes
        match = await service.start_match("duel", [ANN, BOB])
        await asyncio.sleep(29)
        assert (await service.submit(match.id, ANN.id, "pick 4", table_of=0)).accepted
        await asyncio.sleep(91)  # 120 s: Bob never saw his decision; it is still his to make
        assert match.state.picks == [4, None] and match.seq == 1
        assert transport.attempts["seat1"] > 5, "retried all along"
        transport.down.clear()
        await asyncio.sleep(31)  # the next retry comes within the capped backoff (30 s)
        seat1 = [(t, m) for t, m in transport.sent if m.audience == "seat1"]
        assert seat1, "delivered once the channel recovered"
        delivered = seat1[0][0] - start
        assert 120 <= delivered <= 151
        clock = match.clocks["r1:s1"]
        assert abs((clock.limit_at - clock.started_at).total_seconds() - 30) < 0.01
        # Bob's 30 s run from the delivery of his decision, not from the start of the match.
        await asyncio.sleep(start + delivered + 29 - asyncio.get_running_loop().time())
        assert match.state.picks[1] is None and match.state.round == 1
        await asyncio.sleep(2)
        assert match.state.round == 2, "his clock ran out 30 s after the decision reached him"
        await drive(service).drain()

        outbox = await repo.messages(match.id)
        for audience in ("public", "seat0", "seat1", "umpire"):
            # (as stored but for the deadlines: a late prompt shows its real one)
            assert [UNTIL.sub("{until}", t) for t in transport.texts(audience)] == \
                [UNTIL.sub("{until}", m.text) for m in outbox if m.audience == audience], audience
        assert all(m.delivered_at is not None for m in outbox)
        assert drive(service).failures == []
        told = [t for t in transport.texts("umpire") if "nothing has gone through" in t]
        assert len(told) == 1 and "the table channel of {P1}" in told[0]
        assert any("reached its channel" in t and "{P1}" in t for t in transport.texts("umpire"))
        # Ann's decision reached her at once: her clock was never moved.
        assert not any("{P0}" in t and "reached its channel" in t
                       for t in transport.texts("umpire"))
    finally:
        await service.stop()


async def test_a_failing_host_log_does_not_hold_up_the_room_or_the_tables() -> None:
    repo = MemoryRepository()
    transport = FlakyTransport()
    service = MatchService(repo, transport, now=loop_clock())  # type: ignore[arg-type]
    await service.start()
    try:
        transport.down.add("umpire")
        match = await service.start_match("duel", [ANN, BOB])
        await service.submit(match.id, ANN.id, "pick 4", table_of=0)
        await service.submit(match.id, BOB.id, "pick 2", table_of=1)
        await asyncio.sleep(1)
        outbox = await repo.messages(match.id)
        for audience in ("public", "seat0", "seat1"):
            assert transport.texts(audience) == [m.text for m in outbox
                                                 if m.audience == audience], audience
        assert transport.texts("umpire") == []
        transport.down.clear()
        await drive(service).drain()
        assert transport.texts("umpire") == [m.text for m in outbox if m.audience == "umpire"]
    finally:
        await service.stop()


async def test_a_channel_gone_for_good_does_not_hold_the_match_forever() -> None:
    """A table that cannot be reached at all (the hosts are told by the transport): its
    decision's clock runs as it was, so the match goes on."""
    repo = MemoryRepository()
    transport = FlakyTransport()
    service = MatchService(repo, transport, now=loop_clock())  # type: ignore[arg-type]
    await service.start()
    try:
        transport.gone.add("seat1")
        match = await service.start_match("duel", [ANN, BOB])
        await service.submit(match.id, ANN.id, "pick 4", table_of=0)
        await asyncio.sleep(29.5)
        assert match.state.round == 1
        await asyncio.sleep(1)
        assert match.state.round == 2, "Bob's decision timed out at 30 s as usual"
        assert transport.attempts["seat1"] >= 2 and transport.texts("seat1") == []
        assert len(drive(service).failures) == transport.attempts["seat1"]
    finally:
        await service.stop()


async def test_wake_retries_a_failing_channel_before_its_backoff_ends() -> None:
    """A held channel is tried again as soon as `wake` says something changed, not at the
    end of a long backoff (without `wake` the second try would come 60 s later)."""
    tries: list[float] = []

    class RefusesOnce:
        async def send(self, match: MatchInfo, message: StoredMessage) -> None:
            tries.append(asyncio.get_running_loop().time())
            if len(tries) == 1:
                raise TransportError("refused")

    repo = MemoryRepository()
    now = loop_clock()
    delivery = Delivery(repo, RefusesOnce(), now, backoff=60.0)
    info = MatchInfo(id=1, game="x", players=(), transport={})
    delivery.enqueue(info, StoredMessage(id=1, match_id=1, seq=1, audience="public",
                                         text="hi", payload={}, created_at=now()))
    await asyncio.sleep(0.05)
    assert len(tries) == 1
    delivery.wake(1)
    await asyncio.wait_for(delivery.drain(), 2.0)
    assert len(tries) == 2 and tries[1] - tries[0] < 1.0
    await delivery.stop()


async def test_delivery_tells_which_channels_are_sending_and_down_and_when_it_is_idle() -> None:
    """The public reads the tests' driver uses (tests/support/driver.py): a failing channel
    is sending and down, a working one only sending until its message went; once everything
    went, delivery is idle and keeps no channel."""
    transport = FlakyTransport()
    transport.down.add("seat1")
    now = loop_clock()
    delivery = Delivery(MemoryRepository(), transport, now, backoff=10.0, max_backoff=10.0)
    info = MatchInfo(id=7, game="x", players=(), transport={})
    assert delivery.idle and delivery.channels() == set() and delivery.channels_down() == set()
    for number, audience in enumerate(("public", "seat1"), start=1):
        delivery.enqueue(info, StoredMessage(id=number, match_id=7, seq=1, audience=audience,
                                             text="hi", payload={}, created_at=now()))
    assert not delivery.idle and delivery.channels() == {(7, "public"), (7, "seat1")}
    await asyncio.sleep(1)
    assert not delivery.idle
    assert delivery.channels() == {(7, "seat1")} and delivery.channels_down() == {(7, "seat1")}
    transport.down.clear()
    delivery.wake(7)
    await asyncio.wait_for(delivery.drain(), 2.0)
    assert delivery.idle and delivery.channels() == set() and delivery.channels_down() == set()
    assert transport.texts("seat1") == ["hi"]
    await delivery.stop()
