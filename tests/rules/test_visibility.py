"""The visibility authority (server/rules/visibility.py): which cards each seat and a spectator may know,
checked against the independent rule of `rules_helpers.may_see`, and agreeing with the views built from
it at every step of recorded deals (spread misère, petite misère discards, turn-ups) of every ruleset."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from rules_helpers import calls_deal, may_see, play_first_legal

from server.rules import FULL_DECK, Deal, visibility
from server.rules.record import deal_from_record

RECORDS = sorted((Path(__file__).parent / "records").glob("*/*.json"))
SEATS_AND_SPECTATOR = (0, 1, 2, 3, None)


def replayable(path: Path) -> bool:
    return not path.name.startswith("illegal_")


def steps(path: Path) -> list[Deal]:
    """The deal of a record after each of its actions (as clones)."""
    deal, actions = deal_from_record(json.loads(path.read_text()))
    states = [deal.clone()]
    for seat, action in actions:
        deal.apply(seat, action)
        states.append(deal.clone())
    return states


@pytest.mark.parametrize("path", [p for p in RECORDS if replayable(p)],
                         ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_hidden_cards_are_exactly_the_cards_a_seat_may_not_know(path: Path) -> None:
    for deal in steps(path):
        for seat in SEATS_AND_SPECTATOR:
            hidden = visibility.hidden_cards(deal, seat)
            assert hidden == set(FULL_DECK) - may_see(deal, seat) - played_cards(deal)
            # The view built for the seat names none of them: views and the filter agree.
            assert not visibility.mentions(deal.view(seat), hidden)


def played_cards(deal: Deal) -> set[str]:
    """Cards played to tricks: public, and in nobody's hand."""
    cards = {card for trick in deal.tricks for _, card in trick.cards}
    if deal.trick is not None:
        cards.update(card for _, card in deal.trick.cards)
    return cards


def test_a_spectator_may_know_no_hand_and_a_seat_only_its_own() -> None:
    deal = calls_deal([])
    spectator = visibility.hidden_cards(deal, None)
    public = {deal.turn_up} if deal.turn_up else set()
    assert spectator == set(FULL_DECK) - public
    for seat in range(4):
        assert visibility.hidden_cards(deal, seat) == spectator - deal.hands[seat]


def test_the_turn_up_is_public_and_everything_is_once_the_deal_ends() -> None:
    deal = calls_deal([])
    assert deal.turn_up is not None
    assert all(deal.turn_up not in visibility.hidden_cards(deal, seat) for seat in SEATS_AND_SPECTATOR)
    play_first_legal(deal)
    assert all(visibility.hidden_cards(deal, seat) == frozenset() for seat in SEATS_AND_SPECTATOR)


def test_an_event_is_shown_to_a_seat_only_if_it_names_no_card_hidden_from_it() -> None:
    deal = calls_deal([])
    card = sorted(deal.hands[2])[0]
    event = {"type": "card", "seat": 2, "card": card}
    assert visibility.event_for(deal, 2, event) == event
    assert visibility.event_for(deal, 0, event) is None
    assert visibility.event_for(deal, None, event) is None
    assert visibility.events_for(deal, 1, [{"type": "call", "seat": 1, "action": f"play {card}"}]) is None
    # A player may be called "AS": names are not cards.
    named = {"type": "seat_changed", "seat": 1, "kind": "human", "name": card}
    assert visibility.events_for(deal, 0, [named]) == [named]


def test_a_seat_sees_its_own_discard_only() -> None:
    path = next(p for p in RECORDS if "petite_misere" in p.name and replayable(p))
    for deal in steps(path):
        for seat, card in deal.discards.items():
            if deal.finished:
                continue
            assert visibility.visible_discard(deal, seat) == card
            assert all(card in visibility.hidden_cards(deal, other) for other in SEATS_AND_SPECTATOR
                       if other != seat and card != deal.turn_up)
            assert visibility.visible_discard(deal, None) is None
