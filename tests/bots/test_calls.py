"""The expert's calls (`server/bots/calls.py`): the club bouche-trou's trump and who leads in the
simulation (docs/rules.md §3, D12); which lone calls the greedy veto removes (today's expert,
`bench.expert_v1`, and the new one's misères); calls, trump and discards by simulation pick the obviously
right one in constructed hands."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from bots_helpers import frozen_copy

from server.bots import Bot, get_bot, load_bot
from server.bots.calls import (
    VETO,
    _lone_contract,
    _playout,
    choose_call,
    choose_call_by_simulation,
    simulated_means,
    simulation_leader,
)
from server.bots.expert import ExpertBot
from server.bots.worlds import World
from server.rules import Deal
from server.rules.cards import FULL_DECK
from server.rules.play import Phase

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))


def _v1() -> Bot:
    """Today's expert before the search from the first card (`bench/expert_v1.py`)."""
    return load_bot("bench.expert_v1:ExpertV1Bot")


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


def test_D12_the_greedy_calls_bouche_trou_names_the_trump_of_the_hand_evaluation() -> None:
    # Deal match:183: the greedy playouts (eldest leading) chose hearts where the hand evaluation of the
    # bouche-trou, with his partner's three aces, names spades. (The new expert simulates this trump.)
    expert, heuristic = _v1(), get_bot("heuristic")
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
    expert: Any = _v1()
    spec = _lone_contract(view, call)
    assert spec is not None
    trump, level, leads = spec
    worlds: list[World] = expert.worlds(view, seed)
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


def test_a_hopeless_lone_solo_is_still_vetoed_by_the_greedy_calls() -> None:
    expert = _v1()
    vetoed = 0
    for seed, view, call in _lone_call_views("belge-club", {"solo"}, 200):
        if _simulated_chance(view, seed, call) < VETO:
            assert expert.decide(view, seed, 20.0) == "pass", seed
            vetoed += 1
    assert vetoed >= 1


def _first_view(ruleset: str, seed: str, want: Any) -> dict[str, Any]:
    """The first view of a heuristic deal for which `want(view)` holds."""
    heuristic = get_bot("heuristic")
    for i in range(300):
        deal = Deal.from_seed(ruleset, f"{seed}:{i}", i % 4)
        while not deal.finished:
            seat = min(deal.to_act())
            view = deal.view(seat)
            if want(view):
                return frozen_copy(view)
            deal.apply(seat, heuristic.decide(view, "h", 20.0))
    raise AssertionError("no such view")


def _with_hand(view: dict[str, Any], hand: list[str]) -> dict[str, Any]:
    """The view with this seat's hand replaced (the other seats' cards are then whatever is left)."""
    assert len(hand) == len(view["hand"]) and set(hand) <= set(FULL_DECK)
    turn_up = view.get("turn_up")
    if turn_up and view.get("turn_up_in_hand") and view["seat"] == view["dealer"] and turn_up not in hand:
        hand = [*hand[:-1], turn_up]  # the dealer holds the turn-up: it must stay in his hand
    changed = dict(view, hand=hand)
    changed["legal"] = [a for a in view["legal"] if not a.startswith(("play ", "discard "))] + [
        f"{a.split(' ')[0]} {c}" for a in view["legal"][:1] if a.startswith(("play ", "discard "))
        for c in hand]
    return changed


SPADES = ["AS", "KS", "QS", "JS", "TS", "9S", "8S", "7S", "AH", "2H", "2D", "3D", "2C"]


def test_trump_by_simulation_names_the_suit_of_eight_top_spades() -> None:
    """Naming trump (a solo-whist abundance) with eight top spades: the simulation prefers spades
    whatever the heuristic proposed, and by far."""
    view = _first_view("solo-whist", "sim-trump", lambda v: "trump S" in v["legal"] and not (
        v.get("turn_up") in SPADES and v.get("turn_up_in_hand")) and sum(
        str(a).startswith("trump ") for a in v["legal"]) >= 3 and len(v["hand"]) == 13)
    view = _with_hand(view, SPADES)
    expert = ExpertBot()
    legal = [a for a in view["legal"] if a.startswith("trump ")]
    other = next(a for a in legal if a != "trump S")
    means = simulated_means(view, "s", ["trump S", other], expert.worlds, expert.middle.node_budget)
    assert means["trump S"] > means[other] + 2.0
    assert choose_call_by_simulation(view, "s", other, expert.worlds, expert.middle.node_budget) == "trump S"


def test_a_solo_with_no_trick_in_hand_is_passed_by_simulation() -> None:
    """A couleur solo called with the lowest cards of the pack: the simulated solo loses, passing
    does better, so with a margin for overriding the call the simulation passes (the heuristic would
    not call it: the call is forced here); with none (the default) today's greedy veto decides."""
    view = _first_view("couleur", "sim-pass", lambda v: v["phase"] == "auction" and "pass" in v["legal"]
                       and any(str(a).startswith("solo ") for a in v["legal"]))
    low = ["2S", "3S", "4S", "2H", "3H", "4H", "2D", "3D", "4D", "5D", "2C", "3C", "4C"]
    view = _with_hand(view, low)
    solo = next(a for a in view["legal"] if a.startswith("solo "))
    expert = ExpertBot()
    means = simulated_means(view, "s", [solo, "pass"], expert.worlds, expert.middle.node_budget)
    assert means["pass"] > means[solo] + 5.0
    assert choose_call_by_simulation(view, "s", solo, expert.worlds, expert.middle.node_budget, 5.0) == "pass"
    by_default = choose_call_by_simulation(view, "s", solo, expert.worlds, expert.middle.node_budget)
    assert by_default == choose_call(view, "s", solo, expert.worlds)  # today's greedy veto decides
