"""Alembic migrations, run programmatically on the service's own async engine."""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config
from sqlalchemy.engine import Connection
from sqlalchemy.ext.asyncio import AsyncEngine

#: The PostgreSQL advisory lock held while migrating (any fixed number).
MIGRATION_LOCK = 7_263_001
MIGRATIONS_DIR = Path(__file__).resolve().parents[2] / "migrations"


def alembic_config(url: str | None = None) -> Config:
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS_DIR))
    if url:
        cfg.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    return cfg


async def migrate(engine: AsyncEngine, revision: str = "head") -> None:
    """Upgrade the database behind `engine` to `revision` (idempotent)."""

    def upgrade(connection: Connection) -> None:
        cfg = alembic_config()
        cfg.attributes["connection"] = connection
        command.upgrade(cfg, revision)

    async with engine.begin() as conn:
        if conn.dialect.name == "postgresql":  # sharded processes starting together: in turn
            await conn.exec_driver_sql(f"SELECT pg_advisory_xact_lock({MIGRATION_LOCK})")
        await conn.run_sync(upgrade)
