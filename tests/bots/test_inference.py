"""Reading the auction and the play: sampled deals are weighted by how well each hand fits its calls and
the cards it played (under the heuristic's play as the model), and the search draws its worlds by those
weights, reproducibly; the hard facts (a void shown, a card seen) stay the sampler's."""

from __future__ import annotations

import itertools
from typing import Any

from bots_helpers import frozen_copy

from server.bots import get_bot
from server.bots.expert import ExpertBot
from server.bots.inference import OFF_MODEL, play_weight, seat_factor, world_weight
from server.bots.knowledge import Knowledge, SampledDeal, sample_hidden_hands
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


def _play_views(ruleset: str, seed: str) -> list[tuple[dict[str, Any], tuple[tuple[str, ...], ...]]]:
    """(view, every seat's hand then) at each card decision of a deal played by four heuristic bots."""
    heuristic = get_bot("heuristic")
    deal = Deal.from_seed(ruleset, seed, 0)
    out = []
    while not deal.finished:
        seat = min(deal.to_act())
        view = deal.view(seat)
        if view["phase"] == "play":
            out.append((frozen_copy(view), tuple(tuple(h) for h in deal.hands)))
        deal.apply(seat, heuristic.decide(view, "h", 20.0))
    return out


def test_the_play_weight_changes_with_the_cards_played_and_the_true_deal_fits_the_model() -> None:
    """Before any card is played every sample weighs 1 by the play; once cards are played the samples
    in which the others' cards were not the model's weigh less, and the true deal (the others are the
    model: heuristic bots) keeps weight 1."""
    checked = informative = 0
    for i in range(4):
        views = _play_views("couleur", f"play-weight:{i}")
        first_view, _ = views[0]
        first = Knowledge.from_view(first_view)
        assert all(play_weight(first_view, first, s) == 1.0 for s in sample_hidden_hands(first, "a", 10))
        for view, hands in views[12:30:6]:
            contract = view["contract"]
            if len(contract["declarers"]) > 1 and not contract["team"]:
                continue
            knowledge = Knowledge.from_view(view)
            true = SampledDeal(hands, {})
            assert play_weight(view, knowledge, true) == 1.0
            weights = [play_weight(view, knowledge, s) for s in sample_hidden_hands(knowledge, "b", 20)]
            assert max(weights) <= 1.0
            informative += min(weights) <= OFF_MODEL
            checked += 1
    assert checked >= 6 and informative >= checked // 2


def test_a_void_shown_is_a_hard_fact_of_every_world_and_the_weights_move_the_worlds() -> None:
    """Once a seat has not followed suit no world gives it that suit (while before, some did); and the
    worlds the expert draws (weighted by the play) differ from those weighted by the auction alone."""
    expert = ExpertBot()
    voids = differ = 0
    for i in range(6):
        views = _play_views("solo-whist", f"void-weight:{i}")
        own = [v for v in views if v[0]["seat"] == views[0][0]["seat"]]
        for before, after in itertools.pairwise(own):
            knowledge_after = Knowledge.from_view(after[0])
            new = [(s, suit) for s in range(4) for suit in knowledge_after.voids[s]
                   if suit not in Knowledge.from_view(before[0]).voids[s] and s != after[0]["seat"]]
            if not new:
                continue
            seat, suit = new[0]
            holds = [any(c[1] == suit for c in w.sample.hands[seat]) for w in expert.worlds(before[0], "v")]
            if not any(holds):
                continue
            assert not any(any(c[1] == suit for c in w.sample.hands[seat])
                           for w in expert.worlds(after[0], "v"))
            voids += 1
        view = views[len(views) // 2][0]
        knowledge = Knowledge.from_view(view)
        by_auction = draw_worlds(view, knowledge, "w", 12, 16)
        differ += by_auction != expert.worlds(view, "w")
    assert voids >= 1 and differ >= 3
