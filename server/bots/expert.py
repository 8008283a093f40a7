"""The expert bot: plays by searching over sampled deals of the hidden cards (as GIB does in bridge).

Card play: once few enough tricks remain for pure Python to solve them (`EXACT_TRICKS`), the bot draws
`SAMPLES` deals of the hidden cards consistent with its view and weighted by the auction's inferences
(`worlds.py`, `inference.py`), solves each exactly for every card it may play (`solver.py`), turns the
tricks into the deal's real points for its own seat (the ruleset's scoring: contract made or defeated,
overtricks where they pay, exactly one trick for piccolo, none for a misère) and plays the card with the
best mean. Earlier in the play, in calls (`calls.py`) and wherever the search cannot apply, it plays
like the heuristic bot, whose choice also breaks ties between cards that score the same.

Every limit is a count, never a clock: a fixed number of samples and a fixed node budget per decision
(`NODE_BUDGET`); a world whose search passes the budget ends the search and the worlds solved so far
decide. So the same view and seed give the same action in any process.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from server.rules import Contract, Deal, get_ruleset

from .base import View, legal_actions_of
from .calls import choose_call
from .heuristic import HeuristicBot
from .knowledge import InconsistentViewError, Knowledge, rebuild_deal
from .solver import NodeLimitError, Solver, card_bit, to_mask
from .worlds import World, draw_worlds

#: Search the card play exactly when at most this many tricks remain (counting the current one).
EXACT_TRICKS = 6
#: Deals of the hidden cards searched per decision, and the pool they are drawn from by weight.
SAMPLES = 10
POOL = 30
#: Solver nodes per decision (about 0.1-0.25 s of CPU in pure Python on the benchmark machine, by load;
#: 32,000 gave a CPU p99 of 312 ms over every decision of 20 couleur deals on the loaded 2-core machine).
NODE_BUDGET = 24_000


class ExpertBot:
    """Search over sampled hidden hands, exact in the last tricks; the heuristic bot elsewhere."""

    name = "expert"

    def __init__(self, samples: int = SAMPLES, exact_tricks: int = EXACT_TRICKS,
                 node_budget: int = NODE_BUDGET) -> None:
        self.heuristic = HeuristicBot()
        self.samples = samples
        self.exact_tricks = exact_tricks
        self.node_budget = node_budget

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
                action = choose_call(view, seed, fallback, self.worlds)
        except InconsistentViewError:
            action = None
        return action if action in legal else fallback

    def worlds(self, view: View, seed: str) -> list[World]:
        """The deals of the hidden cards this bot searches (a `WorldSource`): weighted samples."""
        return draw_worlds(view, Knowledge.from_view(view), seed, self.samples, POOL)

    # ---------------------------------------------------------------- card play

    def choose_card(self, view: View, seed: str, fallback: str) -> str | None:
        """The card with the best mean points over the sampled worlds, or None to play `fallback`."""
        contract = view.get("contract") or {}
        declarers = [int(s) for s in contract.get("declarers") or []]
        if not declarers or (len(declarers) > 1 and not contract.get("team")) or len(declarers) == 4:
            return None  # several misères played side by side: not a two-sided game
        if max(int(n) for n in view["hand_counts"]) > self.exact_tricks:
            return None
        knowledge = Knowledge.from_view(view)
        worlds = self.worlds(view, seed)
        rules_contract = _real_contract(view, worlds)
        if rules_contract is None:
            return None
        cards = [action[5:] for action in view["legal"]]
        groups = _equivalent_groups(knowledge, view, cards)
        scores = self._score_cards(view, knowledge, worlds, rules_contract, list(groups))
        if scores is None:
            return None
        best = max(scores.values())
        fallback_card = fallback[5:]
        representative = next(rep for rep, members in groups.items() if fallback_card in members)
        if scores[representative] >= best - 1e-9:
            return fallback
        chosen = min((rep for rep, value in scores.items() if value >= best - 1e-9), key=card_bit)
        return f"play {chosen}"

    def _score_cards(self, view: View, knowledge: Knowledge, worlds: Sequence[World], contract: Contract,
                     cards: Sequence[str]) -> dict[str, float] | None:
        """Mean points for this seat of each card, over the worlds solved within the node budget."""
        seat = knowledge.seat
        side_a = tuple(s in contract.declarers for s in range(4))
        misere = contract.level == 0
        piccolo = contract.level == 1
        maximizes = tuple((not a) if misere else a for a in side_a)
        points = _points_table(view, contract, seat)
        trick = view.get("trick") or {"leader": seat, "cards": []}
        leader = int(trick["leader"])
        played = [card_bit(str(card)) for _, card in trick["cards"]]
        won_a = sum(int(view["tricks_won"][s]) for s in contract.declarers)
        totals = dict.fromkeys(cards, 0.0)
        weight_sum = 0
        nodes_left = self.node_budget
        for world in worlds:
            hands = [to_mask(hand) for hand in world.sample.hands]
            solver = Solver(contract.trump, side_a, maximizes, node_limit=nodes_left)
            results: dict[str, float] = {}
            try:
                for card in cards:
                    bit = card_bit(card)
                    after = list(hands)
                    after[seat] ^= 1 << bit
                    if piccolo:
                        made = solver.exactly_one(after, leader, [*played, bit], won_a)
                        results[card] = points[1 if made else 2]
                    else:
                        results[card] = points[won_a + solver.value(after, leader, [*played, bit])]
            except NodeLimitError:
                break
            nodes_left -= solver.nodes
            weight_sum += world.weight
            for card in cards:
                totals[card] += world.weight * results[card]
        if weight_sum == 0:
            return None
        return {card: total / weight_sum for card, total in totals.items()}


def _real_contract(view: View, worlds: Sequence[World]) -> Contract | None:
    """The engine's contract (its scoring needs details the view leaves out), from a rebuilt world."""
    for world in worlds:
        try:
            deal: Deal = rebuild_deal(view, world.sample)
        except InconsistentViewError:
            continue
        return deal.contract
    return None


def _points_table(view: View, contract: Contract, seat: int) -> list[float]:
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


def _equivalent_groups(knowledge: Knowledge, view: View, cards: Sequence[str]) -> dict[str, list[str]]:
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
