"""Reading the auction: sampled deals are weighted by how well each hand fits its calls, and the search
draws its worlds by those weights, reproducibly."""

from __future__ import annotations

from typing import Any

from bots_helpers import frozen_copy

from server.bots.inference import seat_factor, world_weight
from server.bots.knowledge import Knowledge, SampledDeal
from server.bots.worlds import draw_worlds
from server.rules import Deal

STRONG_SPADES = ["AS", "KS", "QS", "JS", "TS", "9S", "AH", "KH", "2D", "3D", "4C", "5C", "6C"]
WEAK = ["2S", "3S", "4H", "5H", "6H", "7D", "8D", "9D", "2C", "3C", "7C", "8C", "9C"]
LOW = ["2S", "3S", "4S", "2H", "3H", "4H", "2D", "3D", "4D", "5D", "2C", "3C", "4C"]
HIGH = ["AS", "KS", "QS", "AH", "KH", "QH", "AD", "KD", "QD", "AC", "KC", "QC", "JC"]


def test_a_proposal_needs_a_card_of_its_suit_and_fits_a_strong_suit_better() -> None:
    view: dict[str, Any] = {"turn_up": None}
    calls = [(1, "propose S")]
    no_spade = [c for c in WEAK if c[1] != "S"] + ["4D", "5D"]
    assert seat_factor(1, no_spade, calls, view) == 0.0
    assert seat_factor(1, STRONG_SPADES, calls, view) > 5 * seat_factor(1, WEAK, calls, view)
    assert seat_factor(2, WEAK, calls, view) == 1.0  # seat 2 said nothing


def test_a_misere_caller_is_more_likely_to_hold_low_cards_and_a_first_pass_a_weak_hand() -> None:
    view: dict[str, Any] = {"turn_up": None}
    misere = [(0, "grande-misere")]
    assert seat_factor(0, LOW, misere, view) > 10 * seat_factor(0, HIGH, misere, view)
    assert seat_factor(0, WEAK, [(0, "pass")], view) > 10 * seat_factor(0, HIGH, [(0, "pass")], view)


def _trou_deal() -> Deal:
    for index in range(400):
        deal = Deal.from_seed("couleur", f"trou-search:{index}", index % 4)
        if any(event.get("type") == "trou" for event in deal.announcements):
            return deal
    raise AssertionError("no trou in 400 deals")


def test_samples_contradicting_the_trou_get_no_weight_and_the_true_deal_some() -> None:
    deal = _trou_deal()
    trou = next(e for e in deal.announcements if e["type"] == "trou")
    seat = next(s for s in range(4) if s not in (trou["seat"], trou["partner"]))
    view = frozen_copy(deal.view(seat))
    knowledge = Knowledge.from_view(view)
    true = SampledDeal(tuple(tuple(h) for h in deal.hands), {})
    assert world_weight(view, knowledge, true) > 0.0
    # Move the holder's aces to the seat's neighbour: no longer the trou that was announced.
    hands = [list(h) for h in deal.hands]
    holder = int(trou["seat"])
    other = next(s for s in range(4) if s not in (seat, holder))
    aces = [c for c in hands[holder] if c[0] == "A"]
    swap = [c for c in hands[other] if c[0] != "A"][: len(aces)]
    hands[holder] = [c for c in hands[holder] if c not in aces] + swap
    hands[other] = [c for c in hands[other] if c not in swap] + aces
    assert world_weight(view, knowledge, SampledDeal(tuple(tuple(h) for h in hands), {})) == 0.0


def test_worlds_are_reproducible_from_the_seed_and_respect_the_view() -> None:
    deal = Deal.from_seed("couleur", "worlds:1", 0)
    view = frozen_copy(deal.view(1))
    knowledge = Knowledge.from_view(view)
    first = draw_worlds(view, knowledge, "s", 10, 30)
    assert first == draw_worlds(view, knowledge, "s", 10, 30)
    assert first != draw_worlds(view, knowledge, "t", 10, 30)
    assert sum(world.weight for world in first) == 10
    for world in first:
        assert sorted(world.sample.hands[1]) == sorted(view["hand"])
        every_card = sorted(c for hand in deal.hands for c in hand)
        assert sorted(c for hand in world.sample.hands for c in hand) == every_card
