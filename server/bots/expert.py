"""The expert bot: plays every card by searching over sampled deals of the hidden cards (as GIB does in
bridge), from the first card on, with the compiled solver.

Card play: the bot draws up to `SAMPLES` deals of the hidden cards consistent with its view, weighted by
how well they fit the auction and the cards the other seats have played (`worlds.py`, `inference.py`),
and solves each for every card it may play (`fast_solver.Solver`, the compiled solver where it is built).
The solver is asked only what the points need (`card_points`): null-window questions ("at least k
tricks?") at the trick counts where this seat's points change, so a contract without overtricks needs
one question per card. The bot plays the card with the best weighted mean of its own points; the
heuristic bot's card breaks ties. Calls are the simulations of `calls.py`.

Every limit is a count, never a clock: `NODE_BUDGET` solver nodes per decision, at most `WORLD_NODES` for
one world (in the first two tricks fewer worlds with more nodes each: `EARLY_*`, `Limits`). A world that
passes its limit is dropped (its nodes are spent); after `MAX_FAILURES` dropped worlds, or when the
budget cannot pay for another, the worlds solved so far decide, and with fewer than `MIN_WORLDS` of them
the heuristic's card is played. So the same view and seed give the same action in
any process, and a faster solver simply searches more of the deal.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from server.rules import Contract, Deal

from .base import View, legal_actions_of
from .calls import choose_call_by_simulation
from .fast_solver import IMPLEMENTATION, Solver
from .heuristic import HeuristicBot
from .inference import play_weight, world_weight
from .knowledge import InconsistentViewError, Knowledge, SampledDeal, rebuild_deal
from .simulation import points_table
from .solver import NodeLimitError, card_bit, greedy_playout, to_mask
from .worlds import World, draw_worlds

#: Deals of the hidden cards searched per decision at most, and the pool they are drawn from by weight;
#: in the last `LATE_TRICKS` tricks more of them (solving is cheap there, and a small pool leaves few
#: distinct worlds once weighted: the late cards lost more points to today's expert, docs/bots.md).
SAMPLES = 10
POOL = 12
LATE_TRICKS = 6
LATE_SAMPLES = 14
LATE_POOL = 20
#: Compiled-solver nodes per decision, and per world at most (about 10-15 million nodes a second of
#: CPU on the benchmark machine: the budget is about 0.1 s).
NODE_BUDGET = 500_000
WORLD_NODES = 60_000
#: With the pure-Python solver (no C compiler at install time) nodes cost about 100 times more.
PYTHON_NODE_BUDGET = 24_000
#: Fewer solved worlds than this: the heuristic's card. More dropped worlds than this: stop searching.
MIN_WORLDS = 4
MAX_FAILURES = 1
#: The first tricks (more than `EARLY_CARDS` cards in hand): a world is nearly the whole deal, so fewer
#: worlds, each with a larger node limit (a world past it ends the search: the heuristic's card, as
#: for about half of the first tricks' decisions), keep the CPU of a deal within today's expert's.
EARLY_CARDS = 11
EARLY_SAMPLES = 6
EARLY_POOL = 8
EARLY_WORLD_NODES = 150_000
EARLY_NODE_BUDGET = 900_000
#: The first tricks' (samples, pool, world nodes, node budget) where a ruleset needs its own. Classic
#: whist's points change with every trick, so each card of a world needs its exact count: with the
#: limits above its first tricks cost 1.04 times expert-v1's CPU per deal, with these 0.90 times
#: (docs/bots.md).
EARLY_LIMITS_BY_RULESET = {"whist": (5, 6, 100_000, 500_000)}
#: Trick contracts are searched once this seat holds at most this many cards: from the first card
#: (misères and piccolo too); with the pure-Python solver from trick 3.
SEARCH_CARDS = 13
PYTHON_SEARCH_CARDS = 11


@dataclass(frozen=True)
class Limits:
    """What one decision may search: `samples` worlds drawn from a pool of `pool` weighted samples, at
    most `world_nodes` solver nodes for one world and `node_budget` for the decision."""

    samples: int
    pool: int
    world_nodes: int
    node_budget: int


class ExpertBot:
    """Search over sampled hidden hands from the first card; calls by simulation; the heuristic bot as
    tie-break and fallback."""

    name = "expert"

    def __init__(self, samples: int = SAMPLES, node_budget: int | None = None,
                 world_nodes: int | None = None, min_worlds: int = MIN_WORLDS,
                 search_cards: int | None = None) -> None:
        self.heuristic = HeuristicBot()
        python = IMPLEMENTATION == "python"
        budget = node_budget or (PYTHON_NODE_BUDGET if python else NODE_BUDGET)
        per_world = world_nodes or (PYTHON_NODE_BUDGET if python else WORLD_NODES)
        # Limits given here hold for every stage (the oracle's); by default the first tricks have their
        # own, but with the pure-Python solver (whose nodes cost about 100 times more).
        self.middle = Limits(samples, POOL, per_world, budget)
        self.late = Limits(max(samples, LATE_SAMPLES), LATE_POOL, per_world, budget)

        def early(worlds: int, pool: int, world: int, decision: int) -> Limits:
            if python:
                return Limits(worlds, pool, per_world, budget)
            return Limits(worlds, pool, world_nodes or world, node_budget or decision)

        self.early = early(EARLY_SAMPLES, EARLY_POOL, EARLY_WORLD_NODES, EARLY_NODE_BUDGET)
        self.early_by_ruleset = {name: early(*spec) for name, spec in EARLY_LIMITS_BY_RULESET.items()}
        self.min_worlds = min_worlds
        # The most cards in hand with which a trick contract is searched (more: the heuristic's card);
        # whole deals are out of the pure-Python solver's reach.
        default_cards = PYTHON_SEARCH_CARDS if python else SEARCH_CARDS
        self.search_cards = default_cards if search_cards is None else search_cards

    def limits(self, view: View) -> Limits:
        """The limits of a decision: the first tricks' (card play only), the last tricks', or the rest's."""
        if view.get("phase") == "play" and len(view["hand"]) > EARLY_CARDS:
            return self.early_by_ruleset.get(str(view.get("ruleset")), self.early)
        if max(int(n) for n in view["hand_counts"]) <= LATE_TRICKS:
            return self.late
        return self.middle

    def decide(self, view: View, seed: str, budget_ms: float = 20.0) -> str:
        """One action of `view["legal"]` for `view["seat"]` (`budget_ms` is not used: limits are counts)."""
        legal = legal_actions_of(view)
        if len(legal) == 1:
            return legal[0]
        fallback = self.heuristic.decide(view, seed, budget_ms)
        try:
            if view.get("phase") == "play":
                action = self.choose_card(view, seed, fallback)
            else:
                action = choose_call_by_simulation(view, seed, fallback, self.worlds, self.middle.node_budget)
        except InconsistentViewError:
            action = None
        return action if action in legal else fallback

    def worlds(self, view: View, seed: str) -> list[World]:
        """The deals of the hidden cards this bot searches (a `WorldSource`): samples weighted by the
        auction and by the cards played."""
        cache: dict[tuple[Any, ...], str] = {}

        def weigh(v: View, knowledge: Knowledge, sample: SampledDeal) -> float:
            weight = world_weight(v, knowledge, sample)
            return weight * play_weight(v, knowledge, sample, cache) if weight > 0.0 else 0.0

        limits = self.limits(view)
        return draw_worlds(view, Knowledge.from_view(view), seed, limits.samples, limits.pool, weigh)

    # ---------------------------------------------------------------- card play

    def choose_card(self, view: View, seed: str, fallback: str) -> str | None:
        """The card with the best mean points over the sampled worlds, or None to play `fallback`."""
        contract = view.get("contract") or {}
        declarers = [int(s) for s in contract.get("declarers") or []]
        if not declarers or (len(declarers) > 1 and not contract.get("team")) or len(declarers) == 4:
            return None  # several misères played side by side: not a two-sided game
        if int(contract.get("level") or 0) >= 2 and len(view["hand"]) > self.search_cards:
            return None  # too early for a world of a trick contract to fit: the heuristic's card
        knowledge = Knowledge.from_view(view)
        cards = [action[5:] for action in view["legal"]]
        groups = equivalent_groups(knowledge, view, cards)
        if len(groups) == 1:
            return None  # every legal card leads to the same tricks: the heuristic's will do
        worlds = self.worlds(view, seed)
        rules_contract = real_contract(view, worlds)
        if rules_contract is None:
            return None
        fallback_card = fallback[5:]
        representative = next(rep for rep, members in groups.items() if fallback_card in members)
        # The heuristic's card first: the first world's questions then start from a likely value.
        order = [representative, *(rep for rep in groups if rep != representative)]
        scores = self.score_cards(view, knowledge, worlds, rules_contract, order)
        if scores is None:
            return None
        best = max(scores.values())
        if scores[representative] >= best - 1e-9:
            return fallback
        chosen = min((rep for rep, value in scores.items() if value >= best - 1e-9), key=card_bit)
        return f"play {chosen}"

    def score_cards(self, view: View, knowledge: Knowledge, worlds: Sequence[World], contract: Contract,
                    cards: Sequence[str]) -> dict[str, float] | None:
        """Mean points for this seat of each card over the worlds solved within the node budget (None:
        fewer than `min_worlds` solved)."""
        seat = knowledge.seat
        side_a = tuple(s in contract.declarers for s in range(4))
        maximizes = tuple((not a) if contract.level == 0 else a for a in side_a)
        points = points_table(view, contract, seat)
        trick = view.get("trick") or {"leader": seat, "cards": []}
        leader = int(trick["leader"])
        played = [card_bit(str(card)) for _, card in trick["cards"]]
        won_a = sum(int(view["tricks_won"][s]) for s in contract.declarers)
        need = max(0, contract.level - won_a)
        totals = dict.fromkeys(cards, 0.0)
        weight_sum = solved = failures = 0
        limits = self.limits(view)
        nodes_left = limits.node_budget
        for world in worlds:
            limit = min(nodes_left, limits.world_nodes)
            if limit < limits.world_nodes // 4 or failures >= MAX_FAILURES:
                break
            hands = [to_mask(hand) for hand in world.sample.hands]
            solver = Solver(contract.trump, side_a, maximizes, node_limit=limit)
            try:
                if len(worlds) == 1 and contract.level != 1 and _monotone(points, maximizes[seat]):
                    results = best_card_points(solver, hands, seat, leader, played, cards, points, won_a,
                                               need, maximizes[seat])
                else:
                    results = card_points(solver, hands, seat, leader, played, cards, points, won_a, need,
                                          piccolo=contract.level == 1)
            except NodeLimitError:
                failures += 1
                nodes_left -= limit
                continue
            nodes_left -= solver.nodes
            solved += 1
            weight_sum += world.weight
            for card in cards:
                totals[card] += world.weight * results[card]
        if solved < min(self.min_worlds, len(worlds)) or weight_sum == 0:
            return None
        return {card: total / weight_sum for card, total in totals.items()}


