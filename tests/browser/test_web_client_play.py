"""A person plays whole deals in Chromium: by clicking (phone and desktop), and with the keyboard alone.

These tests also save the screenshots under docs/screenshots/ (lobby, calling panel, a trick in play,
the end-of-deal summary) and check that no card index is covered and no table element overlaps another.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from browser_helpers import (
    Player,
    covered_by_anything,
    covered_card_centres,
    hand_shows_legal_cards,
    new_context,
    outside_viewport,
    overlapping_indices,
    overlapping_seats,
    points_shown,
    rendered,
    screenshot,
    wait_until,
)
from playwright.sync_api import Browser, Page

RULESET = os.environ.get("WHIST_BROWSER_RULESET", "couleur")
MAX_DEALS = 8  # thrown-in deals are dealt again; a played deal comes well before this

pytestmark = pytest.mark.browser


def check_hand_matches_legal(page: Page) -> None:
    """The raised cards are exactly the legal ones; every other card is dimmed (once the page has
    drawn the state it holds: on a busy machine the drawing may come a little after the state)."""
    problems: list[str | None] = []

    def settled() -> bool:
        problems.append(hand_shows_legal_cards(page))
        return problems[-1] is None

    wait_until(settled, timeout=15, message="the hand to show the legal cards")
    assert problems[-1] is None


def check_summary(page: Page, view: dict[str, Any]) -> None:
    """The summary shows the contract, its result, each player's points and the hands as dealt."""
    result = view["result"]
    summary = page.locator("#summary")
    text = summary.inner_text()
    assert points_shown(page) == result["points"]
    assert page.locator("#summary .dealt li").count() == 4
    assert page.locator("#summary button#next-deal, #summary button#download-records").count() == 1
    assert "End the game" in text or "Leave" in text or "Download" in text
    if result["status"] == "complete":
        assert ("made" in text) or ("failed" in text)
        for cards in view["dealt"]:
            assert len(cards) == 13


def open_lobby(page: Page, url: str) -> None:
    page.goto(url)
    page.wait_for_function("window.whistApp && window.whistApp.server.rulesets.length > 0")



def settled(read: Callable[[], list[Any]], seconds: float = 5.0) -> list[Any]:
    """What `read` finds once the page has settled: its first empty answer, else its last within
    `seconds` (a card in the middle of its transition overlaps for a frame or two; a layout fault stays)."""
    deadline = time.monotonic() + seconds
    found = read()
    while found and time.monotonic() < deadline:
        time.sleep(0.05)
        found = read()
    return found


@pytest.mark.parametrize("size", ["phone", "desktop"])
def test_a_person_plays_a_whole_couleur_deal_against_three_bots_by_clicking(
    browser: Browser, server_url: str, size: str
) -> None:
    context = new_context(browser, size)
    page = context.new_page()
    player = Player(page)
    open_lobby(page, server_url)
    page.fill("#player-name", "Alice")
    screenshot(page, "lobby")
    player.create_room("Alice", bots=True, deals=3, ruleset=RULESET)
    assert page.url.endswith(f"?room={player.state()['roomId']}")
    shots: set[str] = set()

    def before_each_turn() -> None:
        view = player.view()
        assert view is not None
        if view["phase"] == "auction":
            page.wait_for_selector(".calls-panel")
            # The hand and the everyday calls are on screen without scrolling, on a phone too.
            in_reach = ".hand .card, .calls-panel .call-list.common button"
            wait_until(lambda: outside_viewport(page, in_reach) == [],
                       timeout=10, message="the hand and the everyday calls on screen")
        if view["phase"] == "auction" and "calling" not in shots:
            screenshot(page, "calling-panel")
            shots.add("calling")
        if view["phase"] == "play":
            # The page draws the state it holds a frame later: CI once found the previous deal's
            # summary (a thrown-in deal) still on screen while the new deal's play had begun.
            wait_until(lambda: rendered(page), message="the table drawn for the state it holds")
            check_hand_matches_legal(page)
            # No announcement, no pop-up covers a seat's name, a card's index or the panel.
            uncovered = ".board .seat .name, .hand .card .idx, .action-panel button"
            assert settled(lambda: covered_by_anything(page, uncovered)) == []
            assert settled(lambda: overlapping_indices(page)) == []
            assert settled(lambda: covered_card_centres(page)) == []
            assert settled(lambda: outside_viewport(page, ".hand .card")) == []
            assert overlapping_seats(page) == []
            if "trick" not in shots and view["trick"] and len(view["trick"]["cards"]) >= 2:
                screenshot(page, "trick-in-play")
                shots.add("trick")

    for _ in range(MAX_DEALS):
        view = player.wait_for_summary(each_turn=before_each_turn)
        if view["result"]["status"] == "thrown_in":
            check_summary(page, view)
            player.next_deal()
            continue
        check_summary(page, view)
        screenshot(page, "summary")
        break
    else:
        pytest.fail(f"no deal was played in {MAX_DEALS} deals")
    assert view["result"]["tricks_played"] >= 1
    if RULESET != "belge-club":  # the club table is not zero-sum (docs/rules.md §3, D13)
        assert sum(view["result"]["points"]) == 0
    assert player.errors == []
    context.close()


