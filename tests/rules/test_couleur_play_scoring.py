"""Whist à la couleur play and scoring: docs/rules.md §2 "Misères have no trump...", D8 (early stop), D9 and
every row of §2 "Scoring". Expected figures are written out from 001 "Le barème", not computed.
"""

from __future__ import annotations

import pytest
from belgian_helpers import couleur, passes
from rules_helpers import SUIT_HANDS, assert_rejected, play_first_legal

from server.rules import Contract, IllegalAction, Phase, get_ruleset

RULES = get_ruleset("couleur")


def emballage(bid: int, suit: str = "H") -> Contract:
    return Contract(f"emballage {bid}", "emballage", (0, 2), bid, suit, team=True)


def alone(
    name: str, kind: str, level: int, declarers: tuple[int, ...] = (1,), trump: str | None = "S"
) -> Contract:
    exact = {"exact": True} if kind.endswith("misere") or kind == "misere-etalee" else {}
    return Contract(name, kind, declarers, level, trump, extra=exact)


def team_points(value: int) -> list[int]:
    """Seats 0 and 2 are the team."""
    return [value, -value, value, -value]


def alone_points(value: int, declarer: int = 1) -> list[int]:
    return [3 * value if seat == declarer else -value for seat in range(4)]


def tricks_for(team_tricks: int) -> list[int]:
    return [team_tricks, 13 - team_tricks, 0, 0]


# ---------------------------------------------------------------- emballage


@pytest.mark.parametrize(("taken", "value"), [(8, 8), (9, 11), (10, 14), (11, 17), (12, 20), (13, 30)])
def test_scoring_emballage_made_8_plus_3_per_trick_30_for_all_thirteen(taken: int, value: int) -> None:
    assert RULES.score(emballage(8), tricks_for(taken), {}) == team_points(value)


def test_scoring_emballage_paid_by_tricks_made_whatever_the_bid_13_is_30() -> None:
    assert RULES.score(emballage(11), tricks_for(12), {}) == team_points(20)
    assert RULES.score(emballage(9), tricks_for(13), {}) == team_points(30)


@pytest.mark.parametrize(
    ("bid", "taken", "cost"),
    [
        (8, 7, 11),  # 001 "Chuté d'un pli, un emballage à huit coûte 11 points"
        (8, 6, 14),  # each further missing trick adds 3
        (8, 0, 32),
        (9, 8, 14),  # each trick bid above eight adds 3
        (11, 10, 20),  # 001 tip 4: "Un emballage à onze plis chuté d'un seul pli coûte 20 points à chacun"
        (13, 12, 26),
        (13, 7, 41),
    ],
)
def test_scoring_emballage_failed_11_plus_3_per_level_plus_3_per_missing_trick(
    bid: int, taken: int, cost: int
) -> None:
    assert RULES.score(emballage(bid), tricks_for(taken), {}) == team_points(-cost)


# ---------------------------------------------------------------- solo


@pytest.mark.parametrize(
    ("bid", "taken", "value"),
    [
        (5, 5, 3),
        (5, 6, 4),
        (5, 8, 6),
        (5, 11, 6),  # +1 per trick above the bid, up to the 8th
        (6, 6, 4),
        (6, 13, 6),
        (7, 7, 5),
        (7, 8, 6),
        (8, 8, 7),
        (8, 12, 7),
    ],
)
def test_scoring_solo_made_3_4_5_7_plus_1_per_trick_up_to_the_eighth(
    bid: int, taken: int, value: int
) -> None:
    contract = alone(f"solo {bid}", "solo", bid)
    assert RULES.score(contract, [0, taken, 13 - taken, 0], {}) == alone_points(value)


