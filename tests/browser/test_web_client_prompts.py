"""The rare prompts, drawn from real engine views put into the page: the bouche-trou's answer, naming
trump, the petite misère discard, a spread hand after trick 1, and the "More calls" grouping.

Random deals seldom bring these situations, so each test builds the deal with the rules engine, puts
the seat's view into a page exactly as a `state` push would, and checks what the page offers and what a
click sends. Nothing is sent to a server: `act` is replaced by a recorder.
"""

from __future__ import annotations

import time
from typing import Any

import pytest
from browser_helpers import (
    cards_on,
    covered_by_anything,
    new_context,
    outside_viewport,
    screenshot,
    wait_until,
)
from playwright.sync_api import Browser, Page

from server.rules import Deal
from server.rules.cards import FULL_DECK

pytestmark = pytest.mark.browser

#: The rare calls' verbs (kept behind "More calls"), as prefixes of the actions.
RARE_PREFIXES = ("abondance", "misere", "petite-misere", "grande-misere", "grand-chelem", "petit-chelem",
                 "piccolo", "abundance", "royal-abundance", "spread-misere")


def hands_with(first: dict[int, list[str]]) -> list[list[str]]:
    """Four hands of 13: the given cards first, the rest of the deck dealt round the table."""
    hands = [list(first.get(seat, [])) for seat in range(4)]
    taken = {card for hand in hands for card in hand}
    seat = 0
    for card in FULL_DECK:
        if card in taken:
            continue
        while len(hands[seat % 4]) >= 13:
            seat += 1
        hands[seat % 4].append(card)
        seat += 1
    return hands


def room_for(view: dict[str, Any], seat: int | None, clock: float | None = None) -> dict[str, Any]:
    """A `state` push's room part for a table of one human (seat 0 or the given seat) and three bots;
    with `clock`, a turn clock of 60 s runs for the seat to act until that deadline (Unix seconds)."""
    seats = [
        {"seat": s, "kind": "human" if s == seat else "bot", "name": "Ana" if s == seat else "heuristic bot",
         "connected": True, "bot_playing": s != seat, "ready": False}
        for s in range(4)
    ]
    return {"room_id": "fake", "name": "Ana's table", "ruleset": view["ruleset"], "house_rules": {},
            "listed": True, "bot": "heuristic", "session": {"deals": 4, "target": None}, "grace_seconds": 30,
            "status": "playing", "host_seat": seat, "seats": seats, "spectators": 0, "deal_number": 0,
            "played_deals": 0, "balances": [0, 0, 0, 0], "session_over": False, "version": 1,
            **({} if clock is None else {"turn_seconds": 60, "clock": {"seat": min(view["to_act"]),
                                                                       "deadline": clock}})}


def show(page: Page, server_url: str, view: dict[str, Any], seat: int | None,
         clock: float | None = None) -> None:
    """Open the page and draw `view` as the seat (None: a spectator) would get it, with a turn clock
    running until `clock` if given (`room_for`); record actions."""
    page.goto(server_url)
    # Wait until the page has settled in the lobby, so that nothing it does after connecting overwrites
    # the state put in below.
    page.wait_for_function("window.whistApp && window.whistApp.roomsLoaded")
    page.evaluate(
        """([view, room, seat]) => {
            const app = window.whistApp;
            window.acted = [];
            app.actions.act = (action) => { window.acted.push(action); };
            app.update.roomEntered(room.room_id);
            app.receive({type: 'state', room_id: room.room_id, room, view,
                         you: {seat, host: seat !== null, spectator: seat === null}});
        }""",
        [view, room_for(view, seat, clock), seat],
    )
    page.wait_for_selector(".table-screen")


def couleur_auction(dealer: int, calls: list[tuple[int, str]]) -> tuple[dict[str, Any], list[str]]:
    """Seat 0's view after these calls on couleur deal `s27` dealt by `dealer`, and its everyday calls
    (those not behind "More calls")."""
    deal = Deal.from_seed("couleur", seed="s27", dealer=dealer, house_rules={}, multiplier=1)
    for seat, action in calls:
        deal.apply(seat, action)
    view = deal.view(0)
    return view, [action for action in view["legal"] if not action.startswith(RARE_PREFIXES)]


