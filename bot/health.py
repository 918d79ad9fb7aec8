"""`umpire health` (the container's HEALTHCHECK): is the bot's process alive, does its
database answer, is it connected to Discord's gateway?

The running bot (`umpire run`) writes a small status file every few seconds (`StatusFile`):
its pid, the time, and whether the gateway is connected. `umpire health` reads it from
another process, checks the pid and the file's age, then connects to the database itself.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

#: How often the running bot writes its status file.
WRITE_EVERY_SECONDS = 5.0
#: A status file older than this says the bot's loop is stuck (or the bot is gone).
STALE_AFTER_SECONDS = 30.0


def default_status_file() -> str:
    """Where the status file is kept unless [health] status_file says otherwise."""
    return str(Path(tempfile.gettempdir()) / "umpire-status.json")


class StatusFile:
    """The running bot's side: write {pid, at, gateway} every WRITE_EVERY_SECONDS."""

    def __init__(self, path: str, gateway: Callable[[], bool]) -> None:
        self.path = Path(path)
        self.gateway = gateway
        self._task: asyncio.Task[None] | None = None

    def write(self) -> None:
        body = json.dumps({"pid": os.getpid(), "at": time.time(), "gateway": self.gateway()})
        tmp = self.path.with_name(self.path.name + ".tmp")
        with contextlib.suppress(OSError):  # a health file must never stop the bot
            tmp.write_text(body, encoding="utf-8")
            os.replace(tmp, self.path)

    def start(self) -> None:
        self.write()
        self._task = asyncio.create_task(self._loop(), name="health-status")

    async def _loop(self) -> None:
        while True:
            await asyncio.sleep(WRITE_EVERY_SECONDS)
            self.write()

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        with contextlib.suppress(OSError):
            self.path.unlink()


@dataclass
class Check:
    """One line of `umpire health` or `umpire run --check`."""

    name: str
    ok: bool
    detail: str

    def line(self) -> str:
        return f"{'ok  ' if self.ok else 'FAIL'} {self.name}: {self.detail}"


def process_checks(path: str, now: float | None = None) -> list[Check]:
    """The process and the gateway, from the status file the running bot writes."""
    now = time.time() if now is None else now
    try:
        status = json.loads(Path(path).read_text(encoding="utf-8"))
        pid, at, gateway = int(status["pid"]), float(status["at"]), bool(status["gateway"])
    except FileNotFoundError:
        return [Check("process", False, f"no status file at {path}: `umpire run` is not "
                      "running (or runs with another [health] status_file)")]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        return [Check("process", False, f"the status file {path} cannot be read ({exc})")]
    try:
        os.kill(pid, 0)
        alive = True
    except ProcessLookupError:
        alive = False
    except PermissionError:  # another user's process: it exists
        alive = True
    age = now - at
    if not alive:
        return [Check("process", False, f"process {pid} is gone (it left {path} behind)")]
    if age > STALE_AFTER_SECONDS:
        return [Check("process", False, f"process {pid} has not written its status for "
                      f"{age:.0f} s: its loop is stuck")]
    return [Check("process", True, f"pid {pid}, status written {max(age, 0):.0f} s ago"),
            Check("gateway", gateway, "connected to Discord" if gateway else
                  "not connected to Discord's gateway (logging in or reconnecting)")]


async def database_check(url: str, timeout: float = 10.0, *, start_creates: bool = False
                         ) -> Check:
    """Connect to the database and run SELECT 1. An SQLite file that does not exist is not
    opened (opening would create it): for `health` a failure, for `run --check`
    (`start_creates`) what the start will do."""
    from sqlalchemy import text

    from bot.console.runtime import sqlite_file
    from bot.store.database import create_engine, shown_url

    shown = shown_url(url)
    path = sqlite_file(url)
    if path is not None and not path.exists():
        if start_creates and not path.parent.is_dir():
            return Check("database", False, f"{path} cannot be created: the folder "
                         f"{path.parent} does not exist")
        if start_creates:
            return Check("database", True, f"{path} does not exist yet: `umpire run` creates "
                         "it")
        return Check("database", False, f"there is no database at {path}: `umpire run` has "
                     "not started on it (or uses another database)")
    engine = create_engine(url)
    try:
        async with asyncio.timeout(timeout):
            async with engine.connect() as conn:
                await conn.execute(text("SELECT 1"))
    except Exception as exc:
        from bot.cli import database_problem

        problem = database_problem(exc, url)
        return Check("database", False, problem[0] if problem else f"{shown}: {exc}")
    finally:
        with contextlib.suppress(Exception):
            await engine.dispose()
    return Check("database", True, f"{shown} answers")


async def migration_check(url: str) -> Check:
    """Is the database at the newest migration (`umpire migrate`, or any start, does it)?"""
    from alembic.runtime.migration import MigrationContext
    from alembic.script import ScriptDirectory

    from bot.console.runtime import sqlite_file
    from bot.store.database import create_engine, shown_url
    from bot.store.migrate import alembic_config

    head = ScriptDirectory.from_config(alembic_config()).get_current_head()
    path = sqlite_file(url)
    if path is not None and not path.exists():  # not opened: opening would create it
        return Check("migrations", True, f"{path} does not exist yet; the start creates it "
                     f"at the newest ({head})")
    engine = create_engine(url)
    try:
        async with engine.connect() as conn:
            current = await conn.run_sync(
                lambda c: MigrationContext.configure(c).get_current_revision())
    except Exception as exc:
        return Check("migrations", False, f"cannot be read ({type(exc).__name__})")
    finally:
        await engine.dispose()
    if current == head:
        return Check("migrations", True, f"{shown_url(url)} is at the newest ({head})")
    state = "empty" if current is None else f"at {current}"
    return Check("migrations", True, f"{shown_url(url)} is {state}; the start migrates it to "
                 f"{head} (or run `umpire migrate` first)")
