"""Whist à la couleur auction: docs/rules.md §2 "Auction" (D6), the trou (D7), tour de passe and doubling.

Dealer 3 throughout unless said otherwise: seat 0 is eldest and speech goes 0 1 2 3. `ROUND` hands give
every seat every suit and one ace (no trou); `swap` builds voids and trous.
"""

from __future__ import annotations

from belgian_helpers import ROUND, couleur, holder, passes, swap
from rules_helpers import assert_rejected, play_first_legal

from server.rules import IllegalAction, MalformedAction, Phase, Session, get_ruleset

SUITS = ["S", "H", "D", "C"]
#: Seat 1 holds no spade: its three spades go to seat 2 for three of seat 2's hearts.
NO_SPADE_FOR_1 = swap(("3S", "3H"), ("7S", "7H"), ("JS", "JH"))


# ---------------------------------------------------------------- proposals (D6)


def test_D6_eldest_speaks_first_and_may_propose_any_suit_he_holds() -> None:
    deal = couleur()
    assert deal.to_act() == {0}
    legal = deal.legal_actions(0)
    assert legal[:5] == ["pass", "propose S", "propose H", "propose D", "propose C"]
    assert not [a for a in legal if a.startswith(("solo", "accept", "raise", "renew"))]


def test_D6_proposer_must_hold_a_card_of_the_suit() -> None:
    deal = couleur([(0, "pass")], hands=NO_SPADE_FOR_1)
    assert "propose S" not in deal.legal_actions(1)
    assert_rejected(deal, 1, "propose S", IllegalAction, "you must hold a card of spades")


def test_D6_suit_tie_break_hearts_over_diamonds_over_clubs_over_spades() -> None:
    deal = couleur([(0, "propose S"), (1, "propose C"), (2, "propose D")])
    legal = deal.legal_actions(3)
    assert "propose H" in legal and not {"propose S", "propose C", "propose D"} & set(legal)
    assert_rejected(deal, 3, "propose C", IllegalAction, "must rank above the current call")
    deal.apply(3, "propose H")
    assert deal.auction.public_state()["highest"]["suit"] == "H"


def test_D6_a_bare_proposal_does_not_bind() -> None:
    deal = couleur([(0, "propose H")])
    state = deal.auction.public_state()
    assert state["bound"] == [] and state["open_proposals"] == [[0, "H"]]
    assert "petite-misere" in deal.legal_actions(1)


# ---------------------------------------------------------------- acceptance (D6)


def test_D6_accept_forms_a_team_at_the_lowest_level_that_ranks_high_enough() -> None:
    deal = couleur([(0, "propose H")])
    legal = deal.legal_actions(1)
    assert "accept H" in legal and "accept H 9" in legal and "accept H 13" in legal
    assert "accept H 8" not in legal  # the default form is listed once, as "accept H"
    events = deal.apply(1, "accept H")
    assert {"type": "team", "proposer": 0, "acceptor": 1, "suit": "H", "level": 8} in events
    state = deal.auction.public_state()
    assert state["teams"] == [{"proposer": 0, "acceptor": 1, "suit": "H", "level": 8}]
    assert state["bound"] == [0, 1]


def test_D6_accept_at_a_chosen_higher_level() -> None:
    deal = couleur([(0, "propose D"), (1, "accept D 10")])
    assert deal.auction.public_state()["highest"]["call"] == "emballage 10"


def test_D6_accept_with_the_default_level_spelled_out_is_the_same_call() -> None:
    deal = couleur([(0, "propose D"), (1, "accept D 8")])
    assert deal.auction.public_state()["highest"]["call"] == "emballage 8"


def test_D6_accept_an_outbid_proposal_one_level_up_suit_tie_break() -> None:
    # Spades at 8 is below hearts at 8: accepting spades after a hearts proposal costs a trick.
    deal = couleur([(0, "propose S"), (1, "propose H")])
    legal = deal.legal_actions(2)
    assert "accept S" in legal and "accept S 9" not in legal and "accept S 10" in legal
    assert_rejected(deal, 2, "accept S 8", IllegalAction, "at level 9 or higher")
    deal.apply(2, "accept S")
    assert deal.auction.public_state()["highest"] == {
        "call": "emballage 9",
        "kind": "emballage",
        "level": 9,
        "suit": "S",
        "seats": [0, 2],
        "holders": [0, 2],
    }


