"""One deal as a state machine: auction, naming trump, discards, play, end.

Four operations serve the server, the bots and the tests alike: `legal_actions(seat)`,
`apply(seat, action)` (which returns the public events it caused), `view(seat)` and `result()`.
An illegal or malformed action raises before anything changes.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from functools import cache
from itertools import combinations
from typing import Any

from .actions import ParsedAction, parse_action
from .cards import FULL_DECK, SUIT_NAMES, is_card, sort_hand
from .copying import CopyPlan, cloned, container, sets_in_list
from .deck import deal_from_seed
from .errors import IllegalAction, MalformedAction, MalformedRecord
from .fair import seed_commitment as commit_to
from .play import Phase, Trick, trick_winner
from .registry import as_ruleset
from .ruleset import Auction, Contract, Event, Ruleset, score_groups
from .views import seat_view

__all__ = ["SEATS", "Deal", "Phase", "Trick"]

SEATS = (0, 1, 2, 3)


@cache
def _compositions(total: int, parts: int) -> tuple[tuple[int, ...], ...]:
    """Every way to split `total` tricks among `parts` groups."""
    result = []
    for cuts in combinations(range(total + parts - 1), parts - 1):
        bounds = (-1, *cuts, total + parts - 1)
        result.append(tuple(bounds[i + 1] - bounds[i] - 1 for i in range(parts)))
    return tuple(result)


class Deal:
    """A single deal of any ruleset. Build it from hands (`Deal(...)`) or from a seed (`from_seed`)."""

    def __init__(
        self,
        ruleset: Ruleset | str,
        hands: Sequence[Sequence[str]],
        dealer: int,
        turn_up: str | None = None,
        house_rules: Mapping[str, Any] | None = None,
        *,
        seed: str | None = None,
        multiplier: int = 1,
        seed_commitment: str | None = None,
    ) -> None:
        self.ruleset = as_ruleset(ruleset)
        self.house_rules = self.ruleset.resolve_house_rules(house_rules)
        _check_deal(hands, dealer, turn_up, self.ruleset.has_turn_up(self.house_rules))
        self.dealer = dealer
        self.eldest = (dealer + 1) % 4
        self.dealt: tuple[tuple[str, ...], ...] = tuple(tuple(hand) for hand in hands)
        self.hands: list[set[str]] = [set(hand) for hand in hands]
        self.turn_up = turn_up
        self.seed = seed  # never part of a view before the deal ends
        # Public from the start (fair.py); given alone when the seed is still secret (a record mid-deal).
        self.seed_commitment = commit_to(seed) if seed is not None else seed_commitment
        self.multiplier = multiplier
        self.log: list[tuple[int, str]] = []
        self.calls: list[tuple[int, str]] = []  # the public part of the log: calls and trump naming
        self.phase = Phase.AUCTION
        self.contract: Contract | None = None
        self.discards: dict[int, str] = {}
        self.tricks: list[Trick] = []
        self.trick: Trick | None = None
        self.tricks_won = [0, 0, 0, 0]
        self.exposed: list[int] = []
        self.points: list[int] | None = None
        self.thrown_in = False
        self.auction: Auction = self.ruleset.new_auction(self)
        self.announcements: list[Event] = self.auction.opening_events()
        if self.auction.finished:
            self._close_auction([])

    @classmethod
    def from_seed(
        cls,
        ruleset: Ruleset | str,
        seed: str,
        dealer: int,
        house_rules: Mapping[str, Any] | None = None,
        multiplier: int = 1,
    ) -> Deal:
        """Shuffle and deal with `seed` (see `deck.py`) and start the auction."""
        rules = as_ruleset(ruleset)
        resolved = rules.resolve_house_rules(house_rules)
        hands, last_card = deal_from_seed(seed, dealer, rules.packets)
        turn_up = last_card if rules.has_turn_up(resolved) else None
        return cls(rules, hands, dealer, turn_up, house_rules, seed=seed, multiplier=multiplier)

    # ---------------------------------------------------------------- the four operations

    def to_act(self) -> frozenset[int]:
        """The seats that may act now."""
        if self.phase is Phase.AUCTION:
            return self.auction.to_act()
        if self.phase is Phase.TRUMP:
            assert self.contract is not None and self.contract.trump_chooser is not None
            return frozenset((self.contract.trump_chooser,))
        if self.phase is Phase.DISCARD:
            return frozenset(seat for seat in SEATS if seat not in self.discards)
        if self.phase is Phase.PLAY:
            assert self.trick is not None
            return frozenset(((self.trick.leader + len(self.trick.cards)) % 4,))
        return frozenset()

    def legal_actions(self, seat: int) -> list[str]:
        """Every action `seat` may take now, in canonical spelling (empty when it is not to act)."""
        if seat not in self.to_act():
            return []
        if self.phase is Phase.AUCTION:
            return self.auction.legal_actions(seat)
        if self.phase is Phase.TRUMP:
            assert self.contract is not None
            return [f"trump {suit or 'NT'}" for suit in self.ruleset.trump_options(self, self.contract)]
        if self.phase is Phase.DISCARD:
            return [f"discard {card}" for card in sort_hand(self.hands[seat])]
        return [f"play {card}" for card in sort_hand(self.playable_cards(seat))]

    def apply(self, seat: int, action: str) -> list[Event]:
        """Apply `action` for `seat`; returns the public events it caused.

        Raises `MalformedAction` if it is not an action of the vocabulary and `IllegalAction` (with
        the rule in its message) if the rules forbid it now. Nothing changes when either is raised.
        """
        if not isinstance(seat, int) or isinstance(seat, bool) or seat not in SEATS:
            raise MalformedAction(f"not a seat: {seat!r} (expected 0, 1, 2 or 3)")
        parsed = parse_action(action, self.ruleset.vocabulary)
        if self.phase is Phase.END:
            raise IllegalAction("the deal is over: no more actions are taken")
        acting = self.to_act()
        if seat not in acting:
            names = " or ".join(f"seat {s}" for s in sorted(acting))
            raise IllegalAction(f"not your turn: {names} to act")
        if self.phase is Phase.AUCTION:
            return self._apply_call(seat, parsed)
        if self.phase is Phase.TRUMP:
            return self._apply_trump(seat, parsed)
        if self.phase is Phase.DISCARD:
            return self._apply_discard(seat, parsed)
        return self._apply_play(seat, parsed)

    def view(self, seat: int | None) -> dict[str, Any]:
        """What `seat` may see (None: a spectator), built in `views.py` with `visibility.py`'s answers."""
        return seat_view(self, seat)

    def result(self) -> dict[str, Any]:
        """The deal's status and figures, in the shape the replay command prints."""
        contract = self.contract
        if self.thrown_in:
            status = "thrown_in"
        elif self.phase is Phase.END:
            status = "complete"
        else:
            status = "in_progress"
        return {
            "status": status,
            "contract": contract.name if contract else None,
            "declarers": sorted(contract.declarers) if contract else [],
            "trump": contract.trump if contract else None,
            "tricks": list(self.tricks_won),
            "points": list(self.points) if self.points is not None else [0, 0, 0, 0],
            "tricks_played": len(self.tricks),
        }

    # ---------------------------------------------------------------- helpers for rulesets and views

    @property
    def finished(self) -> bool:
        """Whether the deal has ended (played out, stopped early or thrown in)."""
        return self.phase is Phase.END

    def playable_cards(self, seat: int) -> list[str]:
        """The cards `seat` may play to the current trick (following suit when able)."""
        assert self.trick is not None
        hand = self.hands[seat]
        if not self.trick.cards:
            lead_card = self.contract.lead_card if self.contract else None
            if not self.tricks and lead_card is not None and lead_card in hand:
                return [lead_card]
            return list(hand)
        led_suit = self.trick.cards[0][1][1]
        following = [card for card in hand if card[1] == led_suit]
        return following or list(hand)

    @property
    def total_tricks(self) -> int:
        """How many tricks this deal plays when played out (12 after discards)."""
        return 12 if self.contract is not None and self.contract.discard else 13

    def clone(self) -> Deal:
        """An independent copy of this deal, to try actions on (bots, tests) without touching it.

        `_DEAL_COPY` names every field: a field added without a line there makes this raise. The
        auction copies itself (see `_clone_auction`)."""
        twin = _DEAL_COPY.copy(self)
        twin.auction = _clone_auction(self.auction, self, twin)
        return twin

    def to_record(self) -> dict[str, Any]:
        """The deal as a deal record (docs/deal-record.md) that replays to the same state."""
        defaults = {rule.name: rule.default for rule in self.ruleset.house_rules.values()}
        record: dict[str, Any] = {
            "ruleset": self.ruleset.name,
            "house_rules": {k: v for k, v in self.house_rules.items() if defaults.get(k) != v},
            "dealer": self.dealer,
            "hands": [" ".join(hand) for hand in self.dealt],
        }
        if self.turn_up is not None:
            record["turn_up"] = self.turn_up
        if self.multiplier != 1:
            record["multiplier"] = self.multiplier
        if self.seed_commitment is not None:
            record["seed_commitment"] = self.seed_commitment
        if self.seed is not None and self.finished:
            record["seed"] = self.seed
        record["actions"] = [[seat, action] for seat, action in self.log]
        return record

    # ---------------------------------------------------------------- phases

    def _apply_call(self, seat: int, parsed: ParsedAction) -> list[Event]:
        if parsed.verb in ("play", "discard"):
            raise IllegalAction(f"the auction is not over: no card can be {parsed.verb}ed yet")
        events = self.auction.apply(seat, parsed)
        self.log.append((seat, parsed.text))
        self.calls.append((seat, parsed.text))
        events.insert(0, {"type": "call", "seat": seat, "action": parsed.text})
        if self.auction.finished:
            self._close_auction(events)
        return events

    def _close_auction(self, events: list[Event]) -> None:
        contract = self.auction.contract()
        if contract is None:
            self.thrown_in = True
            self.phase = Phase.END
            self.points = [0, 0, 0, 0]
            events.append({"type": "thrown_in"})
            return
        self.contract = contract
        events.append({"type": "contract", "contract": contract.name, "declarers": list(contract.declarers),
                       "trump": contract.trump, "trump_chooser": contract.trump_chooser})
        if contract.trump_chooser is not None:
            self.phase = Phase.TRUMP
        else:
            self._after_trump(events)

    def _apply_trump(self, seat: int, parsed: ParsedAction) -> list[Event]:
        assert self.contract is not None
        if parsed.verb != "trump":
            raise IllegalAction("trump must be named first: use 'trump <suit>'")
        suit = parsed.args[0]
        options = self.ruleset.trump_options(self, self.contract)
        if suit not in options:
            allowed = ", ".join(option or "NT" for option in options)
            named = SUIT_NAMES.get(str(suit), "no trump")
            raise IllegalAction(f"cannot name {named} as trump here; choose {allowed}")
        assert suit is None or isinstance(suit, str)
        self.contract = self.contract.with_trump(suit)
        self.log.append((seat, parsed.text))
        self.calls.append((seat, parsed.text))
        events: list[Event] = [{"type": "trump", "seat": seat, "trump": suit}]
        self._after_trump(events)
        return events

    def _after_trump(self, events: list[Event]) -> None:
        assert self.contract is not None
        if self.contract.discard:
            self.phase = Phase.DISCARD
            events.append({"type": "discard_phase"})
        else:
            self._start_play(events)

    def _apply_discard(self, seat: int, parsed: ParsedAction) -> list[Event]:
        if parsed.verb != "discard":
            raise IllegalAction(
                "each player discards one card face down before trick 1: use 'discard <card>'"
            )
        card = str(parsed.args[0])
        if card not in self.hands[seat]:
            raise IllegalAction(f"cannot discard {card}: not in your hand")
        self.hands[seat].discard(card)
        self.discards[seat] = card
        self.log.append((seat, parsed.text))
        events: list[Event] = [{"type": "discard", "seat": seat}]  # the card stays hidden
        if len(self.discards) == 4:
            self._start_play(events)
        return events

    def _start_play(self, events: list[Event]) -> None:
        assert self.contract is not None
        self.phase = Phase.PLAY
        leader = self.contract.leader if self.contract.leader is not None else self.eldest
        self.trick = Trick(leader)
        if self.contract.expose == "before_play":
            self._expose(events)
        events.append({"type": "play_starts", "leader": leader})

    def _expose(self, events: list[Event]) -> None:
        assert self.contract is not None
        for seat in self.contract.declarers:
            self.exposed.append(seat)
            events.append({"type": "exposed", "seat": seat, "cards": sort_hand(self.hands[seat])})

    def _apply_play(self, seat: int, parsed: ParsedAction) -> list[Event]:
        assert self.trick is not None and self.contract is not None
        if parsed.verb != "play":
            raise IllegalAction("cards are being played: use 'play <card>'")
        card = str(parsed.args[0])
        hand = self.hands[seat]
        if card not in hand:
            raise IllegalAction(f"cannot play {card}: not in your hand")
        if card not in self.playable_cards(seat):
            if not self.trick.cards:
                raise IllegalAction(f"must lead {self.contract.lead_card}: the partner opens trick 1 with it")
            led = self.trick.cards[0][1][1]
            raise IllegalAction(f"must follow suit: holds {SUIT_NAMES[led]}")
        hand.discard(card)
        self.trick.cards.append((seat, card))
        self.log.append((seat, parsed.text))
        events: list[Event] = [{"type": "card", "seat": seat, "card": card}]
        if len(self.trick.cards) == 4:
            self._complete_trick(events)
        return events

    def _complete_trick(self, events: list[Event]) -> None:
        assert self.trick is not None and self.contract is not None
        trick = self.trick
        winner = trick_winner(trick.cards, self.contract.trump)
        trick.winner = winner
        self.tricks.append(trick)
        self.tricks_won[winner] += 1
        events.append({"type": "trick", "winner": winner, "cards": [[s, c] for s, c in trick.cards]})
        if len(self.tricks) == 1 and self.contract.expose == "after_trick1":
            self._expose(events)
        remaining = self.total_tricks - len(self.tricks)
        if remaining == 0 or (not self.ruleset.plays_out(self.contract) and self._points_settled(remaining)):
            self._finish(events)
        else:
            self.trick = Trick(winner)

    def _points_settled(self, remaining: int) -> bool:
        """D5/D8: whether every split of the remaining tricks among the groups gives the same points."""
        assert self.contract is not None
        groups = score_groups(self.contract)
        first: list[int] | None = None
        for split in _compositions(remaining, len(groups)):
            tricks = list(self.tricks_won)
            for group, extra in zip(groups, split, strict=True):
                tricks[group[0]] += extra
            points = self.ruleset.score(self.contract, tricks, self.house_rules)
            if first is None:
                first = points
            elif points != first:
                return False
        return True

    def _finish(self, events: list[Event]) -> None:
        assert self.contract is not None
        base = self.ruleset.score(self.contract, self.tricks_won, self.house_rules)
        self.points = [p * self.multiplier for p in base]
        self.phase = Phase.END
        self.trick = None
        events.append({"type": "end", "result": self.result()})


