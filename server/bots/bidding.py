"""Bidding, naming trump and discarding, from the view: one bidder per ruleset family.

Every bidder looks only at `view["legal"]`, the seat's own hand, the public calls and the turn-up. It
turns each legal call into a "justified or not" test on the hand (trick estimates per trump suit,
misère risk card by card) and makes the most valuable justified call, else passes. The thresholds are
class data (`Thresholds`) so that they can be tuned with the match tool and read in one place.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from server.rules.cards import SUITS

from .evaluate import best_suits, misere_discard, misere_risk, trick_estimate
from .knowledge import rank

View = Mapping[str, Any]


@dataclass(frozen=True)
class Thresholds:
    """The hand strength each call needs (tricks expected alone, or the most misère risk allowed)."""

    propose: float = 4.0  # emballage / prop: the partner is expected to bring the rest of 8
    accept: float = 3.5  # emballer / cop: support for the proposer's suit
    accept_length: int = 3  # ... and at least this many cards of it (or a strong estimate)
    partner_brings: float = 4.5  # what an acceptance or a raise counts on from the partner
    team_margin_per_level: float = 0.75  # a team contract of level L needs L + this * (L - 8) tricks,
    # and a solo of level L needs L + solo_margin + this * (L - 6): estimates run high near the top
    solo_margin: float = 0.5  # a solo of N needs N + margin
    abundance_margin: float = 0.3
    chelem: float = 12.6
    misere: float = 1.0  # grande misère / misère
    misere_spread: float = 0.0  # misère étalée, spread misère: the hand is face up, nothing may be risky
    piccolo: float = 0.8


DEFAULT_THRESHOLDS = Thresholds()

#: Thresholds per ruleset, tuned with the match tool (docs/bots.md, "Tuning").
THRESHOLDS: dict[str, Thresholds] = {
    "solo-whist": Thresholds(solo_margin=0.0, misere=3.0),
    "couleur": Thresholds(propose=3.0, solo_margin=0.0, misere=3.0),
    "belge-club": Thresholds(propose=3.5, solo_margin=0.0, misere=3.0),
}


def _hand(view: View) -> list[str]:
    return list(view["hand"])


def _suit_length(hand: Sequence[str], suit: str) -> int:
    return sum(1 for c in hand if c[1] == suit)


# -------------------------------------------------------------------- Solo Whist

def bid_solo_whist(view: View, t: Thresholds = DEFAULT_THRESHOLDS) -> str:
    """A call for Solo Whist (docs/rules.md §1): the highest call the hand justifies, else pass."""
    legal = list(view["legal"])
    hand = _hand(view)
    turn_up = view.get("turn_up")
    trump = turn_up[1] if turn_up else None
    # Without a turn-up the caller names trump: count his best suit.
    turn_up_estimate = trick_estimate(hand, trump) if trump else best_suits(hand)[0][0]
    other_best = max((e for e, s in best_suits(hand) if s != trump), default=0.0)
    any_best = best_suits(hand)[0][0]
    justified: dict[str, bool] = {
        "abundance-declared": any_best >= t.chelem,
        "spread-misere": misere_risk(hand) <= t.misere_spread,
        "royal-abundance": turn_up_estimate >= 9 + t.abundance_margin,
        "abundance": other_best >= 9 + t.abundance_margin,
        "misere": misere_risk(hand) <= t.misere,
        "solo": turn_up_estimate >= 5 + t.solo_margin,
        "cop": turn_up_estimate >= t.accept,
        "prop": turn_up_estimate >= t.propose,
    }
    for call in justified:  # highest first
        if call in legal and justified[call]:
            return call
    return "pass"


# -------------------------------------------------------------------- couleur and belge-club

def _parse(action: str) -> tuple[str, list[str]]:
    verb, *args = action.split(" ")
    return verb, args


def _my_suit(view: View) -> str | None:
    """The suit of this seat's latest proposal or acceptance, from the public calls."""
    seat = view["seat"]
    for caller, action in reversed(view.get("calls") or []):
        verb, args = _parse(action)
        if caller == seat and verb in ("propose", "accept") and args:
            return args[0]
    return None


def _team_suit(view: View) -> str | None:
    """The suit of the team this seat belongs to (as proposer or acceptor), if any."""
    seat = view["seat"]
    calls = view.get("calls") or []
    mine = _my_suit(view)
    if mine is not None:
        return mine
    for caller, action in calls:
        verb, args = _parse(action)
        # An acceptance of a suit this seat proposed makes it this seat's team suit.
        if verb == "accept" and args and caller != seat and any(
                c == seat and a == f"propose {args[0]}" for c, a in calls):
            return args[0]
    return None


def _first_turn(view: View) -> bool:
    seat = view["seat"]
    return not any(caller == seat for caller, _ in view.get("calls") or [])


def _piccolo_risk(hand: Sequence[str]) -> float | None:
    """Misère risk once one trick is conceded to the hand's best card; None without a clear winner."""
    aces = sorted((c for c in hand if c[0] == "A"), key=lambda c: _suit_length(hand, c[1]))
    if len(aces) != 1:
        return None
    rest = [c for c in hand if c != aces[0]]
    return misere_risk(rest)


