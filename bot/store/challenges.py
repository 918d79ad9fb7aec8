"""Open `/challenge`s and when each member last challenged (`challenges`), so that a restart
keeps the Accept / Decline buttons' answer, the one-open-challenge-per-pair rule and the
per-member cooldown. Reads on the async engine; writes through the repository's writer."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import delete, func, insert, or_, select, update
from sqlalchemy.engine import Connection
from sqlalchemy.ext.asyncio import AsyncEngine

from bot.store.models import ChallengeRow
from bot.store.repository import Repository

#: Rows older than this are deleted when a challenge is stored: past the longest cooldown a
#: server may set (a day) and an open challenge's life.
KEEP = timedelta(days=2)


@dataclass(frozen=True)
class StoredChallenge:
    message_id: int
    guild_id: int
    challenger: int
    opponent: int
    game: str
    link: str
    created_at: datetime
    answered_at: datetime | None


class ChallengeStore:
    def __init__(self, repo: Repository) -> None:
        self.engine: AsyncEngine = repo.engine
        self.writer = repo.writer

    async def opened(self, challenge: StoredChallenge) -> None:
        """Store a posted challenge (and forget those older than `KEEP`)."""
        values = {f: getattr(challenge, f) for f in StoredChallenge.__dataclass_fields__}

        def write(conn: Connection) -> None:
            conn.execute(delete(ChallengeRow).where(
                ChallengeRow.created_at < challenge.created_at - KEEP))
            conn.execute(insert(ChallengeRow).values(**values))

        await self.writer.run(write)

    async def answered(self, message_id: int, at: datetime) -> None:
        def write(conn: Connection) -> None:
            conn.execute(update(ChallengeRow).where(ChallengeRow.message_id == message_id)
                         .values(answered_at=at))

        await self.writer.run(write)

    async def get(self, message_id: int) -> StoredChallenge | None:
        async with self.engine.connect() as conn:
            row = (await conn.execute(select(*_COLUMNS).where(
                ChallengeRow.message_id == message_id))).first()
        return StoredChallenge(*row) if row is not None else None

    async def open_between(self, guild_id: int, a: int, b: int,
                           since: datetime) -> StoredChallenge | None:
        """The newest unanswered challenge between `a` and `b` (either way) posted since."""
        async with self.engine.connect() as conn:
            row = (await conn.execute(select(*_COLUMNS).where(
                ChallengeRow.guild_id == guild_id, ChallengeRow.answered_at.is_(None),
                ChallengeRow.created_at >= since,
                or_((ChallengeRow.challenger == a) & (ChallengeRow.opponent == b),
                    (ChallengeRow.challenger == b) & (ChallengeRow.opponent == a)))
                .order_by(ChallengeRow.created_at.desc()).limit(1))).first()
        return StoredChallenge(*row) if row is not None else None

    async def last_of(self, guild_id: int, challenger: int) -> datetime | None:
        """When the member last challenged someone on this server."""
        async with self.engine.connect() as conn:
            return (await conn.execute(select(func.max(ChallengeRow.created_at)).where(
                ChallengeRow.guild_id == guild_id,
                ChallengeRow.challenger == challenger))).scalar()


_COLUMNS = (ChallengeRow.message_id, ChallengeRow.guild_id, ChallengeRow.challenger,
            ChallengeRow.opponent, ChallengeRow.game, ChallengeRow.link, ChallengeRow.created_at,
            ChallengeRow.answered_at)
