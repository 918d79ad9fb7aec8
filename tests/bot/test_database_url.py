"""Database settings as people write them: paths, postgresql://, postgres://, sqlite://
are mapped to the async drivers the bot ships with; anything else is one sentence naming
what is supported (password hidden)."""

from __future__ import annotations

import pytest

from bot.store.database import DatabaseURLError, create_engine, database_url, is_sqlite


@pytest.mark.parametrize("given, url", [
    ("games.db", "sqlite+aiosqlite:///games.db"),
    ("/data/umpire.db", "sqlite+aiosqlite:////data/umpire.db"),
    ("sqlite:///games.db", "sqlite+aiosqlite:///games.db"),
    ("sqlite+aiosqlite:///games.db", "sqlite+aiosqlite:///games.db"),
    ("postgresql://u:p@db:5432/umpire", "postgresql+asyncpg://u:p@db:5432/umpire"),
    ("postgres://u:p@db/umpire", "postgresql+asyncpg://u:p@db/umpire"),
    ("postgresql+asyncpg://u:p@db/umpire", "postgresql+asyncpg://u:p@db/umpire"),
])
def test_accepted_forms_map_to_the_async_drivers(given: str, url: str) -> None:
    assert database_url(given) == url
    assert is_sqlite(given) == url.startswith("sqlite")


@pytest.mark.parametrize("given", ["mysql://u:secret@h/x", "postgresql+psycopg://u:secret@h/x",
                                   "oracle://u:secret@h/x", "  "])
def test_other_databases_are_one_sentence_naming_the_supported_ones(given: str) -> None:
    with pytest.raises(DatabaseURLError) as caught:
        database_url(given)
    message = str(caught.value)
    assert "postgresql://" in message and "file path" in message
    assert "secret" not in message and "\n" not in message


async def test_the_engine_takes_a_plain_path_and_postgres_urls(tmp_path) -> None:  # noqa: ANN001
    engine = create_engine(str(tmp_path / "x.db"))
    assert engine.url.drivername == "sqlite+aiosqlite"
    await engine.dispose()
    engine = create_engine("postgres://u:p@127.0.0.1:9/x")  # no psycopg needed
    assert engine.url.drivername == "postgresql+asyncpg"
    await engine.dispose()
