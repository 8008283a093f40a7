"""The archive's schema, versioned with Alembic (server/archive/migrations/versions/): `upgrade` brings
a database, empty or not, to the newest revision. `open_archive` runs it on open; `python -m
server.archive upgrade --url URL` runs it alone.

Alembic runs on SQLAlchemy; the archive's queries do not (they go straight to asyncpg or aiosqlite),
so SQLAlchemy is used here only, through its async engines over the same two drivers."""

from __future__ import annotations

import asyncio
import weakref
from pathlib import Path
from typing import Any

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from sqlalchemy import Connection
from sqlalchemy.ext.asyncio import create_async_engine

from .urls import sqlalchemy_url, sqlite_path

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


# Alembic keeps the running migration in module globals (`alembic.context`, `alembic.op`): two
# upgrades of one process must not interleave, whatever their databases. One lock per event loop.
_IN_PROCESS: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Lock] = weakref.WeakKeyDictionary()


async def upgrade(url: str, revision: str = "head") -> None:
    """Migrate the archive at `url` to `revision` (the newest by default). Several processes may call
    it at once: PostgreSQL serialises them on an advisory lock, SQLite on its write lock, and each
    one after the first finds the schema migrated already."""
    lock = _IN_PROCESS.setdefault(asyncio.get_running_loop(), asyncio.Lock())
    engine = create_async_engine(sqlalchemy_url(url), connect_args=_connect_args(url))
    try:
        async with lock, engine.begin() as connection:
            await connection.run_sync(_upgrade, revision)
    finally:
        await engine.dispose()


def _connect_args(url: str) -> dict[str, Any]:
    # How long SQLite waits for another process's write lock (seconds).
    return {"timeout": 30.0} if sqlite_path(url) is not None else {}


def _upgrade(connection: Connection, revision: str) -> None:
    if connection.dialect.name == "postgresql":
        connection.exec_driver_sql(f"SELECT pg_advisory_xact_lock({UPGRADE_LOCK[0]}, {UPGRADE_LOCK[1]})")
    else:
        # SQLite: hold the database's write lock from the first read of alembic_version to the commit.
        connection.exec_driver_sql("BEGIN IMMEDIATE")
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