def card_points(solver: Any, hands: Sequence[int], seat: int, leader: int, played: Sequence[int],
                cards: Sequence[str], points: Sequence[float], won_a: int, need: int,
                piccolo: bool = False) -> dict[str, float]:
    """This seat's points after each of `cards` in one world, asking the solver only what the points need.

    `points[t]` is this seat's score when side A ends with `t` tricks (`won_a` so far). The tricks still
    to come lie in [0, left]; a null-window question at a trick count where the points change splits
    that range (a fail-soft answer may split it further), until the points are the same over what is
    left. The first question is at the count nearest `need` (the contract's target), the next card's at
    the count nearest the previous card's answer.
    """
    left = max(h.bit_count() for h in hands)
    steps = [k for k in range(1, left + 1) if points[min(won_a + k, 13)] != points[min(won_a + k - 1, 13)]]
    results: dict[str, float] = {}
    guess = _first_guess(solver, hands, leader, played, need)
    for card in cards:
        bit = card_bit(card)
        after = list(hands)
        after[seat] ^= 1 << bit
        line = [*played, bit]
        if piccolo:
            made = solver.exactly_one(after, leader, line, won_a)
            results[card] = points[1 if made else 2]
            continue
        low = _settle(solver, after, leader, line, steps, guess, 0, left)[0]
        results[card] = points[min(won_a + low, 13)]
        guess = low
    return results


