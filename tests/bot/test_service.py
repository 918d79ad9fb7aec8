"""The match service on the real SQLite store: moves, refusals, messages, host actions."""

from __future__ import annotations

from collections import Counter

import pytest
from sqlalchemy import text

from bot.store.database import create_engine
from bot.store.repository import Repository
from bot.umpire import MatchService, UmpireError
from tests.bot.conftest import ANN, BOB
from tests.support.driver import drive
from tests.support.transport import RecordingTransport


async def test_start_match_seats_the_advantage_holder_first_and_announces_prompts(sqlite_service):
    service, transport = sqlite_service
    match = await service.start_match("duel", [ANN, BOB], advantage=1)
    await drive(service).drain()
    assert [p.name for p in match.players] == ["Bob", "Ann"]
    public = transport.texts(match.id, "public")
    assert len(public) == 1
    assert "Seed commitment (SHA-256)" in public[0] and match.commitment in public[0]
    assert match.seed not in public[0]
    assert "Waiting for {P0} and {P1}" in public[0]
    for seat in (0, 1):
        (table,) = transport.texts(match.id, f"seat{seat}")
        assert table.startswith(f"▶ {{P{seat}}}, your decision: pick")


async def test_private_move_typed_in_public_room_is_refused_and_changes_nothing(sqlite_service):
    service, _ = sqlite_service
    match = await service.start_match("duel", [ANN, BOB])
    reply = await service.submit(match.id, ANN.id, "pick 5")
    assert not reply.accepted and reply.delete
    assert "private" in reply.message and "table channel" in reply.message
    assert match.seq == 0 and match.state.picks == [None, None]
    assert await drive(service).actions(match.id) == []


async def test_refusals_name_the_reason(sqlite_service):
    service, _ = sqlite_service
    match = await service.start_match("duel", [ANN, BOB])
    assert (await service.submit(match.id, "u:eve", "pick 5")).ignored
    wrong_table = await service.submit(match.id, ANN.id, "pick 5", table_of=1)
    assert not wrong_table.accepted and "not your table" in wrong_table.message
    garbled = await service.submit(match.id, ANN.id, "banana", table_of=0)
    assert not garbled.accepted and "pick 7" in garbled.message
    illegal = await service.submit(match.id, ANN.id, "pick 12", table_of=0)
    assert not illegal.accepted and "You can pick 1, 2" in illegal.message
    assert (await service.submit(match.id, ANN.id, "pick 4", table_of=0)).accepted
    again = await service.submit(match.id, ANN.id, "pick 3", table_of=0)
    assert not again.accepted and again.message == "It is not your decision now; waiting for Bob."
    assert match.seq == 1


async def test_each_command_sends_at_most_one_message_per_audience(sqlite_service):
    service, _ = sqlite_service
    match = await service.start_match("duel", [ANN, BOB])
    for n in (3, 4, 5):
        await service.submit(match.id, ANN.id, f"pick {n}", table_of=0)
        await service.submit(match.id, BOB.id, f"pick {n + 1}", table_of=1)
    messages = await drive(service).messages(match.id)
    per_step = Counter((m.seq, m.audience) for m in messages)
    assert max(per_step.values()) == 1
    assert {m.seq for m in messages} == set(range(0, 7))


async def test_finished_match_reveals_seed_and_records_result(sqlite_service):
    service, transport = sqlite_service
    match = await service.start_match("duel", [ANN, BOB], seed="s3cret")
    record = await service.export(match.id)
    assert record["seed"] is None and all("command" not in a for a in record["actions"])
    for n in (9, 8, 7):
        await service.submit(match.id, ANN.id, f"pick {n}", table_of=0)
        await service.submit(match.id, BOB.id, f"pick {n - 5}", table_of=1)
    assert match.status == "finished"
    assert match.result == {"winner": 0, "reason": "all rounds played", "score": [3, 0]}
    await drive(service).drain()
    final = transport.texts(match.id, "public")[-1]
    assert "🏁 Match over: {P0} wins 3-0" in final and "`s3cret`" in final
    record = await service.export(match.id)
    assert record["seed"] == "s3cret" and len(record["actions"]) == 6
    assert record["actions"][0]["command"]["number"] == 9
    after = await service.submit(match.id, ANN.id, "pick 1", table_of=0)
    assert not after.accepted and after.message == "This match is over."


