"""Card play from the view alone, the same for every ruleset.

The contract in the view says what each side wants: a trick target (`level` >= 2), no trick at all
(a misère, level 0) or exactly one trick (piccolo, level 1). From the contract's declarers and `team`
flag each seat knows its partners. The rules of thumb are the ones a club player uses: cash winners,
do not overtake a partner's winning trick, ruff when an opponent is winning, draw trumps (as declarer,
or as a defender against an abundance), duck under the highest card in a misère and shed the
dangerous cards, and against a misère lead low in the declarer's suits to force a trick on him.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from server.rules.cards import SUITS

from .knowledge import Knowledge, beats, by_rank, rank, trick_winner

View = Mapping[str, Any]


@dataclass(frozen=True)
class Situation:
    """The seat's side and aim in the contract being played."""

    knowledge: Knowledge
    seat: int
    declarers: tuple[int, ...]
    partners: tuple[int, ...]  # the other seats on this seat's side
    opponents: tuple[int, ...]
    level: int
    declaring: bool
    trump: str | None

    @property
    def aim(self) -> str:
        """`tricks` (reach or stop a target), `zero` (a misère) or `one` (piccolo)."""
        if self.level == 0:
            return "zero"
        if self.level == 1:
            return "one"
        return "tricks"

    def is_friend(self, seat: int) -> bool:
        """Whether `seat` is this seat or a partner."""
        return seat == self.seat or seat in self.partners


def situation(view: View, knowledge: Knowledge) -> Situation:
    """Who plays with whom in the view's contract."""
    contract = view["contract"]
    seat = knowledge.seat
    declarers = tuple(int(s) for s in contract["declarers"])
    declaring = seat in declarers
    if declaring:
        partners = tuple(s for s in declarers if s != seat) if contract.get("team") else ()
    else:
        partners = tuple(s for s in range(4) if s != seat and s not in declarers)
    opponents = tuple(s for s in range(4) if s != seat and s not in partners)
    return Situation(knowledge, seat, declarers, partners, opponents, int(contract["level"]), declaring,
                     contract.get("trump"))


def choose_card(view: View, knowledge: Knowledge) -> str:
    """The card to play: one of the cards in `view["legal"]`."""
    cards = [str(action)[5:] for action in view["legal"] if str(action).startswith("play ")]
    if len(cards) == 1:
        return cards[0]
    sit = situation(view, knowledge)
    trick = view.get("trick") or {"cards": []}
    played = [(int(s), str(c)) for s, c in trick["cards"]]
    aim = sit.aim
    if aim == "one":
        # Piccolo: the declarer wants exactly one trick; the defenders keep him off it, then force a second.
        taken = sum(view["tricks_won"][s] for s in sit.declarers)
        if sit.declaring:
            return _play_for_one(sit, cards, played, taken, len(view.get("tricks") or []))
        if taken == 0:
            return _play_tricks(sit, cards, played, view)  # win the tricks ourselves
        return _defend_misere(sit, cards, played)  # he has his trick: force a second on him
    if aim == "zero":
        return _play_misere(sit, cards, played) if sit.declaring else _defend_misere(sit, cards, played)
    return _play_tricks(sit, cards, played, view)


# -------------------------------------------------------------------- trick-taking play

def _later_seats(played: Sequence[tuple[int, str]], seat: int) -> list[int]:
    """The seats still to play to this trick after `seat`."""
    already = {s for s, _ in played}
    return [(seat + k) % 4 for k in range(1, 4) if (seat + k) % 4 not in already]


def _safe(sit: Situation, card: str, led: str, later: Sequence[int]) -> bool:
    """Whether `card`, winning now, cannot be beaten by an opponent still to play."""
    return not any(sit.knowledge.could_beat(s, card, led) for s in later if not sit.is_friend(s))


def _play_tricks(sit: Situation, cards: list[str], played: list[tuple[int, str]], view: View) -> str:
    if not played:
        return _lead_tricks(sit, cards, view)
    trump = sit.trump
    led = played[0][1][1]
    win_seat, win_card = trick_winner(played, trump)
    later = _later_seats(played, sit.seat)
    winners = [c for c in cards if beats(c, win_card, trump)]
    if sit.is_friend(win_seat) and _safe(sit, win_card, led, later):
        return _throw(sit, cards)  # do not overtake a partner's winning trick
    safe_winners = [c for c in winners if _safe(sit, c, led, later)]
    if safe_winners:
        return _cheapest_winner(safe_winners, trump)
    if sit.is_friend(win_seat):
        return _throw(sit, cards)
    if winners:
        following = [c for c in winners if c[1] == led]
        if following:
            if len(played) == 1:
                return _throw(sit, cards)  # second hand low
            return by_rank(following)[-1]  # third hand high
        # Ruff when an opponent is winning (no trump is sure to hold: ruff as low as wins now).
        return by_rank(winners)[0]
    return _throw(sit, cards)


