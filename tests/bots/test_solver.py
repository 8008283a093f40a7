"""The trick-phase solver: exact against brute force on small endgames, and its cheap playout estimate."""

from __future__ import annotations

import random
from collections.abc import Sequence

import pytest

from server.bots.solver import (
    NodeLimitError,
    Solver,
    beats_bit,
    bit_card,
    card_bit,
    greedy_playout,
    mask_cards,
    to_mask,
)
from server.rules.cards import FULL_DECK, SUITS


def _brute_tricks(hands: list[int], leader: int, played: list[int], trump: int, side_a: Sequence[bool],
                  maximizes: Sequence[bool]) -> int:
    """Plain minimax over every legal card: no table, no pruning, no merging of equivalent cards."""
    if len(played) == 4:
        best, winner = played[0], leader
        for offset, bit in enumerate(played[1:], start=1):
            if beats_bit(bit, best, trump):
                best, winner = bit, (leader + offset) % 4
        gained = 1 if side_a[winner] else 0
        return gained + _brute_tricks(hands, winner, [], trump, side_a, maximizes)
    seat = (leader + len(played)) % 4
    hand = hands[seat]
    if not hand:
        return 0
    if played:
        follow = hand & (0x1FFF << (13 * (played[0] // 13)))
        hand = follow or hand
    values = []
    for card in mask_cards(hand):
        bit = card_bit(card)
        hands[seat] ^= 1 << bit
        values.append(_brute_tricks(hands, leader, [*played, bit], trump, side_a, maximizes))
        hands[seat] ^= 1 << bit
    return max(values) if maximizes[seat] else min(values)


def _brute_one(hands: list[int], leader: int, played: list[int], trump: int, side_a: Sequence[bool],
               taken: int) -> bool:
    """Whether the piccolo declarer (side A) ends with exactly one trick, by plain minimax."""
    if len(played) == 4:
        best, winner = played[0], leader
        for offset, bit in enumerate(played[1:], start=1):
            if beats_bit(bit, best, trump):
                best, winner = bit, (leader + offset) % 4
        return _brute_one(hands, winner, [], trump, side_a, taken + (1 if side_a[winner] else 0))
    seat = (leader + len(played)) % 4
    hand = hands[seat]
    if not hand:
        return taken == 1
    if played:
        follow = hand & (0x1FFF << (13 * (played[0] // 13)))
        hand = follow or hand
    outcomes = []
    for card in mask_cards(hand):
        bit = card_bit(card)
        hands[seat] ^= 1 << bit
        outcomes.append(_brute_one(hands, leader, [*played, bit], trump, side_a, taken))
        hands[seat] ^= 1 << bit
    return any(outcomes) if side_a[seat] else all(outcomes)


def _random_position(rng: random.Random, tricks: int) -> tuple[list[int], int, list[int]]:
    """Four hands of `tricks` cards from a few suits (so that voids and ruffs happen), and a trick
    in progress of 0-3 cards already played (those seats hold one card fewer)."""
    suits = rng.sample(SUITS, rng.choice((2, 3, 4)) if tricks <= 6 else 4)
    cards = [c for c in FULL_DECK if c[1] in suits]
    dealt = rng.sample(cards, 4 * tricks)
    hands = [to_mask(dealt[tricks * s:tricks * (s + 1)]) for s in range(4)]
    leader = rng.randrange(4)
    played: list[int] = []
    for offset in range(rng.randrange(4)):
        seat = (leader + offset) % 4
        hand = hands[seat]
        if played:
            hand = hand & (0x1FFF << (13 * (played[0] // 13))) or hand
        bit = card_bit(rng.choice(mask_cards(hand)))
        hands[seat] ^= 1 << bit
        played.append(bit)
    return hands, leader, played


SIDES = [
    ((True, False, True, False), (True, False, True, False)),  # a team contract: the team maximizes
    ((False, True, False, False), (False, True, False, False)),  # a solo: the declarer maximizes
    ((False, False, True, False), (True, True, False, True)),  # a misère: the defenders maximize
]


@pytest.mark.parametrize("trump", [None, "S", "H"])
def test_solver_tricks_equal_brute_force_on_small_endgames(trump: str | None) -> None:
    rng = random.Random(f"solver:{trump}")
    trump_index = SUITS.index(trump) if trump else -1
    checked = 0
    for _ in range(60):
        tricks = rng.choice((1, 2, 3))
        hands, leader, played = _random_position(rng, tricks)
        side_a, maximizes = rng.choice(SIDES)
        expected = _brute_tricks(list(hands), leader, list(played), trump_index, side_a, maximizes)
        solver = Solver(trump, side_a, maximizes)
        assert solver.value(hands, leader, played) == expected, (mask_cards(hands[0]), leader, played)
        # The transposition table stays valid for another question on the same deal.
        assert solver.value(hands, leader, played) == expected
        checked += 1
    assert checked == 60


def test_solver_finishes_a_trick_that_is_complete_at_the_root() -> None:
    rng = random.Random("complete")
    for _ in range(20):
        hands, leader, played = _random_position(rng, 2)
        while len(played) < 4:
            seat = (leader + len(played)) % 4
            hand = hands[seat]
            if played:
                hand = hand & (0x1FFF << (13 * (played[0] // 13))) or hand
            bit = card_bit(mask_cards(hand)[0])
            hands[seat] ^= 1 << bit
            played.append(bit)
        side_a, maximizes = SIDES[0]
        assert Solver("S", side_a, maximizes).value(hands, leader, played) == _brute_tricks(
            list(hands), leader, list(played), 0, side_a, maximizes)


def test_piccolo_search_equals_brute_force() -> None:
    rng = random.Random("piccolo")
    seen = set()
    for _ in range(60):
        hands, leader, played = _random_position(rng, rng.choice((1, 2, 3)))
        declarer = rng.randrange(4)
        side_a = tuple(s == declarer for s in range(4))
        taken = rng.choice((0, 0, 1))
        expected = _brute_one(list(hands), leader, list(played), -1, side_a, taken)
        assert Solver(None, side_a, side_a).exactly_one(hands, leader, played, taken) == expected
        seen.add(expected)
    assert seen == {True, False}


def test_equivalent_cards_are_merged_but_every_distinct_choice_is_kept() -> None:
    hands = [to_mask(["AS", "KS", "9S", "2H"]), to_mask(["QS", "3S", "4H", "5H"]),
             to_mask(["8S", "7S", "6H", "7H"]), to_mask(["TS", "JS", "8H", "9H"])]
    solver = Solver(None, (True, False, True, False), (True, False, True, False))
    # A-K touch (no live card between them); 9S is separated from them by TS/JS/QS held by others.
    assert sorted(bit_card(b) for b in solver.moves(hands, 0, [])) == ["2H", "9S", "KS"]
    # With the queen played to this trick, A and K still touch; following suit leaves 9S and K.
    hands[1] ^= 1 << card_bit("QS")
    assert sorted(bit_card(b) for b in solver.moves(hands, 0, [card_bit("QS")])) == ["9S", "KS"]


def test_the_node_limit_is_a_count_so_the_cut_off_is_the_same_every_time() -> None:
    rng = random.Random("limit")
    hands, leader, _ = _random_position(rng, 7)
    counts = []
    for _ in range(2):
        solver = Solver("S", *SIDES[0], node_limit=500)
        with pytest.raises(NodeLimitError):
            solver.value(hands, leader)
        counts.append(solver.nodes)
    assert counts == [501, 501]


def test_greedy_playout_counts_every_trick_once_and_finds_obvious_tricks() -> None:
    rng = random.Random("greedy")
    for _ in range(20):
        deck = list(FULL_DECK)
        rng.shuffle(deck)
        hands = [to_mask(deck[13 * s:13 * (s + 1)]) for s in range(4)]
        a = greedy_playout(hands, 0, "S", *SIDES[0])
        defenders = tuple(not x for x in SIDES[0][0])
        b = greedy_playout(hands, 0, "S", defenders, defenders)
        assert 0 <= a <= 13 and 0 <= b <= 13
    # Thirteen top trumps take every trick.
    spades = [r + "S" for r in "23456789TJQKA"]
    rest = [c for c in FULL_DECK if c[1] != "S"]
    hands = [to_mask(spades), to_mask(rest[:13]), to_mask(rest[13:26]), to_mask(rest[26:])]
    assert greedy_playout(hands, 1, "S", *SIDES[0]) == 13


def test_move_values_give_every_legal_card_the_brute_force_value_after_it() -> None:
    rng = random.Random("solver:move-values")
    for index in range(40):
        trump = rng.choice((None, "S", "H"))
        trump_index = SUITS.index(trump) if trump else -1
        hands, leader, played = _random_position(rng, rng.choice((1, 2, 3)))
        side_a, maximizes = rng.choice(SIDES)
        seat = (leader + len(played)) % 4
        legal = hands[seat]
        if played:
            legal = legal & (0x1FFF << (13 * (played[0] // 13))) or legal
        rows = Solver(trump, side_a, maximizes).move_values(hands, leader, played)
        assert [bit for bit, _ in rows] == [card_bit(c) for c in mask_cards(legal)], index
        for bit, value in rows:
            after = list(hands)
            after[seat] ^= 1 << bit
            assert value == _brute_tricks(after, leader, [*played, bit], trump_index, side_a, maximizes)
        lone = tuple(s == seat for s in range(4))
        taken = rng.choice((0, 1))
        for bit, one in Solver(trump, lone, lone).exactly_one_moves(hands, leader, played, taken):
            after = list(hands)
            after[seat] ^= 1 << bit
            assert one == _brute_one(after, leader, [*played, bit], trump_index, lone, taken)
