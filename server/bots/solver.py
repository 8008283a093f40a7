"""An exact solver for the trick phase with every hand known (a "double-dummy" solver).

Hands are 52-bit masks: card bit `13 * suit + (rank - 2)`, suits in the order S H D C, so that within a
suit a higher bit is a higher card. The game is two-sided: `side_a` (a 4-tuple of booleans) marks the
seats whose tricks are counted, and `maximizes` the seats that want that count high. A trick contract
counts the declarers' tricks and the declarers maximize; a misère counts the declarer's tricks and the
defenders maximize (they want to give him one).

`Solver.value(...)` is the exact number of tricks side A takes from the position on under best play by
both sides (alpha-beta; a transposition table of bounds at the start of each trick; cards of one hand
that no live card of another hand separates are merged, since playing either leads to the same tricks).
`Solver.exactly_one(...)` solves piccolo: whether the declarer can end with exactly one trick.

Pure Python is slow, so every search counts its nodes and stops with `NodeLimitError` past a fixed
limit: a deterministic cut-off (never a clock), so that the same search gives the same answer anywhere.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from server.rules.cards import RANK_VALUE, SUITS

SUIT_INDEX = {suit: index for index, suit in enumerate(SUITS)}
SUIT_MASKS = tuple(0x1FFF << (13 * s) for s in range(4))
_RANK_LETTERS = "23456789TJQKA"


def card_bit(card: str) -> int:
    """The bit number of a card such as `"QH"`."""
    return 13 * SUIT_INDEX[card[1]] + RANK_VALUE[card[0]] - 2


def bit_card(bit: int) -> str:
    """The card of a bit number."""
    return _RANK_LETTERS[bit % 13] + SUITS[bit // 13]


def to_mask(cards: Iterable[str]) -> int:
    """The mask of some cards."""
    mask = 0
    for card in cards:
        mask |= 1 << card_bit(card)
    return mask


def mask_cards(mask: int) -> list[str]:
    """The cards of a mask, lowest bit first."""
    cards = []
    while mask:
        low = mask & -mask
        cards.append(bit_card(low.bit_length() - 1))
        mask ^= low
    return cards


def _bits(mask: int) -> list[int]:
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def beats_bit(card: int, best: int, trump: int) -> bool:
    """Whether card bit `card` beats `best`, the bit winning the trick so far."""
    if card // 13 == best // 13:
        return card > best
    return card // 13 == trump


def greedy_playout(hands: Sequence[int], leader: int, trump: str | None, side_a: Sequence[bool],
                   maximizes: Sequence[bool]) -> int:
    """Side A's tricks when every seat plays a simple greedy rule seeing every hand: a cheap, biased
    estimate for whole deals, where exact search is out of reach in pure Python.

    A seat that wants tricks leads a card no one can beat (else low from its longest side suit), lets a
    partner's safe winner stand, and otherwise wins as cheaply as no later opponent can beat; a seat
    that wants to lose them (misère) plays its highest card that loses, else its lowest.
    """
    trump_index = SUIT_INDEX[trump] if trump is not None else -1
    hands = list(hands)
    taken = 0
    while hands[leader]:
        played: list[int] = []
        best, best_seat = -1, leader
        for offset in range(4):
            seat = (leader + offset) % 4
            card = _greedy_card(hands, seat, leader, played, best, best_seat, trump_index, side_a, maximizes)
            hands[seat] ^= 1 << card
            played.append(card)
            if best < 0 or beats_bit(card, best, trump_index):
                best, best_seat = card, seat
        taken += 1 if side_a[best_seat] else 0
        leader = best_seat
    return taken


def _greedy_card(hands: list[int], seat: int, leader: int, played: list[int], best: int, best_seat: int,
                 trump: int, side_a: Sequence[bool], maximizes: Sequence[bool]) -> int:
    hand = hands[seat]
    wants_tricks = maximizes[seat] == side_a[seat]
    if not played:
        cards = _bits(hand)
        if not wants_tricks:
            return min(cards, key=lambda b: b % 13)
        others = hands[(seat + 1) % 4] | hands[(seat + 2) % 4] | hands[(seat + 3) % 4]
        for card in sorted(cards, key=lambda b: (b // 13 != trump, -(b % 13))):
            if not others & SUIT_MASKS[card // 13] & ~((1 << (card + 1)) - 1):
                return card  # a master (ruffs aside)
        side = [c for c in cards if c // 13 != trump] or cards
        lengths = [(hand & SUIT_MASKS[c // 13]).bit_count() for c in side]
        return min(zip(side, lengths, strict=True), key=lambda p: (-p[1], p[0] % 13))[0]
    follow = hand & SUIT_MASKS[played[0] // 13]
    cards = _bits(follow or hand)
    later = [(leader + k) % 4 for k in range(len(played) + 1, 4)]
    winners = [c for c in cards if beats_bit(c, best, trump)]
    if not wants_tricks:
        losers = [c for c in cards if not beats_bit(c, best, trump)]
        if losers:
            return max(losers, key=lambda b: (b % 13, b // 13 != trump))
        return min(cards, key=lambda b: b % 13)
    friend = side_a[best_seat] == side_a[seat]

    def safe(card: int) -> bool:
        return not any(side_a[s] != side_a[seat] and _can_beat(hands[s], card, played[0] // 13, trump)
                       for s in later)

    if friend and safe(best):
        return min(cards, key=lambda b: (b // 13 == trump, b % 13))
    safe_winners = [c for c in winners if safe(c)]
    if safe_winners:
        return min(safe_winners, key=lambda b: (b // 13 == trump, b % 13))
    return min(cards, key=lambda b: (b // 13 == trump, b % 13))


def _can_beat(hand: int, best: int, led: int, trump: int) -> bool:
    """Whether a seat holding `hand` could beat `best` in a trick led in suit `led`."""
    follow = hand & SUIT_MASKS[led]
    if follow:
        return best // 13 == led and bool(follow >> (best + 1))
    if trump < 0:
        return False
    trumps = hand & SUIT_MASKS[trump]
    if not trumps:
        return False
    return best // 13 != trump or bool(trumps >> (best + 1))


class NodeLimitError(Exception):
    """The search passed its node limit (a fixed count, so the cut-off is deterministic)."""


class Solver:
    """Exact trick-phase search for one deal's known hands. Reuse one solver across the candidate moves
    of one position: its transposition table stays valid (it depends only on the hands and the goal)."""

    def __init__(self, trump: str | None, side_a: Sequence[bool], maximizes: Sequence[bool],
                 node_limit: int = 1_000_000) -> None:
        self.trump = SUIT_INDEX[trump] if trump is not None else -1
        self.side_a = tuple(bool(x) for x in side_a)
        self.maximizes = tuple(bool(x) for x in maximizes)
        self.node_limit = node_limit
        self.nodes = 0
        self._table: dict[tuple[int, int, int, int, int], tuple[int, int]] = {}
        self._one: dict[tuple[int, int, int, int, int, int], bool] = {}

    # ---------------------------------------------------------------- moves

    def moves(self, hands: Sequence[int], seat: int, played: Sequence[int]) -> list[int]:
        """The legal cards of `seat`, one per group of equivalent cards (the lowest of each)."""
        hand = hands[seat]
        if played:
            follow = hand & SUIT_MASKS[played[0] // 13]
            if follow:
                hand = follow
        live = hands[0] | hands[1] | hands[2] | hands[3]
        for bit in played:
            live |= 1 << bit
        own = hands[seat]
        result = []
        for bit in _bits(hand):
            below = live & SUIT_MASKS[bit // 13] & ((1 << bit) - 1)
            if below and own >> (below.bit_length() - 1) & 1:
                continue  # the next live card down is ours: the same as playing that one
            result.append(bit)
        return result

    def _ordered(self, hands: Sequence[int], seat: int, played: list[int], best: int,
                 best_seat: int) -> list[int]:
        """Candidate cards, the likely best first (good move order makes alpha-beta cut early)."""
        cards = self.moves(hands, seat, played)
        if not played:
            return sorted(cards, key=lambda b: -(b % 13))
        trump = self.trump
        wants_a = self.maximizes[seat]
        winners = [c for c in cards if beats_bit(c, best, trump)]
        others = [c for c in cards if not beats_bit(c, best, trump)]
        a_wins_now = self.side_a[best_seat]
        if wants_a == self.side_a[seat]:
            # This seat's side wants the trick: win it cheaply unless a friend already holds it.
            if a_wins_now == self.side_a[seat] and len(played) == 3:
                return others + winners if others else winners
            return sorted(winners, key=lambda b: (b // 13 == trump, b % 13)) + others
        # This seat wants the trick to go to the other side (misère play): duck first.
        return sorted(others, key=lambda b: -(b % 13)) + sorted(winners, key=lambda b: b % 13)

    # ---------------------------------------------------------------- tricks for side A

    def value(self, hands: Sequence[int], leader: int, played: Sequence[int] = (),
              alpha: int = -1, beta: int = 99) -> int:
        """Tricks side A takes from here (the current trick included) under best play by both sides."""
        if len(played) == 4:
            winner = self._winner(leader, played)
            gained = 1 if self.side_a[winner] else 0
            return gained + self._search(list(hands), winner, [], alpha - gained, beta - gained)
        return self._search(list(hands), leader, list(played), alpha, beta)

    def best_move(self, hands: Sequence[int], leader: int, played: Sequence[int] = ()) -> tuple[int, int]:
        """The value of the position and a card bit of the seat to play that reaches it (the first such
        in the search order), the trick not yet complete."""
        seat = (leader + len(played)) % 4
        best, best_seat = self._best_so_far(leader, played)
        choice: tuple[int, int] | None = None
        for bit in self._ordered(hands, seat, list(played), best, best_seat):
            after = list(hands)
            after[seat] ^= 1 << bit
            child = self.value(after, leader, [*played, bit])
            if choice is None or (child > choice[0] if self.maximizes[seat] else child < choice[0]):
                choice = (child, bit)
        if choice is None:
            raise ValueError("the seat to play holds no card")
        return choice

    def legal_cards(self, hands: Sequence[int], seat: int, played: Sequence[int]) -> list[tuple[int, int]]:
        """Every legal card of `seat`, ascending, each with the card standing for its group of equivalent
        cards in `moves` (the lowest of the group)."""
        hand = hands[seat]
        if played and hand & SUIT_MASKS[played[0] // 13]:
            hand &= SUIT_MASKS[played[0] // 13]
        live = hands[0] | hands[1] | hands[2] | hands[3]
        for bit in played:
            live |= 1 << bit
        out = []
        for bit in _bits(hand):
            rep = bit
            while True:
                below = live & SUIT_MASKS[rep // 13] & ((1 << rep) - 1)
                if not below or not hands[seat] >> (below.bit_length() - 1) & 1:
                    break
                rep = below.bit_length() - 1
            out.append((bit, rep))
        return out

    def move_values(self, hands: Sequence[int], leader: int, played: Sequence[int] = (),
                    alpha: int = -1, beta: int = 99) -> list[tuple[int, int]]:
        """(card bit, value after it) for every legal card of the seat to play, ascending by bit: side A's
        tricks from the position (the current trick included) once that card is played; exact with the
        full window, a fail-soft bound with a narrower one. Equivalent cards share their value."""
        seat = (leader + len(played)) % 4
        if len(played) >= 4 or not hands[seat]:
            raise ValueError("no card to choose: the trick is complete or the seat holds no card")
        found: dict[int, int] = {}
        out = []
        for bit, rep in self.legal_cards(hands, seat, played):
            if rep not in found:
                after = list(hands)
                after[seat] ^= 1 << rep
                found[rep] = self.value(after, leader, [*played, rep], alpha, beta)
            out.append((bit, found[rep]))
        return out

    def exactly_one_moves(self, hands: Sequence[int], leader: int, played: Sequence[int] = (),
                          taken: int = 0) -> list[tuple[int, bool]]:
        """(card bit, whether side A then ends with exactly one trick) for every legal card (piccolo)."""
        seat = (leader + len(played)) % 4
        if len(played) >= 4 or not hands[seat]:
            raise ValueError("no card to choose: the trick is complete or the seat holds no card")
        out = []
        for bit, _ in self.legal_cards(hands, seat, played):
            after = list(hands)
            after[seat] ^= 1 << bit
            out.append((bit, self.exactly_one(after, leader, [*played, bit], taken)))
        return out

    def _winner(self, leader: int, played: Sequence[int]) -> int:
        best, best_seat = played[0], leader
        for offset, bit in enumerate(played[1:], start=1):
            if beats_bit(bit, best, self.trump):
                best, best_seat = bit, (leader + offset) % 4
        return best_seat

    def _search(self, hands: list[int], leader: int, played: list[int], alpha: int, beta: int) -> int:
        self.nodes += 1
        if self.nodes > self.node_limit:
            raise NodeLimitError(f"more than {self.node_limit} nodes")
        if not played:
            remaining = hands[leader].bit_count()
            if remaining == 0:
                return 0
            key = (hands[0], hands[1], hands[2], hands[3], leader)
            low, high = self._table.get(key, (0, remaining))
            if low >= beta or low == high:
                return low
            if high <= alpha:
                return high
            alpha0, beta0 = max(alpha, low), min(beta, high)
            result = self._play_trick(hands, leader, played, alpha0, beta0)
            if result <= alpha0:
                high = result
            elif result >= beta0:
                low = result
            else:
                low = high = result
            self._table[key] = (low, high)
            return result
        return self._play_trick(hands, leader, played, alpha, beta)

    def _best_so_far(self, leader: int, played: Sequence[int]) -> tuple[int, int]:
        """The card winning the trick so far and its seat (-1 and the leader before the lead)."""
        best_seat, best = leader, -1
        if played:
            best = played[0]
            for offset, bit in enumerate(played[1:], start=1):
                if beats_bit(bit, best, self.trump):
                    best, best_seat = bit, (leader + offset) % 4
        return best, best_seat

    def _play_trick(self, hands: list[int], leader: int, played: list[int], alpha: int, beta: int) -> int:
        seat = (leader + len(played)) % 4
        trump = self.trump
        best, best_seat = self._best_so_far(leader, played)
        maximizing = self.maximizes[seat]
        value = -1 if maximizing else 99
        for bit in self._ordered(hands, seat, played, best, best_seat):
            hands[seat] ^= 1 << bit
            played.append(bit)
            if len(played) == 4:
                winner = seat if beats_bit(bit, best, trump) else best_seat
                gained = 1 if self.side_a[winner] else 0
                child = gained + self._search(hands, winner, [], alpha - gained, beta - gained)
            else:
                child = self._search(hands, leader, played, alpha, beta)
            played.pop()
            hands[seat] ^= 1 << bit
            if maximizing:
                if child > value:
                    value = child
                if value > alpha:
                    alpha = value
            else:
                if child < value:
                    value = child
                if value < beta:
                    beta = value
            if alpha >= beta:
                break
        return value

    # ---------------------------------------------------------------- piccolo: exactly one trick

    def exactly_one(self, hands: Sequence[int], leader: int, played: Sequence[int] = (),
                    taken: int = 0) -> bool:
        """Whether side A (the piccolo declarer, who must take exactly one trick in all, `taken` so
        far) gets exactly one against the defenders' best play. `maximizes` is ignored: the declarer
        wants exactly one, the others anything else."""
        if len(played) == 4:
            winner = self._winner(leader, played)
            return self._one_search(list(hands), winner, [], taken + (1 if self.side_a[winner] else 0))
        return self._one_search(list(hands), leader, list(played), taken)

    def _one_search(self, hands: list[int], leader: int, played: list[int], taken: int) -> bool:
        self.nodes += 1
        if self.nodes > self.node_limit:
            raise NodeLimitError(f"more than {self.node_limit} nodes")
        if taken >= 2:
            return False
        remaining = max(h.bit_count() for h in hands)
        if remaining == 0:
            return taken == 1
        key = None
        if not played:
            key = (hands[0], hands[1], hands[2], hands[3], leader, taken)
            cached = self._one.get(key)
            if cached is not None:
                return cached
        seat = (leader + len(played)) % 4
        trump = self.trump
        best, best_seat = self._best_so_far(leader, played)
        declarer = self.side_a[seat]
        result = not declarer
        for bit in self.moves(hands, seat, played):
            hands[seat] ^= 1 << bit
            played.append(bit)
            if len(played) == 4:
                winner = seat if beats_bit(bit, best, trump) else best_seat
                child = self._one_search(hands, winner, [], taken + (1 if self.side_a[winner] else 0))
            else:
                child = self._one_search(hands, leader, played, taken)
            played.pop()
            hands[seat] ^= 1 << bit
            if child == declarer:
                result = declarer
                break
        if key is not None:
            self._one[key] = result
        return result
