"""Cards, suits and ranks in the notation of the deal records.

A card is a two-character string: a rank (`A K Q J T 9 8 7 6 5 4 3 2`) followed by a suit (`S H D C`).
Plain strings keep views, records and the wire format identical and cheap to build.
"""

from __future__ import annotations

from collections.abc import Iterable

from .errors import MalformedAction

SUITS: tuple[str, ...] = ("S", "H", "D", "C")
RANKS: tuple[str, ...] = ("2", "3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K", "A")
RANK_VALUE: dict[str, int] = {rank: value for value, rank in enumerate(RANKS, start=2)}
SUIT_NAMES: dict[str, str] = {"S": "spades", "H": "hearts", "D": "diamonds", "C": "clubs"}

#: The 52 cards in the order the shuffle starts from: spades, hearts, diamonds, clubs; 2 up to ace.
FULL_DECK: tuple[str, ...] = tuple(rank + suit for suit in SUITS for rank in RANKS)
_CARD_SET = frozenset(FULL_DECK)

#: Display order of suits in a sorted hand.
_SUIT_DISPLAY = {"S": 0, "H": 1, "C": 2, "D": 3}


def is_card(text: str) -> bool:
    """Whether `text` is a card in the record notation."""
    return text in _CARD_SET


def parse_card(text: str) -> str:
    """Return `text` as a card, or raise `MalformedAction` naming the problem."""
    if text in _CARD_SET:
        return text
    raise MalformedAction(f"not a card: {text!r} (a rank AKQJT98765432 followed by a suit SHDC)")


def parse_suit(text: str, allow_no_trump: bool = False) -> str | None:
    """Return `text` as a suit letter (or None for `NT` when allowed), else raise `MalformedAction`."""
    if text in SUITS:
        return text
    if allow_no_trump and text == "NT":
        return None
    allowed = "S H D C" + (" or NT" if allow_no_trump else "")
    raise MalformedAction(f"not a suit: {text!r} (expected {allowed})")


def suit_of(card: str) -> str:
    """The suit letter of a card."""
    return card[1]


def rank_of(card: str) -> int:
    """The rank of a card as a number, 2 to 14 (ace high)."""
    return RANK_VALUE[card[0]]


#: Each card's place in display order; views sort hands often, so the key is one dictionary lookup.
_DISPLAY_ORDER: dict[str, int] = {
    card: index
    for index, card in enumerate(sorted(FULL_DECK, key=lambda c: (_SUIT_DISPLAY[c[1]], -RANK_VALUE[c[0]])))
}


def sort_hand(cards: Iterable[str]) -> list[str]:
    """Cards sorted for display: by suit (S H C D, alternating colours), highest rank first."""
    return sorted(cards, key=_DISPLAY_ORDER.__getitem__)


def parse_hand(text: str) -> list[str]:
    """Parse a space-separated hand such as `"AS KS 2H"`."""
    return [parse_card(part) for part in text.split()]