def test_D6_acceptor_must_hold_a_card_of_the_suit() -> None:
    deal = couleur([(0, "propose S")], hands=NO_SPADE_FOR_1)
    assert not [a for a in deal.legal_actions(1) if a.startswith("accept")]
    assert_rejected(deal, 1, "accept S", IllegalAction, "you must hold a card of spades")


def test_D6_nobody_accepts_his_own_proposal_or_a_missing_one() -> None:
    deal = couleur([(0, "propose S")])
    assert_rejected(deal, 1, "accept H", IllegalAction, "no open proposal in hearts")


def test_D6_acceptor_speaks_for_the_team_proposer_is_skipped() -> None:
    deal = couleur([(0, "propose S"), (1, "accept S"), (2, "propose H"), (3, "pass")])
    assert deal.to_act() == {1}  # seat 0, the proposer, is skipped
    assert deal.legal_actions(1) == ["pass", "raise 9", "raise 10", "raise 11", "raise 12", "raise 13"]
    assert_rejected(deal, 1, "solo 6 S", IllegalAction, "speaks for the team")
    assert_rejected(deal, 1, "petite-misere", IllegalAction, "bound players")


def test_D6_acceptor_raises_the_team_when_outbid() -> None:
    deal = couleur([(0, "propose S"), (1, "accept S"), (2, "propose H"), (3, "accept H"), (1, "raise 9")])
    assert deal.auction.public_state()["teams"][0]["level"] == 9
    assert deal.to_act() == {3}  # the hearts team's acceptor now speaks; seat 2 is skipped
    assert deal.legal_actions(3)[:2] == ["pass", "raise 9"]
    assert_rejected(deal, 0, "raise 10", IllegalAction, "not your turn")


def test_D6_raise_must_rank_above_the_current_call() -> None:
    deal = couleur([(0, "propose S"), (1, "accept S"), (2, "propose H"), (3, "pass")])
    assert_rejected(deal, 1, "raise 8", IllegalAction, "above the current call")


def test_D6_only_the_acceptor_raises() -> None:
    deal = couleur([(0, "propose S"), (1, "accept S"), (2, "pass")])
    assert_rejected(deal, 3, "raise 9", IllegalAction, "only the player who accepted")


def test_D6_auction_ends_when_all_others_have_passed_after_a_team_forms() -> None:
    deal = couleur([(0, "propose H"), (1, "accept H"), *passes(2, 3)])
    assert deal.phase is Phase.PLAY
    assert deal.contract is not None
    assert (deal.contract.name, deal.contract.declarers, deal.contract.trump) == ("emballage 8", (0, 1), "H")
    assert deal.trick is not None and deal.trick.leader == 0  # eldest leads an emballage


def test_D6_bound_players_cannot_accept() -> None:
    # Seat 0's team speaker passes; seat 0 stays bound and cannot accept seat 2's renewed proposal.
    deal = couleur(
        [(0, "propose S"), (1, "accept S"), (2, "propose H"), (3, "pass"), (1, "pass"), (2, "renew")]
    )
    assert deal.to_act() == {0}
    assert_rejected(deal, 0, "accept H", IllegalAction, "bound players")


# ---------------------------------------------------------------- lapse and renewal (D6)


def test_D6_proposal_lapses_when_its_proposers_turn_comes_back() -> None:
    deal = couleur([(0, "propose D"), *passes(1, 2, 3)])
    assert deal.to_act() == {0}
    state = deal.auction.public_state()
    assert state["lapsed_proposal"] == [0, "D"] and state["open_proposals"] == []
    legal = deal.legal_actions(0)
    # renew once, propose another suit (a lapsed proposal no longer stands), solo, or pass
    assert {"pass", "renew", "propose S", "propose H", "propose C", "solo 5 D"} <= set(legal)
    assert "propose D" not in legal


def test_D6_lapse_then_pass_with_nobody_holding_a_call_is_a_tour_de_passe() -> None:
    deal = couleur([(0, "propose D"), *passes(1, 2, 3), (0, "pass")])
    assert deal.thrown_in and deal.result()["status"] == "thrown_in"


