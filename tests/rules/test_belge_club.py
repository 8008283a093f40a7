"""Belgian club rules (`belge-club`): docs/rules.md §3 and D10-D13, with what §3 inherits from §2 (D6-D8).

Dealer 3 throughout unless said otherwise: seat 0 is eldest, speech goes 0 1 2 3. The turn-up is the
dealer's last listed card.
"""

from __future__ import annotations

import copy

import pytest
from belgian_helpers import ROUND, club, passes, swap
from rules_helpers import SUIT_HANDS, assert_rejected, play_first_legal

from server.rules import Contract, Deal, HouseRuleError, IllegalAction, MalformedAction, Phase, get_ruleset

RULES = get_ruleset("belge-club")
TABLE = RULES.resolve_house_rules({})["score_table"]
#: Seat 2 holds the aces of spades, hearts and diamonds; seat 3 (the bouche-trou) the ace of clubs.
TROU = swap(("AS", "4S"), ("AH", "3H"))


# ---------------------------------------------------------------- deal, reference turn-up (D10)


def test_D10_dealer_last_card_turned_up_as_reference_trump_public_until_played() -> None:
    deal = Deal.from_seed("belge-club", "reference", dealer=2)
    assert deal.turn_up is not None and deal.turn_up in deal.hands[2]
    for seat in (0, 1, 3, None):
        view = deal.view(seat)
        assert view["turn_up"] == deal.turn_up and view["turn_up_in_hand"] is True
        assert view["auction"]["reference_trump"] == deal.turn_up[1]


def test_D10_reference_trump_is_nothing_more_than_shown() -> None:
    deal = club(hands=ROUND, turn_up="AC")  # clubs turned up: no call is made easier or forced by it
    assert deal.legal_actions(0)[:5] == ["pass", "propose S", "propose H", "propose D", "propose C"]
    for action in ("propose H", "accept H"):
        deal.apply(min(deal.to_act()), action)
    deal.apply(2, "pass")
    deal.apply(3, "pass")
    assert deal.contract is not None and deal.contract.trump == "H"


def test_deal_packets_4_4_5() -> None:
    assert RULES.packets == (4, 4, 5)


# ---------------------------------------------------------------- maintien


def test_maintien_once_then_automatic_pass_and_tour_de_passe() -> None:
    deal = club([(0, "propose D"), *passes(1, 2, 3)])
    legal = deal.legal_actions(0)
    assert "maintain" in legal and "renew" not in legal
    events = deal.apply(0, "maintain")
    assert {"type": "auto_pass", "seat": 0} in events  # still nobody accepts: he passes automatically
    assert deal.thrown_in and deal.result()["status"] == "thrown_in"


def test_maintien_renew_is_not_club_vocabulary() -> None:
    deal = club([(0, "propose D"), *passes(1, 2, 3)])
    assert_rejected(deal, 0, "renew", MalformedAction, "unknown action")


def test_maintien_automatic_pass_leaves_another_players_call_standing() -> None:
    deal = club(
        [
            (0, "propose S"),
            (1, "accept S"),
            (2, "propose H"),
            (3, "pass"),
            (1, "pass"),
            (2, "maintain"),
            (0, "solo 6 S"),
        ]
    )
    # seat 2's maintained proposal is still unaccepted when its turn comes back: automatic pass
    assert deal.contract is not None and (deal.contract.name, deal.contract.declarers) == ("solo 6", (0,))
    assert deal.auction.public_state()["passed"] == [1, 2, 3]


def test_maintien_only_while_the_proposal_is_still_the_highest_call() -> None:
    deal = club([(0, "propose D"), (1, "propose H"), *passes(2, 3)])
    assert_rejected(deal, 0, "maintain", IllegalAction, "still the highest call")


# ---------------------------------------------------------------- solo 6-8 after being engaged


def test_solo_never_as_a_first_call() -> None:
    deal = club(passes(0, 1, 2))
    assert not [a for a in deal.legal_actions(3) if a.startswith("solo")]
    assert_rejected(deal, 3, "solo 6 S", IllegalAction, "never a first call")


