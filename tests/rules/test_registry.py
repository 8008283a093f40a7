"""The registry lists every ruleset explicitly, each with its data file shipped in the package."""

from __future__ import annotations

import pytest

from server.rules import HouseRuleError, Ruleset, get_ruleset, ruleset_names
from server.rules.registry import RULESETS
from server.rules.seeds import seed_names


def test_every_data_file_has_a_ruleset_and_every_ruleset_a_data_file() -> None:
    assert ruleset_names() == seed_names() == ["belge-club", "couleur", "solo-whist", "whist"]


@pytest.mark.parametrize("name", sorted(RULESETS))
def test_each_ruleset_is_found_by_its_name_once(name: str) -> None:
    ruleset = get_ruleset(name)
    assert isinstance(ruleset, Ruleset) and ruleset.name == name == ruleset.data["ruleset"]["name"]
    assert get_ruleset(name) is ruleset


def test_an_unknown_ruleset_is_refused_with_the_known_names() -> None:
    with pytest.raises(HouseRuleError, match="unknown ruleset 'bridge'; known: belge-club, couleur"):
        get_ruleset("bridge")
