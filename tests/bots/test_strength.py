"""Strength and speed on small duplicate runs (the 2,000-deal figures are in docs/bots.md).

The margins are wide on purpose: over 150 duplicate deals the heuristic bot's edge over the random
bot is many times the width of the confidence interval, so these checks do not flicker.
"""

from __future__ import annotations

import pytest
from bots_helpers import RULESETS

from server.bots.match import run_match, summarize


@pytest.mark.parametrize("ruleset", RULESETS)
def test_heuristic_beats_random_with_a_confidence_interval_excluding_zero(ruleset: str) -> None:
    summary = summarize(run_match(ruleset, "heuristic", "random", 150, "2v2", "strength-test"),
                        "heuristic", "random")
    assert summary["difference"]["ci_low"] > 0


@pytest.mark.parametrize("ruleset", RULESETS)
def test_a_random_seat_among_three_heuristic_bots_scores_less_than_they_do(ruleset: str) -> None:
    """Compared with the heuristic seats: in `whist` nobody ever loses points, so "loses points" alone
    would not say which bot is stronger."""
    summary = summarize(run_match(ruleset, "random", "heuristic", 100, "1v3", "strength-test"),
                        "random", "heuristic")
    assert summary["difference"]["ci_high"] < 0


@pytest.mark.parametrize("ruleset", RULESETS)
def test_the_match_tool_times_every_decision(ruleset: str) -> None:
    # How fast the bots decide is a benchmark figure (docs/benchmarks.md, "Bots", with its command), not
    # a test: a wall-clock bound fails on a busy machine. Here: every decision is timed and summarised.
    summary = summarize(run_match(ruleset, "heuristic", "heuristic", 40, "2v2", "speed-test"),
                        "heuristic", "heuristic")
    timing = summary["decision_ms"]["heuristic"]
    assert timing["decisions"] > 500
    assert 0 < timing["p50"] <= timing["p99"]


def test_couleur_contracts_of_the_heuristic_bot_are_made_at_least_60_percent_of_the_time() -> None:
    """Four heuristic bots over 150 deals: the deals are fixed, so the check is reproducible."""
    summary = summarize(run_match("couleur", "heuristic", "heuristic", 150, "2v2", "contracts-test"),
                        "heuristic", "heuristic")
    contracts = summary["contracts"]["heuristic"]
    assert contracts["bid"] > 200
    assert contracts["made_rate"] >= 0.60
