"""Shared helpers for the bot tests: playing deals with bots, and building synthetic views."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from server.bots import get_bot
from server.bots.base import Bot
from server.rules import Deal, ruleset_names

RULESETS = ruleset_names()


def frozen_copy(view: Mapping[str, Any]) -> dict[str, Any]:
    """A deep copy of a view through JSON: plain data, with no path back to the engine."""
    copied: dict[str, Any] = json.loads(json.dumps(view))
    return copied


def decision_points(ruleset: str, seed: str, dealer: int, lineup: Sequence[str] = ("heuristic",) * 4,
                    on_decision: Callable[[Deal, int, dict[str, Any], str], None] | None = None) -> Deal:
    """Play one deal with the given bots; `on_decision(deal, seat, view, action)` sees each decision
    before it is applied. Returns the finished deal."""
    bots: dict[str, Bot] = {name: get_bot(name) for name in set(lineup)}
    deal = Deal.from_seed(ruleset, seed, dealer)
    while not deal.finished:
        seat = min(deal.to_act())
        view = deal.view(seat)
        action = bots[lineup[seat]].decide(frozen_copy(view), f"{seed}:{seat}", 20.0)
        if on_decision is not None:
            on_decision(deal, seat, view, action)
        deal.apply(seat, action)
    return deal


@dataclass(frozen=True)
class DecisionPoint:
    """One decision of a played deal, with what stood at that moment."""

    deal: Deal  # the deal object (it has moved on since: use `history` and `hands`)
    seat: int
    view: dict[str, Any]
    action: str
    bot: str
    history: tuple[tuple[int, str], ...]  # the actions before this decision
    hands: tuple[frozenset[str], ...]  # every seat's hand at this decision


def iter_views(ruleset: str, deals: int, lineup: Sequence[str] = ("heuristic", "random") * 2,
               prefix: str = "views") -> Iterator[DecisionPoint]:
    """Every decision point of `deals` deals."""
    for i in range(deals):
        collected: list[DecisionPoint] = []

        def record(d: Deal, s: int, v: dict[str, Any], a: str, into: list[DecisionPoint] = collected) -> None:
            hands = tuple(frozenset(h) for h in d.hands)
            into.append(DecisionPoint(d, s, v, a, lineup[s], tuple(d.log), hands))

        decision_points(ruleset, f"{prefix}:{i}", i % 4, lineup, record)
        yield from collected


def play_view(hand: Sequence[str], *, seat: int = 0, declarers: Sequence[int] = (1,), level: int = 5,
              trump: str | None = "S", team: bool = False, trick: Sequence[tuple[int, str]] = (),
              leader: int | None = None, tricks: Sequence[Mapping[str, Any]] = (),
              exposed: Mapping[str, Sequence[str]] | None = None, legal: Sequence[str] | None = None,
              hand_counts: Sequence[int] | None = None, tricks_won: Sequence[int] = (0, 0, 0, 0),
              ruleset: str = "solo-whist") -> dict[str, Any]:
    """A synthetic play-phase view of `seat`, shaped like `server/rules/views.py` builds them."""
    if legal is None:
        led = trick[0][1][1] if trick else None
        follow = [c for c in hand if led and c[1] == led]
        legal = [f"play {c}" for c in (follow or hand)]
    first = leader if leader is not None else (trick[0][0] if trick else seat)
    played = sum(len(t["cards"]) for t in tricks)
    counts = list(hand_counts) if hand_counts is not None else [
        13 - played // 4 - (1 if any(s == p for s, _ in trick) else 0) for p in range(4)]
    counts[seat] = len(hand)
    return {
        "ruleset": ruleset, "house_rules": {}, "seat": seat, "dealer": 3, "eldest": 0, "phase": "play",
        "to_act": [seat], "multiplier": 1, "hand": list(hand), "hand_counts": counts, "turn_up": None,
        "turn_up_in_hand": False, "calls": [], "announcements": [], "auction": {},
        "contract": {"name": "test", "kind": "test", "declarers": list(declarers), "level": level,
                     "trump": trump, "trump_chooser": None, "team": team, "discard": False, "expose": None},
        "discarded": None, "discards_made": [], "exposed": dict(exposed or {}),
        "trick": {"leader": first, "cards": [[s, c] for s, c in trick]}, "tricks": list(tricks),
        "tricks_won": list(tricks_won), "legal": list(legal), "result": None,
    }


def play_decisions(ruleset: str, deals: int) -> list[list[object]]:
    """Play `deals` deals (heuristic, random, heuristic, heuristic) and list every decision made."""
    lineup = [get_bot(name) for name in ("heuristic", "random", "heuristic", "heuristic")]
    decisions: list[list[object]] = []
    for i in range(deals):
        deal = Deal.from_seed(ruleset, f"determinism:{i}", i % 4)
        while not deal.finished:
            for seat in sorted(deal.to_act()):
                if seat not in deal.to_act():  # the discards closed and play began
                    continue
                action = lineup[seat].decide(deal.view(seat), f"daily-2026-11-29:{i}", 20.0)
                decisions.append([i, seat, action])
                deal.apply(seat, action)
    return decisions
