"""A sharded worker process for the scale-out test (`python -m tests.bot.shard_worker`).

It runs the match service on a PostgreSQL database as the owner of one shard of two (a
`ShardKeeper` with a short lease), starts MATCHES bot-against-bot RPS Poker matches on
servers of its shard and one Duel match whose person never moves (its clock stays armed),
and plays. Every accepted action is appended to ACCEPTED and every message sent to SENT,
one JSON line each with this process's pid, its shard and the wall time, fsynced at once.
The transport de-duplicates by message id the way the Discord transport does with its
nonce (a message already in the channel is not posted again): a message found in SENT is
logged as "skipped". With --finish it plays until every RPS Poker match of both shards has
ended and nothing is left to deliver, then stops cleanly and prints FINISHED.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import time
from collections.abc import Awaitable, Callable
from datetime import timedelta
from typing import Any

from sqlalchemy import text

from bot.shards import ShardKeeper, process_name
from bot.store.database import create_engine
from bot.store.leases import Leases
from bot.store.repository import MatchWrite, Repository, StoredMessage
from bot.transport import MatchInfo, PlayerRef
from bot.umpire import MatchService
from tests.support.driver import drive
from tests.support.register import register_duel

SHARDS = 2


def guild_of(shard: int, i: int) -> int:
    """A server id in `shard` (Discord's formula: (id >> 22) % SHARDS)."""
    return ((SHARDS * (i + 1) + shard) << 22) | 4242


def _append(path: str, entry: dict[str, Any]) -> None:
    with open(path, "a", encoding="utf-8") as f:
        f.write(json.dumps(entry) + "\n")
        f.flush()
        os.fsync(f.fileno())


def _stamp(shard: int) -> dict[str, Any]:
    return {"pid": os.getpid(), "shard": shard, "at": time.time()}


class NonceTransport:
    """Logs each message sent; one already sent (by any process) is skipped, as Discord's
    transport skips a message whose nonce it finds in the channel."""

    def __init__(self, path: str, shard: int) -> None:
        self.path = path
        self.shard = shard

    def _sent(self) -> set[int]:
        if not os.path.exists(self.path):
            return set()
        with open(self.path, encoding="utf-8") as f:
            return {e["id"] for line in f if line.strip()
                    for e in [json.loads(line)] if e["kind"] == "sent"}

    async def send(self, match: MatchInfo, message: StoredMessage) -> None:
        kind = "skipped" if message.id in self._sent() else "sent"
        _append(self.path, {**_stamp(self.shard), "kind": kind, "id": message.id,
                            "match": match.id})


class LoggingService(MatchService):
    accepted_path = ""
    shard = 0

    async def _commit(self, match, write: MatchWrite, now) -> None:  # type: ignore[no-untyped-def]
        await super()._commit(match, write, now)
        if write.action is not None:
            seat, command, _source = write.action
            _append(self.accepted_path, {**_stamp(self.shard), "match": match.id,
                                         "seq": write.seq, "seat": seat, "command": command})


async def _all_done(service: MatchService, expected: int) -> bool:
    async with drive(service).engine.connect() as conn:
        rows = (await conn.execute(text(
            "SELECT status FROM matches WHERE game = 'rps-poker'"))).scalars().all()
        pending = (await conn.execute(text(
            "SELECT count(*) FROM outbox WHERE delivered_at IS NULL"))).scalar_one()
    return len(rows) == expected and all(s == "finished" for s in rows) and pending == 0


async def main(url: str, shard: int, accepted: str, sent: str, matches: int, ttl: float,
               think: float, finish: bool) -> None:
    register_duel()
    engine = create_engine(url)
    repo = Repository(engine, shard_count=SHARDS, shards=set())
    LoggingService.accepted_path, LoggingService.shard = accepted, shard
    service = LoggingService(repo, NonceTransport(sent, shard), bot_think=think,
                             snapshot_every=4, heartbeat_seconds=0.2)
    await service.start()
    keeper = ShardKeeper(service, Leases(engine, process_name(), timedelta(seconds=ttl)),
                         shard_count=SHARDS, preferred={shard}, renew_seconds=0.2)
    await keeper.start()
    assert keeper.owned == {shard}, keeper.owned
    for i in range(matches):
        await service.start_match("rps-poker", [PlayerRef(f"s{shard}b{i}a", "A", bot="random"),
                                                PlayerRef(f"s{shard}b{i}b", "B", bot="random")],
                                  seed=f"shard{shard}-{i}", transport={"guild": guild_of(shard, i)})
    await service.start_match("duel", [PlayerRef(f"s{shard}h", "Human"),
                                       PlayerRef(f"s{shard}d", "Bot", bot="highest")],
                              settings={"pick_seconds": 600}, seed=f"clock-{shard}",
                              transport={"guild": guild_of(shard, matches)})
    print("READY", flush=True)
    await play_out(service, keeper, finish, lambda: _all_done(service, SHARDS * matches))


async def play_out(service: MatchService, keeper: ShardKeeper, finish: bool,
                   done: Callable[[], Awaitable[bool]], wait: float = 120) -> None:
    """Play until killed; with `finish`, until `done()` (within `wait` s, else exit 3),
    then stop cleanly and print FINISHED and the shards owned."""
    if not finish:
        await asyncio.Event().wait()  # play until killed
    deadline = time.monotonic() + wait
    while not await done():
        if time.monotonic() > deadline:
            print("TIMEOUT", flush=True)
            sys.exit(3)
        await asyncio.sleep(0.2)
    owned = sorted(keeper.owned)
    await keeper.stop()
    await service.stop()
    await keeper.release()
    await drive(service).engine.dispose()
    print("FINISHED", json.dumps(owned), flush=True)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("url")
    parser.add_argument("shard", type=int)
    parser.add_argument("accepted")
    parser.add_argument("sent")
    parser.add_argument("--matches", type=int, default=3)
    parser.add_argument("--ttl", type=float, default=2.0)
    parser.add_argument("--think", type=float, default=0.05)
    parser.add_argument("--finish", action="store_true")
    args = parser.parse_args()
    asyncio.run(main(args.url, args.shard, args.accepted, args.sent, args.matches, args.ttl,
                     args.think, args.finish))
    sys.exit(0)
