"""The expert's calls (`server/bots/calls.py`): the club bouche-trou's trump and who leads in the
simulation (RULES.md §3, D12)."""

from __future__ import annotations

from typing import Any

from server.bots import get_bot
from server.bots.calls import simulation_leader
from server.rules import Deal


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
