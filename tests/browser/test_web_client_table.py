"""Several people at one table in Chromium: friends sharing a link, a spectator who must never see a
hidden card, a reload and a lost connection that return the player to the seat, a spread misère that
appears when the rules say, the two languages, and server errors shown in words."""

from __future__ import annotations

import json
import os
from typing import Any

import pytest
from browser_helpers import Player, new_context, wait_until
from playwright.sync_api import Browser, Page, WebSocketRoute

RULESET = os.environ.get("WHIST_BROWSER_RULESET", "couleur")
# The spread misère of each ruleset, and when its hand goes face up (docs/rules.md §1-§3).
SPREAD_MISERE = {
    "couleur": ("misere-etalee", "before_play"),
    "solo-whist": ("spread-misere", "after_trick1"),
    "belge-club": ("grande-misere-etalee", "after_trick1"),
}

pytestmark = pytest.mark.browser


def open_link(player: Player, url: str, room_id: str) -> None:
    player.page.goto(f"{url}?room={room_id}")
    wait_until(lambda: player.state().get("room"), message="the room from its link")


def held_cards(player: Player) -> set[str]:
    view = player.view()
    return set(view["hand"]) if view and view.get("hand") else set()


def deal_shown(player: Player) -> tuple[Any, Any]:
    """The deal a page shows (its number) and the phase, e.g. (3, "end")."""
    state = player.state()
    return (state.get("room") or {}).get("deal_number"), (state.get("view") or {}).get("phase")


def check_spectator_sees_no_hidden_card(spectator: Player, players: list[Player]) -> None:
    """Cards a player held before and after reading the spectator's page never appear on it.

    The spectator's page and its view are read at one moment (`Player.seen`). Judged only while the
    spectator's page shows the players' deal, not yet ended: a page that lags behind (a busy machine)
    may still show the previous deal's summary, where every hand is public."""
    deals = [deal_shown(p)[0] for p in players]
    before = [held_cards(p) for p in players]
    seen = spectator.seen("""() => ({
        cards: [...document.querySelectorAll('[data-card]')].map(e => e.dataset.card),
        text: document.body.innerText})""")
    state = seen["state"]
    view = state.get("view") or {}
    spectator_deal = (state.get("room") or {}).get("deal_number"), view.get("phase")
    # Public although held: a hand lying face up, and the turn-up card (the dealer keeps it).
    exposed = {card for cards in (view.get("exposed") or {}).values() for card in cards}
    if view.get("turn_up"):
        exposed.add(view["turn_up"])
    shown = set(seen["found"]["cards"])
    after = [held_cards(p) for p in players]
    numbers = {*deals, *(deal_shown(p)[0] for p in players), spectator_deal[0]}
    if len(numbers) != 1 or spectator_deal[1] == "end":
        return
    for old, new in zip(before, after, strict=True):
        hidden = (old & new) - exposed
        assert not (shown & hidden), f"the spectator's page shows hidden cards {sorted(shown & hidden)}"
    assert view.get("hand") is None
    assert "Your hand" not in seen["found"]["text"]


