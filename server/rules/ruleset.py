"""The ruleset interface: data from `seeds/` plus a few hooks, found by name through one registry.

A ruleset supplies its vocabulary, its auction (a small state machine of its own), the trump choices
after the auction, and its scoring. Everything else (dealing, trick play, exposure, early stop,
views, records) is common and lives in `deal.py` and `views.py`.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

from .actions import COMMON_VOCABULARY, Arg, ParsedAction
from .errors import RulesError
from .seeds import load_seed

if TYPE_CHECKING:
    from .deal import Deal

Event = dict[str, Any]


class HouseRuleError(RulesError):
    """A house rule that the ruleset does not know, or a value of the wrong type."""


@dataclass(frozen=True, slots=True)
class HouseRule:
    """One house rule a room may set: its default, its type and a short explanation for players."""

    name: str
    default: Any
    description: str
    choices: tuple[Any, ...] = ()
    source: str = ""

    def validate(self, value: Any) -> Any:
        """Return `value` if it fits this rule, else raise `HouseRuleError`."""
        if self.choices:
            if value not in self.choices:
                raise HouseRuleError(f"house rule {self.name!r} must be one of {list(self.choices)}")
            return value
        expected = type(self.default)
        if expected is int and isinstance(value, bool):
            raise HouseRuleError(f"house rule {self.name!r} takes a number")
        if expected is float and isinstance(value, int) and not isinstance(value, bool):
            return float(value)
        if not isinstance(value, expected):
            raise HouseRuleError(f"house rule {self.name!r} takes a {expected.__name__}")
        return value


@dataclass(frozen=True, slots=True)
class Contract:
    """The outcome of an auction: who plays what, with which trump, and how play starts."""

    name: str  # as shown in results, e.g. "solo", "emballage 9", "misere-etalee"
    kind: str  # the scoring key of the ruleset
    declarers: tuple[int, ...]
    level: int  # tricks promised (0 for a misère, 1 for piccolo)
    trump: str | None = None
    trump_chooser: int | None = None  # names trump after the auction; `trump` is None until then
    leader: int | None = None  # None: eldest leads trick 1
    lead_card: str | None = None  # the card that must open trick 1 (the trou's ace)
    discard: bool = False  # every seat discards one card face down before trick 1
    expose: str | None = None  # None, "before_play" or "after_trick1": declarers' hands go face up
    team: bool = False  # the declarers win or lose together
    extra: Mapping[str, Any] = field(default_factory=dict)

    def with_trump(self, trump: str | None) -> Contract:
        """A copy with trump named and nobody left to name it."""
        return Contract(
            self.name, self.kind, self.declarers, self.level, trump, None, self.leader,
            self.lead_card, self.discard, self.expose, self.team, self.extra,
        )


class Auction(Protocol):
    """The ruleset-specific auction of one deal. It never mutates state when it raises."""

    def to_act(self) -> frozenset[int]:
        """The seats that may act now (one seat in turn-based auctions)."""

    def legal_actions(self, seat: int) -> list[str]:
        """Every action the seat may take now, in canonical spelling."""

    def apply(self, seat: int, action: ParsedAction) -> list[Event]:
        """Apply a call; raise `IllegalAction` naming the rule if it is not allowed."""

    @property
    def finished(self) -> bool:
        """Whether the auction has closed."""

    def contract(self) -> Contract | None:
        """The contract once finished; None when the deal is thrown in."""

    def public_state(self) -> dict[str, Any]:
        """Public facts for every view: the standing call, bound players, announcements."""

    def opening_events(self) -> list[Event]:
        """Events the engine announces before anyone speaks (a trou, for example)."""


class Ruleset(ABC):
    """Base class of the three rulesets. Subclasses set class data and implement the hooks."""

    name: ClassVar[str]
    extra_vocabulary: ClassVar[Mapping[str, tuple[Arg, ...]]] = {}

    def __init__(self) -> None:
        self.data: dict[str, Any] = load_seed(self.name)
        self.packets: tuple[int, ...] = tuple(self.data["deal"]["packets"])
        self.vocabulary: dict[str, tuple[Arg, ...]] = {**COMMON_VOCABULARY, **self.extra_vocabulary}
        self.house_rules: dict[str, HouseRule] = {
            rule_name: HouseRule(
                rule_name,
                spec["default"],
                spec.get("description", ""),
                tuple(spec.get("choices", ())),
                spec.get("source", ""),
            )
            for rule_name, spec in self.data.get("house_rules", {}).items()
        }

    def resolve_house_rules(self, overrides: Mapping[str, Any] | None) -> dict[str, Any]:
        """The complete house rules: defaults, then `overrides` after validation."""
        resolved = {rule.name: rule.default for rule in self.house_rules.values()}
        for key, value in (overrides or {}).items():
            if key not in self.house_rules:
                known = ", ".join(sorted(self.house_rules)) or "none"
                raise HouseRuleError(f"unknown house rule {key!r} for {self.name} (known: {known})")
            resolved[key] = self.house_rules[key].validate(value)
        return resolved

    def has_turn_up(self, house_rules: Mapping[str, Any]) -> bool:
        """Whether the dealer's last card is turned up."""
        return bool(self.data["deal"].get("turn_up", False))

    @abstractmethod
    def new_auction(self, deal: Deal) -> Auction:
        """Start the auction of `deal`."""

    def trump_options(self, deal: Deal, contract: Contract) -> list[str | None]:
        """The suits the trump chooser may name (None stands for no trump)."""
        return ["S", "H", "D", "C"]

    @abstractmethod
    def score(self, contract: Contract, tricks: Sequence[int], house_rules: Mapping[str, Any]) -> list[int]:
        """Each seat's points for a finished deal, before any deal multiplier."""

    def next_dealer(self, dealer: int, thrown_in: bool) -> int:
        """Who deals next. By default the deal passes clockwise after every deal."""
        return (dealer + 1) % 4

    def next_multiplier(self, multiplier: int, thrown_in: bool) -> int:
        """The multiplier of the next deal. By default every deal counts once."""
        return 1

    @property
    def zero_sum(self) -> bool:
        """Whether every deal's points sum to zero: `zero_sum` under [ruleset] in the data, default true."""
        return bool(self.data.get("ruleset", {}).get("zero_sum", True))

    def points_problem(self, deal: Deal) -> str | None:
        """What breaks this ruleset's points invariant in a finished `deal`, or None (tests call it).

        By default: a zero-sum ruleset's points must sum to zero. A ruleset that is not zero-sum by its
        source declares `zero_sum = false` and may override this to check its own invariant.
        """
        points = deal.points or [0, 0, 0, 0]
        if self.zero_sum and sum(points) != 0:
            return (f"{self.name} is zero-sum but the points {points} sum to {sum(points)} (a ruleset "
                    f"that is not zero-sum by its source declares zero_sum = false under [ruleset] in "
                    f"seeds/{self.name}.toml)")
        return None