@pytest.mark.parametrize(
    ("bid", "taken", "cost"),
    [
        (5, 4, 4),
        (5, 2, 6),
        (6, 5, 5),
        (7, 6, 6),
        (7, 3, 9),
        (8, 7, 8),
        (8, 0, 15),
    ],
)
def test_scoring_solo_failed_4_5_6_8_plus_1_per_missing_trick_beyond_the_first(
    bid: int, taken: int, cost: int
) -> None:
    contract = alone(f"solo {bid}", "solo", bid)
    assert RULES.score(contract, [0, taken, 13 - taken, 0], {}) == alone_points(-cost)


# ---------------------------------------------------------------- abondance (D9), trou, misères, chelem


@pytest.mark.parametrize(("bid", "value"), [(9, 10), (10, 15), (11, 20), (12, 30)])
def test_D9_abondance_made_or_failed_is_the_bid_levels_value(bid: int, value: int) -> None:
    contract = alone(f"abondance {bid}", "abondance", bid)
    assert RULES.score(contract, [0, bid, 13 - bid, 0], {}) == alone_points(value)
    assert RULES.score(contract, [0, 13, 0, 0], {}) == alone_points(value)  # overtricks change nothing
    assert RULES.score(contract, [0, bid - 1, 14 - bid, 0], {}) == alone_points(-value)


@pytest.mark.parametrize(("taken", "value"), [(8, 16), (12, 16), (13, 30), (7, -16), (0, -16)])
def test_scoring_trou_16_or_30_with_all_tricks_failed_16(taken: int, value: int) -> None:
    contract = Contract("trou", "trou", (0, 2), 8, "C", leader=2, lead_card="AC", team=True)
    assert RULES.score(contract, tricks_for(taken), {}) == team_points(value)


@pytest.mark.parametrize(
    ("kind", "value"), [("petite-misere", 6), ("grande-misere", 12), ("misere-etalee", 24)]
)
def test_scoring_miseres_6_12_24_per_opponent(kind: str, value: int) -> None:
    contract = alone(kind, kind, 0, trump=None)
    assert RULES.score(contract, [5, 0, 4, 4], {}) == alone_points(value)
    assert RULES.score(contract, [5, 1, 4, 3], {}) == alone_points(-value)


def test_scoring_several_misere_declarers_each_on_his_own_results_add_up() -> None:
    contract = alone("petite-misere", "petite-misere", 0, declarers=(1, 2), trump=None)
    # seat 1 makes it (+18, each other -6); seat 2 fails (-18, each other +6)
    assert RULES.score(contract, [6, 0, 2, 4], {}) == [0, 24, -24, 0]
    assert RULES.score(contract, [12, 0, 0, 0], {}) == [-12, 12, 12, -12]  # both made


def test_scoring_grand_chelem_60_per_opponent() -> None:
    contract = alone("grand-chelem", "grand-chelem", 13)
    assert RULES.score(contract, [0, 13, 0, 0], {}) == alone_points(60)
    assert RULES.score(contract, [0, 12, 1, 0], {}) == alone_points(-60)


def test_scoring_is_zero_sum() -> None:
    for contract, tricks in [(emballage(10), tricks_for(9)), (alone("solo 7", "solo", 7), [0, 9, 4, 0])]:
        assert sum(RULES.score(contract, tricks, {})) == 0


# ---------------------------------------------------------------- play: misères, discards, exposure


def test_petite_misere_four_hidden_discards_before_trick_1_then_12_tricks() -> None:
    # Seat 0 holds every spade, 1 every heart, 2 every diamond, 3 every club: seat 0 wins every trick.
    deal = couleur([(0, "pass"), (1, "petite-misere"), *passes(2, 3)], hands=SUIT_HANDS)
    assert deal.phase is Phase.DISCARD and deal.to_act() == {0, 1, 2, 3}
    assert_rejected(deal, 0, "play AS", IllegalAction, "discards one card face down")
    deal.apply(2, "discard 2D")
    for seat in (0, 1, 3, None):
        view = deal.view(seat)
        assert view["discards_made"] == [2] and "2D" not in repr(
            {k: v for k, v in view.items() if k != "legal"}
        )
    assert deal.view(2)["discarded"] == "2D"
    for seat, card in ((0, "2S"), (1, "AH"), (3, "2C")):
        deal.apply(seat, f"discard {card}")
    assert deal.phase is Phase.PLAY and deal.total_tricks == 12
    assert deal.view(1)["discarded"] == "AH" and deal.view(0)["discarded"] == "2S"
    play_first_legal(deal)
    result = deal.result()
    assert result["tricks_played"] == 12 and result["tricks"] == [12, 0, 0, 0]
    assert result["points"] == [-6, 18, -6, -6]
    assert deal.view(3)["discards"] == {"2": "2D", "0": "2S", "1": "AH", "3": "2C"}


