"""The arena's watchdog: a thread that interrupts a bot call stuck far past the limit.

Its own module, imported at module level by both ways of playing a chunk
(`tournament.play_chunks`, one match at a time, and `lockstep.play_lockstep`, many at once):
tournament.py imports lockstep, so in either of those two it would close an import circle.
"""

from __future__ import annotations

import _thread
import threading
import time

from bot.arena.match import CALLS_PER_ROUND


class Watchdog:
    """Interrupts the main thread when a bot call runs far past the limit (a Python bot
    stuck in a loop): calls that return are timed exactly by the match loop itself.

    The match loop writes the start of each draft round and game (four calls) to beat[0].
    Four calls within the limit take at most 4 x limit, so when a round or game has lasted
    4 x limit + 1 s, either an earlier call of it was over the limit (the loop disqualifies
    that bot) or the call in progress has run for more than limit + 1 s. This is also longer
    than a JS bot's own pipe timeout (2 x limit + 0.5 s at most).
    """

    def __init__(self, limit: float) -> None:
        self.limit = limit
        self.beat: list = [0.0, False]  # [start of the round or game in progress, fired]
        self.patience = CALLS_PER_ROUND * limit + 1.0
        self.stopped = threading.Event()
        thread = threading.Thread(target=self._run, daemon=True, name="arena-watchdog")
        thread.start()

    def _run(self) -> None:
        while not self.stopped.wait(max(0.05, self.limit / 4)):
            start = self.beat[0]
            if start and time.perf_counter() - start > self.patience and not self.beat[1]:
                self.beat[1] = True
                _thread.interrupt_main()

    def stop(self) -> None:
        self.beat[0] = 0.0
        self.stopped.set()