def test_solo_6_7_8_in_any_suit_after_proposing() -> None:
    deal = club([(0, "propose D"), *passes(1, 2, 3)])
    legal = deal.legal_actions(0)
    assert {f"solo {level} {suit}" for level in (6, 7, 8) for suit in "SHDC"} <= set(legal)
    assert_rejected(deal, 0, "solo 5 D", IllegalAction, "a solo is for 6 to 8 tricks")
    deal.apply(0, "solo 7 S")
    assert deal.contract is not None and (deal.contract.name, deal.contract.trump) == ("solo 7", "S")


def test_solo_after_accepting_when_the_team_speaker_passed_its_partner_any_suit() -> None:
    deal = club(
        [(0, "propose S"), (1, "accept S"), (2, "propose H"), (3, "pass"), (1, "pass"), (2, "maintain")]
    )
    legal = deal.legal_actions(0)
    assert "solo 6 C" in legal and "solo 6 S" in legal


#: Seat 0 proposes hearts, seat 1 accepts (emballage 8), seat 2 outbids with a petite misère, 3 passes.
OUTBID_TEAM = [(0, "propose H"), (1, "accept H"), (2, "petite-misere"), (3, "pass")]


def test_solo_after_accepting_the_outbid_speaker_may_go_alone_in_any_suit() -> None:
    """docs/rules.md §3 "must have proposed, maintained or accepted before": the acceptor may go solo."""
    deal = club(OUTBID_TEAM)
    legal = deal.legal_actions(1)
    assert {"pass", "raise 12", "raise 13"} <= set(legal)
    assert {f"solo 8 {suit}" for suit in "SHDC"} <= set(legal)  # only solo 8 ranks above petite misère
    assert not [action for action in legal if action.startswith(("solo 6", "solo 7"))]
    deal.apply(1, "solo 8 S")
    state = deal.view(None)["auction"]
    assert state["teams"] == [] and state["highest"]["call"] == "solo 8" and state["highest"]["seats"] == [1]


def test_solo_after_accepting_the_team_is_withdrawn_and_its_proposer_may_go_alone_or_pass() -> None:
    deal = club([*OUTBID_TEAM, (1, "solo 8 S"), (2, "pass")])
    assert deal.legal_actions(0) == ["pass", "solo 8 H", "solo 8 D", "solo 8 C"]  # bound: no misère
    deal.apply(0, "pass")
    assert deal.contract is not None
    assert (deal.contract.name, deal.contract.declarers, deal.contract.trump) == ("solo 8", (1,), "S")


def test_solo_after_accepting_is_a_house_rule_off_means_raise_or_pass_only() -> None:
    deal = club(OUTBID_TEAM, house_rules={"acceptor_may_solo": False})
    assert deal.legal_actions(1) == ["pass", "raise 12", "raise 13"]
    assert_rejected(deal, 1, "solo 8 S", IllegalAction, "may only raise it or pass")


def test_solo_after_accepting_must_rank_above_the_current_call() -> None:
    deal = club([(0, "propose H"), (1, "accept H"), (2, "grande-misere"), (3, "pass")])
    assert not [action for action in deal.legal_actions(1) if action.startswith("solo")]
    assert_rejected(deal, 1, "solo 8 H", IllegalAction, "must rank above the current call")
    assert_rejected(deal, 1, "abondance 9 H", IllegalAction, "raise it or pass, or go alone with a solo")


def test_club_ladder_emballage_9_below_solo_6_below_emballage_10() -> None:
    assert RULES.key("emballage", 9, "H") < RULES.key("solo", 6, "S") < RULES.key("emballage", 10, "S")
    deal = club([(0, "propose S"), (1, "propose H"), (2, "accept S"), (3, "pass")])
    assert deal.auction.public_state()["highest"]["call"] == "emballage 9"
    legal = deal.legal_actions(1)  # seat 1's hearts lapsed; it proposed, so it may play a solo 6
    assert "solo 6 H" in legal and "solo 6 C" in legal


# ---------------------------------------------------------------- piccolo and the four misères