def _first_guess(solver: Any, hands: Sequence[int], leader: int, played: Sequence[int], need: int) -> int:
    """Where the first question goes: the greedy playout's tricks at the start of a trick (a few
    questions near the value cost far less than a walk up from the target), else the target."""
    if played:
        return need
    trump = None if solver.trump < 0 else "SHDC"[solver.trump]
    return greedy_playout(hands, leader, trump, solver.side_a, solver.maximizes)


def _settle(solver: Any, hands: Sequence[int], leader: int, line: Sequence[int], steps: Sequence[int],
            guess: int, low: int, high: int) -> tuple[int, int]:
    """Narrow [low, high], the range of side A's tricks to come, by null-window questions at `steps`
    (the counts where the points change) until no step is left inside it."""
    while True:
        open_steps = [k for k in steps if low < k <= high]
        if not open_steps:
            return low, high
        k = min(open_steps, key=lambda s: (abs(s - guess), s))
        answer = solver.value(hands, leader, line, k - 1, k)
        if answer >= k:
            low = max(low, min(answer, high))
        else:
            high = min(high, max(answer, low))


def best_card_points(solver: Any, hands: Sequence[int], seat: int, leader: int, played: Sequence[int],
                     cards: Sequence[str], points: Sequence[float], won_a: int, need: int,
                     wants_more: bool) -> dict[str, float]:
    """`card_points` for one world when only the best cards matter (the oracle): each card after the
    first is only asked whether it reaches the best points so far, and exactly searched only if it
    passes them. The cards found worse get a figure below the best, not their points. `wants_more`:
    this seat's points grow with side A's tricks (else they fall)."""
    left = max(h.bit_count() for h in hands)
    steps = [k for k in range(1, left + 1) if points[min(won_a + k, 13)] != points[min(won_a + k - 1, 13)]]
    results: dict[str, float] = {}
    best: tuple[int, int] | None = None
    guess = _first_guess(solver, hands, leader, played, need)
    for card in cards:
        bit = card_bit(card)
        after = list(hands)
        after[seat] ^= 1 << bit
        line = [*played, bit]
        if best is None:
            best = _settle(solver, after, leader, line, steps, guess, 0, left)
            results[card] = points[min(won_a + best[0], 13)]
            continue
        low, high = best
        # The same points as the best: side A's tricks within [low, high] (the best's segment).
        if wants_more:
            worse = solver.value(after, leader, line, low - 1, low) < low if low > 0 else False
            better = not worse and high < left and solver.value(after, leader, line, high, high + 1) > high
        else:
            worse = high < left and solver.value(after, leader, line, high, high + 1) > high
            better = not worse and low > 0 and solver.value(after, leader, line, low - 1, low) < low
        if worse:
            results[card] = points[min(won_a + best[0], 13)] - 1.0
        elif better:
            start = high + 1 if wants_more else 0
            stop = left if wants_more else low - 1
            best = _settle(solver, after, leader, line, steps, start, start, stop)
            results[card] = points[min(won_a + best[0], 13)]
        else:
            results[card] = points[min(won_a + best[0], 13)]
    return results


