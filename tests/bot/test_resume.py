"""Resume after a restart: running matches come back in batches, with the event loop free
between them; ended matches are not rebuilt, yet what they still owe is delivered."""

from __future__ import annotations

import asyncio
import random

from bot.service import resume as resume_module
from bot.store.database import create_engine
from bot.store.repository import Repository
from bot.transport import PlayerRef
from bot.umpire import MatchService
from tests.support.driver import drive
from tests.support.transport import HeldTransport, RecordingTransport


def _players(i: int) -> list[PlayerRef]:
    return [PlayerRef(f"a{i}", "A"), PlayerRef(f"b{i}", "B")]


async def test_running_matches_resume_in_batches_and_ended_ones_stay_unloaded(db_url, monkeypatch):
    engine = create_engine(db_url)
    service = MatchService(Repository(engine), HeldTransport(), snapshot_every=3)
    await service.start()
    matches = [await service.start_match("rps-poker", _players(i), seed=f"res{i}")
               for i in range(7)]
    rng = random.Random(1)
    for match in matches:
        for _ in range(4):
            prompt = rng.choice(match.prompts)
            assert (await service.submit_command(
                match.id, prompt.seat, match.game.random_command(match.state, prompt, rng))).accepted
    ended = matches[-1].id
    await service.abort(ended, "test")
    states = {m.id: m.state.model_dump_json() for m in matches[:-1]}
    owed = {m.id for m in await drive(service).undelivered() if m.match_id == ended}
    assert owed, "the ended match still owes messages"
    busy = matches[0]
    await busy.lock.acquire()  # a step in progress: its state may be ahead of the store
    await service.stop()
    busy.lock.release()
    await engine.dispose()

    monkeypatch.setattr(resume_module, "RESUME_BATCH", 2)
    engine = create_engine(db_url)
    transport = RecordingTransport()
    service = MatchService(Repository(engine), transport)
    seen: list[int] = []
    stop = asyncio.Event()

    async def probe() -> None:  # runs whenever start() gives the loop a turn
        while not stop.is_set():
            seen.append(len(service.matches))
            await asyncio.sleep(0)

    task = asyncio.create_task(probe())
    await service.start()
    stop.set()
    await task
    # the clean stop stored a snapshot of every running match at its last action (4; every
    # 3 actions otherwise), except the one that was in the middle of a step
    stored = {m.row.id: m for m in await drive(service).stored_many(list(states))}
    assert {i: (m.snapshot_seq, len(m.actions)) for i, m in stored.items()} == {
        i: (3, 1) if i == busy.id else (4, 0) for i in states}
    assert any(0 < n < len(states) for n in seen), f"no turn between batches: {sorted(set(seen))}"
    assert {m: service.matches[m].state.model_dump_json() for m in states} == states
    assert ended not in service.matches, "an ended match was rebuilt on start"
    await drive(service).drain()
    assert owed <= {m.id for mid, m in transport.sent if mid == ended}
    assert await drive(service).count_undelivered() == 0
    await service.stop()
    await engine.dispose()
