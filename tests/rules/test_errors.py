"""Errors: malformed input and illegal actions are different types, name the rule, and change nothing."""

from __future__ import annotations

import pytest
from rules_helpers import SUIT_HANDS, assert_rejected

from server.rules import Deal, HouseRuleError, IllegalAction, MalformedAction, MalformedRecord, RulesError


def playing_deal() -> Deal:
    deal = Deal("solo-whist", SUIT_HANDS, dealer=3, turn_up="2C")
    for seat, call in ((0, "solo"), (1, "pass"), (2, "pass"), (3, "pass")):
        deal.apply(seat, call)
    deal.apply(0, "play AS")
    return deal


def test_error_types_are_distinct_rules_errors() -> None:
    assert issubclass(MalformedAction, RulesError) and issubclass(IllegalAction, RulesError)
    assert not issubclass(MalformedAction, IllegalAction) and not issubclass(IllegalAction, MalformedAction)
    assert issubclass(MalformedRecord, RulesError) and issubclass(HouseRuleError, RulesError)


@pytest.mark.parametrize(("seat", "action", "match"), [
    (1, "play AH ", "single spaces"),
    (1, "play  AH", "single spaces"),
    (1, "play ah", "not a card"),
    (1, "play 10H", "not a card"),
    (1, "PLAY AH", "unknown action"),
    (1, "", "single spaces"),
    (1, None, "must be a string"),
    (1, ["play", "AH"], "must be a string"),
    (4, "play AH", "not a seat"),
    (-1, "play AH", "not a seat"),
    (True, "play AH", "not a seat"),
    ("1", "play AH", "not a seat"),
    (1, "accept H", "unknown action"),
    (1, "trump", "takes"),
])
def test_malformed_action_changes_nothing(seat: object, action: object, match: str) -> None:
    assert_rejected(playing_deal(), seat, action, MalformedAction, match)  # type: ignore[arg-type]


@pytest.mark.parametrize(("seat", "action", "match"), [
    (2, "play AD", "not your turn: seat 1 to act"),
    (1, "play AS", "not in your hand"),
    (1, "pass", "cards are being played"),
    (1, "solo", "cards are being played"),
    (1, "discard AH", "cards are being played"),
    (1, "trump H", "cards are being played"),
])
def test_illegal_action_names_the_rule_and_changes_nothing(seat: int, action: str, match: str) -> None:
    assert_rejected(playing_deal(), seat, action, IllegalAction, match)


def test_illegal_card_when_following_suit_is_possible() -> None:
    hands = [["AS", *SUIT_HANDS[1][:12]], [*SUIT_HANDS[0][1:], "2H"], SUIT_HANDS[2], SUIT_HANDS[3]]
    deal = Deal("solo-whist", hands, dealer=3, turn_up="2C")
    for seat, call in ((0, "solo"), (1, "pass"), (2, "pass"), (3, "pass")):
        deal.apply(seat, call)
    deal.apply(0, "play AS")
    assert_rejected(deal, 1, "play 2H", IllegalAction, "must follow suit: holds spades")


@pytest.mark.parametrize(("kwargs", "match"), [
    ({"hands": SUIT_HANDS[:3]}, "four hands"),
    ({"hands": [SUIT_HANDS[0][:12], *SUIT_HANDS[1:]]}, "12 cards"),
    ({"hands": [[*SUIT_HANDS[0][:12], "AH"], *SUIT_HANDS[1:]]}, "dealt twice"),
    ({"hands": [[*SUIT_HANDS[0][:12], "XX"], *SUIT_HANDS[1:]]}, "not a card"),
    ({"dealer": 4}, "dealer"),
    ({"turn_up": None}, "turn_up"),
    ({"turn_up": "AS"}, "not one of the dealer's cards"),
])
def test_malformed_deal(kwargs: dict[str, object], match: str) -> None:
    arguments: dict[str, object] = {"hands": SUIT_HANDS, "dealer": 3, "turn_up": "2C", **kwargs}
    with pytest.raises(MalformedRecord, match=match):
        Deal("solo-whist", **arguments)  # type: ignore[arg-type]


def test_unknown_or_mistyped_house_rule() -> None:
    with pytest.raises(HouseRuleError, match="unknown house rule"):
        Deal.from_seed("solo-whist", "x", 0, {"no_such_rule": True})
    with pytest.raises(HouseRuleError, match="must be one of"):
        Deal.from_seed("solo-whist", "x", 0, {"stakes_table": "cheap"})
    with pytest.raises(HouseRuleError, match="takes a bool"):
        Deal.from_seed("solo-whist", "x", 0, {"overtricks": "yes"})
    with pytest.raises(HouseRuleError, match="takes a number"):
        Deal.from_seed("solo-whist", "x", 0, {"stake_multiplier": True})
    with pytest.raises(HouseRuleError, match="unknown ruleset"):
        Deal.from_seed("whist-of-mars", "x", 0)
