"""Rules-engine benchmark: complete random deals per second and microseconds per view, per ruleset.

A deal is played from the seeded shuffle to its end: at every step the seat to act asks for its legal
actions and one of them is applied (the engine checks it again, as it does for every action), with
`pass` weighted so that most deals are played rather than thrown in. Views are timed separately, at
every step of other deals, for the four seats and a spectator. Each figure is the median of --runs
runs, on one core (the script is single-threaded). Times are the process's CPU time
(`time.process_time`), so that other work on a shared machine does not count against the engine.

    python -m bench.engine [--deals 2000] [--runs 5] [--json]

Goals: at least 1,000 deals/s and under 50 µs per view.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from typing import Any

from server.rules import Deal, Phase, ruleset_names

PASS_WEIGHT = 0.6


LOWEST_CALL_WEIGHT = 0.7


def choose(rng: random.Random, deal: Deal, legal: list[str]) -> str:
    """A random legal action. In the auction: `pass` with probability PASS_WEIGHT, else mostly the
    lowest call, so that the contracts (and the deal lengths) look like real play, not a run of slams
    that end after a trick or two."""
    if deal.phase is Phase.AUCTION and "pass" in legal and len(legal) > 1:
        if rng.random() < PASS_WEIGHT:
            return "pass"
        calls = [action for action in legal if action != "pass"]
        return calls[0] if rng.random() < LOWEST_CALL_WEIGHT else rng.choice(calls)
    return rng.choice(legal)


def play_deals(name: str, count: int, run: int) -> tuple[float, int, int]:
    """Play `count` deals; returns the seconds taken, the actions applied and the deals thrown in."""
    rng = random.Random(run)
    actions = thrown_in = 0
    start = time.process_time()
    for number in range(count):
        deal = Deal.from_seed(name, f"bench-{run}-{number}", number % 4)
        while not deal.finished:
            seat = rng.choice(sorted(deal.to_act()))
            deal.apply(seat, choose(rng, deal, deal.legal_actions(seat)))
            actions += 1
        thrown_in += deal.thrown_in
    return time.process_time() - start, actions, thrown_in


def time_views(name: str, count: int, run: int) -> tuple[float, int]:
    """Build the five views at every step of `count` deals; returns the seconds spent and the views built."""
    rng = random.Random(10_000 + run)
    spent = 0.0
    views = 0
    viewers = (0, 1, 2, 3, None)
    for number in range(count):
        deal = Deal.from_seed(name, f"views-{run}-{number}", number % 4)
        while True:
            start = time.process_time()
            for viewer in viewers:
                deal.view(viewer)
            spent += time.process_time() - start
            views += len(viewers)
            if deal.finished:
                break
            seat = rng.choice(sorted(deal.to_act()))
            deal.apply(seat, choose(rng, deal, deal.legal_actions(seat)))
    return spent, views


def bench(name: str, deals: int, runs: int) -> dict[str, Any]:
    rates, per_view, steps, thrown = [], [], [], []
    for run in range(runs):
        seconds, actions, thrown_in = play_deals(name, deals, run)
        rates.append(deals / seconds)
        steps.append(actions / deals)
        thrown.append(thrown_in / deals)
        spent, views = time_views(name, max(1, deals // 10), run)
        per_view.append(spent / views * 1e6)
    return {
        "ruleset": name,
        "deals_per_second": round(statistics.median(rates)),
        "microseconds_per_view": round(statistics.median(per_view), 1),
        "actions_per_deal": round(statistics.median(steps), 1),
        "thrown_in_share": round(statistics.median(thrown), 2),
        "runs": runs,
        "deals_per_run": deals,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=2000, help="deals per run and ruleset (default 2000)")
    parser.add_argument("--runs", type=int, default=5, help="runs; the median is reported (default 5)")
    parser.add_argument("--ruleset", action="append", help="only this ruleset (repeatable)")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    args = parser.parse_args(argv)
    results = [bench(name, args.deals, args.runs) for name in (args.ruleset or ruleset_names())]
    if args.json:
        print(json.dumps(results, indent=2))
    else:
        print(f"{'ruleset':<12} {'deals/s':>8} {'µs/view':>8} {'actions/deal':>13} {'thrown in':>10}")
        for r in results:
            print(f"{r['ruleset']:<12} {r['deals_per_second']:>8} {r['microseconds_per_view']:>8} "
                  f"{r['actions_per_deal']:>13} {r['thrown_in_share']:>10.0%}")
        print(f"median of {args.runs} runs of {args.deals} deals; goals: >= 1000 deals/s, < 50 µs/view")
    ok = all(r["deals_per_second"] >= 1000 and r["microseconds_per_view"] < 50 for r in results)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
