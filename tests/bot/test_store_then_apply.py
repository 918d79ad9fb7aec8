"""Store, then apply: a write the store refuses changes nothing of the live match.

A failed commit (the database down, also for reads) must leave state, prompts, clocks, status
and the action count as they were; the player is told where they typed; concurrent moves act
on the live match; clocks and bots whose write failed try again later. After each scenario
the match played on must be exactly what its stored log rebuilds.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator, Callable
from datetime import datetime
from typing import Any

import pytest

from bot.clock import loop_clock
from bot.live import LiveMatch
from bot.store.errors import StoreUnavailable
from bot.store.repository import LIVE_CLOCKS, MatchWrite, StoredMatch
from bot.transport import PlayerRef
from bot.umpire import STORE_RETRY_SECONDS, MatchService, UmpireError
from tests.bot.conftest import ANN, BOB
from tests.support.driver import drive
from tests.support.memory_repo import MemoryRepository
from tests.support.transport import RecordingTransport

pytestmark = pytest.mark.looptime


class FlakyRepository(MemoryRepository):
    """The in-memory store, with writes that fail on demand (after a short wait, so that
    other commands queue on the match meanwhile) and reads that can fail too."""

    def __init__(self) -> None:
        super().__init__()
        self.refuse: Callable[[MatchWrite], bool] = lambda write: False
        self.unreadable = False
        self.refused: list[MatchWrite] = []

    async def commit(self, write: MatchWrite, now: datetime, *, at_once: bool = False) -> list[int]:
        if self.refuse(write):
            await asyncio.sleep(0.05)
            self.refused.append(write)
            raise StoreUnavailable("injected: the database cannot be reached")
        return await super().commit(write, now, at_once=at_once)

    async def load_match(self, match_id: int) -> StoredMatch | None:
        if self.unreadable:
            raise StoreUnavailable("injected: the database cannot be reached")
        return await super().load_match(match_id)


@pytest.fixture
async def flaky() -> AsyncIterator[tuple[MatchService, RecordingTransport, FlakyRepository]]:
    repo = FlakyRepository()
    transport = RecordingTransport()
    service = MatchService(repo, transport, now=loop_clock())  # type: ignore[arg-type]
    await service.start()
    yield service, transport, repo
    await service.stop()


def _picture(match: LiveMatch) -> dict[str, Any]:
    """What must agree between the live match and its rebuild from the store."""
    return {
        "state": match.state.model_dump_json(), "seq": match.seq, "status": match.status,
        "result": match.result, "prompts": [p.key for p in match.prompts],
        "clocks": {k: (c.status, c.started_at, c.limit_at, c.deadline_at, c.reminders_sent)
                   for k, c in match.clocks.items() if c.status in LIVE_CLOCKS},
    }


async def assert_replays(service: MatchService, repo: FlakyRepository, match_id: int) -> None:
    """The live match is exactly what its stored log rebuilds."""
    stored = await MemoryRepository.load_match(repo, match_id)
    assert stored is not None
    assert _picture(LiveMatch.from_store(stored)) == _picture(service.matches[match_id])


async def play_out(service: MatchService, match_id: int, seed: str) -> None:
    """Random legal moves for every open decision until the match ends."""
    rng = random.Random(seed)
    for _ in range(2000):
        match = service.matches[match_id]
        if match.status != "active":
            return
        prompt = rng.choice(match.prompts)
        command = match.game.random_command(match.state, prompt, rng)
        reply = await service.submit_command(match_id, prompt.seat, command)
        assert reply.accepted, reply.message
    raise AssertionError("the match did not end")


async def test_a_failed_commit_while_the_database_is_unreadable_changes_nothing(flaky):
    service, _, repo = flaky
    match = await service.start_match("rps-poker", [ANN, BOB], seed="s1")
    await service.submit(match.id, BOB.id, "1", table_of=1)
    before = _picture(match)
    timers = {k: drive(service).deadline(match.id, k) for k in match.clocks}
    repo.refuse = lambda write: write.action is not None
    repo.unreadable = True
    reply = await service.submit(match.id, ANN.id, "1", table_of=0)
    assert not reply.accepted
    assert "could not record that move" in reply.message and "send it again" in reply.message
    assert service.matches[match.id] is match, "the live match is never replaced"
    assert _picture(match) == before, "nothing of the refused move took effect"
    assert {k: drive(service).deadline(match.id, k) for k in match.clocks} == timers
    repo.refuse = lambda write: False
    repo.unreadable = False
    await assert_replays(service, repo, match.id)
    assert (await service.submit(match.id, ANN.id, "1", table_of=0)).accepted
    await assert_replays(service, repo, match.id)
    await play_out(service, match.id, "s1")
    assert match.status == "finished"
    await assert_replays(service, repo, match.id)


async def test_a_failed_commit_beside_the_other_seats_concurrent_pick(flaky):
    service, _, repo = flaky
    match = await service.start_match("rps-poker", [ANN, BOB], seed="s2")
    first = True

    def refuse_first(write: MatchWrite) -> bool:
        nonlocal first
        if write.action is not None and first:
            first = False
            return True
        return False

    repo.refuse = refuse_first
    ann, bob = await asyncio.gather(service.submit(match.id, ANN.id, "1", table_of=0),
                                    service.submit(match.id, BOB.id, "2", table_of=1))
    assert not ann.accepted and "could not record" in ann.message
    assert bob.accepted
    assert [p.key for p in match.prompts] == ["draft1-seat0"], "only Ann's pick is open"
    assert match.seq == 1
    await assert_replays(service, repo, match.id)
    assert (await service.submit(match.id, ANN.id, "1", table_of=0)).accepted
    await assert_replays(service, repo, match.id)
    await play_out(service, match.id, "s2")  # no UNIQUE violation: every move is accepted
    assert match.status == "finished"
    await assert_replays(service, repo, match.id)


async def test_a_timeout_whose_store_fails_fires_again_and_is_applied_once(flaky):
    service, _, repo = flaky
    match = await service.start_match("duel", [ANN, BOB])
    await service.submit(match.id, ANN.id, "pick 4", table_of=0)
    failures = 2
    refused_at: list[float] = []

    def refuse_timeouts(write: MatchWrite) -> bool:
        nonlocal failures
        if write.action is not None and write.action[2] == "timeout" and failures:
            failures -= 1
            refused_at.append(asyncio.get_running_loop().time())
            return True
        return False

    repo.refuse = refuse_timeouts
    await asyncio.sleep(30.5)
    assert len(refused_at) == 1 and match.seq == 1, "the timeout fell due but was not stored"
    assert match.state.picks == [4, None] and match.prompt_pending("r1:s1")
    await asyncio.sleep(STORE_RETRY_SECONDS + 0.5)
    assert len(refused_at) == 2, "it fell due again after STORE_RETRY_SECONDS"
    assert refused_at[1] - refused_at[0] >= STORE_RETRY_SECONDS
    await asyncio.sleep(STORE_RETRY_SECONDS + 0.5)
    assert match.state.round == 2
    timeouts = [a for a in repo.actions_[match.id] if a["source"] == "timeout"]
    assert len(timeouts) == 1, "applied once"
    await asyncio.sleep(60)
    assert len([a for a in repo.actions_[match.id] if a["source"] == "timeout"]) >= 2
    assert [a["seq"] for a in repo.actions_[match.id]] == list(range(1, match.seq + 1))
    await assert_replays(service, repo, match.id)


async def test_a_bots_move_whose_store_fails_is_tried_again(flaky):
    service, _, repo = flaky
    failures = 1

    def refuse_bot(write: MatchWrite) -> bool:
        nonlocal failures
        if write.action is not None and write.action[2] == "bot" and failures:
            failures -= 1
            return True
        return False

    repo.refuse = refuse_bot
    bot = PlayerRef("bot:random", "Robo", bot="random")
    match = await service.start_match("duel", [ANN, bot])
    await asyncio.sleep(0.2)
    assert failures == 0 and match.seq == 0 and match.prompt_pending("r1:s1")
    await asyncio.sleep(STORE_RETRY_SECONDS)
    assert match.seq == 1 and not match.prompt_pending("r1:s1"), "the bot moved again"
    assert [a["source"] for a in repo.actions_[match.id]] == ["bot"]
    await assert_replays(service, repo, match.id)


@pytest.mark.parametrize("action", ["pause", "resume", "extend", "abort", "award", "announce"])
async def test_a_host_action_that_is_not_stored_changes_nothing(flaky, action):
    service, _, repo = flaky
    match = await service.start_match("duel", [ANN, BOB])
    if action == "resume":
        await service.pause(match.id)
        await asyncio.sleep(5)
    before, paused_at = _picture(match), match.paused_at
    repo.refuse = lambda write: True
    calls = {"pause": lambda: service.pause(match.id),
             "resume": lambda: service.resume(match.id),
             "extend": lambda: service.extend(match.id, 60),
             "abort": lambda: service.abort(match.id),
             "award": lambda: service.award(match.id, 1),
             "announce": lambda: service.announce(match.id, "hello")}
    with pytest.raises(UmpireError, match="could not store that"):
        await calls[action]()
    assert _picture(match) == before and match.paused_at == paused_at
    repo.refuse = lambda write: False
    await assert_replays(service, repo, match.id)
    await calls[action]()  # and it goes through once the store takes it
    await assert_replays(service, repo, match.id)


async def test_the_next_steps_copy_is_made_after_a_step_and_used_once(flaky):
    service, _, repo = flaky
    match = await service.start_match("rps-poker", [ANN, BOB], seed="s3")
    assert (await service.submit(match.id, BOB.id, "#1", table_of=1)).accepted
    await asyncio.sleep(0)  # the loop is free: the copy for the next step is made
    live = match.state
    spare = match._spare
    assert spare is not None and spare[0] is live and spare[1] is not live
    assert spare[1].model_dump_json() == live.model_dump_json()
    repo.refuse = lambda write: True
    assert not (await service.submit(match.id, ANN.id, "#1", table_of=0)).accepted
    assert match._spare is None, "the copy the failed step changed is never used again"
    assert match.state is live
    repo.refuse = lambda write: False
    assert (await service.submit(match.id, ANN.id, "#1", table_of=0)).accepted
    await assert_replays(service, repo, match.id)
