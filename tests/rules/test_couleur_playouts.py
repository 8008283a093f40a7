"""Seeded random playouts of `couleur` and `belge-club` that reach every contract of each ladder.

The lead's tests/rules/test_property.py checks the engine's invariants over every ruleset; this one
steers the random auction so that every rung is played (docs/rules.md §2 and §3 ladders) and prints how often
each contract was played (`pytest -s`). At each deal's end: couleur is zero-sum (§2), a deal's points
are its ruleset's score times the multiplier, and the tricks add up.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest

from server.rules import Deal, Phase, get_ruleset

DEALS = 2500


def choose(rng: random.Random, deal: Deal, legal: list[str], style: float) -> str:
    """Pass with probability `style`; otherwise the lowest call half the time, else any call."""
    if deal.phase is not Phase.AUCTION:
        return rng.choice(legal)
    calls = [action for action in legal if action != "pass"]
    if not calls or ("pass" in legal and rng.random() < style):
        return "pass"
    return calls[0] if rng.random() < 0.5 else rng.choice(calls)


def expected_contracts(name: str) -> set[str]:
    ruleset = get_ruleset(name)
    return {rung for rung in ruleset.data["auction"]["ladder"]}


@pytest.mark.parametrize("name", ["couleur", "belge-club"])
def test_random_playouts_reach_every_contract_of_the_ladder(name: str) -> None:
    rng = random.Random(f"{name}-playouts")
    ruleset = get_ruleset(name)
    played: Counter[str] = Counter()
    for number in range(DEALS):
        deal = Deal.from_seed(name, f"{name}-{number}", number % 4, multiplier=rng.choice([1, 2]))
        style = rng.choice([0.3, 0.6, 0.85])
        while not deal.finished:
            seat = min(deal.to_act())
            deal.apply(seat, choose(rng, deal, deal.legal_actions(seat), style))
        result = deal.result()
        played[result["contract"] or "tour de passe"] += 1
        assert sum(result["tricks"]) == result["tricks_played"]
        if deal.contract is not None:
            base = ruleset.score(deal.contract, deal.tricks_won, deal.house_rules)
            assert result["points"] == [deal.multiplier * p for p in base]
        if name == "couleur":
            assert sum(result["points"]) == 0
    print(f"\n{name}: {DEALS} deals: " + ", ".join(f"{c}: {n}" for c, n in played.most_common()))
    missing = expected_contracts(name) - set(played)
    assert not missing, f"never played: {sorted(missing)}"
