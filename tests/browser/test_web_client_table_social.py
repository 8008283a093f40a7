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
from test_web_client_a11y import serious_violations

pytestmark = pytest.mark.browser

SIZES = ["phone", "desktop"]
#: The "I'm back" button a person can press: in a dialog, or on the table when no dialog covers it.
BACK = "#modal-root [data-key=im-back], #app:not([inert]) [data-key=im-back]"
#: Notes, in the order the page shows them, when the takeover is said and when "I'm back" appears.
WATCH_BACK = """
window.__marks = [];
window.__said = [];
new MutationObserver((records) => {
  for (const record of records) {
    if (record.target.id !== 'live') continue;
    for (const node of record.addedNodes) window.__said.push(node.textContent);
  }
  const live = document.getElementById('live');
  if (live && live.textContent.includes('out of time twice') && !window.__marks.includes('takeover said')) {
    window.__marks.push('takeover said');
  }
  if (document.querySelector('[data-key=im-back]') && !window.__marks.includes('button')) {
    window.__marks.push('button');
  }
}).observe(document, {subtree: true, childList: true, characterData: true});
"""
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


def said(player: Player) -> list[str]:
    """Everything the page has said in its live region so far (WATCH_BACK records it)."""
    lines: list[str] = player.page.evaluate("() => window.__said || []")
    return lines


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
    context.add_init_script(WATCH_BACK)
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
    wait_until(lambda: (seconds_shown(ana) or 0) < first, timeout=6, message="the seconds to go down")
    assert outside_viewport(ana.page, ".seat.me .turn-clock") == []

    # Out of time: everyone is told in words, and the bot acted for her.
    before = ana.state()["view"]
    # A spectator sees the clock on Ana's seat too (this turn's, or her next one's).
    eve_context = new_context(browser, "phone")
    eve_context.add_init_script(WATCH_BACK)
    eve = Player(eve_context.new_page())
    eve.page.goto(f"{server_url}?room={ana.state()['roomId']}")
    wait_until(lambda: eve.state().get("room"), message="Eve watching")
    wait_until(lambda: any(c["seat"] == me for c in clock_seen(eve)["found"]), timeout=10,
               message="the clock on Ana's seat for the spectator")
    for player in (ana, eve):
        wait_until(lambda p=player: "The bot played for Ana: out of time." in said(p), timeout=15,
                   message="out of time said")

    def bot_acted() -> bool:
        view = ana.state()["view"] or {}
        calls_of_mine = [seat for seat, _ in view.get("calls", [])].count(me)
        called = calls_of_mine > [seat for seat, _ in before.get("calls", [])].count(me)
        return bool(called or len(view.get("hand") or []) < len(before.get("hand") or []))
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
    # The button came only once the bot had taken the seat over (not for the one action of an expiry).
    marks = ana.page.evaluate("() => window.__marks")
    assert marks and marks[0] == "takeover said" and "button" in marks, marks
    # The bot plays the seat every few milliseconds on this test server, and each move draws the table
    # again: the button is clicked in the same moment it is found (a person's click, at 0.6 s per bot
    # move, lands between two draws).
    ana.page.evaluate("(selector) => document.querySelector(selector).click()", BACK)
    wait_until(lambda: ana.state()["room"]["seats"][me]["bot_playing"] is False,
               message="the seat given back")
    wait_until(lambda: ana.page.locator("[data-key=im-back]").count() == 0, message="the button gone")
    assert ana.errors == [] and eve.errors == []
    context.close()
    eve_context.close()


def test_the_create_form_sends_its_turn_clock_and_play_now_keeps_the_default(
    browser: Browser, server_url: str
) -> None:
    context = new_context(browser, "phone")
    ana = Player(context.new_page())
    ready_page(ana, server_url, "Ana")
    options = ana.page.eval_on_selector_all("#turn-seconds option",
                                            "os => os.map(o => [o.value, o.textContent])")
    assert options == [["0", "Off"], ["30", "30 seconds"], ["60", "60 seconds"], ["90", "90 seconds"]]
    assert ana.page.input_value("#turn-seconds") == "60"  # a listed room
    ana.page.select_option("#turn-seconds", "30")
    ana.create_room("Ana", bots=True, deals=1, ruleset="solo-whist")
    assert ana.state()["room"]["turn_seconds"] == 30
    ana.page.click("[data-key=leave]")
    ana.page.wait_for_selector("#quick-play")
    ana.page.click("#quick-play")
    wait_until(lambda: (ana.state().get("room") or {}).get("turn_seconds") is not None,
               message="Play now's room")
    assert ana.state()["room"]["turn_seconds"] == 60  # the server's default for a listed room
    assert ana.errors == []
    context.close()


