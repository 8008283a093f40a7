"""Classic partnership whist (`whist`), one test per clause of docs/rules.md §4 (docs/adding-a-ruleset.md).

Clauses: fixed partnerships (0-2 against 1-3); no auction; trump from the turned-up last card of the
dealer, in the dealer's hand and public until played; eldest leads; all 13 tricks are played; each
member of the side over six tricks scores 1 per trick over six, the other side 0; a session is played
to a target (house rule `target`, default 5); honours (house rule, default off): 4 for all four trump
honours A K Q J dealt to a side, 2 for three.
"""

from __future__ import annotations

import pytest
from rules_helpers import assert_rejected

from server.rules import Deal, IllegalAction, MalformedRecord, Phase, Session, get_ruleset, shuffled_deck
from server.rules.variants.whist import Whist

SUITS_APART = [[rank + suit for rank in "AKQJT98765432"] for suit in "SHDC"]  # seat 0 spades ... 3 clubs


def whist() -> Whist:
    ruleset = get_ruleset("whist")
    assert isinstance(ruleset, Whist)
    return ruleset


def play_out(deal: Deal) -> None:
    while not deal.finished:
        seat = min(deal.to_act())
        deal.apply(seat, deal.legal_actions(seat)[0])


def test_whist_no_auction_the_deal_starts_in_play_with_no_call_to_make() -> None:
    deal = Deal.from_seed("whist", "no-auction", 1)
    assert deal.phase is Phase.PLAY and deal.calls == []
    eldest = deal.eldest
    assert all(action.startswith("play ") for action in deal.legal_actions(eldest))
    for call in ("pass", "trump S", "discard " + sorted(deal.hands[eldest])[0]):
        assert_rejected(deal, eldest, call, IllegalAction, "cards are being played")


def test_whist_eldest_left_of_the_dealer_leads_trick_1() -> None:
    for dealer in range(4):
        deal = Deal.from_seed("whist", f"eldest-{dealer}", dealer)
        assert deal.to_act() == frozenset({(dealer + 1) % 4})


def test_whist_trump_is_the_suit_of_the_dealers_turned_up_last_card() -> None:
    for dealer in range(4):
        seed = f"turn-up-{dealer}"
        deal = Deal.from_seed("whist", seed, dealer)
        last = shuffled_deck(seed)[-1]
        assert deal.turn_up == last and last in deal.hands[dealer]
        assert deal.contract is not None and deal.contract.trump == last[1]
        assert deal.result()["trump"] == last[1]


def test_whist_the_turn_up_is_public_until_the_dealer_plays_it() -> None:
    deal = Deal("whist", SUITS_APART, 3, "2C")
    for viewer in (0, 1, 2, None):
        view = deal.view(viewer)
        assert view["turn_up"] == "2C" and view["turn_up_in_hand"] is True
    while "2C" in deal.hands[3]:
        seat = min(deal.to_act())
        deal.apply(seat, deal.legal_actions(seat)[-1])  # the lowest card: seat 3 plays 2C last
    assert deal.view(0)["turn_up_in_hand"] is False


def test_whist_the_record_requires_the_turn_up_in_the_dealers_hand() -> None:
    with pytest.raises(MalformedRecord, match="turn_up"):
        Deal("whist", SUITS_APART, 3, None)
    with pytest.raises(MalformedRecord, match="not one of the dealer's cards"):
        Deal("whist", SUITS_APART, 3, "2S")


def test_whist_fixed_partnerships_seats_0_2_against_1_3() -> None:
    assert whist().sides == [(0, 2), (1, 3)]
    contract = Deal.from_seed("whist", "sides", 1).contract
    assert contract is not None and contract.team and contract.declarers == (1, 3)  # the dealer's side
    contract = Deal.from_seed("whist", "sides", 2).contract
    assert contract is not None and contract.declarers == (0, 2)


