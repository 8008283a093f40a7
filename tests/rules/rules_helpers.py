"""Shared helpers for the rules-engine tests."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Sequence
from typing import Any

import pytest

from server.rules import FULL_DECK, Deal, RulesError

_ALL_CARDS = frozenset(FULL_DECK)

#: Seat 0 holds every spade, 1 every heart, 2 every diamond, 3 every club: who wins what is obvious.
SUIT_HANDS: list[list[str]] = [[rank + suit for rank in "AKQJT98765432"] for suit in "SHDC"]

DealFactory = Callable[..., Deal]


def calls_deal(calls: Sequence[tuple[int, str]], dealer: int = 3, house_rules: dict[str, Any] | None = None,
               seed: str = "auction") -> Deal:
    """A seeded Solo Whist deal with `calls` applied."""
    deal = Deal.from_seed("solo-whist", seed, dealer, house_rules or {})
    for seat, action in calls:
        deal.apply(seat, action)
    return deal


def state_of(deal: Deal) -> Any:
    """Everything observable about a deal, to check that a rejected action changed nothing."""
    return copy.deepcopy((
        [sorted(hand) for hand in deal.hands], deal.log, deal.calls, deal.phase, deal.contract,
        [t.as_dict() for t in deal.tricks], deal.trick.as_dict() if deal.trick else None, deal.tricks_won,
        deal.exposed, deal.points, deal.thrown_in, deal.auction.public_state(), sorted(deal.to_act()),
        [deal.legal_actions(seat) for seat in range(4)], [deal.view(seat) for seat in (0, 1, 2, 3, None)],
    ))


def assert_rejected(deal: Deal, seat: int, action: Any, error: type[RulesError], match: str = "") -> str:
    """`action` raises `error` (message containing `match`) and leaves `deal` exactly as it was."""
    before = state_of(deal)
    with pytest.raises(error) as raised:
        deal.apply(seat, action)
    assert match in raised.value.reason
    assert state_of(deal) == before
    return raised.value.reason


def play_all(deal: Deal, actions: Sequence[tuple[int, str]]) -> list[dict[str, Any]]:
    """Apply `actions` in order and return every event."""
    events: list[dict[str, Any]] = []
    for seat, action in actions:
        events.extend(deal.apply(seat, action))
    return events


def play_first_legal(deal: Deal, until_tricks: int | None = None) -> None:
    """Play the first legal card of whoever is to act, until the deal ends (or `until_tricks` are done)."""
    while not deal.finished and (until_tricks is None or len(deal.tricks) < until_tricks):
        seat = min(deal.to_act())
        deal.apply(seat, deal.legal_actions(seat)[0])


def cards_in(value: Any) -> set[str]:
    """Every card written anywhere in a JSON-like value (inside strings such as "play AH" too)."""
    found: set[str] = set()
    if isinstance(value, str):
        found.update(token for token in value.split() if token in _ALL_CARDS)
    elif isinstance(value, dict):
        for key, item in value.items():
            found |= cards_in(key) | cards_in(item)
    elif isinstance(value, list | tuple):
        for item in value:
            found |= cards_in(item)
    return found


def may_see(deal: Deal, seat: int | None) -> set[str]:
    """The cards `seat` (None: a spectator) may know of now."""
    if deal.finished:
        return set(_ALL_CARDS)
    known = {card for trick in deal.tricks for _, card in trick.cards}
    if deal.trick is not None:
        known.update(card for _, card in deal.trick.cards)
    if deal.turn_up is not None:
        known.add(deal.turn_up)
    for exposed_seat in deal.exposed:
        known.update(deal.hands[exposed_seat])
    if seat is not None:
        known.update(deal.hands[seat])
        if seat in deal.discards:
            known.add(deal.discards[seat])
    return known


def assert_view_hides(deal: Deal, seat: int | None) -> dict[str, Any]:
    """The view of `seat` shows no card it may not see, and no seed before the end."""
    view = deal.view(seat)
    leaked = cards_in(view) - may_see(deal, seat)
    assert not leaked, f"seat {seat} sees {sorted(leaked)}"
    if not deal.finished:
        assert "seed" not in view
        if deal.seed and len(deal.seed) >= 8:  # a short seed may occur by chance
            assert deal.seed not in json.dumps(view)
    return view
