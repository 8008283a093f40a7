"""What one seat can know from its view alone, recomputed from the view at every decision.

The view holds the whole public history (calls, completed tricks, the current trick, exposed hands, the
turn-up) plus the seat's own hand and discard. From it this module derives a `Knowledge`: every card
that has fallen, every void a seat has shown, the cards each other seat is known to hold, and the cards
each other seat may hold. There is no hidden mutable state: the same view always gives the same
knowledge, which is what keeps bot decisions reproducible across processes.

`sample_hidden_hands` draws, from a seed, a full assignment of the unseen cards that agrees with
everything the view shows (hand sizes, shown voids, known cards, face-down discards). `rebuild_deal`
turns such a sample into an engine `Deal` replayed to the same decision point, and `consistent_deals`
keeps only the rebuilt deals that show this seat exactly its view: the worlds a search bot plays out.
"""

from __future__ import annotations

import hashlib
import random
from bisect import bisect_right
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import accumulate, combinations
from typing import Any

from server.rules import Deal, RulesError
from server.rules.cards import FULL_DECK, RANK_VALUE, SUITS

View = Mapping[str, Any]
SEATS = (0, 1, 2, 3)


def rank(card: str) -> int:
    """The rank of a card, 2 to 14 (ace high)."""
    return RANK_VALUE[card[0]]


def by_rank(cards: Sequence[str] | frozenset[str] | set[str]) -> list[str]:
    """Cards sorted lowest first, ties by suit letter (a total order, independent of set order)."""
    return sorted(cards, key=lambda c: (RANK_VALUE[c[0]], c[1]))


def trick_winner(cards: Sequence[Sequence[Any]], trump: str | None) -> tuple[int, str]:
    """The seat and card winning the (possibly incomplete) trick `[[seat, card], ...]` so far."""
    best_seat, best_card = int(cards[0][0]), str(cards[0][1])
    for seat, card in cards[1:]:
        if card[1] == best_card[1]:
            if rank(card) > rank(best_card):
                best_seat, best_card = int(seat), str(card)
        elif card[1] == trump:
            best_seat, best_card = int(seat), str(card)
    return best_seat, best_card


def beats(card: str, best: str, trump: str | None) -> bool:
    """Whether `card`, played now, would beat `best`, the card winning the trick so far."""
    if card[1] == best[1]:
        return rank(card) > rank(best)
    return card[1] == trump


class InconsistentViewError(ValueError):
    """The view contradicts itself: no deal of the hidden cards agrees with it."""


