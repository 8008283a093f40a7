"""How the table feels, in Chromium: opponents' hands as card backs fanned by count, cards that move
(and never forever, and not at all under reduced motion), optional sounds off by default, a
four-colour deck, a dimmed hand and a word when it is not your turn, the bots' level and Play now's
own ruleset, and the server's `legal_info` used when it is sent."""

from __future__ import annotations

from typing import Any

import pytest
from browser_helpers import (
    OVERLAPPING_SEATS,
    SIZES,
    STILL,
    Player,
    new_context,
    outside_viewport,
    rendered,
    wait_until,
)
from playwright.sync_api import Browser, Page
from test_web_client_learn import play_view
from test_web_client_prompts import acted, hands_with, room_for, show

from server.rules import Deal

pytestmark = pytest.mark.browser

COUNT_ANIMATIONS = """(() => {
  window.animationsStarted = 0;
  const original = Element.prototype.animate;
  Element.prototype.animate = function (...args) {
    window.animationsStarted += 1;
    return original.apply(this, args);
  };
})();"""


def play_some_cards(player: Player, cards: int = 6, timeout: float = 90) -> None:
    """Play by clicking until `cards` cards of the play have been seen (deals thrown in are dealt again)."""
    def enough() -> bool:
        view = player.view()
        if view and view["phase"] == "end":
            player.next_deal()
            return False
        if view and player.my_turn():
            player.act_by_clicking()
        if not view or view["phase"] != "play":
            return False
        return sum(len(t["cards"]) for t in view["tricks"]) + len(view["trick"]["cards"]) >= cards

    wait_until(enough, timeout=timeout, message=f"{cards} cards played")


def wait_for_my_turn(player: Player, timeout: float = 60) -> None:
    """Until the page offers this player an action (a finished deal's summary is moved past)."""
    def mine() -> bool:
        view = player.view()
        if view and view["phase"] == "end":
            player.next_deal()
            return False
        return player.my_turn(view)

    wait_until(mine, timeout=timeout, message="our turn")


def endless_animations(page: Page) -> list[str]:
    result: list[str] = page.evaluate(
        """() => document.getAnimations()
             .filter(a => a.effect && a.effect.getComputedTiming().iterations === Infinity)
             .map(a => a.animationName || a.constructor.name)"""
    )
    return result


@pytest.mark.parametrize("size", ["phone", "desktop"])
def test_cards_move_for_a_moment_and_nothing_moves_forever(
    browser: Browser, server_url: str, size: str
) -> None:
    context = new_context(browser, size)
    page = context.new_page()
    page.add_init_script(COUNT_ANIMATIONS)
    player = Player(page)
    page.goto(server_url)
    page.fill("#player-name", "Mo")
    page.click("#quick-play")
    wait_until(lambda: player.view(), message="the deal")
    wait_until(lambda: rendered(page), message="the table")
    # Opponents' hands are card backs, fanned by count, with no card name in them: the backs and the
    # view read at one moment (a bot may play between two reads).
    seen = player.seen(
        """() => ({backs: [0, 1, 2, 3].map(seat => ({
               fans: document.querySelectorAll(`.seat[data-seat='${seat}'] .backs`).length,
               cards: document.querySelectorAll(`.seat[data-seat='${seat}'] .backs .card-back`).length})),
             named: document.querySelectorAll('.backs [data-card]').length})""")
    view = seen["state"]["view"]
    assert view is not None
    for seat, backs in enumerate(seen["found"]["backs"]):
        if seat == view["seat"]:
            assert backs["fans"] == 0
            continue
        assert backs["cards"] == view["hand_counts"][seat]
    assert seen["found"]["named"] == 0
    play_some_cards(player)
    assert page.evaluate("() => window.animationsStarted") > 0  # the deal and the cards moved
    assert endless_animations(page) == []
    # Once nothing happens, nothing keeps moving.
    page.wait_for_function(STILL, timeout=15000)
    assert player.errors == []
    context.close()


@pytest.mark.parametrize("size", ["phone", "desktop"])
def test_nothing_moves_under_reduced_motion(browser: Browser, server_url: str, size: str) -> None:
    context = browser.new_context(viewport=SIZES[size], reduced_motion="reduce", bypass_csp=True)
    page = context.new_page()
    page.add_init_script(COUNT_ANIMATIONS)
    player = Player(page)
    page.goto(server_url)
    page.fill("#player-name", "Mo")
    page.click("#quick-play")
    play_some_cards(player)
    assert page.evaluate("() => window.animationsStarted") == 0
    assert page.evaluate("() => document.getAnimations().length") == 0
    assert page.evaluate("() => getComputedStyle(document.querySelector('.seat')).animationName") == "none"
    context.close()