# ------------------------------------------------------------------------------------------ table chat


def chat_texts(player: Player) -> list[str]:
    """The lines the chat panel shows, as a person reads them ("Ana well played")."""
    texts: list[str] = player.page.eval_on_selector_all(
        "#chat-panel .chat-line", "ls => ls.map(l => l.querySelector('.chat-from').textContent + ' '"
        " + l.querySelector('.chat-text').textContent)")
    return texts


def kept_texts(player: Player) -> list[str]:
    """Every line the page holds (shown or not), as `name: text or phrase`."""
    lines: list[str] = player.page.evaluate(
        "() => window.whistApp.chat.lines.map(l => `${l.from.name}: ${l.text ?? l.phrase}`)")
    return lines


def open_chat(player: Player) -> None:
    player.page.click("[data-key=chat]")
    player.page.wait_for_selector("#chat-panel")
    focused = "() => document.activeElement && document.activeElement.id"
    wait_until(lambda: player.page.evaluate(focused) == "chat-input", message="the focus in the chat field")


def say(player: Player, text: str) -> None:
    player.page.fill("#chat-input", text)
    player.page.click("[data-key=chat-send]")


def wait_for_my_call(ana: Player, bob: Player) -> None:
    """Bob passes whenever he is to act, until Ana is to call (her calling panel shows)."""
    def anas_turn() -> bool:
        if bob.my_turn():
            bob.act_by_clicking(lambda legal: "pass" if "pass" in legal else None)
        view = ana.view() or {}
        if view.get("phase") == "end":
            for player in (ana, bob):
                if player.page.locator("#next-deal:not([disabled])").count():
                    player.page.click("#next-deal")
            return False
        return ana.my_turn(view) and view.get("phase") == "auction"
    wait_until(anas_turn, timeout=60, message="Ana's call")
    ana.page.wait_for_selector(".action-panel .call")


@pytest.mark.parametrize("size", SIZES)
def test_chat_opens_and_closes_without_covering_the_hand_or_the_calls_and_reaches_the_table(
    browser: Browser, server_url: str, size: str
) -> None:
    contexts, ana, bob, _ = seated_with_friend(browser, server_url, size, clock="90", friend_locale="fr-FR")
    for player in (ana, bob):
        player.page.evaluate("() => { window.__pwned = 0; }")
    wait_for_my_call(ana, bob)

    # Ana opens the chat while she is to call: the hand and the calls stay on screen and uncovered.
    open_chat(ana)
    for selector in (".hand .card", ".action-panel button"):
        assert covered_by_anything(ana.page, selector) == [], selector
        assert outside_viewport(ana.page, selector) == [], selector
    for selector in ("#chat-input", "[data-key=chat-send]", "[data-key=chat-close]"):
        assert hit_is(ana.page, selector), f"{selector} is covered"
        assert outside_viewport(ana.page, selector) == [], selector
    assert ana.page.locator("#chat-input").get_attribute("maxlength") == "200"
    ana.page.fill("#chat-input", "abc")
    assert ana.page.inner_text(".chat-count") == "3/200"

    # HTML typed in the chat shows as text, on both pages, and runs nothing.
    say(ana, XSS)
    wait_until(lambda: f"Ana {XSS}" in chat_texts(ana), message="Ana's line on her page")
    assert ana.page.input_value("#chat-input") == ""
    # Bob (a French page) sees the unread badge, then the line, as text.
    bob.page.wait_for_selector("[data-key=chat] .badge.unread")
    assert bob.page.inner_text("[data-key=chat] .badge.unread").startswith("1")
    open_chat(bob)
    wait_until(lambda: f"Ana {XSS}" in chat_texts(bob), message="Ana's line on Bob's page")
    assert bob.page.locator("[data-key=chat] .badge.unread").count() == 0
    for player in (ana, bob):
        assert player.page.locator("#chat-panel img").count() == 0
        assert player.page.evaluate("() => window.__pwned") == 0

    # A quick phrase: each page shows it in its own language.
    assert bob.page.inner_text("[data-key=phrase-well_played]") == "Bien joué"
    ana.page.click("[data-key=phrase-well_played]")
    wait_until(lambda: "Ana Well played" in chat_texts(ana), message="the phrase in English")
    wait_until(lambda: "Ana Bien joué" in chat_texts(bob), message="the phrase in French")

    # With the chat open, its lines and a turn clock running, axe finds nothing serious.
    assert serious_violations(bob.page) == []

    # An empty line is refused in words, in the panel.
    say(bob, "   ")
    bob.page.wait_for_selector(".chat-error[data-code=chat_empty]")
    assert "Écrivez d'abord quelque chose" in bob.page.inner_text(".chat-error")

    # Escape (or ✕) closes the panel, and the focus goes back to the chat button; the table is as before.
    ana.page.keyboard.press("Escape")
    ana.page.wait_for_selector("#chat-panel", state="detached")
    assert ana.page.evaluate("() => document.activeElement.dataset.key") == "chat"
    assert covered_by_anything(ana.page, ".hand .card") == []
    bob.page.click("[data-key=chat-close]")
    bob.page.wait_for_selector("#chat-panel", state="detached")

    # A reload shows the kept lines again, each once.
    bob.page.reload()
    wait_until(lambda: len(kept_texts(bob)) >= 2, message="the lines after the reload")
    open_chat(bob)
    assert chat_texts(bob).count(f"Ana {XSS}") == 1
    assert chat_texts(bob).count("Ana Bien joué") == 1
    for player in (ana, bob):
        assert player.errors == []
    for context in contexts:
        context.close()