def _cheapest_winner(winners: list[str], trump: str | None) -> str:
    """The lowest winning card, keeping trumps when a card of another suit wins too."""
    plain = [c for c in winners if c[1] != trump]
    return by_rank(plain or winners)[0]


def _throw(sit: Situation, cards: list[str]) -> str:
    """The least useful card: lowest in the suit led, else a low card of a weak side suit."""
    k = sit.knowledge
    suits = {c[1] for c in cards}
    if len(suits) == 1:
        return by_rank(cards)[0]
    # Discarding: keep trumps and masters; shed from the suit with the least trick-taking value,
    # preferring short suits (a void lets us ruff later).
    candidates = [c for c in cards if c[1] != sit.trump] or cards

    def value(card: str) -> tuple[int, int, int]:
        suit_cards = [c for c in cards if c[1] == card[1]]
        masters = sum(1 for c in suit_cards if k.is_master(c, sit.partners))
        return (1 if k.is_master(card, sit.partners) else 0, masters * 2 + len(suit_cards), rank(card))

    return min(by_rank(candidates), key=value)


def _lead_tricks(sit: Situation, cards: list[str], view: View) -> str:
    k = sit.knowledge
    trump = sit.trump
    opponents = sit.opponents
    if len(cards) == 1:
        return cards[0]
    my_trumps = [c for c in cards if c[1] == trump]
    opp_may_trump = trump is not None and any(k.may_hold_suit(s, trump) for s in opponents)
    outstanding_trumps = [c for c in k.outstanding(trump) if not any(c in k.known[p] for p in sit.partners)] \
        if trump else []
    # Draw trumps: the declarer side when it is long in trumps, and the defenders against an abundance.
    if my_trumps and opp_may_trump:
        drawing = sit.declaring and len(my_trumps) >= max(1, len(outstanding_trumps) // 2)
        against_abundance = not sit.declaring and sit.level >= 9 and len(sit.declarers) == 1
        if drawing or against_abundance:
            masters = [c for c in my_trumps if k.is_master(c, sit.partners)]
            if masters:
                return by_rank(masters)[-1]
            if against_abundance or len(my_trumps) >= len(outstanding_trumps):
                return by_rank(my_trumps)[0]
    # Cash winners in side suits that no opponent can ruff.
    masters = [c for c in cards if k.is_master(c, sit.partners) and c[1] != trump]
    for card in sorted(masters, key=lambda c: (-rank(c), c[1])):
        if not opp_may_trump or not any(card[1] in k.voids[s] and k.may_hold_suit(s, trump or "")
                                        for s in opponents):
            return card
    if my_trumps and not opp_may_trump:
        trump_masters = [c for c in my_trumps if k.is_master(c, sit.partners)]
        if trump_masters:
            return by_rank(trump_masters)[-1]
    # Give a partner a ruff: a suit he has shown void in while he may still hold trumps.
    if trump:
        for partner in sit.partners:
            for suit in SUITS:
                if suit != trump and suit in k.voids[partner] and k.may_hold_suit(partner, trump):
                    in_suit = [c for c in cards if c[1] == suit]
                    if in_suit:
                        return by_rank(in_suit)[0]
    # Otherwise lead from the longest side suit: the top of a sequence, else a low card.
    side = [c for c in cards if c[1] != trump] or cards

    def suit_score(suit: str) -> tuple[int, int]:
        suit_cards = [c for c in side if c[1] == suit]
        lone_king = any(c[0] == "K" for c in suit_cards) and len(suit_cards) <= 2
        return (len(suit_cards) - (3 if lone_king else 0), max(rank(c) for c in suit_cards))

    suit = max(sorted({c[1] for c in side}), key=suit_score)
    suit_cards = by_rank([c for c in side if c[1] == suit])
    top = suit_cards[-1]
    if len(suit_cards) >= 2 and rank(suit_cards[-2]) == rank(top) - 1 and rank(top) >= 12:
        return top  # the top of an honour sequence (K Q, Q J)
    return suit_cards[0]


# -------------------------------------------------------------------- misère play

def _danger(k: Knowledge, card: str) -> int:
    """How exposed a card is in a misère: the unplayed cards below it that others may duck with."""
    return sum(1 for c in k.outstanding(card[1]) if rank(c) < rank(card))


def _play_misere(sit: Situation, cards: list[str], played: list[tuple[int, str]]) -> str:
    k = sit.knowledge
    if not played:
        # Lead the card most likely to be beaten: few lower cards out, many higher ones.
        def lead_key(card: str) -> tuple[int, int, int]:
            higher = sum(1 for c in k.outstanding(card[1]) if rank(c) > rank(card))
            return (_danger(k, card), -higher, rank(card))

        return min(by_rank(cards), key=lead_key)
    led = played[0][1][1]
    _, win_card = trick_winner(played, sit.trump)
    following = [c for c in cards if c[1] == led]
    if following:
        under = [c for c in following if not beats(c, win_card, sit.trump)]
        if under:
            return by_rank(under)[-1]  # duck under the highest card with the highest card that ducks
        if len(played) == 3:
            return by_rank(following)[-1]  # the trick is lost anyway: shed the highest
        return by_rank(following)[0]  # hope a later player must play higher
    # Void: shed the most dangerous card.
    return max(by_rank(cards), key=lambda c: (_danger(k, c), rank(c)))


def _defend_misere(sit: Situation, cards: list[str], played: list[tuple[int, str]]) -> str:
    k = sit.knowledge
    targets = [s for s in sit.declarers if s not in sit.partners and s != sit.seat]
    if not played:
        return _lead_against_misere(sit, cards, targets)
    led = played[0][1][1]
    win_seat, win_card = trick_winner(played, sit.trump)
    later = _later_seats(played, sit.seat)
    following = [c for c in cards if c[1] == led]
    target_to_play = any(s in targets for s in later)
    if win_seat in targets:
        # A declarer is winning: never overtake him.
        if following:
            under = [c for c in following if not beats(c, win_card, sit.trump)]
            return by_rank(under)[-1] if under else by_rank(following)[0]
        return _shed_high(k, cards)
    if target_to_play:
        # Keep the winning card low so that the declarer has to go over it.
        if following:
            return by_rank(following)[0]
        return _shed_high(k, cards)
    # The declarer has ducked: get rid of high cards, keep the low ones for leading.
    if following:
        return by_rank(following)[-1]
    return _shed_high(k, cards)


def _shed_high(k: Knowledge, cards: list[str]) -> str:
    """A defender's discard against a misère: the highest card, keeping low cards to lead later."""
    return max(by_rank(cards), key=lambda c: (rank(c), -len([x for x in cards if x[1] == c[1]])))


def _lead_against_misere(sit: Situation, cards: list[str], targets: list[int]) -> str:
    k = sit.knowledge

    def key(card: str) -> tuple[int, int, int]:
        suit = card[1]
        live = [s for s in targets if k.may_hold_suit(s, suit)]
        if not live:
            return (1, 99, rank(card))  # a suit no declarer holds cannot force him
        exposed = [s for s in live if k.unknown_count(s) == 0]
        if exposed:
            # The declarer's hand is face up: lead under his lowest card in the suit.
            lowest = min(rank(c) for s in exposed for c in k.known[s] if c[1] == suit)
            return (0, -(lowest - rank(card)), rank(card))
        return (0, _danger(k, card), rank(card))

    return min(by_rank(cards), key=key)


def _play_for_one(sit: Situation, cards: list[str], played: list[tuple[int, str]], taken: int,
                  tricks_done: int) -> str:
    """Piccolo declarer: take one trick (cheaply, late or as last hand), then play a misère."""
    if taken >= 1:
        return _play_misere(sit, cards, played)
    if played:
        _, win_card = trick_winner(played, sit.trump)
        winners = [c for c in cards if beats(c, win_card, sit.trump)]
        led = played[0][1][1]
        later = _later_seats(played, sit.seat)
        safe = [c for c in winners if _safe(sit, c, led, later)]
        if safe and (len(played) == 3 or tricks_done >= 6):
            return by_rank(safe)[0]
        if winners and tricks_done >= 10:
            return by_rank(winners)[-1]
        return _play_misere(sit, cards, played)
    masters = [c for c in cards if sit.knowledge.is_master(c)]
    if masters and tricks_done >= 4:
        return by_rank(masters)[0]
    return _play_misere(sit, cards, played)
