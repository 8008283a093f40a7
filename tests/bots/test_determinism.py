"""Determinism: the same deal, the same actions and the same seed give the same decisions in any process.

Two fresh interpreters, with different hash seeds (so that any dependence on set or dict ordering of
strings would show), play the same deals with heuristic and random bots; every decision must match,
and must match this process too.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from bots_helpers import RULESETS, play_decisions

ROOT = Path(__file__).resolve().parents[2]

HERE = Path(__file__).resolve().parent

SCRIPT = (
    "import json, sys\n"
    f"sys.path.insert(0, {str(HERE)!r})\n"
    "from bots_helpers import play_decisions\n"
    "print(json.dumps(play_decisions(sys.argv[1], int(sys.argv[2]))))\n"
)


def _run(ruleset: str, deals: int, hash_seed: str) -> list[list[object]]:
    """The decisions of `play_decisions` computed in a fresh interpreter."""
    env = {**os.environ, "PYTHONHASHSEED": hash_seed, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", SCRIPT, ruleset, str(deals)], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120, check=True)
    result: list[list[object]] = json.loads(done.stdout)
    return result


@pytest.mark.parametrize("ruleset", RULESETS)
def test_same_view_and_seed_give_the_same_decision_in_two_processes(ruleset: str) -> None:
    first = _run(ruleset, 25, "1")
    second = _run(ruleset, 25, "271828")
    assert first == second
    assert json.loads(json.dumps(play_decisions(ruleset, 25))) == first
    played = [d for d in first if str(d[2]).startswith("play ")]
    assert len(played) > 200  # the deals were really played, not all thrown in


def test_heuristic_decision_ignores_the_seed_and_random_bot_follows_it() -> None:
    """The heuristic bot breaks ties by a fixed order; the random bot draws from the seed only."""
    from server.bots import get_bot
    from server.rules import Deal

    deal = Deal.from_seed(RULESETS[0], "seedcheck", 0)
    seat = min(deal.to_act())
    view = deal.view(seat)
    heuristic = get_bot("heuristic")
    assert {heuristic.decide(view, f"s{i}") for i in range(10)} == {heuristic.decide(view, "s0")}
    rand = get_bot("random")
    assert [rand.decide(view, f"s{i}") for i in range(10)] == [rand.decide(view, f"s{i}") for i in range(10)]
