"""What a Belgian auction knows at one moment, and the questions the refusal rules ask of it.

Each seat holds at most one *standing* call (a team's call is shared by its two members). A proposal
whose proposer's turn comes back has lapsed: it still stands (nothing lower may be called over it) until
its proposer renews it, replaces it or passes (D6). A call must rank above the highest standing call;
only a misère may equal the current misère.

The state changes only in `belgian_auction.py`; copying it (`clone`) copies every field by its type.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from ..cards import SUITS
from ..copying import CopyPlan, container, emptied, sets_in_dict
from ..ruleset import DealFacts
from .belgian_data import AuctionData, Call

SEATS = (0, 1, 2, 3)

#: The key below every call: what "the highest call" is before anybody calls.
NO_KEY = (-1, -1)

State = TypeVar("State", bound="AuctionState")


class AuctionState:
    """The fields of one auction; `data` and `house_rules` never change, the rest does."""

    def __init__(self, data: AuctionData, deal: DealFacts) -> None:
        self.data = data
        self.house_rules: Mapping[str, Any] = deal.house_rules
        self.hands = tuple(frozenset(hand) for hand in deal.dealt)
        self.suits_held = tuple(frozenset(card[1] for card in hand) for hand in deal.dealt)
        self.eldest = deal.eldest
        self.reference_trump = deal.turn_up[1] if deal.turn_up else None
        self.standing: dict[int, Call] = {}  # in the order the calls were made
        self.passed: set[int] = set()
        self.bound: set[int] = set()  # accepted, were accepted or called a solo
        self.spoken: set[int] = set()
        self.engaged: set[int] = set()  # proposed, renewed (maintained) or accepted: the club's solo rule
        self.proposed: dict[int, set[str]] = {seat: set() for seat in SEATS}
        self.partnered: dict[int, set[str]] = {seat: set() for seat in SEATS}  # proposals that were accepted
        self.renewed: set[tuple[int, str]] = set()
        self.speaker_passed: dict[int, str] = {}  # team proposer -> the team's suit, once its speaker passed
        self.silent: set[int] = set()  # the trou's two players
        self.trou: dict[str, Any] | None = None
        self.awaiting_answer: int | None = None  # the club's bouche-trou, until he answers the trou
        self.turn: int | None = None
        self.done = False
        self.legal_cache: dict[int, list[str]] = {}  # emptied by every change
        self.solo_cache: dict[int, list[str]] = {}  # likewise

    def clone(self: State) -> State:
        """An independent copy, for `Deal.clone` (see `_AUCTION_COPY`)."""
        return _AUCTION_COPY.copy(self)

    # ---------------------------------------------------------------- standing calls

    def top(self, seat: int | None = None) -> Call | None:
        """The highest live call; for the seat to act, its own lapsed proposal no longer counts."""
        lapsed = self.lapsed(seat)
        live = [call for call in self.standing.values() if call is not lapsed]
        return max(live, key=lambda call: call.key) if live else None

    def top_key(self, seat: int | None = None) -> tuple[int, int]:
        """The key of `top(seat)`, or `NO_KEY`."""
        top = self.top(seat)
        return top.key if top is not None else NO_KEY

    def lapsed(self, seat: int | None) -> Call | None:
        """The proposal of `seat` if it is its turn and nobody accepted it: it has lapsed (D6)."""
        call = self.standing.get(seat) if seat is not None and seat == self.turn else None
        return call if call is not None and call.kind == "proposal" else None

    def lapsed_suit(self, seat: int) -> str | None:
        """The suit of `seat`'s lapsed proposal (the one it may renew), or None."""
        lapsed = self.lapsed(seat)
        return lapsed.suit if lapsed is not None else None

    def holders(self) -> list[int]:
        """The seats holding the highest call (two for a team, several for equal misères)."""
        top = self.top()
        return [] if top is None else sorted(s for s, call in self.standing.items() if call.key == top.key)

    def speaks_for_team(self, seat: int) -> bool:
        """Whether `seat` accepted a proposal: the acceptor speaks for the team."""
        call = self.standing.get(seat)
        return call is not None and call.kind == "emballage" and call.seats[1] == seat

    def may_speak(self, seat: int) -> bool:
        """Whether `seat` gets a turn: not passed, not silent, not holding the top call or a team's
        proposer (his acceptor speaks for the team)."""
        if seat in self.passed or seat in self.silent:
            return False
        call = self.standing.get(seat)
        if call is None or call.kind == "proposal":  # a proposer's turn coming back: his proposal lapses
            return True
        if call.kind == "emballage" and call.seats[0] == seat:
            return False
        return call.key != self.top_key()

    def holds(self, seat: int, suit: str | None) -> bool:
        """Whether `seat` was dealt a card of `suit`."""
        return suit in self.suits_held[seat]

    def first_turn(self, seat: int) -> bool:
        """Whether `seat` has not spoken yet (abondance and some chelems need it)."""
        return seat not in self.spoken

    def open_proposal(self, suit: str, other_than: int) -> int | None:
        """The seat whose proposal in `suit` still waits for a partner, unless it is `other_than`'s."""
        return next((proposer for proposer, call in self.standing.items()
                     if call.kind == "proposal" and call.suit == suit and proposer != other_than), None)

    def accept_levels(self, seat: int, suit: str) -> list[int]:
        """The emballage levels at which `seat` may accept an open proposal in `suit` (lowest = default)."""
        if seat in self.bound or not self.holds(seat, suit) or self.open_proposal(suit, seat) is None:
            return []
        top = self.top_key(seat)
        return [level for level in self.data.emballage_levels
                if self.data.key("emballage", level, suit) >= top]

    # ---------------------------------------------------------------- solos

    def solo_suits(self, seat: int) -> list[str]:
        """The suits `seat` may play a solo in, by the ruleset's `solo_rule` (see `SOLO_SUITS`)."""
        found = self.solo_cache.get(seat)
        if found is None:
            found = self.solo_cache[seat] = SOLO_SUITS[self.data.solo_rule](self, seat)
        return found