def test_two_players_share_a_link_while_a_third_watches_and_never_sees_a_hidden_card(
    browser: Browser, server_url: str
) -> None:
    contexts = [new_context(browser, size) for size in ("desktop", "phone", "phone")]
    ann, bob, eve = (Player(context.new_page()) for context in contexts)
    frames: list[dict[str, Any]] = []
    eve.page.on("websocket", lambda ws: ws.on("framereceived", lambda data: frames.append(json.loads(data))))

    ann.page.goto(server_url)
    room_id = ann.create_room("Ann", bots=False, deals=2, ruleset=RULESET)
    assert ann.state()["room"]["status"] == "waiting"

    open_link(bob, server_url, room_id)
    assert bob.state()["you"]["seat"] is None  # a link opens the room; sitting is the player's choice
    bob.page.fill("#player-name", "Bob")
    bob.page.locator(".seat .seat-actions button.primary").first.click()
    wait_until(lambda: bob.state()["you"]["seat"] is not None, message="Bob to sit")
    wait_until(lambda: "Bob" in [s["name"] for s in ann.state()["room"]["seats"]], message="Bob's name")

    open_link(eve, server_url, room_id)
    assert eve.state()["you"]["seat"] is None
    wait_until(lambda: ann.state()["room"]["spectators"] == 1, message="the spectator to be counted")

    ann.page.click("#start-btn")
    wait_until(lambda: eve.view(), message="the first deal")
    seats = {ann.state()["you"]["seat"], bob.state()["you"]["seat"]}
    assert len(seats) == 2
    room = ann.state()["room"]
    assert [s["kind"] for s in room["seats"]].count("human") == 2
    assert eve.page.locator(".seat.human").count() == 2

    deadline_checks = 0
    while not all((p.view() or {}).get("phase") == "end" for p in (ann, bob)):
        for player in (ann, bob):
            if player.my_turn():
                player.act_by_clicking()
        check_spectator_sees_no_hidden_card(eve, [ann, bob])
        deadline_checks += 1
        assert deadline_checks < 3000, "the deal did not end"
    assert eve.page.locator(".hand").count() == 0

    # Every state the spectator received is the public view: no hand, and nothing dealt before the end.
    states = [frame for frame in frames if frame.get("type") == "state" and frame.get("view")]
    assert states
    for frame in states:
        assert frame["view"]["hand"] is None and frame["view"]["seat"] is None
        if frame["view"]["phase"] != "end":
            assert "dealt" not in frame["view"] and "seed" not in frame["view"]

    # The next deal starts when both humans are ready; the server decides, the page waits.
    for player in (ann, bob, eve):
        player.page.wait_for_selector("#summary")
    number = ann.state()["room"]["deal_number"]
    if not ann.state()["room"]["session_over"]:
        ann.page.click("#next-deal")
        wait_until(lambda: ann.page.locator("#summary .waiting").count(), message="Ann to wait for Bob")
        assert "Bob" in ann.page.inner_text("#summary .waiting")
        eve.page.wait_for_timeout(300)
        assert ann.state()["room"]["deal_number"] == number
        assert bob.page.locator("#summary").count() == 1
        # Bob is not the host: "End the game" ends his own game; he leaves and a bot takes his seat.
        assert bob.page.inner_text("#summary #end-game") == "End the game"
        assert "a bot takes your seat" in bob.page.inner_text("#summary")
        bob_seat = bob.state()["you"]["seat"]
        bob.page.click("#summary #end-game")
        wait_until(lambda: bob.state().get("roomId") is None, message="Bob back in the lobby")
        bob.page.wait_for_selector("#create-room")
        assert "room=" not in bob.page.url
        wait_until(lambda: ann.state()["room"]["seats"][bob_seat]["kind"] == "bot",
                   message="a bot in Bob's seat")
        # Ann was ready and is now the only human: the server deals the next deal.
        for player in (ann, eve):
            wait_until(lambda p=player: p.state()["room"]["deal_number"] == number + 1, message="next deal")
    for player in (ann, bob, eve):
        assert player.errors == []
    for context in contexts:
        context.close()


def play_until(player: Player, condition: Any, limit: int = 2000) -> None:
    """Act by clicking on every turn until `condition(view)` holds."""
    for _ in range(limit):
        view = player.view()
        if view and condition(view):
            return
        if view and view.get("phase") == "end":
            player.next_deal()
            continue
        if player.my_turn():
            player.act_by_clicking()
        player.page.wait_for_timeout(30)
    raise AssertionError("the condition never held")


def test_a_reload_returns_the_player_to_the_same_seat_mid_deal(browser: Browser, server_url: str) -> None:
    context = new_context(browser, "phone")
    player = Player(context.new_page())
    player.page.goto(server_url)
    room_id = player.create_room("Rita", bots=True, deals=3, ruleset=RULESET)
    play_until(player, lambda view: view["phase"] == "play" and len(view["tricks"]) >= 2)
    before = player.state()
    player.page.reload()
    wait_until(lambda: player.state().get("view"), message="the table after the reload")
    after = player.state()
    assert after["roomId"] == room_id
    assert after["you"]["seat"] == before["you"]["seat"]
    assert after["room"]["deal_number"] == before["room"]["deal_number"]
    assert after["view"]["phase"] == "play"
    # Same seat: the hand on the page is the one held before the reload (less any card played since).
    played_since = {card for _, card in (after["view"]["trick"] or {}).get("cards", [])}
    assert set(after["view"]["hand"]) <= set(before["view"]["hand"])
    assert set(before["view"]["hand"]) - set(after["view"]["hand"]) <= played_since
    # The hand on the page is the view's, both read at one moment.
    seen = player.seen("() => [...document.querySelectorAll('.hand .card')].map(e => e.dataset.card)")
    assert set(seen["found"]) == set(seen["state"]["view"]["hand"])
    assert "Rita" in player.page.inner_text(".seat.me")
    player.wait_for_summary()
    assert player.errors == []
    context.close()


