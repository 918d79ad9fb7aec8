"""Exported records of demo matches (one per game), for the tests of records."""

from __future__ import annotations

import asyncio
import io
import json
from pathlib import Path


def demo_records(db: Path, games: list[str], seed: int) -> list[dict]:
    """Play one demo match of each of `games` on `db`, then export each: the records."""
    from bot.cli import main as cli_main
    from bot.console.demo import run_demo

    asyncio.run(run_demo(games, seed, quiet=True, db=str(db), out=io.StringIO()))
    out = []
    for n in range(1, len(games) + 1):
        path = db.parent / f"{n}.json"
        assert cli_main(["export", str(n), "--db", str(db), "-o", str(path)]) == 0
        out.append(json.loads(path.read_text()))
    return out
