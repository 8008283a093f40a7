"""Simulating a call: finish the deal's auction in a sampled world with a model of every seat, then
estimate the contract's points for one seat.

`simulate_action(view, sample, action, node_limit)` rebuilds the deal of a world (`rebuild_deal`), makes
`action` for the deciding seat, lets the heuristic bot (the model of the other seats, and of this seat's
own later calls) make every call, trump choice and discard until the play starts, and estimates the play:
the compiled solver with every hand of the world known, asked only where the points change (the
breakpoints of `points_table`, nearest the contract's target first), within `node_limit` nodes; past
the limit, the greedy full-information playout (`solver.greedy_playout`) instead. A deal thrown in is
worth 0. Every limit is a count: the same view, world and action give the same figure.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from server.rules import Contract, Deal, RulesError, get_ruleset

from .fast_solver import Solver
from .heuristic import HeuristicBot
from .knowledge import InconsistentViewError, SampledDeal, rebuild_deal
from .solver import NodeLimitError, greedy_playout, to_mask

View = Mapping[str, Any]

#: Calls, trump choices and discards the model makes in one simulated auction, at most.
MAX_MODEL_ACTIONS = 80

_MODEL = HeuristicBot()


def points_table(view: View, contract: Contract, seat: int) -> list[float]:
    """This seat's points for each final trick count of the declaring side (index 0..13)."""
    rules = get_ruleset(str(view["ruleset"]))
    house_rules: Mapping[str, Any] = rules.resolve_house_rules(view.get("house_rules") or {})
    total = 12 if contract.discard else 13
    defenders = [s for s in range(4) if s not in contract.declarers]
    table = []
    for taken in range(14):
        tricks = [0, 0, 0, 0]
        tricks[contract.declarers[0]] = min(taken, total)
        if defenders:
            tricks[defenders[0]] = max(0, total - taken)
        table.append(float(rules.score(contract, tricks, house_rules)[seat]))
    return table


def simulate_action(view: View, sample: SampledDeal, action: str, node_limit: int) -> float | None:
    """This seat's estimated points if it makes `action` now and the world is `sample` (None: the world
    does not replay, or the contract is several misères side by side)."""
    seat = int(view["seat"])
    try:
        deal = rebuild_deal(view, sample)
        deal.apply(seat, action)
        for _ in range(MAX_MODEL_ACTIONS):
            if deal.finished or deal.phase.value == "play":
                break
            actor = min(deal.to_act())
            deal.apply(actor, _MODEL.decide(deal.view(actor), "model", 20.0))
    except (InconsistentViewError, RulesError):
        return None
    if deal.finished:
        return float((deal.points or [0, 0, 0, 0])[seat])
    if deal.phase.value != "play" or deal.contract is None:
        return None
    return play_estimate(view, deal, seat, node_limit)


def play_estimate(view: View, deal: Deal, seat: int, node_limit: int) -> float | None:
    """`seat`'s points for `deal` at the start of its play, every hand known (solver, else greedy)."""
    contract = deal.contract
    if contract is None:
        return None
    declarers = contract.declarers
    if len(declarers) == 4 or (len(declarers) > 1 and not contract.team):
        return None
    side_a = tuple(s in declarers for s in range(4))
    maximizes = tuple((not a) if contract.level == 0 else a for a in side_a)
    hands = [to_mask(hand) for hand in deal.hands]
    leader = min(deal.to_act())
    points = points_table(view, contract, seat)
    return position_points(hands, leader, contract.trump, side_a, maximizes, points, contract.level,
                           node_limit)


def position_points(hands: Sequence[int], leader: int, trump: str | None, side_a: Sequence[bool],
                    maximizes: Sequence[bool], points: Sequence[float], need: int, node_limit: int) -> float:
    """The points of a position at the start of a trick: null-window questions at the trick counts
    where `points` changes (piccolo, `need` 1: exactly one trick), the greedy playout past the limit."""
    solver = Solver(trump, side_a, maximizes, node_limit=node_limit)
    left = max(h.bit_count() for h in hands)
    try:
        if need == 1:
            return points[1 if solver.exactly_one(hands, leader) else 2]
        steps = [k for k in range(1, left + 1) if points[min(k, 13)] != points[k - 1]]
        low, high = 0, left
        while True:
            open_steps = [k for k in steps if low < k <= high]
            if not open_steps:
                return points[low]
            k = min(open_steps, key=lambda s: (abs(s - need), s))
            answer = solver.value(hands, leader, (), k - 1, k)
            if answer >= k:
                low = max(low, min(answer, high))
            else:
                high = min(high, max(answer, low))
    except NodeLimitError:
        return points[greedy_playout(hands, leader, trump, side_a, maximizes)]
