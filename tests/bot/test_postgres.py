"""The service on PostgreSQL (asyncpg): the same store code as SQLite, through run_sync."""

from __future__ import annotations

import asyncio
import json
import random
from datetime import UTC, datetime

from sqlalchemy import event

from bot.store.database import create_engine
from bot.store.repository import MatchWrite, OutboxData, Repository
from bot.transport import PlayerRef
from bot.umpire import MatchService
from tests.bot.conftest import ANN, BOB
from tests.support.driver import drive
from tests.support.transport import RecordingTransport

# The server and a fresh database per test come from tests/bot/conftest.py (`pg_url`); the
# store's own checks (alembic round trip, clock shift, pruning, ended matches) run on both
# databases through its parametrised `db_url`.


async def test_matches_play_concurrently_and_survive_a_restart_on_postgres(pg_url: str):
    engine = create_engine(pg_url)
    service = MatchService(Repository(engine), RecordingTransport(), snapshot_every=3)
    await service.start()
    matches = [await service.start_match("rps-poker", [PlayerRef(f"a{i}", "A"), PlayerRef(f"b{i}", "B")],
                                         seed=f"pg{i}") for i in range(10)]

    async def play(match_id: int, moves: int) -> None:
        rng = random.Random(match_id)
        match = service.matches[match_id]
        for _ in range(moves):
            prompt = rng.choice(match.prompts)
            reply = await service.submit_command(match_id, prompt.seat,
                                                 match.game.random_command(match.state, prompt, rng))
            assert reply.accepted, reply.message

    await asyncio.gather(*(play(m.id, 9) for m in matches))
    assert drive(service).writer.items > drive(service).writer.batches, "writes shared transactions"
    states = {m.id: m.state.model_dump_json() for m in matches}
    await drive(service).drain()
    await service.stop()
    await engine.dispose()

    engine = create_engine(pg_url)
    service = MatchService(Repository(engine), RecordingTransport())
    await service.start()
    assert {m: service.matches[m].state.model_dump_json() for m in states} == states
    assert await drive(service).count_undelivered() == 0
    match = service.matches[matches[0].id]
    rng = random.Random(0)
    while match.status == "active":
        prompt = rng.choice(match.prompts)
        assert (await service.submit_command(match.id, prompt.seat,
                                             match.game.random_command(match.state, prompt, rng))).accepted
    record = await service.export(match.id)
    assert record["seed"] == "pg0" and len(record["actions"]) == match.seq
    from bot.console.records import verify  # the start time and commitment kept exactly
    assert "Its match commitment" in verify(json.loads(json.dumps(record)))
    await service.stop()
    await engine.dispose()


async def test_refusals_and_text_moves_on_postgres(pg_url: str):
    engine = create_engine(pg_url)
    service = MatchService(Repository(engine), RecordingTransport())
    await service.start()
    match = await service.start_match("duel", [ANN, BOB])
    assert (await service.submit(match.id, ANN.id, "pick 5")).delete
    assert (await service.submit(match.id, ANN.id, "pick 5", table_of=0)).accepted
    assert (await service.submit(match.id, BOB.id, "pick 6", table_of=1)).accepted
    actions = await drive(service).actions(match.id)
    assert [a.command["number"] for a in actions] == [5, 6]
    await service.stop()
    await engine.dispose()


async def test_guild_settings_and_a_servers_matches_on_postgres(pg_url: str):
    """Migration 0002 and the per-server queries on PostgreSQL (Discord ids are 64-bit)."""
    from bot.store.guilds import GuildStore, matches_of_guild

    engine = create_engine(pg_url)
    service = MatchService(Repository(engine), RecordingTransport())
    await service.start()
    try:
        guild = 1574414571500863491
        live = await service.start_match("rps-poker", [PlayerRef("a", "A"), PlayerRef("b", "B")],
                                         seed="pg-guild", transport={"guild": guild})
        await service.start_match("rps-poker", [PlayerRef("c", "C"), PlayerRef("d", "D")],
                                  seed="pg-other", transport={"guild": guild + 1})
        found = await matches_of_guild(engine, guild)
        assert [m.id for m in found] == [live.id] and found[0].names == ("A", "B")
        assert [m.id for m in await matches_of_guild(engine, guild, starts_with=str(live.id))] \
            == [live.id]
        store = GuildStore(service.repo)
        await store.update(guild, host_role_id=guild + 7, friendly_matches=True)
        again = await GuildStore(service.repo).get(guild)
        assert again.host_role_id == guild + 7 and again.friendly_matches is True
    finally:
        await service.stop()
        await engine.dispose()


async def test_outbox_inserts_keep_one_statement_text_whatever_the_message_count(pg_url: str):
    """Every distinct SQL text is a statement asyncpg prepares and caches per connection:
    writes of 1 to 30 messages must not each bring a text of their own (an INSERT ...
    RETURNING of many rows did: one VALUES group per row), and the ids come back in order.
    Plain writes go through the single statement (a fixed text); a write that changes the
    match row goes through the transaction, whose outbox statements are two fixed texts."""
    engine = create_engine(pg_url)
    repo = Repository(engine)
    await repo.migrate()
    now = datetime(2026, 11, 23, tzinfo=UTC)
    match_id = await repo.create_match(game="duel", settings={}, seed="s", commitment="c",
                                       players=[], transport={}, now=now)
    texts: set[str] = set()

    def seen(conn, cursor, statement, parameters, context, executemany):  # type: ignore[no-untyped-def]
        if "outbox" in statement.lower():
            texts.add(statement)

    event.listen(engine.sync_engine, "before_cursor_execute", seen)
    all_ids: list[int] = []
    counts = list(range(1, 31))
    for seq, count in enumerate(counts, start=1):  # plain writes
        all_ids += await repo.commit(MatchWrite(match_id, seq, outbox=[
            OutboxData("public", f"m{seq}.{i}") for i in range(count)]), now)
    one = repo.writer.one_statement
    assert one is not None and one.batches == len(counts)
    assert texts == set()  # none of them through SQLAlchemy's statements
    for seq, count in enumerate(counts, start=len(counts) + 1):  # not plain: a match field
        all_ids += await repo.commit(MatchWrite(match_id, seq, outbox=[
            OutboxData("public", f"m{seq}.{i}") for i in range(count)],
            match_fields={"status": "active"}), now)
    event.remove(engine.sync_engine, "before_cursor_execute", seen)
    assert one.batches == len(counts)
    assert len(texts) == 2, sorted(texts)  # reserving the ids, the insert
    assert all_ids == sorted(all_ids) and len(set(all_ids)) == 2 * sum(counts)
    stored = await repo.messages(match_id)
    assert [m.id for m in stored] == all_ids
    assert [m.text for m in stored] == [f"m{seq}.{i}" for seq, count in
                                        enumerate(counts + counts, start=1) for i in range(count)]
    await repo.close()
    await engine.dispose()