def test_misere_etalee_hand_face_up_before_trick_1_for_everyone() -> None:
    deal = couleur([(0, "pass"), (1, "misere-etalee"), *passes(2, 3)], hands=SUIT_HANDS)
    assert deal.phase is Phase.PLAY and not deal.tricks
    for seat in (0, 2, 3, None):
        assert deal.view(seat)["exposed"] == {"1": SUIT_HANDS[1]}
    play_first_legal(deal, until_tricks=3)
    assert len(deal.view(0)["exposed"]["1"]) == 10  # stays face up, minus the cards played


def test_grande_misere_no_trump_and_eldest_leads() -> None:
    deal = couleur([(0, "pass"), (1, "grande-misere"), *passes(2, 3)], hands=SUIT_HANDS)
    assert deal.contract is not None and deal.contract.trump is None and deal.trick is not None
    assert deal.trick.leader == 0


# ---------------------------------------------------------------- early stop (D8)


def test_D8_misere_stops_as_soon_as_the_declarer_takes_a_trick() -> None:
    deal = couleur([(0, "grande-misere"), *passes(1, 2, 3)], hands=SUIT_HANDS)
    play_first_legal(deal)
    assert deal.result() == {
        "status": "complete",
        "contract": "grande-misere",
        "declarers": [0],
        "trump": None,
        "tricks": [1, 0, 0, 0],
        "points": [-36, 12, 12, 12],
        "tricks_played": 1,
    }
    assert_rejected(deal, 0, "play KS", IllegalAction, "the deal is over")


def test_D8_abondance_stops_once_the_bid_is_made_overtricks_change_nothing() -> None:
    deal = couleur([(0, "abondance 9 S"), *passes(1, 2, 3)], hands=SUIT_HANDS)
    play_first_legal(deal)
    assert deal.result()["tricks_played"] == 9 and deal.result()["points"] == [30, -10, -10, -10]


def test_D8_solo_plays_on_to_the_eighth_trick_then_stops() -> None:
    deal = couleur([*passes(0, 1, 2), (3, "solo 5 C")], hands=SUIT_HANDS)
    play_first_legal(deal)  # seat 3 ruffs every spade lead and then runs its clubs
    result = deal.result()
    assert result["tricks_played"] == 8 and result["tricks"] == [0, 0, 0, 8]
    assert result["points"] == [-6, -6, -6, 18]


def test_D8_grand_chelem_plays_all_thirteen_when_made() -> None:
    deal = couleur([(0, "grand-chelem S"), *passes(1, 2, 3)], hands=SUIT_HANDS)
    assert deal.trick is not None and deal.trick.leader == 0  # the declarer leads
    play_first_legal(deal)
    assert deal.result()["tricks_played"] == 13 and deal.result()["points"] == [180, -60, -60, -60]


def test_D6_a_void_player_cannot_accept_the_proposal() -> None:
    deal = couleur([(0, "propose S"), (1, "pass")], hands=SUIT_HANDS)
    assert not [a for a in deal.legal_actions(2) if a.startswith("accept")]  # seat 2 holds no spade


def test_doubled_deal_multiplies_every_figure() -> None:
    deal = couleur([(0, "grande-misere"), *passes(1, 2, 3)], hands=SUIT_HANDS, multiplier=2)
    play_first_legal(deal)
    assert deal.result()["points"] == [-72, 24, 24, 24]