def test_a_resume_the_server_asks_to_retry_is_asked_again_and_the_seat_comes_back(
        browser: Browser, server_url: str) -> None:
    """The store busy at the moment of a reload (`store_unavailable`: nothing was applied, retry): the
    page asks again after a pause and is back on its seat, with no refusal left on screen."""
    context = new_context(browser, "desktop")
    player = Player(context.new_page())
    player.page.goto(server_url)
    room_id = player.create_room("Remi", bots=True, deals=3, ruleset=RULESET)
    play_until(player, lambda view: view["phase"] in ("play", "auction"))
    seat = player.state()["you"]["seat"]
    refused: list[int] = []

    def route(ws: WebSocketRoute) -> None:
        server = ws.connect_to_server()

        def to_server(message: str | bytes) -> None:
            request = json.loads(message) if isinstance(message, str) else {}
            if request.get("type") == "resume" and not refused:
                refused.append(request["id"])
                ws.send(json.dumps({"type": "error", "id": request["id"], "code": "store_unavailable",
                                    "message": "the store does not answer; nothing was applied: retry"}))
                return
            server.send(message)

        ws.on_message(to_server)
        server.on_message(lambda message: ws.send(message))

    player.page.route_web_socket("**/ws*", route)
    player.page.reload()
    wait_until(lambda: player.state().get("view"), timeout=30, message="the seat after the retried resume")
    assert refused, "the first resume was refused"
    assert player.state()["roomId"] == room_id and player.state()["you"]["seat"] == seat
    assert player.page.locator("#errors .error[data-code=store_unavailable]").count() == 0
    player.wait_for_summary()
    assert player.errors == []
    context.close()


def test_a_lost_connection_shows_a_banner_and_returns_to_the_seat(browser: Browser, server_url: str) -> None:
    context = new_context(browser, "desktop")
    player = Player(context.new_page())
    player.page.goto(server_url)
    player.create_room("Nico", bots=True, deals=3, ruleset=RULESET)
    play_until(player, lambda view: view["phase"] in ("play", "auction"))
    seat = player.state()["you"]["seat"]
    context.set_offline(True)
    player.page.evaluate("() => window.whistApp.conn.socket?.close()")  # the browser may have closed it
    banner = player.page.locator("#banner")
    banner.wait_for(state="visible")
    assert "Connection lost" in banner.inner_text()
    player.page.wait_for_timeout(1200)  # reconnection attempts fail while offline; the banner stays
    assert banner.is_visible()
    context.set_offline(False)
    wait_until(lambda: player.state().get("status") == "open", timeout=30, message="the reconnection")
    wait_until(lambda: not banner.is_visible(), timeout=15, message="the banner to go")
    assert player.state()["you"]["seat"] == seat
    player.wait_for_summary()
    assert player.errors == []
    context.close()


def test_a_spread_misere_hand_appears_at_the_right_moment(browser: Browser, server_url: str) -> None:
    verb, moment = SPREAD_MISERE[RULESET]
    contexts = [new_context(browser, "desktop"), new_context(browser, "phone")]
    declarer, spectator = (Player(context.new_page()) for context in contexts)
    declarer.page.goto(server_url)
    room_id = declarer.create_room("Mia", bots=False, deals=12, ruleset=RULESET)
    open_link(spectator, server_url, room_id)
    declarer.page.click("#start-btn")
    wait_until(lambda: declarer.view(), message="the first deal")
    seat = declarer.state()["you"]["seat"]

    def prefer(legal: list[str]) -> str | None:
        return verb if verb in legal else ("pass" if "pass" in legal else None)

    for _ in range(12):
        # Until the contract is known, the spectator sees none of the declarer's cards.
        while (declarer.view() or {}).get("phase") == "auction":
            check_spectator_sees_no_hidden_card(spectator, [declarer])
            if declarer.my_turn():
                declarer.act_by_clicking(prefer)
            declarer.page.wait_for_timeout(20)
        view = declarer.view() or {}
        contract = view.get("contract") or {}
        if view.get("phase") != "end" and contract.get("expose") and seat in contract.get("declarers", []):
            break
        declarer.wait_for_summary(prefer=prefer)
        declarer.next_deal()
    else:
        pytest.fail(f"{verb} was never played")

    row_selector = f'.exposed-row[data-seat="{seat}"]'
    row = spectator.page.locator(row_selector)
    if moment == "after_trick1":
        # Face down until trick 1 is complete: judged on the spectator's page against its own view,
        # read at one moment.
        while len((declarer.view() or {}).get("tricks", [])) == 0:
            seen = spectator.seen("(s) => document.querySelectorAll(s).length", row_selector)
            if not ((seen["state"]["view"] or {}).get("tricks") or []):
                assert seen["found"] == 0, "a spread hand shown before trick 1 is complete"
            check_spectator_sees_no_hidden_card(spectator, [declarer])
            if declarer.my_turn():
                declarer.act_by_clicking()
            declarer.page.wait_for_timeout(20)
    row.wait_for(state="visible", timeout=5000)
    # The row shows the hand the spectator's view exposes (both read at one moment), and that is the
    # declarer's hand: the two pages may show different moments, but a hand only loses cards, so the
    # row holds the declarer's hand read after it, or lies within the one read before it.
    held_before = held_cards(declarer)
    seen = spectator.seen(
        "(s) => [...document.querySelectorAll(s + ' [data-card]')].map(e => e.dataset.card)", row_selector)
    held_after = held_cards(declarer)
    shown = set(seen["found"])
    assert shown and shown == set(((seen["state"]["view"] or {}).get("exposed") or {}).get(str(seat), []))
    assert shown <= held_before or held_after <= shown
    assert "face up" in row.inner_text()
    declarer.wait_for_summary()
    for context in contexts:
        context.close()


