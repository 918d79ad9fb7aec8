"""Transports that record every delivered message, for service tests."""

from __future__ import annotations

import asyncio
from collections import defaultdict

from bot.store.repository import StoredMessage
from bot.transport import MatchInfo, TransportError, render_names


class RecordingTransport:
    def __init__(self) -> None:
        self.sent: list[tuple[int, StoredMessage]] = []
        self.fail_times = 0  # fail this many sends (transient) before succeeding

    async def send(self, match: MatchInfo, message: StoredMessage) -> None:
        if self.fail_times > 0:
            self.fail_times -= 1
            raise TransportError("injected failure")
        self.sent.append((match.id, message))

    def texts(self, match_id: int, audience: str) -> list[str]:
        return [m.text for mid, m in self.sent if mid == match_id and m.audience == audience]

    def by_audience(self, match_id: int) -> dict[str, list[str]]:
        out: dict[str, list[str]] = defaultdict(list)
        for mid, m in self.sent:
            if mid == match_id:
                out[m.audience].append(m.text)
        return out

    def named(self, match: MatchInfo, audience: str) -> list[str]:
        names = [p.name for p in match.players]
        return [render_names(t, names) for t in self.texts(match.id, audience)]


class HeldTransport(RecordingTransport):
    """Accepts nothing until released: messages stay undelivered in the outbox."""

    def __init__(self) -> None:
        super().__init__()
        self.release = asyncio.Event()

    async def send(self, match: MatchInfo, message) -> None:  # type: ignore[no-untyped-def]
        await self.release.wait()
        await super().send(match, message)
