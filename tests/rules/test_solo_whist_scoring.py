"""Solo Whist scoring (docs/rules.md §1 "Scoring"), the stake multiplier, the house rules `overtricks` and
`stakes_table`, and the early end of play (D5).

Most deals here use SUIT_HANDS: seat 0 holds the spades, 1 the hearts, 2 the diamonds, 3 the clubs.
The dealer is 3 and the turn-up 2C, so clubs are trump for Prop and Cop, Solo and Royal Abundance.
Nobody can ever follow suit, so a trick goes to the leader unless a trump is played: each outcome
below can be checked by hand.
"""

from __future__ import annotations

from typing import Any

import pytest
from rules_helpers import SUIT_HANDS, play_first_legal

from server.rules import Deal, IllegalAction, get_ruleset


def suit_deal(
    calls: list[tuple[int, str]], house_rules: dict[str, Any] | None = None, multiplier: int = 1
) -> Deal:
    """SUIT_HANDS, dealer 3 (eldest 0 leads), turn-up 2C; `calls` applied, then played out."""
    deal = Deal("solo-whist", SUIT_HANDS, dealer=3, turn_up="2C", house_rules=house_rules or {},
                multiplier=multiplier)
    for seat, action in calls:
        deal.apply(seat, action)
    play_first_legal(deal)
    return deal


PASSES = {seat: (seat, "pass") for seat in range(4)}


def solo_call(declarer: int, call: str, trump: str | None = None) -> list[tuple[int, str]]:
    """`declarer` makes `call`, the others pass; then trump is named when given."""
    calls = [(declarer, call) if seat == declarer else PASSES[seat] for seat in range(4)]
    return calls + ([(declarer, f"trump {trump}")] if trump else [])


def outcome(deal: Deal) -> tuple[str, list[int], list[int], int]:
    result = deal.result()
    assert result["status"] == "complete"
    assert sum(result["points"]) == 0  # payments go between players
    return result["contract"], result["tricks"], result["points"], result["tricks_played"]


# ---------------------------------------------------------------- one test per scoring row


def test_scoring_prop_cop_made_each_defender_pays_each_partner_1() -> None:
    # Seat 3 trumps the first spade, then leads clubs: the partners 0 and 3 take 8 tricks and play stops.
    deal = suit_deal([(0, "prop"), (1, "pass"), (2, "pass"), (3, "cop")])
    assert outcome(deal) == ("prop-cop", [0, 0, 0, 8], [2, -2, -2, 2], 8)
    assert deal.result()["declarers"] == [0, 3]


def test_scoring_prop_cop_failed_each_partner_pays_each_defender_1() -> None:
    deal = suit_deal([(0, "pass"), (1, "prop"), (2, "cop"), (3, "pass")])
    # Defender 3 takes every trick: at 6 the partners can no longer reach 8 (D5).
    assert outcome(deal) == ("prop-cop", [0, 0, 0, 6], [2, -2, -2, 2], 6)


def test_scoring_solo_made_each_defender_pays_3() -> None:
    assert outcome(suit_deal(solo_call(3, "solo"))) == ("solo", [0, 0, 0, 5], [-3, -3, -3, 9], 5)


def test_scoring_solo_failed_declarer_pays_each_defender_3() -> None:
    assert outcome(suit_deal(solo_call(0, "solo"))) == ("solo", [0, 0, 0, 9], [-9, 3, 3, 3], 9)


def test_scoring_misere_made_each_defender_pays_3() -> None:
    # Eldest 0 leads spades all deal; seat 1 discards hearts and never wins a trick.
    assert outcome(suit_deal(solo_call(1, "misere"))) == ("misere", [13, 0, 0, 0], [-3, 9, -3, -3], 13)


def test_scoring_misere_failed_declarer_pays_each_defender_3() -> None:
    assert outcome(suit_deal(solo_call(0, "misere"))) == ("misere", [1, 0, 0, 0], [-9, 3, 3, 3], 1)


def test_scoring_abundance_made_each_defender_pays_5() -> None:
    # Seat 1 names hearts: it trumps eldest's spade lead, then leads hearts.
    deal = suit_deal(solo_call(1, "abundance", "H"))
    assert outcome(deal) == ("abundance", [0, 9, 0, 0], [-5, 15, -5, -5], 9)
    assert deal.result()["trump"] == "H"


