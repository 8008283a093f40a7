"""Helpers of the browser tests: a real server in a subprocess, Chromium, and a player driving one page.

The player only does what a person can do on the page (click or tap what is shown, press keys). It
reads the page's state (`window.whistApp`) to decide and to check what it sees, never to act.

The page draws a state a frame after it holds it, and a bot may play between two reads. So the state is
read only at a moment the page shows it (`whistApp.drawn === whistApp.revision`: the store's revision the
page has drawn), and a check that compares the page with the state reads both in one script
(`Player.seen`): both from one moment.
"""

from __future__ import annotations

import collections
import contextlib
import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from playwright.sync_api import Browser, BrowserContext, Page, WebSocket
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

ROOT = Path(__file__).resolve().parents[2]
SCREENSHOTS = ROOT / "docs" / "screenshots"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]
PHONE = {"width": 360, "height": 740}
DESKTOP = {"width": 1280, "height": 800}
SIZES = {"phone": PHONE, "desktop": DESKTOP}


@contextlib.contextmanager
def running_server(log_path: Path, bot_delay: float = 0.05, extra: Sequence[str] = ()) -> Iterator[str]:
    """Start `python -m server` on a free port (with the flags `extra`, e.g. `--archive URL`); yields
    its base URL (`http://127.0.0.1:PORT/`)."""
    with open(log_path, "w") as log:
        process = subprocess.Popen(
            [sys.executable, "-m", "server", "--host", "127.0.0.1", "--port", "0",
             "--bot-delay", str(bot_delay), *extra],
            cwd=ROOT, stdout=subprocess.PIPE, stderr=log, text=True,
        )
        try:
            assert process.stdout is not None
            line = process.stdout.readline().strip()
            if "listening on " not in line:
                raise RuntimeError(f"the server did not start: {line!r}; see {log_path}")
            yield line.split("listening on ", 1)[1]
        finally:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
            if process.stdout is not None:
                process.stdout.close()


class Trail:
    """What the pages of the running test said and exchanged (WebSocket frames both ways, console
    errors, uncaught errors), the last `KEEP` lines: printed under a failed test, so that a failure
    seen only in CI says what the page did (sent the request or not, what the server answered). The
    times are when the test heard of each line: Playwright hands events over while the test talks to
    the page."""

    KEEP = 40
    WIDTH = 220

    def __init__(self) -> None:
        self.lines: collections.deque[str] = collections.deque(maxlen=self.KEEP)
        self.start = time.monotonic()
        self.pages = 0
        self.test = 0  # which test is running: a page an earlier test left open is not followed

    def clear(self) -> None:
        """A new test starts."""
        self.lines.clear()
        self.start = time.monotonic()
        self.pages = 0
        self.test += 1

    def note(self, test: int, page: int, what: str, text: str) -> None:
        if test != self.test:
            return
        text = text if len(text) <= self.WIDTH else text[: self.WIDTH] + "..."
        self.lines.append(f"{time.monotonic() - self.start:7.2f}s page {page} {what} {text}")

    def follow(self, page: Page) -> None:
        """Keep `page`'s frames and errors from now on, while this test runs."""
        self.pages += 1
        test, number = self.test, self.pages
        page.on("pageerror", lambda error: self.note(test, number, "error", str(error)))
        page.on("console", lambda message: self.note(test, number, "console", message.text)
                if message.type in ("error", "warning") else None)

        def socket(ws: WebSocket) -> None:
            self.note(test, number, "ws open", ws.url)
            ws.on("framesent", lambda frame: self.note(test, number, ">>", str(frame)))
            ws.on("framereceived", lambda frame: self.note(test, number, "<<", str(frame)))
            ws.on("close", lambda _: self.note(test, number, "ws closed", ws.url))

        page.on("websocket", socket)


#: The running test's pages (cleared before each browser test: tests/browser/conftest.py).
TRAIL = Trail()


def new_context(browser: Browser, size: str = "phone", locale: str = "en-US",
                enforce_policy: bool = False) -> BrowserContext:
    """A fresh browser profile (its own localStorage) at a phone or desktop size, its pages followed by
    `TRAIL`. The page's Content-Security-Policy forbids evaluating strings, which Playwright's
    `wait_for_function` does in the page: the tests bypass it, except those that check the policy
    (`enforce_policy`)."""
    context = browser.new_context(viewport=SIZES[size], locale=locale, device_scale_factor=1,
                                  bypass_csp=not enforce_policy)
    context.on("page", TRAIL.follow)
    return context


