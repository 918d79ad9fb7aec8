"""WAL checkpoints away from the event loop.

In WAL mode SQLite appends every commit to the `-wal` file and, by default, the connection
whose commit takes the WAL past 1,000 pages copies it back into the database file
("checkpoint") inside that commit. The writer commits on the event loop, so that copy (and
the database file's fsync) would stall every match for several milliseconds about once a
hundred commits. The writer's connection therefore has automatic checkpoints off, and this
thread runs a PASSIVE checkpoint on its own connection at most every `interval` seconds
after a commit. PASSIVE never blocks the writer, nor waits for readers; it copies what it
can and the next round does the rest.
"""

from __future__ import annotations

import logging
import threading

from sqlalchemy import Engine

log = logging.getLogger(__name__)


class WalCheckpointer:
    """A daemon thread that checkpoints the WAL after commits, at most every `interval` s."""

    def __init__(self, engine: Engine, interval: float = 0.5) -> None:
        self.engine = engine
        self.interval = interval
        self.checkpoints = 0
        self._dirty = threading.Event()
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None

    def committed(self) -> None:
        """Called after each commit (cheap: sets a flag; starts the thread the first time)."""
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="umpire-wal-checkpoint",
                                            daemon=True)
            self._thread.start()
        self._dirty.set()

    def stop(self) -> None:
        """Run a last checkpoint of what is committed, then end the thread."""
        if self._thread is None:
            return
        self._stopping.set()
        self._dirty.set()
        self._thread.join()
        self._thread = None

    def _run(self) -> None:
        with self.engine.connect() as conn:
            raw = conn.connection.driver_connection
            assert raw is not None
            while True:
                self._dirty.wait()
                self._dirty.clear()
                try:
                    raw.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
                    self.checkpoints += 1
                except Exception:  # a missed checkpoint only lets the WAL grow until the next
                    log.exception("WAL checkpoint failed")
                if self._stopping.is_set():
                    return
                self._stopping.wait(self.interval)
