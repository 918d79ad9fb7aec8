"""A match's result and its rating changes, stored with the match's end on both databases
(the statements run on the DB-API cursor on SQLite: bot/store/bulk.py)."""

from __future__ import annotations

import random
from datetime import UTC, datetime

import pytest
from sqlalchemy import create_engine, select

from bot.ratings import MODEL, history, result_of, result_statement, standings
from bot.store.bulk import Query, select_of
from bot.store.models import MatchResultRow, SnapshotRow
from tests.bot.conftest import ANN, BOB
from tests.support.driver import drive


def _expected(winners: list[int | None]) -> tuple[tuple[float, float], tuple[float, float]]:
    """Ann's and Bob's (mu, sigma) after these results, by the rating library itself."""
    a, b = MODEL.rating(), MODEL.rating()
    for winner in winners:
        ranks = [0, 0] if winner is None else [0 if seat == winner else 1 for seat in (0, 1)]
        [[a], [b]] = MODEL.rate([[a], [b]], ranks=ranks)
    return (a.mu, a.sigma), (b.mu, b.sigma)


async def test_results_move_ratings_as_the_rating_library_does(sqlite_service):
    service, _ = sqlite_service
    winners: list[int | None] = [1, 0, 1]
    ids = []
    for winner in winners:
        match = await service.start_match("rps-poker", [ANN, BOB])
        await service.award(match.id, winner, "test")
        ids.append(match.id)
    await drive(service).drain()
    engine = drive(service).engine
    (ann_mu, ann_sigma), (bob_mu, bob_sigma) = _expected(winners)
    rows = {s.player_id: s for s in await standings(engine, 0, "rps-poker")}
    assert rows[ANN.id].mu == pytest.approx(ann_mu) and rows[ANN.id].sigma == pytest.approx(ann_sigma)
    assert rows[BOB.id].mu == pytest.approx(bob_mu) and rows[BOB.id].sigma == pytest.approx(bob_sigma)
    assert (rows[ANN.id].played, rows[ANN.id].wins, rows[ANN.id].losses) == (3, 1, 2)
    assert (rows[BOB.id].played, rows[BOB.id].wins, rows[BOB.id].losses) == (3, 2, 1)
    assert rows[ANN.id].name == ANN.name
    lines = await history(engine, 0, ANN.id)
    assert [line.match_id for line in lines] == ids[::-1]
    assert [line.outcome for line in lines] == ["loss", "win", "loss"]
    assert all(line.rated and line.change is not None for line in lines)
    last = await result_of(engine, ids[-1])
    assert last.outcome == "win" and last.winner == 1 and last.reason == "test"
    assert last.names == [ANN.name, BOB.name]
    assert last.changes[BOB.id][2:] == [pytest.approx(bob_mu), pytest.approx(bob_sigma)]


async def test_a_result_is_recorded_once_and_an_ended_match_keeps_one_snapshot(sqlite_service):
    service, _ = sqlite_service
    service.snapshot_every = 2
    match = await service.start_match("rps-poker", [ANN, BOB])
    rng = random.Random(1)
    for _ in range(5):
        prompt = match.prompts[0]
        command = match.game.random_command(match.state, prompt, rng)
        assert (await service.submit_command(match.id, prompt.seat, command)).accepted
    engine = drive(service).engine
    async with engine.connect() as conn:
        before = (await conn.execute(select(SnapshotRow.seq).where(
            SnapshotRow.match_id == match.id))).scalars().all()
    assert sorted(before) == [2, 4]
    await service.award(match.id, 0, "test")
    async with engine.connect() as conn:
        kept = (await conn.execute(select(SnapshotRow.seq).where(
            SnapshotRow.match_id == match.id))).scalars().all()
    assert kept == [4]  # only the latest
    standing = await standings(engine, 0, "rps-poker")
    # The same result statement again (as a retried transaction would): nothing changes.
    run = result_statement(match, datetime.now(UTC))
    await drive(service).writer.run(run)
    async with engine.connect() as conn:
        recorded = (await conn.execute(select(MatchResultRow.match_id).where(
            MatchResultRow.match_id == match.id))).all()
    assert len(recorded) == 1
    assert await standings(engine, 0, "rps-poker") == standing


def test_a_query_refuses_columns_sqlite_would_return_unconverted(sqlite_url):
    engine = create_engine(sqlite_url.replace("+aiosqlite", ""))
    with engine.connect() as conn:
        query: Query = select_of(MatchResultRow.__table__, ["ended_at"], {"match_id": "m"})
        with pytest.raises(TypeError, match="ended_at needs result conversion"):
            query.rows(conn, {"m": 1})
    engine.dispose()
