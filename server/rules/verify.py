"""Checking a finished deal's fairness from its record: the seed matches the commitment shown at the
start, and the seed deals exactly the recorded hands (and turn-up). docs/deal-record.md "Checking a
deal by hand" describes the same steps for doing them without this code.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .deck import deal_from_seed
from .errors import RulesError
from .fair import seed_commitment
from .registry import get_ruleset


def _failed(check: str, reason: str, **facts: Any) -> dict[str, Any]:
    return {"verified": False, "failed": check, "reason": reason, **facts}


def verify_record(record: Mapping[str, Any]) -> dict[str, Any]:
    """`{"verified": true, ...}` when every check passes, else `{"verified": false, "failed": CHECK,
    "reason": ...}` for the first that fails. CHECK is one of `record` (a key is missing or of the wrong
    type), `commitment` (sha256 of the seed is not the commitment), `hands` or `turn_up` (the seed deals
    other cards)."""
    if not isinstance(record, Mapping):
        return _failed("record", "a deal record is a JSON object")
    seed, commitment = record.get("seed"), record.get("seed_commitment")
    if not isinstance(seed, str):
        return _failed("record", "the record has no 'seed' (it is published when the deal ends)")
    if not isinstance(commitment, str):
        return _failed("record", "the record has no 'seed_commitment' (shown when the deal started)")
    dealer, hands = record.get("dealer"), record.get("hands")
    if not isinstance(dealer, int) or isinstance(dealer, bool) or dealer not in range(4):
        return _failed("record", "'dealer' must be a seat 0-3")
    if not (isinstance(hands, list) and len(hands) == 4 and all(isinstance(hand, str) for hand in hands)):
        return _failed("record", "'hands' must be a list of four strings of space-separated cards")
    try:
        ruleset = get_ruleset(str(record.get("ruleset")))
        house_rules = ruleset.resolve_house_rules(record.get("house_rules") or {})
    except RulesError as error:
        return _failed("record", error.reason)
    expected = seed_commitment(seed)
    if expected != commitment.lower():
        return _failed("commitment", "sha256 of the seed is not the seed commitment",
                       seed_sha256=expected, seed_commitment=commitment)
    dealt, last_card = deal_from_seed(seed, dealer, ruleset.packets)
    for seat in range(4):
        if sorted(dealt[seat]) != sorted(hands[seat].split()):
            return _failed("hands", f"the seed does not deal the recorded hand of seat {seat}",
                           seat=seat, dealt=" ".join(dealt[seat]))
    turn_up = None
    if ruleset.has_turn_up(house_rules):
        turn_up = last_card
        if record.get("turn_up") != last_card:
            return _failed("turn_up", f"the seed turns up {last_card}, not {record.get('turn_up')}",
                           dealt=last_card)
    return {"verified": True, "ruleset": ruleset.name, "dealer": dealer, "seed_commitment": expected,
            "hands": [" ".join(hand) for hand in dealt], "turn_up": turn_up}
