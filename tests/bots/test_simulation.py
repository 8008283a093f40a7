"""Simulating a call (`server/bots/simulation.py`): the play's points from the exact value where the
node limit allows, the greedy playout past it; a world's auction finished by the model."""

from __future__ import annotations

import random

from bots_helpers import frozen_copy

from server.bots import get_bot
from server.bots.expert import ExpertBot
from server.bots.simulation import points_table, position_points, simulate_action
from server.bots.solver import Solver, greedy_playout, to_mask
from server.rules import Deal
from server.rules.cards import FULL_DECK

TEAM = (True, False, True, False)


def _positions(count: int, seed: int) -> list[list[int]]:
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        deck = list(FULL_DECK)
        rng.shuffle(deck)
        size = rng.randint(2, 5)
        out.append([to_mask(deck[13 * s:13 * s + size]) for s in range(4)])
    return out


def test_position_points_are_the_points_of_the_exact_value() -> None:
    points = [-10.0 if t < 3 else 10.0 + min(t - 3, 2) for t in range(14)]
    for hands in _positions(60, 1):
        exact = Solver("H", TEAM, TEAM).value(hands, 1)
        assert position_points(hands, 1, "H", TEAM, TEAM, points, 3, 10**6) == points[exact]


def test_past_the_node_limit_the_greedy_playout_decides() -> None:
    points = [float(t) for t in range(14)]
    for hands in _positions(20, 2):
        greedy = greedy_playout(hands, 0, None, TEAM, TEAM)
        assert position_points(hands, 0, None, TEAM, TEAM, points, 2, 1) == points[greedy]


def test_a_simulated_call_replays_to_the_play_and_a_deal_passed_out_is_worth_nothing() -> None:
    heuristic, expert = get_bot("heuristic"), ExpertBot()
    figures = 0
    for i in range(30):
        deal = Deal.from_seed("couleur", f"simulate:{i}", i % 4)
        seat = min(deal.to_act())
        view = frozen_copy(deal.view(seat))
        world = expert.worlds(view, "w")[0]
        call = heuristic.decide(view, "h", 20.0)
        value = simulate_action(view, world.sample, call, 20_000)
        assert value is None or isinstance(value, float)
        assert value == simulate_action(view, world.sample, call, 20_000)  # a count, never a clock
        figures += value is not None
    assert figures >= 20


def test_the_points_table_is_the_rulesets_scoring() -> None:
    heuristic = get_bot("heuristic")
    checked = 0
    for i in range(10):
        deal = Deal.from_seed("solo-whist", f"table:{i}", i % 4)
        while deal.contract is None and not deal.finished:
            seat = min(deal.to_act())
            deal.apply(seat, heuristic.decide(deal.view(seat), "h", 20.0))
        contract = deal.contract
        if contract is None or contract.level < 2:
            continue
        declarer = contract.declarers[0]
        table = points_table(deal.view(declarer), contract, declarer)
        assert table[13] > 0 > table[0]  # made with every trick, defeated with none
        checked += 1
    assert checked >= 3
