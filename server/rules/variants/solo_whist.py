"""Solo Whist (docs/rules.md §1): the auction of Prop and Cop, Solo, Misère and the Abundances.

The ladder and the stakes come from `seeds/solo-whist.toml`; this module only holds the auction's
turn logic and the payment arithmetic.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from ..actions import Arg, ParsedAction
from ..copying import CopyPlan
from ..errors import IllegalAction
from ..ruleset import Contract, DealFacts, DealInProgress, Event, Ruleset


@dataclass(frozen=True, slots=True)
class CallSpec:
    """One rung of the ladder, from the seed file."""

    name: str
    rank: int
    target: int
    trump: str  # "turn-up", "named-other", "named" or "none"
    stake: int
    traditional_stake: int
    expose: str | None
    declarer_leads: bool


class SoloWhistAuction:
    """Eldest speaks first, then clockwise; passing is final (except D2); the highest call wins."""

    def __init__(self, ruleset: SoloWhist, deal: DealFacts) -> None:
        self.ruleset = ruleset
        self.house_rules = deal.house_rules
        self.eldest = deal.eldest
        self.turn_up_suit = deal.turn_up[1] if deal.turn_up else None
        self.turn: int | None = deal.eldest
        self.passed: set[int] = set()
        self.highest: CallSpec | None = None
        self.holders: tuple[int, ...] = ()  # the seat(s) holding the highest call
        self.proposer: int | None = None
        self.copper: int | None = None
        self.eldest_cop_chance_used = False
        self.upgrade_chance_used = False
        self.done = False

    def clone(self) -> SoloWhistAuction:
        """An independent copy (see `Deal.clone`): only `passed` is a mutable container."""
        return _SOLO_WHIST_AUCTION_COPY.copy(self)

    # -- what may be called

    def _prop_uncopped(self) -> bool:
        return self.highest is not None and self.highest.name == "prop-cop" and self.copper is None

    def _d2_chance(self, seat: int) -> bool:
        return (
            bool(self.house_rules["eldest_may_cop_after_pass"])
            and seat == self.eldest
            and seat in self.passed
            and not self.eldest_cop_chance_used
            and self._prop_uncopped()
        )

    def _upgrade_chance(self, seat: int) -> bool:
        others = [s for s in range(4) if s != seat]
        return (
            bool(self.house_rules["prop_may_upgrade"])
            and seat == self.proposer
            and self._prop_uncopped()
            and not self.upgrade_chance_used
            and all(s in self.passed and not self._d2_chance(s) for s in others)
        )

    def _may_speak(self, seat: int) -> bool:
        if seat in self.passed:
            return self._d2_chance(seat)
        if seat in self.holders:
            return self._upgrade_chance(seat)
        return True

    def _allowed_calls(self, seat: int) -> list[str]:
        if self._d2_chance(seat):
            return ["cop"]
        calls: list[str] = []
        current_rank = self.highest.rank if self.highest else -1
        for spec in self.ruleset.available_calls(self.house_rules):
            if spec.name == "prop-cop":
                if self.highest is None:
                    calls.append("prop")
                elif self._prop_uncopped() and seat != self.proposer:
                    calls.append("cop")
            elif spec.rank > current_rank:
                calls.append(spec.name)
        return calls

    # -- the Auction protocol

    def to_act(self) -> frozenset[int]:
        """The one seat to speak, or nobody once the auction is over."""
        return frozenset() if self.done or self.turn is None else frozenset((self.turn,))

    def legal_actions(self, seat: int) -> list[str]:
        """Pass, plus every call above the standing one."""
        if seat not in self.to_act():
            return []
        return ["pass", *self._allowed_calls(seat)]

    def apply(self, seat: int, action: ParsedAction) -> list[Event]:
        """Apply a call or a pass."""
        verb = action.verb
        if verb == "trump":
            raise IllegalAction("trump is named after the auction (D3), not during it")
        if verb != "pass" and verb not in self._allowed_calls(seat):
            raise IllegalAction(self._why_not(seat, verb))
        if self._d2_chance(seat):
            self.eldest_cop_chance_used = True
        if self._upgrade_chance(seat):
            self.upgrade_chance_used = True
        if verb == "pass":
            self.passed.add(seat)
        elif verb == "prop":
            self.highest, self.holders, self.proposer = self.ruleset.call("prop-cop"), (seat,), seat
        elif verb == "cop":
            assert self.proposer is not None
            self.passed.discard(seat)  # D2: eldest re-enters as a partner
            self.copper = seat
            self.holders = (self.proposer, seat)
        else:
            self.highest, self.holders = self.ruleset.call(verb), (seat,)
        self._advance(seat)
        return []

    def _why_not(self, seat: int, verb: str) -> str:
        if seat in self.passed:
            return "passing is final: a player who has passed cannot call again (D2)"
        spec = self.ruleset.call("prop-cop" if verb in ("prop", "cop") else verb)
        if spec.name not in {c.name for c in self.ruleset.available_calls(self.house_rules)}:
            return f"{verb} is not offered under this room's house rules"
        if verb == "prop":
            return "prop is legal only while no call has been made"
        if verb == "cop":
            if seat == self.proposer:
                return "a player cannot cop their own prop"
            return "cop is legal only while a prop stands uncopped and nothing higher has been called"
        if self._upgrade_chance(seat):
            return "a lone proposer may only raise to solo or higher (D4)"
        current = self.highest.name if self.highest else "none"
        return f"a call must be higher than the current call ({current})"

    def _advance(self, seat: int) -> None:
        for step in range(1, 5):
            candidate = (seat + step) % 4
            if self._may_speak(candidate):
                self.turn = candidate
                return
        self.turn = None
        self.done = True

    @property
    def finished(self) -> bool:
        """Whether the auction has closed."""
        return self.done

    def contract(self) -> Contract | None:
        """The contract, or None for a thrown-in deal (all passed, or a Prop left without a Cop, D4)."""
        spec = self.highest
        if spec is None or self._prop_uncopped():
            return None
        declarer = self.holders[0]
        has_turn_up = bool(self.house_rules["turn_up"])
        trump: str | None = None
        chooser: int | None = None
        if spec.trump == "turn-up":
            if has_turn_up:
                trump = self.turn_up_suit
            else:
                chooser = declarer  # no turn-up: the auction winner (the proposer) names trump
        elif spec.trump in ("named", "named-other"):
            chooser = declarer
        return Contract(
            name=spec.name,
            kind=spec.name,
            declarers=tuple(sorted(self.holders)),
            level=spec.target,
            trump=trump,
            trump_chooser=chooser,
            leader=declarer if spec.declarer_leads else None,
            expose=spec.expose,
            team=len(self.holders) == 2,
        )

    def public_state(self) -> dict[str, Any]:
        """The standing call, its holders and who has passed."""
        return {
            "highest": self.highest.name if self.highest else None,
            "holders": list(self.holders),
            "passed": sorted(self.passed),
            "proposer": self.proposer,
            "copper": self.copper,
        }

    def opening_events(self) -> list[Event]:
        """Solo Whist announces nothing before the auction."""
        return []


#: How `SoloWhistAuction.clone` copies each field (see `copying.py`).
_SOLO_WHIST_AUCTION_COPY = CopyPlan(
    "SoloWhistAuction",
    shared=("ruleset", "house_rules", "eldest", "turn_up_suit", "turn", "highest", "holders", "proposer",
            "copper", "eldest_cop_chance_used", "upgrade_chance_used", "done"),
    copied={"passed": set.copy},
)


class SoloWhist(Ruleset):
    """British Solo Whist, docs/rules.md §1."""

    name = "solo-whist"
    extra_vocabulary: ClassVar[Mapping[str, tuple[Arg, ...]]] = {
        call: ()
        for call in ("prop", "cop", "solo", "misere", "abundance", "royal-abundance", "spread-misere",
                     "abundance-declared")
    }

    def __init__(self) -> None:
        super().__init__()
        self.calls: list[CallSpec] = [
            CallSpec(c["name"], rank, c["target"], c["trump"], c["stake"], c["traditional_stake"],
                     c.get("expose"), c.get("declarer_leads", False))
            for rank, c in enumerate(self.data["calls"])
        ]
        self._by_name = {spec.name: spec for spec in self.calls}

    def call(self, name: str) -> CallSpec:
        """The ladder rung called `name`."""
        return self._by_name[name]

    def available_calls(self, house_rules: Mapping[str, Any]) -> list[CallSpec]:
        """The rungs offered under these house rules (no Prop and Cop; no turn-up)."""
        return [
            spec
            for spec in self.calls
            if (spec.name != "prop-cop" or house_rules["prop_and_cop"])
            and (spec.name != "royal-abundance" or house_rules["turn_up"])
        ]

    def implied_tricks(self, deal: DealInProgress, seat: int, action: ParsedAction) -> int | None:
        """A call's target from the ladder (Prop and Cop: 8 for the pair)."""
        verb = "prop-cop" if action.verb in ("prop", "cop") else action.verb
        if verb in self._by_name:
            return self._by_name[verb].target
        return super().implied_tricks(deal, seat, action)

    def has_turn_up(self, house_rules: Mapping[str, Any]) -> bool:
        """The turn-up is a house rule (on by default)."""
        return bool(house_rules["turn_up"])

    def new_auction(self, deal: DealFacts) -> SoloWhistAuction:
        """Start the auction, eldest first."""
        return SoloWhistAuction(self, deal)

    def trump_options(self, deal: DealFacts, contract: Contract) -> list[str | None]:
        """D3: Abundance names a suit other than the turn-up; the others any suit."""
        spec = self.call(contract.kind)
        suits: list[str | None] = ["S", "H", "D", "C"]
        if spec.trump == "named-other" and deal.turn_up is not None:
            return [s for s in suits if s != deal.turn_up[1]]
        return suits

    def score(self, contract: Contract, tricks: Sequence[int], house_rules: Mapping[str, Any]) -> list[int]:
        """Payments between players (docs/rules.md §1 Scoring), times the stake multiplier."""
        spec = self.call(contract.kind)
        stake = spec.stake if house_rules["stakes_table"] == "seed" else spec.traditional_stake
        taken = sum(tricks[s] for s in contract.declarers)
        made = taken == 0 if spec.target == 0 else taken >= spec.target
        if house_rules["overtricks"] and spec.name in ("prop-cop", "solo", "abundance", "royal-abundance"):
            stake += abs(taken - spec.target)
        stake *= int(house_rules["stake_multiplier"])
        sign = 1 if made else -1
        defenders = [s for s in range(4) if s not in contract.declarers]
        points = [0, 0, 0, 0]
        for declarer in contract.declarers:
            for defender in defenders:
                points[declarer] += sign * stake
                points[defender] -= sign * stake
        return points
