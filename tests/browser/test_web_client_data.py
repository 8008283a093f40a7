"""The web client's copy of the house rules (client_web/rulesets.json) matches the rules engine."""

from __future__ import annotations

import json

from make_rulesets_json import TARGET, render


def test_the_lobby_house_rules_match_the_rules_engine() -> None:
    assert TARGET.exists(), "run: python tests/browser/make_rulesets_json.py"
    assert json.loads(TARGET.read_text(encoding="utf-8")) == json.loads(render()), (
        "client_web/rulesets.json is out of date: run python tests/browser/make_rulesets_json.py"
    )
