"""Shared fixtures: the test Redis (db 0, a unique key prefix per test, cleaned up afterwards); the order
of the tests and how pytest-xdist shares them between workers (see `pytest_xdist_make_scheduler`)."""

from __future__ import annotations

import os
import uuid
from collections.abc import AsyncIterator
from typing import Any

import pytest

REDIS_URL = os.environ.get("WHIST_TEST_REDIS", "redis://127.0.0.1:6379/0")

#: Modules whose tests take minutes of CPU (each measured in `--durations`, see docs/benchmarks.md,
#: "Test suite"): they are handed out first, so that no worker starts one of them when the others are
#: nearly done (the longest-first rule keeps the workers' ends close together).
LONG_MODULES = (
    "tests/rules/test_property.py",
    "tests/bots/test_expert.py",
    "tests/cluster/test_cluster_tables.py",
    "tests/server/test_red_team.py",
    "tests/bots/test_strength.py",
    "tests/test_code_quality.py",
    "tests/test_wheel.py",
    "tests/server/test_fuzz.py",
)

#: Modules whose module-scoped fixture starts something costly (a cluster of processes behind HAProxy,
#: a server process, a built wheel): all their tests go to one worker, so it is started once, not once
#: per worker.
ONE_WORKER_MODULES = (
    "tests/cluster/test_cluster_tables.py",
    "tests/cluster/test_cluster_launcher.py",
    "tests/server/test_red_team.py",
    "tests/test_wheel.py",
)

#: The browser modules in two groups of about equal time (a group runs on one worker: one Chromium and
#: one server per module there). Modules not listed (new ones) join the first group.
BROWSER_GROUPS = {
    "test_web_client_play.py": 2,
    "test_web_client_daily.py": 2,
    "test_web_client_a11y.py": 2,
    "test_web_client_feel.py": 2,
    "test_web_client_replay.py": 2,
    "test_web_client_prompts.py": 2,
}


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


def module_of(nodeid: str) -> str:
    """`tests/x/test_y.py` of `tests/x/test_y.py::test_z[param]`."""
    return nodeid.split("::", 1)[0]


def work_unit(nodeid: str) -> str:
    """The unit pytest-xdist hands to one worker: the browser group, the module, or the test itself."""
    module = module_of(nodeid)
    folder, _, name = module.rpartition("/")
    if folder.endswith("browser"):
        return f"browser-{BROWSER_GROUPS.get(name, 1)}"
    if module in ONE_WORKER_MODULES:
        return module
    return nodeid


def run_order(nodeid: str) -> tuple[int, str]:
    """Long modules first, then the others, then the browser groups (see `pytest_collection_modifyitems`)."""
    unit = work_unit(nodeid)
    if unit.startswith("browser-"):
        return (2, unit)
    return (0 if module_of(nodeid) in LONG_MODULES else 1, "")


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Run the long modules first and the browser tests last, browser group by group (a stable sort:
    within a module the order is the file's).

    Playwright's sync API keeps its own event loop marked as running in the main thread from the first
    browser test to the end of the session: a pytest-asyncio test run after it in the same process
    would fail. So no process may run anything after a browser test.
    """
    items.sort(key=lambda item: run_order(item.nodeid))


def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """Under `--dist loadgroup` (scripts/test.sh): hand out the work units of `work_unit` in the order
    of the collection, so that the browser groups are the last units and each worker ends with at most
    one of them.

    The `xdist_group` mark cannot do it: pytest-xdist 3.8 tags a grouped test by assigning
    `item._nodeid`, which pytest 9.2 no longer reads, so every test was its own unit and the browser
    tests ran on every worker, each starting its own server per module.
    """
    if config.getvalue("dist") != "loadgroup":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class UnitScheduling(LoadScopeScheduling):  # type: ignore[misc]
        """Load scheduling by `work_unit`, in collection order (never reordered by unit size)."""

        def _split_scope(self, nodeid: str) -> str:
            return work_unit(nodeid)

    config.option.loadscopereorder = False
    return UnitScheduling(config, log)
