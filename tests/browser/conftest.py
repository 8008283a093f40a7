"""Fixtures of the browser tests: one real server per test module and one headless Chromium per session."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from browser_helpers import CHROMIUM, CHROMIUM_ARGS, running_server
from playwright.sync_api import Browser, sync_playwright


@pytest.fixture(scope="module")
def server_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A live server (`python -m server`, memory store, fast bots) on a free port."""
    log = tmp_path_factory.mktemp("server") / "server.log"
    with running_server(log) as url:
        yield url


@pytest.fixture(scope="session")
def browser() -> Iterator[Browser]:
    """Debian's Chromium driven by Playwright (never a downloaded browser)."""
    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is missing: apt-get install -y chromium")
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()
