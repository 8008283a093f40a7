"""Learning at the table, in Chromium: a legend for every badge (tooltip, long press, help dialog), a
short "How to play" for each ruleset in every language, a hint button (hidden in the daily challenge),
French and Dutch card corners, Dutch chosen from the browser, and every string translated."""

from __future__ import annotations

from typing import Any

import pytest
from browser_helpers import new_context, screenshot, wait_until
from playwright.sync_api import Browser
from test_web_client_prompts import acted, hands_with, show

from server.rules import Deal

pytestmark = pytest.mark.browser

RULESETS = ("solo-whist", "couleur", "belge-club", "whist")


def play_view(ruleset: str = "couleur") -> dict[str, Any]:
    """Seat 0's view in the play of a deal, seat 0 to play: seat 0 proposes, seat 1 accepts, the others
    pass (the first seed whose auction goes so), then cards are played until it is seat 0's turn."""
    for n in range(50):
        deal = Deal.from_seed(ruleset, seed=f"learn-{n}", dealer=3)
        while deal.phase.value == "auction":
            seat = next(iter(deal.to_act()))
            legal = deal.legal_actions(seat)
            verb = "propose" if seat == 0 else "accept" if seat == 1 else "pass"
            wanted = [a for a in legal if a.startswith(verb)]
            deal.apply(seat, (wanted or ["pass" if "pass" in legal else legal[0]])[0])
        if deal.phase.value != "play":
            continue
        while 0 not in deal.to_act():
            seat = next(iter(deal.to_act()))
            deal.apply(seat, deal.legal_actions(seat)[0])
        return deal.view(0)
    raise AssertionError("no seed gave a deal in play")


def test_every_string_is_translated_in_english_french_and_dutch(browser: Browser, server_url: str) -> None:
    context = new_context(browser, "phone")
    page = context.new_page()
    page.goto(server_url)
    missing = page.evaluate(
        """async () => {
          const tables = {};
          for (const code of ['en', 'fr', 'nl']) tables[code] = (await import(`/js/lang/${code}.js`)).default;
          const keys = new Set(Object.values(tables).flatMap(Object.keys));
          const out = [];
          for (const key of keys) for (const code of ['en', 'fr', 'nl']) {
            // English may leave a house rule's explanation to the server (its text is English).
            const serverText = code === 'en' && /^hr\\..*\\.desc$/.test(key);
            if (!(key in tables[code]) && !serverText) out.push(`${code}: ${key}`);
          }
          return out;
        }"""
    )
    assert missing == []
    context.close()


@pytest.mark.parametrize(("locale", "corners", "word"), [
    ("en-GB", {"K", "Q", "J"}, "Your hand"), ("fr-FR", {"R", "D", "V"}, "Votre main"),
    ("nl-BE", {"H", "V", "B"}, "Je hand"),
])
def test_card_corners_follow_the_language_chosen_from_the_browser(
    browser: Browser, server_url: str, locale: str, corners: set[str], word: str
) -> None:
    context = new_context(browser, "phone", locale=locale)
    page = context.new_page()
    view = Deal("couleur", hands_with({0: ["KS", "QH", "JD", "AC", "TC"]}), dealer=3).view(0)
    show(page, server_url, view, 0)
    ranks = set(page.eval_on_selector_all(".hand .card .rank", "els => els.map(e => e.textContent)"))
    assert corners <= ranks and "10" in ranks
    assert page.locator(".hand").get_attribute("aria-label").startswith(word)
    context.close()


@pytest.mark.parametrize("size", ["phone", "desktop"])
def test_dutch_can_be_chosen_and_is_remembered(browser: Browser, server_url: str, size: str) -> None:
    context = new_context(browser, size, locale="en-US")
    page = context.new_page()
    page.goto(server_url)
    page.wait_for_selector("#create-room")
    page.select_option("#lang-select", "nl")
    page.wait_for_function("document.documentElement.lang === 'nl'")
    page.wait_for_function("document.querySelector('#create-room').textContent === 'Maken en aanschuiven'")
    assert page.inner_text("#daily-title") == "Dagelijkse uitdaging"
    page.reload()
    page.wait_for_selector("#create-room")
    assert page.inner_text("#create-room") == "Maken en aanschuiven"
    context.close()


