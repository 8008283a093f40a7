"""Today's expert before it searched from the first card, kept for comparison (`ExpertV1Bot`).

    python -m server.bots.match --ruleset couleur --bots expert bench.expert_v1:ExpertV1Bot --mode 2v2

It is the expert as it was: the heuristic bot's card for the first 7 tricks, then the pure-Python solver
(`solver.Solver`, `NODE_BUDGET` nodes) over `SAMPLES` worlds weighted by the auction alone, in the last
`EXACT_TRICKS` tricks; the calls of `calls.choose_call` (greedy playouts veto lone calls and name trump).
The helpers it shares with the new expert (`real_contract`, `points_table`, `equivalent_groups`) are the
same functions as before, moved unchanged into `server/bots/expert.py`.
"""

from __future__ import annotations

from collections.abc import Sequence

from server.bots.base import View, legal_actions_of
from server.bots.calls import choose_call
from server.bots.expert import equivalent_groups as _equivalent_groups
from server.bots.expert import real_contract as _real_contract
from server.bots.heuristic import HeuristicBot
from server.bots.knowledge import InconsistentViewError, Knowledge
from server.bots.simulation import points_table as _points_table
from server.bots.solver import NodeLimitError, Solver, card_bit, to_mask
from server.bots.worlds import World, draw_worlds
from server.rules import Contract

#: Search the card play exactly when at most this many tricks remain (counting the current one).
EXACT_TRICKS = 6
#: Deals of the hidden cards searched per decision, and the pool they are drawn from by weight.
SAMPLES = 10
POOL = 30
#: Solver nodes per decision (about 0.1-0.25 s of CPU in pure Python on the benchmark machine, by load;
#: 32,000 gave a CPU p99 of 312 ms over every decision of 20 couleur deals on the loaded 2-core machine).
NODE_BUDGET = 24_000


class ExpertV1Bot:
    """Search over sampled hidden hands, exact in the last tricks; the heuristic bot elsewhere."""

    name = "expert-v1"

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
