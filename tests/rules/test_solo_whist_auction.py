"""Solo Whist auction, trump naming and lead rules: docs/rules.md §1 "Auction" and "Play", D2, D3, D4.

Dealer 3 throughout unless said otherwise, so seat 0 is eldest and the order of speech is 0 1 2 3.
"""

from __future__ import annotations

import pytest
from rules_helpers import SUIT_HANDS, assert_rejected, calls_deal

from server.rules import Deal, IllegalAction, MalformedAction, Phase

ALL_CALLS = ["prop", "solo", "misere", "abundance", "royal-abundance", "spread-misere", "abundance-declared"]


# ---------------------------------------------------------------- order of speech


def test_auction_eldest_speaks_first_then_clockwise() -> None:
    deal = calls_deal([], dealer=1)
    assert deal.eldest == 2
    assert deal.to_act() == {2}
    assert deal.legal_actions(2) == ["pass", *ALL_CALLS]
    assert [deal.legal_actions(seat) for seat in (0, 1, 3)] == [[], [], []]
    assert_rejected(deal, 3, "solo", IllegalAction, "not your turn")
    for expected_next in (3, 0, 1):
        deal.apply(min(deal.to_act()), "pass")
        assert deal.to_act() == {expected_next}


# ---------------------------------------------------------------- Prop and Cop


def test_auction_prop_legal_while_no_call_has_been_made_passes_allowed() -> None:
    deal = calls_deal([(0, "pass"), (1, "pass")])
    assert "prop" in deal.legal_actions(2)
    deal.apply(2, "prop")
    assert deal.auction.public_state()["proposer"] == 2


def test_auction_prop_illegal_once_a_call_has_been_made() -> None:
    deal = calls_deal([(0, "solo")])
    assert "prop" not in deal.legal_actions(1)
    assert_rejected(deal, 1, "prop", IllegalAction, "prop is legal only while no call has been made")
    deal = calls_deal([(0, "prop")])
    assert "prop" not in deal.legal_actions(1)
    assert_rejected(deal, 1, "prop", IllegalAction, "prop is legal only while no call has been made")


def test_auction_cop_illegal_without_a_prop() -> None:
    deal = calls_deal([(0, "pass")])
    assert "cop" not in deal.legal_actions(1)
    assert_rejected(deal, 1, "cop", IllegalAction, "cop is legal only while a prop stands uncopped")


def test_auction_cop_legal_while_prop_stands_uncopped() -> None:
    deal = calls_deal([(0, "prop"), (1, "pass")])
    assert deal.legal_actions(2) == ["pass", "cop", *ALL_CALLS[1:]]
    deal.apply(2, "cop")
    assert deal.auction.public_state()["holders"] == [0, 2]


def test_auction_cop_illegal_once_the_prop_is_copped() -> None:
    deal = calls_deal([(0, "prop"), (1, "cop")])
    assert "cop" not in deal.legal_actions(2)
    assert_rejected(deal, 2, "cop", IllegalAction, "cop is legal only while a prop stands uncopped")


def test_auction_cop_illegal_once_something_higher_is_called() -> None:
    deal = calls_deal([(0, "prop"), (1, "solo")])
    assert "cop" not in deal.legal_actions(2)
    assert_rejected(deal, 2, "cop", IllegalAction, "nothing higher has been called")


def test_auction_after_cop_next_call_must_be_solo_or_higher() -> None:
    deal = calls_deal([(0, "prop"), (1, "cop")])
    assert deal.legal_actions(2) == ["pass", *ALL_CALLS[1:]]
    deal.apply(2, "solo")
    assert deal.auction.public_state()["highest"] == "solo"
    assert deal.auction.public_state()["holders"] == [2]


def test_auction_call_must_be_higher_than_the_current_call() -> None:
    deal = calls_deal([(0, "misere")])
    assert deal.legal_actions(1) == ["pass", *ALL_CALLS[3:]]
    assert_rejected(deal, 1, "solo", IllegalAction, "higher than the current call (misere)")
    assert_rejected(deal, 1, "misere", IllegalAction, "higher than the current call (misere)")


def test_auction_overcalled_players_may_call_again_in_turn() -> None:
    deal = calls_deal([(0, "prop"), (1, "cop"), (2, "solo"), (3, "pass")])
    # The prop and cop holders have not passed: each may still bid above the solo.
    assert deal.to_act() == {0}
    assert deal.legal_actions(0)[:2] == ["pass", "misere"]
    deal.apply(0, "misere")
    assert deal.to_act() == {1}
    deal.apply(1, "pass")
    assert deal.to_act() == {2}  # seat 3 has passed and is skipped after seat 2
    deal.apply(2, "pass")
    assert deal.phase is Phase.PLAY
    assert deal.contract is not None and deal.contract.name == "misere" and deal.contract.declarers == (0,)