def test_piccolo_between_petite_misere_and_emballage_12_no_trump_no_discard() -> None:
    deal = club([(0, "petite-misere")])
    assert "piccolo" in deal.legal_actions(1) and "petite-misere" in deal.legal_actions(1)
    deal.apply(1, "piccolo")
    assert "piccolo" not in deal.legal_actions(2)  # only a misère may be equalled
    deal.apply(2, "pass")
    deal.apply(3, "pass")
    deal.apply(0, "pass")
    assert deal.contract is not None
    assert (deal.contract.name, deal.contract.trump, deal.contract.discard, deal.contract.level) == (
        "piccolo",
        None,
        False,
        1,
    )
    assert deal.phase is Phase.PLAY and deal.trick is not None and deal.trick.leader == 0


def test_piccolo_D8_stops_when_the_declarer_takes_a_second_trick() -> None:
    deal = club([(0, "piccolo"), *passes(1, 2, 3)], hands=SUIT_HANDS)
    play_first_legal(deal)
    assert deal.result()["tricks_played"] == 2 and deal.result()["points"] == [-21, 14, 14, 14]


def test_piccolo_barred_to_bound_players_like_the_miseres() -> None:
    deal = club(
        [(0, "propose S"), (1, "accept S"), (2, "propose H"), (3, "pass"), (1, "pass"), (2, "maintain")]
    )
    assert_rejected(deal, 0, "piccolo", IllegalAction, "may no longer call a piccolo")


def test_four_miseres_ladder_and_equal_calls() -> None:
    deal = club([(0, "grande-misere")])
    legal = deal.legal_actions(1)
    assert {"grande-misere", "petite-misere-etalee", "grande-misere-etalee"} <= set(legal)
    assert "petite-misere" not in legal
    deal.apply(1, "petite-misere-etalee")
    deal.apply(2, "petite-misere-etalee")
    deal.apply(3, "pass")
    deal.apply(0, "pass")
    assert deal.contract is not None and deal.contract.declarers == (1, 2)
    assert deal.contract.discard and deal.contract.expose == "after_trick1"


def test_petite_misere_etalee_discard_then_exposed_after_trick_1() -> None:
    deal = club([(0, "pass"), (1, "petite-misere-etalee"), *passes(2, 3)], hands=SUIT_HANDS)
    for seat, card in ((0, "2S"), (1, "AH"), (2, "2D"), (3, "2C")):
        deal.apply(seat, f"discard {card}")
    assert deal.phase is Phase.PLAY and deal.view(0)["exposed"] == {}
    for seat in (0, 1, 2):
        deal.apply(seat, deal.legal_actions(seat)[0])
        assert deal.view(0)["exposed"] == {}
    events = deal.apply(3, deal.legal_actions(3)[0])
    assert any(event["type"] == "exposed" and event["seat"] == 1 for event in events)
    assert deal.view(2)["exposed"] == {"1": sorted(deal.hands[1], key=lambda c: -"23456789TJQKA".index(c[0]))}
    assert deal.view(None)["discards_made"] == [0, 1, 2, 3] and "discards" not in deal.view(None)


def test_grande_misere_etalee_not_exposed_before_trick_1() -> None:
    deal = club([(0, "pass"), (1, "grande-misere-etalee"), *passes(2, 3)], hands=SUIT_HANDS)
    assert deal.phase is Phase.PLAY and deal.view(2)["exposed"] == {} and not deal.contract.discard  # type: ignore[union-attr]
    play_first_legal(deal, until_tricks=1)
    assert list(deal.view(2)["exposed"]) == ["1"]


# ---------------------------------------------------------------- abondance 9-11, chelems


def test_abondance_9_to_11_only_first_turn_declarer_leads() -> None:
    deal = club()
    legal = deal.legal_actions(0)
    assert "abondance 11 H" in legal and not [a for a in legal if a.startswith("abondance 12")]
    assert_rejected(deal, 0, "abondance 12 H", IllegalAction, "an abondance is for 9 to 11 tricks")
    deal = club([(0, "propose S"), (1, "propose H"), *passes(2, 3)])
    assert_rejected(deal, 0, "abondance 9 S", IllegalAction, "abondance only on your first turn")
    deal = club([(0, "pass"), (1, "abondance 10 D"), *passes(2, 3)])
    assert deal.contract is not None and deal.contract.leader == 1 and deal.contract.trump == "D"


