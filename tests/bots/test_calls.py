"""The expert's calls (`server/bots/calls.py`): the club bouche-trou's trump and who leads in the
simulation (docs/rules.md §3, D12); which lone calls the simulation vetoes."""

from __future__ import annotations

from typing import Any

from server.bots import get_bot
from server.bots.calls import VETO, _lone_contract, _playout, simulation_leader
from server.bots.expert import ExpertBot
from server.rules import Deal
from server.rules.play import Phase


def _bouche_trou_views(count: int) -> list[tuple[str, int, dict[str, Any]]]:
    """(seed, seat, view) of the bouche-trou answering the trou, in the first `count` club deals."""
    found = []
    for i in range(count):
        seed = f"match:{i}"
        deal = Deal.from_seed("belge-club", seed, i % 4)
        for seat in sorted(deal.to_act()):
            view = deal.view(seat)
            if any(str(action).startswith("trump ") for action in view["legal"]):
                found.append((seed, seat, view))
    return found


def test_D12_the_trump_simulation_lets_the_bouche_trou_lead_not_eldest() -> None:
    views = _bouche_trou_views(120)
    assert len(views) >= 10
    leaders = {(simulation_leader(view), seat, int(view["eldest"])) for _, seat, view in views}
    assert all(leader == seat for leader, seat, _ in leaders)
    assert any(seat != eldest for _, seat, eldest in leaders)  # the case where eldest would be wrong


def test_D12_the_expert_bouche_trou_names_the_trump_of_the_hand_evaluation() -> None:
    # Deal match:183: the greedy playouts (eldest leading) chose hearts where the hand evaluation of the
    # bouche-trou, with his partner's three aces, names spades.
    expert, heuristic = get_bot("expert"), get_bot("heuristic")
    views = [entry for entry in _bouche_trou_views(200) if entry[0] == "match:183"]
    views += _bouche_trou_views(40)
    for seed, seat, view in views:
        assert expert.decide(view, f"{seed}:{seat}") == heuristic.decide(view, f"{seed}:{seat}")


def _lone_call_views(ruleset: str, verbs: set[str], count: int) -> list[tuple[str, dict[str, Any], str]]:
    """(seed, view, heuristic call) where the heuristic bidder makes a lone call of `verbs`, pass legal."""
    heuristic = get_bot("heuristic")
    found = []
    for i in range(count):
        seed = f"veto:{i}"
        deal = Deal.from_seed(ruleset, seed, i % 4)
        while not deal.finished and deal.phase is Phase.AUCTION:
            seat = min(deal.to_act())
            view = deal.view(seat)
            call = heuristic.decide(view, f"{seed}:{seat}", 20.0)
            if call.split(" ")[0] in verbs and "pass" in view["legal"]:
                found.append((f"{seed}:{seat}", view, call))
            deal.apply(seat, call)
    return found


def _simulated_chance(view: dict[str, Any], seed: str, call: str) -> float:
    """The made rate the veto simulation estimates for `call`."""
    expert = ExpertBot()
    spec = _lone_contract(view, call)
    assert spec is not None
    trump, level, leads = spec
    worlds = expert.worlds(view, seed)
    made = 0
    for world in worlds:
        taken = _playout(view, world, (int(view["seat"]),), trump, level, leads)
        made += world.weight * (taken == level if level <= 1 else taken >= level)
    return made / sum(world.weight for world in worlds)


def test_a_misere_the_heuristic_bids_is_never_vetoed_in_the_club_and_couleur_rules() -> None:
    expert = get_bot("expert")
    for ruleset in ("belge-club", "couleur"):
        views = _lone_call_views(ruleset, {"petite-misere"}, 120)
        assert len(views) >= 5, ruleset
        low = 0
        for seed, view, call in views:
            assert expert.decide(view, seed, 20.0) == call, (ruleset, seed)
            low += _simulated_chance(view, seed, call) < VETO
        assert low >= 1, ruleset  # the veto would have removed some of them


def test_a_hopeless_lone_solo_is_still_vetoed() -> None:
    expert = get_bot("expert")
    vetoed = 0
    for seed, view, call in _lone_call_views("belge-club", {"solo"}, 200):
        if _simulated_chance(view, seed, call) < VETO:
            assert expert.decide(view, seed, 20.0) == "pass", seed
            vetoed += 1
    assert vetoed >= 1
