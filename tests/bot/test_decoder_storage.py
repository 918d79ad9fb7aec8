"""Decoder's storage stays linear: its state carries the whole history of turns (the bots'
and views' record), so a snapshot would be as big as the match so far and storing one every
few actions grows quadratically (a 130-action match stored 400 KB). Decoder stores no
snapshots (`Game.snapshots`); its state is rebuilt from the seed and the action log."""

from __future__ import annotations

import random
from pathlib import Path

from sqlalchemy import text

from bot.store.database import create_engine
from bot.store.repository import Repository
from bot.umpire import MatchService
from tests.bot.conftest import ANN, BOB
from tests.support.transport import RecordingTransport

ACTIONS = 300
#: No stored snapshot of the match may exceed this: the opening state is about 3-6 KB
#: (settings, both seats' tanks and tiles), while the state after 300 actions is about 55 KB,
#: nearly all of it the history. 8 KB holds any snapshot that leaves the history out.
SNAPSHOT_BOUND = 8 * 1024
#: Per action, what is stored besides messages: the action row (its command JSON).
ACTION_BOUND = 512


def _command(game, state, prompt, rng):  # type: ignore[no-untyped-def]
    """A random legal-looking command that avoids guesses, so the match lasts."""
    for _ in range(30):
        command = game.random_command(state, prompt, rng)
        if getattr(command, "action", None) != "guess":
            return command
    return command


async def _stored_bytes(db: Path, match_id: int) -> tuple[int, int, int]:
    engine = create_engine(f"sqlite+aiosqlite:///{db}")
    async with engine.connect() as conn:
        snaps = (await conn.execute(text(
            "SELECT count(*), coalesce(max(length(state)), 0) FROM snapshots WHERE match_id = :m"),
            {"m": match_id})).one()
        actions = (await conn.execute(text(
            "SELECT coalesce(sum(length(command)), 0) FROM actions WHERE match_id = :m"),
            {"m": match_id})).scalar_one()
    await engine.dispose()
    return snaps[0], snaps[1], actions


async def test_a_300_action_decoder_match_stores_no_growing_snapshot(tmp_path: Path) -> None:
    db = tmp_path / "umpire.db"
    engine = create_engine(f"sqlite+aiosqlite:///{db}")
    service = MatchService(Repository(engine), RecordingTransport(), snapshot_every=5)
    await service.start()
    rng = random.Random(300)
    match = await service.start_match("decoder", [ANN, BOB], seed="long-decoder",
                                      settings={"time_bank": 100000, "lock_when_ready": True})
    while match.seq < ACTIONS and match.status == "active":
        prompt = rng.choice(match.prompts)
        await service.submit_command(match.id, prompt.seat,
                                     _command(match.game, match.state, prompt, rng))
    assert match.seq == ACTIONS and match.status == "active"
    live_state = match.state.model_dump_json()
    assert len(live_state) > 4 * SNAPSHOT_BOUND  # the history is there, in memory
    view = service.view(match.id, 0)
    describe = service.describe(match.id, ANN.id)
    await service.stop()
    await engine.dispose()

    count, biggest, action_bytes = await _stored_bytes(db, match.id)
    print(f"{count} snapshots, biggest {biggest} B; actions {action_bytes} B "
          f"({action_bytes / ACTIONS:.0f} B each); live state {len(live_state)} B")
    assert biggest <= SNAPSHOT_BOUND
    assert action_bytes <= ACTION_BOUND * ACTIONS

    # Resumed from the log alone: the same state, view and description.
    engine = create_engine(f"sqlite+aiosqlite:///{db}")
    again = MatchService(Repository(engine), RecordingTransport())
    await again.start()
    try:
        resumed = again.matches[match.id]
        assert resumed.seq == ACTIONS
        assert resumed.state.model_dump_json() == live_state
        assert again.view(match.id, 0) == view
        assert again.describe(match.id, ANN.id) == describe
    finally:
        await again.stop()
        await engine.dispose()


async def test_games_without_a_growing_history_still_store_snapshots(tmp_path: Path) -> None:
    db = tmp_path / "umpire.db"
    engine = create_engine(f"sqlite+aiosqlite:///{db}")
    service = MatchService(Repository(engine), RecordingTransport(), snapshot_every=2)
    await service.start()
    rng = random.Random(1)
    match = await service.start_match("rps-poker", [ANN, BOB], seed="short")
    while match.seq < 6 and match.status == "active":
        prompt = rng.choice(match.prompts)
        await service.submit_command(match.id, prompt.seat,
                                     match.game.random_command(match.state, prompt, rng))
    await service.stop()
    await engine.dispose()
    count, biggest, _ = await _stored_bytes(db, match.id)
    assert count >= 3 and biggest > 0