def acted(page: Page) -> list[str]:
    result: list[str] = page.evaluate("() => window.acted")
    return result


def test_the_bouche_trou_gets_its_own_prompt(browser: Browser, server_url: str) -> None:
    hands = hands_with({0: ["AS", "AH", "AD"], 2: ["AC"]})
    deal = Deal("belge-club", hands, dealer=3, turn_up=hands[3][-1])
    view = deal.view(2)
    context = new_context(browser, "phone")
    page = context.new_page()
    show(page, server_url, view, 2)
    prompt = page.locator(".bouche-prompt")
    assert "fourth ace" in prompt.inner_text()
    assert "9 tricks" in prompt.inner_text()
    suits = page.eval_on_selector_all(".bouche-prompt .suit-btn", "els => els.map(e => e.dataset.action)")
    assert suits == [action for action in view["legal"] if action.startswith("trump ")]
    # Refusing means calling alone above the trou: those calls wait behind their own button.
    assert not page.locator("button[data-action='grande-misere']").is_visible()
    page.click(".bouche-prompt details.refuse > summary")
    page.click("button[data-action='grande-misere']")
    page.click(".bouche-prompt .suit-btn[data-action='trump H']")
    assert acted(page) == ["grande-misere", "trump H"]
    context.close()


def test_naming_trump_gets_its_own_prompt(browser: Browser, server_url: str) -> None:
    deal = Deal("solo-whist", hands_with({}), dealer=3, turn_up=hands_with({})[3][-1])
    deal.apply(0, "abundance")
    for seat in (1, 2, 3):
        deal.apply(seat, "pass")
    assert deal.phase.value == "trump"
    view = deal.view(0)
    context = new_context(browser, "desktop")
    page = context.new_page()
    show(page, server_url, view, 0)
    assert page.locator(".trump-prompt h3").inner_text() == "Name trump"
    offered = page.eval_on_selector_all(".trump-prompt .suit-btn", "els => els.map(e => e.dataset.action)")
    assert sorted(offered) == sorted(view["legal"])
    # The prompt takes the focus, so that Enter names the first suit offered.
    page.wait_for_function("() => document.activeElement.matches('.trump-prompt .suit-btn')")
    page.keyboard.press("Enter")
    assert acted(page) == [offered[0]]
    context.close()


def test_the_petite_misere_discard_gets_its_own_prompt(browser: Browser, server_url: str) -> None:
    deal = Deal("couleur", hands_with({}), dealer=3)
    deal.apply(0, "petite-misere")
    for seat in (1, 2, 3):
        deal.apply(seat, "pass")
    assert deal.phase.value == "discard"
    view = deal.view(2)
    context = new_context(browser, "phone")
    page = context.new_page()
    show(page, server_url, view, 2)
    assert "Discard one card" in page.inner_text(".discard-prompt")
    assert set(cards_on(page, ".hand .card.playable")) == set(view["hand"])
    page.click(f".hand .card[data-card='{view['hand'][3]}']")
    assert acted(page) == [f"discard {view['hand'][3]}"]
    context.close()