def size_label(page: Page) -> str:
    """`360x740` or `1280x800`, for screenshot names."""
    viewport = page.viewport_size or PHONE
    return f"{viewport['width']}x{viewport['height']}"


def screenshot(page: Page, name: str) -> Path | None:
    """Save what the page shows under docs/screenshots/<name>-<size>.png, only when asked to.

    `WHIST_SCREENSHOTS=1` refreshes the pictures; an ordinary test run leaves docs/ alone.
    """
    if os.environ.get("WHIST_SCREENSHOTS") != "1":
        return None
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{name}-{size_label(page)}.png"
    page.evaluate("() => window.scrollTo(0, 0)")  # clicks scroll the page; show it as it opens
    with contextlib.suppress(Exception):  # announcements pass in 4 s; the table is what the picture is for
        page.wait_for_function("() => !document.querySelector('.toast')", timeout=6000)
    page.screenshot(path=str(path))
    return path


#: A script that is true once no animation is running (cards have stopped moving).
STILL = "() => document.getAnimations().every(a => a.playState !== 'running')"

#: A script that is true once no running animation moves or resizes anything: every one still running
#: changes only how something is painted (the glow of the seat to act pulses for 3.2 s, a toast fades),
#: which changes neither where an element is nor what is found at a point of the page.
SETTLED = """() => {
  const paintOnly = new Set(['boxShadow', 'color', 'backgroundColor', 'borderColor', 'outlineColor',
                             'filter', 'opacity', 'offset', 'computedOffset', 'easing', 'composite']);
  return document.getAnimations().every(a => a.playState !== 'running' || (a.effect &&
    a.effect.getKeyframes().every(frame => Object.keys(frame).every(p => paintOnly.has(p)))));
}"""


#: A script that is true once the page shows the state it holds: it has drawn the store's last revision.
DRAWN = "() => !!window.whistApp && window.whistApp.drawn === window.whistApp.revision"

#: The part of the page's state the tests read (JSON, as the server sent it).
STATE_PART = ("{you: a.you, room: a.room, view: a.view, roomId: a.roomId, status: a.conn && a.conn.status,"
              " pending: a.pendingAction}")


def read_settled(page: Page, script: str, arg: Any = None) -> Any:
    """What `script` (a function of `arg`) finds, run in the same frame as the `SETTLED` check that lets
    it run: a card that starts moving between a wait for `SETTLED` and a later read would be caught
    mid-flight (a trick starts its sweep to the winner 0.8 s after its last card)."""
    together = f"([arg]) => ({SETTLED})() ? {{found: ({script})(arg)}} : null"
    handle = page.wait_for_function(together, arg=[arg], timeout=30000)
    found = handle.json_value()["found"]
    handle.dispose()
    return found


#: A script that lists the pairs of table elements (seats, trick cards, status) whose boxes overlap,
#: among those shown (a card swept away and faded out is not).
OVERLAPPING_SEATS = """() => {
  const els = [...document.querySelectorAll('.board .seat, .trick-card, .status-line')].filter(e => {
    const style = getComputedStyle(e);
    return style.opacity !== '0' && style.visibility !== 'hidden';
  });
  const out = [];
  const boxes = els.map(e => e.getBoundingClientRect());
  for (let i = 0; i < els.length; i++) for (let j = i + 1; j < els.length; j++) {
    const a = boxes[i], b = boxes[j];
    if (a.width === 0 || b.width === 0) continue;
    const overlap = Math.min(a.right, b.right) - Math.max(a.left, b.left) > 1 &&
                    Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top) > 1;
    if (overlap) out.push(els[i].className + ' / ' + els[j].className);
  }
  return out;
}"""


def rendered(page: Page) -> bool:
    """Whether the page shows the state it holds (the table drawn for the room's current version)."""
    result: bool = page.evaluate(
        "() => { const a = window.whistApp; const s = document.querySelector('.table-screen');"
        " return !!(a && a.room && a.drawn === a.revision && s"
        " && s.dataset.version === String(a.room.version)); }"
    )
    return result


