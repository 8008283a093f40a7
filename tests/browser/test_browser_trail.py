"""The trail printed under a failed browser test (browser_helpers.TRAIL, tests/browser/conftest.py):
what the test's pages sent and received on their WebSocket, and their uncaught errors."""

from __future__ import annotations

import pytest
from browser_helpers import TRAIL, new_context, wait_until
from playwright.sync_api import Browser, Page

pytestmark = pytest.mark.browser


def seen(page: Page, *parts: str) -> bool:
    """Whether a line of the trail holds every part (after a round trip to the page)."""
    page.evaluate("() => true")
    return any(all(part in line for part in parts) for line in TRAIL.lines)


def test_the_trail_keeps_a_pages_frames_both_ways_and_its_errors(browser: Browser, server_url: str) -> None:
    context = new_context(browser, "desktop")
    page = context.new_page()
    page.goto(server_url)
    # Playwright hands the page's events over while the test talks to it (`seen` does).
    wait_until(lambda: seen(page, " << ", '"type":"ok"'), message="the answer to hello in the trail")
    assert any(" >> " in line and '"type":"hello"' in line for line in TRAIL.lines)
    page.evaluate("() => { setTimeout(() => { throw new Error('thrown for the trail'); }); }")
    wait_until(lambda: seen(page, " error ", "thrown for the trail"), message="the page's error in the trail")
    assert all(line.split()[1] == "page" and line.split()[2] == "1" for line in TRAIL.lines)
    assert len(TRAIL.lines) <= TRAIL.KEEP
    context.close()
