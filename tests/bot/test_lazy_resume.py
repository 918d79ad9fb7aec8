"""Lazy resume: a restart is ready as soon as the running matches' rows are read; each match's
state is rebuilt on first use or by the background hydrator, and its clocks run from then."""

from __future__ import annotations

import asyncio
import gc
import random
import weakref
from datetime import UTC, datetime, timedelta

from bot.live import LiveMatch
from bot.service.resume import Resumer
from bot.service.resume import urgency as _urgency
from bot.store.database import create_engine
from bot.store.repository import ClockData, Repository
from bot.transport import PlayerRef
from bot.umpire import MatchService
from tests.support.driver import drive
from tests.support.transport import RecordingTransport


def _players(i: int) -> list[PlayerRef]:
    return [PlayerRef(f"a{i}", "A"), PlayerRef(f"b{i}", "B")]


async def _played(db_url: str, count: int, moves: int, settings: dict | None = None
                  ) -> dict[int, str]:
    """`count` RPS Poker matches of `moves` actions each, left as a crash leaves them (no
    snapshot on stop); their states as JSON."""
    engine = create_engine(db_url)
    service = MatchService(Repository(engine), RecordingTransport())
    service.snapshot_on_stop = False
    await service.start()
    rng = random.Random(7)
    states = {}
    for i in range(count):
        match = await service.start_match("rps-poker", _players(i), seed=f"lazy{i}",
                                          settings=settings)
        for _ in range(moves):
            prompt = rng.choice(match.prompts)
            command = match.game.random_command(match.state, prompt, rng)
            assert (await service.submit_command(match.id, prompt.seat, command)).accepted
        states[match.id] = match.state.model_dump_json()
    await drive(service).drain()
    await service.stop()
    await engine.dispose()
    return states


async def test_a_restart_is_ready_with_states_rebuilt_on_first_use(db_url, monkeypatch):
    states = await _played(db_url, 4, 5)

    async def no_background_rebuild(self, matches):  # only first use rebuilds
        await asyncio.Event().wait()

    monkeypatch.setattr(Resumer, "hydrate_all", no_background_rebuild)
    engine = create_engine(db_url)
    service = MatchService(Repository(engine), RecordingTransport())
    await service.start()
    assert set(service.matches) == set(states)
    assert all(m.dormant for m in drive(service).matches())
    # who plays, where and the clocks are known without rebuilding anything
    first, *others = sorted(states)
    assert service.matches[first].players[0].id == "a0"
    assert service.matches[first].clocks and service.matches[first].dormant

    match = service.matches[first]
    prompt = match.prompts[0]  # reading the prompts rebuilds the state: the stored one
    assert not match.dormant
    assert match.state.model_dump_json() == states[first]
    command = match.game.random_command(match.state, prompt, random.Random(1))
    assert (await service.submit_command(first, prompt.seat, command)).accepted
    assert any(drive(service).deadline(first, p.key) for p in match.prompts), \
        "the rebuilt match's clocks were not armed"
    assert all(service.matches[m].dormant for m in others)
    assert not any(drive(service).deadline(m, k) for m in others
                   for k in service.matches[m].clocks), "a dormant match's clock was armed"

    snapshots_before = {m.row.id: m.snapshot_seq
                        for m in await drive(service).stored_many(sorted(states))}
    await service.stop()  # a dormant match has nothing new to store
    engine2 = create_engine(db_url)
    repo = Repository(engine2)
    after = {m.row.id: m.snapshot_seq for m in await repo.load_many(sorted(states))}
    assert {m: after[m] for m in others} == {m: snapshots_before[m] for m in others}
    await engine.dispose()
    await engine2.dispose()


async def test_the_background_rebuild_wakes_every_match_and_its_clocks(db_url):
    states = await _played(db_url, 3, 3, settings={"decision_seconds": 1.0, "reminders": []})
    engine = create_engine(db_url)
    service = MatchService(Repository(engine), RecordingTransport())
    await service.start()
    await service.hydrated(timeout=10)
    assert not any(m.dormant for m in drive(service).matches())
    assert {m: service.matches[m].state.model_dump_json() for m in states} == {
        m: s for m, s in states.items()}
    before = {m: service.matches[m].seq for m in states}
    # the decisions were left open at the crash: their 1 s clocks run out after the rebuild
    await asyncio.sleep(2.5)
    actions = {m: await drive(service).actions(m) for m in states}
    for m in states:
        assert service.matches[m].seq > before[m], f"match {m}'s clock never fired"
        assert actions[m][-1].source == "timeout"
    await service.stop()
    await engine.dispose()


def _dormant(status: str, players: list[PlayerRef], limits: list[datetime | None]
             ) -> LiveMatch:
    match = LiveMatch(id=1, game=None, settings=None, seed="", commitment="",  # type: ignore[arg-type]
                      players=tuple(players), state=None, seq=0, status=status)
    start = datetime(2026, 1, 1, tzinfo=UTC)
    match.clocks = {f"k{i}": ClockData(key=f"k{i}", seat=0, started_at=start, limit_at=limit,
                                       deadline_at=limit) for i, limit in enumerate(limits)}
    return match


def test_rebuild_order_bots_first_then_the_soonest_limit_paused_last():
    soon = datetime(2026, 1, 1, 0, 1, tzinfo=UTC)
    late = soon + timedelta(hours=1)
    people = [PlayerRef("a", "A"), PlayerRef("b", "B")]
    with_bot = [PlayerRef("a", "A"), PlayerRef("bot", "Bot", bot="random")]
    ranked = sorted([("paused", _dormant("paused", people, [soon])),
                     ("late", _dormant("active", people, [late])),
                     ("none", _dormant("active", people, [])),
                     ("soon", _dormant("active", people, [late, soon])),
                     ("bot", _dormant("active", with_bot, [late]))],
                    key=lambda pair: _urgency(pair[1]))
    assert [name for name, _ in ranked] == ["bot", "soon", "late", "none", "paused"]


async def test_a_stopped_service_leaves_its_resumed_matches_to_the_collector(db_url):
    """The start freezes the resumed matches out of the collector's sight (they live as long
    as the service); once it stops they are garbage like anything else, not kept for ever."""
    await _played(db_url, 3, 4)
    engine = create_engine(db_url)
    service = MatchService(Repository(engine), RecordingTransport())
    await service.start()
    await service.hydrated()
    assert gc.get_freeze_count() > 0
    resumed = [weakref.ref(m) for m in drive(service).matches()]
    assert len(resumed) == 3
    await service.stop()
    await engine.dispose()
    del service
    gc.collect()
    assert [r for r in resumed if r() is not None] == []
