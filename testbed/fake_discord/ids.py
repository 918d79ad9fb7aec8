"""Snowflake ids and timestamps shaped like Discord's."""

from __future__ import annotations

import datetime as dt
import itertools
import time

DISCORD_EPOCH_MS = 1_420_070_400_000


class SnowflakeFactory:
    """Generates increasing snowflakes: ms since the Discord epoch << 22 | worker | counter."""

    def __init__(self, worker: int = 1) -> None:
        self._worker = worker & 0x1F
        self._counter = itertools.count()
        self._last = 0

    def next(self) -> int:
        ms = int(time.time() * 1000) - DISCORD_EPOCH_MS
        value = (ms << 22) | (self._worker << 17) | (next(self._counter) & 0xFFF)
        # Guarantee strict monotonicity even if the clock stalls or the counter wraps.
        if value <= self._last:
            value = self._last + 1
        self._last = value
        return value


def snowflake_time(snowflake: int) -> dt.datetime:
    ms = (snowflake >> 22) + DISCORD_EPOCH_MS
    return dt.datetime.fromtimestamp(ms / 1000, tz=dt.UTC)


def iso(when: dt.datetime | None = None) -> str:
    """ISO 8601 with microseconds and +00:00, as Discord sends."""
    when = when or dt.datetime.now(dt.UTC)
    return when.astimezone(dt.UTC).isoformat(timespec="microseconds")


def iso_from_snowflake(snowflake: int) -> str:
    return iso(snowflake_time(snowflake))
