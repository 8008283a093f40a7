"""Shared fixtures: the test Redis (db 0, a unique key prefix per test, cleaned up afterwards)."""

from __future__ import annotations

import os
import uuid
from collections.abc import AsyncIterator

import pytest

REDIS_URL = os.environ.get("WHIST_TEST_REDIS", "redis://127.0.0.1:6379/0")


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


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist reads the groups
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Run the browser tests last, and (under pytest-xdist's `--dist loadgroup`) all in one worker.

    Playwright's sync API keeps its own event loop running in the main thread from the first browser
    test to the end of the session; pytest-asyncio tests collected after it would run under it.
    """
    items.sort(key=is_browser_test)
    for item in items:
        if is_browser_test(item):
            item.add_marker(pytest.mark.xdist_group("browser"))


def is_browser_test(item: pytest.Item) -> bool:
    """Whether the test drives Chromium (tests/browser/)."""
    return item.path.parts[-2:-1] == ("browser",)
