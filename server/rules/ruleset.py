"""The ruleset interface: data from `seeds/` plus a few hooks. `registry.py` lists the rulesets by name.

A ruleset supplies its vocabulary, its auction (a small state machine of its own), the trump choices
after the auction, its scoring, and what a client needs to show each action (`action_info`).
Everything else (dealing, trick play, exposure, early stop, views, records) is common and lives in
`deal.py` and `views.py`. This module imports no other part of the engine above `actions.py`: the
deal reaches the hooks through the `DealFacts` protocol, so that the imports point one way.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Protocol

from .actions import COMMON_VOCABULARY, Arg, ParsedAction, parse_action
from .errors import RulesError
from .seeds import load_seed

Event = dict[str, Any]

#: The UI control that offers an action (`legal_info[i]["prompt"]`), by verb; other verbs are calls.
PROMPTS = {"play": "card", "discard": "discard", "trump": "trump"}
#: Whose tricks a call commits to (`legal_info[i]["commitment"]`).
COMMITMENTS = ("alone", "partner", "team")


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


class DealFacts(Protocol):
    """What the ruleset hooks read of a deal (`Deal` provides it; nothing here imports `deal.py`)."""

    @property
    def dealt(self) -> tuple[tuple[str, ...], ...]:
        """The four hands as dealt, seat 0 first."""

    @property
    def dealer(self) -> int:
        """The dealer's seat."""

    @property
    def eldest(self) -> int:
        """The seat left of the dealer."""

    @property
    def turn_up(self) -> str | None:
        """The dealer's turned-up last card, where the ruleset turns one up."""

    @property
    def house_rules(self) -> Mapping[str, Any]:
        """The resolved house rules of the deal."""


class DealInProgress(DealFacts, Protocol):
    """A deal under way, as `action_info` reads it: its facts plus the auction and the contract."""

    @property
    def auction(self) -> Auction:
        """The deal's auction (finished once the contract is known)."""

    @property
    def contract(self) -> Contract | None:
        """The contract, once the auction has closed."""