@pytest.mark.parametrize("size", ["phone", "desktop"])
def test_every_badge_explains_itself_by_tooltip_long_press_and_the_legend(
    browser: Browser, server_url: str, size: str
) -> None:
    context = new_context(browser, size, locale="en-US")
    page = context.new_page()
    view = play_view()
    view["multiplier"] = 2
    show(page, server_url, view, 0)
    badges = page.eval_on_selector_all(
        ".board .badge, .board .stat, .infobar .chip.contract, .infobar .chip.double",
        "els => els.map(e => [e.dataset.legend || '', e.getAttribute('title') || ''])",
    )
    assert badges and all(key and len(title) > 10 for key, title in badges)
    keys = {key for key, _ in badges}
    assert {"dealer", "declarer", "tricks", "count", "balance", "contract", "double"} <= keys
    # A long press on the dealer's badge shows what it means.
    badge = page.locator(".badge.dealer").first
    box = badge.bounding_box()
    assert box is not None
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.mouse.down()
    page.wait_for_selector(".legend-bubble")
    page.mouse.up()
    assert "dealer" in page.inner_text(".legend-bubble")
    # The help lists every sign with its meaning, and says how this ruleset is played.
    page.click("[data-key=help]")
    page.wait_for_selector("#help .legend-list")
    legend = page.inner_text("#help .legend-list")
    for text in ("the dealer", "declarer", "Tricks this player", "Cards this player", "count double"):
        assert text in legend
    assert page.locator("#help .howto-list li").count() >= 4
    screenshot(page, "help-legend")
    page.keyboard.press("Escape")
    page.wait_for_selector("#help", state="detached")
    context.close()


@pytest.mark.parametrize("locale", ["en-US", "fr-FR", "nl-NL"])
def test_how_to_play_each_ruleset_in_every_language(browser: Browser, server_url: str, locale: str) -> None:
    context = new_context(browser, "phone", locale=locale)
    page = context.new_page()
    page.goto(server_url)
    page.wait_for_selector(".how details.howto")
    guides = page.evaluate(
        """() => Object.fromEntries([...document.querySelectorAll('.how details.howto')].map(d =>
             [d.dataset.ruleset, [...d.querySelectorAll('li')].map(li => li.textContent)]))"""
    )
    served = page.evaluate("() => window.whistApp.server.rulesets")
    assert set(served) <= set(guides)
    for ruleset in served:
        assert len(guides[ruleset]) >= 4 and all(len(text) > 30 for text in guides[ruleset])
    # The fourth ruleset's guide (classic whist) is ready in every language before the server has it.
    texts = page.evaluate("""async (code) => { const t = (await import(`/js/lang/${code}.js`)).default;
                              return [1, 2, 3, 4, 5].map(i => t[`howto.whist.${i}`]); }""", locale[:2])
    assert all(texts)
    context.close()


@pytest.mark.parametrize("size", ["phone", "desktop"])
def test_the_hint_highlights_what_the_bot_would_play(browser: Browser, server_url: str, size: str) -> None:
    context = new_context(browser, size)
    page = context.new_page()
    view = play_view()
    assert view["legal"] and view["phase"] == "play"
    show(page, server_url, view, 0)
    choice = view["legal"][-1]
    page.evaluate(
        """(choice) => { const conn = window.whistApp.conn; const real = conn.request.bind(conn);
             window.asked = [];
             conn.request = (type, fields) => { window.asked.push(type);
               // The server logs a hint, so a new state (a new room version) comes before the answer.
               if (type === 'hint') {
                 const app = window.whistApp;
                 app.update.stateReceived({you: app.you, view: app.view,
                                           room: {...app.room, version: app.room.version + 1}});
                 return Promise.resolve({action: choice, bot: 'heuristic'});
               }
               return real(type, fields); }; }""",
        choice,
    )
    page.click("[data-key=hint]")
    card = choice.split(" ")[1]
    page.wait_for_selector(f".hand .card.hinted[data-card='{card}']")
    assert page.locator(".hand .card.hinted").count() == 1
    assert "The bot would choose" in page.inner_text(".hint-text")
    assert page.evaluate("() => window.asked") == ["hint"]
    assert acted(page) == []  # a hint never plays by itself
    context.close()


@pytest.mark.parametrize("size", ["phone", "desktop"])
def test_the_hint_says_why_when_the_server_refuses(browser: Browser, server_url: str, size: str) -> None:
    context = new_context(browser, size)
    page = context.new_page()
    show(page, server_url, play_view(), 0)
    page.evaluate(
        """() => { const conn = window.whistApp.conn;
             conn.request = () => Promise.reject(Object.assign(new Error('off'), {code: 'hints_off'})); }"""
    )
    page.click("[data-key=hint]")
    wait_until(lambda: "No hints in the daily challenge" in page.inner_text(".hint-text"), message="why")
    context.close()


@pytest.mark.parametrize("size", ["phone", "desktop"])
def test_there_is_no_hint_button_in_a_daily_challenge_room(
    browser: Browser, server_url: str, size: str
) -> None:
    context = new_context(browser, size)
    page = context.new_page()
    show(page, server_url, play_view(), 0)
    assert page.locator("[data-key=hint]").count() == 1
    page.evaluate("() => { const a = window.whistApp; a.update.stateReceived("
                  "{you: a.you, view: a.view, room: {...a.room, daily: '2026-12-01'}}); }")
    page.wait_for_selector("[data-key=hint]", state="detached")
    assert page.locator(".hand .card.playable").count() >= 1
    context.close()
