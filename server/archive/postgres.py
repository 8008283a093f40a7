"""The archive in PostgreSQL through asyncpg: a native asyncio driver speaking PostgreSQL's binary
protocol (no thread pool, no libpq), with its own connection pool and prepared-statement cache, and
`executemany` in one round trip per batch. Rating updates of a ruleset are serialised by a
transaction-scoped advisory lock, so two replicas finishing sessions at once never both read the
same rating before either writes it."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from typing import Any

import asyncpg

from .sql import Row, SqlArchive, Tx

# Namespace of the advisory locks taken by the archive (the first key of pg_advisory_xact_lock(int, int)).
RATINGS_LOCK_SPACE = 0x5768  # "Wh"


class _PostgresTx(Tx):
    def __init__(self, connection: asyncpg.pool.PoolConnectionProxy[asyncpg.Record]) -> None:
        self.connection = connection

    async def fetch(self, sql: str, *args: Any) -> list[Row]:
        return [dict(row) for row in await self.connection.fetch(sql, *args)]

    async def execute_many(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        if rows:
            await self.connection.executemany(sql, rows)

    async def lock_ratings(self, ruleset: str) -> None:
        await self.connection.execute("SELECT pg_advisory_xact_lock($1, hashtext($2))",
                                      RATINGS_LOCK_SPACE, ruleset)


class PostgresArchive(SqlArchive):
    """The archive in a PostgreSQL database (open with `open_archive("postgresql://...")`)."""

    kind = "postgresql"

    def __init__(self, pool: asyncpg.Pool[asyncpg.Record]) -> None:
        self.pool = pool

    @classmethod
    async def connect(cls, dsn: str, max_connections: int = 4, timeout: float = 5.0) -> PostgresArchive:
        """A pool of up to `max_connections` connections, each given `timeout` seconds to connect
        (the schema must be there: see server/archive/schema.py)."""
        pool = await asyncpg.create_pool(dsn, min_size=1, max_size=max_connections, timeout=timeout)
        return cls(pool)

    @asynccontextmanager
    async def _transaction(self) -> AsyncIterator[Tx]:
        async with self.pool.acquire() as connection, connection.transaction():
            yield _PostgresTx(connection)

    async def _fetch(self, sql: str, *args: Any) -> list[Row]:
        async with self.pool.acquire() as connection:
            return [dict(row) for row in await connection.fetch(sql, *args)]

    async def ping(self) -> bool:
        """Whether the database answers a query."""
        try:
            await self._fetch("SELECT 1")
        except (OSError, asyncpg.PostgresError):
            return False
        return True

    async def close(self) -> None:
        """Close the pool."""
        await self.pool.close()
