"""A session: a run of deals at one table, with running balances and the dealer moving on.

A session ends after an agreed number of played deals, when a seat's balance reaches a positive
target (000: "le premier à atteindre +50 unités gagne"), or never (open-ended, until the players
stop). Thrown-in deals do not count towards the number of deals, but the deal still passes (D1).
Each deal's seed is derived from the session secret by HMAC-SHA256, so that publishing one deal's
seed after it ends reveals nothing about the next. Seeds are keyed by the number of played deals
before the deal (and, for a redeal, by how many deals were thrown in since), not by the count of all
deals: two tables of the same secret (a daily challenge) that thrown in different numbers of deals
are still dealt the same cards for their n-th played deal.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Mapping
from typing import Any

from .copying import CopyPlan
from .deal import Deal
from .deck import cut_for_dealer
from .errors import IllegalAction
from .registry import as_ruleset
from .ruleset import Event, Ruleset


class Session:
    """Running balances over a sequence of deals of one ruleset."""

    def __init__(
        self,
        ruleset: Ruleset | str,
        secret: str,
        house_rules: Mapping[str, Any] | None = None,
        *,
        deals: int | None = None,
        target: int | None = None,
        first_dealer: int | None = None,
    ) -> None:
        self.ruleset = as_ruleset(ruleset)
        self.house_rules = self.ruleset.resolve_house_rules(house_rules)
        self.secret = secret
        self.deals_limit = deals
        self.target = target
        self.first_dealer = cut_for_dealer(secret) if first_dealer is None else first_dealer
        self.balances = [0, 0, 0, 0]
        self.history: list[dict[str, Any]] = []  # one entry per finished deal: record and result
        self.played_deals = 0
        self.redeals = 0  # deals thrown in since the last played deal
        self.deal = Deal.from_seed(self.ruleset, self.deal_seed(0), self.first_dealer, self.house_rules)

    def clone(self) -> Session:
        """An independent copy (the deal cloned; the history's entries, never changed, shared)."""
        return _SESSION_COPY.copy(self)

    def deal_seed(self, played: int, redeal: int = 0) -> str:
        """The seed of the deal dealt after `played` played deals and `redeal` thrown-in deals since."""
        label = f"deal:{played}" if redeal == 0 else f"deal:{played}:redeal:{redeal}"
        return hmac.new(self.secret.encode(), label.encode(), hashlib.sha256).hexdigest()

    @property
    def deal_number(self) -> int:
        """How many deals came before the current one, thrown-in deals included."""
        return len(self.history)

    @property
    def over(self) -> bool:
        """Whether the session has reached its end condition (only checked between deals)."""
        if not self.deal.finished:
            return False
        if self.deals_limit is not None and self.played_deals >= self.deals_limit:
            return True
        # The source's example is "the first to reach +50 wins": a positive balance ends the session.
        target = self.target if self.target is not None else self.ruleset.session_target(self.house_rules)
        return target is not None and max(self.balances) >= target

    def apply(self, seat: int, action: str) -> list[Event]:
        """Apply an action to the current deal; settles the balances when the deal ends."""
        events = self.deal.apply(seat, action)
        if self.deal.finished:
            self._settle()
            if self.over:
                events.append({"type": "session_over", "balances": list(self.balances)})
        return events

    def _settle(self) -> None:
        deal = self.deal
        result = deal.result()
        for seat in range(4):
            self.balances[seat] += result["points"][seat]
        if deal.thrown_in:
            self.redeals += 1
        else:
            self.played_deals += 1
            self.redeals = 0
        self.history.append({"record": deal.to_record(), "result": result, "balances": list(self.balances)})

    def next_deal(self) -> Deal:
        """Start the next deal; the current one must have ended and the session must not be over."""
        if not self.deal.finished:
            raise IllegalAction("the current deal is not over")
        if self.over:
            raise IllegalAction("the session is over")
        thrown_in = self.deal.thrown_in
        dealer = self.ruleset.next_dealer(self.deal.dealer, thrown_in)
        multiplier = self.ruleset.next_multiplier(self.deal.multiplier, thrown_in)
        seed = self.deal_seed(self.played_deals, self.redeals)
        self.deal = Deal.from_seed(self.ruleset, seed, dealer, self.house_rules, multiplier=multiplier)
        return self.deal

    def config(self) -> dict[str, Any]:
        """The settings the session starts from (see `from_config`); holds the secret, no actions."""
        return {
            "ruleset": self.ruleset.name,
            "secret": self.secret,
            "house_rules": self.house_rules,
            "deals": self.deals_limit,
            "target": self.target,
            "first_dealer": self.first_dealer,
        }

    @classmethod
    def from_config(cls, config: Mapping[str, Any]) -> Session:
        """A new session with the settings of `config()`, at its first deal."""
        return cls(config["ruleset"], config["secret"], config["house_rules"], deals=config["deals"],
                   target=config["target"], first_dealer=config["first_dealer"])

    def snapshot(self) -> dict[str, Any]:
        """Everything needed to rebuild the session exactly (see `restore`). Holds the secret."""
        return {**self.config(), "finished_deals": len(self.history), "actions": self._actions_per_deal()}

    def _actions_per_deal(self) -> list[list[list[Any]]]:
        # A finished current deal is already the last entry of the history: list it once.
        finished = [[[seat, action] for seat, action in entry["record"]["actions"]] for entry in self.history]
        if self.deal.finished:
            return finished
        return [*finished, [[seat, action] for seat, action in self.deal.log]]

    @classmethod
    def restore(cls, snapshot: Mapping[str, Any]) -> Session:
        """Rebuild a session from `snapshot()` by replaying every action."""
        session = cls.from_config(snapshot)
        for number, actions in enumerate(snapshot["actions"]):
            if number > 0:
                session.next_deal()
            for seat, action in actions:
                session.apply(seat, action)
        return session


#: How `Session.clone` copies each field (see `copying.py`).
_SESSION_COPY = CopyPlan(
    "Session",
    shared=("ruleset", "house_rules", "secret", "deals_limit", "target", "first_dealer", "played_deals",
            "redeals"),
    copied={"balances": list.copy, "history": list.copy, "deal": Deal.clone},
)
