"""The archive's schema, versioned with Alembic (server/archive/migrations/versions/): `upgrade` brings
a database, empty or not, to the newest revision. `open_archive` runs it on open; `python -m
server.archive upgrade --url URL` runs it alone.

Alembic runs on SQLAlchemy; the archive's queries do not (they go straight to asyncpg or aiosqlite),
so SQLAlchemy is used here only, through its async engines over the same two drivers."""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from sqlalchemy import Connection
from sqlalchemy.ext.asyncio import create_async_engine

from .urls import sqlalchemy_url

MIGRATIONS = Path(__file__).parent / "migrations"
# Advisory lock held while PostgreSQL is upgraded, so that replicas starting together upgrade once.
UPGRADE_LOCK = (0x5768, 1)


def alembic_config(connection: Connection | None = None) -> Config:
    """Alembic's configuration for the archive (no alembic.ini: everything is here)."""
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    if connection is not None:
        config.attributes["connection"] = connection
    return config


def head_revision() -> str:
    """The newest revision the code knows."""
    from alembic.script import ScriptDirectory

    head = ScriptDirectory.from_config(alembic_config()).get_current_head()
    assert head is not None
    return head


async def upgrade(url: str, revision: str = "head") -> None:
    """Migrate the archive at `url` to `revision` (the newest by default)."""
    engine = create_async_engine(sqlalchemy_url(url))
    try:
        async with engine.begin() as connection:
            await connection.run_sync(_upgrade, revision)
    finally:
        await engine.dispose()


def _upgrade(connection: Connection, revision: str) -> None:
    if connection.dialect.name == "postgresql":
        connection.exec_driver_sql(f"SELECT pg_advisory_xact_lock({UPGRADE_LOCK[0]}, {UPGRADE_LOCK[1]})")
    command.upgrade(alembic_config(connection), revision)


async def current_revision(url: str) -> str | None:
    """The revision the archive at `url` is at (None: never migrated)."""
    engine = create_async_engine(sqlalchemy_url(url))
    try:
        async with engine.connect() as connection:
            return await connection.run_sync(
                lambda sync: MigrationContext.configure(sync).get_current_revision())
    finally:
        await engine.dispose()