@dataclass(frozen=True)
class Knowledge:
    """Everything a seat knows about where the cards are. Built by `Knowledge.from_view`."""

    seat: int
    hand: tuple[str, ...]
    trump: str | None
    played: frozenset[str]  # every card in a completed trick or the current trick
    played_by: tuple[tuple[str, ...], ...]  # per seat, in order of play
    voids: tuple[frozenset[str], ...]  # per seat: suits it has shown it no longer holds
    known: tuple[frozenset[str], ...]  # per seat: cards it certainly holds now (own hand, exposed, turn-up)
    counts: tuple[int, ...]  # per seat: cards in hand now
    hidden_discards: tuple[int, ...]  # other seats whose face-down discard this seat has not seen
    unseen: frozenset[str]  # cards whose place this seat does not know
    # Unseen cards known to be with a seat, in its hand or its face-down discard: the turn-up or a
    # trou's ace once its holder has discarded (he may have discarded it).
    pinned: tuple[tuple[str, int], ...] = ()

    @classmethod
    def from_view(cls, view: View) -> Knowledge:
        """Derive the knowledge of `view["seat"]` from its view (never from anything else)."""
        seat = view["seat"]
        if seat is None or view.get("hand") is None:
            raise InconsistentViewError("a spectator's view has no hand to reason from")
        seat = int(seat)
        hand = tuple(view["hand"])
        contract = view.get("contract") or {}
        trump = contract.get("trump")
        tricks: list[Sequence[Sequence[Any]]] = [t["cards"] for t in view.get("tricks") or []]
        current = view.get("trick")
        if current and current.get("cards"):
            tricks.append(current["cards"])
        played: set[str] = set()
        played_by: list[list[str]] = [[], [], [], []]
        voids: list[set[str]] = [set(), set(), set(), set()]
        for cards in tricks:
            led = str(cards[0][1])[1]
            for player, card in cards:
                played.add(card)
                played_by[int(player)].append(card)
                if card[1] != led:
                    voids[int(player)].add(led)
        known: list[set[str]] = [set(), set(), set(), set()]
        known[seat] = set(hand)
        for exposed_seat, cards in (view.get("exposed") or {}).items():
            known[int(exposed_seat)].update(cards)
        turn_up = view.get("turn_up")
        dealer = int(view["dealer"])
        hidden_discards = tuple(int(s) for s in view.get("discards_made") or [] if int(s) != seat)
        owned: list[tuple[str, int]] = []  # cards public facts place with a seat
        if turn_up and view.get("turn_up_in_hand"):
            owned.append((turn_up, dealer))
        owned += _trou_aces(view.get("announcements") or [])
        pinned: list[tuple[str, int]] = []
        for card, owner in owned:
            if card in played or card in hand:
                continue
            if owner in hidden_discards:
                pinned.append((card, owner))  # still his, but perhaps his face-down discard
            else:
                known[owner].add(card)
        counts = tuple(int(n) for n in view["hand_counts"])
        # A seat holding every card it has left as known cards is void in every other suit.
        for other in SEATS:
            if len(known[other]) == counts[other]:
                held_suits = {card[1] for card in known[other]}
                voids[other].update(s for s in SUITS if s not in held_suits)
        own_discard = view.get("discarded")
        accounted = played.union(*known)
        if own_discard:
            accounted.add(own_discard)
        unseen = frozenset(FULL_DECK) - accounted
        return cls(
            seat=seat,
            hand=hand,
            trump=trump,
            played=frozenset(played),
            played_by=tuple(tuple(cards) for cards in played_by),
            voids=tuple(frozenset(v) for v in voids),
            known=tuple(frozenset(k) for k in known),
            counts=counts,
            hidden_discards=hidden_discards,
            unseen=unseen,
            pinned=tuple(pinned),
        )

    # ---------------------------------------------------------------- queries

    def unknown_count(self, seat: int) -> int:
        """How many of `seat`'s cards in hand this seat cannot name."""
        return self.counts[seat] - len(self.known[seat])

    def possible(self, seat: int) -> frozenset[str]:
        """The cards `seat` may hold now: its known cards plus unseen cards of suits it is not void in."""
        if seat == self.seat:
            return frozenset(self.hand)
        if self.unknown_count(seat) <= 0:
            return self.known[seat]
        elsewhere = {card for card, owner in self.pinned if owner != seat}
        return self.known[seat] | frozenset(c for c in self.unseen
                                            if c[1] not in self.voids[seat] and c not in elsewhere)

    def may_hold_suit(self, seat: int, suit: str) -> bool:
        """Whether `seat` may still hold a card of `suit`."""
        return any(card[1] == suit for card in self.possible(seat))

    def outstanding(self, suit: str) -> list[str]:
        """Cards of `suit` not yet played and not in this seat's hand, lowest first."""
        mine = set(self.hand)
        return [c for c in _SUIT_CARDS[suit] if c not in self.played and c not in mine]

    def is_master(self, card: str, friends: Sequence[int] = ()) -> bool:
        """Whether no card of its suit above `card` can be in an opponent's hand.

        Cards known to be held by `friends` (a partner's exposed hand) count as friendly.
        """
        friendly = set(self.hand).union(*(self.known[s] for s in friends))
        return all(rank(c) < rank(card) or c in friendly for c in self.outstanding(card[1]))

    def could_beat(self, seat: int, best: str, led: str) -> bool:
        """Whether `seat`, following to a trick led in `led`, might play a card beating `best`."""
        cards = self.possible(seat)
        if any(c[1] == led for c in cards):
            # It may hold the suit led: it must follow, so only a higher card of that suit wins.
            if any(c[1] == led and beats(c, best, self.trump) for c in cards):
                return True
            # It might be void in the led suit after all (only if not known to hold one).
            if any(c[1] == led for c in self.known[seat]):
                return False
        if self.trump is None or led == self.trump:
            return False
        return any(c[1] == self.trump and beats(c, best, self.trump) for c in cards)


def _trou_aces(announcements: Sequence[Mapping[str, Any]]) -> list[tuple[str, int]]:
    """The aces a trou announcement places: the three (or, royal, four) aces of the trou's holder
    and, when the announcement names trump (couleur), the ace of trump with the partner. The club's
    announcement names no suit, so which ace the partner holds stays unknown."""
    placed: list[tuple[str, int]] = []
    for event in announcements:
        if event.get("type") != "trou":
            continue
        holder, partner, trump = int(event["seat"]), int(event["partner"]), event.get("trump")
        if event.get("royal"):
            placed += [(f"A{suit}", holder) for suit in SUITS]
        elif trump in SUITS:
            placed += [(f"A{suit}", holder) for suit in SUITS if suit != trump]
            placed.append((f"A{trump}", partner))
    return placed


