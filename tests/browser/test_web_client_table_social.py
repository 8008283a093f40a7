"""A table shared with strangers, tried in Chromium as a new user would, at 360x740 and 1280x800: the
turn clock on the seat to act (it counts down, the bot plays when it runs out and everyone is told, two
expiries give the seat to the bot until "I'm back"), the table chat (it opens and closes without
covering the hand or the calling panel, HTML shows as text, quick phrases in the page's language, lines
reach the other players but a spectator's never reach a seat, a person hidden on one's screen), and
"Play again" starting a new session for everyone."""

from __future__ import annotations

import re
from typing import Any

import pytest
from browser_helpers import (
    Player,
    covered_by_anything,
    new_context,
    outside_viewport,
    wait_until,
)
from playwright.sync_api import Browser, Page

pytestmark = pytest.mark.browser

SIZES = ["phone", "desktop"]
#: The "I'm back" button a person can press: in a dialog, or on the table when no dialog covers it.
BACK = "#modal-root [data-key=im-back], #app:not([inert]) [data-key=im-back]"
XSS = "<img src=x onerror=window.__pwned=1>"


def ready_page(player: Player, url: str, name: str) -> None:
    """Open the lobby and save a name, once the server has said hello."""
    player.page.goto(url)
    player.page.wait_for_function("() => window.whistApp && window.whistApp.server.rulesets.length > 0")
    player.page.fill("#player-name", name)
    player.page.click("[data-key=name-save]")
    wait_until(lambda: player.page.evaluate("() => window.whistApp.name") == name, message="the name saved")


def seated_with_friend(browser: Browser, url: str, size: str, *, deals: int = 3, clock: str = "0",
                       friend_locale: str = "en-US") -> tuple[list[Any], Player, Player, str]:
    """Ana creates a room from the form (turn clock `clock`), Bob opens its link and sits, Ana starts."""
    contexts = [new_context(browser, size), new_context(browser, size, locale=friend_locale)]
    ana, bob = (Player(context.new_page()) for context in contexts)
    ana.page.goto(url)
    ana.page.wait_for_function("() => window.whistApp && window.whistApp.server.rulesets.length > 0")
    ana.page.select_option("#turn-seconds", clock)
    room_id = ana.create_room("Ana", bots=False, deals=deals, ruleset="solo-whist")
    ready_page(bob, url, "Bob")
    bob.page.goto(f"{url}?room={room_id}")
    wait_until(lambda: bob.state().get("room"), message="the room from its link")
    bob.page.click("[data-key=sit-1]")
    wait_until(lambda: bob.state()["you"]["seat"] == 1, message="Bob to sit")
    ana.page.click("#start-btn")
    for player in (ana, bob):
        wait_until(lambda p=player: p.view(), message="the first deal")
    return contexts, ana, bob, room_id


def clock_seen(player: Player) -> dict[str, Any]:
    """The clock the page shows on each seat, with the state it shows, read at one moment."""
    return player.seen("""() => [...document.querySelectorAll('.seat .turn-clock')].map(e => ({
        seat: Number(e.closest('.seat').dataset.seat), me: e.closest('.seat').classList.contains('me'),
        role: e.getAttribute('role'), label: e.getAttribute('aria-label'),
        text: e.querySelector('.clock-text').textContent, warning: e.classList.contains('warning'),
        visible: e.getBoundingClientRect().width > 0}))""")


def seconds_shown(player: Player) -> int | None:
    found = clock_seen(player)["found"]
    mine = [clock for clock in found if clock["me"]]
    if not mine:
        return None
    match = re.search(r"(\d+)", mine[0]["text"])
    return int(match.group(1)) if match else None


def hit_is(page: Page, selector: str) -> bool:
    """Whether the centre of `selector` shows that very element (a tap there would reach it)."""
    found: bool = page.evaluate(
        """s => { const el = document.querySelector(s); if (!el) return false;
                  const b = el.getBoundingClientRect();
                  const hit = document.elementFromPoint(b.left + b.width / 2, b.top + b.height / 2);
                  return !!hit && (el === hit || el.contains(hit)); }""",
        selector,
    )
    return found


# ------------------------------------------------------------------------------------------ turn clock