@pytest.mark.parametrize("size", ["phone", "desktop"])
def test_sounds_are_off_by_default_and_can_be_turned_on(browser: Browser, server_url: str, size: str) -> None:
    context = new_context(browser, size)
    page = context.new_page()
    player = Player(page)
    page.goto(server_url)
    page.fill("#player-name", "Mo")
    page.click("#quick-play")
    play_some_cards(player, cards=2)
    assert page.evaluate("() => window.whistSounds || 0") == 0
    # At our turn the bots wait for us: no summary can open over the page while we reach the settings
    # (a deal may end at any trick: a CI run's grande misère ended at the first).
    wait_for_my_turn(player)
    page.click("#settings-btn")
    assert not page.is_checked("[data-key=sound]")
    page.check("[data-key=sound]")
    page.keyboard.press("Escape")
    before = player.view()
    assert before is not None
    played = len(before["tricks"]) * 4 + len(before["trick"]["cards"])
    play_some_cards(player, cards=played + 4)
    assert page.evaluate("() => window.whistSounds || 0") > 0
    assert page.evaluate("() => localStorage.getItem('whist.sound')") == "on"
    context.close()


@pytest.mark.parametrize("size", ["phone", "desktop"])
def test_the_four_colour_deck_gives_each_suit_its_own_colour(
    browser: Browser, server_url: str, size: str
) -> None:
    context = new_context(browser, size)
    page = context.new_page()
    view = Deal("couleur", hands_with({0: ["AS", "AH", "AD", "AC"]}), dealer=3).view(0)
    show(page, server_url, view, 0)

    def colours() -> set[str]:
        return set(page.eval_on_selector_all(
            ".hand .card[data-card^='A']", "els => els.map(e => getComputedStyle(e).color)"))

    assert len(colours()) == 2
    page.click("#settings-btn")
    page.check("[data-key=fourcolour]")
    page.keyboard.press("Escape")
    wait_until(lambda: len(colours()) == 4, message="four colours")
    page.reload()
    page.wait_for_function("window.whistApp && window.whistApp.roomsLoaded")
    assert page.evaluate("() => document.body.classList.contains('four-colour')")
    context.close()


@pytest.mark.parametrize("size", ["phone", "desktop"])
def test_the_hand_is_dimmed_when_it_is_not_your_turn_and_a_tap_says_why(
    browser: Browser, server_url: str, size: str
) -> None:
    context = new_context(browser, size)
    page = context.new_page()
    view = play_view()
    # Seat 0 has just played: it is now another seat's turn.
    view = {**view, "legal": [], "to_act": [1]}
    show(page, server_url, view, 0)
    assert page.locator(".hand.not-my-turn").count() == 1
    page.locator(".hand .card").first.click(force=True)  # a tap on a card that cannot be played now
    wait_until(lambda: "Not your turn" in page.inner_text(".news"), message="the word in the news line")
    assert acted(page) == []
    # The announcement lies in the page's flow: it covers no seat, no card, no panel.
    covering = page.evaluate(
        """() => { const n = document.querySelector('.news').getBoundingClientRect();
             return [...document.querySelectorAll('.board .seat, .hand, .action-panel')].filter(e => {
               const b = e.getBoundingClientRect();
               return Math.min(b.right, n.right) - Math.max(b.left, n.left) > 1
                 && Math.min(b.bottom, n.bottom) - Math.max(b.top, n.top) > 1;
             }).map(e => e.className); }"""
    )
    assert covering == []
    context.close()


@pytest.mark.parametrize("size", ["phone", "desktop"])
def test_the_bots_level_is_chosen_with_a_word_on_each(browser: Browser, server_url: str, size: str) -> None:
    context = new_context(browser, size)
    page = context.new_page()
    player = Player(page)
    page.goto(server_url)
    page.wait_for_selector("input[name=bot-level]")
    offered = page.eval_on_selector_all("input[name=bot-level]", "els => els.map(e => e.value)")
    served = page.evaluate("() => window.whistApp.server.bots")
    assert sorted(offered) == sorted(served)
    assert page.is_checked("input[name=bot-level][value=heuristic]")
    helps = page.eval_on_selector_all(".bot-levels .choice small", "els => els.map(e => e.textContent)")
    assert len(helps) == len(offered) and all(len(text) > 20 for text in helps)
    page.check("input[name=bot-level][value=random]")
    player.create_room("Bo", bots=True, deals=1)
    wait_until(lambda: player.state().get("room"), message="the room")
    assert player.state()["room"]["bot"] == "random"
    context.close()


