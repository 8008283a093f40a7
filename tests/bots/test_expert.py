"""The expert bot: legal in every ruleset, deterministic across processes, reads only its view, and plays
the card the exact search proves best when it knows the cards."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from bots_helpers import RULESETS, frozen_copy, iter_views
from test_no_peeking import HIDDEN_KEYS, SealedView, _alternative_deal

from server.bots import ExpertBot, get_bot, load_bot
from server.bots.expert import ExpertBot as Expert
from server.bots.expert import card_points
from server.bots.fast_solver import IMPLEMENTATION
from server.bots.solver import Solver, card_bit, to_mask
from server.rules import Deal

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
#: Tricks left below which the slow tests look at every card decision (earlier ones: one in four).
LATE = 6


class CountingExpert(Expert):
    """The expert, counting the card decisions its search decided (not its fallback), by cards in hand."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.searched: list[int] = []
        self.searched_tricks: list[int] = []  # the same, for trick contracts (not misères, not piccolo)

    def score_cards(self, view: Any, *args: Any) -> dict[str, float] | None:
        scores = super().score_cards(view, *args)
        if scores is not None:
            self.searched.append(max(int(n) for n in view["hand_counts"]))
            if int(view["contract"].get("level") or 0) >= 2:
                self.searched_tricks.append(max(int(n) for n in view["hand_counts"]))
        return scores


def test_the_expert_is_registered_beside_the_other_bots() -> None:
    assert isinstance(get_bot("expert"), ExpertBot)
    assert get_bot("expert").name == "expert"


@pytest.mark.parametrize("ruleset", RULESETS)
def test_every_expert_action_is_legal_over_many_deals_and_it_searches_from_the_first_tricks(
        ruleset: str) -> None:
    expert = CountingExpert()
    others = {"heuristic": get_bot("heuristic"), "random": get_bot("random")}
    for i in range(8):
        lineup = ("expert", "heuristic", "expert", "heuristic") if i % 3 else (
            "random", "expert", "expert", "expert")
        deal = Deal.from_seed(ruleset, f"expert-legal:{i}", i % 4)
        while not deal.finished:
            seat = min(deal.to_act())
            view = deal.view(seat)
            bot = expert if lineup[seat] == "expert" else others[lineup[seat]]
            action = bot.decide(frozen_copy(view), f"expert-legal:{i}:{seat}", 20.0)
            assert action in view["legal"]
            deal.apply(seat, action)
    assert len(expert.searched) > 40  # the search itself decided, not only its fallback
    assert any(n >= 9 for n in expert.searched)  # and well before the last 6 tricks
    if expert.search_cards == 13:  # trick contracts too, from the first card
        assert 13 in expert.searched_tricks, sorted(set(expert.searched_tricks))
    else:  # with the pure-Python solver: from trick 3
        assert IMPLEMENTATION == "python"
        assert max(expert.searched_tricks) <= 11


def test_with_no_node_budget_the_expert_plays_the_heuristics_card() -> None:
    starved = CountingExpert(node_budget=10)
    heuristic = get_bot("heuristic")
    compared = 0
    for point in iter_views("couleur", 2, ("heuristic",) * 4, "expert-starved"):
        view = point.view
        if view["phase"] == "play" and len(view["legal"]) > 1:
            assert starved.decide(frozen_copy(view), "s", 20.0) == heuristic.decide(view, "s", 20.0)
            compared += 1
    assert compared > 20 and starved.searched == []


@pytest.mark.parametrize("level", [0, 6, 9])
def test_card_points_asks_only_what_the_points_need_and_gets_them_right(level: int) -> None:
    """On random endgames, the points `card_points` finds for each card are those of the exact value."""
    import random

    from server.bots.fast_solver import Solver as Fast
    from server.rules.cards import FULL_DECK

    rng = random.Random(level)
    checked = 0
    for _ in range(40):
        deck = list(FULL_DECK)
        rng.shuffle(deck)
        size = rng.randint(2, 5)
        hands = [to_mask(deck[13 * s:13 * s + size]) for s in range(4)]
        won_a = rng.randint(0, 13 - size)
        # Points that step where a contract of `level` is made, plus an overtrick or two that pay.
        points = [(-10.0 if t < level else 10.0 + (t - level if t <= level + 2 else 2)) if level else
                  (20.0 if t == 0 else -20.0) for t in range(14)]
        side_a = (True, False, False, False) if level in (0, 9) else (True, False, True, False)
        maximizes = tuple(not a for a in side_a) if level == 0 else side_a
        cards = [c for c in deck[0:size]]
        solver = Fast("S" if level else None, side_a, maximizes)
        got = card_points(solver, hands, 0, 0, [], cards, points, won_a, max(0, level - won_a))
        exact = Solver("S" if level else None, side_a, maximizes)
        for card in cards:
            after = list(hands)
            after[0] ^= 1 << card_bit(card)
            assert got[card] == points[won_a + exact.value(after, 0, [card_bit(card)])]
            checked += 1
    assert checked > 100


