"""Per-seat views: what a seat, or a spectator, is shown, built from the answers of `visibility.py`.

`visibility.py` is the one authority on which cards a seat may know: this module asks it the questions
about hidden cards (the discard a seat may see, whether the dealer still holds the turn-up) and shows a
seat only its own hand and the hands laid face up; tests/rules/test_visibility.py checks, at every step
of every recorded deal, that no view names a card `visibility.hidden_cards` hides from its seat.

A view holds the seat's own hand, the public calls, the turn-up (and whether the dealer still holds
it), the tricks, each seat's card count, the hands that are face up, the seat's own discard, its legal
actions (`legal`) with what a client needs to show each of them (`legal_info`, from the ruleset), and
the commitment to the deal's seed (`seed_commitment`). It never holds another seat's hidden card, a
discard of another seat, or the seed, until the deal has ended; then the hands as dealt, the discards
and the seed become public.

This module reads a deal through the `ViewedDeal` protocol and imports nothing of `deal.py`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from .cards import sort_hand
from .play import Phase, Trick
from .ruleset import Auction, Contract, Event, Ruleset
from .visibility import SeenDeal, turn_up_in_hand, visible_discard

VIEW_VERSION = 1


class ViewedDeal(SeenDeal, Protocol):
    """What a view reads of a deal (`Deal` provides it)."""

    @property
    def ruleset(self) -> Ruleset: ...  # each member is what a Deal holds
    @property
    def house_rules(self) -> Mapping[str, Any]: ...
    @property
    def eldest(self) -> int: ...
    @property
    def phase(self) -> Phase: ...
    @property
    def multiplier(self) -> int: ...
    @property
    def dealt(self) -> tuple[tuple[str, ...], ...]: ...
    @property
    def calls(self) -> Sequence[tuple[int, str]]: ...
    @property
    def announcements(self) -> Sequence[Event]: ...
    @property
    def auction(self) -> Auction: ...
    @property
    def contract(self) -> Contract | None: ...
    @property
    def trick(self) -> Trick | None: ...
    @property
    def tricks(self) -> Sequence[Trick]: ...
    @property
    def tricks_won(self) -> Sequence[int]: ...
    @property
    def seed(self) -> str | None: ...
    @property
    def seed_commitment(self) -> str | None: ...
    def to_act(self) -> frozenset[int]: ...
    def legal_actions(self, seat: int) -> list[str]: ...
    def result(self) -> dict[str, Any]: ...


def seat_view(deal: ViewedDeal, seat: int | None) -> dict[str, Any]:
    """The view of `seat` (0-3), or of a spectator when `seat` is None."""
    return view_from(public_view(deal), deal, seat)


def view_from(public: dict[str, Any], deal: ViewedDeal, seat: int | None) -> dict[str, Any]:
    """The view of `seat` (None: a spectator) from `public_view(deal)`: a new dict whose seat's own
    fields (its hand, its discard, its legal actions) are filled in. The shared values are not copied:
    when several views are built from one public part (a broadcast), none of them may be changed."""
    view = dict(public)
    if seat is None:
        return view
    legal = deal.legal_actions(seat) if deal.phase is not Phase.END else []
    view["seat"] = seat
    view["hand"] = sort_hand(deal.hands[seat])
    view["discarded"] = visible_discard(deal, seat)
    view["legal"] = legal
    view["legal_info"] = [deal.ruleset.action_info(deal, seat, action) for action in legal]
    return view


def public_view(deal: ViewedDeal) -> dict[str, Any]:
    """What every seat's view shares: the spectator's view (`view_from` adds a seat's own fields)."""
    contract = deal.contract
    trick = deal.trick
    ended = deal.phase is Phase.END
    view: dict[str, Any] = {
        "ruleset": deal.ruleset.name,
        "house_rules": dict(deal.house_rules),
        "seat": None,
        "dealer": deal.dealer,
        "eldest": deal.eldest,
        "phase": deal.phase.value,
        "to_act": sorted(deal.to_act()),
        "multiplier": deal.multiplier,
        "hand": None,
        "hand_counts": [len(hand) for hand in deal.hands],
        "turn_up": deal.turn_up,
        "turn_up_in_hand": turn_up_in_hand(deal),
        "calls": [[s, action] for s, action in deal.calls],
        "announcements": list(deal.announcements),
        "auction": deal.auction.public_state(),
        "contract": None,
        "discarded": visible_discard(deal, None),
        "discards_made": sorted(deal.discards),
        "exposed": {str(s): sort_hand(deal.hands[s]) for s in deal.exposed},
        "trick": (
            {"leader": trick.leader, "cards": [[s, c] for s, c in trick.cards]} if trick is not None else None
        ),
        "tricks": [t.as_dict() for t in deal.tricks],
        "tricks_won": list(deal.tricks_won),
        "legal": [],
        "legal_info": [],
        "seed_commitment": deal.seed_commitment,
        "result": deal.result() if ended else None,
    }
    if contract is not None:
        view["contract"] = {
            "name": contract.name,
            "kind": contract.kind,
            "declarers": list(contract.declarers),
            "level": contract.level,
            "trump": contract.trump,
            "trump_chooser": contract.trump_chooser,
            "team": contract.team,
            "discard": contract.discard,
            "expose": contract.expose,
        }
    if ended:
        view["dealt"] = [sort_hand(hand) for hand in deal.dealt]
        view["discards"] = {str(s): card for s, card in deal.discards.items()}
        view["seed"] = deal.seed
    return view