async def test_host_pause_resume_abort_and_award(sqlite_service):
    service, transport = sqlite_service
    match = await service.start_match("duel", [ANN, BOB])
    await service.pause(match.id)
    paused = await service.submit(match.id, ANN.id, "pick 5", table_of=0)
    assert not paused.accepted and "paused" in paused.message
    with pytest.raises(UmpireError, match="only a running match"):
        await service.pause(match.id)
    await service.resume(match.id)
    assert (await service.submit(match.id, ANN.id, "pick 5", table_of=0)).accepted
    await service.award(match.id, 1, "stalling")
    assert match.status == "finished" and match.result["winner"] == 1
    with pytest.raises(UmpireError, match="already over"):
        await service.abort(match.id)
    other = await service.start_match("duel", [ANN, BOB])
    await service.abort(other.id, "test")
    assert other.status == "aborted" and other.result["winner"] is None
    await drive(service).drain()
    assert any("🛑 The hosts aborted" in t for t in transport.texts(other.id, "public"))


async def test_bad_start_requests_are_refused(sqlite_service):
    service, _ = sqlite_service
    with pytest.raises(UmpireError, match="Unknown game"):
        await service.start_match("chess", [ANN, BOB])
    with pytest.raises(UmpireError, match="different people"):
        await service.start_match("duel", [ANN, ANN])
    with pytest.raises(UmpireError, match="Bad settings: rounds"):
        await service.start_match("duel", [ANN, BOB], settings={"rounds": 99})


async def test_restart_continues_the_match_and_resends_undelivered(db_url):
    engine = create_engine(db_url)
    first = RecordingTransport()
    service = MatchService(Repository(engine), first, snapshot_every=2)
    await service.start()
    match = await service.start_match("duel", [ANN, BOB], seed="restart")
    for n, m in ((9, 1), (8, 2)):
        await service.submit(match.id, ANN.id, f"pick {n}", table_of=0)
        await service.submit(match.id, BOB.id, f"pick {m}", table_of=1)
    await service.submit(match.id, ANN.id, "pick 7", table_of=0)
    state_before = match.state.model_dump_json()
    await drive(service).drain()
    # a message accepted but never delivered (the process died before sending it)
    async with engine.begin() as conn:
        await conn.execute(text("UPDATE outbox SET delivered_at = NULL WHERE id = "
                                "(SELECT max(id) FROM outbox)"))
    await service.stop()
    await engine.dispose()

    engine = create_engine(db_url)
    second = RecordingTransport()
    service = MatchService(Repository(engine), second)
    await service.start()
    reloaded = service.matches[match.id]
    assert reloaded.state.model_dump_json() == state_before
    assert reloaded.seq == 5
    await drive(service).drain()
    assert len(second.sent) == 1 and second.sent[0][1].id == first.sent[-1][1].id
    assert (await service.submit(match.id, BOB.id, "pick 3", table_of=1)).accepted
    assert reloaded.status == "finished"
    await drive(service).drain()
    assert await drive(service).count_undelivered() == 0
    await service.stop()
    await engine.dispose()


async def test_a_click_for_a_decision_no_longer_open_applies_nothing(sqlite_service):
    service, _ = sqlite_service
    match = await service.start_match("duel", [ANN, BOB])
    await service.submit(match.id, ANN.id, "pick 4", table_of=0)
    await service.submit(match.id, BOB.id, "pick 5", table_of=1)
    stale = await service.submit(match.id, ANN.id, "pick 6", table_of=0, prompt_key="r1:s0")
    assert not stale.accepted and "no longer open" in stale.message
    assert match.seq == 2
    fresh = await service.submit(match.id, ANN.id, "pick 6", table_of=0, prompt_key="r2:s0")
    assert fresh.accepted and match.seq == 3


async def test_an_ended_match_can_be_exported_after_a_restart(db_url):
    engine = create_engine(db_url)
    service = MatchService(Repository(engine), RecordingTransport())
    await service.start()
    match = await service.start_match("duel", [ANN, BOB], seed="exported", settings={"rounds": 1})
    await service.submit(match.id, ANN.id, "pick 2", table_of=0)
    await service.submit(match.id, BOB.id, "pick 3", table_of=1)
    await service.stop()
    await engine.dispose()
    engine = create_engine(db_url)
    service = MatchService(Repository(engine), RecordingTransport())
    await service.start()
    assert match.id not in service.matches  # only running matches are reloaded
    record = await service.export(match.id)
    assert record["seed"] == "exported" and record["result"]["winner"] == 1
    with pytest.raises(UmpireError, match="no match #99"):
        await service.export(99)
    await service.stop()
    await engine.dispose()
