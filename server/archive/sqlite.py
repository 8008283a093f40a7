"""The embedded archive: one SQLite file through aiosqlite (the standard library's sqlite3 on a thread
of its own, so the event loop never waits on the disk). WAL journal, so readers do not wait for the
writer; every write transaction is `BEGIN IMMEDIATE`, so concurrent writers (several processes on one
file) queue on SQLite's lock, up to `BUSY_TIMEOUT_MS`, instead of failing half-way."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from typing import Any

import aiosqlite

from .sql import Row, SqlArchive, Tx

BUSY_TIMEOUT_MS = 30_000


def sqlite_placeholders(sql: str) -> str:
    """`$1` -> `?1` (SQLite's numbered parameters)."""
    return sql.replace("$", "?")


class _SqliteTx(Tx):
    def __init__(self, connection: aiosqlite.Connection) -> None:
        self.connection = connection

    async def fetch(self, sql: str, *args: Any) -> list[Row]:
        async with self.connection.execute(sqlite_placeholders(sql), args) as cursor:
            return [dict(row) for row in await cursor.fetchall()]

    async def execute_many(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        await self.connection.executemany(sqlite_placeholders(sql), rows)

    async def lock_ratings(self, ruleset: str) -> None:
        """Nothing to do: `BEGIN IMMEDIATE` already holds the database's one write lock."""


class SqliteArchive(SqlArchive):
    """The archive in one SQLite file (open with `open_archive("sqlite:///PATH")`)."""

    kind = "sqlite"

    def __init__(self, connection: aiosqlite.Connection) -> None:
        self.connection = connection
        # One connection: a read while this process's write transaction is open would see it half-done.
        self._lock = asyncio.Lock()

    @classmethod
    async def connect(cls, path: str) -> SqliteArchive:
        """Open the file (the schema must be there: see server/archive/schema.py)."""
        connection = await aiosqlite.connect(path, isolation_level=None)
        connection.row_factory = aiosqlite.Row
        await connection.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        await connection.execute("PRAGMA journal_mode = WAL")
        await connection.execute("PRAGMA foreign_keys = ON")
        return cls(connection)

    @asynccontextmanager
    async def _transaction(self) -> AsyncIterator[Tx]:
        async with self._lock:
            await self.connection.execute("BEGIN IMMEDIATE")
            try:
                yield _SqliteTx(self.connection)
            except BaseException:
                await self.connection.execute("ROLLBACK")
                raise
            await self.connection.execute("COMMIT")

    async def _fetch(self, sql: str, *args: Any) -> list[Row]:
        async with self._lock:
            return await _SqliteTx(self.connection).fetch(sql, *args)

    async def ping(self) -> bool:
        """Whether the file answers a query."""
        try:
            await self._fetch("SELECT 1")
        except Exception:
            return False
        return True

    async def close(self) -> None:
        """Close the connection (and its thread)."""
        await self.connection.close()
