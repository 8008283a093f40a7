"""Card play rules of thumb, each on a small position built by hand.

Seats play clockwise; in these positions trump is spades unless said otherwise.
"""

from __future__ import annotations

from bots_helpers import play_view

from server.bots import get_bot

BOT = get_bot("heuristic")


def decide(view: dict[str, object]) -> str:
    return BOT.decide(view, "play", 20.0)


def test_cash_winners_a_master_card_is_led() -> None:
    # Seat 0 defends a solo of seat 1; its ace of hearts cannot lose.
    view = play_view(["AH", "7H", "4D", "3C"], declarers=(1,), trump="S", hand_counts=[4, 4, 4, 4])
    assert decide(view) == "play AH"


def test_do_not_overtake_a_partners_winning_trick() -> None:
    # Seats 0 and 2 are partners (prop and cop); partner 2 leads the ace, 3 follows low.
    view = play_view(["KH", "5H", "4D"], seat=0, declarers=(0, 2), team=True, level=8,
                     trick=[(2, "AH"), (3, "2H")], hand_counts=[3, 3, 2, 2])
    assert decide(view) == "play 5H"


def test_ruff_when_an_opponent_is_winning() -> None:
    # Seat 0 (defender) is void in hearts; the declarer (seat 3) is winning the trick with the king.
    view = play_view(["4S", "9D", "3C"], seat=0, declarers=(3,), trick=[(2, "5H"), (3, "KH")],
                     leader=2, hand_counts=[3, 3, 2, 2])
    assert decide(view) == "play 4S"


def test_last_seat_does_not_ruff_a_partners_sure_winner() -> None:
    # Partner (seat 3, a fellow defender) holds the trick with the ace; seat 0 is last and discards.
    view = play_view(["4S", "9D", "3C"], seat=0, declarers=(1,), trick=[(1, "5H"), (2, "7H"), (3, "AH")],
                     leader=1, hand_counts=[3, 2, 2, 2])
    assert decide(view) in ("play 9D", "play 3C")


def test_declarer_draws_trumps() -> None:
    view = play_view(["AS", "KS", "QS", "JS", "TS", "4H", "5D", "6C"], seat=0, declarers=(0,), level=9,
                     hand_counts=[8, 8, 8, 8])
    assert decide(view) == "play AS"


def test_defender_leads_trumps_against_an_abundance() -> None:
    view = play_view(["7S", "4S", "QH", "JH", "5D"], seat=0, declarers=(1,), level=9,
                     hand_counts=[5, 5, 5, 5])
    assert decide(view) == "play 4S"


def test_misere_declarer_ducks_under_the_highest_card() -> None:
    # No trump; seat 0 is the misère declarer; the 9 of hearts is winning.
    view = play_view(["QH", "8H", "3H", "2C"], seat=0, declarers=(0,), level=0, trump=None,
                     trick=[(2, "9H"), (3, "5H")], leader=2, hand_counts=[4, 4, 3, 3])
    assert decide(view) == "play 8H"


def test_misere_declarer_sheds_the_most_dangerous_card_when_void() -> None:
    view = play_view(["KC", "2C", "AD", "3S"], seat=0, declarers=(0,), level=0, trump=None,
                     trick=[(3, "7H")], leader=3, hand_counts=[4, 4, 4, 3])
    assert decide(view) == "play AD"


def test_against_a_misere_lead_low_in_the_declarers_suits() -> None:
    # The spread declarer (seat 1) shows 6H 9H and 4C; seat 0 can lead the 2H under all his hearts.
    view = play_view(["2H", "KH", "3C", "AD"], seat=0, declarers=(1,), level=0, trump=None,
                     exposed={"1": ["6H", "9H", "4C", "8S"]}, hand_counts=[4, 4, 4, 4])
    assert decide(view) == "play 2H"


def test_against_a_misere_do_not_overtake_the_declarer() -> None:
    # The declarer (seat 3) is winning with the 8 of hearts; seat 0 stays under it.
    view = play_view(["9H", "7H", "2H", "AC"], seat=0, declarers=(3,), level=0, trump=None,
                     trick=[(2, "4H"), (3, "8H")], leader=2, hand_counts=[4, 4, 3, 3])
    assert decide(view) == "play 7H"


def test_against_a_misere_play_low_before_the_declarer() -> None:
    # The declarer (seat 1) plays after seat 0: keep the trick low so he must go over it.
    view = play_view(["9H", "7H", "2H", "AC"], seat=0, declarers=(1,), level=0, trump=None,
                     trick=[(3, "3H")], leader=3, hand_counts=[4, 4, 4, 3])
    assert decide(view) == "play 2H"


def test_team_partner_is_on_the_same_side_in_emballage() -> None:
    # Seats 1 and 3 hold an emballage; seat 3 is winning with the king and seat 1 plays last.
    view = play_view(["AD", "3D", "5C"], seat=1, declarers=(1, 3), team=True, level=8, trump="C",
                     trick=[(2, "4D"), (3, "KD"), (0, "QD")], leader=2, hand_counts=[2, 3, 2, 2],
                     ruleset="couleur")
    assert decide(view) == "play 3D"