def test_auction_ends_when_every_other_player_has_passed_both_partners_hold_prop_cop() -> None:
    deal = calls_deal([(0, "prop"), (1, "pass"), (2, "cop"), (3, "pass")])
    assert deal.phase is Phase.PLAY
    assert deal.contract is not None
    assert deal.contract.name == "prop-cop" and deal.contract.declarers == (0, 2) and deal.contract.team
    assert deal.result()["declarers"] == [0, 2]


def test_auction_ends_with_a_solo_call_held_alone() -> None:
    deal = calls_deal([(0, "pass"), (1, "solo"), (2, "pass"), (3, "pass")])
    assert deal.contract is not None and deal.contract.declarers == (1,) and not deal.contract.team


def test_D2_passing_is_final_by_default() -> None:
    deal = calls_deal([(0, "pass"), (1, "prop"), (2, "pass"), (3, "pass")])
    # Eldest passed: no second chance; the prop stands alone and the deal is thrown in (D4).
    assert deal.finished and deal.thrown_in
    deal = calls_deal([(0, "pass"), (1, "solo"), (2, "pass")])
    assert deal.to_act() == {3}
    deal.apply(3, "misere")
    assert deal.to_act() == {1}  # seats 0 and 2 have passed and are skipped
    assert_rejected(deal, 0, "abundance", IllegalAction, "not your turn")


def test_D2_eldest_may_cop_after_pass() -> None:
    rules = {"eldest_may_cop_after_pass": True}
    deal = calls_deal([(0, "pass"), (1, "prop"), (2, "pass"), (3, "pass")], house_rules=rules)
    assert deal.to_act() == {0}
    assert deal.legal_actions(0) == ["pass", "cop"]
    assert_rejected(deal, 0, "solo", IllegalAction, "passing is final")
    deal.apply(0, "cop")
    assert deal.contract is not None
    assert deal.contract.name == "prop-cop" and deal.contract.declarers == (0, 1)


def test_D2_eldest_may_decline_the_second_chance_then_thrown_in() -> None:
    rules = {"eldest_may_cop_after_pass": True}
    deal = calls_deal([(0, "pass"), (1, "prop"), (2, "pass"), (3, "pass"), (0, "pass")], house_rules=rules)
    assert deal.thrown_in and deal.result()["status"] == "thrown_in"


def test_D2_second_chance_is_eldests_only_and_only_against_an_uncopped_prop() -> None:
    rules = {"eldest_may_cop_after_pass": True}
    # Seat 1 passes before seat 2 props: seat 1 is not eldest, so passing stays final for it.
    deal = calls_deal([(0, "pass"), (1, "pass"), (2, "prop"), (3, "pass")], house_rules=rules)
    assert deal.to_act() == {0}
    deal.apply(0, "pass")
    assert deal.thrown_in
    # A prop that was copped leaves eldest no chance.
    deal = calls_deal([(0, "pass"), (1, "prop"), (2, "cop"), (3, "pass")], house_rules=rules)
    assert deal.phase is Phase.PLAY and deal.contract is not None and deal.contract.declarers == (1, 2)


def test_D4_prop_without_cop_is_thrown_in() -> None:
    deal = calls_deal([(0, "prop"), (1, "pass"), (2, "pass"), (3, "pass")])
    assert deal.finished and deal.thrown_in
    assert deal.result() == {"status": "thrown_in", "contract": None, "declarers": [], "trump": None,
                             "tricks": [0, 0, 0, 0], "points": [0, 0, 0, 0], "tricks_played": 0}


def test_D4_all_pass_is_thrown_in() -> None:
    deal = calls_deal([(0, "pass"), (1, "pass"), (2, "pass"), (3, "pass")])
    assert deal.finished and deal.thrown_in and deal.result()["status"] == "thrown_in"
    assert_rejected(deal, 0, "pass", IllegalAction, "the deal is over")


def test_D4_prop_may_upgrade_to_solo_or_higher() -> None:
    rules = {"prop_may_upgrade": True}
    deal = calls_deal([(0, "pass"), (1, "prop"), (2, "pass"), (3, "pass")], house_rules=rules)
    assert deal.to_act() == {1}
    assert deal.legal_actions(1) == ["pass", *ALL_CALLS[1:]]
    assert_rejected(deal, 1, "cop", IllegalAction, "cannot cop their own prop")
    deal.apply(1, "solo")
    assert deal.contract is not None and deal.contract.name == "solo" and deal.contract.declarers == (1,)


