"""Whist à la couleur (docs/rules.md §2): the flagship ruleset of the web game in the sources.

The auction is the shared Belgian one (`belgian.py`); this module adds the scoring of
001 "Le barème", whose figures live in `seeds/couleur.toml`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..ruleset import Contract
from .belgian import BelgianRuleset


class Couleur(BelgianRuleset):
    """Whist à la couleur: zero-sum; team contracts pay each member, contracts played alone per opponent."""

    name = "couleur"

    def score(self, contract: Contract, tricks: Sequence[int], house_rules: Mapping[str, Any]) -> list[int]:
        """docs/rules.md §2 Scoring, before the deal multiplier (doubled after a tour de passe)."""
        points = [0, 0, 0, 0]
        if contract.team:
            value = self._team_value(contract, sum(tricks[seat] for seat in contract.declarers))
            return [value if seat in contract.declarers else -value for seat in range(4)]
        for declarer in contract.declarers:  # several misère declarers: each on his own, added up (§2)
            value = self._value_per_opponent(contract, tricks[declarer])
            for seat in range(4):
                points[seat] += 3 * value if seat == declarer else -value
        return points

    def _team_value(self, contract: Contract, taken: int) -> int:
        """What each team member wins (positive) or loses (negative)."""
        table = self.data["scoring"]
        if contract.kind == "trou":
            trou = table["trou"]
            if taken < contract.level:
                return -int(trou["failed"])
            return int(trou["all_tricks"] if taken == 13 else trou["made"])
        emballage, bid = table["emballage"], contract.level
        if taken >= bid:
            if taken == 13:
                return int(emballage["made_all_tricks"])
            return int(emballage["made_at_8"] + emballage["made_per_trick"] * (taken - 8))
        return -int(emballage["failed_at_8"] + emballage["failed_per_level"] * (bid - 8)
                    + emballage["failed_per_missing"] * (bid - taken - 1))

    def _value_per_opponent(self, contract: Contract, taken: int) -> int:
        """What a declarer playing alone wins (positive) or pays (negative) per opponent."""
        table = self.data["scoring"]
        made = self.made(contract, taken)
        if contract.kind == "solo":
            solo, bid = table["solo"], contract.level
            if made:
                over = min(taken, solo["overtricks_up_to"]) - bid
                return int(solo["made"][str(bid)] + solo["made_per_overtrick"] * max(over, 0))
            return -int(solo["failed"][str(bid)] + solo["failed_per_missing"] * (bid - taken - 1))
        if contract.kind == "abondance":
            value = int(table["abondance"]["value"][str(contract.level)])  # D9: the bid level's value
        else:
            value = int(table["fixed"][contract.kind])
        return value if made else -value