def test_chelems_with_or_without_trump_no_trump_ranks_higher_declarer_leads() -> None:
    deal = club([(0, "petit-chelem H")])
    legal = deal.legal_actions(1)
    assert "petit-chelem NT" in legal and "petit-chelem D" not in legal and "grand-chelem S" in legal
    deal.apply(1, "petit-chelem NT")
    assert "grand-chelem S" in deal.legal_actions(2)
    deal.apply(2, "grand-chelem NT")
    for seat in (3, 0, 1):
        deal.apply(seat, "pass")
    assert deal.contract is not None
    assert (deal.contract.name, deal.contract.trump, deal.contract.leader, deal.contract.level) == (
        "grand-chelem",
        None,
        2,
        13,
    )


def test_petit_chelem_first_turn_only_is_a_house_rule() -> None:
    calls = [(0, "propose S"), (1, "propose H"), *passes(2, 3)]
    assert_rejected(club(calls), 0, "petit-chelem S", IllegalAction, "only on your first turn")
    deal = club(calls, house_rules={"petit_chelem_first_turn_only": False})
    assert "petit-chelem S" in deal.legal_actions(0) and "grand-chelem S" not in deal.legal_actions(0)


# ---------------------------------------------------------------- the trou (D11, D12)


def test_D11_trou_exactly_three_aces_bouche_trou_answers_first() -> None:
    deal = club(hands=TROU)
    assert deal.announcements == [{"type": "trou", "seat": 2, "partner": 3, "trump": None, "royal": False}]
    assert deal.to_act() == {3}
    legal = deal.legal_actions(3)
    assert legal[:4] == ["trump S", "trump H", "trump D", "trump C"] and "pass" not in legal
    assert "abondance 9 S" in legal and "grande-misere" in legal and "grand-chelem NT" in legal
    assert not [a for a in legal if a.startswith(("propose", "solo", "piccolo", "petite-misere "))]
    assert_rejected(deal, 3, "pass", IllegalAction, "the bouche-trou answers the trou first")
    assert_rejected(deal, 3, "trump NT", IllegalAction, "names a suit")


def test_D12_bouche_trou_names_trump_team_needs_9_bouche_trou_leads() -> None:
    deal = club([(3, "trump D")], hands=TROU)
    assert deal.to_act() == {0}  # then the two others speak from eldest on
    deal.apply(0, "pass")
    deal.apply(1, "pass")
    assert deal.contract is not None
    contract = deal.contract
    assert (contract.name, contract.declarers, contract.trump, contract.level, contract.leader) == (
        "trou",
        (2, 3),
        "D",
        9,
        3,
    )
    assert contract.lead_card is None and len(deal.legal_actions(3)) == 13


def test_D12_after_the_bouche_trou_answers_the_two_others_speak_from_eldest_on() -> None:
    # Trou at seat 1, bouche-trou at seat 2, dealer 3: eldest (seat 0) speaks next, not seat 3.
    rotated = [TROU[(seat + 1) % 4] for seat in range(4)]
    for answer in ("trump D", "abondance 9 S"):
        deal = club([(2, answer)], hands=rotated)
        assert deal.announcements[0]["seat"] == 1 and deal.announcements[0]["partner"] == 2
        assert deal.to_act() == {0}
        deal.apply(0, "pass")
        assert deal.to_act() == {3}  # seats 1 and 2 stay silent
        deal.apply(3, "pass")
        expected = (1, 2) if answer == "trump D" else (2,)
        assert deal.contract is not None and deal.contract.declarers == expected


def test_D11_abondance_9_beats_the_trou() -> None:
    deal = club([(3, "trump D")], hands=TROU)
    legal = deal.legal_actions(0)
    assert "abondance 9 S" in legal and "pass" in legal
    assert not [a for a in legal if a.startswith(("propose", "solo", "piccolo"))]
    deal.apply(0, "abondance 9 S")
    deal.apply(1, "pass")
    assert deal.contract is not None and (deal.contract.name, deal.contract.declarers) == (
        "abondance 9",
        (0,),
    )


