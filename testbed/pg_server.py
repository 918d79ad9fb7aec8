"""A throwaway PostgreSQL server for tests (initdb + pg_ctl on 127.0.0.1, trust auth).

The machine image ships PostgreSQL 15; as root, the server runs as the `postgres` user.
"""

from __future__ import annotations

import contextlib
import glob
import os
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator


def _binaries() -> str | None:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    if found:
        return os.path.dirname(found[-1])
    initdb = shutil.which("initdb")
    return os.path.dirname(initdb) if initdb else None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def available() -> bool:
    return _binaries() is not None


def required() -> bool:
    """Under CI (CI=true) the PostgreSQL tests must run: a missing server fails them."""
    return os.environ.get("CI", "").strip().lower() in ("true", "1", "yes")


def unavailable(reason: str) -> None:
    """Skip the PostgreSQL tests for `reason`, or fail them under CI."""
    import pytest

    if required():
        pytest.fail(f"{reason} (CI=true: the PostgreSQL tests may not be skipped; .ci/run "
                    "installs the Debian postgresql package)", pytrace=False)
    pytest.skip(reason)


@contextlib.contextmanager
def postgres_server() -> Iterator[str]:
    """Start a server; yield an admin URL template "postgresql+asyncpg://umpire@127.0.0.1:PORT/{db}"."""
    bindir = _binaries()
    assert bindir is not None, "PostgreSQL binaries not found"
    root = tempfile.mkdtemp(prefix="umpire-pg-")
    as_user: list[str] = []
    if os.geteuid() == 0:  # postgres refuses to run as root
        shutil.chown(root, "postgres")
        as_user = ["runuser", "-u", "postgres", "--"]
    data, port = os.path.join(root, "data"), _free_port()
    subprocess.run([*as_user, f"{bindir}/initdb", "-D", data, "-A", "trust", "-U", "umpire"],
                   check=True, capture_output=True)
    subprocess.run([*as_user, f"{bindir}/pg_ctl", "-D", data, "-w", "-l", os.path.join(root, "log"),
                    "-o", f"-p {port} -k {root} -c listen_addresses=127.0.0.1 -c fsync=on",
                    "start"], check=True, capture_output=True)
    try:
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", port)) == 0:
                    break
            time.sleep(0.1)
        yield f"postgresql+asyncpg://umpire@127.0.0.1:{port}/{{db}}"
    finally:
        subprocess.run([*as_user, f"{bindir}/pg_ctl", "-D", data, "-m", "immediate", "stop"],
                       capture_output=True)
        shutil.rmtree(root, ignore_errors=True)


async def create_database(template: str, name: str) -> str:
    """Create database `name` on the server of `template` (from `postgres_server`); its URL."""
    import asyncpg

    conn = await asyncpg.connect(template.format(db="postgres").replace("postgresql+asyncpg",
                                                                         "postgresql"))
    try:
        await conn.execute(f'CREATE DATABASE "{name}"')
    finally:
        await conn.close()
    return template.format(db=name)
