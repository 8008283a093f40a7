"""No peeking: a bot reads only its seat's view.

1. The bot is handed a sealed copy of the view: plain data made through JSON (no path back to the
   deal or the engine), read-only, which records every key read. It decides exactly as with the view.
2. The hidden cards of the other seats are changed (resampled so that the public history stays legal)
   and the deal is replayed: whenever the seat's view is unchanged, so is the bot's decision.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

import pytest
from bots_helpers import RULESETS, DecisionPoint, frozen_copy, iter_views

from server.bots import get_bot
from server.bots.knowledge import Knowledge, sample_hidden_hands
from server.rules import Deal, RulesError


class SealedView(Mapping[str, Any]):
    """A read-only view over plain data that records the keys a bot reads."""

    def __init__(self, data: Mapping[str, Any]) -> None:
        self._data = frozen_copy(data)
        self.read: set[str] = set()

    def __getitem__(self, key: str) -> Any:
        self.read.add(key)
        return self._data[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)


HIDDEN_KEYS = {"dealt", "discards", "seed"}


@pytest.mark.parametrize("ruleset", RULESETS)
@pytest.mark.parametrize("bot_name", ["heuristic", "random"])
def test_bot_decides_from_a_sealed_copy_of_the_view_exactly_as_from_the_view(ruleset: str,
                                                                              bot_name: str) -> None:
    bot = get_bot(bot_name)
    count = 0
    for point in iter_views(ruleset, 10, prefix="sealed"):
        view = point.view
        sealed = SealedView(view)
        assert bot.decide(sealed, "seal", 20.0) == bot.decide(view, "seal", 20.0)
        assert not sealed.read & HIDDEN_KEYS
        count += 1
    assert count > 100


def _alternative_deal(point: DecisionPoint, sample_seed: str) -> Deal | None:
    """The same deal with the other seats' hidden cards resampled, replayed up to this decision."""
    deal, seat = point.deal, point.seat
    k = Knowledge.from_view(point.view)
    sample = sample_hidden_hands(k, sample_seed)[0]
    dealt: list[list[str]] = []
    for other in range(4):
        if other == seat:
            dealt.append(list(deal.dealt[seat]))
            continue
        cards = list(sample.hands[other]) + list(k.played_by[other])
        if other in sample.discards:
            cards.append(sample.discards[other])
        dealt.append(cards)
    try:
        alternative = Deal(deal.ruleset, dealt, deal.dealer, deal.turn_up, deal.house_rules,
                           seed_commitment=deal.seed_commitment)
        for actor, action in point.history:
            alternative.apply(actor, action)
    except RulesError:
        return None  # the history is not legal with these cards (an auction call needing a card)
    return alternative


@pytest.mark.parametrize("ruleset", RULESETS)
def test_changing_the_other_seats_hidden_cards_does_not_change_the_decision(ruleset: str) -> None:
    bot = get_bot("heuristic")
    compared = 0
    changed_cards = 0
    points = iter_views(ruleset, 12, lineup=("heuristic",) * 4, prefix="peek")
    for n, point in enumerate(points):
        if n % 3:
            continue  # every third decision keeps the test quick
        seat, view, action = point.seat, point.view, point.action
        for attempt in range(2):
            alternative = _alternative_deal(point, f"peek:{n}:{attempt}")
            if alternative is None:
                continue
            other_view = alternative.view(seat)
            if other_view != view:
                continue  # a public fact depends on the hidden cards (a trou): not the same decision point
            if any(alternative.hands[s] != point.hands[s] for s in range(4) if s != seat):
                changed_cards += 1
            assert bot.decide(frozen_copy(other_view), "peek", 20.0) == action
            compared += 1
    assert compared > 30
    assert changed_cards > 20