@pytest.mark.parametrize("size", ["phone", "desktop"])
def test_play_now_has_its_own_ruleset_beside_it(browser: Browser, server_url: str, size: str) -> None:
    context = new_context(browser, size)
    page = context.new_page()
    player = Player(page)
    page.goto(server_url)
    page.wait_for_selector("#quick-ruleset")
    # Both on the first screen, without scrolling.
    assert outside_viewport(page, "#quick-play, #quick-ruleset") == []
    page.select_option("#quick-ruleset", "solo-whist")
    page.fill("#player-name", "Quinn")
    page.click("#quick-play")
    wait_until(lambda: player.view(), message="the first deal")
    assert player.state()["room"]["ruleset"] == "solo-whist"
    context.close()


@pytest.mark.parametrize("size", ["phone", "desktop"])
def test_the_servers_legal_info_decides_tricks_rare_and_prompt(
    browser: Browser, server_url: str, size: str
) -> None:
    context = new_context(browser, size)
    page = context.new_page()
    view: dict[str, Any] = Deal("couleur", hands_with({}), dealer=3).view(0)
    info = []
    for action in view["legal"]:
        verb = action.split(" ")[0]
        # Say (unlike the old tables) that proposals are rare and commit to 9 tricks, and nothing else is.
        info.append({"action": action, "verb": verb, "suit": None, "level": None,
                     "tricks": 9 if verb == "propose" else None,
                     "commitment": "partner" if verb == "propose" else None,
                     "rare": verb == "propose", "prompt": "call"})
    view["legal_info"] = info
    show(page, server_url, view, 0)
    assert page.locator(".calls-panel .call-list.common button[data-action^='propose']").count() == 0
    page.click("button.more-calls")
    page.wait_for_selector("#rare-sheet button[data-action^='propose']")
    assert "9 tricks with a partner" in page.inner_text("#rare-sheet")
    page.click("#rare-sheet button[data-action='propose H']")
    assert acted(page) == ["propose H"]
    context.close()


def test_an_error_the_player_need_not_see_is_reported_not_dropped(browser: Browser, server_url: str) -> None:
    # A browser that refuses to start the sounds: the page stays silent, and says why in the console and
    # to its error hook (`whistApp.reported`), instead of swallowing the refusal.
    context = new_context(browser, "desktop")
    page = context.new_page()
    page.add_init_script("""window.AudioContext = class {
        constructor() { this.state = 'suspended'; this.currentTime = 0; this.destination = {}; }
        resume() { return Promise.reject(new Error('audio not allowed here')); } };""")
    warnings: list[str] = []
    page.on("console", lambda message: warnings.append(message.text) if message.type == "warning" else None)
    player = Player(page)
    page.goto(server_url)
    page.wait_for_function("window.whistApp && window.whistApp.roomsLoaded")
    assert page.evaluate("() => window.whistApp.reported") == []
    page.click("#settings-btn")
    page.check("[data-key=sound]")
    wait_until(lambda: page.evaluate("() => window.whistApp.reported.length") > 0, message="the report")
    reported = page.evaluate("() => window.whistApp.reported")
    assert [entry["message"] for entry in reported] == ["audio not allowed here"]
    assert reported[0]["where"].startswith("starting the sounds")
    wait_until(lambda: any("audio not allowed here" in text for text in warnings), message="a warning")
    assert player.errors == []
    context.close()


def a_trick_seat_0_wins_with_its_card() -> tuple[dict[str, Any], dict[str, Any]]:
    """Seat 0's view with three cards on the table and seat 0 to play, and its view once it has played
    a card that wins the trick (the first such moment of the first seed that has one)."""
    for n in range(50):
        deal = Deal.from_seed("couleur", seed=f"sweep-{n}", dealer=3)
        while deal.phase.value == "auction":
            seat = next(iter(deal.to_act()))
            legal = deal.legal_actions(seat)
            deal.apply(seat, "pass" if seat != 0 and "pass" in legal else legal[-1])
        while deal.phase.value == "play":
            seat = next(iter(deal.to_act()))
            if seat == 0 and len(deal.view(0)["trick"]["cards"]) == 3:
                for card in deal.legal_actions(0):
                    after = deal.clone()
                    after.apply(0, card)
                    if after.view(0)["tricks"][-1]["winner"] == 0:
                        return deal.view(0), after.view(0)
            deal.apply(seat, deal.legal_actions(seat)[0])
    raise AssertionError("no seed gave a trick that seat 0 wins with its card")