_REGISTRY: dict[str, type[Ruleset]] = {}
_INSTANCES: dict[str, Ruleset] = {}


def register(cls: type[Ruleset]) -> type[Ruleset]:
    """Class decorator that makes a ruleset available by its name."""
    _REGISTRY[cls.name] = cls
    return cls


def get_ruleset(name: str) -> Ruleset:
    """The ruleset called `name` (`solo-whist`, `couleur` or `belge-club`)."""
    from . import variants  # noqa: F401  (registers the rulesets)

    if name not in _REGISTRY:
        raise HouseRuleError(f"unknown ruleset {name!r}; known: {', '.join(sorted(_REGISTRY))}")
    if name not in _INSTANCES:
        _INSTANCES[name] = _REGISTRY[name]()
    return _INSTANCES[name]


def ruleset_names() -> list[str]:
    """The names of every registered ruleset."""
    from . import variants  # noqa: F401

    return sorted(_REGISTRY)


def score_groups(contract: Contract) -> list[tuple[int, ...]]:
    """Seat groups whose trick totals decide the points: the declarer side(s), then the defenders."""
    declarer_groups: list[tuple[int, ...]] = (
        [contract.declarers] if contract.team else [(seat,) for seat in contract.declarers]
    )
    defenders = tuple(seat for seat in range(4) if seat not in contract.declarers)
    return [*declarer_groups, defenders] if defenders else declarer_groups  # four equal misères: no defender