def _solo_once_engaged(state: AuctionState, seat: int) -> list[str]:
    """The club: any suit, once the seat proposed, maintained or accepted."""
    return list(SUITS) if seat in state.engaged else []


def _solo_without_partner(state: AuctionState, seat: int) -> list[str]:
    """Couleur (D6): a suit it proposed without finding a partner, its team's suit once the team's
    speaker passed, the suit of its own solo (to raise it), or any suit when nobody else can accept."""
    suits = state.proposed[seat] - state.partnered[seat]
    if seat in state.speaker_passed:
        suits = suits | {state.speaker_passed[seat]}
    current = state.standing.get(seat)
    if current is not None and current.kind == "solo" and current.suit is not None:
        suits = suits | {current.suit}
    if all(other in state.passed or other in state.bound for other in SEATS if other != seat):
        suits = set(SUITS)
    return [suit for suit in SUITS if suit in suits]


#: The seed's `solo_rule`: which suits a seat may play a solo in.
SOLO_SUITS = {"engaged": _solo_once_engaged, "partnerless": _solo_without_partner}


#: How `AuctionState.clone` copies each field (see `copying.py`): the data, the hands and the counters
#: are shared; the calls (immutable) are shared inside copied containers; the caches start afresh.
_AUCTION_COPY = CopyPlan(
    "AuctionState",
    shared=("data", "house_rules", "hands", "suits_held", "eldest", "reference_trump", "awaiting_answer",
            "turn", "done"),
    copied={"standing": dict.copy, "passed": set.copy, "bound": set.copy, "spoken": set.copy,
            "engaged": set.copy, "proposed": sets_in_dict, "partnered": sets_in_dict,
            "renewed": set.copy, "speaker_passed": dict.copy, "silent": set.copy, "trou": container,
            "legal_cache": emptied, "solo_cache": emptied},
)