def test_rare_calls_wait_behind_more_calls_and_show_their_tricks(browser: Browser, server_url: str) -> None:
    deal = Deal("couleur", hands_with({}), dealer=3)
    view = deal.view(0)
    context = new_context(browser, "phone")
    page = context.new_page()
    show(page, server_url, view, 0)
    rare = [a for a in view["legal"] if a.split(" ")[0] in ("abondance", "petite-misere", "grande-misere",
                                                               "misere-etalee", "grand-chelem")]
    assert rare
    assert page.locator("button[data-action='misere-etalee']").count() == 0
    page.click("button.more-calls")
    # The rare calls open as a sheet over the table, which the player can dismiss.
    page.wait_for_selector("#rare-sheet .call-list.rare")
    shown = page.eval_on_selector_all(".call-list.rare button.call", "els => els.map(e => e.dataset.action)")
    assert sorted(shown) == sorted(rare)
    text = page.inner_text(".calls-panel") + page.inner_text("#rare-sheet")
    assert "no trick" in text and "13 tricks" in text and "8 tricks with a partner" in text
    offered = page.eval_on_selector_all(".calls-panel button.call, #rare-sheet button.call",
                                        "els => els.map(e => e.dataset.action)")
    assert sorted(offered) == sorted(view["legal"])
    page.keyboard.press("Escape")
    page.wait_for_selector("#rare-sheet", state="detached")
    page.wait_for_function("() => document.activeElement.matches('button.more-calls')")
    page.click("button.more-calls")
    page.click("[data-key=rare-close]")
    page.wait_for_selector("#rare-sheet", state="detached")
    assert acted(page) == []
    context.close()


def test_a_spectator_sees_a_spread_hand_only_after_trick_one_in_the_club_rules(
    browser: Browser, server_url: str
) -> None:
    hands = hands_with({})
    deal = Deal("belge-club", hands, dealer=3, turn_up=hands[3][-1])
    deal.apply(0, "grande-misere-etalee")
    for seat in (1, 2, 3):
        deal.apply(seat, "pass")
    assert deal.phase.value == "play"
    context = new_context(browser, "phone")
    page = context.new_page()
    show(page, server_url, deal.view(None), None)
    assert page.locator(".exposed-row").count() == 0
    assert set(cards_on(page, "[data-card]")) <= {deal.turn_up}
    while not deal.tricks:
        seat = next(iter(deal.to_act()))
        deal.apply(seat, deal.legal_actions(seat)[0])
    if not deal.finished:
        show(page, server_url, deal.view(None), None)
        row = page.locator(".exposed-row[data-seat='0']")
        exposed = set(deal.view(None)["exposed"]["0"])
        assert set(cards_on(page, ".exposed-row[data-seat='0'] [data-card]")) == exposed
        assert "face up" in row.inner_text()
    context.close()


@pytest.mark.parametrize("size", ["phone", "desktop"])
def test_the_longest_everyday_calling_panel_fits_on_screen_with_the_hand(
    browser: Browser, server_url: str, size: str
) -> None:
    # Couleur, seat 0 proposed clubs and nobody accepted: renew, three other proposals and sixteen
    # solos (the most everyday calls found over 400 random auctions of every ruleset).
    view, everyday = couleur_auction(0, [(1, "pass"), (2, "pass"), (3, "pass"), (0, "propose C")])
    assert len(everyday) >= 20
    context = new_context(browser, size)
    page = context.new_page()
    show(page, server_url, view, 0)
    buttons = page.eval_on_selector_all(".calls-panel .call-list.common button.call",
                                        "els => els.map(e => e.dataset.action)")
    assert sorted(buttons) == sorted(everyday)
    # The layout settles once the fonts are measured: wait for it rather than for a time.
    wait_until(lambda: outside_viewport(page, ".hand .card, .calls-panel .call-list.common button") == [],
               timeout=10, message="the hand and every everyday call on screen")
    assert covered_by_anything(page, ".hand .card .idx, .calls-panel button") == []
    page.click('button[data-action="solo 7 H"]')
    assert acted(page) == ["solo 7 H"]
    # With every rare call open too, the last one can still be reached and pressed.
    page.click("button.more-calls")
    page.wait_for_selector("#rare-calls button.call")
    rare = page.eval_on_selector_all("#rare-calls button.call", "els => els.map(e => e.dataset.action)")
    assert rare and all(action.startswith(RARE_PREFIXES) for action in rare)
    assert outside_viewport(page, "#rare-sheet") == []  # the sheet itself fits the screen and scrolls inside
    screenshot(page, "rare-calls-sheet")
    page.click(f'button[data-action="{rare[-1]}"]')
    assert acted(page) == ["solo 7 H", rare[-1]]
    context.close()