_SUIT_CARDS: dict[str, list[str]] = {s: [r + s for r in "23456789TJQKA"] for s in SUITS}


# -------------------------------------------------------------------- sampling hidden hands

@dataclass(frozen=True)
class _Holder:
    seat: int
    capacity: int
    allowed: frozenset[str]  # suits
    discard: bool


def _feasible(remaining: Mapping[str, int], capacities: Sequence[int], holders: Sequence[_Holder]) -> bool:
    """Hall's condition: every set of suits fits in the holders that may take one of them."""
    suits = [s for s in SUITS if remaining.get(s, 0) > 0]
    for size in range(1, len(suits) + 1):
        for group in combinations(suits, size):
            need = sum(remaining[s] for s in group)
            room = sum(cap for cap, h in zip(capacities, holders, strict=True)
                       if h.allowed.intersection(group))
            if need > room:
                return False
    return True


_Checks = list[tuple[tuple[str, ...], list[int]]]  # sets of suits, each with the holders that may take one


def _placement_checks(holders: Sequence[_Holder]) -> dict[tuple[int, str], _Checks]:
    """Hall's condition, precomputed for one placement: (holder, suit of the card placed) -> the sets of
    suits to check and the holders that may take one of them. Before a placement every set fits; the
    card's suit needs one card less and the holder has one place less, so only the sets without that
    suit whose holders include it can stop fitting."""
    groups = [(group, [i for i, h in enumerate(holders) if h.allowed.intersection(group)])
              for size in range(1, len(SUITS) + 1) for group in combinations(SUITS, size)]
    return {(pick, suit): [(group, indices) for group, indices in groups
                           if suit not in group and pick in indices]
            for pick in range(len(holders)) for suit in SUITS}


def _fits(remaining: Mapping[str, int], capacities: Sequence[int],
          groups: Sequence[tuple[tuple[str, ...], Sequence[int]]]) -> bool:
    """`_feasible` over the sets of suits `_placement_checks` names (the same answer, faster)."""
    for group, indices in groups:
        need = 0
        for suit in group:
            need += remaining[suit]
        if need:
            room = 0
            for i in indices:
                room += capacities[i]
            if need > room:
                return False
    return True


def _weighted_index(weights: Sequence[int], uniform: float) -> int:
    """The index `random.choices(range(n), weights)` draws with `uniform` as its random number (the
    same arithmetic, so a seed draws the same deals as before): 0 <= uniform < 1, weights above 0."""
    cumulative = list(accumulate(weights))
    return bisect_right(cumulative, uniform * (cumulative[-1] + 0.0), 0, len(cumulative) - 1)


@dataclass(frozen=True)
class SampledDeal:
    """One complete guess at the hidden cards: every seat's current hand and face-down discard."""

    hands: tuple[tuple[str, ...], ...]
    discards: Mapping[int, str]


