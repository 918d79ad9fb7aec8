"""What the kill-and-restart suites check after every restart (tests/bot/test_kill_restart*.py)."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path

from bot.live import LiveMatch
from bot.store.database import create_engine
from bot.store.repository import Repository
from games.core import replay
from games.registry import get_game

#: The crash workers' heartbeat (`heartbeat_seconds=0.2`): a clock may come back with at most
#: this much more time than it had at the kill.
HEARTBEAT = timedelta(seconds=0.2)


async def check_store(db: str, accepted: Path) -> int:
    """Asserts that every accepted action is stored, without gaps, and that every match's
    state equals a replay from its seed; returns how many actions are stored."""
    engine = create_engine(db)
    repo = Repository(engine)
    stored_actions = 0
    logged = [json.loads(line) for line in accepted.read_text().splitlines() if line.strip()]
    for row in await repo.list_matches(100):
        actions = await repo.actions(row.id)
        stored_actions += len(actions)
        assert [a.seq for a in actions] == list(range(1, len(actions) + 1)), "gap in the log"
        by_seq = {a.seq: a for a in actions}
        for entry in (e for e in logged if e["match"] == row.id):
            assert by_seq[entry["seq"]].command == entry["command"], "accepted action changed"
        stored = await repo.load_match(row.id)
        assert stored is not None
        game = get_game(row.game)
        fresh, _ = replay(game, game.load_settings(row.settings), row.seed,
                          [(a.seat, game.load_command(a.command)) for a in actions])
        assert LiveMatch.from_store(stored).state.model_dump_json() == fresh.model_dump_json()
    assert len(logged) <= stored_actions
    await engine.dispose()
    return stored_actions
