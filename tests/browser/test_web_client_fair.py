"""Provably fair deals on screen, in Chromium: the page's own shuffle (js/fair.js, WebCrypto)
deals what the rules engine deals; a deal played in each ruleset ends with "verified"; a deal whose end
state was tampered with on its way to the page ends with "not verified"; the page links to how to check
a deal by hand, served by the server itself."""

from __future__ import annotations

import json
from typing import Any

import pytest
from browser_helpers import Player, new_context, wait_until
from playwright.sync_api import Browser, Page, WebSocketRoute

from server.rules import deal_from_seed, get_ruleset, ruleset_names, seed_commitment

pytestmark = pytest.mark.browser

SEEDS = ["example", "", "x", "graine été ♠ 🂡", "0" * 64,
         "9f2c4a1e7b5d3c8a0e6f4b2d9c1a7e5f3b8d0c6a4e2f9b7d5c3a1e8f6b4d2c0a"]


def open_lobby(page: Page, url: str) -> None:
    page.goto(url)
    page.wait_for_function("window.whistApp && window.whistApp.roomsLoaded")


def test_the_pages_shuffle_deals_exactly_what_the_rules_engine_deals(
    browser: Browser, server_url: str
) -> None:
    context = new_context(browser, "desktop")
    page = context.new_page()
    open_lobby(page, server_url)
    cases = [(seed, (index + offset) % 4, list(get_ruleset(name).packets))
             for index, seed in enumerate(SEEDS) for offset, name in enumerate(ruleset_names())]
    dealt: list[dict[str, Any]] = page.evaluate(
        """async (cases) => {
            const fair = await import('/js/fair.js');
            const out = [];
            for (const [seed, dealer, packets] of cases) {
              const { hands, last } = await fair.dealFromSeed(seed, dealer, packets);
              out.push({ hands, last, commitment: await fair.commitmentOf(seed) });
            }
            return out;
        }""",
        cases,
    )
    assert len(dealt) == len(cases)
    for (seed, dealer, packets), got in zip(cases, dealt, strict=True):
        hands, last = deal_from_seed(seed, dealer, packets)
        assert got["hands"] == hands, (seed, dealer, packets)  # the same cards in the same order
        assert got["last"] == last
        assert got["commitment"] == seed_commitment(seed)
    context.close()


def fairness(page: Page) -> str:
    """The verdict the end-of-deal summary shows, once the check has finished."""
    done = "#summary .fairness[data-fair=verified], #summary .fairness[data-fair=not-verified]"
    page.wait_for_selector(done, timeout=30000)
    verdict: str = page.get_attribute("#summary .fairness", "data-fair") or ""
    return verdict


@pytest.mark.parametrize(("ruleset", "size"), [
    ("solo-whist", "phone"), ("couleur", "desktop"), ("belge-club", "phone"), ("whist", "desktop"),
])
def test_a_deal_played_in_each_ruleset_ends_verified(
    browser: Browser, server_url: str, ruleset: str, size: str
) -> None:
    context = new_context(browser, size)
    page = context.new_page()
    player = Player(page)
    open_lobby(page, server_url)
    player.create_room("Vera", bots=True, deals=2, ruleset=ruleset)
    started = wait_until(player.view, message="the first deal")
    view = player.wait_for_summary()
    assert fairness(page) == "verified"
    text = page.inner_text("#summary .fairness")
    assert "verified" in text and "matches the commitment shown when the deal started" in text
    # The page kept the commitment the deal started with, and the seed shown now hashes to it.
    assert view["seed_commitment"] == started["seed_commitment"] == seed_commitment(view["seed"])
    link = page.locator("#summary .fairness a[data-key=fair-how]")
    href = link.get_attribute("href") or ""
    assert href.startswith("fair.html#") and f"seed={view['seed']}" in href.replace("%3A", ":")
    assert player.errors == []
    context.close()


def tamper(kind: str) -> Any:
    """A websocket route that changes every end-of-deal state on its way to the page."""
    def change(message: str | bytes) -> str | bytes:
        if not isinstance(message, str):
            return message
        data = json.loads(message)
        view = data.get("view") if data.get("type") == "state" else None
        if not view or view.get("phase") != "end":
            return message
        if kind == "seed":
            view["seed"] = view["seed"] + "x"
        elif kind == "commitment":
            # A server that changes its commitment at the end to fit another seed: the page keeps the first.
            view["seed"] = "another seed"
            view["seed_commitment"] = seed_commitment("another seed")
        else:  # two players' first cards swapped: the seed deals other hands
            view["dealt"][0][0], view["dealt"][1][0] = view["dealt"][1][0], view["dealt"][0][0]
        return json.dumps(data)

    def route(ws: WebSocketRoute) -> None:
        server = ws.connect_to_server()
        ws.on_message(lambda message: server.send(message))
        server.on_message(lambda message: ws.send(change(message)))

    return route


@pytest.mark.parametrize(("kind", "why"), [
    ("seed", "does not match the commitment"),
    ("commitment", "does not match the commitment"),
    ("dealt", "deals other hands"),
])
def test_a_tampered_end_of_deal_shows_not_verified(
    browser: Browser, server_url: str, kind: str, why: str
) -> None:
    context = new_context(browser, "desktop")
    page = context.new_page()
    page.route_web_socket("**/ws", tamper(kind))
    player = Player(page)
    open_lobby(page, server_url)
    player.create_room("Tam", bots=True, deals=2, ruleset="whist")
    player.wait_for_summary()
    assert fairness(page) == "not-verified"
    text = page.inner_text("#summary .fairness")
    assert "Not verified" in text and why in text
    assert player.errors == []
    context.close()


def test_the_how_to_check_page_is_served_and_shows_the_deals_values(
    browser: Browser, server_url: str
) -> None:
    context = new_context(browser, "phone")
    page = context.new_page()
    seed = "it's a seed"
    page.goto(f"{server_url}fair.html#seed={seed}&commitment={seed_commitment(seed)}")
    assert "Checking a deal by hand" in page.inner_text("h1")
    assert page.inner_text("#seed") == seed
    assert page.inner_text("#commitment") == seed_commitment(seed)
    assert page.inner_text("#sha-command") == "printf '%s' 'it'\\''s a seed' | sha256sum"
    assert "python -m server.rules verify" in page.inner_text("main")
    context.close()
