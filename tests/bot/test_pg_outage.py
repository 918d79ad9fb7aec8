"""PostgreSQL stopped for 5 s mid-play: moves are refused clearly while it is down, play
resumes on its own once it is back (no restart of the service), every match replays its
stored log exactly, and a restart of the service rebuilds every match.

The test runs its own server (testbed/pg_server.py's binaries) so that it can stop it
(`pg_ctl stop -m fast`, what a restart or a failover does) and start it again.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from typing import Any

import asyncpg
import pytest

from bench.service import timed_settings
from bot.live import LiveMatch
from bot.store.database import UNREACHABLE_WAIT_SECONDS, create_engine
from bot.store.repository import Repository
from bot.store.single_statement import SingleStatementWrites
from bot.transport import PlayerRef
from bot.umpire import MatchService
from games.registry import installed_games
from testbed import pg_server
from tests.support.driver import drive
from tests.support.transport import RecordingTransport

pytestmark = pytest.mark.slow

OUTAGE_SECONDS = 5.0


class StoppableServer:
    """A throwaway PostgreSQL server that can be stopped and started again."""

    def __init__(self) -> None:
        bindir = pg_server._binaries()
        assert bindir is not None
        self.bindir = bindir
        self.root = tempfile.mkdtemp(prefix="umpire-pg-outage-")
        self.as_user: list[str] = []
        if os.geteuid() == 0:  # postgres refuses to run as root
            shutil.chown(self.root, "postgres")
            self.as_user = ["runuser", "-u", "postgres", "--"]
        self.data, self.port = os.path.join(self.root, "data"), pg_server._free_port()
        subprocess.run([*self.as_user, f"{bindir}/initdb", "-D", self.data, "-A", "trust",
                        "-U", "umpire"], check=True, capture_output=True)
        self.template = f"postgresql+asyncpg://umpire@127.0.0.1:{self.port}/{{db}}"

    def pg_ctl(self, *args: str) -> None:
        subprocess.run([*self.as_user, f"{self.bindir}/pg_ctl", "-D", self.data, *args],
                       check=True, capture_output=True)

    def start(self) -> None:
        self.pg_ctl("-w", "-l", os.path.join(self.root, "log"), "-o",
                    f"-p {self.port} -k {self.root} -c listen_addresses=127.0.0.1", "start")

    def stop(self) -> None:
        self.pg_ctl("-w", "-m", "fast", "stop")

    def remove(self) -> None:
        with contextlib.suppress(subprocess.CalledProcessError):
            self.pg_ctl("-m", "immediate", "stop")
        shutil.rmtree(self.root, ignore_errors=True)


@pytest.fixture
def server() -> Iterator[StoppableServer]:
    if not pg_server.available():
        pg_server.unavailable("PostgreSQL binaries are not installed on this machine")
    made = StoppableServer()
    made.start()
    try:
        yield made
    finally:
        made.remove()


def _picture(match: LiveMatch) -> dict[str, Any]:
    return {"state": match.state.model_dump_json(), "seq": match.seq, "status": match.status,
            "result": match.result, "prompts": sorted(p.key for p in match.prompts)}


async def _play(service: MatchService, ids: list[int], replies: list[Any]) -> None:
    """One person's random moves after another in every match, until each has ended."""
    loop = asyncio.get_running_loop()
    rng = random.Random(7)

    async def player(match_id: int) -> None:
        while True:
            match = service.matches[match_id]
            if match.status != "active":
                return
            prompt = rng.choice(match.prompts)
            command = match.game.random_command(match.state, prompt, rng)
            sent = loop.time()
            reply = await service.submit_command(match_id, prompt.seat, command)
            replies.append((sent, loop.time(), reply, match_id))
            await asyncio.sleep(0.1)

    await asyncio.gather(*(player(i) for i in ids))


