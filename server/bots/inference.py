"""Reading the auction: how likely a sampled deal of the hidden cards is, given the calls each seat made.

`sample_hidden_hands` already respects everything certain (hand sizes, shown voids, known cards, hidden
discards). The calls say more, but only in probability: a proposer usually holds length and strength in
his suit, a misère caller a low hand, a seat that passed at its first turn no strong suit. `world_weight`
scores a sampled deal by how well each other seat's dealt hand fits its calls (a product of soft
logistic factors over the hand evaluations the bots bid with), and gives zero weight to samples that
contradict a hard public fact (a proposal in a suit the hand never held, a trou without its aces, three
aces in one hand with no trou announced). The search then draws its worlds in proportion to the weights.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from server.rules.cards import SUITS

from .evaluate import best_suits, misere_risk, trick_estimate
from .knowledge import Knowledge, SampledDeal
from .play import choose_card

View = Mapping[str, Any]

#: Aces that make a trou, per ruleset (a ruleset not listed has no trou).
TROU_ACES: dict[str, tuple[int, ...]] = {"couleur": (3, 4), "belge-club": (3,)}

#: Trick estimate a suit call stands for (the middle of the logistic), per verb.
_SUIT_CALL_STRENGTH = {"propose": 3.5, "accept": 3.0, "prop": 4.0, "cop": 3.0, "solo": 5.0,
                       "raise": 4.5, "abondance": 8.5, "maintain": 3.5, "renew": 3.5}
_MISERE_VERBS = ("misere", "petite-misere", "grande-misere", "misere-etalee", "spread-misere",
                 "petite-misere-etalee", "grande-misere-etalee")


def _logistic(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-x))


def dealt_hands(knowledge: Knowledge, sample: SampledDeal) -> list[list[str]]:
    """Each seat's hand as dealt in the sample: its current cards, the cards it played, its discard."""
    hands = []
    for seat in range(4):
        cards = list(sample.hands[seat]) + list(knowledge.played_by[seat])
        if seat in sample.discards:
            cards.append(sample.discards[seat])
        hands.append(cards)
    return hands


def _call_suit(verb: str, args: Sequence[str], view: View) -> str | None:
    """The trump suit a call stands for, if any."""
    for arg in args:
        if arg in SUITS:
            return arg
    if verb in ("prop", "cop", "solo") and view.get("turn_up"):
        return str(view["turn_up"])[1]  # solo whist: the turn-up suit
    return None


def seat_factor(seat: int, hand: Sequence[str], calls: Sequence[tuple[int, str]], view: View) -> float:
    """How well `hand` fits the calls `seat` made (1.0: no information; 0.0: impossible)."""
    factor = 1.0
    first = True
    for caller, action in calls:
        if caller != seat:
            continue
        verb, *args = action.split(" ")
        suit = _call_suit(verb, args, view)
        if verb in ("propose", "accept", "renew", "maintain") and suit is not None \
                and not any(card[1] == suit for card in hand):
            return 0.0  # the rules require a card of the suit
        if verb == "pass":
            if first:
                best = best_suits(hand)[0][0]
                factor *= _logistic(1.5 * (5.0 - best))  # a first-turn pass: no strong suit
        elif verb in _MISERE_VERBS:
            factor *= _logistic(0.8 * (4.0 - misere_risk(hand, 1 if verb == "petite-misere" else 0)))
        elif verb == "piccolo":
            aces = sum(1 for card in hand if card[0] == "A")
            factor *= 0.3 if aces != 1 else _logistic(0.8 * (4.0 - misere_risk(hand)))
        elif verb == "trump" and suit is not None:
            estimate = trick_estimate(hand, suit)
            factor *= _logistic(1.0 * (estimate - best_suits(hand)[0][0] + 1.0))
        elif suit is not None and verb in _SUIT_CALL_STRENGTH:
            factor *= _logistic(1.2 * (trick_estimate(hand, suit) - _SUIT_CALL_STRENGTH[verb]))
        elif verb in ("abundance", "royal-abundance", "abundance-declared"):
            factor *= _logistic(1.0 * (best_suits(hand)[0][0] - 8.0))
        first = False
    return factor


def _trou_factor(view: View, hands: Sequence[Sequence[str]]) -> float:
    """Zero when the sampled aces contradict the trou announcement (or its absence)."""
    counts = TROU_ACES.get(str(view.get("ruleset")))
    if counts is None:
        return 1.0
    aces = [sum(1 for card in hand if card[0] == "A") for hand in hands]
    announced = [e for e in view.get("announcements") or [] if e.get("type") == "trou"]
    if not announced:
        return 0.0 if any(n in counts for n in aces) else 1.0
    holder, partner = int(announced[0]["seat"]), int(announced[0]["partner"])
    if aces[holder] not in counts:
        return 0.0
    if aces[holder] == 3 and aces[partner] != 1:
        return 0.0
    return 1.0


