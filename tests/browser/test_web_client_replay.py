"""The replay viewer in Chromium: a finished deal of the session, a downloaded file and a pasted
record, stepped card by card forward and back with every hand shown; a bad record says why."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from browser_helpers import Player, new_context, screenshot, wait_until
from playwright.sync_api import Browser, Page

from server.rules import replay

pytestmark = pytest.mark.browser

RECORDS = Path(__file__).resolve().parents[1] / "rules" / "records"


def shown_hands(page: Page) -> list[list[str]]:
    """The cards of each seat's hand in the viewer, seat 0 first."""
    hands: list[list[str]] = page.evaluate(
        """() => [0, 1, 2, 3].map(s => [...document.querySelectorAll(
             `.replay-seat[data-seat="${s}"] .replay-hand [data-card]`)].map(e => e.dataset.card))"""
    )
    return hands


def step_index(page: Page) -> int:
    return int(page.get_attribute("#replay-step", "data-index") or "-1")


def load(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((RECORDS / name).read_text(encoding="utf-8"))
    return data


@pytest.mark.parametrize("size", ["phone", "desktop"])
def test_a_pasted_record_is_stepped_card_by_card_with_every_hand_shown(
    browser: Browser, server_url: str, size: str
) -> None:
    record = load("solo-whist/solo.json")
    context = new_context(browser, size)
    page = context.new_page()
    player = Player(page)
    page.goto(server_url)
    page.click("#replay-open")
    page.fill("#replay-paste", json.dumps(record))
    page.click("#replay-show")
    page.wait_for_selector(".replay-board")
    assert step_index(page) == 0
    dealt = [sorted(hand.split()) for hand in record["hands"]]
    assert [sorted(hand) for hand in shown_hands(page)] == dealt
    # Forward through the auction to the first card: it leaves its hand and lies on the table.
    first_play = next(i for i, (_, action) in enumerate(record["actions"]) if action.startswith("play "))
    for _ in range(first_play + 1):
        page.click("[data-key=replay-forward]")
    wait_until(lambda: step_index(page) == first_play + 1, message="the first card's step")
    seat, action = record["actions"][first_play]
    card = action.split()[1]
    assert card not in shown_hands(page)[seat]
    assert page.locator(f".replay-board .trick .card[data-card='{card}']").count() == 1
    assert "plays" in page.inner_text("#replay-step")
    screenshot(page, "replay")
    # Back one step: the card is in its hand again. The arrow keys step too.
    page.click("[data-key=replay-back]")
    wait_until(lambda: step_index(page) == first_play, message="one step back")
    assert card in shown_hands(page)[seat]
    page.keyboard.press("ArrowRight")
    wait_until(lambda: step_index(page) == first_play + 1, message="a step with the arrow key")
    # To the end: the result is the replay command's.
    page.click("[data-key=replay-last]")
    wait_until(lambda: step_index(page) == len(record["actions"]), message="the last step")
    result = replay(record).result()
    points = page.eval_on_selector_all(".replay-result .score-table tbody td:last-child",
                                       "els => els.map(e => Number(e.textContent.replace('+', '')))")
    assert points == result["points"]
    page.click("[data-key=replay-close]")
    page.wait_for_selector("#replay-open")
    assert player.errors == []
    context.close()


@pytest.mark.parametrize("size", ["phone", "desktop"])
def test_a_downloaded_file_lists_its_deals_and_a_bad_record_says_why(
    browser: Browser, server_url: str, tmp_path: Path, size: str
) -> None:
    records = [load("couleur/emballage_made.json"), load("couleur/grand_chelem.json")]
    path = tmp_path / "whist-records.json"
    path.write_text(json.dumps(records), encoding="utf-8")
    context = new_context(browser, size)
    page = context.new_page()
    page.goto(server_url)
    page.click("#replay-open")
    page.set_input_files("#replay-file", str(path))
    page.wait_for_selector(".replay-pick")
    assert page.locator(".replay-pick").count() == 2
    page.click("[data-key=replay-pick-1]")
    page.wait_for_selector(".replay-board")
    assert [sorted(h) for h in shown_hands(page)] == [sorted(h.split()) for h in records[1]["hands"]]
    page.click("[data-key=replay-close]")
    # A record with an illegal action: the server's reason is shown, nothing else happens.
    page.click("#replay-open")
    page.fill("#replay-paste", json.dumps(load("couleur/illegal_solo_first_call.json")))
    page.click("#replay-show")
    wait_until(lambda: "cannot replay" in page.inner_text("#replay-error"), message="the reason")
    page.fill("#replay-paste", "{not json")
    page.click("#replay-show")
    wait_until(lambda: "not JSON" in page.inner_text("#replay-error"), message="the JSON error")
    context.close()


def test_a_finished_deal_of_the_session_is_replayed_from_the_summary(
    browser: Browser, server_url: str
) -> None:
    context = new_context(browser, "desktop")
    page = context.new_page()
    player = Player(page)
    page.goto(server_url)
    player.create_room("Rea", bots=True, deals=3)
    for _ in range(8):
        view = player.wait_for_summary(timeout=90)
        if view["result"]["status"] != "thrown_in":
            break
        player.next_deal()
    # The summary may be drawn again as the bots' pushes arrive: click in the moment the button is found.
    page.wait_for_selector("[data-key=replay-deal]")
    page.evaluate("() => document.querySelector('[data-key=replay-deal]').click()")
    page.wait_for_selector(".replay-board")
    # Every hand as dealt, the player's seat at the bottom, named as at the table.
    shown = [card for hand in shown_hands(page) for card in hand]
    assert sorted(shown) == sorted(card for hand in view["dealt"] for card in hand)
    me = player.state()["you"]["seat"]
    assert page.get_attribute(f".replay-seat[data-seat='{me}']", "data-pos") == "bottom"
    assert "Rea" in page.inner_text(f".replay-seat[data-seat='{me}']")
    page.click("[data-key=replay-last]")
    page.wait_for_selector(".replay-result")
    page.click("[data-key=replay-close]")
    page.wait_for_selector("#summary")  # back at the table, the summary still open
    assert player.errors == []
    context.close()
