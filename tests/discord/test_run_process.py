"""`umpire run` as a container runs it: a real process on the fake Discord, two shards on
PostgreSQL; SIGTERM (docker stop) stops it cleanly (exit 0, shard leases released), and
`umpire health` says whether the process, the database and the gateway are well."""

from __future__ import annotations

import asyncio
import json
import signal
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from bot.store.database import create_engine
from bot.store.leases import Leases
from testbed.fake_discord.fixtures import fake_discord  # noqa: F401
from testbed.fake_discord.server import FakeDiscord
from tests.bot.conftest import pg_template, pg_url  # noqa: F401
from tests.support.run_process import run_env as _env


async def _umpire(env: dict[str, str], *args: str) -> tuple[int, str, str]:
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "tests.discord.run_under_fake", *args, env=env,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    out, err = await asyncio.wait_for(proc.communicate(), 60)
    return proc.returncode or 0, out.decode(), err.decode()


async def _until(check, timeout: float = 60.0) -> None:  # noqa: ANN001
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not await check():
        assert loop.time() < deadline, "timed out"
        await asyncio.sleep(0.2)


@pytest.mark.slow
@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])  # docker stop, Ctrl-C
async def test_sigterm_stops_cleanly_releasing_the_shard_leases(
        fake_discord: FakeDiscord, pg_url: str, tmp_path: Path,  # noqa: F811
        signum: signal.Signals) -> None:
    fake = fake_discord
    fake.add_guild("Card Club")
    status = tmp_path / "status.json"
    env = _env(fake, pg_url, status, UMPIRE_SHARDS__COUNT="2", UMPIRE_SHARDS__LEASE_SECONDS="60")
    code, out, _ = await _umpire(env, "health")
    assert code == 1 and "FAIL process: no status file" in out
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "tests.discord.run_under_fake", "run", env=env, cwd=tmp_path,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    engine = create_engine(pg_url)
    leases = Leases(engine, "the test", timedelta(seconds=1))
    try:
        async def connected() -> bool:
            assert proc.returncode is None, (await proc.stderr.read()).decode()  # type: ignore[union-attr]
            return status.exists() and json.loads(status.read_text())["gateway"]

        await _until(connected)
        now = datetime.now(UTC)

        async def held() -> bool:
            owners = await leases.owners()
            return len(owners) == 2 and all(o and at > now for o, at in owners.values())

        await _until(held)
        code, out, err = await _umpire(env, "health")
        assert code == 0, out + err
        assert [line.split(":")[0] for line in out.splitlines()] == \
            ["ok   process", "ok   gateway", "ok   database"]
        proc.send_signal(signum)
        _, stderr = await asyncio.wait_for(proc.communicate(), 30)
        assert proc.returncode == 0, stderr.decode()
        assert "Traceback" not in stderr.decode()
        assert f"received {signum.name}" in stderr.decode()
        # the --check lines of a server lacking a permission are logged at start, one line
        logged = [line for line in stderr.decode().splitlines() if "FAIL server 'Card Club'" in line]
        assert len(logged) == 1 and "Create Private Threads" in logged[0], stderr.decode()
        after = await leases.owners()
        assert len(after) == 2 and all(owner == "" for owner, _ in after.values()), after
        assert not status.exists()  # the status file goes with the process
        code, out, _ = await _umpire(env, "health")
        assert code == 1 and "FAIL process" in out
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()
        await engine.dispose()