def world_weight(view: View, knowledge: Knowledge, sample: SampledDeal) -> float:
    """The relative likelihood of `sample` given the public calls (0 when it contradicts a public fact)."""
    hands = dealt_hands(knowledge, sample)
    weight = _trou_factor(view, hands)
    if weight == 0.0:
        return 0.0
    calls = [(int(s), str(a)) for s, a in view.get("calls") or []]
    for seat in range(4):
        if seat != knowledge.seat and knowledge.unknown_count(seat) > 0:
            weight *= seat_factor(seat, hands[seat], calls, view)
    return weight


# -------------------------------------------------------------------- reading the card play

#: A card another seat played that the model of its play (the heuristic bot's card play, cheap) would
#: not have chosen with the sampled hand multiplies the sample's weight by this. Soft, not zero: the
#: other seats do not play by the model, and a human or an expert often departs from it.
OFF_MODEL = 0.5
#: The latest plays of the other seats read, at most (each costs one heuristic decision per sample).
PLAYS_READ = 4


def play_weight(view: View, knowledge: Knowledge, sample: SampledDeal,
                cache: dict[tuple[Any, ...], str] | None = None) -> float:
    """How likely the other seats' cards played so far are if `sample` is the deal, under the model
    (a product of `OFF_MODEL` factors, 1.0 when every play is the model's).

    Each of the latest `PLAYS_READ` plays of a seat whose hand this seat does not see is replayed from
    that seat's point of view in the sample (its hand then: the sampled cards plus those it has played
    since), and compared with the heuristic bot's card there; a card with nothing between it and the
    model's card (all cards between them in that hand or fallen) counts as the model's. A play with one
    legal card says nothing. The hard facts (voids shown, cards seen) are the sampler's, not these.
    `cache` (one per decision: the same `view`) keeps the model's card per play and hand, so samples
    that agree on a hand (often, late in the deal) pay for it once.
    """
    contract = view.get("contract")
    if not contract or not contract.get("declarers"):
        return 1.0
    tricks = list(view.get("tricks") or [])
    current = view.get("trick")
    if current and current.get("cards"):
        tricks.append(current)
    plays = [(t, i, int(s), str(c))
             for t, trick in enumerate(tricks) for i, (s, c) in enumerate(trick["cards"])]
    exposed = {int(s): list(cards) for s, cards in (view.get("exposed") or {}).items()}
    weight = 1.0
    read = 0
    for index in range(len(plays) - 1, -1, -1):
        t, position, player, card = plays[index]
        if player == knowledge.seat or player in exposed or knowledge.unknown_count(player) <= 0:
            continue
        if read >= PLAYS_READ:
            break
        hand = list(sample.hands[player]) + [c for _, _, s, c in plays[index:] if s == player]
        trick_cards = tricks[t]["cards"][:position]
        led = str(trick_cards[0][1])[1] if trick_cards else None
        legal = [c for c in hand if c[1] == led] if led and any(c[1] == led for c in hand) else hand
        if len(legal) < 2:
            continue
        read += 1
        key = (index, tuple(sorted(hand)), sample.discards.get(player))
        model = cache.get(key) if cache is not None else None
        if model is None:
            past = _past_view(view, sample, tricks, plays, index, player, hand, legal, exposed)
            model = choose_card(past, Knowledge.from_view(past))
            if cache is not None:
                cache[key] = model
        if model != card and not _adjacent(model, card, hand, {c for *_, c in plays[:index]}):
            weight *= OFF_MODEL
    return weight


RANK_ORDER = "23456789TJQKA"


def _adjacent(a: str, b: str, hand: Sequence[str], fallen: set[str]) -> bool:
    """Whether cards `a` and `b` of one hand are equivalent: same suit, every card between them in the
    hand or fallen."""
    if a[1] != b[1]:
        return False
    low, high = sorted((RANK_ORDER.index(a[0]), RANK_ORDER.index(b[0])))
    between = {RANK_ORDER[r] + a[1] for r in range(low + 1, high)}
    return between <= set(hand) | fallen


def _past_view(view: View, sample: SampledDeal, tricks: Sequence[Mapping[str, Any]],
               plays: Sequence[tuple[int, int, int, str]], index: int, player: int, hand: Sequence[str],
               legal: Sequence[str], exposed: Mapping[int, Sequence[str]]) -> dict[str, Any]:
    """The view `player` had just before play number `index`, had `sample` been the deal (what the
    heuristic's card play reads of it)."""
    t, position = plays[index][0], plays[index][1]
    later = plays[index:]
    counts = [int(n) + sum(1 for _, _, s, _ in later if s == seat)
              for seat, n in enumerate(view["hand_counts"])]
    won = [0, 0, 0, 0]
    for trick in tricks[:t]:
        if trick.get("winner") is not None:
            won[int(trick["winner"])] += 1
    past = dict(view)
    past.update(
        seat=player, hand=list(hand), hand_counts=counts, tricks=list(tricks[:t]), tricks_won=won,
        trick={"leader": tricks[t]["leader"], "cards": list(tricks[t]["cards"][:position])},
        legal=[f"play {c}" for c in legal], discarded=sample.discards.get(player),
        exposed={str(s): list(cards) + [c for _, _, p, c in later if p == s] for s, cards in exposed.items()},
    )
    return past