def test_the_language_follows_the_browser_and_can_be_switched(browser: Browser, server_url: str) -> None:
    context = new_context(browser, "phone", locale="fr-FR")
    page = context.new_page()
    page.goto(server_url)
    page.wait_for_selector("#create-room")
    assert page.inner_text("#create-room") == "Créer et s'asseoir"
    assert page.evaluate("document.documentElement.lang") == "fr"
    assert page.inner_text("#daily-title") == "Défi du jour"
    # The house rules are explained in French too (the server describes them in English).
    page.check("input[name=ruleset][value=solo-whist]")
    helps = page.eval_on_selector_all(".house-rule .help", "els => els.map(e => e.textContent)")
    assert helps and all("Off:" not in text and " the " not in text for text in helps)
    assert any("Désactivé" in text for text in helps)
    page.select_option("#lang-select", "en")
    page.wait_for_function("document.documentElement.lang === 'en'")
    page.wait_for_function("document.querySelector('#create-room').textContent === 'Create and sit down'")
    page.reload()
    page.wait_for_selector("#create-room")
    assert page.inner_text("#create-room") == "Create and sit down"  # the choice is remembered
    context.close()


def test_server_errors_are_shown_in_words(browser: Browser, server_url: str) -> None:
    context = new_context(browser, "phone")
    page: Page = context.new_page()
    player = Player(page)
    page.goto(f"{server_url}?room=no-such-room")
    page.wait_for_selector("text=This room does not exist")
    page.goto(server_url)
    player.create_room("Zoe", bots=True, deals=1, ruleset=RULESET)
    wait_until(lambda: player.view(), message="the deal")
    # A request the server refuses (this player is not allowed to add a bot once the game started):
    page.evaluate("() => window.whistApp.addBot(1)")
    error = page.locator("#errors .error").first
    error.wait_for(state="visible")
    assert "The server says:" in error.inner_text()
    assert len(error.inner_text()) > len("The server says:") + 5
    context.close()


def test_the_lobby_lists_open_rooms_and_joins_a_free_seat(browser: Browser, server_url: str) -> None:
    contexts = [new_context(browser, "desktop"), new_context(browser, "phone")]
    host, guest = (Player(context.new_page()) for context in contexts)
    guest.page.goto(server_url)
    guest.page.wait_for_selector(".rooms")
    host.page.goto(server_url)
    room_id = host.create_room("Hugo", bots=False, deals=2, ruleset=RULESET)
    item = guest.page.locator(f'.room-item[data-room="{room_id}"]')
    item.wait_for(timeout=10000)  # pushed to the open lobby, no refresh needed
    text = item.inner_text()
    assert "Hugo" in text and "1/4" in text and "Watching 0" in text
    assert ("Whist à la couleur" if RULESET == "couleur" else "") in text
    guest.page.fill("#player-name", "Gus")
    item.locator("button.primary").click()
    wait_until(lambda: (guest.state().get("you") or {}).get("seat") is not None, message="a seat")
    wait_until(lambda: "Gus" in [s["name"] for s in host.state()["room"]["seats"]], message="Gus seated")
    assert guest.page.url.endswith(f"?room={room_id}")
    for context in contexts:
        context.close()


def test_play_now_opens_a_table_against_three_bots(browser: Browser, server_url: str) -> None:
    context = new_context(browser, "phone")
    player = Player(context.new_page())
    player.page.goto(server_url)
    player.page.fill("#player-name", "Quinn")
    player.page.click("#quick-play")
    wait_until(lambda: player.view(), message="the first deal")
    state = player.state()
    seats = state["room"]["seats"]
    assert seats[state["you"]["seat"]]["name"] == "Quinn"
    assert sorted(seat["kind"] for seat in seats) == ["bot", "bot", "bot", "human"]
    assert state["room"]["ruleset"] == "couleur"
    assert player.errors == []
    context.close()
