"""A worker process for the kill-and-restart test (run as `python -m tests.bot.crash_worker`).

It starts (or resumes) matches on a SQLite file or a database URL and keeps playing them with built-in bots.
After every commit it appends the accepted action to ACCEPTED (one JSON line), after every
delivery the message id to DELIVERED, then fsyncs, so the test knows what the process had
accepted and delivered when it was killed. With --finish it plays until every bot match has
ended, waits for the outbox to drain and exits 0. With --kill-in-start POINT it SIGKILLs
itself while starting its third match: `transaction` inside the transaction that stores the
match's opening (seed commitment, first prompts, clocks), after its outbox rows were written
and before the commit; `delivery` right after that commit, before anything was delivered.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import sys
from typing import Any

from bot.store import repository as repository_module
from bot.store.database import create_engine
from bot.store.repository import MatchWrite, Repository, StoredMessage
from bot.transport import MatchInfo, PlayerRef
from bot.umpire import MatchService
from tests.support.driver import drive
from tests.support.register import register_duel

BOT_MATCHES = 6
KILL_AT_OPENING = 3  # --kill-in-start: the opening of the third match
CLOCK_MATCHES = 2  # a person who never moves: their clocks stay armed across restarts


def _append(path: str, line: str) -> None:
    with open(path, "a", encoding="utf-8") as f:
        f.write(line + "\n")
        f.flush()
        os.fsync(f.fileno())


def store_url(db: str) -> str:
    """The worker's database: a SQLAlchemy URL as given, or the path of a SQLite file."""
    return db if "://" in db else f"sqlite+aiosqlite:///{db}"


class LoggingTransport:
    def __init__(self, path: str) -> None:
        self.path = path

    async def send(self, match: MatchInfo, message: StoredMessage) -> None:
        _append(self.path, str(message.id))


def _die() -> None:
    os.kill(os.getpid(), signal.SIGKILL)


def _is_opening(texts: list[str]) -> bool:
    return any("Seed commitment" in t for t in texts)


def kill_inside_opening_transaction() -> None:
    """SIGKILL after the KILL_AT_OPENING-th opening's outbox rows are written, uncommitted."""
    original = repository_module._insert_outbox
    openings = [0]

    def insert_then_die(conn: Any, rows: list[dict[str, Any]]) -> list[int]:
        ids = original(conn, rows)
        if _is_opening([r["text"] for r in rows]):
            openings[0] += 1
            if openings[0] == KILL_AT_OPENING:
                _die()
        return ids

    repository_module._insert_outbox = insert_then_die


class LoggingService(MatchService):
    accepted_path = ""
    kill_after_opening_commit = False
    _openings = 0

    async def _commit(self, match, write: MatchWrite, now) -> None:  # type: ignore[no-untyped-def]
        await super()._commit(match, write, now)
        if self.kill_after_opening_commit and _is_opening([m.text for m in write.outbox]):
            self._openings += 1
            if self._openings == KILL_AT_OPENING:
                _die()  # committed; nothing of it delivered yet
        if write.action is not None:
            seat, command, _source = write.action
            _append(self.accepted_path, json.dumps(
                {"match": match.id, "seq": write.seq, "seat": seat, "command": command}))


async def main(db: str, accepted: str, delivered: str, finish: bool,
               kill_in_start: str | None = None) -> None:
    register_duel()
    if kill_in_start == "transaction":
        kill_inside_opening_transaction()
    LoggingService.kill_after_opening_commit = kill_in_start == "delivery"
    engine = create_engine(store_url(db))
    LoggingService.accepted_path = accepted
    service = LoggingService(Repository(engine), LoggingTransport(delivered), bot_think=0.01,
                             snapshot_every=4, heartbeat_seconds=0.2)
    await service.start()
    if not service.matches and not await drive(service).stored_matches(1):
        for i in range(BOT_MATCHES):
            await service.start_match("rps-poker", [PlayerRef(f"b{i}a", "A", bot="random"),
                                                    PlayerRef(f"b{i}b", "B", bot="random")],
                                      seed=f"crash-{i}")
        for i in range(CLOCK_MATCHES):
            await service.start_match("duel", [PlayerRef(f"h{i}", "Human"),
                                               PlayerRef(f"d{i}", "Bot", bot="highest")],
                                      settings={"pick_seconds": 600}, seed=f"clock-{i}")
    # READY and how long ago the clocks were shifted (that part of the start is charged)
    print(f"READY {(service.now() - service.clocks_shifted_at).total_seconds():.3f}",
          flush=True)
    if finish:
        bot_matches = [m.id for m in drive(service).matches() if m.game.slug == "rps-poker"]
        await service.wait_finished(bot_matches, timeout=120)
        await drive(service).drain()
        await service.stop()
        await engine.dispose()
        print("FINISHED", flush=True)
        return
    await asyncio.Event().wait()  # play until killed


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("db", help="a SQLite file, or a database URL (PostgreSQL)")
    parser.add_argument("accepted")
    parser.add_argument("delivered")
    parser.add_argument("--finish", action="store_true")
    parser.add_argument("--kill-in-start", choices=("transaction", "delivery"))
    args = parser.parse_args()
    asyncio.run(main(args.db, args.accepted, args.delivered, args.finish, args.kill_in_start))
    sys.exit(0)