@pytest.mark.parametrize("size", SIZES)
def test_the_turn_clock_counts_down_the_bot_plays_and_two_expiries_need_im_back(
    browser: Browser, server_url: str, size: str
) -> None:
    context = new_context(browser, size)
    ana = Player(context.new_page())
    ready_page(ana, server_url, "Ana")
    # A 3-second clock (the form offers 30 s and more), asked for as the page asks for any room.
    ana.page.evaluate("() => window.whistApp.actions.createRoom({ruleset: 'solo-whist', houseRules: {},"
                      " session: {deals: 8}, bots: true, sit: true, turnSeconds: 3})")
    wait_until(lambda: (ana.state().get("room") or {}).get("turn_seconds") == 3, message="the clocked room")
    me = ana.state()["you"]["seat"]

    # Ana does nothing. Her clock shows on her seat, as a timer with words, and counts down.
    wait_until(lambda: any(c["me"] for c in clock_seen(ana)["found"]), message="the clock on Ana's seat")
    seen = clock_seen(ana)
    assert seen["state"]["room"]["clock"]["seat"] == me
    clock = next(c for c in seen["found"] if c["me"])
    assert clock["visible"] and clock["role"] == "timer"
    assert re.search(r"Ana's turn clock: (only )?\d seconds left", clock["label"]), clock["label"]
    assert clock["warning"] and "left" in clock["text"]  # 3 s: the warning runs the whole time
    first = seconds_shown(ana)
    assert first is not None
    wait_until(lambda: (seconds_shown(ana) or 99) < first or not any(c["me"] for c in clock_seen(ana)["found"]),
               timeout=6, message="the seconds to go down")
    assert outside_viewport(ana.page, ".seat.me .turn-clock") == []

    # Out of time: everyone is told in words, and the bot acted for her.
    before = ana.state()["view"]
    ana.page.wait_for_function("() => document.getElementById('live').textContent"
                               ".includes('The bot played for Ana: out of time.')", timeout=15000)

    def bot_acted() -> bool:
        view = ana.state()["view"] or {}
        called = [seat for seat, _ in view.get("calls", [])].count(me) > [s for s, _ in before.get("calls", [])].count(me)
        return bool(called or len(view.get("hand") or []) < len(before.get("hand") or [])
                    or view.get("phase") == "end" or (ana.state()["room"]["deal_number"] != 0))
    wait_until(bot_acted, timeout=10, message="the bot's action for Ana")

    # Ana still does nothing: after a second expiry the bot keeps her seat and she sees "I'm back".
    def back_offered() -> bool:
        if ana.page.locator(BACK).count():
            return True
        if ana.page.locator("#next-deal:not([disabled])").count():
            ana.page.click("#next-deal")  # a deal ended before her second expiry: on to the next
        return False
    wait_until(back_offered, timeout=60, message="the I'm back button")
    state = ana.state()
    assert state["room"]["seats"][me]["bot_playing"] is True
    assert "out of time twice" in ana.page.inner_text("body")
    ana.page.locator(BACK).first.click()
    wait_until(lambda: ana.state()["room"]["seats"][me]["bot_playing"] is False, message="the seat given back")
    wait_until(lambda: ana.page.locator("[data-key=im-back]").count() == 0, message="the button gone")
    assert ana.errors == []
    context.close()


def test_the_create_form_sends_its_turn_clock_and_play_now_keeps_the_default(browser: Browser, server_url: str) -> None:
    context = new_context(browser, "phone")
    ana = Player(context.new_page())
    ready_page(ana, server_url, "Ana")
    options = ana.page.eval_on_selector_all("#turn-seconds option", "os => os.map(o => [o.value, o.textContent])")
    assert options == [["0", "Off"], ["30", "30 seconds"], ["60", "60 seconds"], ["90", "90 seconds"]]
    assert ana.page.input_value("#turn-seconds") == "60"  # a listed room
    ana.page.select_option("#turn-seconds", "30")
    ana.create_room("Ana", bots=True, deals=1, ruleset="solo-whist")
    assert ana.state()["room"]["turn_seconds"] == 30
    ana.page.click("[data-key=leave]")
    ana.page.wait_for_selector("#quick-play")
    ana.page.click("#quick-play")
    wait_until(lambda: (ana.state().get("room") or {}).get("turn_seconds") is not None, message="Play now's room")
    assert ana.state()["room"]["turn_seconds"] == 60  # the server's default for a listed room
    assert ana.errors == []
    context.close()
