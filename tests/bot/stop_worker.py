"""A worker process for the clock-stop kill test (run as `python -m tests.bot.stop_worker`).

`start`: starts a duel (Ann and Bob, 4-s decisions) on the SQLite file DB; once both prompts
are out, the game room is held (a file `public` in FLAGS: sends there raise `ChannelHeld`)
and Ann picks: her pick's message to the room is held, so Bob's clock stops. The worker
prints `STOPPED <Bob's limit> <the stop's since>` once the stop is stored, then waits to be
killed. `resume`: starts the service on the same file (the room still held), waits 2 s,
prints `HELD <round>`, lifts the hold and prints `BACK <when the room's message went
through> <Bob's limit then>` once his clock goes on.
"""

from __future__ import annotations

import asyncio
import sys
from datetime import UTC, datetime
from pathlib import Path

from sqlalchemy import text

from bot.store.database import create_engine
from bot.store.repository import Repository, StoredMessage
from bot.transport import ChannelHeld, MatchInfo
from bot.umpire import MatchService
from tests.bot.conftest import ANN, BOB
from tests.support.driver import drive
from tests.support.register import register_duel


class FlagTransport:
    """Sends to an audience with a file of its name in `flags` are held; the time of each
    send that went through is kept by audience."""

    def __init__(self, flags: Path) -> None:
        self.flags = flags
        self.through: dict[str, list[tuple[datetime, str]]] = {}

    async def send(self, match: MatchInfo, message: StoredMessage) -> None:
        if (self.flags / message.audience).exists():
            raise ChannelHeld("held", for_hosts="The room can be read by everyone.")
        self.through.setdefault(message.audience, []).append(
            (datetime.now(UTC), message.text))


def say(*words: object) -> None:
    print(*words, flush=True)


async def main(db: str, flags: Path, mode: str) -> None:
    register_duel()
    repo = Repository(create_engine(f"sqlite+aiosqlite:///{db}"))
    transport = FlagTransport(flags)
    service = MatchService(repo, transport, heartbeat_seconds=0.2)  # type: ignore[arg-type]
    drive(service).set_backoff(max_backoff=0.2)
    await service.start()
    if mode == "start":
        match = await service.start_match("duel", [ANN, BOB], settings={"pick_seconds": 4.0})
        while "seat1" not in transport.through or "public" not in transport.through:
            await asyncio.sleep(0.01)
        (flags / "public").touch()
        assert (await service.submit(match.id, ANN.id, "pick 4", table_of=0)).accepted
        while True:
            async with repo.engine.connect() as conn:
                row = (await conn.execute(text("SELECT since FROM clock_stops"))).first()
            if row is not None:
                break
            await asyncio.sleep(0.01)
        say("STOPPED", match.clocks["r1:s1"].limit_at.isoformat(), row.since)
        await asyncio.sleep(3600)
    await service.hydrated()
    match = next(iter(drive(service).matches()))
    await asyncio.sleep(2)
    say("HELD", match.state.round, bool(drive(service).stopped_clocks()))
    (flags / "public").unlink()
    drive(service).wake()
    while "public" not in transport.through or drive(service).stopped_clocks():
        await asyncio.sleep(0.01)
    async with match.lock:  # (the clock moved on is stored, then made live)
        pass
    back = transport.through["public"][0][0]
    bob = match.clocks.get("r1:s1")
    say("BACK", back.isoformat(), bob.limit_at.isoformat() if bob and bob.limit_at else "-",
        match.state.round)
    await service.stop()


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], Path(sys.argv[2]), sys.argv[3]))