def hand_shows_legal_cards(page: Page) -> str | None:
    """None when the raised cards are exactly the view's legal cards and every other card is dimmed;
    else what differs. Read in one step from the page, so a state arriving meanwhile cannot mix two."""
    problem: str | None = page.evaluate(
        """() => {
          const a = window.whistApp, s = document.querySelector('.table-screen');
          if (!a || !a.view || a.drawn !== a.revision || !s || s.dataset.version !== String(a.room.version)) {
            return 'not drawn yet';
          }
          const legal = new Set(a.view.legal.filter(x => /^(play|discard) /.test(x))
            .map(x => x.split(' ')[1]));
          const cardsOf = s => new Set([...document.querySelectorAll(s)].map(e => e.dataset.card));
          const raised = cardsOf('.hand .card.playable');
          const dimmed = cardsOf('.hand .card.dimmed');
          const same = (x, y) => x.size === y.size && [...x].every(v => y.has(v));
          const rest = new Set(a.view.hand.filter(c => !legal.has(c)));
          if (!same(raised, legal)) return `raised ${[...raised]} but legal ${[...legal]}`;
          if (legal.size && !same(dimmed, rest)) return `dimmed ${[...dimmed]} but not legal ${[...rest]}`;
          return null;
        }"""
    )
    return problem


