"""Accessibility in Chromium: axe-core finds no serious or critical violation on the lobby, the table
and the end-of-deal summary, at both sizes; cards, seats and the trick have accessible names; plays and
calls are read out through the ARIA live region."""

from __future__ import annotations

from typing import Any

import pytest
from axe_playwright_python.sync_playwright import Axe
from browser_helpers import Player, new_context, rendered, wait_until
from playwright.sync_api import Browser, Page

pytestmark = pytest.mark.browser

AXE = Axe()


def serious_violations(page: Page) -> list[str]:
    """axe-core's serious and critical violations on the page as it is now, one line each."""
    results = AXE.run(page)
    found: list[dict[str, Any]] = results.response["violations"]
    return [
        f"{v['id']} ({v['impact']}): {[node['target'] for node in v['nodes']][:3]}"
        for v in found if v.get("impact") in ("serious", "critical")
    ]


@pytest.mark.parametrize("size", ["phone", "desktop"])
def test_axe_finds_nothing_serious_on_the_lobby_the_table_and_the_summary(
    browser: Browser, server_url: str, size: str
) -> None:
    context = new_context(browser, size)
    page = context.new_page()
    player = Player(page)
    page.goto(server_url)
    page.wait_for_function("window.whistApp && window.whistApp.roomsLoaded && window.whistApp.leaderboard")
    assert serious_violations(page) == []
    page.fill("#player-name", "Ada")
    page.click("#quick-play")
    checked_table = False
    for _ in range(6):
        def at_play_or_end() -> bool:
            view = player.view()
            if view and player.my_turn() and view["phase"] != "play":
                player.act_by_clicking()
            return bool(view and view["phase"] in ("play", "end"))

        wait_until(at_play_or_end, timeout=60, message="the play")
        if player.view()["phase"] == "play" and not checked_table:
            wait_until(lambda: rendered(page), message="the table drawn")
            assert serious_violations(page) == []
            checked_table = True
        view = player.wait_for_summary(timeout=90)
        page.wait_for_selector("#summary")
        if view["result"]["status"] != "thrown_in":
            break
        player.next_deal()
    assert checked_table
    assert serious_violations(page) == []
    assert player.errors == []
    context.close()


def test_cards_seats_and_the_trick_have_names_and_plays_are_read_out(
    browser: Browser, server_url: str
) -> None:
    context = new_context(browser, "desktop")
    page = context.new_page()
    player = Player(page)
    page.goto(server_url)
    page.fill("#player-name", "Ada")
    page.click("#quick-play")

    names_script = """() => { const named = e => [e.getAttribute('role'), e.getAttribute('aria-label')];
      return {
        hand: [...document.querySelectorAll('.hand .card')].map(e => e.getAttribute('aria-label')),
        seats: [...document.querySelectorAll('.board .seat')].map(named),
        trick: [...document.querySelectorAll('.trick .card')].map(named),
      }; }"""

    def names_with_a_trick_on_the_table() -> dict[str, Any] | None:
        """The names on the page, read at a moment its view has cards on the table and in the hand
        (a bot may complete the trick between two reads)."""
        seen = player.seen(names_script)
        view = seen["state"]["view"]
        if view and view["phase"] == "end":
            player.next_deal()
            return None
        on_table = bool(view and view["phase"] == "play" and view["trick"] and view["trick"]["cards"])
        if view and player.my_turn(view) and not on_table:
            player.act_by_clicking()
        found: dict[str, Any] = seen["found"]
        return found if on_table and view["hand"] else None

    names = wait_until(names_with_a_trick_on_the_table, timeout=90, message="a card on the table")
    assert names["hand"] and all(" of " in name for name in names["hand"])
    assert len(names["seats"]) == 4
    assert all(role == "group" and "cards" in label for role, label in names["seats"])
    assert names["trick"] and all(role == "img" and " of " in label for role, label in names["trick"])
    # The live region has read out the calls and the cards played so far.
    wait_until(lambda: "plays the" in page.inner_text("#live"), message="a play read out")
    live = page.locator("#live")
    assert live.get_attribute("aria-live") == "polite"
    assert player.errors == []
    context.close()