def test_scoring_abundance_failed_declarer_pays_each_defender_5() -> None:
    # Seat 2 names hearts, which seat 1 holds: seat 1 trumps the first spade, then leads hearts and
    # takes every trick; at 5 defending tricks the 9 can no longer be reached.
    deal = suit_deal(solo_call(2, "abundance", "H"))
    assert outcome(deal) == ("abundance", [0, 5, 0, 0], [5, 5, -15, 5], 5)


def test_scoring_royal_abundance_made_each_defender_pays_5() -> None:
    assert outcome(suit_deal(solo_call(3, "royal-abundance"))) == (
        "royal-abundance", [0, 0, 0, 9], [-5, -5, -5, 15], 9)


def test_scoring_royal_abundance_failed_declarer_pays_each_defender_5() -> None:
    assert outcome(suit_deal(solo_call(2, "royal-abundance"))) == (
        "royal-abundance", [0, 0, 0, 5], [5, 5, -15, 5], 5)


def test_scoring_spread_misere_made_each_defender_pays_6() -> None:
    deal = suit_deal(solo_call(2, "spread-misere"))
    assert outcome(deal) == ("spread-misere", [13, 0, 0, 0], [-6, -6, 18, -6], 13)
    assert deal.exposed == [2]


def test_scoring_spread_misere_failed_declarer_pays_each_defender_6() -> None:
    assert outcome(suit_deal(solo_call(0, "spread-misere"))) == (
        "spread-misere", [1, 0, 0, 0], [-18, 6, 6, 6], 1)


def test_scoring_abundance_declared_made_each_defender_pays_8() -> None:
    # Seat 2 is not eldest, yet it leads (declarer leads) and takes all 13 with diamonds trump.
    deal = suit_deal(solo_call(2, "abundance-declared", "D"))
    assert outcome(deal) == ("abundance-declared", [0, 0, 13, 0], [-8, -8, 24, -8], 13)
    assert deal.tricks[0].leader == 2


def test_scoring_abundance_declared_failed_declarer_pays_each_defender_8() -> None:
    # Seat 2 names spades: its diamond lead is trumped by seat 0 at once (D5: play stops).
    deal = suit_deal(solo_call(2, "abundance-declared", "S"))
    assert outcome(deal) == ("abundance-declared", [1, 0, 0, 0], [8, 8, -24, 8], 1)


# ---------------------------------------------------------------- stakes and multipliers


@pytest.mark.parametrize(("call", "traditional"), [
    ("prop-cop", 1), ("solo", 1), ("misere", 2), ("abundance", 3), ("royal-abundance", 3),
    ("spread-misere", 4), ("abundance-declared", 6),
])
def test_house_rule_stakes_table_traditional(call: str, traditional: int) -> None:
    rules = get_ruleset("solo-whist")
    spec = rules.call(call)  # type: ignore[attr-defined]
    assert spec.traditional_stake == traditional
    seed_stakes = {"prop-cop": 1, "solo": 3, "misere": 3, "abundance": 5, "royal-abundance": 5,
                   "spread-misere": 6, "abundance-declared": 8}
    assert spec.stake == seed_stakes[call]


def test_house_rule_stakes_table_traditional_in_play() -> None:
    deal = suit_deal(solo_call(3, "solo"), {"stakes_table": "traditional"})
    assert outcome(deal)[2] == [-1, -1, -1, 3]
    deal = suit_deal(solo_call(2, "abundance-declared", "D"), {"stakes_table": "traditional"})
    assert outcome(deal)[2] == [-6, -6, 18, -6]


def test_stake_multiplier_house_rule_multiplies_every_payment() -> None:
    deal = suit_deal(solo_call(1, "misere"), {"stake_multiplier": 5})
    assert outcome(deal)[2] == [-15, 45, -15, -15]


def test_deal_multiplier_multiplies_the_points() -> None:
    calls = [(0, "prop"), (1, "pass"), (2, "pass"), (3, "cop")]
    deal = suit_deal(calls, {"stake_multiplier": 3}, multiplier=2)
    assert outcome(deal)[2] == [12, -12, -12, 12]
    assert deal.to_record()["multiplier"] == 2


# ---------------------------------------------------------------- overtricks


def test_house_rule_overtricks_solo_made_plays_all_13_and_pays_per_extra_trick() -> None:
    deal = suit_deal(solo_call(3, "solo"), {"overtricks": True})
    assert outcome(deal) == ("solo", [0, 0, 0, 13], [-11, -11, -11, 33], 13)


