"""My games and the all-time board in Chromium, on a server whose archive (SQLite, written before it
starts) holds sessions of the page's player key and one of another key: at both sizes the page lists its
own sessions (never the other key's) with their seats, balances, statistics and rating, opens a deal in
the replay viewer, shows the all-time board, is reachable by keyboard and clean for axe; in French and
Dutch its words change; a name is shown as text, never as HTML."""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest
from archive_sessions import bots, finished
from axe_playwright_python.sync_playwright import Axe
from browser_helpers import Player, new_context, running_server, screenshot, wait_until
from playwright.sync_api import Browser, Page

from server.archive import SeatEntry, open_archive, player_hash

pytestmark = pytest.mark.browser

KEY = "page-player-key-0123456789abcdef"  # the page's own key (set in its localStorage)
OTHER = "someone-elses-key-0123456789abcd"
TRICKY = "<img src=x onerror=alert(1)>"  # a name that must stay text
AXE = Axe()


def _archive(url: str) -> dict[str, Any]:
    """Write the sessions (on a thread of its own: Playwright's loop runs in the main thread) and read
    back what the page should show of the page's player."""
    async def write() -> dict[str, Any]:
        archive = await open_archive(url)
        try:
            me = SeatEntry("human", "Ann", player_hash(KEY))
            other = SeatEntry("human", TRICKY, player_hash(OTHER))
            await archive.write_session(finished("hist-one", [me, other, *bots("expert", "heuristic")],
                                                 deals=6, seed=3, room_id="room-one", started_at=1_000.0))
            await archive.write_session(finished("hist-two", [*bots("expert"), other, me, *bots("heuristic")],
                                                 deals=5, seed=4, room_id="room-two", started_at=5_000.0))
            await archive.write_session(finished("hist-else", [other, *bots("expert", "expert", "heuristic")],
                                                 deals=4, seed=5, room_id="room-else", started_at=9_000.0))
            history = (await archive.player_history(player_hash(KEY))).public()
            first = await archive.deal_record("hist-one", 0)
            return {"history": history, "first_record": first}
        finally:
            await archive.close()

    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, write()).result()


@pytest.fixture(scope="module")
def archived(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, dict[str, Any]]]:
    """A server with an SQLite archive of three sessions; its URL and what the archive says of KEY."""
    folder = tmp_path_factory.mktemp("history")
    url = f"sqlite:///{folder / 'archive.sqlite3'}"
    expected = _archive(url)
    with running_server(folder / "server.log", extra=("--archive", url)) as server:
        yield server, expected


def open_page(browser: Browser, server: str, size: str, locale: str = "en-US") -> tuple[Any, Page, Player]:
    context = new_context(browser, size, locale)
    context.add_init_script(f"localStorage.setItem('whist.player_key', '{KEY}')")
    page = context.new_page()
    player = Player(page)
    page.goto(server)
    page.wait_for_function("() => window.whistApp && window.whistApp.roomsLoaded")
    return context, page, player


def serious_violations(page: Page) -> list[str]:
    found: list[dict[str, Any]] = AXE.run(page).response["violations"]
    return [f"{v['id']} ({v['impact']}): {[n['target'] for n in v['nodes']][:3]}"
            for v in found if v.get("impact") in ("serious", "critical")]


@pytest.mark.parametrize("size", ["phone", "desktop"])
def test_my_games_lists_the_players_sessions_and_replays_a_deal(
        browser: Browser, archived: tuple[str, dict[str, Any]], size: str) -> None:
    server, expected = archived
    context, page, player = open_page(browser, server, size)
    # The all-time board beside the daily leaderboard: humans and bots on one scale.
    page.select_option("#board-ruleset", "solo-whist")
    page.wait_for_selector("#alltime .alltime-board[data-ruleset=solo-whist][data-status=loaded] tbody tr")
    board = page.locator("#alltime .board-table tbody tr")
    rows = board.all_inner_texts()
    assert any("Ann" in row for row in rows) and any("Expert (bot)" in row for row in rows), rows
    assert any(TRICKY in row for row in rows), "a name is text"
    assert page.locator("#alltime img").count() == 0
    page.locator("#alltime").scroll_into_view_if_needed()
    screenshot(page, "all-time-board")
    # My games, by keyboard: the button takes the focus and Enter opens it.
    page.focus("#games-open")
    page.keyboard.press("Enter")
    page.wait_for_selector(".games-screen .game-item")
    sessions = page.locator(".game-item").evaluate_all("items => items.map(item => item.dataset.session)")
    assert sessions == ["hist-two", "hist-one"], "newest first, and never another key's session"
    history = expected["history"]
    assert page.inner_text("[data-stat=deals]") == str(history["statistics"]["deals"])
    assert page.inner_text("[data-stat=average]") == f"{history['statistics']['average_points']:.2f}"
    kinds = page.locator(".games-contracts tbody tr").evaluate_all("rows => rows.map(r => r.dataset.kind)")
    assert kinds == list(history["statistics"]["contracts"])
    assert list(history["ratings"]) == ["solo-whist"]
    rating = page.locator(".games-ratings tr[data-ruleset=solo-whist] .ordinal").inner_text()
    assert rating == f"{history['ratings']['solo-whist']['ordinal']:.1f}"
    one = page.locator(".game-item[data-session=hist-one]")
    seats = one.locator(".game-seats tbody th").all_inner_texts()
    assert seats[0].startswith("Ann") and "(you)" in seats[0] and seats[1] == TRICKY
    assert "Expert" in seats[2], seats
    assert page.locator(".games-screen img").count() == 0, "a name is never HTML"
    assert KEY not in page.content() and player_hash(KEY) not in page.content()
    assert serious_violations(page) == []
    screenshot(page, "my-games")
    # A deal one click from the replay viewer, from the player's seat.
    one.locator("summary").click()
    one.locator("[data-deal='0']").click()
    page.wait_for_selector(".replay-screen #replay-step")
    record = page.evaluate("() => window.whistApp.replay.record")
    assert record == expected["first_record"]
    assert page.evaluate("() => window.whistApp.replay.bottom") == 0
    page.keyboard.press("ArrowRight")
    page.wait_for_selector("#replay-step[data-index='1']")
    back = page.locator("[data-key=replay-close]")
    assert back.inner_text() == "Back to My games"
    back.click()
    page.wait_for_selector(".games-screen .game-item")
    # Escape (or the back button) returns to the lobby.
    page.keyboard.press("Escape")
    page.wait_for_selector("#alltime")
    assert page.evaluate("() => window.whistApp.games") is None
    assert player.errors == []
    context.close()