@pytest.mark.parametrize(("tricks", "points"), [
    ([4, 0, 3, 6], [1, 0, 1, 0]),     # side 0-2 takes 7: one over the book each
    ([0, 5, 0, 8], [0, 7, 0, 7]),     # side 1-3 takes 13: seven each
    ([3, 3, 3, 4], [0, 1, 0, 1]),     # 6 against 7
    ([5, 2, 5, 1], [4, 0, 4, 0]),     # 10 against 3
])
def test_whist_each_member_of_the_side_over_six_tricks_scores_one_per_trick_over_six(
        tricks: list[int], points: list[int]) -> None:
    contract = Deal.from_seed("whist", "score", 0).contract
    assert contract is not None
    assert whist().score(contract, tricks, {"honours": False, "target": 5}) == points


def test_whist_all_13_tricks_are_played() -> None:
    deal = Deal("whist", SUITS_APART, 3, "2C")
    while len(deal.tricks) < 7:  # seat 3 has 7 tricks already: side 1-3 is over the book
        seat = min(deal.to_act())
        deal.apply(seat, deal.legal_actions(seat)[0])
    assert not deal.finished
    play_out(deal)
    assert deal.result()["tricks_played"] == 13 and deal.tricks_won == [0, 0, 0, 13]


def test_whist_honours_are_off_by_default() -> None:
    assert whist().house_rules["honours"].default is False
    deal = Deal("whist", SUITS_APART, 3, "2C")  # seat 3 holds A K Q J of clubs, trump
    play_out(deal)
    assert deal.points == [0, 7, 0, 7]


@pytest.mark.parametrize(("honours_of_side_1_3", "bonus"), [(4, 4), (3, 2), (2, 0), (1, 0), (0, 0)])
def test_whist_honours_all_four_score_4_three_score_2(honours_of_side_1_3: int, bonus: int) -> None:
    hands = [list(hand) for hand in SUITS_APART]
    # Give seat 0 (side 0-2) some of seat 3's club honours, in exchange for low spades.
    for honour, low in list(zip(["JC", "QC", "KC", "AC"], ["2S", "3S", "4S", "5S"], strict=True))[
            : 4 - honours_of_side_1_3]:
        hands[3][hands[3].index(honour)], hands[0][hands[0].index(low)] = low, honour
    honours = whist().honours(hands, "C")
    side_0_2 = {4: 0, 3: 0, 2: 0, 1: 2, 0: 4}[honours_of_side_1_3]
    assert honours == [side_0_2, bonus, side_0_2, bonus]
    deal = Deal("whist", hands, 3, "2C", {"honours": True})
    play_out(deal)
    won = deal.tricks_won
    over = [max(won[0] + won[2] - 6, 0), max(won[1] + won[3] - 6, 0)]
    assert deal.points == [over[0] + side_0_2, over[1] + bonus, over[0] + side_0_2, over[1] + bonus]


def test_whist_a_session_ends_when_a_side_reaches_the_target_default_5() -> None:
    assert whist().house_rules["target"].default == 5
    for target in (5, 8):
        session = Session("whist", f"target-{target}", {"target": target})
        while not session.over:
            if session.deal.finished:
                session.next_deal()
            play_out_session(session)
        assert max(session.balances) >= target
        before_last = [b - p for b, p in zip(session.balances, session.history[-1]["result"]["points"],
                                              strict=True)]
        assert max(before_last) < target
        assert session.balances[0] == session.balances[2] and session.balances[1] == session.balances[3]
        with pytest.raises(IllegalAction, match="session is over"):
            session.next_deal()


def play_out_session(session: Session) -> None:
    while not session.deal.finished:
        seat = min(session.deal.to_act())
        session.apply(seat, session.deal.legal_actions(seat)[0])


def test_whist_every_legal_action_is_a_card_play_with_its_legal_info() -> None:
    deal = Deal.from_seed("whist", "info", 0)
    view = deal.view(deal.eldest)
    assert [item["action"] for item in view["legal_info"]] == view["legal"]
    assert {(item["verb"], item["prompt"], item["rare"], item["tricks"]) for item in view["legal_info"]} == {
        ("play", "card", False, None)}
    assert all(item["suit"] == item["action"][-1] for item in view["legal_info"])