def test_D6_renewal_only_once() -> None:
    deal = couleur([(0, "propose D"), *passes(1, 2, 3), (0, "renew")])
    assert deal.to_act() == {0}  # everybody else has passed: it lapses again at once
    assert "renew" not in deal.legal_actions(0)
    assert_rejected(deal, 0, "renew", IllegalAction, "only once")


def test_D6_renewal_only_while_still_the_highest_call() -> None:
    deal = couleur([(0, "propose D"), (1, "propose H"), *passes(2, 3)])
    assert "renew" not in deal.legal_actions(0)
    assert_rejected(deal, 0, "renew", IllegalAction, "still the highest call")


def test_D6_after_lapse_the_proposer_may_accept_another_open_proposal() -> None:
    deal = couleur([(0, "propose D"), (1, "propose H"), *passes(2, 3)])
    legal = deal.legal_actions(0)
    assert "accept H" in legal and "solo 5 D" in legal
    assert "solo 5 S" not in legal  # seat 1 can still accept: no solo in a suit not proposed
    deal.apply(0, "accept H")  # seat 1 proposed, seat 0 accepted: 2 and 3 have passed, the auction ends
    assert deal.phase is Phase.PLAY
    assert deal.contract is not None and deal.contract.declarers == (0, 1)


def test_D6_renew_is_not_available_to_a_player_without_a_lapsed_proposal() -> None:
    deal = couleur()
    assert_rejected(deal, 0, "renew", IllegalAction, "only a proposer whose proposal lapsed")


def test_D6_maintain_is_not_couleur_vocabulary() -> None:
    deal = couleur()
    assert_rejected(deal, 0, "maintain", MalformedAction, "unknown action")


# ---------------------------------------------------------------- solo conditions (D6)


def test_D6_solo_only_in_a_suit_proposed_without_finding_a_partner() -> None:
    deal = couleur([(0, "propose D"), (1, "propose H"), *passes(2, 3)])
    assert_rejected(deal, 0, "solo 5 S", IllegalAction, "a solo is allowed only in a suit you proposed")
    deal.apply(0, "solo 6 D")
    assert deal.auction.public_state()["bound"] == [0]


def test_D6_no_solo_as_a_first_call_while_others_can_accept() -> None:
    deal = couleur()
    assert not [a for a in deal.legal_actions(0) if a.startswith("solo")]
    assert_rejected(deal, 0, "solo 5 H", IllegalAction, "no other player can still accept (D6)")


def test_D6_solo_in_any_suit_when_no_other_player_can_still_accept() -> None:
    deal = couleur(passes(0, 1, 2))
    legal = deal.legal_actions(3)
    assert {f"solo {level} {suit}" for level in (5, 6, 7, 8) for suit in SUITS} <= set(legal)
    deal.apply(3, "solo 7 C")
    assert deal.contract is not None and (deal.contract.name, deal.contract.trump) == ("solo 7", "C")


def test_D6_solo_when_all_others_are_bound_or_passed() -> None:
    deal = couleur([(0, "propose H"), (1, "accept H"), (2, "pass")])
    assert "solo 5 S" in deal.legal_actions(3)  # 0 and 1 bound, 2 passed


def test_D6_partner_takes_over_as_solo_when_the_team_speaker_passes() -> None:
    deal = couleur(
        [(0, "propose S"), (1, "accept S"), (2, "propose H"), (3, "pass"), (1, "pass"), (2, "renew")]
    )
    legal = deal.legal_actions(0)
    assert "solo 5 S" in legal and "solo 5 H" not in legal
    assert not [a for a in legal if "misere" in a or a.startswith(("propose", "accept"))]
    deal.apply(0, "solo 5 S")
    deal.apply(2, "pass")  # seat 2's renewed proposal lapsed again; it passes
    assert deal.contract is not None
    assert (deal.contract.name, deal.contract.declarers, deal.contract.trump) == ("solo 5", (0,), "S")


def test_D6_outbid_speaker_may_only_raise_or_pass_no_solo_in_couleur() -> None:
    """docs/rules.md §2: "the acceptor may raise it (9, 10, ... 13) or pass" (the club: or go solo)."""
    deal = couleur([(0, "propose H"), (1, "accept H"), (2, "petite-misere"), (3, "pass")])
    assert deal.legal_actions(1) == ["pass", "raise 12", "raise 13"]
    assert_rejected(deal, 1, "solo 8 H", IllegalAction, "may only raise it or pass")