async def test_postgresql_stopped_for_5_s_mid_play(server: StoppableServer) -> None:
    url = await pg_server.create_database(server.template, "outage")
    engine = create_engine(url)
    service = MatchService(Repository(engine), RecordingTransport())
    await service.start()
    loop = asyncio.get_running_loop()
    ids = []
    for n, slug in enumerate(installed_games()):  # (no clock runs out during the test)
        match = await service.start_match(slug, [PlayerRef(f"u:a{n}", "Ann"),
                                                 PlayerRef(f"u:b{n}", "Bob")],
                                          seed=f"outage-{n}",
                                          settings=timed_settings(slug, 600, short=False))
        ids.append(match.id)
    replies: list[Any] = []
    players = asyncio.create_task(_play(service, ids, replies))
    await asyncio.sleep(2)
    stopping_at = loop.time()
    await asyncio.to_thread(server.stop)
    down_at = loop.time()
    await asyncio.sleep(OUTAGE_SECONDS)
    starting_at = loop.time()
    await asyncio.to_thread(server.start)
    up_at = loop.time()
    await asyncio.wait_for(players, 60)  # every match plays to its end
    assert all(service.matches[i].status == "finished" for i in ids)
    before = [r for _, got, r, _ in replies if got < stopping_at]
    assert before and all(r.accepted for r in before), {r.message for r in before}
    refused = [(sent, got, r, m) for sent, got, r, m in replies if not r.accepted]
    # Moves refused while the server was down (each match's first write then waits in one
    # batch; writes queued behind that batch wait their own turn, and may be stored once the
    # server is back, so not every match need have one refused).
    assert refused, "moves were refused while the server was down"
    assert all("could not record that move" in r.message for _, _, r, _ in refused), \
        {r.message for _, _, r, _ in refused}
    assert all(stopping_at <= got <= up_at + 1 for _, got, _, _ in refused), "only while down"
    assert not any(r.accepted for sent, got, r, _ in replies
                   if down_at < sent and got < starting_at), "nothing stored while down"
    assert max(got - sent for sent, got, _, _ in refused) < UNREACHABLE_WAIT_SECONDS + 1, \
        "a move waits briefly, then is refused"
    after = [r for sent, _, r, _ in replies if sent > up_at]
    assert after and all(r.accepted for r in after), "play resumed on its own"
    pictures = {}
    for match_id in ids:
        stored = await drive(service).stored(match_id)
        assert stored is not None
        live = service.matches[match_id]
        pictures[match_id] = _picture(live)
        assert _picture(LiveMatch.from_store(stored)) == pictures[match_id], \
            f"{live.game.slug}: the live match is what its log replays"
    await service.stop()
    await engine.dispose()

    engine = create_engine(url)
    revived = MatchService(Repository(engine), RecordingTransport())
    await revived.start()
    await revived.hydrated(30)
    try:
        for match_id in ids:
            assert _picture(await revived.load(match_id)) == pictures[match_id]
    finally:
        await revived.stop()
        await engine.dispose()


class _AnswerLost:
    """An asyncpg connection whose next statement runs, then loses its answer (the
    connection closes before the server's reply arrives): a crash or a network cut right
    at a COMMIT."""

    def __init__(self, driver: Any) -> None:
        self._driver = driver

    async def fetch(self, *args: Any) -> Any:
        await self._driver.fetch(*args)
        await self._driver.close()
        raise asyncpg.ConnectionDoesNotExistError("connection was closed in the middle of "
                                                  "operation")

    def __getattr__(self, name: str) -> Any:
        return getattr(self._driver, name)


# One game of each way a match is stored, not every game: RPS Poker with snapshots of its
# state, Decoder (`snapshots = False`) rebuilt from its action log; the others store as RPS
# Poker does.
@pytest.mark.parametrize("game", ["rps-poker", "decoder"])
async def test_a_write_whose_answer_is_lost_is_found_stored(pg_url: str, game: str,
                                                          monkeypatch: pytest.MonkeyPatch
                                                          ) -> None:
    engine = create_engine(pg_url)
    repo = Repository(engine)
    service = MatchService(repo, RecordingTransport())
    await service.start()
    try:
        match = await service.start_match(game, [PlayerRef("u:a", "Ann"),
                                                 PlayerRef("u:b", "Bob")], seed="lost",
                                          settings=timed_settings(game, 600, short=False))
        rng = random.Random(3)

        async def move() -> Any:
            prompt = rng.choice(match.prompts)
            command = match.game.random_command(match.state, prompt, rng)
            return await service.submit_command(match.id, prompt.seat, command)

        assert (await move()).accepted  # the statement path is warm
        writes = repo.writer.one_statement
        assert isinstance(writes, SingleStatementWrites)
        driver = writes._driver
        lost = 0

        async def losing() -> Any:
            nonlocal lost
            lost += 1
            return _AnswerLost(await driver()) if lost == 1 else await driver()

        monkeypatch.setattr(writes, "_driver", losing)
        seq = match.seq
        reply = await move()
        assert lost == 1, "the store was asked, and the write was not sent again"
        assert reply.accepted, reply.message
        assert match.seq == seq + 1
        stored = await repo.load_match(match.id)
        assert stored is not None
        assert _picture(LiveMatch.from_store(stored)) == _picture(match)
        for _ in range(5):  # no unique key trips over it later
            assert (await move()).accepted
        stored = await repo.load_match(match.id)
        assert stored is not None
        assert _picture(LiveMatch.from_store(stored)) == _picture(match)
        assert [m.id for m in await repo.messages(match.id)] == sorted(
            {m.id for m in await repo.messages(match.id)}), "no message stored twice"
    finally:
        await service.stop()
        await engine.dispose()