def test_D4_prop_may_upgrade_proposer_may_still_pass_and_throw_in() -> None:
    rules = {"prop_may_upgrade": True}
    deal = calls_deal([(0, "prop"), (1, "pass"), (2, "pass"), (3, "pass"), (0, "pass")], house_rules=rules)
    assert deal.thrown_in


def test_D2_and_D4_together_eldest_chance_comes_first() -> None:
    rules = {"prop_may_upgrade": True, "eldest_may_cop_after_pass": True}
    deal = calls_deal([(0, "pass"), (1, "prop"), (2, "pass"), (3, "pass")], house_rules=rules)
    assert deal.to_act() == {0}
    deal.apply(0, "pass")
    assert deal.to_act() == {1}
    deal.apply(1, "abundance")
    assert deal.phase is Phase.TRUMP and deal.to_act() == {1}


# ---------------------------------------------------------------- trump (D3) and turn-up


def test_turn_up_is_trump_for_prop_cop_solo_and_royal_abundance() -> None:
    for calls in ([(0, "prop"), (1, "cop"), (2, "pass"), (3, "pass")],
                  [(0, "solo"), (1, "pass"), (2, "pass"), (3, "pass")],
                  [(0, "royal-abundance"), (1, "pass"), (2, "pass"), (3, "pass")]):
        deal = calls_deal(calls)
        assert deal.turn_up is not None and deal.turn_up in deal.dealt[3]
        assert deal.contract is not None and deal.contract.trump == deal.turn_up[1]
        assert deal.phase is Phase.PLAY


def test_misere_contracts_have_no_trump() -> None:
    for call in ("misere", "spread-misere"):
        deal = calls_deal([(0, call), (1, "pass"), (2, "pass"), (3, "pass")])
        assert deal.contract is not None and deal.contract.trump is None and deal.phase is Phase.PLAY
        assert deal.result()["trump"] is None


def test_D3_abundance_trump_named_after_the_auction_not_the_turn_up_suit() -> None:
    deal = calls_deal([(0, "abundance"), (1, "pass")])
    # During the auction naming trump is not an action.
    assert_rejected(deal, 2, "trump H", IllegalAction, "D3")
    deal.apply(2, "pass")
    deal.apply(3, "pass")
    assert deal.phase is Phase.TRUMP and deal.to_act() == {0}
    assert deal.turn_up is not None
    turn_up_suit = deal.turn_up[1]
    others = [s for s in "SHDC" if s != turn_up_suit]
    assert deal.legal_actions(0) == [f"trump {s}" for s in others]
    assert_rejected(deal, 0, f"trump {turn_up_suit}", IllegalAction, "cannot name")
    assert_rejected(deal, 0, "trump NT", IllegalAction, "cannot name no trump")
    assert_rejected(deal, 0, "pass", IllegalAction, "trump must be named first")
    assert_rejected(deal, 1, f"trump {others[0]}", IllegalAction, "not your turn")
    events = deal.apply(0, f"trump {others[0]}")
    assert {"type": "trump", "seat": 0, "trump": others[0]} in events
    assert deal.contract is not None and deal.contract.trump == others[0] and deal.phase is Phase.PLAY
    assert deal.calls[-1] == (0, f"trump {others[0]}")


def test_D3_abundance_declared_declarer_names_any_suit() -> None:
    deal = calls_deal([(0, "pass"), (1, "abundance-declared"), (2, "pass"), (3, "pass")])
    assert deal.phase is Phase.TRUMP and deal.to_act() == {1}
    assert deal.legal_actions(1) == ["trump S", "trump H", "trump D", "trump C"]
    assert deal.turn_up is not None
    deal.apply(1, f"trump {deal.turn_up[1]}")
    assert deal.contract is not None and deal.contract.trump == deal.turn_up[1]


# ---------------------------------------------------------------- lead rules


def test_lead_eldest_leads_trick_1() -> None:
    for call in ("prop", "solo", "misere", "abundance", "royal-abundance", "spread-misere"):
        calls = [(2, call), (3, "pass"), (0, "pass"), (1, "pass")]
        if call == "prop":
            calls = [(2, "prop"), (3, "cop"), (0, "pass"), (1, "pass")]
        deal = calls_deal(calls, dealer=1)
        if deal.phase is Phase.TRUMP:
            deal.apply(2, deal.legal_actions(2)[0])
        assert deal.phase is Phase.PLAY
        assert deal.trick is not None and deal.trick.leader == 2 == deal.eldest, call
        assert deal.to_act() == {2}


def test_lead_abundance_declared_declarer_leads_trick_1() -> None:
    deal = calls_deal([(0, "pass"), (1, "pass"), (2, "abundance-declared"), (3, "pass")])
    events = deal.apply(2, "trump S")
    assert {"type": "play_starts", "leader": 2} in events
    assert deal.to_act() == {2}
    assert_rejected(deal, 0, deal.legal_actions(2)[0], IllegalAction, "not your turn")


