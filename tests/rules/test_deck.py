"""The seeded shuffle, the deal in packets and the cut, as docs/deal-record.md documents them."""

from __future__ import annotations

import hashlib

import pytest

from server.rules import Deal, cut_for_dealer, deal_from_seed, get_ruleset, shuffled_deck
from server.rules.cards import FULL_DECK


def documented_shuffle(seed: str) -> list[str]:
    """The algorithm exactly as docs/deal-record.md states it, written apart from server/rules/deck.py."""
    deck = [rank + suit for suit in "SHDC" for rank in "23456789TJQKA"]
    stream = b""
    counter = 0
    position = 0

    def draw() -> int:
        nonlocal stream, counter, position
        while position + 4 > len(stream):
            stream += hashlib.sha256(seed.encode("utf-8") + counter.to_bytes(8, "big")).digest()
            counter += 1
        value = int.from_bytes(stream[position:position + 4], "big")
        position += 4
        return value

    for i in range(51, 0, -1):
        x = draw()
        while x >= 2**32 - 2**32 % (i + 1):
            x = draw()
        j = x % (i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    return deck


def test_full_deck_order_is_the_documented_start() -> None:
    assert FULL_DECK[:3] == ("2S", "3S", "4S") and FULL_DECK[12:14] == ("AS", "2H") and FULL_DECK[-1] == "AC"


@pytest.mark.parametrize("seed", ["example", "", "é-ü-ñ", "a much longer seed " * 10, *map(str, range(40))])
def test_shuffle_matches_the_documented_algorithm(seed: str) -> None:
    assert shuffled_deck(seed) == documented_shuffle(seed)


def test_worked_example_of_the_docs() -> None:
    """docs/deal-record.md "Worked example": seed `example`, dealer 0."""
    hands, turn_up = deal_from_seed("example", 0, (3, 3, 3, 4))
    assert shuffled_deck("example")[:6] == ["3D", "2D", "QS", "7S", "KC", "JH"]
    assert " ".join(hands[1]) == "3D 2D QS QH 4S AD 6C TD JS 3C 4D 9D 9C"
    assert " ".join(hands[0]) == "9S 2H 6D QC 7C KD AS JC 2S 3S 6S KH KS"
    assert turn_up == "KS"
    assert cut_for_dealer("example") == 0


def test_deal_follows_the_packets_clockwise_from_eldest() -> None:
    deck = shuffled_deck("packets")
    for dealer in range(4):
        hands, last = deal_from_seed("packets", dealer, get_ruleset("solo-whist").packets)
        eldest = (dealer + 1) % 4
        order = [(eldest + k) % 4 for k in range(4)]
        # Rebuild the hands packet by packet.
        rebuilt: list[list[str]] = [[], [], [], []]
        position = 0
        for size in (3, 3, 3, 4):
            for seat in order:
                rebuilt[seat] += deck[position:position + size]
                position += size
        assert hands == rebuilt
        assert last == deck[-1] and last in hands[dealer] and hands[dealer][-1] == last


def test_from_seed_turns_up_the_dealers_last_card() -> None:
    deal = Deal.from_seed("solo-whist", "turn", 2)
    assert deal.turn_up == deal.dealt[2][-1]
    assert sorted(c for hand in deal.dealt for c in hand) == sorted(FULL_DECK)


def test_cut_lowest_card_deals() -> None:
    ranks = "23456789TJQKA"
    for seed in map(str, range(30)):
        draws = shuffled_deck(seed + ":cut")[:4]
        lowest = min(range(4), key=lambda s: (ranks.index(draws[s][0]), "CDHS".index(draws[s][1])))
        assert cut_for_dealer(seed) == lowest
