"""The seeded shuffle and the deal, by an algorithm any language can reproduce.

Algorithm (documented in docs/deal-record.md, "Verifying a deal from its seed"):

1. The seed is a text string, encoded as UTF-8: `seed_bytes`.
2. A byte stream is formed by concatenating the blocks `SHA-256(seed_bytes || counter)` for
   counter = 0, 1, 2, ... written as 8 bytes big-endian.
3. Numbers are drawn as 4-byte big-endian unsigned integers from that stream, in order.
4. Starting from `FULL_DECK` (2S 3S ... AS 2H ... AH 2D ... AD 2C ... AC), a Fisher-Yates shuffle runs
   for i = 51 down to 1: draw x until x < 2**32 - (2**32 mod (i+1)) (rejection sampling removes modulo
   bias), then swap positions i and x mod (i+1).
5. The shuffled deck is dealt from position 0 in the ruleset's packets, clockwise from eldest
   (dealer + 1): each packet size in turn, to each seat in turn. The dealer's last card is the last
   card of the deck; rulesets with a turn-up turn it face up.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Sequence

from .cards import FULL_DECK, RANK_VALUE

_SUIT_CUT_ORDER = {"C": 0, "D": 1, "H": 2, "S": 3}


def _random_words(seed: str) -> Iterator[int]:
    seed_bytes = seed.encode("utf-8")
    counter = 0
    while True:
        block = hashlib.sha256(seed_bytes + counter.to_bytes(8, "big")).digest()
        for offset in range(0, 32, 4):
            yield int.from_bytes(block[offset : offset + 4], "big")
        counter += 1


def shuffled_deck(seed: str) -> list[str]:
    """The 52 cards in the order given by `seed` (see the module docstring)."""
    deck = list(FULL_DECK)
    words = _random_words(seed)
    for i in range(len(deck) - 1, 0, -1):
        n = i + 1
        limit = 2**32 - (2**32 % n)
        x = next(words)
        while x >= limit:
            x = next(words)
        j = x % n
        deck[i], deck[j] = deck[j], deck[i]
    return deck


def deal_packets(deck: Sequence[str], dealer: int, packets: Sequence[int]) -> list[list[str]]:
    """Deal `deck` in `packets` clockwise from eldest; returns the four hands, seat 0 first."""
    if sum(packets) * 4 != len(deck):
        raise ValueError("packets must deal the whole deck")
    hands: list[list[str]] = [[], [], [], []]
    position = 0
    for size in packets:
        for offset in range(1, 5):
            seat = (dealer + offset) % 4
            hands[seat].extend(deck[position : position + size])
            position += size
    return hands


def deal_from_seed(seed: str, dealer: int, packets: Sequence[int]) -> tuple[list[list[str]], str]:
    """Shuffle with `seed` and deal; returns the hands and the dealer's last card (the turn-up)."""
    deck = shuffled_deck(seed)
    return deal_packets(deck, dealer, packets), deck[-1]


def cut_for_dealer(seed: str) -> int:
    """The first dealer: seats 0-3 each draw a card from a deck shuffled with `seed + ":cut"`.

    The lowest rank deals; equal ranks are split by suit, clubs lowest, then diamonds, hearts, spades.
    """
    deck = shuffled_deck(seed + ":cut")
    draws = deck[:4]
    return min(range(4), key=lambda seat: (RANK_VALUE[draws[seat][0]], _SUIT_CUT_ORDER[draws[seat][1]]))
