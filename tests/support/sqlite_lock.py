"""Another process holding a SQLite file's write lock (tests/bot/test_sqlite_lock.py and the
refused-start tests)."""

from __future__ import annotations

import asyncio
import contextlib
import sys
from collections.abc import AsyncIterator
from pathlib import Path

HOLD = """
import sqlite3, sys, time
conn = sqlite3.connect(sys.argv[1], isolation_level=None)
conn.execute("BEGIN IMMEDIATE")
print("locked", flush=True)
time.sleep(float(sys.argv[2]))
conn.execute("COMMIT")
"""


@contextlib.asynccontextmanager
async def locked(db: Path, seconds: float) -> AsyncIterator[asyncio.subprocess.Process]:
    """Another process holds the file's write lock for `seconds` from when this enters."""
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-c", HOLD, str(db), str(seconds), stdout=asyncio.subprocess.PIPE)
    assert proc.stdout is not None
    assert (await proc.stdout.readline()).strip() == b"locked"
    try:
        yield proc
    except BaseException:
        with contextlib.suppress(ProcessLookupError):
            proc.kill()
        raise
    finally:
        await proc.wait()
