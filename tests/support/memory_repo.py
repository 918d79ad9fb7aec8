"""An in-memory stand-in for bot.store.Repository.

Clock tests run under looptime (fast-forwarded loop time), which does not wait for work in
threads; aiosqlite works in a thread, so those tests use this store, which never leaves the
event loop. It copies everything it stores, as a database would. The SQLite store itself is
tested by the restart and kill tests.
"""

from __future__ import annotations

import copy
from datetime import datetime, timedelta
from typing import Any

from bot.store.models import ActionRow, MatchRow
from bot.store.repository import (
    LIVE_CLOCKS,
    ClockData,
    MatchWrite,
    Pruned,
    StopData,
    StoredMatch,
    StoredMessage,
)


class MemoryRepository:
    def __init__(self) -> None:
        self.matches: dict[int, dict[str, Any]] = {}
        self.actions_: dict[int, list[dict[str, Any]]] = {}
        #: per match, (the action's source, whether its write was asked to be stored at once)
        self.at_once: dict[int, list[tuple[str, bool]]] = {}
        self.snapshots: dict[int, list[tuple[int, str]]] = {}
        self.outbox: list[StoredMessage] = []
        self.clocks: dict[tuple[int, str], ClockData] = {}
        self.heartbeat: datetime | None = None
        self.stops_: dict[int, dict[str, StopData]] = {}
        self.fail_next_commit = False

    async def migrate(self) -> None:
        return None

    async def close(self) -> None:
        return None

    async def commit_many(self, writes: list[MatchWrite], now: datetime) -> None:
        for write in writes:
            await self.commit(write, now)

    async def create_match(self, *, game: str, settings: dict[str, Any], seed: str,
                           commitment: str, players: list[dict[str, Any]],
                           transport: dict[str, Any], now: datetime,
                           salt: str | None = None,
                           match_commitment: dict[str, Any] | None = None) -> int:
        match_id = len(self.matches) + 1
        self.matches[match_id] = dict(
            id=match_id, game=game, settings=copy.deepcopy(settings), seed=seed,
            seed_commitment=commitment, seed_salt=salt,
            match_commitment=copy.deepcopy(match_commitment), players=copy.deepcopy(players),
            status="active",
            result=None, transport=dict(transport), action_count=0, created_at=now,
            updated_at=now, paused_at=None, ended_at=None)
        self.actions_[match_id] = []
        self.at_once[match_id] = []
        self.snapshots[match_id] = []
        return match_id

    async def reserve_match(self, **row: Any) -> int:
        """The store's reservation (row stored with the first write); here stored at once."""
        return await self.create_match(**row)

    def forget_match(self, match_id: int) -> None:
        self.matches.pop(match_id, None)

    async def commit(self, write: MatchWrite, now: datetime, *, at_once: bool = False) -> list[int]:
        if self.fail_next_commit:
            self.fail_next_commit = False
            raise RuntimeError("injected database failure")
        write = copy.deepcopy(write)
        if write.action is not None:
            seat, command, source = write.action
            self.actions_[write.match_id].append(dict(
                match_id=write.match_id, seq=write.seq, seat=seat, command=command,
                source=source, created_at=now))
            self.at_once[write.match_id].append((source, at_once))
        if write.snapshot is not None:
            self.snapshots[write.match_id].append((write.seq, write.snapshot))
        ids = []
        for m in write.outbox:
            message = StoredMessage(id=len(self.outbox) + 1, match_id=write.match_id,
                                    seq=write.seq, audience=m.audience, text=m.text,
                                    payload=m.payload, created_at=now)
            self.outbox.append(message)
            ids.append(message.id)
        for c in write.clocks_new + write.clocks_changed:
            self.clocks[(write.match_id, c.key)] = c
        if write.stops is not None:
            self.stops_[write.match_id] = write.stops
        row = self.matches[write.match_id]
        row.update(write.match_fields, updated_at=now)
        if write.action is not None:
            row["action_count"] = write.seq
        return ids

    async def load_active(self) -> list[StoredMatch]:
        return [self._load(mid) for mid, row in self.matches.items()
                if row["status"] in ("active", "paused")]

    async def active_ids(self) -> list[int]:
        return [mid for mid, row in self.matches.items() if row["status"] in ("active", "paused")]

    async def load_many(self, ids: list[int]) -> list[StoredMatch]:
        return [self._load(mid) for mid in ids if mid in self.matches]

    async def match_rows(self, ids: list[int]) -> list[MatchRow]:
        return [MatchRow(**copy.deepcopy(self.matches[mid])) for mid in ids if mid in self.matches]

    async def resume_clocks(self, downtime: timedelta, now: datetime) -> None:
        for (mid, _), clock in self.clocks.items():
            if clock.status in LIVE_CLOCKS and self.matches[mid]["status"] == "active":
                clock.shifted(downtime)
        for mid, stops in self.stops_.items():
            if self.matches[mid]["status"] == "active":
                for stop in stops.values():
                    stop.since += downtime
        self.heartbeat = now

    async def stops(self, ids: list[int]) -> dict[int, dict[str, StopData]]:
        return {mid: copy.deepcopy(self.stops_[mid]) for mid in ids if self.stops_.get(mid)}

    async def load_match(self, match_id: int) -> StoredMatch | None:
        return self._load(match_id) if match_id in self.matches else None

    def _load(self, match_id: int) -> StoredMatch:
        snaps = self.snapshots[match_id]
        snap_seq, snap = snaps[-1] if snaps else (0, None)
        return StoredMatch(
            row=MatchRow(**copy.deepcopy(self.matches[match_id])), snapshot_seq=snap_seq,
            snapshot=snap,
            actions=[(a["seq"], a["seat"], a["command"]) for a in self.actions_[match_id]
                     if a["seq"] > snap_seq],
            clocks=[copy.deepcopy(c) for (mid, _), c in self.clocks.items()
                    if mid == match_id and c.status in LIVE_CLOCKS])

    async def actions(self, match_id: int) -> list[ActionRow]:
        return [ActionRow(**a) for a in self.actions_[match_id]]

    async def messages(self, match_id: int) -> list[StoredMessage]:
        return [m for m in self.outbox if m.match_id == match_id]

    async def undelivered(self) -> list[StoredMessage]:
        return [copy.copy(m) for m in self.outbox if m.delivered_at is None]

    def queue_delivered(self, ids: list[int], now: datetime) -> None:
        for m in self.outbox:
            if m.id in ids:
                m.delivered_at = now

    async def flush_delivered(self) -> None:
        return None

    async def mark_delivered(self, ids: list[int], now: datetime) -> None:
        for m in self.outbox:
            if m.id in ids:
                m.delivered_at = now

    async def last_heartbeat(self) -> datetime | None:
        return self.heartbeat

    async def beat(self, now: datetime) -> None:
        self.heartbeat = now

    async def prune(self, delivered_before: datetime | None) -> Pruned:
        """The service's hourly pruning: this store keeps everything (tests read it all)."""
        return Pruned()
