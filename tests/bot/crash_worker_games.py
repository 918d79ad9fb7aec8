"""A worker for the every-game kill-and-restart test (`python -m tests.bot.crash_worker_games`).

Like tests.bot.crash_worker, for every game: it starts (or resumes) built-in bot matches
of every game, plus one match per game where a person (who never moves) faces a bot, so
that clocks stay armed across restarts. After every commit it appends the accepted action to
ACCEPTED, after every send "message-id unix-time" to SENT, each fsynced. With --finish it
plays until every bot match has ended, drains the outbox and exits 0.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import sys
import time

from bot.store.database import create_engine
from bot.store.repository import ENDED_STATUSES, MatchWrite, Repository, StoredMessage
from bot.transport import MatchInfo, PlayerRef
from bot.umpire import MatchService
from games.registry import all_games, installed_games
from tests.bot.crash_worker import _append, store_url
from tests.support.driver import drive

GAMES = tuple(installed_games())


class TimedTransport:
    def __init__(self, path: str) -> None:
        self.path = path

    async def send(self, match: MatchInfo, message: StoredMessage) -> None:
        _append(self.path, f"{message.id} {time.time():.3f}")


class LoggingService(MatchService):
    accepted_path = ""
    kill_after = 0  # > 0: SIGKILL itself right after that many commits, before delivering
    #: Bot matches still playing. The commit that ends the last of them also kills (when
    #: kill_after is set), so a kill never waits on a person's clock running out.
    bots_playing: set[int] = set()

    async def _commit(self, match, write: MatchWrite, now) -> None:  # type: ignore[no-untyped-def]
        await super()._commit(match, write, now)
        if write.action is not None:
            seat, command, _source = write.action
            _append(self.accepted_path, json.dumps(
                {"match": match.id, "seq": write.seq, "seat": seat, "command": command}))
        if write.match_fields.get("status") in ENDED_STATUSES:
            self.bots_playing.discard(match.id)
        if self.kill_after > 0 and write.outbox:
            LoggingService.kill_after -= 1
            if LoggingService.kill_after == 0 or not self.bots_playing:
                os.kill(os.getpid(), signal.SIGKILL)  # committed, enqueued, not yet sent


async def main(db: str, accepted: str, sent: str, finish: bool, per_game: int,
               kill_after: int) -> None:
    engine = create_engine(store_url(db))
    LoggingService.accepted_path = accepted
    service = LoggingService(Repository(engine), TimedTransport(sent), bot_think=0.03,
                             snapshot_every=4, heartbeat_seconds=0.2)
    await service.start()
    if not service.matches and not await drive(service).stored_matches(1):
        for game in GAMES:
            for i in range(per_game):
                await service.start_match(game, [PlayerRef(f"{game}{i}a", "A", bot="random"),
                                                 PlayerRef(f"{game}{i}b", "B", bot="random")],
                                          settings=all_games()[game].quick_settings(), seed=f"kill-{game}-{i}")
            await service.start_match(game, [PlayerRef(f"{game}-h", "Human"),
                                             PlayerRef(f"{game}-bot", "Bot", bot="random")],
                                      settings=all_games()[game].quick_settings(), seed=f"clock-{game}")
    # READY and how long ago the clocks were shifted (that part of the start is charged)
    print(f"READY {(service.now() - service.clocks_shifted_at).total_seconds():.3f}",
          flush=True)
    bots = [m.id for m in drive(service).matches()
            if all(p.bot is not None for p in m.players)]
    playing = {m for m in bots if service.matches[m].status not in ENDED_STATUSES}
    if kill_after and not playing:  # the test's plan left nothing to kill after
        print("no bot match left to kill after", file=sys.stderr, flush=True)
        sys.exit(3)
    LoggingService.bots_playing = playing
    LoggingService.kill_after = kill_after  # counted from here: never before READY
    if finish:
        await service.wait_finished(bots, timeout=240)
        await drive(service).drain()
        await service.stop()
        await engine.dispose()
        print("FINISHED", flush=True)
        return
    await asyncio.Event().wait()  # play until killed


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("db")
    parser.add_argument("accepted")
    parser.add_argument("sent")
    parser.add_argument("--finish", action="store_true")
    parser.add_argument("--per-game", type=int, default=2)
    parser.add_argument("--kill-after-commits", type=int, default=0)
    args = parser.parse_args()
    asyncio.run(main(args.db, args.accepted, args.sent, args.finish, args.per_game,
                     args.kill_after_commits))
    sys.exit(0)