def tab_to(page: Page, selector: str, limit: int = 80, backwards: bool = False) -> None:
    """Press Tab until the focused element matches `selector`."""
    for _ in range(limit):
        if page.evaluate("s => !!document.activeElement && document.activeElement.matches(s)", selector):
            return
        page.keyboard.press("Shift+Tab" if backwards else "Tab")
    raise AssertionError(f"Tab never reached {selector}")


def focus_clipped(page: Page) -> float:
    """How many pixels of the focused element, with its 3 px focus ring 1 px away, a scrolling or
    clipping ancestor (the phone's dock) or the window cuts off at the top."""
    clipped: float = page.evaluate(
        """() => {
          const el = document.activeElement;
          const top = el.getBoundingClientRect().top - 4;
          let limit = 0;
          for (let p = el.parentElement; p; p = p.parentElement) {
            const style = getComputedStyle(p);
            const clips = /(auto|scroll|hidden|clip)/.test(style.overflowY + style.overflowX);
            if (clips) limit = Math.max(limit, p.getBoundingClientRect().top);
          }
          return Math.max(0, limit - top);
        }"""
    )
    return clipped


def focused(page: Page, selector: str) -> bool:
    """Whether the focused element matches `selector`."""
    script = "s => !!document.activeElement && document.activeElement.matches(s)"
    result: bool = page.evaluate(script, selector)
    return result


def moved_on(player: Player, before: dict[str, Any]) -> bool:
    """Whether the deal has gone past the view `before` (a call made, or the phase changed)."""
    now = player.view() or {}
    return bool(now.get("calls") != before["calls"] or now.get("phase") != before["phase"])


def active_element(page: Page) -> str:
    script = "() => document.activeElement ? document.activeElement.outerHTML.slice(0, 160) : 'none'"
    text: str = page.evaluate(script)
    return text


def focused_call_and_legal(page: Page) -> list[Any] | None:
    """[focused call's action, the view's legal actions], read together; None until the page
    shows the state it holds."""
    found: list[Any] | None = page.evaluate(
        "() => { const a = window.whistApp, s = document.querySelector('.table-screen');"
        " if (!a || !a.view || a.drawn !== a.revision || !s || s.dataset.version !== String(a.room.version))"
        " return null;"
        " return [document.activeElement.dataset.action, a.view.legal]; }"
    )
    return found


