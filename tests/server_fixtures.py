"""Fixtures shared by the store, live and server tests (a plugin of tests/conftest.py): both stores, an
in-process server, client factories, a server process; throwaway PostgreSQL databases and an empty
archive's URL on each adapter (the archive's and the HTTP API's tests)."""

from __future__ import annotations

import os
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from pathlib import Path

import asyncpg
import pytest
from server_helpers import Connect, LiveServer, ServerProcess

from server.client import WhistClient
from server.server import WhistServer
from server.settings import Limits
from server.store import MemoryStore, Store
from server.store.redis import RedisStore


@pytest.fixture(scope="session")
def redis_cluster_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A Redis Cluster of this test session's own (three primaries, one replica each: the launcher's,
    server/cluster/rediscluster.py), started the first time a test asks; its store URL."""
    from server.cluster.rediscluster import RedisShards

    shards = RedisShards(tmp_path_factory.mktemp("redis-cluster"))
    try:
        shards.start()
        yield shards.url
    finally:
        for node in shards.nodes:
            node.stop()


@pytest.fixture
async def redis_cluster_cleanup(redis_cluster_url: str, redis_prefix: str) -> AsyncIterator[str]:
    """Yields a prefix of its own on the session's Redis Cluster; deletes every key under it afterwards."""
    yield redis_prefix
    store = RedisStore(redis_cluster_url, prefix=redis_prefix)
    try:
        await store.delete_everything()
    finally:
        await store.close()


@pytest.fixture(params=["memory", "redis"])
async def store(request: pytest.FixtureRequest, redis_url: str, redis_cleanup: str) -> AsyncIterator[Store]:
    """The room and server tests run against both stores."""
    if request.param == "memory":
        yield MemoryStore()
    else:
        redis_store = RedisStore(redis_url, prefix=redis_cleanup)
        yield redis_store
        await redis_store.close()


@pytest.fixture
async def live(store: Store, tmp_path: Path) -> AsyncIterator[LiveServer]:
    """A server with no bot delay (tests should not wait for humans to follow)."""
    static = tmp_path / "static"
    static.mkdir()
    (static / "index.html").write_text("<!doctype html><title>whist</title>")
    (static / "app.js").write_text("console.log('whist');")
    server = WhistServer(store, bot_delay=0.0, static_dir=static, limits=Limits(200.0, 400.0))
    host, port = await server.start("127.0.0.1", 0)
    yield LiveServer(server, host, port)
    await server.stop()


@pytest.fixture
async def connect(live: LiveServer) -> AsyncIterator[Connect]:
    """Open clients to the live server; all are closed at the end."""
    clients: list[WhistClient] = []

    async def open_client(
        name: str | None = "Player", binary: bool = False, url: str | None = None,
        player_key: str | None = None,
    ) -> WhistClient:
        client = await WhistClient.connect(url or live.url, name=name, binary=binary, player_key=player_key)
        clients.append(client)
        return client

    yield open_client
    for client in clients:
        await client.close()


@pytest.fixture
def server_process(redis_url: str, redis_cleanup: str) -> Iterator[Callable[..., ServerProcess]]:
    """Factory of server processes on the test Redis prefix; all are stopped at the end."""
    started: list[ServerProcess] = []

    def make(*extra: str) -> ServerProcess:
        store = f"{redis_url}?prefix={redis_cleanup}"
        proc = ServerProcess("--store", store, "--log-level", "warning", *extra)
        started.append(proc)
        return proc

    yield make
    for proc in started:
        if proc.process is not None and proc.process.poll() is None:
            proc.kill()


# The archive tests' PostgreSQL (trust authentication); each test gets databases of its own.
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
