"""The archive tests run against both adapters: an SQLite file in the test's folder, and a throwaway
database of the real PostgreSQL (`WHIST_TEST_POSTGRES`, by default the one scripts/test.sh makes sure
answers on 127.0.0.1:5432). If PostgreSQL does not answer, these tests fail: they never skip."""

from __future__ import annotations

import os
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path

import asyncpg
import pytest

from server.archive import Archive, open_archive

POSTGRES_URL = os.environ.get("WHIST_TEST_POSTGRES", "postgresql://postgres@127.0.0.1:5432/postgres")


def _database_url(name: str) -> str:
    """POSTGRES_URL with another database name."""
    return POSTGRES_URL.rsplit("/", 1)[0] + "/" + name


async def _admin(sql: str) -> None:
    connection = await asyncpg.connect(POSTGRES_URL, timeout=10)
    try:
        await connection.execute(sql)
    finally:
        await connection.close()


@pytest.fixture
async def postgres_database() -> AsyncIterator[Callable[[], Awaitable[str]]]:
    """Creates empty databases named whist_test_<random> on demand (their URLs), drops them after."""
    created: list[str] = []

    async def create() -> str:
        name = f"whist_test_{uuid.uuid4().hex[:12]}"
        await _admin(f'CREATE DATABASE "{name}"')
        created.append(name)
        return _database_url(name)

    yield create
    for name in created:
        await _admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture(params=["sqlite", "postgresql"])
async def archive_url(request: pytest.FixtureRequest, tmp_path: Path,
                      postgres_database: Callable[[], Awaitable[str]]) -> str:
    """An empty archive's URL, for each adapter."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'archive.sqlite3'}"
    return await postgres_database()


@pytest.fixture
async def archive(archive_url: str) -> AsyncIterator[Archive]:
    """An archive, migrated, on each adapter."""
    opened = await open_archive(archive_url)
    yield opened
    await opened.close()


@pytest.fixture
async def second_archive(archive_url: str, archive: Archive) -> AsyncIterator[Archive]:
    """Another connection to the same archive: another process's, as far as the database can tell."""
    opened = await open_archive(archive_url, upgrade=False)
    yield opened
    await opened.close()
