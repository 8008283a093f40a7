"""The archive tests run against both adapters: an SQLite file in the test's folder, and a throwaway
database of the real PostgreSQL (`WHIST_TEST_POSTGRES`, by default the one scripts/test.sh makes sure
answers on 127.0.0.1:5432). If PostgreSQL does not answer, these tests fail: they never skip. The
databases and their URLs (`postgres_database`, `archive_url`) are shared fixtures
(tests/server_fixtures.py): the HTTP API's tests use them too."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from server.archive import Archive, open_archive


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
