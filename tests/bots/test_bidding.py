"""Hand evaluation and bidding: estimates per trump suit, misère checks, rare calls."""

from __future__ import annotations

from typing import Any

import pytest
from bots_helpers import RULESETS, iter_views

from server.bots import HeuristicBot, get_bot
from server.bots.bidding import bid_couleur_family, bid_solo_whist, choose_discard, choose_trump
from server.bots.evaluate import misere_card_risks, misere_risk, trick_estimate
from server.rules import Deal

WEAK = ["9S", "7S", "4S", "8H", "6H", "3H", "JD", "7D", "5D", "2D", "9C", "6C", "3C"]
SPADES = ["AS", "KS", "QS", "JS", "TS", "9S", "8S", "AH", "KH", "QH", "AD", "KD", "2C"]
SOLO = ["AS", "KS", "QS", "7S", "3S", "AH", "KH", "4H", "9D", "5D", "2D", "8C", "4C"]
MISERE = ["2S", "4S", "6S", "3H", "5H", "2D", "4D", "7D", "2C", "3C", "5C", "6C", "8C"]


def auction_view(hand: list[str], legal: list[str], ruleset: str = "solo-whist", turn_up: str | None = "2S",
                 calls: list[list[Any]] | None = None, seat: int = 0) -> dict[str, Any]:
    return {"ruleset": ruleset, "seat": seat, "phase": "auction", "hand": hand, "legal": legal,
            "turn_up": turn_up, "calls": calls or [], "dealer": 3, "contract": None}


def test_estimate_counts_aces_guarded_kings_trump_length_and_ruffs() -> None:
    assert trick_estimate(WEAK, "S") < 1.5
    assert trick_estimate(SPADES, "S") > trick_estimate(SPADES, "H") + 2
    assert trick_estimate(SPADES, "S") >= 10
    # A guarded king is worth more than a bare one.
    assert trick_estimate(["KH", "2H"], "S") > trick_estimate(["KH"], "S")
    # Trump length and a void side suit (ruffs) add tricks.
    assert trick_estimate(["5S", "4S", "3S", "2S", "AH"], "S") > trick_estimate(["5S", "AH"], "S")


def test_misere_hands_are_checked_card_by_card() -> None:
    assert misere_risk(MISERE) == 0
    assert misere_risk(SPADES) > 10
    dangerous = [card for _, card in misere_card_risks(["2S", "KS", "3H", "4H", "5H"])]
    assert dangerous[0] == "KS"
    # One discard (petite misère) can remove the one bad card.
    one_bad = [*MISERE[:-1], "AH"]
    assert misere_risk(one_bad) > 1
    assert misere_risk(one_bad, discards=1) == 0


def test_solo_whist_calls_need_the_hand_for_them() -> None:
    legal = ["pass", "prop", "solo", "misere", "abundance", "royal-abundance", "spread-misere",
             "abundance-declared"]
    assert bid_solo_whist(auction_view(WEAK, legal)) == "pass"
    assert bid_solo_whist(auction_view(SOLO, legal)) == "solo"
    assert bid_solo_whist(auction_view(SPADES, legal)) == "royal-abundance"
    assert bid_solo_whist(auction_view(SPADES, legal, turn_up="2C")) == "abundance"
    assert bid_solo_whist(auction_view(MISERE, legal)) == "spread-misere"
    assert bid_solo_whist(auction_view(MISERE, ["pass", "misere"])) == "misere"


def test_couleur_propose_and_accept_only_with_support() -> None:
    legal = ["pass", "propose S", "propose H", "propose D", "propose C"]
    assert bid_couleur_family(auction_view(SOLO, legal, ruleset="couleur", turn_up=None)) == "propose S"
    assert bid_couleur_family(auction_view(WEAK, legal, ruleset="couleur", turn_up=None)) == "pass"
    support = ["QD", "JD", "9D", "4D", "AC", "KC", "2C", "5S", "3S", "8H", "6H", "4H", "2H"]
    calls = [[3, "propose D"]]
    accept = ["pass", "accept D", *(f"accept D {level}" for level in range(9, 14)), "propose H", "propose S"]
    assert bid_couleur_family(auction_view(support, accept, "couleur", None, calls)) == "accept D"
    assert bid_couleur_family(auction_view(WEAK, accept, "couleur", None, calls)) == "pass"