SCRIPT = (
    "import json, sys\n"
    f"sys.path.insert(0, {str(HERE)!r})\n"
    "from test_expert import expert_decisions\n"
    "print(json.dumps(expert_decisions(sys.argv[1], int(sys.argv[2]))))\n"
)


def expert_decisions(ruleset: str, deals: int) -> list[list[object]]:
    """Every decision of `deals` deals with the expert in seats 0 and 2 and the heuristic bot in 1 and 3."""
    bots = [get_bot(name) for name in ("expert", "heuristic", "expert", "heuristic")]
    decisions: list[list[object]] = []
    for i in range(deals):
        deal = Deal.from_seed(ruleset, f"expert-determinism:{i}", i % 4)
        while not deal.finished:
            seat = min(deal.to_act())
            action = bots[seat].decide(deal.view(seat), f"seed:{i}:{seat}", 20.0)
            decisions.append([i, seat, action])
            deal.apply(seat, action)
    return decisions


@pytest.mark.parametrize("ruleset", RULESETS)
def test_the_expert_decides_the_same_in_two_fresh_processes(ruleset: str) -> None:
    runs = []
    for hash_seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": hash_seed, "PYTHONPATH": str(ROOT)}
        done = subprocess.run([sys.executable, "-c", SCRIPT, ruleset, "5"], cwd=ROOT, env=env,
                              capture_output=True, text=True, timeout=280, check=True)
        runs.append(json.loads(done.stdout))
    here = expert_decisions(ruleset, 5)
    assert runs[0] == runs[1] == json.loads(json.dumps(here))
    assert len(here) > 80


@pytest.mark.parametrize("ruleset", RULESETS)
def test_the_expert_decides_from_a_sealed_copy_of_the_view_exactly_as_from_the_view(ruleset: str) -> None:
    bot = get_bot("expert")
    count = 0
    for n, point in enumerate(iter_views(ruleset, 4, ("heuristic",) * 4, "expert-sealed")):
        view = point.view
        if view["phase"] == "play" and max(view["hand_counts"]) > LATE and n % 4:
            continue  # keep the test quick
        sealed = SealedView(view)
        assert bot.decide(sealed, "seal", 20.0) == bot.decide(frozen_copy(view), "seal", 20.0)
        assert not sealed.read & HIDDEN_KEYS
        count += 1
    assert count > 30


@pytest.mark.parametrize("ruleset", RULESETS)
def test_changing_the_other_seats_hidden_cards_does_not_change_the_experts_decision(ruleset: str) -> None:
    bot = get_bot("expert")
    compared = changed_cards = 0
    for n, point in enumerate(iter_views(ruleset, 4, ("heuristic",) * 4, "expert-peek")):
        view = point.view
        card = view["phase"] == "play" and len(view["legal"]) > 1
        if not (card and (max(view["hand_counts"]) <= LATE or n % 4 == 0)) and view["phase"] != "auction":
            continue
        decision = bot.decide(frozen_copy(view), "peek", 20.0)
        alternative = _alternative_deal(point, f"expert-peek:{n}")
        if alternative is None or alternative.view(point.seat) != view:
            continue  # the history is not legal with those cards, or a public fact changed
        if any(alternative.hands[s] != point.hands[s] for s in range(4) if s != point.seat):
            changed_cards += 1
        assert bot.decide(frozen_copy(alternative.view(point.seat)), "peek", 20.0) == decision
        compared += 1
    assert compared > 10 and changed_cards > 5


def test_the_oracle_plays_the_card_the_search_proves_best_on_the_true_hands() -> None:
    """The oracle (bench/oracle.py) is the expert's search with the real deal as its only world: in the
    last tricks its card must reach the best outcome the exact search finds for its side."""
    sys.path.insert(0, str(ROOT))
    oracle = load_bot("bench.oracle:OracleBot")
    checked = 0
    for i in range(6):
        seed = f"oracle-check:{i}"
        deal = Deal.from_seed("solo-whist", seed, i % 4)
        lineup = ["heuristic", "heuristic", "heuristic", "heuristic"]
        bots = {"heuristic": get_bot("heuristic")}
        while not deal.finished:
            seat = min(deal.to_act())
            view = deal.view(seat)
            contract = deal.contract
            late = view["phase"] == "play" and len(view["legal"]) > 1 and max(view["hand_counts"]) <= 3
            if contract is not None and late and len(contract.declarers) == 1 and contract.level >= 2:
                action = oracle.decide(frozen_copy(view), f"{seed}:{seat}", 20.0)
                side_a = tuple(s in contract.declarers for s in range(4))
                hands = [to_mask(h) for h in deal.hands]
                played = [card_bit(c) for _, c in deal.trick.cards] if deal.trick else []
                leader = deal.trick.leader if deal.trick else seat
                outcomes = {}
                for legal in view["legal"]:
                    bit = card_bit(legal[5:])
                    after = list(hands)
                    after[seat] ^= 1 << bit
                    solver = Solver(contract.trump, side_a, side_a)
                    outcomes[legal] = solver.value(after, leader, [*played, bit])
                best = max(outcomes.values()) if side_a[seat] else min(outcomes.values())
                assert outcomes[action] == best
                checked += 1
            else:
                action = bots[lineup[seat]].decide(view, f"{seed}:{seat}", 20.0)
            deal.apply(seat, action)
    assert checked > 10