#: Once the cards of the trick on the table all start their sweep to the winner: the end of the sweep
#: (every animation of theirs finished at once, as the page shows it until its next redraw), the table
#: elements that overlap then, and what shows at the middle of the winner's name. Null before the sweep.
END_OF_SWEEP = f"""() => {{
  const cards = [...document.querySelectorAll('.trick .trick-card')];
  const sweeping = c => c.getAnimations()
    .some(a => a.playState === 'running' && a.effect.getTiming().fill === 'forwards');
  if (!cards.length || !cards.every(sweeping)) return null;
  for (const card of cards) for (const a of card.getAnimations()) a.finish();
  const box = document.querySelector('.board .seat.pos-bottom .name').getBoundingClientRect();
  const hit = document.elementFromPoint(box.left + box.width / 2, box.top + box.height / 2);
  const name = hit && hit.closest('.seat.pos-bottom') ? 'shown' : 'under ' + (hit ? hit.className : '-');
  return {{cards: cards.length, overlaps: ({OVERLAPPING_SEATS})(), name}};
}}"""


@pytest.mark.parametrize("size", ["phone", "desktop"])
def test_a_trick_swept_to_your_seat_fades_and_leaves_your_seat_uncovered(
    browser: Browser, server_url: str, size: str
) -> None:
    """The cards of a trick you win slide to your seat and fade, then stay there until the page's next
    redraw (a moment; longer on a busy machine): faded, they cover neither your seat nor its name.
    Unfaded, CI caught all four on your seat: 10 overlaps, the first "seat pos-bottom / trick-card"."""
    before, after = a_trick_seat_0_wins_with_its_card()
    context = new_context(browser, size)
    page = context.new_page()
    show(page, server_url, before, 0)
    page.wait_for_function(STILL)
    page.evaluate(
        """([view, room]) => window.whistApp.receive({type: 'state', room_id: room.room_id, room, view,
                                                     you: {seat: 0, host: true, spectator: false}})""",
        [after, {**room_for(after, 0), "version": 2}],
    )
    # Checked in the frame the sweep is first seen in, before the page's redraw can take the cards away.
    end = page.wait_for_function(END_OF_SWEEP, timeout=10000).json_value()
    assert end == {"cards": 4, "overlaps": [], "name": "shown"}
    context.close()


@pytest.mark.parametrize("size", ["phone", "desktop"])
def test_a_new_deals_cards_wait_unseen_for_their_turn_to_arrive(
    browser: Browser, server_url: str, size: str
) -> None:
    """A new deal's cards come one after the other from the middle of the table: until its turn a card
    is not shown (shown, the thirteen lay piled in the middle of the felt)."""
    view = Deal.from_seed("couleur", seed="arrive-0", dealer=3).view(0)
    context = new_context(browser, size)
    page = context.new_page()
    page.goto(server_url)
    page.wait_for_function("window.whistApp && window.whistApp.roomsLoaded")
    # The deal's first moment, in the frame the hand is first drawn: every card's animations at 0.
    opacities = page.evaluate(
        """([view, room]) => new Promise(resolve => {
            const app = window.whistApp;
            app.actions.act = () => {};
            app.update.roomEntered(room.room_id);
            app.receive({type: 'state', room_id: room.room_id, room, view,
                         you: {seat: 0, host: true, spectator: false}});
            const look = () => {
              const cards = [...document.querySelectorAll('.hand .card')];
              const moving = c => c.getAnimations().length > 0;
              if (!cards.length || !cards.every(moving)) return requestAnimationFrame(look);
              for (const a of cards.flatMap(c => c.getAnimations())) { a.pause(); a.currentTime = 0; }
              resolve(cards.map(c => getComputedStyle(c).opacity));
            };
            requestAnimationFrame(look);
        })""",
        [view, room_for(view, 0)],
    )
    assert opacities == ["0"] * 13
    context.close()