def test_D6_solo_levels_are_5_to_8() -> None:
    deal = couleur(passes(0, 1, 2))
    assert_rejected(deal, 3, "solo 9 S", IllegalAction, "a solo is for 5 to 8 tricks")


def test_D6_solo_ladder_interleaves_with_emballage() -> None:
    # emballage 8 < solo 5 < emballage 9 < solo 6: a solo 5 beats any emballage 8 but not emballage 9
    deal = couleur([(0, "propose H"), (1, "accept H 9"), (2, "pass")])
    legal = deal.legal_actions(3)
    assert "solo 5 H" not in legal and "solo 6 S" in legal


# ---------------------------------------------------------------- first-turn calls (D6)


def test_D6_abondance_only_on_the_first_turn_to_speak() -> None:
    deal = couleur([(0, "propose S")])
    assert "abondance 9 H" in deal.legal_actions(1)
    deal = couleur([(0, "propose S"), (1, "propose H"), *passes(2, 3)])
    assert not [a for a in deal.legal_actions(0) if a.startswith("abondance")]
    assert_rejected(deal, 0, "abondance 9 S", IllegalAction, "abondance only on your first turn to speak")


def test_D6_grand_chelem_only_on_the_first_turn_to_speak() -> None:
    deal = couleur([(0, "propose S"), (1, "propose H"), *passes(2, 3)])
    assert_rejected(deal, 0, "grand-chelem S", IllegalAction, "grand-chelem only on your first turn")


def test_D6_abondance_suit_of_the_declarers_choice_and_declarer_leads() -> None:
    deal = couleur([(0, "pass"), (1, "abondance 9 C"), *passes(2, 3)])
    assert deal.contract is not None
    assert (deal.contract.name, deal.contract.trump, deal.contract.leader) == ("abondance 9", "C", 1)
    assert deal.trick is not None and deal.trick.leader == 1


def test_D6_abondance_tie_break_by_suit_at_equal_level() -> None:
    deal = couleur([(0, "abondance 9 D")])
    legal = deal.legal_actions(1)
    assert "abondance 9 H" in legal and "abondance 9 C" not in legal and "abondance 10 S" in legal


def test_D6_grand_chelem_names_a_suit_no_trump_only_as_a_house_rule() -> None:
    deal = couleur()
    assert "grand-chelem NT" not in deal.legal_actions(0)
    assert_rejected(deal, 0, "grand-chelem NT", IllegalAction, "no 'NT' version")
    deal = couleur(house_rules={"grand_chelem_no_trump": True})
    assert "grand-chelem NT" in deal.legal_actions(0)
    deal.apply(0, "grand-chelem NT")
    for seat in (1, 2, 3):
        deal.apply(seat, "pass")
    assert deal.contract is not None and deal.contract.trump is None and deal.contract.leader == 0


# ---------------------------------------------------------------- misères (D6)


def test_D6_bound_players_are_barred_from_misere() -> None:
    deal = couleur(
        [(0, "propose S"), (1, "accept S"), (2, "propose H"), (3, "pass"), (1, "pass"), (2, "renew")]
    )
    assert_rejected(deal, 0, "grande-misere", IllegalAction, "may no longer call a misère")
    deal = couleur([(0, "propose S"), (1, "accept S"), (2, "petite-misere"), (3, "pass")])
    assert deal.to_act() == {1}
    assert_rejected(deal, 1, "grande-misere", IllegalAction, "may no longer call a misère")
    assert_rejected(deal, 1, "solo 8 S", IllegalAction, "speaks for the team")


def test_D6_a_misere_may_equal_the_current_misere_several_declarers() -> None:
    deal = couleur([(0, "petite-misere")])
    assert "petite-misere" in deal.legal_actions(1)
    deal.apply(1, "petite-misere")
    assert deal.auction.public_state()["highest"]["holders"] == [0, 1]
    deal.apply(2, "pass")
    deal.apply(3, "pass")
    assert deal.contract is not None
    assert (deal.contract.name, deal.contract.declarers, deal.contract.team) == (
        "petite-misere",
        (0, 1),
        False,
    )