@pytest.mark.parametrize(("code", "title", "board"), [("fr", "Mes parties", "Classement général"),
                                                      ("nl", "Mijn spellen", "Algemeen klassement")])
def test_my_games_and_the_board_speak_french_and_dutch(
        browser: Browser, archived: tuple[str, dict[str, Any]], code: str, title: str, board: str) -> None:
    server, _ = archived
    context, page, player = open_page(browser, server, "phone")
    page.wait_for_selector("#alltime-title")
    assert page.inner_text("#alltime-title") == "All-time board"
    page.select_option("#lang-select", code)
    page.wait_for_function("([text]) => document.querySelector('#alltime-title').textContent === text",
                           arg=[board])
    page.click("#games-open")
    page.wait_for_selector(".games-screen .game-item")
    assert page.inner_text("#games-title") == title
    assert page.inner_text("#games-stats-title") != "Statistics"
    assert "(you)" not in page.locator(".game-item").first.inner_text()
    assert player.errors == []
    context.close()


def test_my_games_loads_under_the_pages_own_policy(
        browser: Browser, archived: tuple[str, dict[str, Any]]) -> None:
    """With the Content-Security-Policy enforced (the other tests bypass it), the page's `fetch` of the
    API is allowed and My games draws."""
    server, _ = archived
    context = new_context(browser, "desktop", enforce_policy=True)
    context.add_init_script(f"localStorage.setItem('whist.player_key', '{KEY}')")
    page = context.new_page()
    player = Player(page)
    refused: list[str] = []
    page.on("console", lambda message: refused.extend(
        [message.text] if "Content Security Policy" in message.text else []))
    page.goto(server)
    page.click("#games-open")
    page.wait_for_selector(".games-screen .game-item[data-session=hist-one]")
    assert page.locator(".game-item").count() == 2
    assert refused == [] and player.errors == []
    context.close()


def test_a_session_played_in_the_page_is_in_my_games_and_its_link_replays_it_once_let_go(
        browser: Browser, tmp_path_factory: pytest.TempPathFactory) -> None:
    """The path a player takes: the page says its player key in `hello`, plays a one-deal session with
    bots, and finds it in My games once the server has archived it; after the retention the room has
    left the live store, and the room's link opens its deals in the replay viewer (from the archive)."""
    folder = tmp_path_factory.mktemp("played")
    url = f"sqlite:///{folder / 'archive.sqlite3'}"
    key = "played-key-0123456789abcdefghij"
    with running_server(folder / "server.log", extra=("--archive", url, "--retention", "1")) as server:
        context = new_context(browser, "phone")
        context.add_init_script(f"localStorage.setItem('whist.player_key', '{key}')")
        page = context.new_page()
        player = Player(page)
        page.goto(server)
        page.wait_for_function("() => window.whistApp && window.whistApp.roomsLoaded")
        room_id = player.create_room("Lou", bots=True, deals=1, ruleset="solo-whist")
        for _ in range(8):  # thrown-in deals are dealt again
            view = player.wait_for_summary()
            if player.state()["room"]["session_over"]:
                break
            assert view["result"]["status"] == "thrown_in"
            player.next_deal()
        assert player.state()["room"]["session_over"]
        page.click("button[data-key=hide-summary]")
        page.wait_for_selector("#summary", state="detached")
        page.goto(server)  # back to the lobby, as a player coming back later would
        page.wait_for_function("() => window.whistApp && window.whistApp.roomsLoaded")

        def listed() -> bool:
            page.click("#games-open")
            page.wait_for_function("() => (window.whistApp.games || {}).status === 'loaded'")
            found = page.locator(f".game-item[data-session='{room_id}']").count()
            page.keyboard.press("Escape")
            page.wait_for_selector("#alltime")
            return found == 1
        wait_until(listed, timeout=30, message="the played session in My games")
        assert key not in page.content() and player_hash(key) not in page.content()

        # After the retention the room is gone from the live store: its link shows its deals, from
        # the archive, in the replay viewer's list.
        def let_go() -> bool:
            page.goto(f"{server}?room={room_id}")
            page.wait_for_function("() => window.whistApp?.replay || window.whistApp?.room")
            return bool(page.evaluate("() => window.whistApp.replay !== null && !window.whistApp.roomId"))
        wait_until(let_go, timeout=60, message="the room's link answered from the archive")
        records = page.evaluate("() => window.whistApp.replay.list")
        with urllib.request.urlopen(f"{server}api/rooms/{room_id}/records") as answer:
            archived_records = json.load(answer)["records"]
        assert records and records == archived_records
        assert page.locator(".replay-list li").count() == len(records)
        page.locator(".replay-list li button").first.click()
        page.wait_for_selector(".replay-screen #replay-step")
        assert page.evaluate("() => window.whistApp.replay.record") == records[0]
        assert player.errors == []
        context.close()
