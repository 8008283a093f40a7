"""Card memory and the sampler of hidden hands: what a seat can know from its view, and nothing more."""

from __future__ import annotations

from collections import Counter

import pytest
from bots_helpers import RULESETS, iter_views, play_view

from server.bots.knowledge import (
    InconsistentViewError,
    Knowledge,
    SampledDeal,
    consistent_deals,
    rebuild_deal,
    sample_hidden_hands,
)
from server.rules import FULL_DECK


def test_memory_holds_every_fallen_card_and_shown_void() -> None:
    tricks = [{"leader": 1, "cards": [[1, "AH"], [2, "3H"], [3, "2S"], [0, "4H"]], "winner": 1}]
    view = play_view(["KH", "QH", "5D", "6D", "7C", "8C", "9C", "TC", "JC", "QC", "KC", "AC"],
                     trick=[(1, "9D"), (2, "2C")], tricks=tricks)
    k = Knowledge.from_view(view)
    assert k.played == {"AH", "3H", "2S", "4H", "9D", "2C"}
    assert k.voids[3] == {"H"}
    assert k.voids[2] == {"D"}
    assert not k.voids[1]
    assert "KH" not in k.unseen and "AH" not in k.unseen and "TH" in k.unseen
    assert not any(c[1] == "H" for c in k.possible(3) - k.known[3])
    assert not any(c[1] == "D" for c in k.possible(2))
    assert k.outstanding("H") == [c + "H" for c in "256789TJ"]
    assert k.is_master("KH")  # the ace has fallen
    assert k.is_master("QH")  # only our own king is above it
    assert not k.is_master("6D")


def test_exposed_hand_and_turn_up_are_known_cards() -> None:
    left = {"2S", "3S", "AH", "KH", "QD", "JD", "5C", "6C"}
    fallen = [c for c in FULL_DECK if c not in left]
    tricks = [{"leader": 0, "cards": [[seat, fallen[4 * t + seat]] for seat in range(4)], "winner": 0}
              for t in range(11)]
    view = play_view(["2S", "3S"], hand_counts=[2, 2, 2, 2], exposed={"1": ["AH", "KH"]}, tricks=tricks)
    view["turn_up"], view["turn_up_in_hand"], view["dealer"] = "QD", True, 2
    k = Knowledge.from_view(view)
    assert k.known[1] == {"AH", "KH"}
    assert "QD" in k.known[2]
    assert k.possible(1) == {"AH", "KH"}  # every card of an exposed hand is known
    assert k.voids[1] >= {"S", "D", "C"}
    assert k.unseen == {"JD", "5C", "6C"}
    assert "QD" in k.possible(2)


def _check_sample(k: Knowledge, sample_hands: tuple[tuple[str, ...], ...], discards: dict[int, str]) -> None:
    every = [c for hand in sample_hands for c in hand] + list(discards.values())
    assert len(every) == len(set(every))
    for seat in range(4):
        assert len(sample_hands[seat]) == k.counts[seat]
        assert k.known[seat] <= set(sample_hands[seat])
        new = set(sample_hands[seat]) - k.known[seat]
        assert new <= k.unseen
        assert not any(c[1] in k.voids[seat] for c in new)
    placed = {c for seat in range(4) if seat != k.seat for c in sample_hands[seat]} - set().union(*k.known)
    assert placed | set(discards.values()) == k.unseen


def test_sampler_deals_consistent_hands_reproducibly_from_the_seed() -> None:
    tricks = [{"leader": 1, "cards": [[1, "AH"], [2, "3H"], [3, "2S"], [0, "4H"]], "winner": 1},
              {"leader": 1, "cards": [[1, "KH"], [2, "3D"], [3, "3S"], [0, "5H"]], "winner": 1}]
    view = play_view(["6H", "7H", "5D", "6D", "7C", "8C", "9C", "TC", "JC", "QC", "KC"], tricks=tricks)
    k = Knowledge.from_view(view)
    first = sample_hidden_hands(k, "seed-1", count=20)
    again = sample_hidden_hands(k, "seed-1", count=20)
    other = sample_hidden_hands(k, "seed-2", count=20)
    assert first == again
    assert first != other
    for deal in first + other:
        _check_sample(k, deal.hands, dict(deal.discards))
    # Different samples really differ: the sampler explores the hidden cards.
    assert len({deal.hands for deal in first}) > 10


def test_sampler_places_hidden_discards_of_a_petite_misere() -> None:
    hand = ["2S", "3S", "4S", "2H", "3H", "4H", "2D", "3D", "4D", "2C", "3C", "4C"]
    view = play_view(hand, hand_counts=[12, 12, 12, 12], declarers=(1,), level=0, trump=None)
    view["discards_made"], view["discarded"] = [0, 1, 2, 3], "5C"
    k = Knowledge.from_view(view)
    assert len(k.unseen) == 52 - 12 - 1
    assert k.hidden_discards == (1, 2, 3)
    deals = sample_hidden_hands(k, "d", count=30)
    for deal in deals:
        assert sorted(deal.discards) == [1, 2, 3]
        _check_sample(k, deal.hands, dict(deal.discards))
    assert len(Counter(deal.discards[1] for deal in deals)) > 5