#: How `Deal.clone` copies each field. Shared: values that never change in place (the ruleset, the
#: resolved house rules, the hands as dealt, the contract...); the auction is replaced by its own copy.
#: Copied: the containers, whose items never change once added (completed tricks, log entries).
_DEAL_COPY = CopyPlan(
    "Deal",
    shared=("ruleset", "house_rules", "dealer", "eldest", "dealt", "turn_up", "seed", "seed_commitment",
            "multiplier", "phase", "contract", "thrown_in", "auction"),
    copied={"hands": sets_in_list, "log": list.copy, "calls": list.copy, "discards": dict.copy,
            "tricks": list.copy, "trick": cloned, "tricks_won": list.copy, "exposed": list.copy,
            "points": container, "announcements": list.copy},
)


def _clone_auction(auction: Auction, deal: Deal, twin: Deal) -> Auction:
    """The auction's own `clone()` when it has one, else a deep copy that shares what never changes."""
    own_clone = getattr(auction, "clone", None)
    if callable(own_clone):
        clone: Auction = own_clone()
        return clone
    # Keep links to the deal, the ruleset and the house rules pointing right; share immutable values.
    memo: dict[int, Any] = {id(deal): twin, id(deal.ruleset): deal.ruleset}
    memo[id(deal.house_rules)] = deal.house_rules
    for value in vars(auction).values():
        items = value if isinstance(value, list | tuple) else (value,)
        for item in items:
            if isinstance(item, frozenset | tuple | str):
                memo[id(item)] = item
    copied: Auction = copy.deepcopy(auction, memo)
    return copied


