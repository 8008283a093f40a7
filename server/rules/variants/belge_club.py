"""The Belgian club rules (docs/rules.md §3): couleur's auction with maintien, piccolo, four misères, the
bouche-trou's answer to a trou, chelems with and without trump, and the club's points table.

The table is the house rule `score_table` (default in `seeds/belge-club.toml`, D13 gaps marked "not in
source"); a room may replace it as a whole, and it is validated here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..ruleset import Contract, HouseRuleError
from .belgian import BelgianRuleset

#: The fields of each row of the table: rows for a contract played alone, and the two team rows.
ALONE_FIELDS = ("taker_made", "taker_failed", "defender_made", "defender_failed")
TEAM_FIELDS = {
    "emballage": ("member_made", "defender_made", "member_failed", "defender_failed"),
    "trou": ("member_made", "member_all_tricks", "defender_made", "defender_all_tricks", "member_failed",
             "defender_failed"),
}
EMBALLAGE_KEYS = tuple(str(level) for level in range(8, 14))
OPTIONAL_FIELDS = ("not_in_source",)


class BelgeClub(BelgianRuleset):
    """The club rules of 004: not zero-sum; each figure from the room's points table."""

    name = "belge-club"

    def resolve_house_rules(self, overrides: Mapping[str, Any] | None) -> dict[str, Any]:
        """Defaults, then validated overrides; a replacement `score_table` must be complete."""
        resolved = super().resolve_house_rules(overrides)
        self.validate_table(resolved["score_table"])
        return resolved

    def table_rows(self) -> list[str]:
        """The rows a points table must have: both team rows and every contract played alone."""
        alone = [rung for rung in self.ladder if not rung.startswith(("emballage", "trou"))]
        return ["emballage", "trou", *alone]

    def validate_table(self, table: Any) -> None:
        """Raise `HouseRuleError` unless `table` has every row and every figure, as whole numbers."""
        if not isinstance(table, Mapping):
            raise HouseRuleError("house rule 'score_table' takes a table of rows")
        rows = self.table_rows()
        missing = [row for row in rows if row not in table]
        unknown = [row for row in table if row not in rows]
        if missing or unknown:
            raise HouseRuleError(f"score_table must have exactly the rows {rows}; missing {missing}, "
                                 f"unknown {unknown}")
        for row_name in rows:
            row = table[row_name]
            fields = TEAM_FIELDS.get(row_name, ALONE_FIELDS)
            extra = set(row) - set(fields) - set(OPTIONAL_FIELDS) if isinstance(row, Mapping) else set()
            if not isinstance(row, Mapping) or set(fields) - set(row) or extra:
                raise HouseRuleError(f"score_table row {row_name!r} must have the figures {list(fields)}")
            for field in fields:
                value = row[field]
                if row_name == "emballage":
                    ok = isinstance(value, Mapping) and set(value) == set(EMBALLAGE_KEYS) and all(
                        _is_whole(v) for v in value.values())
                    if not ok:
                        raise HouseRuleError(f"score_table emballage {field!r} needs a whole number for each "
                                             f"of {list(EMBALLAGE_KEYS)} tricks")
                elif not _is_whole(value):
                    raise HouseRuleError(f"score_table {row_name!r} {field!r} must be a whole number")

    def score(self, contract: Contract, tricks: Sequence[int], house_rules: Mapping[str, Any]) -> list[int]:
        """The club table: team rows per member and per defender; alone rows per taker and per defender."""
        table = house_rules["score_table"]
        points = [0, 0, 0, 0]
        if contract.team:
            taken = sum(tricks[seat] for seat in contract.declarers)
            member, defender = self._team_figures(table, contract, taken)
            return [member if seat in contract.declarers else defender for seat in range(4)]
        row = table[contract.name]
        for declarer in contract.declarers:  # several misère declarers: each on his own, added up
            made = self.made(contract, tricks[declarer])
            taker = int(row["taker_made" if made else "taker_failed"])
            defender = int(row["defender_made" if made else "defender_failed"])
            for seat in range(4):
                points[seat] += taker if seat == declarer else defender
        return points

    @staticmethod
    def _team_figures(table: Mapping[str, Any], contract: Contract, taken: int) -> tuple[int, int]:
        if contract.kind == "trou":
            row = table["trou"]
            if taken < contract.level:
                return int(row["member_failed"]), int(row["defender_failed"])
            if taken == 13:
                return int(row["member_all_tricks"]), int(row["defender_all_tricks"])
            return int(row["member_made"]), int(row["defender_made"])
        row = table["emballage"]
        if taken >= contract.level:  # paid by tricks made (004 "+8, puis +11, +14, +17, +20, +26")
            return int(row["member_made"][str(taken)]), int(row["defender_made"][str(taken)])
        level = str(contract.level)  # failed: by the bid (not in source, D13)
        return int(row["member_failed"][level]), int(row["defender_failed"][level])


def _is_whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)
