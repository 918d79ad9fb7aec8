"""The spectator feed in the match service (bot/feed.py): the room's lines while the match
runs, then, in the message of its end, what the game declares it reveals, in the same outbox
as every other channel."""

from __future__ import annotations

import random

import bot.feed
from bot.feed import FEED, mirrored, with_feed
from bot.store.database import create_engine
from bot.store.repository import OutboxData, Repository
from bot.umpire import MatchService
from games.renounce_fate.cards import render_all
from tests.bot.conftest import ANN, BOB
from tests.support.driver import drive
from tests.support.transport import HeldTransport, RecordingTransport


async def _play_until(service: MatchService, match_id: int, done: object, rng: random.Random,
                      limit: int = 400) -> None:
    """Random legal moves until `done()` holds."""
    match = service.matches[match_id]
    for _ in range(limit):
        if done() or not match.prompts:  # type: ignore[operator]
            return
        prompt = match.prompts[0]
        command = match.game.random_command(match.state, prompt, rng)
        reply = await service.submit_command(match_id, prompt.seat, command)
        assert reply.accepted, reply.message
    raise AssertionError("the match did not get there")

async def test_feed_gets_the_room_and_the_folds_hands_only_at_the_end(memory_service):
    """Renounce Fate: a fold leaves both hands unshown, so the feed (which the players read)
    shows the room's lines only, round after round; the hosts' end reveals the folds."""
    service, transport, _ = memory_service
    match = await service.start_match(
        "renounce-fate", [ANN, BOB], settings={"break_seconds": 0},
        transport=with_feed({}, 42))
    rng = random.Random(1)
    await _play_until(service, match.id, lambda: len(match.state.hidden_hands) >= 4, rng)
    await drive(service).drain()
    feed = transport.texts(match.id, FEED)
    room = transport.texts(match.id, "public")
    assert feed == room  # one feed message per room message, the same text, nothing more
    folded = [token.split(":", 1)[1].split("+") for _, token in match.state.hidden_hands]
    await service.abort(match.id)
    await drive(service).drain()
    last = transport.texts(match.id, FEED)[-1]
    assert last.startswith(transport.texts(match.id, "public")[-1])  # the end, then the reveal
    reveal = last.split("🔓", 1)[1]
    assert "Round 1 (a fold)" in reveal or "Round 2 (a fold)" in reveal
    assert all(card in reveal for hand in folded for card in hand_cards(hand))
    sent = [m for mid, m in transport.sent if mid == match.id and m.audience == FEED]
    assert all("prompts" not in m.payload for m in sent)  # no buttons, no clock waits on it


def hand_cards(cards: list[str]) -> list[str]:
    return render_all(cards).split()

async def test_feed_reveals_the_round_in_progress_when_the_hosts_end_the_match(memory_service):
    service, transport, _ = memory_service
    match = await service.start_match("double-or-nothing", [ANN, BOB],
                                      transport=with_feed({}, 42))
    await drive(service).drain()
    assert not any("🔓" in t for t in transport.texts(match.id, FEED))
    await service.abort(match.id)
    await drive(service).drain()
    last = transport.texts(match.id, FEED)[-1]
    assert "aborted" in last and "🔓" in last and "Bout 1 (unfinished)" in last

async def test_no_feed_no_feed_messages(memory_service):
    service, transport, _ = memory_service
    match = await service.start_match("renounce-fate", [ANN, BOB])
    await _play_until(service, match.id, lambda: match.state.round >= 2, random.Random(2))
    await service.abort(match.id)
    await drive(service).drain()
    assert transport.texts(match.id, FEED) == []
    assert transport.texts(match.id, "public")

def test_mirrored_is_one_feed_message_per_write_and_idempotent() -> None:
    outbox = [OutboxData("public", "room", {"prompts": [{"key": "k"}], "status": "s"}),
              OutboxData("seat0", "secret"), OutboxData(FEED, "🔓 over")]
    once = mirrored({"feed": 1}, outbox)
    assert [o.audience for o in once] == ["public", "seat0", FEED]
    assert once[-1].text == "room\n🔓 over" and once[-1].payload == {"room": True, "status": "s"}
    assert mirrored({"feed": 1}, once) == once
    assert mirrored({}, outbox[:2]) == outbox[:2]
    folding = [OutboxData("public", "moved", {"fold": True})]
    assert mirrored({"feed": 1}, folding)[-1].payload == {"room": True, "fold": True}



async def test_a_reveal_is_stored_with_its_step_and_sent_after_a_restart(tmp_path):
    """Nothing delivered before the stop: no reveal while the match runs (a bout ended); the
    hosts' end writes it in the outbox with its step, and the next start sends it, after the
    room's lines."""
    url = f"sqlite+aiosqlite:///{tmp_path / 'feed.db'}"
    engine = create_engine(url)
    service = MatchService(Repository(engine), HeldTransport())
    await service.start()
    match = await service.start_match("double-or-nothing", [ANN, BOB],
                                      transport=with_feed({}, 42))
    await _play_until(service, match.id, lambda: match.state.bout >= 2, random.Random(3))
    assert not any("🔓" in m.text for m in await drive(service).undelivered())
    await service.abort(match.id)
    owed = [m for m in await drive(service).undelivered() if m.audience == FEED]
    assert sum("🔓" in m.text and "Bout 1: {P0} 1:" in m.text for m in owed) == 1
    await service.stop()
    await engine.dispose()

    engine = create_engine(url)
    transport = RecordingTransport()
    service = MatchService(Repository(engine), transport)
    await service.start()
    try:
        await drive(service).drain()
        feed = transport.texts(match.id, FEED)
        assert len(feed) == len(owed) and sum("🔓" in t for t in feed) == 1
        assert feed == [m.text for m in sorted(owed, key=lambda m: m.id)]
    finally:
        await service.stop()
        await engine.dispose()


async def test_a_failing_feed_module_costs_the_reveal_not_the_move(memory_service, monkeypatch,
                                                                   caplog):
    service, transport, _ = memory_service
    match = await service.start_match("double-or-nothing", [ANN, BOB],
                                      transport=with_feed({}, 42))

    def broken(*args: object) -> list[str]:
        raise RuntimeError("a bug in a feed module")

    monkeypatch.setattr(bot.feed, "feed_reveals", broken)
    prompt = match.prompts[0]
    reply = await service.submit_command(
        match.id, prompt.seat, match.game.random_command(match.state, prompt, random.Random(0)))
    await drive(service).drain()
    assert reply.accepted and match.seq == 1
    assert "the spectator feed's reveals failed" in caplog.text
    assert transport.texts(match.id, FEED)[-1] == transport.texts(match.id, "public")[-1]
