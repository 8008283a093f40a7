"""The page's Content-Security-Policy holds while a person plays: no violation, no blocked resource."""

from __future__ import annotations

from typing import Any

import pytest
from browser_helpers import Player, new_context, wait_until
from playwright.sync_api import Browser, ConsoleMessage

pytestmark = pytest.mark.browser

#: Records every policy violation the page meets (the event fires for blocked scripts, styles,
#: connections and frames alike).
WATCH_VIOLATIONS = """
window.__violations = [];
document.addEventListener("securitypolicyviolation", (event) => {
  window.__violations.push(`${event.violatedDirective} ${event.blockedURI}`);
});
"""


def _violations(page: Any) -> list[str]:
    found: list[str] = page.evaluate("() => window.__violations || []")
    return found


def test_a_whole_deal_and_the_fairness_page_meet_no_policy_violation(
    browser: Browser, server_url: str
) -> None:
    context = new_context(browser, "desktop", enforce_policy=True)
    context.add_init_script(WATCH_VIOLATIONS)
    page = context.new_page()
    console: list[str] = []

    def keep(message: ConsoleMessage) -> None:
        if message.type in ("error", "warning"):
            console.append(message.text)

    page.on("console", keep)
    response = page.goto(server_url)
    assert response is not None and "frame-ancestors 'none'" in response.headers["content-security-policy"]
    # Polled from here: the policy forbids Playwright's string evaluation in the page.
    wait_until(lambda: page.evaluate("() => !!window.whistApp && window.whistApp.server.rulesets.length > 0"),
               message="the lobby")
    player = Player(page)
    player.create_room("Ana", bots=True, deals=1, ruleset="solo-whist")
    view = player.wait_for_summary()
    assert view["phase"] == "end"
    assert _violations(page) == [], "the game page"
    page.goto(server_url + "fair.html#seed=abc&commitment=def")
    page.wait_for_selector("h1")
    assert _violations(page) == [], "the fairness page"
    assert [line for line in console if "Content Security Policy" in line] == []
    assert player.errors == []
    # The watch itself works: an inline script, which the policy forbids, is reported.
    page.evaluate("() => { const s = document.createElement('script'); s.textContent = 'window.x = 1';"
                  " document.body.append(s); }")
    wait_until(lambda: _violations(page), message="the inline script reported")
    assert page.evaluate("() => window.x") is None
    context.close()
