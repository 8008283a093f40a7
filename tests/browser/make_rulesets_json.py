"""Write client_web/rulesets.json: each ruleset's title and house rules, as the lobby form shows them.

The lobby reads the house rules from the server's `hello` answer when the server sends them
(`ruleset_info`), and from this file otherwise. `test_web_client_data.py` fails when the file is out of
date; run `python tests/browser/make_rulesets_json.py` from the repository root to rewrite it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from server.rules import get_ruleset, ruleset_names

TARGET = Path(__file__).resolve().parents[2] / "client_web" / "rulesets.json"


def rulesets_data() -> dict[str, Any]:
    """The data the lobby needs, straight from the rules engine."""
    data: dict[str, Any] = {}
    for name in ruleset_names():
        ruleset = get_ruleset(name)
        data[name] = {
            "title": ruleset.data.get("ruleset", {}).get("title", name),
            "house_rules": [
                {"name": rule.name, "default": rule.default, "description": rule.description,
                 "choices": list(rule.choices)}
                for rule in ruleset.house_rules.values()
            ],
        }
    return data


def render() -> str:
    """The file's text."""
    return json.dumps(rulesets_data(), indent=1, ensure_ascii=False, sort_keys=True) + "\n"


if __name__ == "__main__":
    TARGET.write_text(render(), encoding="utf-8")
    print(f"wrote {TARGET}")
