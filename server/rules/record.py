"""Deal records: reading, validating and replaying them (format in docs/deal-record.md)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from .deal import Deal
from .deck import deal_from_seed
from .errors import IllegalAction, MalformedAction, MalformedRecord, RulesError
from .fair import seed_commitment
from .registry import get_ruleset

_KNOWN_KEYS = {
    "ruleset", "house_rules", "dealer", "hands", "turn_up", "actions", "multiplier", "doubled", "seed",
    "seed_commitment", "hints",
}


def deal_from_record(record: Mapping[str, Any]) -> tuple[Deal, list[Any]]:
    """Build the deal a record starts from; returns it and the record's (unchecked) action list."""
    if not isinstance(record, Mapping):
        raise MalformedRecord("a deal record is a JSON object")
    unknown = set(record) - _KNOWN_KEYS
    if unknown:
        raise MalformedRecord(f"unknown keys in record: {', '.join(sorted(unknown))}")
    for key in ("ruleset", "dealer", "hands", "actions"):
        if key not in record:
            raise MalformedRecord(f"the record has no {key!r}")
    try:
        ruleset = get_ruleset(record["ruleset"]) if isinstance(record["ruleset"], str) else None
    except RulesError as error:
        raise MalformedRecord(error.reason) from None
    if ruleset is None:
        raise MalformedRecord("'ruleset' must be a string")
    hands_text = record["hands"]
    if not isinstance(hands_text, list) or not all(isinstance(h, str) for h in hands_text):
        raise MalformedRecord("'hands' must be a list of four strings of space-separated cards")
    hands = [hand.split() for hand in hands_text]
    house_rules = record.get("house_rules") or {}
    if not isinstance(house_rules, Mapping):
        raise MalformedRecord("'house_rules' must be an object")
    multiplier = record.get("multiplier", 2 if record.get("doubled") else 1)
    if not isinstance(multiplier, int) or isinstance(multiplier, bool) or multiplier < 1:
        raise MalformedRecord("'multiplier' must be a positive whole number")
    actions = record["actions"]
    if not isinstance(actions, list):
        raise MalformedRecord("'actions' must be a list of [seat, action] pairs")
    try:
        seed, commitment = record.get("seed"), record.get("seed_commitment")
        deal = Deal(ruleset, hands, record["dealer"], record.get("turn_up"), house_rules,
                    seed=seed if isinstance(seed, str) else None, multiplier=multiplier,
                    seed_commitment=commitment if isinstance(commitment, str) else None)
    except MalformedRecord:
        raise
    except RulesError as error:
        raise MalformedRecord(error.reason) from None
    seed = record.get("seed")
    commitment = record.get("seed_commitment")
    if commitment is not None and not isinstance(commitment, str):
        raise MalformedRecord("'seed_commitment' must be a string (hex SHA-256 of the seed)")
    if seed is not None:
        if not isinstance(seed, str):
            raise MalformedRecord("'seed' must be a string")
        if commitment is not None and seed_commitment(seed) != commitment.lower():
            raise MalformedRecord("the seed does not match 'seed_commitment' (sha256 of the seed)")
        dealt, last_card = deal_from_seed(seed, record["dealer"], ruleset.packets)
        if [sorted(h) for h in dealt] != [sorted(h) for h in hands]:
            raise MalformedRecord("the hands are not the ones the seed deals")
        if deal.turn_up is not None and deal.turn_up != last_card:
            raise MalformedRecord(f"the seed turns up {last_card}, not {deal.turn_up}")
    return deal, actions


def replay(record: Mapping[str, Any], upto: int | None = None) -> Deal:
    """Replay the first `upto` actions (all by default); raises `RecordError` at the first bad one."""
    deal, actions = deal_from_record(record)
    for index, entry in enumerate(actions[:upto] if upto is not None else actions):
        if not (isinstance(entry, list) and len(entry) == 2):
            raise RecordError("malformed_record", index, "an action entry is a [seat, action] pair")
        seat, action = entry
        try:
            deal.apply(seat, action)
        except MalformedAction as error:
            raise RecordError("malformed_record", index, error.reason) from None
        except IllegalAction as error:
            raise RecordError("illegal_action", index, error.reason) from None
    return deal


class RecordError(Exception):
    """The first illegal or malformed action of a record, in the shape the replay command prints."""

    def __init__(self, kind: str, action_index: int | None, reason: str) -> None:
        super().__init__(reason)
        self.kind = kind
        self.action_index = action_index
        self.reason = reason

    def as_dict(self) -> dict[str, Any]:
        """The error as the replay command prints it."""
        return {"error": self.kind, "action_index": self.action_index, "reason": self.reason}


def load_record(text: str) -> dict[str, Any]:
    """Parse a record from JSON text; raises `RecordError` for text that is not a JSON object."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise RecordError("malformed_record", None, f"not valid JSON: {error}") from None
    if not isinstance(data, dict):
        raise RecordError("malformed_record", None, "a deal record is a JSON object")
    return data