def test_lead_must_follow_suit_trumping_never_compulsory() -> None:
    deal = Deal("solo-whist", SUIT_HANDS, dealer=3, turn_up="2C")
    for seat, call in ((0, "solo"), (1, "pass"), (2, "pass"), (3, "pass")):
        deal.apply(seat, call)
    deal.apply(0, "play AS")
    # Seat 1 holds no spade: any heart may be played; nothing forces a trump (clubs are with seat 3).
    assert len(deal.legal_actions(1)) == 13
    deal.apply(1, "play 2H")
    deal.apply(2, "play 2D")
    deal.apply(3, "play 2C")  # the turn-up, a trump, wins
    assert deal.tricks[0].winner == 3 and deal.to_act() == {3}


def test_must_follow_suit_names_the_rule() -> None:
    # Seat 0: AS and the hearts but 2H; seat 1: the other spades and 2H.
    hands = [["AS", *SUIT_HANDS[1][:12]], [*SUIT_HANDS[0][1:], "2H"], SUIT_HANDS[2], SUIT_HANDS[3]]
    deal = Deal("solo-whist", hands, dealer=3, turn_up="2C")
    for seat, call in ((0, "solo"), (1, "pass"), (2, "pass"), (3, "pass")):
        deal.apply(seat, call)
    deal.apply(0, "play AS")
    assert deal.legal_actions(1) == [f"play {rank}S" for rank in "KQJT98765432"]
    assert_rejected(deal, 1, "play 2H", IllegalAction, "must follow suit: holds spades")
    assert_rejected(deal, 1, "play AH", IllegalAction, "not in your hand")


# ---------------------------------------------------------------- house-rule variants


def test_house_rule_no_prop_and_cop() -> None:
    deal = calls_deal([], house_rules={"prop_and_cop": False})
    assert deal.legal_actions(0) == ["pass", *ALL_CALLS[1:]]
    assert_rejected(deal, 0, "prop", IllegalAction, "not offered under this room's house rules")
    assert_rejected(deal, 0, "cop", IllegalAction, "not offered")


def test_house_rule_no_turn_up_winner_names_trump_and_no_royal_abundance() -> None:
    rules = {"turn_up": False}
    deal = calls_deal([], house_rules=rules)
    assert deal.turn_up is None and deal.view(0)["turn_up"] is None
    assert "royal-abundance" not in deal.legal_actions(0)
    assert_rejected(deal, 0, "royal-abundance", IllegalAction, "not offered")
    deal = calls_deal([(0, "pass"), (1, "solo"), (2, "pass"), (3, "pass")], house_rules=rules)
    assert deal.phase is Phase.TRUMP and deal.to_act() == {1}
    assert deal.legal_actions(1) == ["trump S", "trump H", "trump D", "trump C"]
    deal.apply(1, "trump D")
    assert deal.contract is not None and deal.contract.trump == "D"
    # Prop and Cop: the proposer names trump.
    deal = calls_deal([(0, "pass"), (1, "prop"), (2, "cop"), (3, "pass")], house_rules=rules)
    assert deal.to_act() == {1} and deal.phase is Phase.TRUMP
    # Abundance: with no turn-up every suit may be named.
    deal = calls_deal([(0, "abundance"), (1, "pass"), (2, "pass"), (3, "pass")], house_rules=rules)
    assert len(deal.legal_actions(0)) == 4


def test_no_turn_up_record_has_no_turn_up_key() -> None:
    deal = calls_deal([], house_rules={"turn_up": False})
    assert "turn_up" not in deal.to_record()
    with pytest.raises(Exception, match="turn_up"):
        Deal("solo-whist", SUIT_HANDS, dealer=3, turn_up="2C", house_rules={"turn_up": False})


def test_malformed_calls_are_not_illegal_ones() -> None:
    deal = calls_deal([])
    assert_rejected(deal, 0, "Solo", MalformedAction, "unknown action")
    assert_rejected(deal, 0, "propose H", MalformedAction, "unknown action")  # a Belgian word
    assert_rejected(deal, 0, "solo 5", MalformedAction, "takes")
    assert_rejected(deal, 0, "play", MalformedAction, "takes")
    assert_rejected(deal, 0, "play 1H", MalformedAction, "not a card")
    assert_rejected(deal, 0, "trump X", MalformedAction, "not a suit")
    assert_rejected(deal, 0, "pass ", MalformedAction, "single spaces")
    assert_rejected(deal, 0, 7, MalformedAction, "must be a string")
    assert_rejected(deal, 7, "pass", MalformedAction, "not a seat")
    assert_rejected(deal, 0, "play AS", IllegalAction, "auction is not over")
