"""Hand evaluation for bidding: tricks per trump suit, and misère safety card by card.

`trick_estimate(hand, trump)` counts aces, guarded kings and queens, trump length and the short side
suits the trumps can ruff. `misere_risk(hand)` walks each suit from its lowest card up and adds the
cards that other players could duck under; a void (or a card to discard) lowers the risk. The figures
were tuned with the duplicate match tool (docs/bots.md), not taken from a book.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from server.rules.cards import SUITS

from .knowledge import rank


def _ranks(hand: Iterable[str], suit: str) -> list[int]:
    """The ranks of `hand` in `suit`, highest first."""
    return sorted((rank(c) for c in hand if c[1] == suit), reverse=True)


def honour_tricks(ranks: Sequence[int]) -> float:
    """Tricks from the top cards of one suit (ranks highest first), as a side suit."""
    length = len(ranks)
    held = set(ranks)
    tricks = 0.0
    if 14 in held:
        tricks += 1.0
    if 13 in held:
        tricks += 1.0 if 14 in held else (0.6 if length >= 2 else 0.15)
    if 12 in held and length >= 3:
        tricks += 0.6 if (14 in held or 13 in held) else 0.3
    if 11 in held and length >= 4 and len(held & {14, 13, 12}) >= 2:
        tricks += 0.4
    return tricks


def trump_tricks(ranks: Sequence[int]) -> float:
    """Tricks from a trump suit: its honours, then every trump beyond the third."""
    length = len(ranks)
    held = set(ranks)
    tricks = 0.0
    if 14 in held:
        tricks += 1.0
    if 13 in held:
        tricks += 1.0 if 14 in held else (0.8 if length >= 2 else 0.2)
    if 12 in held:
        tricks += 0.8 if len(held & {14, 13}) >= 1 and length >= 3 else (0.5 if length >= 3 else 0.1)
    if 11 in held and length >= 4:
        tricks += 0.4
    tricks += 0.9 * max(0, length - 3)
    return min(tricks, float(length))


def trick_estimate(hand: Iterable[str], trump: str | None) -> float:
    """The tricks `hand` expects to take alone with `trump` as trump (None: no trump)."""
    cards = list(hand)
    total = 0.0
    if trump is None:
        for suit in SUITS:
            ranks = _ranks(cards, suit)
            total += honour_tricks(ranks)
            if len(ranks) >= 5 and 14 in ranks:
                total += 0.7 * (len(ranks) - 4)  # long cards of an established suit
        return total
    trumps = _ranks(cards, trump)
    from_trumps = trump_tricks(trumps)
    ruffs = 0.0
    for suit in SUITS:
        if suit == trump:
            continue
        ranks = _ranks(cards, suit)
        total += honour_tricks(ranks)
        ruffs += {0: 1.8, 1: 0.9, 2: 0.35}.get(len(ranks), 0.0)
        if len(ranks) >= 5 and len(trumps) >= 4:
            total += 0.4 * (len(ranks) - 4)  # long side cards after trumps are drawn
    # Ruffs use trumps that length alone would not score: the trumps take at most one trick each.
    total += from_trumps + min(ruffs, max(0.0, len(trumps) - from_trumps))
    return total


def best_suits(hand: Iterable[str], suits: Iterable[str] = SUITS) -> list[tuple[float, str]]:
    """`(estimate, suit)` for each suit, best first (ties: the suit letter, for a total order)."""
    cards = list(hand)
    return sorted(((trick_estimate(cards, s), s) for s in suits), key=lambda x: (-x[0], x[1]))


def misere_card_risks(hand: Iterable[str]) -> list[tuple[float, str]]:
    """Each card's risk of winning a trick in a misère, checked card by card, worst first.

    In a suit whose cards are r1 < r2 < ... the i-th lowest is safe when r_i <= 2i + 2: enough lower
    cards are out for the others to lead or follow under it. Cards beyond what the others can still
    lead (they hold 13 - length cards of the suit) weigh less.
    """
    cards = list(hand)
    risks: list[tuple[float, str]] = []
    for suit in SUITS:
        mine = sorted((c for c in cards if c[1] == suit), key=rank)
        outside = 13 - len(mine)
        for i, card in enumerate(mine, start=1):
            excess = rank(card) - (2 * i + 2)
            if excess <= 0:
                continue
            weight = 1.0 if 3 * (i - 1) < outside else 0.35
            risks.append((excess * weight, card))
    return sorted(risks, key=lambda x: (-x[0], x[1]))


def misere_risk(hand: Iterable[str], discards: int = 0) -> float:
    """The total misère risk of `hand` after discarding its `discards` most dangerous cards.

    Each void suit lets the declarer shed a dangerous card when that suit is led, so it halves the
    risk of the worst remaining card.
    """
    cards = list(hand)
    risks = misere_card_risks(cards)
    dropped = {card for _, card in risks[:discards]}
    kept = [c for c in cards if c not in dropped]
    risks = misere_card_risks(kept)
    voids = sum(1 for s in SUITS if not any(c[1] == s for c in kept))
    values = [r for r, _ in risks]
    for index in range(min(voids, len(values))):
        values[index] *= 0.5
    return sum(values)


def misere_discard(hand: Iterable[str]) -> str:
    """The card a misère declarer discards: the most dangerous, else the highest."""
    cards = list(hand)
    risks = misere_card_risks(cards)
    if risks:
        return risks[0][1]
    return max(cards, key=lambda c: (rank(c), c[1]))