@pytest.mark.parametrize("size", ["phone", "desktop"])
def test_a_whole_deal_with_the_keyboard_alone(browser: Browser, server_url: str, size: str) -> None:
    context = new_context(browser, size)
    page = context.new_page()
    player = Player(page)
    open_lobby(page, server_url)
    tab_to(page, "#player-name")
    page.keyboard.type("Kim")
    tab_to(page, "input[name=ruleset]")
    for _ in range(4):
        if page.evaluate(f"() => document.activeElement.value === '{RULESET}'"):
            break
        page.keyboard.press("ArrowDown")
    assert page.is_checked(f"input[name=ruleset][value={RULESET}]")
    tab_to(page, "#create-room")
    page.keyboard.press("Enter")
    wait_until(lambda: player.state().get("room"), message="the room")
    assert player.state()["room"]["seats"][player.state()["you"]["seat"]]["name"] == "Kim"

    played = False
    for _ in range(400):
        view = player.view()
        if view and view["phase"] == "end":
            page.wait_for_selector("#summary")
            wait_until(lambda: focused(page, "#next-deal"), message="focus on Next deal")
            if view["result"]["status"] == "complete":
                check_summary(page, view)
                played = True
                break
            number = player.state()["room"]["deal_number"]
            page.keyboard.press("Enter")
            wait_until(lambda n=number: player.state()["room"]["deal_number"] > n, message="the next deal")
            continue
        if not (view and view.get("legal")) or player.state().get("pending"):
            page.wait_for_timeout(60)
            continue
        if view["phase"] in ("play", "discard"):
            # The page brings focus to the hand; arrows move between the cards that may be played.
            wait_until(lambda: focused(page, ".hand .card.playable"),
                       message=f"focus on a playable card (focus: {active_element(page)})")
            page.keyboard.press("ArrowRight")
            assert focused(page, ".hand .card.playable")
            assert settled(lambda: overlapping_indices(page)) == []  # the focused card covers no neighbour
            assert focus_clipped(page) == 0  # nothing of the focused card or its ring is cut off
            card = page.evaluate("() => document.activeElement.dataset.card")
            page.keyboard.press("Enter")
            wait_until(lambda c=card: c not in (player.view() or {}).get("hand", []) or not player.my_turn(),
                       message=f"{card} to be played")
        else:
            wait_until(lambda: focused(page, "button.call, button.suit-btn"),
                       message=f"focus on the calls (focus: {active_element(page)})")
            # Prefer a real call (the first after Pass) so that a contract is played.
            real_call = any(action != "pass" for action in view["legal"])
            if view["phase"] == "auction" and real_call and focused(page, "button.call.pass"):
                page.keyboard.press("Tab")
                if not focused(page, "button.call"):
                    page.keyboard.press("Shift+Tab")
            # The focused call and the legal actions are read in one step from the page, once it has
            # drawn the state it holds: on a busy machine a new state may arrive between two reads.
            action, legal = wait_until(lambda: focused_call_and_legal(page), message="the calls drawn")
            assert action in legal
            page.keyboard.press("Enter")
            wait_until(lambda before=view: moved_on(player, before), message=f"{action} to be taken")
    assert played, "no deal was played to the end with the keyboard"
    assert player.errors == []
    context.close()


def test_the_session_ends_with_final_balances_and_downloadable_deal_records(
    browser: Browser, server_url: str
) -> None:
    from server.rules.record import replay

    context = new_context(browser, "desktop")
    page = context.new_page()
    player = Player(page)
    open_lobby(page, server_url)
    player.create_room("Lou", bots=True, deals=1, ruleset=RULESET)
    for _ in range(MAX_DEALS):
        view = player.wait_for_summary()
        if view["result"]["status"] != "thrown_in":
            break
        player.next_deal()
    page.wait_for_selector("#summary #download-records")
    assert "Final balances" in page.inner_text("#summary")
    seen = player.seen("() => [...document.querySelectorAll('#summary .score-table tbody tr')]"
                       ".map(r => r.querySelectorAll('td')[2].textContent)")
    balances = seen["state"]["room"]["balances"]
    assert [int(text.replace("+", "")) for text in seen["found"]] == balances

    # The last trick can be reviewed from the table.
    page.click("button[data-key=hide-summary]")
    page.wait_for_selector("#summary", state="detached")
    page.click("button.last-trick-btn")
    page.wait_for_selector("#last-trick .last-trick li")
    assert page.locator("#last-trick .last-trick li").count() == 4
    page.keyboard.press("Escape")
    page.wait_for_selector("#last-trick", state="detached")
    page.click("button[data-key=show-summary]")

    with page.expect_download() as download_info:
        page.click("#download-records")
    records = json.loads(Path(download_info.value.path()).read_text(encoding="utf-8"))
    assert len(records) >= 1
    last = replay(records[-1])
    assert last.finished
    assert last.result()["points"] == view["result"]["points"]
    assert player.errors == []
    context.close()
