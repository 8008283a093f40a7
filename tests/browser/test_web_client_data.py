"""The create-room form is drawn from what `hello` sends (`ruleset_info`), not from a copy in the page:
the page holds no rule tables. tests/server/test_table_requests.py checks that `ruleset_info`
matches the rules engine; here the page shows exactly that, and shows a changed `hello` as it is."""

from __future__ import annotations

import json
from typing import Any

import pytest
from browser_helpers import new_context
from playwright.sync_api import Browser, Page, WebSocketRoute

from server.rules import get_ruleset, ruleset_names

pytestmark = pytest.mark.browser


def house_rules_shown(page: Page, ruleset: str) -> dict[str, str]:
    """Choose `ruleset` in the form; returns each house rule's control id and the explanation shown."""
    page.check(f"input[name=ruleset][value={ruleset}]")
    shown: dict[str, str] = page.evaluate(
        """() => {
             const rows = [...document.querySelectorAll('.create .house-rules .house-rule')];
             return Object.fromEntries(rows.map(row => {
               const control = row.querySelector('[id^="hr-"]');
               const help = row.querySelector('small.help');
               return [control.id.slice(3), help ? help.textContent : ''];
             }));
           }"""
    )
    return shown


def open_lobby(page: Page, url: str) -> None:
    page.goto(url)
    page.wait_for_function("window.whistApp && window.whistApp.roomsLoaded")
    page.wait_for_selector(".create input[name=ruleset]")


def test_the_create_room_form_offers_every_ruleset_with_the_engines_house_rules(
    browser: Browser, server_url: str
) -> None:
    context = new_context(browser, "desktop")
    page = context.new_page()
    open_lobby(page, server_url)
    offered = page.eval_on_selector_all(".create input[name=ruleset]", "els => els.map(e => e.value)")
    assert sorted(offered) == sorted(ruleset_names())
    for name in ruleset_names():
        rules = get_ruleset(name).house_rules
        shown = house_rules_shown(page, name)
        assert list(shown) == list(rules), name
        assert shown == {rule: rules[rule].description for rule in rules}, name  # English: the server's words
    context.close()


def test_a_house_rule_and_a_ruleset_that_hello_describes_appear_in_the_form(
    browser: Browser, server_url: str
) -> None:
    """Change `hello`'s answer on its way to the page: the form follows it, so it reads no copy of its own."""
    invented: dict[str, Any] = {"name": "invented_rule", "default": 3, "choices": [3, 7],
                                "description": "A house rule invented by this test."}

    def change(message: str | bytes) -> str | bytes:
        if not isinstance(message, str):
            return message
        data = json.loads(message)
        info = (data.get("result") or {}).get("ruleset_info") if data.get("type") == "ok" else None
        if not info:
            return message
        info["whist"]["house_rules"].append(invented)
        data["result"]["rulesets"].append("invented-rules")
        info["invented-rules"] = {"title": "Invented Whist", "house_rules": [], "packets": [13]}
        return json.dumps(data)

    def route(ws: WebSocketRoute) -> None:
        server = ws.connect_to_server()
        ws.on_message(lambda message: server.send(message))
        server.on_message(lambda message: ws.send(change(message)))

    context = new_context(browser, "phone")
    page = context.new_page()
    page.route_web_socket("**/ws", route)
    open_lobby(page, server_url)
    shown = house_rules_shown(page, "whist")
    assert list(shown) == [*get_ruleset("whist").house_rules, "invented_rule"]
    assert shown["invented_rule"] == invented["description"]
    options = page.eval_on_selector_all("#hr-invented_rule option", "els => els.map(e => e.textContent)")
    assert options == ["3", "7"]
    # A ruleset the page has no words for is offered under the title the server gives it.
    assert "Invented Whist" in page.inner_text(".create .ruleset-choices")
    assert house_rules_shown(page, "invented-rules") == {}
    assert "no house rules" in page.inner_text(".create .house-rules")
    context.close()