def test_D11_bouche_trou_refuses_by_calling_alone_above_trou_it_stands_as_an_ordinary_call() -> None:
    deal = club([(3, "abondance 10 C")], hands=TROU)
    assert deal.auction.public_state()["highest"]["call"] == "abondance 10"
    assert deal.to_act() == {0}
    assert "abondance 9 H" not in deal.legal_actions(0) and "abondance 11 S" in deal.legal_actions(0)
    deal.apply(0, "pass")
    deal.apply(1, "pass")
    assert deal.contract is not None
    assert (deal.contract.name, deal.contract.declarers, deal.contract.leader) == ("abondance 10", (3,), 3)


def test_D11_refusal_by_a_misere_may_be_equalled_the_trou_holder_stays_silent() -> None:
    deal = club([(3, "grande-misere")], hands=TROU)  # the bouche-trou refuses with a grande misère
    assert "grande-misere" in deal.legal_actions(0)  # an ordinary call: a misère may be equalled
    deal.apply(0, "grande-misere")
    deal.apply(1, "pass")  # seat 2, the trou holder, never speaks
    assert deal.contract is not None
    contract = deal.contract
    assert (contract.name, contract.declarers, contract.trump) == ("grande-misere", (0, 3), None)
    assert deal.auction.public_state()["trou"]["refused"] is True


def test_D11_four_aces_is_no_trou_in_the_club() -> None:
    deal = club(hands=swap(("AS", "4S"), ("AH", "3H"), ("AC", "5C")))
    assert deal.announcements == [] and deal.to_act() == {0}


# ---------------------------------------------------------------- scoring (004 "Barème", D13)


def alone(
    name: str, kind: str, level: int, declarers: tuple[int, ...] = (1,), exact: bool = False
) -> Contract:
    return Contract(name, kind, declarers, level, None, extra={"exact": True} if exact else {})


@pytest.mark.parametrize(
    ("name", "kind", "level", "exact", "made", "failed"),
    [
        # (name, kind, level, exact, (taker, each defender) made, (taker, each defender) failed)
        ("solo 6", "solo", 6, False, (12, -8), (-12, 8)),
        ("solo 7", "solo", 7, False, (18, -12), (-18, 12)),
        ("solo 8", "solo", 8, False, (24, -16), (-24, 16)),
        ("petite-misere", "petite-misere", 0, True, (18, -12), (-18, 12)),
        ("piccolo", "piccolo", 1, True, (21, -14), (-21, 14)),
        ("abondance 9", "abondance", 9, False, (30, -20), (-30, 20)),
        ("grande-misere", "grande-misere", 0, True, (36, -24), (-36, 24)),
        ("petite-misere-etalee", "petite-misere-etalee", 0, True, (39, -26), (-39, 26)),
        ("abondance 10", "abondance", 10, False, (42, -28), (-42, 28)),
        ("abondance 11", "abondance", 11, False, (60, -40), (-60, 40)),
        ("grande-misere-etalee", "grande-misere-etalee", 0, True, (80, -53), (-80, 53)),
        ("petit-chelem", "petit-chelem", 12, False, (120, -80), (-120, 80)),
        ("grand-chelem", "grand-chelem", 13, False, (200, -133), (-200, 133)),
    ],
)
def test_D13_scoring_every_contract_played_alone(
    name: str, kind: str, level: int, exact: bool, made: tuple[int, int], failed: tuple[int, int]
) -> None:
    contract = alone(name, kind, level, exact=exact)
    made_tricks = [0, level, 13 - level, 0]
    failed_tricks = [0, level + 1, 12 - level, 0] if exact else [0, level - 1, 14 - level, 0]
    taker, defender = made
    assert RULES.score(contract, made_tricks, {"score_table": TABLE}) == [defender, taker, defender, defender]
    taker, defender = failed
    assert RULES.score(contract, failed_tricks, {"score_table": TABLE}) == [
        defender,
        taker,
        defender,
        defender,
    ]


def test_D13_source_figures_are_the_takers_and_defenders_on_failure() -> None:
    # 004 "Barème des points": taker's figure, and on failure each defender's figure
    source = {
        "solo 6": (12, 8),
        "petite-misere": (18, 12),
        "piccolo": (21, 14),
        "solo 8": (24, 16),
        "abondance 9": (30, 20),
        "grande-misere": (36, 24),
    }
    for row, (taker, defender) in source.items():
        assert TABLE[row]["taker_made"] == taker and TABLE[row]["taker_failed"] == -taker
        assert (
            TABLE[row]["defender_failed"] == defender and "defender_failed" not in TABLE[row]["not_in_source"]
        )
    for row, taker in {
        "abondance 10": 42,
        "abondance 11": 60,
        "grande-misere-etalee": 80,
        "petit-chelem": 120,
        "grand-chelem": 200,
    }.items():
        assert TABLE[row]["taker_made"] == taker


