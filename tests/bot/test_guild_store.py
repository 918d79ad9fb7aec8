"""The guild_settings table: migration 0002 up and down, settings stored per server with
None meaning "the config default", and the server's matches listed from the database."""

from __future__ import annotations

from pathlib import Path

from alembic import command
from sqlalchemy import inspect

from bot.store.database import create_engine
from bot.store.guilds import GuildStore, matches_of_guild
from bot.store.migrate import alembic_config
from bot.store.repository import Repository


async def test_migration_0002_creates_and_drops_guild_settings(tmp_path: Path) -> None:
    engine = create_engine(f"sqlite+aiosqlite:///{tmp_path / 'u.db'}")
    repo = Repository(engine)
    try:
        await repo.migrate()

        async def tables() -> set[str]:
            async with engine.connect() as conn:
                return set(await conn.run_sync(lambda c: inspect(c).get_table_names()))

        assert "guild_settings" in await tables()

        def down(connection) -> None:  # type: ignore[no-untyped-def]
            cfg = alembic_config()
            cfg.attributes["connection"] = connection
            command.downgrade(cfg, "0001")

        async with engine.begin() as conn:
            await conn.run_sync(down)
        assert "guild_settings" not in await tables() and "matches" in await tables()
        await repo.migrate()
        assert "guild_settings" in await tables()
    finally:
        await repo.close()
        await engine.dispose()


async def test_settings_are_per_server_and_survive_a_new_store(tmp_path: Path) -> None:
    engine = create_engine(f"sqlite+aiosqlite:///{tmp_path / 'u.db'}")
    repo = Repository(engine)
    try:
        await repo.migrate()
        store = GuildStore(repo)
        assert (await store.get(1)).host_role_id is None
        await store.update(1, host_role_id=111, game_settings={"rps-poker": {"x": 1}})
        await store.update(2, channel_mode="threads")
        await store.update(1, archive_delay_minutes=5)
        fresh = GuildStore(repo)  # nothing cached: read from the database
        one, two = await fresh.get(1), await fresh.get(2)
        assert (one.host_role_id, one.archive_delay_minutes, one.channel_mode) == (111, 5, None)
        assert one.game_settings == {"rps-poker": {"x": 1}}
        assert (two.host_role_id, two.channel_mode) == (None, "threads")
        await fresh.update(1, host_role_id=None)
        assert (await GuildStore(repo).get(1)).host_role_id is None
        await fresh.set_fact("commands_synced", "v1")
        await fresh.set_fact("commands_synced", "v2")
        assert await GuildStore(repo).fact("commands_synced") == "v2"
        assert await matches_of_guild(engine, 1) == []
    finally:
        await repo.close()
        await engine.dispose()