def test_D6_only_a_misere_may_be_equalled() -> None:
    deal = couleur([(0, "abondance 10 H")])
    assert_rejected(deal, 1, "abondance 10 H", IllegalAction, "above the current call")


def test_D6_an_outbid_misere_holder_may_equal_the_new_misere() -> None:
    deal = couleur([(0, "petite-misere"), (1, "grande-misere"), *passes(2, 3)])
    assert deal.to_act() == {0}
    assert "grande-misere" in deal.legal_actions(0)
    deal.apply(0, "grande-misere")
    assert deal.contract is not None and deal.contract.declarers == (0, 1)


def test_D6_four_equal_miseres_are_played_each_alone() -> None:
    deal = couleur([(0, "grande-misere"), (1, "grande-misere"), (2, "grande-misere"), (3, "grande-misere")])
    assert deal.contract is not None and deal.contract.declarers == (0, 1, 2, 3)
    assert deal.phase is Phase.PLAY
    play_first_legal(deal)  # no defenders: each plays against the other three (score_groups, D8)
    tricks = deal.tricks_won
    expected = [0, 0, 0, 0]
    for declarer in range(4):
        value = 12 if tricks[declarer] == 0 else -12
        for seat in range(4):
            expected[seat] += 3 * value if seat == declarer else -value
    assert deal.finished and deal.result()["points"] == expected and sum(expected) == 0
    assert all(tricks) or len(deal.tricks) == 13  # stops once every declarer has taken a trick


# ---------------------------------------------------------------- end of auction, tour de passe


def test_D6_all_pass_is_a_tour_de_passe() -> None:
    deal = couleur(passes(0, 1, 2, 3))
    assert deal.thrown_in and deal.result() == {
        "status": "thrown_in",
        "contract": None,
        "declarers": [],
        "trump": None,
        "tricks": [0, 0, 0, 0],
        "points": [0, 0, 0, 0],
        "tricks_played": 0,
    }


def test_D6_passing_is_final() -> None:
    deal = couleur([(0, "pass"), (1, "petite-misere"), (2, "grande-misere"), (3, "pass")])
    assert deal.to_act() == {1}  # seat 0 passed: never speaks again


def test_tour_de_passe_same_dealer_redeals_and_next_deal_counts_double_not_cumulative() -> None:
    rules = get_ruleset("couleur")
    assert rules.next_dealer(2, thrown_in=True) == 2 and rules.next_dealer(2, thrown_in=False) == 3
    assert rules.next_multiplier(1, thrown_in=True) == 2
    assert rules.next_multiplier(2, thrown_in=True) == 2  # consecutive all-passes do not double again
    assert rules.next_multiplier(2, thrown_in=False) == 1


def test_tour_de_passe_in_a_session_doubles_the_next_played_deal() -> None:
    session = Session("couleur", secret="tour-de-passe", first_dealer=1)
    for _ in range(2):  # two all-passes in a row
        for seat in (2, 3, 0, 1):
            session.apply(seat, "pass")
        session.next_deal()
        assert session.deal.dealer == 1 and session.deal.multiplier == 2
    deal = session.deal
    deal_calls = [(2, "grande-misere"), *passes(3, 0, 1)]
    for seat, action in deal_calls:
        session.apply(seat, action)
    while not deal.finished:
        seat = min(deal.to_act())
        session.apply(seat, deal.legal_actions(seat)[0])
    base = get_ruleset("couleur").score(deal.contract, deal.tricks_won, deal.house_rules)  # type: ignore[arg-type]
    assert deal.result()["points"] == [2 * p for p in base] and abs(base[2]) == 36
    session.next_deal()
    assert session.deal.multiplier == 1 and session.deal.dealer == 2


# ---------------------------------------------------------------- the trou (D7)

#: Seat 2 holds the aces of spades, hearts and diamonds; seat 3 the ace of clubs.
TROU = swap(("AS", "4S"), ("AH", "3H"))
#: Seat 2 holds all four aces; the highest heart outside is seat 0's king.
TROU_ROYAL = swap(("AS", "4S"), ("AH", "3H"), ("AC", "5C"))