def sample_hidden_hands(knowledge: Knowledge, seed: str, count: int = 1) -> list[SampledDeal]:
    """`count` deals of the unseen cards, each consistent with `knowledge`, reproducible from `seed`.

    Each unseen card goes to a seat that is not void in its suit and still has room, or to a
    face-down discard (any suit). Cards are placed one at a time in a seeded order, each to a holder
    chosen with probability proportional to its free room, among the holders that keep the rest
    placeable (checked by Hall's condition over suits), so a draw never fails on a consistent view.
    A pinned card (the turn-up once the dealer has discarded) goes first, to its seat's hand or discard.
    """
    holders: list[_Holder] = []
    for seat in SEATS:
        if seat == knowledge.seat:
            continue
        allowed = frozenset(s for s in SUITS if s not in knowledge.voids[seat])
        holders.append(_Holder(seat, knowledge.unknown_count(seat), allowed, False))
    for seat in knowledge.hidden_discards:
        holders.append(_Holder(seat, 1, frozenset(SUITS), True))
    unseen = by_rank(knowledge.unseen)
    if sum(h.capacity for h in holders) != len(unseen) or any(h.capacity < 0 for h in holders):
        raise InconsistentViewError(
            f"{len(unseen)} unseen cards for {sum(h.capacity for h in holders)} hidden places")
    total = {s: sum(1 for c in unseen if c[1] == s) for s in SUITS}
    if not _feasible(total, [h.capacity for h in holders], holders):
        raise InconsistentViewError("the shown voids leave no way to place the unseen cards")
    digest = hashlib.sha256(f"{seed}|{knowledge.seat}|{' '.join(unseen)}".encode()).digest()
    rng = random.Random(int.from_bytes(digest[:8], "big"))
    deals = []
    pinned = dict(knowledge.pinned)
    # With no void anywhere every placement stays feasible (the room always equals the cards left).
    unconstrained = all(len(h.allowed) == len(SUITS) for h in holders)
    checks = {} if unconstrained else _placement_checks(holders)
    random_number = rng.random
    for _ in range(count):
        order = list(unseen)
        rng.shuffle(order)
        order.sort(key=lambda card: card not in pinned)  # pinned cards first, the rest in random order
        remaining = dict(total)
        capacities = [h.capacity for h in holders]
        placed: list[list[str]] = [[] for _ in holders]
        for card in order:
            remaining[card[1]] -= 1
            candidates = [i for i, h in enumerate(holders) if capacities[i] > 0 and card[1] in h.allowed
                          and (card not in pinned or h.seat == pinned[card])]
            # Try holders in a random order weighted by free room; keep the first that stays feasible.
            while candidates:
                pick = candidates[_weighted_index([capacities[i] for i in candidates], random_number())]
                capacities[pick] -= 1
                if unconstrained or _fits(remaining, capacities, checks[pick, card[1]]):
                    placed[pick].append(card)
                    break
                capacities[pick] += 1
                candidates.remove(pick)
            else:  # pragma: no cover - impossible when the start was feasible
                raise InconsistentViewError(f"cannot place {card}")
        hands: list[list[str]] = [sorted(knowledge.known[s]) for s in SEATS]
        hands[knowledge.seat] = list(knowledge.hand)
        discards: dict[int, str] = {}
        for holder, cards in zip(holders, placed, strict=True):
            if holder.discard:
                discards[holder.seat] = cards[0]
            else:
                hands[holder.seat].extend(cards)
        deals.append(SampledDeal(tuple(tuple(by_rank(h)) for h in hands), discards))
    return deals


# -------------------------------------------------------------------- worlds for a search bot

def rebuild_deal(view: View, sample: SampledDeal) -> Deal:
    """An engine `Deal` in which `sample`'s hidden cards are true, replayed to the view's decision point.

    The hands as dealt are the sampled current hands plus the cards each seat has played plus its
    discard; the public history (calls, trump naming, discards, tricks) is replayed in order. Raises
    `InconsistentViewError` when that history is not legal with these cards (for example a proposal
    in a suit the sampled hand does not hold), so that a search bot can draw another sample.
    """
    seat = int(view["seat"])
    played_by: list[list[str]] = [[], [], [], []]
    plays: list[tuple[int, str]] = []
    for trick in [*(view.get("tricks") or []), *([view["trick"]] if view.get("trick") else [])]:
        for player, card in trick["cards"]:
            played_by[int(player)].append(card)
            plays.append((int(player), f"play {card}"))
    discards = dict(sample.discards)
    if view.get("discarded"):
        discards[seat] = view["discarded"]
    dealt = [list(sample.hands[s]) + played_by[s] + ([discards[s]] if s in discards else []) for s in SEATS]
    actions: list[tuple[int, str]] = [(int(s), str(a)) for s, a in view.get("calls") or []]
    actions += [(s, f"discard {discards[s]}") for s in sorted(discards)]
    actions += plays
    try:
        deal = Deal(str(view["ruleset"]), dealt, int(view["dealer"]), view.get("turn_up"),
                    view.get("house_rules") or {}, multiplier=int(view.get("multiplier") or 1),
                    seed_commitment=view.get("seed_commitment"))
        for actor, action in actions:
            deal.apply(actor, action)
    except RulesError as error:
        reason = f"the public history does not replay with these cards: {error}"
        raise InconsistentViewError(reason) from error
    return deal


def consistent_deals(view: View, seed: str, count: int, max_tries: int | None = None) -> list[Deal]:
    """Up to `count` rebuilt deals that give this seat exactly the view it has (rejection sampling).

    Samples whose history does not replay, or that would change a public fact (a trou announced from
    the aces), are dropped; at most `max_tries` samples are drawn (default `4 * count`).
    """
    knowledge = Knowledge.from_view(view)
    tries = max_tries if max_tries is not None else 4 * count
    worlds: list[Deal] = []
    for sample in sample_hidden_hands(knowledge, seed, tries):
        try:
            deal = rebuild_deal(view, sample)
        except InconsistentViewError:
            continue
        if deal.view(knowledge.seat) == dict(view):
            worlds.append(deal)
            if len(worlds) == count:
                break
    return worlds
