"""Per-server settings (`guild_settings`) and small facts about command syncing, read and
written through SQLAlchemy on the service's engine. A column left None means "the default
from config.toml" (bot/config.py `DiscordSettings`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import BigInteger, String, Table, cast, select
from sqlalchemy.engine import Connection
from sqlalchemy.ext.asyncio import AsyncEngine

from bot.store.models import GuildSettingsRow, MatchRow, ServiceStateRow
from bot.store.repository import Repository

#: The columns a host may change, with None meaning "back to the default".
FIELDS = ("host_role_id", "log_channel_id", "friendly_matches", "game_settings", "channel_mode",
          "archive_delay_minutes", "challenge_cooldown_seconds")


@dataclass
class StoredGuild:
    """What a server set (None: not set, the config default applies)."""

    guild_id: int
    host_role_id: int | None = None
    log_channel_id: int | None = None
    friendly_matches: bool | None = None
    game_settings: dict[str, Any] = field(default_factory=dict)
    channel_mode: str | None = None
    archive_delay_minutes: int | None = None
    challenge_cooldown_seconds: int | None = None


class GuildStore:
    """Reads on the async engine; writes through the repository's writer (the one writer
    of an SQLite file: a second writing connection would wait on it and time out)."""

    def __init__(self, repo: Repository) -> None:
        self.engine: AsyncEngine = repo.engine
        self.writer = repo.writer
        self._cache: dict[int, StoredGuild] = {}

    async def get(self, guild_id: int) -> StoredGuild:
        cached = self._cache.get(guild_id)
        if cached is not None:
            return cached
        async with self.engine.connect() as conn:
            row = (await conn.execute(select(GuildSettingsRow).where(
                GuildSettingsRow.guild_id == guild_id))).first()
        out = StoredGuild(guild_id) if row is None else StoredGuild(
            guild_id, **{name: getattr(row, name) for name in FIELDS})
        out.game_settings = dict(out.game_settings or {})
        self._cache[guild_id] = out
        return out

    def cached(self, guild_id: int) -> StoredGuild | None:
        """The settings if already read (for synchronous checks); None if not read yet."""
        return self._cache.get(guild_id)

    async def update(self, guild_id: int, **changes: Any) -> StoredGuild:
        """Set the given columns (None: back to the default) and return the new settings."""
        unknown = set(changes) - set(FIELDS)
        if unknown:
            raise ValueError(f"unknown guild settings {sorted(unknown)}")
        current = await self.get(guild_id)
        new = StoredGuild(guild_id, **{name: changes.get(name, getattr(current, name))
                                       for name in FIELDS})
        new.game_settings = dict(new.game_settings or {})
        values = {name: getattr(new, name) for name in FIELDS}
        now = datetime.now(UTC)
        table: Table = GuildSettingsRow.__table__  # type: ignore[assignment]  # (typed FromClause)

        def write(conn: Connection) -> None:
            done = conn.execute(table.update().where(table.c.guild_id == guild_id)
                                .values(updated_at=now, **values))
            if done.rowcount == 0:
                conn.execute(table.insert().values(guild_id=guild_id, updated_at=now, **values))

        await self.writer.run(write)
        self._cache[guild_id] = new
        return new

    # --- small facts (command sync) -----------------------------------------------------
    async def fact(self, key: str) -> str | None:
        async with self.engine.connect() as conn:
            row = (await conn.execute(select(ServiceStateRow.value).where(
                ServiceStateRow.key == key))).first()
        return None if row is None else str(row[0])

    async def set_fact(self, key: str, value: str) -> None:
        table: Table = ServiceStateRow.__table__  # type: ignore[assignment]  # (typed FromClause)
        now = datetime.now(UTC)

        def write(conn: Connection) -> None:
            done = conn.execute(table.update().where(table.c.key == key)
                                .values(value=value[:200], updated_at=now))
            if done.rowcount == 0:
                conn.execute(table.insert().values(key=key, value=value[:200], updated_at=now))

        await self.writer.run(write)

@dataclass(frozen=True)
class MatchSummary:
    id: int
    game: str
    names: tuple[str, ...]
    status: str


async def matches_of_guild(engine: AsyncEngine, guild_id: int, *, starts_with: str = "",
                           limit: int = 25) -> list[MatchSummary]:
    """The newest matches started on server `guild_id` (from the database, so a restart
    loses none), optionally only ids starting with `starts_with` (autocomplete)."""
    query = (select(MatchRow.id, MatchRow.game, MatchRow.players, MatchRow.status)
             .where(cast(MatchRow.transport["guild"].as_string(), BigInteger) == guild_id)
             .order_by(MatchRow.id.desc()).limit(limit))
    digits = "".join(ch for ch in starts_with if ch.isdigit())
    if digits:
        query = query.where(cast(MatchRow.id, String).like(f"{digits}%"))
    async with engine.connect() as conn:
        rows = (await conn.execute(query)).all()
    return [MatchSummary(r.id, r.game, tuple(str(p.get("name", "?")) for p in r.players or []),
                         r.status) for r in rows]
