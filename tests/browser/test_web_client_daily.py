"""The daily challenge in Chromium: a person starts today's challenge from the lobby, plays two deals
against the day's bots, stops, and finds the game on the day's leaderboard (docs/protocol.md, "Daily
challenge")."""

from __future__ import annotations

import datetime as dt

import pytest
from browser_helpers import Player, new_context, screenshot, wait_until
from playwright.sync_api import Browser

pytestmark = pytest.mark.browser

MAX_DEALS = 10  # thrown-in deals do not count; two played deals come well before this


def leaderboard_rows(player: Player) -> list[list[str]]:
    """The lines of the lobby's leaderboard table: rank, name, score, deals."""
    rows: list[list[str]] = player.page.eval_on_selector_all(
        "#daily .leaderboard tbody tr",
        "rows => rows.map(r => [...r.children].map(c => c.textContent.trim()))",
    )
    return rows


@pytest.mark.parametrize("size", ["phone", "desktop"])
def test_a_person_plays_the_daily_challenge_and_sees_the_leaderboard(
    browser: Browser, server_url: str, size: str
) -> None:
    context = new_context(browser, size)
    player = Player(context.new_page())
    page = player.page
    page.goto(server_url)
    page.wait_for_selector("#daily .leaderboard table, #daily .leaderboard p:not(:empty)")
    today = dt.datetime.now(dt.UTC).date().isoformat()
    wait_until(lambda: today in page.inner_text("#daily"), message="today's leaderboard")
    name = f"Dana-{size}"
    page.fill("#player-name", name)
    page.click("#daily-start")
    wait_until(lambda: player.view(), message="the first daily deal")
    state = player.state()
    assert state["room"]["daily"] == today
    assert state["you"]["seat"] == 0
    assert [seat["kind"] for seat in state["room"]["seats"]] == ["human", "bot", "bot", "bot"]
    assert "Score 1000" in page.inner_text(".infobar")

    for _ in range(MAX_DEALS):
        view = player.wait_for_summary()
        room = player.state()["room"]
        note = page.inner_text("#summary .daily-note")
        assert f"{room['balances'][0] + 1000}" in note
        if room["played_deals"] >= 2:
            assert "on today's leaderboard" in note
            break
        player.next_deal()
    else:
        pytest.fail("two deals were not played")
    assert view["result"]["status"] == "complete"
    score = room["balances"][0] + 1000

    # The player is the host of their own daily game: "End the game" ends it.
    page.click("#summary #end-game")
    page.wait_for_selector("#summary #download-records, #final #download-records")
    page.click("[data-key=final-lobby]")
    page.wait_for_selector("#daily-start")
    wait_until(lambda: any(row[1] == name for row in leaderboard_rows(player)), message="the game's line")
    line = next(row for row in leaderboard_rows(player) if row[1] == name)
    assert line[2:] == [str(score), str(room["played_deals"])]
    ranks = [int(row[0]) for row in leaderboard_rows(player)]
    assert ranks == sorted(ranks)
    screenshot(page, "daily-leaderboard")
    assert player.errors == []
    context.close()
