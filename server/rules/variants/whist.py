"""Classic partnership whist (`whist`): fixed partnerships, no auction, trump from the turn-up.

Seats 0-2 play against 1-3. The dealer's last card is turned up and its suit is trump; eldest leads
and all 13 tricks are played. Each member of the side that takes more than six tricks scores one point
per trick over six, the other side 0; with the house rule `honours`, a side dealt all four trump
honours (A K Q J) scores 4 more, three of them 2 more. A session runs to the house rule `target`.
The figures are in `seeds/whist.toml`; docs/adding-a-ruleset.md walks through this module.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..actions import ParsedAction
from ..errors import IllegalAction
from ..ruleset import Contract, DealFacts, Event, FinishedDeal, Ruleset

#: The contract's name in results and views: every deal of this ruleset plays the same contract.
CONTRACT = "whist"


@dataclass(frozen=True, slots=True)
class NoAuction:
    """The auction of a ruleset without one: closed from the start, with the contract already known.
    It never changes (frozen), so a copy of a deal shares it."""

    _contract: Contract

    def to_act(self) -> frozenset[int]:
        """Nobody speaks."""
        return frozenset()

    def legal_actions(self, seat: int) -> list[str]:
        """No call is ever legal."""
        return []

    def apply(self, seat: int, action: ParsedAction) -> list[Event]:
        """Never reached (the deal starts in play); refuses any call."""
        raise IllegalAction("there is no auction in this ruleset: play a card")

    @property
    def finished(self) -> bool:
        """Always: the deal goes straight to play."""
        return True

    def contract(self) -> Contract:
        """The one contract of the deal."""
        return self._contract

    def public_state(self) -> dict[str, Any]:
        """Nothing to show: there were no calls."""
        return {}

    def opening_events(self) -> list[Event]:
        """Nothing is announced before play."""
        return []

    def clone(self) -> NoAuction:
        """Frozen: the auction itself."""
        return self


class Whist(Ruleset):
    """Classic partnership whist, scored per side."""

    name = "whist"

    def __init__(self) -> None:
        super().__init__()
        partnerships = self.data["partnerships"]
        self.sides: list[tuple[int, ...]] = [tuple(side) for side in partnerships["sides"]]
        self.book = int(partnerships["book"])
        honours = self.data["honours"]
        self.honour_ranks: tuple[str, ...] = tuple(honours["cards"])
        self.honour_points = {len(self.honour_ranks): int(honours["all_four"]), 3: int(honours["three"])}

    def side_of(self, seat: int) -> tuple[int, ...]:
        """The partnership `seat` belongs to."""
        return next(side for side in self.sides if seat in side)

    def new_auction(self, deal: DealFacts) -> NoAuction:
        """No auction: trump is the turn-up's suit; declarers are the dealer's side (who turned it up)."""
        assert deal.turn_up is not None  # required by the data file ([deal] turn_up)
        trump = deal.turn_up[1]
        contract = Contract(CONTRACT, CONTRACT, tuple(sorted(self.side_of(deal.dealer))), self.book + 1,
                            trump, team=True, extra={"honours": self.honours(deal.dealt, trump)})
        return NoAuction(contract)

    def honours(self, dealt: Sequence[Sequence[str]], trump: str) -> list[int]:
        """The honour points each seat's side would score: 4 for all four trump honours dealt to the
        side, 2 for three of them (the turn-up counts in the dealer's hand)."""
        points = [0, 0, 0, 0]
        for side in self.sides:
            held = sum(1 for seat in side for card in dealt[seat]
                       if card[1] == trump and card[0] in self.honour_ranks)
            for seat in side:
                points[seat] = self.honour_points.get(held, 0)
        return points

    def score(self, contract: Contract, tricks: Sequence[int], house_rules: Mapping[str, Any]) -> list[int]:
        """Each member of the side over the book scores the tricks over six; honours when the house rule
        is on."""
        points = [0, 0, 0, 0]
        for side in self.sides:
            over = sum(tricks[seat] for seat in side) - self.book
            for seat in side:
                points[seat] = max(over, 0)
        if house_rules["honours"]:
            points = [p + h for p, h in zip(points, contract.extra["honours"], strict=True)]
        return points

    def session_target(self, house_rules: Mapping[str, Any]) -> int | None:
        """The house rule `target`: the session ends when a side reaches it."""
        return int(house_rules["target"])

    def points_problem(self, deal: FinishedDeal) -> str | None:
        """Partners score alike, nobody scores below 0, and only one side scores for tricks."""
        points = deal.points or [0, 0, 0, 0]
        for side in self.sides:
            if len({points[seat] for seat in side}) != 1:
                return f"partners {side} scored differently: {points}"
        if min(points) < 0:
            return f"whist never takes points away: {points}"
        return None