@pytest.mark.parametrize("size", ["phone", "desktop"])
def test_the_turn_clock_moves_nothing_and_four_proposals_calls_fit_on_screen_with_it(
    browser: Browser, server_url: str, size: str
) -> None:
    # Couleur, the four seats proposed four suits: seat 0 may accept any of three with 9-13 tricks, or
    # go solo (21 everyday calls). On a desktop with the room's turn clock on its own line in the seat's
    # box, the felt grew when the turn came and the solos fell below the fold (a fresh-clone run of the
    # CI command waited for them).
    proposals = [(0, "propose S"), (1, "propose C"), (2, "propose D"), (3, "propose H")]
    view, everyday = couleur_auction(3, proposals)
    assert len(everyday) == 21
    context = new_context(browser, size)
    page = context.new_page()
    show(page, server_url, view, 0)
    where = ("() => [document.querySelector('.seat.me').offsetHeight,"
             " document.querySelector('.hand').getBoundingClientRect().top + window.scrollY]")
    before = page.evaluate(where)
    # The same view, now with the turn clock running for this seat (as the next state push brings it).
    page.evaluate(
        """([view, room]) => window.whistApp.receive({type: 'state', room_id: room.room_id, room, view,
                                                      you: {seat: 0, host: true, spectator: false}})""",
        [view, room_for(view, 0, time.time() + 60)],
    )
    page.wait_for_selector(".seat.me .turn-clock")
    after = page.evaluate(where)
    assert after[1] == before[1], "the hand stays where it was"
    if size == "desktop":  # a wide seat's box has room for the clock on its stats' line (a phone's wraps)
        assert after[0] == before[0], "the seat's box keeps its height"
    wait_until(lambda: outside_viewport(page, ".hand .card, .calls-panel .call-list.common button") == [],
               timeout=10, message="the hand and every everyday call on screen")
    assert outside_viewport(page, ".seat.me .turn-clock") == []
    context.close()


def test_every_rare_call_can_be_reached_on_a_phone(browser: Browser, server_url: str) -> None:
    # Couleur, the dealer's first call after three passes: 23 rare calls behind "More calls".
    deal = Deal.from_seed("couleur", seed="s27", dealer=0, house_rules={}, multiplier=1)
    for seat in (1, 2, 3):
        deal.apply(seat, "pass")
    view = deal.view(0)
    expected = [action for action in view["legal"] if action.startswith(RARE_PREFIXES)]
    assert len(expected) >= 20
    context = new_context(browser, "phone")
    page = context.new_page()
    show(page, server_url, view, 0)
    page.click("button.more-calls")
    page.wait_for_selector("#rare-calls button.call")
    rare = page.eval_on_selector_all("#rare-calls button.call", "els => els.map(e => e.dataset.action)")
    assert sorted(rare) == sorted(expected)
    for action in (rare[0], rare[-1]):
        page.click(f'button[data-action="{action}"]')
    assert acted(page) == [rare[0], rare[-1]]
    context.close()


@pytest.mark.parametrize("size", ["phone", "desktop"])
def test_a_server_error_pushes_the_table_down_instead_of_covering_a_seat(
    browser: Browser, server_url: str, size: str
) -> None:
    # Nothing overlaps a seat, the hand or the calling panel at any size; an error box used to
    # sit over the top seat's name (fixed position under the bar).
    deal = Deal.from_seed("couleur", seed="s27", dealer=0, house_rules={}, multiplier=1)
    context = new_context(browser, size)
    page = context.new_page()
    show(page, server_url, deal.view(deal.eldest), deal.eldest)
    page.evaluate("""() => import('/js/app.js').then(m => {
        m.showError({code: 'not_your_turn', message: 'not your turn'});
        m.showError({code: 'conflict', message: 'the room changed'});
    })""")
    page.wait_for_selector("#errors .error >> nth=1")
    assert covered_by_anything(page, ".board .seat .name, .hand .card .idx, .calls-panel button") == []
    context.close()
