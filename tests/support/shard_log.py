"""What the multi-process shard tests read back: a worker's JSON-lines log, and the store
(every match replayed from its seed and log, checked against its stored state)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from sqlalchemy import text

from bot.live import LiveMatch
from bot.store.database import create_engine
from bot.store.repository import Repository
from games.core import replay
from games.registry import get_game


def lines(path: Path) -> list[dict[str, Any]]:
    """The entries of a worker's JSON-lines log (none if it was never written)."""
    return [json.loads(x) for x in path.read_text().splitlines() if x.strip()] \
        if path.exists() else []


async def stored(url: str) -> tuple[dict[int, Any], dict[int, list[Any]], list[Any]]:
    """Every match row, its actions and the outbox, once each match has been checked to
    replay from its seed and log to its stored state."""
    engine = create_engine(url)
    repo = Repository(engine)
    rows = {r.id: r for r in await repo.list_matches(100)}
    actions = {i: await repo.actions(i) for i in rows}
    async with engine.connect() as conn:
        outbox = (await conn.execute(text("SELECT id, match_id, delivered_at FROM outbox"))).all()
    for row in rows.values():  # every state replays from the seed
        game = get_game(row.game)
        match = await repo.load_match(row.id)
        assert match is not None
        fresh, _ = replay(game, game.load_settings(row.settings), row.seed,
                          [(a.seat, game.load_command(a.command)) for a in actions[row.id]])
        assert LiveMatch.from_store(match).state.model_dump_json() == fresh.model_dump_json()
    await engine.dispose()
    return rows, actions, outbox