def _monotone(points: Sequence[float], rising: bool) -> bool:
    """Whether this seat's points never fall (`rising`) or never rise as side A takes more tricks."""
    pairs = list(itertools.pairwise(points))
    return all(b >= a for a, b in pairs) if rising else all(b <= a for a, b in pairs)


def real_contract(view: View, worlds: Sequence[World]) -> Contract | None:
    """The engine's contract (its scoring needs details the view leaves out), from a rebuilt world."""
    for world in worlds:
        try:
            deal: Deal = rebuild_deal(view, world.sample)
        except InconsistentViewError:
            continue
        return deal.contract
    return None


def equivalent_groups(knowledge: Knowledge, view: View, cards: Sequence[str]) -> dict[str, list[str]]:
    """The legal cards grouped where no card outside this hand lies between them (the lowest stands for
    the group): whatever the hidden hands, playing any of a group leads to the same tricks."""
    trick = view.get("trick") or {"cards": []}
    separators = set(knowledge.unseen) | {str(c) for _, c in trick["cards"]}
    for seat in range(4):
        if seat != knowledge.seat:
            separators |= knowledge.known[seat]
    for card, _owner in knowledge.pinned:
        separators.add(card)
    groups: dict[str, list[str]] = {}
    ordered = sorted(cards, key=card_bit)
    previous: str | None = None
    for card in ordered:
        if previous is not None and previous[1] == card[1] and not any(
                sep[1] == card[1] and card_bit(previous) < card_bit(sep) < card_bit(card)
                for sep in separators):
            leader = next(rep for rep, members in groups.items() if previous in members)
            groups[leader].append(card)
        else:
            groups[card] = [card]
        previous = card
    return groups