def test_spectators_lines_stay_on_the_rail_a_hidden_person_stays_hidden_and_the_host_mutes(
    browser: Browser, server_url: str
) -> None:
    contexts, ana, bob, room_id = seated_with_friend(browser, server_url, "desktop")
    eve_context = new_context(browser, "phone")
    eve_context.add_init_script(WATCH_BACK)
    eve = Player(eve_context.new_page())
    ready_page(eve, server_url, "Eve")
    eve.page.goto(f"{server_url}?room={room_id}")
    wait_until(lambda: eve.state().get("room"), message="Eve watching")

    # Eve watches and says something: her page shows it (marked as a spectator's), no seat gets it.
    open_chat(eve)
    assert "spectators" in eve.page.inner_text("#chat-panel")
    say(eve, "from the rail")
    wait_until(lambda: any("from the rail" in line for line in chat_texts(eve)),
               message="Eve's line on her page")
    assert eve.page.locator(".chat-line.watcher .chat-watcher").count() == 1
    # Bob speaks: Ana (who created the room) sees the unread badge on her closed chat.
    open_chat(bob)
    say(bob, "hi all")
    ana.page.wait_for_selector("[data-key=chat] .badge.unread")
    assert ana.page.inner_text("[data-key=chat] .badge.unread").startswith("1")
    bob.page.click("[data-key=chat-close]")
    # Ana speaks after Eve: once Ana's line has reached Bob and Eve, Eve's earlier line would have too.
    open_chat(ana)
    say(ana, "first")
    for player in (ana, bob, eve):
        wait_until(lambda p=player: "Ana: first" in kept_texts(p), message="Ana's line everywhere")
    for player in (ana, bob):
        assert not any("from the rail" in line for line in kept_texts(player))

    # Bob hides Ana's lines on his screen: her next line is not shown, not even counted as unread.
    open_chat(bob)
    bob.page.click(".chat-line[data-seat='0'] .chat-hide")
    wait_until(lambda: not any(line.startswith("Ana ") for line in chat_texts(bob)),
               message="Ana's lines hidden")
    bob.page.click("[data-key=chat-close]")
    say(ana, "second")
    wait_until(lambda: "Ana: second" in kept_texts(bob), message="Ana's second line held")
    assert bob.page.locator("[data-key=chat] .badge.unread").count() == 0
    # ... and after a reload too (the choice is kept in this browser).
    bob.page.reload()
    wait_until(lambda: "Ana: second" in kept_texts(bob), message="the lines after the reload")
    open_chat(bob)
    assert not any(line.startswith("Ana ") for line in chat_texts(bob))
    assert eve.page.locator(".chat-line[data-seat='0']").count() == 2  # Eve still reads Ana
    # Bob can show her again (the hidden person is named with a button).
    bob.page.click(".chat-show")
    wait_until(lambda: "Ana second" in chat_texts(bob), message="Ana's lines shown again")

    # The host mutes Bob for everyone: Bob is told in words when he tries to speak.
    ana.page.click("[data-key=chat-people]")
    ana.page.click("[data-key=mute-all-1]")
    wait_until(lambda: bob.page.evaluate("() => window.whistApp.chat.hostMuted.includes(1)"),
               message="Bob muted")
    say(bob, "hello?")
    bob.page.wait_for_selector(".chat-error[data-code=chat_muted]")
    assert "The host has muted your chat" in bob.page.inner_text(".chat-error")
    for player in (ana, bob, eve):
        assert player.errors == []
    for context in [*contexts, eve_context]:
        context.close()