class FinishedDeal(Protocol):
    """What `points_problem` reads of a finished deal."""

    @property
    def points(self) -> list[int] | None:
        """Each seat's points, once the deal is over."""

    @property
    def contract(self) -> Contract | None:
        """The contract played, if any."""


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
    """Base class of the rulesets. Subclasses set class data and implement the hooks.

    The data file `seeds/<name>.toml` gives the deal's packets, the house rules, the `[actions]` table
    (per verb: `commitment`, `rare`, `tricks`, read by `action_info`) and each ruleset's own figures.
    """

    name: ClassVar[str]
    extra_vocabulary: ClassVar[Mapping[str, tuple[Arg, ...]]] = {}

    def __init__(self) -> None:
        self.data: dict[str, Any] = load_seed(self.name)
        self.title: str = str(self.data.get("ruleset", {}).get("title", self.name))
        self.action_data: dict[str, dict[str, Any]] = dict(self.data.get("actions", {}))
        self._action_info_cache: dict[str, tuple[ParsedAction, dict[str, Any]]] = {}
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

    def describe(self) -> dict[str, Any]:
        """JSON-ready metadata for clients (the server sends it in `hello`): name, title, house rules,
        whether a card is turned up, and the action vocabulary."""
        return {
            "name": self.name,
            "title": self.title,
            "house_rules": [
                {"name": rule.name, "default": rule.default, "description": rule.description,
                 "choices": list(rule.choices)}
                for rule in self.house_rules.values()
            ],
            "turn_up": bool(self.data["deal"].get("turn_up", False)),
            "zero_sum": self.zero_sum,
            "vocabulary": {verb: [kind.value for kind in kinds]
                           for verb, kinds in sorted(self.vocabulary.items())},
        }

    def action_info(self, deal: DealInProgress, seat: int, action: str) -> dict[str, Any]:
        """What a client needs to show a legal `action` (docs/deal-record.md, "legal_info").

        `suit` and `level` come from the action's own arguments (a card's suit for a card; "NT" for no
        trump); `commitment`, `rare` and a fixed `tricks` from the `[actions]` table of the data file;
        otherwise `tricks` is the level written in the action, or what `implied_tricks` says.
        """
        cached = self._action_info_cache.get(action)
        if cached is None:  # what does not depend on the moment, once per spelling (views ask often)
            cached = self._action_info_cache[action] = self._fixed_action_info(action)
        parsed, fixed = cached
        info = dict(fixed)
        if info["tricks"] is None and info["prompt"] in ("call", "trump") and parsed.verb != "pass":
            info["tricks"] = self.implied_tricks(deal, seat, parsed)
        return self.adjust_action_info(deal, seat, parsed, info)

    def _fixed_action_info(self, action: str) -> tuple[ParsedAction, dict[str, Any]]:
        parsed = parse_action(action, self.vocabulary)
        spec = self.action_data.get(parsed.verb, {})
        suit: str | None = None
        level: int | None = None
        for kind, arg in zip(self.vocabulary[parsed.verb], parsed.args, strict=True):
            if kind is Arg.CARD and isinstance(arg, str):
                suit = arg[1]
            elif kind in (Arg.SUIT, Arg.SUIT_OR_NT) and suit is None:
                suit = "NT" if arg is None else str(arg)
            elif kind in (Arg.LEVEL, Arg.OPTIONAL_LEVEL) and isinstance(arg, int):
                level = arg
        prompt = PROMPTS.get(parsed.verb, "call")
        committing = prompt == "call" or parsed.verb == "trump"
        info = {"action": parsed.text, "verb": parsed.verb, "suit": suit, "level": level,
                "tricks": spec.get("tricks", level) if committing else None,
                "commitment": spec.get("commitment") if committing else None,
                "rare": bool(spec.get("rare", False)), "prompt": prompt}
        return parsed, info

    def implied_tricks(self, deal: DealInProgress, seat: int, action: ParsedAction) -> int | None:
        """The tricks a call commits to when neither the data file nor the action gives them.

        By default, naming trump after the auction commits to the contract's level.
        """
        if action.verb == "trump" and deal.contract is not None:
            return deal.contract.level
        return None

    def adjust_action_info(self, deal: DealInProgress, seat: int, action: ParsedAction,
                           info: dict[str, Any]) -> dict[str, Any]:
        """A last word on `action_info` for facts that depend on the moment; by default naming trump
        after the auction is for the contract's declarers: alone, or as a team."""
        if action.verb == "trump" and deal.contract is not None and info["commitment"] is None:
            info["commitment"] = "team" if deal.contract.team else "alone"
        return info

    def has_turn_up(self, house_rules: Mapping[str, Any]) -> bool:
        """Whether the dealer's last card is turned up."""
        return bool(self.data["deal"].get("turn_up", False))

    @abstractmethod
    def new_auction(self, deal: DealFacts) -> Auction:
        """Start the auction of `deal`."""

    def trump_options(self, deal: DealFacts, contract: Contract) -> list[str | None]:
        """The suits the trump chooser may name (None stands for no trump)."""
        return ["S", "H", "D", "C"]

    @abstractmethod
    def score(self, contract: Contract, tricks: Sequence[int], house_rules: Mapping[str, Any]) -> list[int]:
        """Each seat's points for a finished deal, before any deal multiplier."""

    def plays_out(self, contract: Contract) -> bool:
        """Whether every trick is played even once the points can no longer change (`play_out` under
        [deal] in the data). By default play stops early when the result is settled (D5/D8)."""
        return bool(self.data["deal"].get("play_out", False))

    def session_target(self, house_rules: Mapping[str, Any]) -> int | None:
        """The balance that ends a session when the room sets none; by default there is none."""
        return None

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

    def points_problem(self, deal: FinishedDeal) -> str | None:
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


def score_groups(contract: Contract) -> list[tuple[int, ...]]:
    """Seat groups whose trick totals decide the points: the declarer side(s), then the defenders."""
    declarer_groups: list[tuple[int, ...]] = (
        [contract.declarers] if contract.team else [(seat,) for seat in contract.declarers]
    )
    defenders = tuple(seat for seat in range(4) if seat not in contract.declarers)
    return [*declarer_groups, defenders] if defenders else declarer_groups  # four equal misères: no defender
