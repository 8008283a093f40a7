"""Fixtures shared by the store, live and server tests (a plugin of tests/conftest.py): both stores, an
in-process server, client factories, a server process."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path

import pytest
from server_helpers import Connect, LiveServer, ServerProcess

from server.client import WhistClient
from server.server import WhistServer
from server.settings import Limits
from server.store import MemoryStore, Store
from server.store.redis import RedisStore


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
