"""The heuristic bot: bids from hand evaluation and plays by club rules of thumb, from the view alone.

Every decision is a pure function of the view: card memory is rebuilt from the view's public history
(`Knowledge.from_view`) each time and nothing is kept between calls, so two processes given the same
view give the same answer. The seed is accepted for the interface; this bot breaks every tie by a
fixed order instead of drawing at random.
"""

from __future__ import annotations

from .base import BotError, View, legal_actions_of
from .bidding import (
    BIDDERS,
    DEFAULT_THRESHOLDS,
    THRESHOLDS,
    Thresholds,
    bid_couleur_family,
    choose_discard,
    choose_trump,
)
from .knowledge import Knowledge
from .play import choose_card


class HeuristicBot:
    """Bidding by estimated tricks and misère risk; card play by memory of fallen cards and voids."""

    name = "heuristic"

    def __init__(self, thresholds: Thresholds | None = None) -> None:
        self.thresholds = thresholds  # None: the tuned thresholds of each ruleset

    def decide(self, view: View, seed: str, budget_ms: float = 20.0) -> str:
        """One action of `view["legal"]` for `view["seat"]`."""
        legal = legal_actions_of(view)
        if len(legal) == 1:
            return legal[0]
        action = self.choose(view)
        if action not in legal:
            # A bug in a rule of thumb must never stall a table: fall back to a fixed legal action.
            return "pass" if "pass" in legal else sorted(legal)[0]
        return action

    def choose(self, view: View) -> str:
        """The rule-of-thumb choice for the view's phase (`decide` checks it is legal)."""
        phase = view.get("phase")
        if phase == "auction":
            ruleset = str(view.get("ruleset"))
            bidder = BIDDERS.get(ruleset, bid_couleur_family)
            return bidder(view, self.thresholds or THRESHOLDS.get(ruleset, DEFAULT_THRESHOLDS))
        if phase == "trump":
            return choose_trump(view)
        if phase == "discard":
            return choose_discard(view)
        if phase == "play":
            return "play " + choose_card(view, Knowledge.from_view(view))
        raise BotError(f"no decision to make in phase {phase!r}")