def test_every_registered_bot_has_a_one_line_explanation_for_players() -> None:
    from server.bots import BOT_LEVELS, bot_names

    assert set(BOT_LEVELS) == set(bot_names())
    for texts in BOT_LEVELS.values():
        assert set(texts) == {"en", "fr"} and all(0 < len(t) <= 120 and "\n" not in t for t in texts.values())


def test_the_oracle_sees_the_real_deal_and_searches_it_from_the_first_card() -> None:
    """Its one world is the true deal at every card decision, and at the first card of the play its card
    reaches the best points the exact value of the true hands gives (the whole deal searched)."""
    from server.bots.fast_solver import Solver as Fast
    from server.bots.simulation import points_table

    sys.path.insert(0, str(ROOT))
    oracle = load_bot("bench.oracle:OracleBot")
    heuristic = get_bot("heuristic")
    first_cards = 0
    for i in range(8):
        seed = f"oracle-first:{i}"
        deal = Deal.from_seed("couleur", seed, i % 4)
        while not deal.finished:
            seat = min(deal.to_act())
            view = deal.view(seat)
            action = heuristic.decide(view, "h", 20.0)
            contract = deal.contract
            if view["phase"] == "play" and contract is not None and (
                    contract.team or len(contract.declarers) == 1) and contract.level >= 2:
                worlds = oracle.worlds(frozen_copy(view), f"{seed}:{seat}")  # type: ignore[attr-defined]
                assert [sorted(h) for h in worlds[0].sample.hands] == [sorted(h) for h in deal.hands]
                if not view["tricks"] and not (view["trick"] or {}).get("cards") and len(view["legal"]) > 1:
                    action = oracle.decide(frozen_copy(view), f"{seed}:{seat}", 20.0)
                    side_a = tuple(s in contract.declarers for s in range(4))
                    points = points_table(view, contract, seat)
                    hands = [to_mask(h) for h in deal.hands]
                    outcome = {}
                    for legal in view["legal"]:
                        after = list(hands)
                        after[seat] ^= 1 << card_bit(legal[5:])
                        tricks = Fast(contract.trump, side_a, side_a, node_limit=10**9).value(
                            after, seat, [card_bit(legal[5:])])
                        outcome[legal] = points[tricks]
                    assert outcome[action] == max(outcome.values())
                    first_cards += 1
            deal.apply(seat, action)
    assert first_cards >= 4


def test_the_first_tricks_search_fewer_worlds_with_more_nodes_each_and_the_calls_keep_their_worlds() -> None:
    expert = Expert()
    first_card = {"phase": "play", "hand": ["AS"] * 13, "hand_counts": [13, 13, 13, 13]}
    auction = {**first_card, "phase": "auction"}
    middle = {"phase": "play", "hand": ["AS"] * 9, "hand_counts": [9, 9, 9, 8]}
    last = {"phase": "play", "hand": ["AS"] * 6, "hand_counts": [6, 6, 5, 5]}
    assert expert.limits(first_card) is expert.early and expert.limits(middle) is expert.middle
    assert expert.limits(last) is expert.late and expert.limits(auction) is expert.middle
    assert expert.early.samples < expert.middle.samples
    assert expert.early.world_nodes > expert.middle.world_nodes
    # Limits given to the bot hold for every stage (the oracle's).
    oracle = Expert(node_budget=1000, world_nodes=500)
    stages = (oracle.early, oracle.middle, oracle.late)
    assert {(limits.world_nodes, limits.node_budget) for limits in stages} == {(500, 1000)}


def test_with_the_pure_python_solver_the_first_tricks_keep_its_small_node_counts() -> None:
    code = ("from server.bots.expert import ExpertBot, PYTHON_NODE_BUDGET as B\n"
            "bot = ExpertBot()\n"
            "assert (bot.early.world_nodes, bot.early.node_budget) == (B, B), bot.early\n"
            "assert bot.search_cards == 11\n")
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, env={**os.environ, "WHIST_PURE_SOLVER": "1"},
                   check=True, timeout=60)
