"""A sharded worker for the pause test (`python -m tests.bot.pause_worker`; issue 45).

Like `shard_worker`, it umpires one shard of two on a PostgreSQL database with a short
lease, starts MATCHES bot-against-bot RPS Poker matches and one Duel whose person never
moves (every pick times out after --pick seconds), and plays. It never asks its own shard
back once another process took it (so the shards go to whichever process was not paused
last). One JSON line per event goes to LOG, fsynced at once, with this process's pid and
the wall time: every lease taken ("take", with its generation, just after the take's
transaction) and lost ("lost"); every write of the service ("wrote", `began` just before
it was handed to the store, `at` once stored) or refused ("refused", with why); every
message posted ("sent"; one already posted by any process is "skipped", as Discord's
transport skips a message whose nonce it finds in its channel). With --go it starts its
matches once that file exists (both processes' matches then start together). With --finish it plays
until every match of both shards has ended and nothing is left to deliver, then stops
cleanly and prints FINISHED and the shards it owned.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import time
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import text
from sqlalchemy.exc import DBAPIError

from bot.shards import ShardKeeper, process_name
from bot.store.database import create_engine
from bot.store.leases import Leases, OnTaken, Taken
from bot.store.repository import MatchWrite, Repository, StoredMessage
from bot.transport import MatchInfo, PlayerRef
from bot.umpire import MatchService
from tests.bot.shard_worker import SHARDS, _append, guild_of, play_out
from tests.support.driver import drive
from tests.support.register import register_duel

LOG = ""


def log(kind: str, **data: Any) -> None:
    _append(LOG, {"pid": os.getpid(), "kind": kind, "at": time.time(), **data})


class LoggedLeases(Leases):
    async def take(self, shard: int, now: datetime, *, on_taken: OnTaken | None = None,
                   only_if_held_before: bool = False) -> Taken | None:
        taken = await super().take(shard, now, on_taken=on_taken,
                                   only_if_held_before=only_if_held_before)
        if taken is not None:
            log("take", shard=shard, generation=taken.generation)
        return taken


class NonceTransport:
    """Posts by appending to LOG; a message any process posted already is skipped."""

    def _sent(self) -> set[int]:
        with open(LOG, encoding="utf-8") as f:
            return {e["id"] for line in f if line.strip()
                    for e in [json.loads(line)] if e["kind"] == "sent"}

    async def send(self, match: MatchInfo, message: StoredMessage) -> None:
        log("skipped" if message.id in self._sent() else "sent", id=message.id,
            match=match.id)


class LoggingService(MatchService):
    async def _commit(self, match, write: MatchWrite, now) -> None:  # type: ignore[no-untyped-def]
        began = time.time()
        try:
            await super()._commit(match, write, now)
        except Exception as exc:
            log("refused", match=match.id, began=began, error=type(exc).__name__,
                why=str(exc))
            raise
        log("wrote", match=match.id, seq=write.seq, began=began, fence=write.fence,
            command=write.action[1] if write.action else None)


async def _all_done(service: MatchService, expected: int) -> bool:
    """Whether every match has finished and every message is delivered. A read the
    database refuses counts as not yet: with a 3 s lease a sharded session's transaction
    left idle for 1 s is ended by the server (`bound_idle_transactions`), and on two busy
    cores this process's event loop can stall that long between the two reads (seen once
    in a full suite run at load 4)."""
    try:
        async with drive(service).engine.connect() as conn:
            rows = (await conn.execute(text("SELECT status FROM matches"))).scalars().all()
            pending = (await conn.execute(text(
                "SELECT count(*) FROM outbox WHERE delivered_at IS NULL"))).scalar_one()
    except DBAPIError as exc:
        print(f"check refused, tried again: {type(exc.orig).__name__}", file=sys.stderr)
        return False
    return len(rows) == expected and all(s == "finished" for s in rows) and pending == 0


async def main(url: str, shard: int, matches: int, ttl: float, think: float, pick: float,
               finish: bool, go: str) -> None:
    register_duel()
    engine = create_engine(url)
    service = LoggingService(Repository(engine, shard_count=SHARDS, shards=set()),
                             NonceTransport(), bot_think=think, snapshot_every=4,
                             heartbeat_seconds=0.2)
    await service.start()
    keeper = ShardKeeper(service, LoggedLeases(engine, process_name(), timedelta(seconds=ttl)),
                         shard_count=SHARDS, preferred={shard}, renew_seconds=0.2)
    lost = keeper.fence.on_lost
    assert lost is not None

    def on_lost(shards: set[int]) -> None:
        log("lost", shards=sorted(shards))
        lost(shards)

    keeper.fence.on_lost = on_lost
    await keeper.start()
    assert keeper.owned == {shard}, keeper.owned
    keeper.preferred = set()  # (never asked back: whoever was not paused keeps it)
    print("READY", flush=True)
    while go and not os.path.exists(go):  # (the matches of both start together)
        await asyncio.sleep(0.05)
    for i in range(matches):
        await service.start_match("rps-poker", [PlayerRef(f"s{shard}b{i}a", "A", bot="random"),
                                                PlayerRef(f"s{shard}b{i}b", "B", bot="random")],
                                  seed=f"pause{shard}-{i}", transport={"guild": guild_of(shard, i)})
    await service.start_match("duel", [PlayerRef(f"s{shard}h", "Human"),
                                       PlayerRef(f"s{shard}d", "Bot", bot="highest")],
                              settings={"pick_seconds": pick, "rounds": 9}, seed=f"timeouts-{shard}",
                              transport={"guild": guild_of(shard, matches)})
    await play_out(service, keeper, finish, lambda: _all_done(service, SHARDS * (matches + 1)),
                   wait=150)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("url")
    parser.add_argument("shard", type=int)
    parser.add_argument("log")
    parser.add_argument("--matches", type=int, default=2)
    parser.add_argument("--ttl", type=float, default=3.0)
    parser.add_argument("--think", type=float, default=0.5)
    parser.add_argument("--pick", type=float, default=2.5)
    parser.add_argument("--finish", action="store_true")
    parser.add_argument("--go", default="", help="start the matches once this file exists")
    args = parser.parse_args()
    LOG = args.log
    asyncio.run(main(args.url, args.shard, args.matches, args.ttl, args.think, args.pick,
                     args.finish, args.go))
    sys.exit(0)
