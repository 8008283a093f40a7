"""Fixtures of the browser tests: one real server per test module and one headless Chromium per session."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

import pytest
from browser_helpers import CHROMIUM, CHROMIUM_ARGS, TRAIL, running_server
from playwright.sync_api import Browser, sync_playwright

#: The server log of the running module's server (its tail is printed under a failed test).
SERVER_LOGS: list[Path] = []
LOG_LINES = 30


@pytest.fixture(scope="module")
def server_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A live server (`python -m server`, memory store, fast bots) on a free port."""
    log = tmp_path_factory.mktemp("server") / "server.log"
    SERVER_LOGS.append(log)
    try:
        with running_server(log) as url:
            yield url
    finally:
        SERVER_LOGS.remove(log)


@pytest.fixture(autouse=True)
def _trail() -> Iterator[None]:
    """Each test's own trail of its pages (browser_helpers.TRAIL)."""
    TRAIL.clear()
    yield


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    """Under a failed browser test: what its pages exchanged last, and the server log's last lines."""
    outcome = yield
    report = outcome.get_result()
    if report.when != "call" or not report.failed:
        return
    if TRAIL.lines:
        report.sections.append(("the pages' last frames and errors", "\n".join(TRAIL.lines)))
    for log in SERVER_LOGS:
        with contextlib.suppress(OSError):
            tail = log.read_text(encoding="utf-8", errors="replace").splitlines()[-LOG_LINES:]
            report.sections.append((f"the server log's last lines ({log})", "\n".join(tail)))


@pytest.fixture(scope="session")
def browser() -> Iterator[Browser]:
    """Debian's Chromium driven by Playwright (never a downloaded browser)."""
    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is missing: apt-get install -y chromium")
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()
