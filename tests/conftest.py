"""Shared fixtures: a data folder of the run's own (WHIST_DATA_DIR); the test Redis (db 0, a unique key
prefix per test, cleaned up afterwards); the order of the tests and how pytest-xdist shares them between
workers (tests/suite_order.py)."""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
import uuid
from collections.abc import AsyncIterator
from typing import Any

import pytest
from suite_order import make_scheduler, run_order

# The data folder (the default archive's SQLite file, server/archive/urls.py) of this test run: a
# temporary folder, never the user's ~/.local/share/whist. Set in the environment, so that the servers
# the tests start as subprocesses inherit it.
DATA_DIR = tempfile.mkdtemp(prefix="whist-test-data-")
os.environ["WHIST_DATA_DIR"] = DATA_DIR
atexit.register(shutil.rmtree, DATA_DIR, ignore_errors=True)

REDIS_URL = os.environ.get("WHIST_TEST_REDIS", "redis://127.0.0.1:6379/0")
# The fixtures of the tests that need a store or a server, wherever they sit (tests/ mirrors server/).
pytest_plugins = ["server_fixtures"]


@pytest.fixture
def redis_url() -> str:
    """The Redis the tests use; CI (`.ci/run`) makes sure it answers first."""
    return REDIS_URL


@pytest.fixture
def redis_prefix() -> str:
    """A key prefix no other test run uses (Redis is shared: never FLUSHDB)."""
    return f"test:{uuid.uuid4().hex}:"


@pytest.fixture
async def redis_cleanup(redis_url: str, redis_prefix: str) -> AsyncIterator[str]:
    """Yields the prefix; deletes every key under it afterwards."""
    yield redis_prefix
    from server.store.redis import RedisStore

    store = RedisStore(redis_url, prefix=redis_prefix)
    try:
        await store.delete_everything()
    finally:
        await store.close()


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Run the long modules first and the browser tests last, group by group (a stable sort: within a
    module the order is the file's).

    Playwright's sync API keeps its own event loop marked as running in the main thread from the first
    browser test to the end of the session: a pytest-asyncio test run after it in the same process
    would fail. So no process runs anything after a browser test.
    """
    items.sort(key=lambda item: run_order(item.nodeid))


def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """Under `--dist loadgroup` (scripts/test.sh) the workers get the units of tests/suite_order.py."""
    if config.getvalue("dist") != "loadgroup":
        return None
    return make_scheduler(config, log)
