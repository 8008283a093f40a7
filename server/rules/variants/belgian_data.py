"""The Belgian auction's data, read from a ruleset's seed file, and the calls it ranks.

`seeds/<name>.toml` holds, under `[auction]`, the ladder (lowest first), the suit order, the levels of
each call, the renewal verb and the trou's options, and under `[calls]` the words of the calls that take
no level (misères, piccolo, chelems) with their family. Nothing here names one ruleset's words: what
differs between couleur and the club is in their files.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from ..actions import ParsedAction
from ..cards import SUITS

#: The kinds of call written with a level: their rung on the ladder is "<kind> <level>".
LEVELLED_KINDS = ("emballage", "solo", "abondance")


@dataclass(frozen=True, slots=True)
class Call:
    """A standing call: what it is, who holds it and where it ranks."""

    kind: str  # "proposal", "emballage", "solo", "abondance", "trou" or a word of the seed's [calls]
    level: int
    suit: str | None
    seats: tuple[int, ...]  # a team: (proposer, acceptor); the trou: (holder, partner)
    key: tuple[int, int]  # (ladder rank, suit rank): calls compare by this
    rung: str  # its name on the ladder: "emballage 9", "solo 6", "trou", "petite-misere"...

    def describe(self) -> dict[str, Any]:
        """The call as JSON-ready public data."""
        return {"call": self.rung, "kind": self.kind, "level": self.level, "suit": self.suit,
                "seats": list(self.seats)}


class AuctionData:
    """The `[auction]` and `[calls]` tables of one Belgian ruleset, and the ranking they define."""

    def __init__(self, seed: Mapping[str, Any]) -> None:
        auction = seed["auction"]
        self.suit_order: list[str] = list(auction["suit_order"])
        self.ladder: dict[str, int] = {rung: rank for rank, rung in enumerate(auction["ladder"])}
        self.emballage_levels: list[int] = list(auction["emballage_levels"])
        self.proposal_level = self.emballage_levels[0]  # a proposal ranks as the lowest emballage
        self.solo_levels: list[int] = list(auction["solo_levels"])
        self.abondance_levels: list[int] = list(auction["abondance_levels"])
        self.renewal_verb: str = auction["renewal"]
        self.renewal_done: str = auction["renewal_done"]
        self.auto_pass_after_renewal: bool = auction["auto_pass_after_renewal"]
        self.solo_rule: str = auction["solo_rule"]
        # Whether a team's speaker, outbid, may leave the team with a solo: a boolean, or the name of
        # the house rule that decides it.
        self.speaker_may_solo: bool | str = auction.get("speaker_may_solo", False)
        self.trou_aces: list[int] = list(auction["trou_aces"])
        self.trou_answer: bool = auction["trou_answer"]
        self.trou_level: int = auction["trou_level"]
        self.trou_partner_leads_ace: bool = auction["trou_partner_leads_ace"]
        self.royal_trump: str = auction["royal_trump"]
        self.calls: dict[str, dict[str, Any]] = dict(seed["calls"])
        self._keys: dict[tuple[str, int, str | None], tuple[int, int]] = {}

    def family(self, verb: str) -> str | None:
        """The family of a word of [calls] ("misere", "piccolo", "chelem"), None for any other verb."""
        spec = self.calls.get(verb)
        return None if spec is None else str(spec["family"])

    def rung(self, kind: str, level: int) -> str:
        """The ladder's name for a call: "emballage 8" for a proposal, "solo 6", "trou", "piccolo"..."""
        if kind == "proposal":
            return f"emballage {self.proposal_level}"
        return f"{kind} {level}" if kind in LEVELLED_KINDS else kind

    def key(self, kind: str, level: int, suit: str | None) -> tuple[int, int]:
        """Where a call ranks: its rung, then its suit (in `suit_order`; no trump above every suit)."""
        found = self._keys.get((kind, level, suit))
        if found is None:
            found = self._keys[(kind, level, suit)] = self._rank(kind, level, suit)
        return found

    def _rank(self, kind: str, level: int, suit: str | None) -> tuple[int, int]:
        rung = self.ladder[self.rung(kind, level)]
        if kind in self.calls and self.calls[kind]["family"] != "chelem":
            return (rung, 0)  # a misère or piccolo names no suit: equal calls rank equal
        return (rung, len(self.suit_order) if suit is None else self.suit_order.index(suit))

    def call(self, kind: str, level: int, suit: str | None, seats: tuple[int, ...]) -> Call:
        """Build a call with its ranking key and rung."""
        return Call(kind, level, suit, seats, self.key(kind, level, suit), self.rung(kind, level))

    def speaker_solo_allowed(self, house_rules: Mapping[str, Any]) -> bool:
        """Whether an outbid team speaker may call a solo instead of raising (the club's "or accepted")."""
        flag = self.speaker_may_solo
        return bool(house_rules[flag]) if isinstance(flag, str) else bool(flag)

    def call_option(self, word: str, option: str, house_rules: Mapping[str, Any], default: bool) -> bool:
        """A flag of a [calls] entry: a boolean, or the name of the house rule that decides it."""
        value = self.calls[word].get(option, default)
        return bool(house_rules[value]) if isinstance(value, str) else bool(value)

    @cached_property
    def candidate_calls(self) -> tuple[list[ParsedAction], list[ParsedAction]]:
        """The calls of the vocabulary listed before the acceptances, and after them (see
        `BelgianAuction.candidates`); built once."""
        before = [ParsedAction("trump", (suit,), f"trump {suit}") for suit in SUITS]
        before += [ParsedAction("pass", (), "pass"), ParsedAction(self.renewal_verb, (), self.renewal_verb)]
        before += [ParsedAction("raise", (level,), f"raise {level}") for level in self.emballage_levels]
        before += [ParsedAction("propose", (suit,), f"propose {suit}") for suit in SUITS]
        after = [ParsedAction("solo", (level, suit), f"solo {level} {suit}")
                 for suit in SUITS for level in self.solo_levels]
        after += [ParsedAction("abondance", (level, suit), f"abondance {level} {suit}")
                  for level in self.abondance_levels for suit in SUITS]
        for word, spec in self.calls.items():
            if spec["family"] == "chelem":
                after += [ParsedAction(word, (suit,), f"{word} {suit or 'NT'}") for suit in (*SUITS, None)]
            else:
                after.append(ParsedAction(word, (), word))
        return before, after
