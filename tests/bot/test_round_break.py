"""The break between Devil's Deal rounds through the real match service, under fast-forwarded
loop time (seed, Timing: "After every round, there is a break of at least 20 seconds";
ruling: break between rounds 20 s, a setting).

The round-end message says the next round starts after a 20-second break, and it does: the
next round's first decision is posted only when the break is over, no decision clock runs
during it (the 20 s refill clock starts at the end of the break), and a move typed during the
break is refused without being applied.
"""

from __future__ import annotations

import asyncio
import random

import pytest

from bot.clock import loop_clock
from bot.umpire import MatchService
from tests.bot.conftest import ANN, BOB
from tests.support.driver import drive
from tests.support.memory_repo import MemoryRepository
from tests.support.transport import RecordingTransport

pytestmark = pytest.mark.looptime


async def _to_round_end(service, match) -> None:
    """Round 1: Ann starts, nobody refills, both choose private cards, Ann folds."""
    players = (ANN, BOB)
    assert (await service.submit(match.id, ANN.id, "me")).accepted
    assert (await service.submit(match.id, ANN.id, "no")).accepted
    assert (await service.submit(match.id, BOB.id, "no")).accepted
    rng = random.Random(0)
    for prompt in list(match.prompts):
        command = match.game.random_command(match.state, prompt, rng)
        text = f"{command.first} {command.second}"
        reply = await service.submit(match.id, players[prompt.seat].id, text, table_of=prompt.seat)
        assert reply.accepted, reply.message
    assert [p.kind for p in match.prompts] == ["bet"]
    assert (await service.submit(match.id, ANN.id, "fold")).accepted


async def _public(service, transport, match) -> list[str]:
    await drive(service).drain()
    return transport.texts(match.id, "public")


def _offers(texts: list[str]) -> list[str]:
    """Refill offers posted in round 2 (after the round-end message)."""
    end = max(i for i, t in enumerate(texts) if "Round 1 is over" in t)
    return [t for t in texts[end:] if "your decision: Refill?" in t]


async def test_the_next_round_starts_after_the_announced_break(memory_service):
    service, transport, _ = memory_service
    match = await service.start_match("devils-deal", [ANN, BOB], seed="break")
    await _to_round_end(service, match)
    assert match.state.round == 2 and match.state.starter == 1
    [offer] = match.prompts
    assert (offer.seat, offer.kind) == (1, "refill_offer")
    room = await _public(service, transport, match)
    assert "starts the next round after a 20-second break" in room[-1]
    assert "your decision" not in room[-1], "round 2's decision must wait for the break"

    # During the break a move is refused and nothing is applied; no clock runs.
    seq = match.seq
    reply = await service.submit(match.id, BOB.id, "yes")
    assert not reply.accepted and "break between rounds" in reply.message
    assert match.seq == seq
    await asyncio.sleep(19.5)
    assert not _offers(await _public(service, transport, match))

    # The break ends: the refill offer is posted with its full 20 s clock.
    await asyncio.sleep(1)
    posted = _offers(await _public(service, transport, match))
    assert len(posted) == 1 and "{P1}, your decision" in posted[0]
    await asyncio.sleep(19)
    assert match.state.offer_seat == 1 and match.seq == seq, "20 s to answer, from the break's end"
    await asyncio.sleep(1)
    assert match.state.offer_seat == 0, "Bob's refill offer timed out (no refill) 20 s after the break"


async def test_a_move_right_after_the_break_is_accepted(memory_service):
    service, _, _ = memory_service
    match = await service.start_match("devils-deal", [ANN, BOB], seed="break")
    await _to_round_end(service, match)
    await asyncio.sleep(20.5)
    reply = await service.submit(match.id, BOB.id, "no")
    assert reply.accepted, reply.message
    assert match.state.offer_seat == 0


async def test_hosts_pausing_during_the_break_extend_it(memory_service):
    service, transport, _ = memory_service
    match = await service.start_match("devils-deal", [ANN, BOB], seed="break")
    await _to_round_end(service, match)
    await asyncio.sleep(10)
    await service.pause(match.id)
    await asyncio.sleep(300)
    await service.resume(match.id)
    await asyncio.sleep(9.5)
    assert not _offers(await _public(service, transport, match))
    await asyncio.sleep(1)
    assert _offers(await _public(service, transport, match))


async def test_the_break_survives_a_restart():
    """Time the bot is down is never charged: a break cut by a restart goes on afterwards with
    the time it had left, and its decision is posted (once) when it ends."""
    repo = MemoryRepository()
    clock = loop_clock()
    service = MatchService(repo, RecordingTransport(), now=clock)  # type: ignore[arg-type]
    await service.start()
    match = await service.start_match("devils-deal", [ANN, BOB], seed="break")
    await _to_round_end(service, match)
    await asyncio.sleep(5.5)  # a heartbeat at 5 s: 15 s of the break are left
    await service.stop()
    await asyncio.sleep(100)  # the bot is down
    transport = RecordingTransport()
    again = MatchService(repo, transport, now=clock)  # type: ignore[arg-type]
    await again.start()
    try:
        live = again.matches[match.id]
        assert not (await again.submit(match.id, BOB.id, "no")).accepted
        await asyncio.sleep(14.5)
        await drive(again).drain()
        assert not [t for t in transport.texts(match.id, "public") if "Refill?" in t]
        await asyncio.sleep(1)
        await drive(again).drain()
        assert len([t for t in transport.texts(match.id, "public") if "Refill?" in t]) == 1
        assert (await again.submit(match.id, BOB.id, "no")).accepted
        assert live.state.offer_seat == 0
    finally:
        await again.stop()


async def test_no_break_between_two_built_in_bots(memory_service):
    """A break is for the people at the table: a bots-only match (the demo) goes straight on."""
    from bot.transport import PlayerRef

    service, _, _ = memory_service
    bots = [PlayerRef("bot:a", "A", bot="random"), PlayerRef("bot:b", "B", bot="random")]
    match = await service.start_match("devils-deal", bots, seed="no-break")
    await service.wait_finished([match.id], timeout=5)  # loop time: no 20 s breaks waited
    assert match.status == "finished" and match.state.round >= 2
    assert not any(c.status == "break" for c in match.clocks.values())
