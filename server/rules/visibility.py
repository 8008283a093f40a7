"""The one visibility authority: which cards each seat (or a spectator) may know now, and each event
as each seat may see it.

`views.py` builds the views from these answers, and the server's outgoing filter checks every frame
with them: neither decides on its own what a seat may see.

Until the deal ends, a seat may know its own hand, its own discard, the hands laid face up
(`exposed`), the turn-up (everyone saw it; whether the dealer still holds it is shown as held until
it is played, so that a face-down discard of it stays secret), and every card played to a trick.
Once the deal has ended everything is public: the
hands as dealt, the discards and the seed.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Protocol

SEATS = (0, 1, 2, 3)


class SeenDeal(Protocol):
    """What the authority reads of a deal (a `Deal` is one): read-only, so no import of deal.py."""

    @property
    def dealer(self) -> int: ...
    @property
    def turn_up(self) -> str | None: ...
    @property
    def hands(self) -> Sequence[set[str]]: ...
    @property
    def discards(self) -> Mapping[int, str]: ...
    @property
    def exposed(self) -> Sequence[int]: ...
    @property
    def finished(self) -> bool: ...
# Keys of an event or a message whose values are names chosen by players ("AS" is a valid name).
FREE_TEXT_KEYS = frozenset(("name",))


def turn_up_in_hand(deal: SeenDeal) -> bool:
    """Whether the dealer still holds the turn-up. A turn-up discarded face down still counts as held,
    so that no view reveals the dealer's discard."""
    turn_up = deal.turn_up
    if turn_up is None:
        return False
    return turn_up in deal.hands[deal.dealer] or deal.discards.get(deal.dealer) == turn_up


def public_cards(deal: SeenDeal) -> frozenset[str]:
    """Cards everyone may know now: the turn-up (everyone saw it turned) and the exposed hands.
    Played cards are public too, but they are in nobody's hand any more."""
    public: set[str] = set()
    if deal.turn_up is not None:
        public.add(deal.turn_up)
    for seat in deal.exposed:
        public |= deal.hands[seat]
    return frozenset(public)


def visible_discard(deal: SeenDeal, seat: int | None) -> str | None:
    """The card `seat` discarded, as that seat may see it (None for a spectator and before the end
    for any other seat's discard)."""
    return deal.discards.get(seat) if seat is not None else None


def hidden_cards(deal: SeenDeal, seat: int | None) -> frozenset[str]:
    """The cards `seat` (None: a spectator) may not know now: the other seats' hidden hands and
    discards. Empty once the deal has ended."""
    if deal.finished:
        return frozenset()
    hidden: set[str] = set()
    for other in SEATS:
        if other == seat:
            continue
        hidden |= deal.hands[other]
        discard = deal.discards.get(other)
        if discard is not None:
            hidden.add(discard)
    return frozenset(hidden - public_cards(deal))


def mentions(value: Any, cards: Iterable[str]) -> bool:
    """Whether a JSON value names any of `cards` (alone or as a word of a string, e.g. "play AS");
    player-chosen names are not looked at."""
    wanted = cards if isinstance(cards, set | frozenset) else frozenset(cards)
    if not wanted:
        return False
    if isinstance(value, str):
        return value in wanted or any(word in wanted for word in value.split())
    if isinstance(value, dict):
        return any(mentions(item, wanted) for key, item in value.items() if key not in FREE_TEXT_KEYS)
    if isinstance(value, list | tuple):
        return any(mentions(item, wanted) for item in value)
    return False


def event_for(deal: SeenDeal, seat: int | None, event: dict[str, Any]) -> dict[str, Any] | None:
    """The event as `seat` may see it: itself when it names no card hidden from that seat, else None.
    The engine's events are public by construction (a discard names no card); this is the check."""
    return None if mentions(event, hidden_cards(deal, seat)) else event


def events_for(
    deal: SeenDeal, seat: int | None, events: Iterable[dict[str, Any]]
) -> list[dict[str, Any]] | None:
    """Every event as `seat` may see it, or None if any of them would reveal a hidden card."""
    hidden = hidden_cards(deal, seat)
    listed = list(events)
    return None if mentions(listed, hidden) else listed