def test_D13_every_gap_is_marked_not_in_source() -> None:
    assert set(TABLE["solo 7"]["not_in_source"]) == {
        "taker_made",
        "taker_failed",
        "defender_made",
        "defender_failed",
    }
    assert set(TABLE["petite-misere-etalee"]["not_in_source"]) == set(TABLE["solo 7"]["not_in_source"])
    assert "member_failed" in TABLE["emballage"]["not_in_source"]
    assert TABLE["trou"]["not_in_source"] == ["defender_failed"]
    for row in TABLE.values():
        assert "defender_made" in row["not_in_source"] or row is TABLE["trou"]


@pytest.mark.parametrize(("taken", "member"), [(8, 8), (9, 11), (10, 14), (11, 17), (12, 20), (13, 26)])
def test_scoring_emballage_by_tricks_made_per_team_member(taken: int, member: int) -> None:
    contract = Contract("emballage 8", "emballage", (0, 2), 8, "H", team=True)
    assert RULES.score(contract, [taken, 13 - taken, 0, 0], {"score_table": TABLE}) == [
        member,
        -member,
        member,
        -member,
    ]


def test_D13_scoring_failed_emballage_mirrors_the_bid_level() -> None:
    contract = Contract("emballage 10", "emballage", (0, 2), 10, "H", team=True)
    assert RULES.score(contract, [9, 4, 0, 0], {"score_table": TABLE}) == [-14, 14, -14, 14]


@pytest.mark.parametrize(
    ("taken", "points"),
    [(9, [13, 0, 13, 0]), (12, [13, 0, 13, 0]), (13, [26, 0, 26, 0]), (8, [0, 13, 0, 13])],
)
def test_scoring_trou_13_per_member_26_with_all_tricks_never_negative(taken: int, points: list[int]) -> None:
    contract = Contract("trou", "trou", (0, 2), 9, "D", leader=2, team=True)
    assert RULES.score(contract, [taken, 13 - taken, 0, 0], {"score_table": TABLE}) == points


def test_scoring_several_misere_declarers_each_on_his_own() -> None:
    contract = alone("grande-misere", "grande-misere", 0, declarers=(1, 2), exact=True)
    # seat 1 makes it (+36, each other -24), seat 2 fails (-36, each other +24)
    assert RULES.score(contract, [10, 0, 3, 0], {"score_table": TABLE}) == [0, 60, -60, 0]


def test_D13_a_room_replaces_the_whole_table() -> None:
    table = copy.deepcopy(TABLE)
    table["piccolo"] = {"taker_made": 30, "taker_failed": -30, "defender_made": -10, "defender_failed": 10}
    deal = club([(0, "piccolo"), *passes(1, 2, 3)], hands=SUIT_HANDS, house_rules={"score_table": table})
    play_first_legal(deal)
    assert deal.result()["points"] == [-30, 10, 10, 10]
    assert deal.to_record()["house_rules"] == {"score_table": table}


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda t: t.pop("solo 7"), "missing ['solo 7']"),
        (lambda t: t.update({"solo 5": t["solo 6"]}), "unknown ['solo 5']"),
        (lambda t: t["piccolo"].pop("defender_made"), "row 'piccolo' must have the figures"),
        (lambda t: t["piccolo"].update({"taker_made": 2.5}), "must be a whole number"),
        (lambda t: t["emballage"]["member_made"].pop("13"), "emballage 'member_made' needs a whole number"),
    ],
)
def test_D13_a_replacement_table_is_validated(change: object, message: str) -> None:
    table = copy.deepcopy(TABLE)
    change(table)  # type: ignore[operator]
    with pytest.raises(HouseRuleError, match=message.replace("[", r"\[").replace("]", r"\]")):
        RULES.resolve_house_rules({"score_table": table})
    with pytest.raises(HouseRuleError):
        RULES.resolve_house_rules({"score_table": "flat"})