def wait_until(predicate: Callable[[], Any], timeout: float = 20.0, message: str = "condition") -> Any:
    """Poll `predicate` until it returns something truthy."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {message}")
        time.sleep(0.05)


def read_when_drawn(read: Callable[[], Any], timeout: float = 30.0) -> Any:
    """Call `read` (a script that answers null while the page has not drawn the state it holds) until it
    answers something else."""
    deadline = time.monotonic() + timeout
    while (value := read()) is None:
        if time.monotonic() > deadline:
            raise AssertionError("timed out waiting for the page to draw the state it holds")
        time.sleep(0.02)
    return value


class Player:
    """One person at one page."""

    def __init__(self, page: Page) -> None:
        self.page = page
        self.errors: list[str] = []
        page.on("pageerror", lambda error: self.errors.append(str(error)))

    # ---------------------------------------------------------------- what the page knows

    def state(self) -> dict[str, Any]:
        """The page's copy of the server state (`you`, `room`, `view`, `roomId`, connection status), read
        at a moment the page shows it ({} before the page has started)."""
        script = ("() => { const a = window.whistApp; if (!a) return {};"
                  " if (a.drawn !== a.revision) return null;"
                  f" return JSON.parse(JSON.stringify({STATE_PART})); }}")
        result: dict[str, Any] = read_when_drawn(lambda: self.page.evaluate(script))
        return result

    def seen(self, script: str, arg: Any = None) -> dict[str, Any]:
        """The state and what `script` (a function of `arg`, run in the page) finds, read together at a
        moment the page shows that state: `{"state": ..., "found": ...}`. A check that compares the page
        with the state uses this, never two reads (a bot may play between them)."""
        together = ("([arg]) => { const a = window.whistApp; if (!a || a.drawn !== a.revision) return null;"
                    f" return {{state: JSON.parse(JSON.stringify({STATE_PART})),"
                    f" found: ({script})(arg)}}; }}")
        result: dict[str, Any] = read_when_drawn(lambda: self.page.evaluate(together, [arg]))
        return result

    def view(self) -> dict[str, Any] | None:
        """The current view, or None."""
        view: dict[str, Any] | None = self.state().get("view")
        return view

    def my_turn(self, view: dict[str, Any] | None = None) -> bool:
        """Whether the page offers this player an action now (in `view`, if given: one just read)."""
        if view is None:
            view = self.view()
        return bool(view and view.get("legal") and view.get("seat") in view.get("to_act", []))

    def shown_cards(self) -> list[str]:
        """Every card face on the page (the `data-card` of every face-up card)."""
        return cards_on(self.page, "[data-card]")

    # ---------------------------------------------------------------- lobby

    def create_room(self, name: str, *, bots: bool = True, deals: int = 3, ruleset: str = "couleur") -> str:
        """Fill the lobby form by clicking and typing; returns the room id."""
        page = self.page
        page.fill("#player-name", name)
        page.check(f"input[name=ruleset][value={ruleset}]")
        page.check("input[name=length][value=deals]")
        page.fill("input[data-key=deals]", str(deals))
        if page.is_checked("input[data-key=bots]") != bots:
            page.click("input[data-key=bots]")
        page.click("#create-room")
        wait_until(lambda: self.state().get("roomId") and self.state().get("room"), message="the room")
        room_id: str = self.state()["roomId"]
        return room_id

    # ---------------------------------------------------------------- acting by clicking

    def act_by_clicking(self, prefer: Callable[[list[str]], str | None] | None = None) -> str | None:
        """If it is this player's turn, click what a person would click; returns the action taken."""
        state = self.state()  # one read: the view and whether an action is still on its way
        view: dict[str, Any] | None = state.get("view")
        if not view or not view.get("legal") or state.get("pending"):
            return None
        page = self.page
        legal: list[str] = view["legal"]
        phase = view["phase"]
        if phase in ("play", "discard"):
            playable = page.locator(".hand .card.playable")
            if playable.count() == 0:
                return None
            card = playable.first.get_attribute("data-card")
            playable.first.click()
            return f"{phase if phase == 'discard' else 'play'} {card}"
        choice = prefer(legal) if prefer else None
        if choice is None:
            choice = default_choice(legal)
        # Only what a person can click: the dialogs, or the table when no dialog makes it inert.
        button = page.locator("#modal-root, #app:not([inert])").locator(f'button[data-action="{choice}"]')
        with contextlib.suppress(PlaywrightTimeoutError):
            # The page draws a state a moment after it has it: wait for the call to be drawn before
            # looking for it behind "more calls" (opening that sheet makes the table inert).
            button.first.wait_for(state="attached", timeout=3000)
        if button.count() == 0 and page.locator("button.more-calls").count():
            page.click("button.more-calls")
        if button.count() == 0 and page.locator("details.refuse").count():
            page.click("details.refuse > summary")
        button.first.click()
        return choice

    def wait_for_summary(self, timeout: float = 180.0,
                         prefer: Callable[[list[str]], str | None] | None = None,
                         each_turn: Callable[[], None] | None = None) -> dict[str, Any]:
        """Act by clicking whenever it is our turn until the deal ends; returns the final view."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            state = self.state()  # one read: the view and whether our last action is still on its way
            view: dict[str, Any] | None = state.get("view")
            if view and view.get("phase") == "end":
                self.page.wait_for_selector("#summary", timeout=5000)
                return view
            # While our card or call is on its way the view still says it is our turn, but the answer
            # (and the bots' moves after it) may redraw the page under `each_turn`'s checks.
            if self.my_turn(view) and not state.get("pending"):
                if each_turn:
                    each_turn()
                self.act_by_clicking(prefer)
            time.sleep(0.05)
        raise AssertionError("the deal did not end in time")

    def next_deal(self) -> None:
        """Click "Next deal" on the summary."""
        number = self.state()["room"]["deal_number"]
        self.page.click("#next-deal")
        wait_until(lambda: self.state()["room"]["deal_number"] > number, message="the next deal")


#: What the test player calls when it may, in this order: everyday contracts before rare ones.
EVERYDAY_VERBS = ("trump", "accept", "propose", "prop", "cop", "solo", "raise", "renew", "maintain")


def default_choice(legal: list[str]) -> str:
    """An everyday call if one is offered, else pass, else the first action offered."""
    for verb in EVERYDAY_VERBS:
        for action in legal:
            if action.split(" ")[0] == verb:
                return action
    return "pass" if "pass" in legal else legal[0]


def cards_on(page: Page, selector: str) -> list[str]:
    """The `data-card` of every element matching `selector`."""
    cards: list[str] = page.eval_on_selector_all(selector, "els => els.map(e => e.dataset.card)")
    return cards


def points_shown(page: Page) -> list[int]:
    """The "Points" column of the end-of-deal summary, as numbers."""
    cells: list[str] = page.eval_on_selector_all(
        "#summary .score-table tbody tr", "rows => rows.map(r => r.querySelectorAll('td')[1].textContent)"
    )
    return [int(cell.replace("+", "")) for cell in cells]


def overlapping_indices(page: Page) -> list[str]:
    """Cards whose corner index (rank and suit) is covered by something else: must be none."""
    covered: list[str] = page.evaluate(
        """() => {
          const out = [];
          for (const card of document.querySelectorAll('.hand .card, .trick .card, .mini-hand .card')) {
            const idx = card.querySelector('.idx');
            const box = idx.getBoundingClientRect();
            if (box.width === 0) continue;
            for (const [fx, fy] of [[0.5, 0.25], [0.5, 0.75]]) {
              const x = box.left + box.width * fx, y = box.top + box.height * fy;
              if (y < 0 || y > innerHeight) continue;
              const hit = document.elementFromPoint(x, y);
              // The sticky top bar and passing toasts may cover a card the page was scrolled under.
              if (hit && hit.closest('.topbar, #banner, #toasts, #errors')) continue;
              if (!hit || !card.contains(hit)) {
                out.push(card.dataset.card + ' under ' + (hit ? hit.className : 'nothing'));
              }
            }
          }
          return out;
        }"""
    )
    return covered


def covered_card_centres(page: Page) -> list[str]:
    """Cards of the hand whose centre belongs to another card: a tap (or a click) there would miss."""
    covered: list[str] = page.evaluate(
        """() => {
          const out = [];
          for (const card of document.querySelectorAll('.hand .card')) {
            const box = card.getBoundingClientRect();
            const x = box.left + box.width / 2, y = box.top + box.height / 2;
            if (y < 0 || y > innerHeight) continue;
            const hit = document.elementFromPoint(x, y);
            if (hit && hit.closest('.topbar, #banner, #toasts, #errors')) continue;
            if (!hit || !card.contains(hit)) {
              out.push(card.dataset.card + ' under ' + (hit ? hit.className : 'nothing'));
            }
          }
          return out;
        }"""
    )
    return covered


def outside_viewport(page: Page, selector: str) -> list[str]:
    """Elements matching `selector` that are not wholly on screen (a player would have to hunt for them)."""
    outside: list[str] = page.evaluate(
        """s => [...document.querySelectorAll(s)].filter(e => {
            const b = e.getBoundingClientRect();
            const off = b.top < 0 || b.bottom > innerHeight + 1 || b.left < 0 || b.right > innerWidth + 1;
            return b.width > 0 && off;
          }).map(e => (e.dataset.card || e.dataset.action || e.className))""",
        selector,
    )
    return outside


def covered_by_anything(page: Page, selector: str) -> list[str]:
    """Elements matching `selector` whose centre shows something else (a pop-up, another element): none.

    Only elements on screen are checked, once cards have stopped moving (`SETTLED`: the seat to act's
    glow may still pulse). The sticky dock of a phone (your hand and panel, which the table scrolls
    under) is a layer of the page, not a pop-up.
    """
    covered: list[str] = read_settled(page, """s => {
          const out = [];
          for (const el of document.querySelectorAll(s)) {
            const b = el.getBoundingClientRect();
            if (b.width === 0 || b.bottom < 0 || b.top > innerHeight) continue;
            const x = b.left + b.width / 2, y = b.top + b.height / 2;
            if (y < 47 || y > innerHeight) continue;
            const hit = document.elementFromPoint(x, y);
            if (hit && hit.closest('.dock') && !el.closest('.dock')) continue;
            const sameCard = el.closest('.card') && hit && hit.closest('.card') === el.closest('.card');
            if (!hit || !(el.contains(hit) || hit.contains(el) || sameCard)) {
              const what = (el.dataset.action || el.textContent || el.className).slice(0, 30);
              out.push(what + ' under ' + (hit ? hit.className : 'nothing'));
            }
          }
          return out;
        }""", selector)
    return covered


def overlapping_seats(page: Page) -> list[str]:
    """Pairs of table elements (seats, trick cards, status) whose boxes overlap: must be none. Checked
    once cards have stopped moving (a bot's card flies in from its seat), among the visible ones: the
    cards of a finished trick end their sweep on the winner's seat, faded out and hidden, until the
    next redraw (CI once caught a trick card on the right seat)."""
    pairs: list[str] = read_settled(page, OVERLAPPING_SEATS)
    return pairs