def test_sampler_rejects_a_view_that_contradicts_itself() -> None:
    view = play_view(["2S"], hand_counts=[1, 5, 5, 5])
    with pytest.raises(InconsistentViewError, match="unseen cards"):
        sample_hidden_hands(Knowledge.from_view(view), "x")


@pytest.mark.parametrize("ruleset", RULESETS)
def test_the_true_deal_is_always_among_the_possible_ones(ruleset: str) -> None:
    """At every decision of real deals, each seat's actual cards are within what its view allows,
    and the sampler finds a consistent deal."""
    checked = 0
    for point in iter_views(ruleset, 12, prefix="possible"):
        if point.view["phase"] != "play":
            continue
        k = Knowledge.from_view(point.view)
        for other in range(4):
            assert point.hands[other] <= k.possible(other), (ruleset, other)
            assert len(point.hands[other]) == k.counts[other]
        for sample in sample_hidden_hands(k, "s", count=2):
            _check_sample(k, sample.hands, dict(sample.discards))
        checked += 1
    assert checked > 50


@pytest.mark.parametrize("ruleset", RULESETS)
def test_worlds_for_a_search_bot_show_the_seat_exactly_its_view(ruleset: str) -> None:
    """With the true hidden cards the rebuilt deal is the real one; sampled worlds give the same view."""
    checked = worlds_found = 0
    for n, point in enumerate(iter_views(ruleset, 8, prefix="worlds")):
        if n % 4:
            continue
        k = Knowledge.from_view(point.view)
        discards = {s: point.deal.discards[s] for s in k.hidden_discards}
        truth = SampledDeal(tuple(tuple(sorted(h)) for h in point.hands), discards)
        rebuilt = rebuild_deal(point.view, truth)
        assert rebuilt.view(point.seat) == point.view
        assert [sorted(h) for h in rebuilt.hands] == [sorted(h) for h in point.hands]
        worlds = consistent_deals(point.view, f"w{n}", 3)
        for world in worlds:
            assert world.view(point.seat) == point.view
        worlds_found += len(worlds)
        checked += 1
    assert checked > 20
    assert worlds_found > checked  # most decision points have several consistent worlds


def test_turn_up_may_be_the_dealers_face_down_discard() -> None:
    """Belge-club petite misère: once the dealer has discarded, the turn-up is in his hand or discard."""
    hand = ["2S", "3S", "4S", "2H", "3H", "4H", "2D", "3D", "4D", "2C", "3C", "4C"]
    view = play_view(hand, hand_counts=[12, 12, 12, 12], declarers=(1,), level=0, trump=None)
    view["discards_made"], view["discarded"] = [0, 1, 2, 3], "5C"
    view["turn_up"], view["turn_up_in_hand"], view["dealer"] = "AD", True, 2
    k = Knowledge.from_view(view)
    assert k.pinned == (("AD", 2),)
    assert "AD" in k.unseen and "AD" not in k.known[2]
    assert "AD" in k.possible(2) and "AD" not in k.possible(1) and "AD" not in k.possible(3)
    deals = sample_hidden_hands(k, "pin", count=40)
    places = {"hand" if "AD" in deal.hands[2] else "discard" for deal in deals}
    for deal in deals:
        assert "AD" in deal.hands[2] or deal.discards[2] == "AD"
        _check_sample(k, deal.hands, dict(deal.discards))
    assert places == {"hand", "discard"}
    # Before the dealer discards, the turn-up is simply known to be in his hand.
    view["discards_made"] = [0]
    view["hand_counts"] = [12, 13, 13, 13]
    assert "AD" in Knowledge.from_view(view).known[2]


def test_a_trou_announcement_places_the_aces() -> None:
    """couleur: the trou's holder has the three aces other than trump, his partner the ace of trump;
    trou royal: the holder has all four. The club's announcement names no suit: nothing is placed."""
    hand = ["2S", "3S", "4S", "2H", "3H", "4H", "2D", "3D", "4D", "2C", "3C", "4C", "5C"]
    view = play_view(hand, seat=3, declarers=(0, 2), level=8, team=True, trump="H", hand_counts=[13] * 4)
    view["announcements"] = [{"type": "trou", "seat": 0, "partner": 2, "trump": "H", "royal": False}]
    k = Knowledge.from_view(view)
    assert k.known[0] == {"AS", "AD", "AC"} and k.known[2] == {"AH"}
    assert "AH" not in k.possible(0) and "AS" not in k.possible(1)
    view["announcements"] = [{"type": "trou", "seat": 1, "partner": 2, "trump": "H", "royal": True}]
    assert Knowledge.from_view(view).known[1] == {"AS", "AH", "AD", "AC"}
    view["announcements"] = [{"type": "trou", "seat": 0, "partner": 2, "trump": None, "royal": False}]
    assert Knowledge.from_view(view).known[0] == frozenset()
