"""`legal_info` in every seat view: one entry per legal action, in the same order, with
what a client needs to show it, from the ruleset's data; and `Ruleset.describe()` for the lobby."""

from __future__ import annotations

import random
from typing import Any

import pytest
from belgian_helpers import club, couleur, passes
from rules_helpers import calls_deal

from server.rules import Deal, get_ruleset, ruleset_names

KEYS = ["action", "verb", "suit", "level", "tricks", "commitment", "rare", "prompt"]


def info_of(deal: Deal, seat: int) -> dict[str, dict[str, Any]]:
    return {item["action"]: item for item in deal.view(seat)["legal_info"]}


def check_shape(view: dict[str, Any]) -> None:
    info = view["legal_info"]
    assert [item["action"] for item in info] == view["legal"]
    for item in info:
        assert list(item) == KEYS
        assert item["verb"] == item["action"].split(" ")[0]
        assert item["suit"] in (None, "S", "H", "D", "C", "NT")
        assert item["level"] is None or isinstance(item["level"], int)
        assert item["tricks"] is None or 0 <= item["tricks"] <= 13
        assert item["commitment"] in (None, "alone", "partner", "team")
        assert isinstance(item["rare"], bool)
        assert item["prompt"] in ("call", "trump", "discard", "card")
        if item["prompt"] == "card":
            assert item["verb"] == "play" and item["suit"] == item["action"][-1]
        if item["level"] is not None:
            assert item["tricks"] == item["level"]
        if item["verb"] not in ("pass", "play", "discard"):
            assert item["tricks"] is not None and item["commitment"] is not None, item


@pytest.mark.parametrize("ruleset", ruleset_names())
def test_legal_info_is_aligned_with_legal_in_every_view_of_random_deals(ruleset: str) -> None:
    rng = random.Random(ruleset)
    prompts: set[str] = set()
    for number in range(30):
        deal = Deal.from_seed(ruleset, f"info-{number}", number % 4)
        while not deal.finished:
            for seat in range(4):
                view = deal.view(seat)
                check_shape(view)
                prompts |= {item["prompt"] for item in view["legal_info"]}
            assert deal.view(None)["legal_info"] == []
            seat = min(deal.to_act())
            legal = deal.legal_actions(seat)
            deal.apply(seat, "pass" if "pass" in legal and rng.random() < 0.6 else rng.choice(legal))
        assert all(deal.view(seat)["legal_info"] == [] for seat in range(4))
    assert "card" in prompts and (ruleset == "whist" or "call" in prompts)


def test_solo_whist_calls_commit_to_their_targets() -> None:
    info = info_of(Deal.from_seed("solo-whist", "sw", 3), 0)
    assert (info["prop"]["tricks"], info["prop"]["commitment"], info["prop"]["rare"]) == (8, "partner", False)
    assert (info["solo"]["tricks"], info["solo"]["commitment"], info["solo"]["rare"]) == (5, "alone", False)
    for call, tricks in [("misere", 0), ("abundance", 9), ("royal-abundance", 9), ("spread-misere", 0),
                         ("abundance-declared", 13)]:
        assert (info[call]["tricks"], info[call]["commitment"], info[call]["rare"]) == (tricks, "alone", True)
    deal = calls_deal([(0, "abundance"), (1, "pass"), (2, "pass"), (3, "pass")])
    trump = info_of(deal, 0)
    assert {item["prompt"] for item in trump.values()} == {"trump"}
    assert {(item["tricks"], item["commitment"]) for item in trump.values()} == {(9, "alone")}


def test_couleur_accept_without_level_commits_to_the_level_it_stands_for() -> None:
    deal = couleur([(0, "propose H"), (1, "petite-misere")])
    info = info_of(deal, 2)
    assert info["accept H"]["tricks"] == 12 and info["accept H"]["level"] is None  # only 12 outranks it
    assert info["accept H"]["commitment"] == "partner" and info["accept H"]["suit"] == "H"
    deal = couleur([(0, "propose H")])
    info = info_of(deal, 1)
    assert (info["accept H"]["tricks"], info["accept H 10"]["tricks"]) == (8, 10)
    assert info["accept H 10"]["level"] == 10
    proposals = [item for item in info_of(couleur(), 0).values() if item["verb"] == "propose"]
    assert proposals and {(item["tricks"], item["commitment"]) for item in proposals} == {(8, "partner")}
    assert info["abondance 9 S"] == {"action": "abondance 9 S", "verb": "abondance", "suit": "S", "level": 9,
                                     "tricks": 9, "commitment": "alone", "rare": True, "prompt": "call"}
    assert (info["grande-misere"]["tricks"], info["grande-misere"]["rare"]) == (0, True)
    assert (info["grand-chelem S"]["tricks"], info["grand-chelem S"]["rare"]) == (13, True)
    assert info["pass"]["tricks"] is None and info["pass"]["rare"] is False


def test_belge_club_piccolo_chelems_and_raises() -> None:
    info = info_of(club(), 0)
    piccolo = info["piccolo"]
    assert (piccolo["tricks"], piccolo["rare"], piccolo["commitment"]) == (1, True, "alone")
    assert (info["petit-chelem NT"]["suit"], info["petit-chelem NT"]["tricks"]) == ("NT", 12)
    proposer = min(club().to_act())
    deal = club([(proposer, "propose H")])
    acceptor = next(seat for seat in range(4) if "accept H" in deal.legal_actions(seat))
    deal.apply(acceptor, "accept H")
    while not any(a.startswith("raise") for a in deal.legal_actions(acceptor)):  # outbid the team
        seat = min(deal.to_act())
        deal.apply(seat, "petite-misere" if "petite-misere" in deal.legal_actions(seat) else "pass")
    raises = [item for item in info_of(deal, acceptor).values() if item["verb"] == "raise"]
    assert raises and all(item["tricks"] == item["level"] and item["commitment"] == "partner"
                          for item in raises)


def test_discards_are_offered_by_the_discard_prompt() -> None:
    deal = couleur([(0, "petite-misere"), *passes(1, 2, 3)])
    info = info_of(deal, 2)
    assert info and {(item["prompt"], item["verb"], item["tricks"]) for item in info.values()} == {
        ("discard", "discard", None)}


@pytest.mark.parametrize("ruleset", ruleset_names())
def test_describe_gives_the_lobby_its_metadata(ruleset: str) -> None:
    rules = get_ruleset(ruleset)
    described = rules.describe()
    assert described["name"] == ruleset and described["title"] == rules.data["ruleset"]["title"]
    assert [rule["name"] for rule in described["house_rules"]] == list(rules.house_rules)
    for rule in described["house_rules"]:
        assert set(rule) == {"name", "default", "description", "choices"} and rule["description"]
    assert set(described["vocabulary"]) == set(rules.vocabulary)
    # The packets let a client re-deal a finished deal from its seed (docs/deal-record.md).
    assert described["packets"] == list(rules.packets) and sum(described["packets"]) * 4 == 52


@pytest.mark.parametrize(("make", "verb"), [(couleur, "renew"), (club, "maintain")])
def test_a_renewal_names_the_suit_of_the_lapsed_proposal(make: Any, verb: str) -> None:
    deal = make([(0, "propose H"), *passes(1, 2, 3)])
    info = info_of(deal, 0)
    assert info[verb]["suit"] == "H" and info[verb]["tricks"] == 8 and info[verb]["commitment"] == "partner"
