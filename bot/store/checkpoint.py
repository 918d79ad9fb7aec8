"""WAL checkpoints away from the event loop.

In WAL mode SQLite appends every commit to the `-wal` file and, by default, the connection
whose commit takes the WAL past 1,000 pages copies it back into the database file
("checkpoint") inside that commit. The writer commits on the event loop, so that copy (and
the database file's fsync) would stall every match for several milliseconds about once a
hundred commits. The writer's connection therefore has automatic checkpoints off, and this
thread runs a PASSIVE checkpoint on its own connection at most every `interval` seconds
after a commit. PASSIVE never blocks the writer, nor waits for readers; it copies what it
can and the next round does the rest.

A PASSIVE checkpoint alone does not keep the WAL small under steady load: SQLite starts the
WAL over from its beginning only when a write begins after *every* frame was copied back,
and while moves keep coming, frames are added during each pass. Measured in
`bench/service.py`: the WAL grew to 63,000 frames (260 MB) within a minute of load, starting
over only by luck. So once the WAL holds `restart_frames` frames (32 MiB), the thread sets
`restart_due`; the writer then copies the few frames added since, itself, between two of
its transactions (in a worker thread, so the loop is free; moves queue for that pass of a
millisecond or two), and its next transaction starts the WAL over.
"""

from __future__ import annotations

import logging
import threading
from typing import Any

from sqlalchemy import Engine

log = logging.getLogger(__name__)


class WalCheckpointer:
    """A daemon thread that checkpoints the WAL after commits, at most every `interval` s."""

    def __init__(self, engine: Engine, interval: float = 0.5,
                 restart_frames: int = 8192) -> None:
        self.engine = engine
        self.interval = interval
        self.restart_frames = restart_frames
        self.checkpoints = 0
        #: The WAL is long: the writer should finish a checkpoint between two transactions.
        self.restart_due = False
        self.finished = 0  # checkpoints the writer finished (`finish`)
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

    def finish(self, raw: Any) -> None:
        """Copy what is left of the WAL on the writer's connection `raw`, while the writer
        waits: with no frame added meanwhile, the writer's next transaction starts the WAL
        over. (If the thread is checkpointing right now this pass is busy and does nothing;
        the thread asks again.)"""
        self.restart_due = False
        busy, _, _ = raw.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
        if not busy:
            self.finished += 1

    def _run(self) -> None:
        with self.engine.connect() as conn:
            raw = conn.connection.driver_connection
            assert raw is not None
            while True:
                self._dirty.wait()
                self._dirty.clear()
                try:
                    _, frames, _ = raw.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
                    self.checkpoints += 1
                    if frames >= self.restart_frames:
                        self.restart_due = True
                except Exception:  # a missed checkpoint only lets the WAL grow until the next
                    log.exception("WAL checkpoint failed")
                if self._stopping.is_set():
                    return
                self._stopping.wait(self.interval)
