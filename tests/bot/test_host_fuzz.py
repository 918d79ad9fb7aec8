"""Hypothesis fuzzing of the hosts' commands (pause, resume, extend, expire, abort, award,
export) through the service: any match id, seat, number of seconds (negative, huge, NaN,
infinite), unit and reason is either carried out or refused with an UmpireError (a message
for the host), never another exception; and a refused command leaves the match as it was
(state, status, actions, clocks, messages)."""

from __future__ import annotations

import asyncio
import math
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.transport import PlayerRef
from bot.umpire import MatchService, UmpireError
from games.registry import installed_games
from tests.support.driver import drive
from tests.support.memory_repo import MemoryRepository
from tests.support.transport import RecordingTransport

GAMES = installed_games()
PLAYERS = [PlayerRef("u:ann", "Ann"), PlayerRef("u:bob", "Bob")]

ids = st.one_of(st.sampled_from([1, 2, 3, 4, 5]), st.integers(), st.integers(-2**70, 2**70))
seats = st.one_of(st.none(), st.integers(-3, 4), st.integers())
seconds = st.one_of(st.floats(allow_nan=True, allow_infinity=True),
                    st.integers(-10**30, 10**30), st.sampled_from([0, -1, 1, 30, 1e308, -0.0]))
units = st.one_of(st.sampled_from(["match", "bout", "round", ""]), st.text(max_size=12))
reasons = st.text(max_size=40)
host_actions = st.one_of(
    st.tuples(st.just("pause"), ids),
    st.tuples(st.just("resume"), ids),
    st.tuples(st.just("extend"), ids, seconds, seats),
    st.tuples(st.just("expire"), ids),
    st.tuples(st.just("abort"), ids, reasons),
    st.tuples(st.just("award"), ids, seats, reasons, units),
    st.tuples(st.just("export"), ids),
)


def _fingerprint(service: MatchService, repo: MemoryRepository) -> Any:
    """Everything a refused command must leave as it was."""
    out = []
    for match in drive(service).matches():
        clocks = sorted((c.key, c.status, c.started_at, c.limit_at, c.deadline_at)
                        for c in match.clocks.values())
        out.append((match.id, match.status, match.seq, match.paused_at, repr(match.result),
                    match.state.model_dump_json(), clocks, [p.key for p in match.prompts]))
    return out, len(repo.outbox), sum(len(a) for a in repo.actions_.values())


async def _run(actions: list[tuple[Any, ...]]) -> None:
    repo = MemoryRepository()
    service = MatchService(repo, RecordingTransport())  # type: ignore[arg-type]
    await service.start()
    try:
        for game in GAMES:
            await service.start_match(game, PLAYERS, seed=f"fuzz-{game}")
        for action in actions:
            before = _fingerprint(service, repo)
            name, match_id, *rest = action
            try:
                if name == "extend":
                    await service.extend(match_id, rest[0], rest[1])
                elif name == "abort":
                    await service.abort(match_id, rest[0])
                elif name == "award":
                    seat, reason, unit = rest
                    await service.award(match_id, seat, reason, unit=unit)
                elif name == "export":
                    record = await service.export(match_id)
                    assert record["match"] == match_id
                else:
                    await getattr(service, name)(match_id)
            except UmpireError as exc:
                assert str(exc), "a refusal says why"
                assert _fingerprint(service, repo) == before, f"{action} refused but changed"
            if name == "extend" and isinstance(rest[0], float) and not math.isfinite(rest[0]):
                assert _fingerprint(service, repo) == before
    finally:
        await service.stop()


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(host_actions, min_size=1, max_size=12))
def test_host_commands_are_carried_out_or_clearly_refused(actions: list[tuple[Any, ...]]) -> None:
    asyncio.run(_run(actions))


def test_extend_refuses_nan_infinite_and_huge_seconds() -> None:
    async def run() -> None:
        repo = MemoryRepository()
        service = MatchService(repo, RecordingTransport())  # type: ignore[arg-type]
        await service.start()
        try:
            match = await service.start_match("rps-poker", PLAYERS, seed="x")
            before = _fingerprint(service, repo)
            for bad in (math.nan, math.inf, -math.inf, 1e308, 10**30, -5, 0):
                try:
                    await service.extend(match.id, bad)
                except UmpireError as exc:
                    assert "second" in str(exc)
                else:
                    raise AssertionError(f"extend by {bad} was accepted")
            assert _fingerprint(service, repo) == before
            await service.extend(match.id, 30)
            assert _fingerprint(service, repo) != before
        finally:
            await service.stop()
    asyncio.run(run())