def test_D7_three_aces_trou_announced_before_the_auction_partner_holds_the_fourth_ace() -> None:
    deal = couleur(hands=TROU)
    assert deal.announcements == [{"type": "trou", "seat": 2, "partner": 3, "trump": "C", "royal": False}]
    assert deal.view(0)["announcements"] == deal.announcements
    state = deal.auction.public_state()
    assert state["trou"] == {"seat": 2, "partner": 3, "trump": "C", "royal": False}
    assert state["highest"]["call"] == "trou" and state["silent"] == [2, 3]


def test_D7_four_aces_trou_royal_hearts_partner_holds_the_highest_heart_outside() -> None:
    deal = couleur(hands=TROU_ROYAL)
    assert holder(TROU_ROYAL, "KH") == 0
    assert deal.announcements == [{"type": "trou", "seat": 2, "partner": 0, "trump": "H", "royal": True}]


def test_D7_only_the_two_other_players_speak_from_eldest_on() -> None:
    deal = couleur(hands=TROU, dealer=1)  # eldest is seat 2, the trou holder: seat 0 speaks first
    assert deal.to_act() == {0}
    deal.apply(0, "pass")
    assert deal.to_act() == {1}
    deal.apply(1, "pass")
    assert deal.contract is not None
    assert (deal.contract.name, deal.contract.declarers, deal.contract.trump, deal.contract.level) == (
        "trou",
        (2, 3),
        "C",
        8,
    )


def test_D7_others_may_only_pass_or_call_above_trou() -> None:
    deal = couleur(hands=TROU)
    legal = deal.legal_actions(0)
    assert "pass" in legal and "grande-misere" in legal and "misere-etalee" in legal
    assert "abondance 10 S" in legal and "grand-chelem H" in legal
    assert not [a for a in legal if a.startswith(("propose", "solo", "abondance 9 ", "petite"))]
    assert_rejected(deal, 0, "abondance 9 H", IllegalAction, "above the current call")
    assert_rejected(deal, 0, "propose H", IllegalAction, "above the current call")


def test_D7_trou_overcall_by_grande_misere() -> None:
    deal = couleur([(0, "grande-misere"), (1, "pass")], hands=TROU)
    assert deal.contract is not None and (deal.contract.name, deal.contract.declarers) == (
        "grande-misere",
        (0,),
    )


def test_D7_trou_overcalls_answered_by_the_other_player() -> None:
    deal = couleur(
        [(0, "grande-misere"), (1, "abondance 11 D"), (0, "misere-etalee"), (1, "pass")], hands=TROU
    )
    assert deal.contract is not None and deal.contract.name == "misere-etalee"
    assert deal.contract.expose == "before_play"


def test_D7_trou_partner_leads_the_ace_of_trumps() -> None:
    deal = couleur(passes(0, 1), hands=TROU)
    assert deal.contract is not None and deal.contract.leader == 3 and deal.contract.lead_card == "AC"
    assert deal.to_act() == {3} and deal.legal_actions(3) == ["play AC"]
    assert_rejected(deal, 3, "play 2C", IllegalAction, "must lead AC")


def test_D7_trou_royal_partner_leads_that_heart() -> None:
    deal = couleur(passes(1, 3), hands=TROU_ROYAL)  # seats 2 and 0 are the trou: 1 and 3 speak
    assert deal.contract is not None
    assert (deal.contract.trump, deal.contract.leader, deal.contract.lead_card) == ("H", 0, "KH")
    assert deal.legal_actions(0) == ["play KH"]


def test_D7_trou_players_never_speak() -> None:
    deal = couleur([(0, "grande-misere")], hands=TROU)
    assert deal.to_act() == {1}
    deal.apply(1, "pass")
    assert deal.finished is False and deal.phase is Phase.PLAY


def test_no_trou_with_two_aces() -> None:
    deal = couleur(hands=swap(("AS", "4S")))
    assert deal.announcements == [] and deal.auction.public_state()["trou"] is None


def test_views_show_the_auction_state_but_no_hidden_card() -> None:
    deal = couleur([(0, "propose S"), (1, "accept S")])
    for seat in (0, 1, 2, 3, None):
        view = deal.view(seat)
        auction = view["auction"]
        assert auction["teams"] == [{"proposer": 0, "acceptor": 1, "suit": "S", "level": 8}]
        assert auction["first_turn"] == [2, 3]
        text = repr(auction)
        others = [card for s in range(4) if s != seat for card in ROUND[s]]
        assert not [card for card in others if f"'{card}'" in text]