def test_couleur_rare_calls_only_with_hands_that_justify_them() -> None:
    legal = ["pass", "propose S", "abondance 9 S", "abondance 10 S", "abondance 11 S", "abondance 9 H",
             "grande-misere", "misere-etalee", "grand-chelem S", "petite-misere"]
    assert bid_couleur_family(auction_view(SPADES, legal, "couleur", None)).startswith("abondance")
    assert bid_couleur_family(auction_view(MISERE, legal, "couleur", None)) == "misere-etalee"
    assert bid_couleur_family(auction_view(SOLO, legal, "couleur", None)) == "propose S"
    assert bid_couleur_family(auction_view(WEAK, legal, "couleur", None)) == "pass"
    near_misere = [*MISERE[:-1], "AH"]
    assert bid_couleur_family(auction_view(near_misere, legal, "couleur", None)) == "petite-misere"


def test_belge_club_piccolo_needs_one_clear_winner_and_a_safe_rest() -> None:
    hand = [*MISERE[:-1], "AH"]
    assert bid_couleur_family(auction_view(hand, ["pass", "piccolo"], "belge-club", "2S")) == "piccolo"
    assert bid_couleur_family(auction_view(WEAK, ["pass", "piccolo"], "belge-club", "2S")) == "pass"


def test_trump_is_named_in_the_best_suit_and_the_misere_discard_is_the_most_dangerous_card() -> None:
    view = {"seat": 0, "phase": "trump", "hand": SPADES,
            "legal": ["trump H", "trump D", "trump C", "trump S"]}
    assert choose_trump(view) == "trump S"
    hand = [*MISERE[:-1], "AH"]
    view = {"seat": 0, "phase": "discard", "hand": hand, "legal": [f"discard {c}" for c in hand],
            "contract": {"declarers": [0]}}
    assert choose_discard(view) == "discard AH"


def test_heuristic_bot_is_registered_on_import() -> None:
    assert get_bot("heuristic").name == "heuristic"


@pytest.mark.parametrize("ruleset", RULESETS)
def test_every_rule_of_thumb_choice_is_legal_without_the_fallback(ruleset: str) -> None:
    """The bot's safety net (a fixed legal action) is never what decides in real deals."""
    bot = HeuristicBot()
    phases: set[str] = set()
    for point in iter_views(ruleset, 40, lineup=("heuristic", "random") * 2, prefix="legal"):
        view = point.view
        if len(view["legal"]) > 1:
            assert bot.choose(view) in view["legal"], (ruleset, view["phase"])
            phases.add(view["phase"])
    starts_with_auction = Deal.from_seed(ruleset, "probe", 0).phase == "auction"  # not so in `whist`
    assert ({"auction", "play"} if starts_with_auction else {"play"}) <= phases


def test_a_bare_accept_is_valued_at_the_level_it_stands_for() -> None:
    """After a petite misère only an emballage 12 outranks it: a modest support hand does not accept."""
    support = ["QD", "JD", "9D", "4D", "AC", "KC", "2C", "5S", "3S", "8H", "6H", "4H", "2H"]
    calls = [[3, "propose D"], [0, "petite-misere"]]
    legal = ["pass", "accept D", "accept D 13"]
    assert bid_couleur_family(auction_view(support, legal, "couleur", None, calls, seat=1)) == "pass"
    legal = ["pass", "accept D", *(f"accept D {level}" for level in range(9, 14))]
    view = auction_view(support, legal, "couleur", None, [[3, "propose D"]], seat=1)
    assert bid_couleur_family(view) == "accept D"
