"""Speed of the trick-phase solver (server/bots/solver.py): positions per second and time per solve.

For each size (tricks left in every hand) it solves `--deals` seeded random deals of that size (the
first cards of a shuffled deck; spades trump; a team of seats 0 and 2 maximizes its tricks) from the
start of a trick, and reports the median over deals of the CPU time per solve (`time.process_time`,
so other work on a shared machine does not count) and of the positions (search nodes) visited, and the
positions per second over all deals. Two ways of searching the same position are measured:

- `window`: one alpha-beta search with the full window (what the expert bot does for each card);
- `null-window`: the exact value found by null-window tests (is the value at least k?) that share one
  transposition table, starting from the best guess (MTD(f)-style); usually far fewer positions.

A solve that passes `--node-limit` positions stops (a deterministic count) and is reported as such.

    python -m bench.solver [--sizes 4 5 6 7 8 13] [--deals 10] [--node-limit 20000000] [--json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from typing import Any

from server.bots.solver import NodeLimitError, Solver, to_mask
from server.rules import shuffled_deck

TEAM = (True, False, True, False)


def null_window_value(solver: Solver, hands: list[int], leader: int) -> int:
    """The exact value by null-window tests: raise the lower bound or lower the upper one until they meet."""
    low, high = 0, hands[leader].bit_count()
    guess = (low + high + 1) // 2
    while low < high:
        value = solver.value(hands, leader, (), guess - 1, guess)  # is the value at least `guess`?
        if value >= guess:
            low = guess
        else:
            high = guess - 1
        guess = (low + high + 1) // 2
    return low


def measure(size: int, deals: int, node_limit: int, method: str) -> dict[str, Any]:
    """Median CPU time and positions per solve, positions per second, for deals of `size` tricks."""
    times: list[float] = []
    nodes: list[int] = []
    stopped = 0
    values = []
    for index in range(deals):
        deck = shuffled_deck(f"solver-bench:{size}:{index}")
        hands = [to_mask(deck[13 * seat:13 * seat + size]) for seat in range(4)]
        solver = Solver("S", TEAM, TEAM, node_limit=node_limit)
        start = time.process_time()
        try:
            if method == "window":
                values.append(solver.value(hands, 0))
            else:
                values.append(null_window_value(solver, hands, 0))
        except NodeLimitError:
            stopped += 1
        times.append(time.process_time() - start)
        nodes.append(solver.nodes)
    return {"tricks": size, "method": method, "deals": deals, "stopped_at_node_limit": stopped,
            "median_ms": 1000 * statistics.median(times), "max_ms": 1000 * max(times),
            "median_positions": statistics.median(nodes),
            "positions_per_s": sum(nodes) / max(sum(times), 1e-9), "values": values}


def main() -> None:
    """Command line: print one line per size and method (or JSON with --json)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[4, 5, 6, 7, 8, 13])
    parser.add_argument("--deals", type=int, default=10)
    parser.add_argument("--full-deals", type=int, default=3, help="deals for the 13-trick size")
    parser.add_argument("--node-limit", type=int, default=20_000_000)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    rows = []
    for size in args.sizes:
        for method in ("window", "null-window"):
            deals = args.full_deals if size == 13 else args.deals
            row = measure(size, deals, args.node_limit, method)
            rows.append(row)
            if not args.json:
                print(f"{size:>2} tricks, {method:<11}: median {row['median_ms']:9.1f} ms "
                      f"(max {row['max_ms']:9.1f} ms), median {row['median_positions']:>10.0f} positions, "
                      f"{row['positions_per_s']:>8.0f} positions/s, {row['stopped_at_node_limit']} of "
                      f"{deals} stopped at the node limit", flush=True)
    if args.json:
        print(json.dumps(rows, indent=2))


if __name__ == "__main__":
    main()