# ------------------------------------------------------------------------------------------ play again


@pytest.mark.parametrize("size", SIZES)
def test_play_again_starts_a_new_session_for_everyone(browser: Browser, server_url: str, size: str) -> None:
    contexts, ana, bob, _ = seated_with_friend(browser, server_url, size, deals=1)
    while not all((p.state()["room"] or {}).get("session_over") for p in (ana, bob)):
        for player in (ana, bob):
            if player.my_turn():
                player.act_by_clicking()
            view = player.view() or {}
            if view.get("phase") == "end" and player.page.locator("#next-deal:not([disabled])").count():
                player.page.click("#next-deal")  # a thrown-in deal: it does not count
    for player in (ana, bob):
        player.page.wait_for_selector("#play-again")
    ana.page.click("#play-again")
    wait_until(lambda: "Waiting for: Bob" in ana.page.inner_text("#modal-root"),
               message="Ana waiting for Bob")
    assert ana.page.is_disabled("#play-again")
    wait_until(lambda: "Waiting for: you" in bob.page.inner_text("#modal-root"), message="Bob asked")
    bob.page.click("#play-again")
    for player in (ana, bob):
        def new_session(p: Player = player) -> bool:
            room = p.state()["room"]
            return not room["session_over"] and room["status"] == "playing"
        wait_until(new_session, message="the new session")
        state = player.state()
        assert state["room"]["played_deals"] == 0 and state["room"]["balances"] == [0, 0, 0, 0]
        assert state["view"]["phase"] != "end"
        player.page.wait_for_selector("#modal-root .modal", state="detached")
        assert state["you"]["seat"] in (0, 1)
    # The table just goes on: the new deal is played as the first one was.
    wait_until(lambda: any(p.my_turn() for p in (ana, bob)), message="a turn in the new session")
    for player in (ana, bob):
        assert player.errors == []
    for context in contexts:
        context.close()


@pytest.mark.parametrize("size", ["desktop"])
def test_between_deals_the_summary_counts_down_and_the_next_deal_comes_for_a_player_who_stopped(
    browser: Browser, server_url: str, size: str
) -> None:
    context = new_context(browser, size)
    context.add_init_script(WATCH_BACK)
    ana = Player(context.new_page())
    ready_page(ana, server_url, "Ana")
    # A target no side reaches in one deal (13 tricks score 7): the session cannot end at the first
    # deal's summary (at the default 5, a side taking 11 tricks ended it, with no pause to show).
    ana.page.evaluate("() => window.whistApp.actions.createRoom({ruleset: 'whist', houseRules: {target: 8},"
                      " session: {deals: 2}, bots: true, sit: true, turnSeconds: 15})")
    wait_until(lambda: (ana.state().get("room") or {}).get("turn_seconds") == 15, message="the clocked room")
    assert ana.state()["room"]["house_rules"]["target"] == 8
    # Ana plays her cards in time (the bots are quick on this server), then stops at the summary. The
    # clock is long enough that a loaded machine never makes her miss two turns in a row (the bot would
    # keep her seat, which has no pause clock) nor lets the pause run out before the page is read.
    view = ana.wait_for_summary()
    first = ana.state()["room"]["deal_number"]
    assert view["phase"] == "end" and not ana.state()["room"]["session_over"]
    found = wait_until(lambda: ana.seen("() => { const c = document.querySelector('#summary .pause-clock');"
                                        " return c && {role: c.getAttribute('role'),"
                                        " label: c.getAttribute('aria-label'),"
                                        " text: c.querySelector('.clock-text').textContent}; }")["found"],
                       message="the pause's clock in the summary")
    assert found["role"] == "timer"
    assert re.search(r"The next deal starts in \d+ seconds", found["label"]), found
    assert re.search(r"Next deal in \d+ s", found["text"]), found
    # She never presses Next deal: when the pause runs out the next deal is dealt, and she is told.
    wait_until(lambda: ana.state()["room"]["deal_number"] == first + 1, timeout=50, message="the next deal")
    wait_until(lambda: "Time's up: the next deal is dealt." in said(ana), timeout=10,
               message="time's up said")
    assert ana.errors == []
    context.close()