def test_house_rule_overtricks_solo_failed_pays_per_missing_trick() -> None:
    deal = suit_deal(solo_call(0, "solo"), {"overtricks": True})
    assert outcome(deal) == ("solo", [0, 0, 0, 13], [-24, 8, 8, 8], 13)


def test_house_rule_overtricks_prop_cop_per_defender_per_partner() -> None:
    deal = suit_deal([(0, "prop"), (1, "pass"), (2, "pass"), (3, "cop")], {"overtricks": True})
    # 13 tricks, 5 above 8: each defender pays each partner 1 + 5.
    assert outcome(deal) == ("prop-cop", [0, 0, 0, 13], [12, -12, -12, 12], 13)


def test_house_rule_overtricks_abundance_and_royal_abundance() -> None:
    deal = suit_deal(solo_call(1, "abundance", "H"), {"overtricks": True})
    assert outcome(deal) == ("abundance", [0, 13, 0, 0], [-9, 27, -9, -9], 13)
    deal = suit_deal(solo_call(2, "royal-abundance"), {"overtricks": True})
    # Seat 2 takes no trick: 9 short, 5 + 9 per defender.
    assert outcome(deal) == ("royal-abundance", [0, 0, 0, 13], [14, 14, -42, 14], 13)


def test_house_rule_overtricks_do_not_apply_to_misere_or_abundance_declared() -> None:
    deal = suit_deal(solo_call(0, "misere"), {"overtricks": True})
    assert outcome(deal) == ("misere", [1, 0, 0, 0], [-9, 3, 3, 3], 1)
    deal = suit_deal(solo_call(2, "abundance-declared", "D"), {"overtricks": True})
    assert outcome(deal)[2] == [-8, -8, 24, -8]


def test_score_arithmetic_with_partial_trick_counts() -> None:
    """The scoring hook itself, for trick splits a played deal above does not reach."""
    rules = get_ruleset("solo-whist")
    deal = Deal.from_seed("solo-whist", "score", 3)
    for seat, action in [(0, "prop"), (1, "cop"), (2, "pass"), (3, "pass")]:
        deal.apply(seat, action)
    assert deal.contract is not None
    defaults = deal.house_rules
    assert rules.score(deal.contract, [4, 4, 3, 2], defaults) == [2, 2, -2, -2]
    assert rules.score(deal.contract, [4, 3, 3, 3], defaults) == [-2, -2, 2, 2]
    overtricks = {**defaults, "overtricks": True}
    assert rules.score(deal.contract, [5, 5, 2, 1], overtricks) == [6, 6, -6, -6]
    assert rules.score(deal.contract, [3, 2, 4, 4], overtricks) == [-8, -8, 8, 8]


# ---------------------------------------------------------------- early end (D5)


def test_D5_misere_stops_when_declarer_takes_a_trick() -> None:
    deal = suit_deal(solo_call(0, "misere"))
    assert deal.finished and len(deal.tricks) == 1
    with pytest.raises(IllegalAction, match="the deal is over"):
        deal.apply(0, "play KS")


def test_D5_abundance_declared_stops_when_declarer_loses_a_trick() -> None:
    deal = suit_deal(solo_call(2, "abundance-declared", "S"))
    assert deal.finished and deal.result()["tricks_played"] == 1


def test_D5_stops_when_target_reached() -> None:
    deal = suit_deal(solo_call(3, "royal-abundance"))
    assert deal.result()["tricks_played"] == 9 and deal.result()["tricks"][3] == 9


def test_D5_stops_when_target_can_no_longer_be_reached() -> None:
    deal = suit_deal(solo_call(0, "solo"))
    assert deal.result()["tricks_played"] == 9 and deal.result()["tricks"][0] == 0


def test_D5_overtricks_play_all_13_tricks() -> None:
    for calls in (solo_call(3, "solo"), solo_call(0, "solo"), solo_call(3, "royal-abundance")):
        assert suit_deal(calls, {"overtricks": True}).result()["tricks_played"] == 13


def test_D5_in_progress_reports_figures_so_far() -> None:
    deal = Deal("solo-whist", SUIT_HANDS, dealer=3, turn_up="2C")
    for seat, action in solo_call(3, "solo"):
        deal.apply(seat, action)
    play_first_legal(deal, until_tricks=3)
    assert deal.result() == {"status": "in_progress", "contract": "solo", "declarers": [3], "trump": "C",
                             "tricks": [0, 0, 0, 3], "points": [0, 0, 0, 0], "tricks_played": 3}
