"""Migration 0003 creates the history and ratings tables exactly as the models declare them,
and can be undone."""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import create_engine, inspect

from bot.store.migrate import alembic_config
from bot.store.models import Base

TABLES = {"match_results", "ratings"}


def _upgrade(url: str, revision: str) -> None:
    engine = create_engine(url)
    with engine.begin() as conn:
        cfg = alembic_config()
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, revision)
    engine.dispose()


def _touches(diff: object) -> bool:
    text = repr(diff)
    return any(f"'{t}'" in text or f"table={t!r}" in text or f"Table('{t}'" in text
               for t in TABLES)


def test_0003_matches_the_models_and_downgrades(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'm.db'}"
    _upgrade(url, "head")
    engine = create_engine(url)
    with engine.connect() as conn:
        assert set(inspect(conn).get_table_names()) >= TABLES
        diffs = compare_metadata(MigrationContext.configure(conn), Base.metadata)
    assert [d for d in diffs if _touches(d)] == []
    with engine.begin() as conn:
        cfg = alembic_config()
        cfg.attributes["connection"] = conn
        command.downgrade(cfg, "0002")
    with engine.connect() as conn:
        assert not TABLES & set(inspect(conn).get_table_names())
    engine.dispose()
