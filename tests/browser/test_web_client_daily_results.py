"""The daily challenge in Chromium, counted once per browser, and "how others played this
deal": a person plays a deal of today's challenge, sees the other games' contracts and
scores on it with their own place; replaying the challenge in the same browser is marked "Practice"
(docs/protocol.md, "Daily challenge")."""

from __future__ import annotations

import pytest
from browser_helpers import Player, new_context, wait_until
from playwright.sync_api import Browser

pytestmark = pytest.mark.browser


def results_rows(player: Player) -> list[list[str]]:
    """The rows of the summary's "how others played this deal" table."""
    rows: list[list[str]] = player.page.eval_on_selector_all(
        "#summary .deal-results tbody tr",
        "rows => rows.map(r => [...r.children].map(c => c.textContent.trim()))",
    )
    return rows


def start_daily(player: Player, name: str) -> None:
    page = player.page
    page.wait_for_selector("#daily-start")
    page.fill("#player-name", name)
    page.click("#daily-start")
    wait_until(lambda: player.view(), message="the first daily deal")


def test_a_daily_deal_shows_how_others_played_it_and_a_replay_is_practice(
    browser: Browser, server_url: str
) -> None:
    # Another browser (its own player key) plays the first deal first.
    other_context = new_context(browser, "desktop")
    other = Player(other_context.new_page())
    other.page.goto(server_url)
    start_daily(other, "Olga")
    other.wait_for_summary()
    other.page.wait_for_selector("#summary .deal-results table")
    assert any(row[1].startswith("Olga") for row in results_rows(other))
    other_context.close()

    context = new_context(browser, "phone")
    player = Player(context.new_page())
    page = player.page
    page.goto(server_url)
    start_daily(player, "Petra")
    assert player.state()["room"]["practice"] is False
    assert page.locator(".infobar .chip.practice").count() == 0
    player.wait_for_summary()
    page.wait_for_selector("#summary .deal-results table")
    assert "How others played this deal" in page.inner_text("#summary .deal-results")
    rows = results_rows(player)
    names = [row[1] for row in rows]
    assert any(name.startswith("Olga") for name in names), "the other game's line"
    mine = page.locator("#summary .deal-results tbody tr.me")
    assert mine.count() == 1 and "Petra" in mine.inner_text()
    place = page.get_attribute("#summary .deal-results", "data-place")
    assert place is not None
    assert f"Your place on this deal: {place} of" in page.inner_text("#summary .deal-results")
    view = player.view()
    assert view is not None
    assert rows[[row[1].startswith("Petra") for row in rows].index(True)][3].lstrip("+") == str(
        view["result"]["points"][0])

    # The same browser replays today's challenge: the game is practice, and says so.
    page.click("#summary #end-game")
    page.wait_for_selector("#summary #download-records, #final #download-records")
    page.click("[data-key=final-lobby]")
    start_daily(player, "Petra")
    wait_until(lambda: player.state()["room"]["practice"] is True, message="a practice game")
    page.wait_for_selector(".infobar .chip.practice")
    assert "Practice" in page.inner_text(".infobar .chip.practice")
    player.wait_for_summary()
    page.wait_for_selector("#summary .practice-note")
    page.wait_for_selector("#summary .deal-results table")
    assert "practice, not counted" in page.inner_text("#summary .deal-results")
    assert player.errors == []
    context.close()