def _check_deal(
    hands: Sequence[Sequence[str]], dealer: object, turn_up: str | None, needs_turn_up: bool
) -> None:
    if not isinstance(dealer, int) or isinstance(dealer, bool) or dealer not in SEATS:
        raise MalformedRecord(f"dealer must be a seat 0-3, not {dealer!r}")
    if len(hands) != 4:
        raise MalformedRecord(f"a deal has four hands, not {len(hands)}")
    seen: set[str] = set()
    for seat, hand in enumerate(hands):
        if len(hand) != 13:
            raise MalformedRecord(f"hand of seat {seat} has {len(hand)} cards, not 13")
        for card in hand:
            if not isinstance(card, str) or not is_card(card):
                raise MalformedRecord(f"hand of seat {seat}: not a card: {card!r}")
            if card in seen:
                raise MalformedRecord(f"card {card} is dealt twice")
            seen.add(card)
    assert len(seen) == len(FULL_DECK)
    if needs_turn_up:
        if turn_up is None:
            raise MalformedRecord("this ruleset turns up the dealer's last card: 'turn_up' is required")
        if turn_up not in hands[dealer]:
            raise MalformedRecord(f"turn_up {turn_up} is not one of the dealer's cards")
    elif turn_up is not None:
        raise MalformedRecord("this ruleset turns up no card: 'turn_up' must be absent")
