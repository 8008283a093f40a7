"""The oracle: the expert bot's search given the true hidden hands. A cheat, kept out of the product.

It is the upper bound of the strength runs (docs/bots.md): the same search, calls and fallbacks as the
expert, but its only world is the real deal, searched from the first card to the last with every hand
known (the compiled solver, `ORACLE_NODES` nodes per decision: a whole deal fits in nearly every
decision; past it, the heuristic's card). It finds the real deal from the seed the match tool gives
it (`<prefix>:<i>:<seat>`, deal `<prefix>:<i>` dealt by `view["dealer"]`), so it works only under
`python -m server.bots.match`, never in the live server (which never hands a bot the deal's seed):

    python -m server.bots.match --ruleset couleur --bots bench.oracle:OracleBot heuristic --mode 2v2

What it cannot know are the other seats' face-down discards in a petite misère (the seed gives the hands
as dealt, not what each player chose to discard): there it assumes the heuristic bot's discard rule
(a declarer sheds his most dangerous card, a defender his highest).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from server.bots.evaluate import misere_discard
from server.bots.expert import ExpertBot
from server.bots.knowledge import Knowledge, SampledDeal, by_rank, rank
from server.bots.worlds import World
from server.rules import Deal

#: Solver nodes per decision (a bench bot: no 300 ms goal; up to about 4 s of CPU).
ORACLE_NODES = 40_000_000


class OracleBot(ExpertBot):
    """The expert's search with the true deal as its only world."""

    name = "oracle"

    def __init__(self) -> None:
        super().__init__(node_budget=ORACLE_NODES, world_nodes=ORACLE_NODES, min_worlds=1, search_cards=13)

    def worlds(self, view: Mapping[str, Any], seed: str) -> list[World]:
        """The one true world, rebuilt from the match tool's seed."""
        deal_seed = seed.rsplit(":", 1)[0]
        dealt = Deal.from_seed(str(view["ruleset"]), deal_seed, int(view["dealer"]),
                               view.get("house_rules") or {}).dealt
        knowledge = Knowledge.from_view(view)
        contract = view.get("contract") or {}
        hands: list[tuple[str, ...]] = []
        discards: dict[int, str] = {}
        for seat in range(4):
            if seat == knowledge.seat:
                hands.append(tuple(view["hand"]))
                continue
            left = [card for card in dealt[seat] if card not in knowledge.played_by[seat]]
            if seat in knowledge.hidden_discards:
                discard = (misere_discard(left) if seat in (contract.get("declarers") or [])
                           else max(left, key=lambda c: (rank(c), c[1])))
                discards[seat] = discard
                left.remove(discard)
            hands.append(tuple(by_rank(left)))
        return [World(SampledDeal(tuple(hands), discards), 1)]