def _default_accept_level(legal: Sequence[str], suit: str) -> int:
    """The level a bare `accept <suit>` stands for: the one below the lowest level offered explicitly
    (the engine lists `accept S` for the lowest level ranking high enough, then `accept S <level>` for
    each higher one, up to 13)."""
    explicit = [int(a.split(" ")[2]) for a in legal if a.startswith(f"accept {suit} ")]
    return min(explicit) - 1 if explicit else 13


def _team_need(t: Thresholds, level: int) -> float:
    """The tricks two hands must count on for a team contract of `level`: more margin higher up."""
    return level + t.team_margin_per_level * max(0, level - 8)


def bid_couleur_family(view: View, t: Thresholds = DEFAULT_THRESHOLDS) -> str:
    """A call for `couleur` or `belge-club` (docs/rules.md §2-3), chosen among `view["legal"]`.

    Each legal call gets a priority if the hand justifies it (higher on the ladder, higher
    priority) and the best one is made; a lone proposal, an acceptance and a raise need support.
    """
    legal = list(view["legal"])
    hand = _hand(view)
    estimates = {s: trick_estimate(hand, s) for s in SUITS}
    nt_estimate = trick_estimate(hand, None)
    risk = misere_risk(hand)
    risk_after_discard = misere_risk(hand, discards=1)
    team_suit = _team_suit(view)
    options: list[tuple[float, str]] = []

    def consider(priority: float, action: str) -> None:
        options.append((priority, action))

    for action in legal:
        verb, args = _parse(action)
        if verb == "grand-chelem" or verb == "petit-chelem":
            need = 13 if verb == "grand-chelem" else 12
            estimate = nt_estimate if args[0] == "NT" else estimates[args[0]]
            if estimate >= t.chelem - (13 - need):
                consider(200 + need + (1 if args[0] == "NT" else 0), action)
        elif verb == "abondance":
            level, suit = int(args[0]), args[1]
            if estimates[suit] >= level + t.abundance_margin:
                consider(100 + level + estimates[suit] / 100, action)
        elif verb in ("misere-etalee", "grande-misere-etalee"):
            if risk <= t.misere_spread:
                consider(95, action)
        elif verb == "petite-misere-etalee":
            if risk_after_discard <= t.misere_spread:
                consider(94, action)
        elif verb == "grande-misere":
            if risk <= t.misere:
                consider(90, action)
        elif verb == "piccolo":
            picc = _piccolo_risk(hand)
            if picc is not None and picc <= t.piccolo:
                consider(85, action)
        elif verb == "petite-misere":
            if risk_after_discard <= t.misere:
                consider(80, action)
        elif verb == "solo":
            level, suit = int(args[0]), args[1]
            if estimates[suit] >= level + t.solo_margin + t.team_margin_per_level * max(0, level - 6):
                consider(60 - level + estimates[suit] / 100, action)  # the lowest sufficient level
        elif verb == "raise":
            level = int(args[0])
            team_estimate = estimates[team_suit] + t.partner_brings if team_suit is not None else 0.0
            if team_estimate >= _team_need(t, level) + 0.5:
                consider(50 - level, action)
        elif verb == "accept":
            suit = args[0]
            level = int(args[1]) if len(args) > 1 else _default_accept_level(legal, suit)
            strong = estimates[suit] >= t.accept + 1.5
            if estimates[suit] >= t.accept and (_suit_length(hand, suit) >= t.accept_length or strong) \
                    and estimates[suit] + t.partner_brings >= _team_need(t, level):
                consider(40 - level + estimates[suit] / 100, action)
        elif verb == "propose":
            suit = args[0]
            if estimates[suit] >= t.propose and _suit_length(hand, suit) >= 4:
                consider(30 + estimates[suit] / 100, action)
        elif verb in ("renew", "maintain"):
            own = _my_suit(view)
            if own is not None and estimates[own] >= t.propose + 0.5:
                consider(25, action)
        elif verb == "trump":
            # The bouche-trou names the suit of his best estimate (with the partner's three aces).
            suit = args[0]
            if suit in estimates:
                consider(20 + estimates[suit] / 100, action)
    if not options:
        return "pass" if "pass" in legal else legal[0]
    return max(options, key=lambda o: (o[0], o[1]))[1]


# -------------------------------------------------------------------- trump and discards

def choose_trump(view: View) -> str:
    """Name the trump suit with the best trick estimate among the legal `trump` actions."""
    legal = [str(a) for a in view["legal"] if str(a).startswith("trump ")]
    hand = _hand(view)

    def estimate(action: str) -> tuple[float, str]:
        suit = action.split(" ")[1]
        return (trick_estimate(hand, None if suit == "NT" else suit), action)

    return max(legal, key=estimate)


def choose_discard(view: View) -> str:
    """Petite misère discard: a declarer sheds his most dangerous card, a defender his highest card."""
    hand = _hand(view)
    contract = view.get("contract") or {}
    if view["seat"] in (contract.get("declarers") or []):
        card = misere_discard(hand)
    else:
        card = max(hand, key=lambda c: (rank(c), -_suit_length(hand, c[1]), c[1]))
    action = f"discard {card}"
    return action if action in view["legal"] else sorted(view["legal"])[0]


Bidder = Callable[[View, Thresholds], str]

#: The bidder of each ruleset; a ruleset not listed gets `bid_couleur_family` (it reads only verbs).
BIDDERS: dict[str, Bidder] = {
    "solo-whist": bid_solo_whist,
    "couleur": bid_couleur_family,
    "belge-club": bid_couleur_family,
}
