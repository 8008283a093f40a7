"""The two Belgian rulesets' common hooks: whist à la couleur (docs/rules.md §2) and the club rules (§3).

The auction is data plus small hooks. Each ruleset's seed file (`seeds/<name>.toml`) gives its ladder,
levels, renewal verb, solo rule, trou options and the words of its extra calls (`belgian_data.py`); the
auction's state and the questions asked of it are in `belgian_state.py`, one refusal rule per function in
`belgian_refusals.py`, and the turn logic in `belgian_auction.py`. docs/belgian-rules.md explains how
each gap of the sources was settled.
"""

from __future__ import annotations

from typing import Any

from ..actions import Arg, ParsedAction
from ..ruleset import Contract, DealFacts, DealInProgress, Ruleset
from .belgian_auction import BelgianAuction
from .belgian_data import AuctionData, Call

__all__ = ["BELGIAN_VOCABULARY", "BelgianAuction", "BelgianRuleset", "Call"]

#: Verbs common to both Belgian rulesets; the renewal verb and the words of [calls] come from the seed.
BELGIAN_VOCABULARY: dict[str, tuple[Arg, ...]] = {
    "propose": (Arg.SUIT,),
    "accept": (Arg.SUIT, Arg.OPTIONAL_LEVEL),
    "raise": (Arg.LEVEL,),
    "solo": (Arg.LEVEL, Arg.SUIT),
    "abondance": (Arg.LEVEL, Arg.SUIT),
}


class BelgianRuleset(Ruleset):
    """Common data and hooks of `couleur` and `belge-club`; subclasses add their scoring."""

    extra_vocabulary = BELGIAN_VOCABULARY

    def __init__(self) -> None:
        super().__init__()
        self.auction_data = data = AuctionData(self.data)
        self.vocabulary[data.renewal_verb] = ()
        for word, spec in data.calls.items():
            self.vocabulary[word] = (Arg.SUIT_OR_NT,) if spec["family"] == "chelem" else ()
        self.ladder: dict[str, int] = data.ladder

    def key(self, kind: str, level: int, suit: str | None) -> tuple[int, int]:
        """Where a call ranks (see `AuctionData.key`)."""
        return self.auction_data.key(kind, level, suit)

    def new_auction(self, deal: DealFacts) -> BelgianAuction:
        """Start the auction (after the trou, if any, is announced)."""
        return BelgianAuction(self.auction_data, deal)

    def next_dealer(self, dealer: int, thrown_in: bool) -> int:
        """After a tour de passe the same dealer redeals; otherwise the deal moves clockwise."""
        return dealer if thrown_in else (dealer + 1) % 4

    def next_multiplier(self, multiplier: int, thrown_in: bool) -> int:
        """After a tour de passe the next played deal counts double; passes in a row do not double again."""
        return int(self.data["deal"]["pass_multiplier"]) if thrown_in else 1

    def trump_options(self, deal: DealFacts, contract: Contract) -> list[str | None]:
        """Trump is always named in the call itself; nobody names it after the auction."""
        return [contract.trump]

    def implied_tricks(self, deal: DealInProgress, seat: int, action: ParsedAction) -> int | None:
        """A proposal or its renewal: the lowest emballage; `accept <suit>`: the level it stands for;
        the bouche-trou naming trump: the trou's level; a call of [calls]: its level (0 for a misère)."""
        data = self.auction_data
        if action.verb in ("propose", data.renewal_verb):
            return data.proposal_level
        if action.verb == "accept" and isinstance(deal.auction, BelgianAuction):
            levels = deal.auction.accept_levels(seat, str(action.args[0]))
            return levels[0] if levels else None
        if action.verb == "trump" and deal.contract is None:
            return data.trou_level
        if action.verb in data.calls:
            return int(data.calls[action.verb].get("level", 0))
        return super().implied_tricks(deal, seat, action)

    def adjust_action_info(self, deal: DealInProgress, seat: int, action: ParsedAction,
                           info: dict[str, Any]) -> dict[str, Any]:
        """The bouche-trou naming trump commits the trou's team; a renewal names the suit it renews."""
        if action.verb == "trump" and deal.contract is None:
            info["commitment"] = "team"
        if action.verb == self.auction_data.renewal_verb and isinstance(deal.auction, BelgianAuction):
            info["suit"] = deal.auction.lapsed_suit(seat)
        return super().adjust_action_info(deal, seat, action, info)

    @staticmethod
    def made(contract: Contract, taken: int) -> bool:
        """Whether `taken` tricks fulfil the contract: exactly 0 (misère) or 1 (piccolo), else at least."""
        if contract.extra.get("exact"):
            return taken == contract.level
        return taken >= contract.level
