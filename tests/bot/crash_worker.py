"""A worker process for the kill-and-restart test (run as `python -m tests.bot.crash_worker`).

It starts (or resumes) matches on a SQLite file and keeps playing them with built-in bots.
After every commit it appends the accepted action to ACCEPTED (one JSON line), after every
delivery the message id to DELIVERED, then fsyncs, so the test knows what the process had
accepted and delivered when it was killed. With --finish it plays until every bot match has
ended, waits for the outbox to drain and exits 0.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys

from bot.store.database import create_engine
from bot.store.repository import MatchWrite, Repository, StoredMessage
from bot.transport import MatchInfo, PlayerRef
from bot.umpire import MatchService
from tests.support.register import register_duel

BOT_MATCHES = 6
CLOCK_MATCHES = 2  # a person who never moves: their clocks stay armed across restarts


def _append(path: str, line: str) -> None:
    with open(path, "a", encoding="utf-8") as f:
        f.write(line + "\n")
        f.flush()
        os.fsync(f.fileno())


class LoggingTransport:
    def __init__(self, path: str) -> None:
        self.path = path

    async def send(self, match: MatchInfo, message: StoredMessage) -> None:
        _append(self.path, str(message.id))


class LoggingService(MatchService):
    accepted_path = ""

    async def _commit(self, match, write: MatchWrite, now) -> None:  # type: ignore[no-untyped-def]
        await super()._commit(match, write, now)
        if write.action is not None:
            seat, command, _source = write.action
            _append(self.accepted_path, json.dumps(
                {"match": match.id, "seq": write.seq, "seat": seat, "command": command}))


async def main(db: str, accepted: str, delivered: str, finish: bool) -> None:
    register_duel()
    engine = create_engine(f"sqlite+aiosqlite:///{db}")
    LoggingService.accepted_path = accepted
    service = LoggingService(Repository(engine), LoggingTransport(delivered), bot_think=0.01,
                             snapshot_every=4, heartbeat_seconds=0.2)
    await service.start()
    if not service.matches and not await service.repo.list_matches(1):
        for i in range(BOT_MATCHES):
            await service.start_match("rps-poker", [PlayerRef(f"b{i}a", "A", bot="random"),
                                                    PlayerRef(f"b{i}b", "B", bot="random")],
                                      seed=f"crash-{i}")
        for i in range(CLOCK_MATCHES):
            await service.start_match("duel", [PlayerRef(f"h{i}", "Human"),
                                               PlayerRef(f"d{i}", "Bot", bot="highest")],
                                      settings={"pick_seconds": 600}, seed=f"clock-{i}")
    print("READY", flush=True)
    if finish:
        bot_matches = [m.id for m in service.matches.values() if m.game.slug == "rps-poker"]
        await service.wait_finished(bot_matches, timeout=120)
        await service.delivery.drain()
        await service.stop()
        await engine.dispose()
        print("FINISHED", flush=True)
        return
    await asyncio.Event().wait()  # play until killed


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("db")
    parser.add_argument("accepted")
    parser.add_argument("delivered")
    parser.add_argument("--finish", action="store_true")
    args = parser.parse_args()
    asyncio.run(main(args.db, args.accepted, args.delivered, args.finish))
    sys.exit(0)
