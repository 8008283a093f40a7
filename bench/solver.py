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

`--compare` measures the compiled solver (server/bots/_solver.c) beside the pure-Python one instead: for
each of `--sizes` the same seeded positions solved exactly by both (same values checked), the median CPU
time per solve, positions and positions per second of each, and the speed-ups; then `--whole-deals`
13-card deals solved exactly by the compiled solver alone, with spades trump and without (median, 90th
percentile and maximum CPU time per deal):

    python -m bench.solver --compare [--sizes 4 5 6 7] [--deals 20] [--whole-deals 50] [--repeat 200] [--json]

With `--repeat N` the compiled solver also solves each position N times in a row, each time with a fresh
solver created before the clock starts, and its time per solve is the batch's over N: a position of a
few tricks takes a few microseconds, about what reading the CPU clock costs, so a single solve measures
mostly the clock (and caches left cold by the Python solve before it). Positions are counted the same
way in both solvers and both modes: one per card played in the search (plus one per null-window test's
root), the count `nodes` reports.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from typing import Any

from server.bots.fast_solver import BUILT, CompiledSolver
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


def _deal(size: int, index: int) -> list[int]:
    deck = shuffled_deck(f"solver-bench:{size}:{index}")
    return [to_mask(deck[13 * seat:13 * seat + size]) for seat in range(4)]


def _timed(solver: Solver | CompiledSolver, hands: list[int]) -> tuple[int | None, float, int]:
    """Value (None past the node limit), CPU seconds and positions of one exact solve."""
    start = time.process_time()
    try:
        value: int | None = solver.value(hands, 0)
    except NodeLimitError:
        value = None
    return value, time.process_time() - start, solver.nodes


def _batch(hands: list[int], node_limit: int, repeat: int) -> tuple[float, int]:
    """CPU seconds per solve and positions per solve of the compiled solver solving one position `repeat`
    times, each time with a fresh solver (an empty table; all created before the clock starts): a small
    position takes a few microseconds, not much more than reading the CPU clock, so one solve alone
    measures mostly the clock and the caches the solve before it left cold."""
    solvers = [CompiledSolver("S", TEAM, TEAM, node_limit=node_limit) for _ in range(repeat)]
    start = time.process_time()
    for solver in solvers:
        solver.value(hands, 0)
    spent = time.process_time() - start
    nodes = {solver.nodes for solver in solvers}
    if len(nodes) != 1:
        raise AssertionError("the compiled solver's node count changed between identical solves")
    return spent / repeat, nodes.pop()


def compare(size: int, deals: int, node_limit: int, repeat: int = 0) -> dict[str, Any]:
    """Both solvers on the same `deals` positions of `size` tricks: medians, positions/s, speed-ups; with
    `repeat`, also the compiled solver's time per solve over `repeat` solves of each position in a row."""
    rows: dict[str, list[tuple[int | None, float, int]]] = {"python": [], "c": []}
    for index in range(deals):
        hands = _deal(size, index)
        rows["python"].append(_timed(Solver("S", TEAM, TEAM, node_limit=node_limit), hands))
        rows["c"].append(_timed(CompiledSolver("S", TEAM, TEAM, node_limit=node_limit), hands))
    solved = [i for i in range(deals) if rows["python"][i][0] is not None and rows["c"][i][0] is not None]
    if any(rows["python"][i][0] != rows["c"][i][0] for i in solved):
        raise AssertionError(f"the two solvers disagree on a {size}-trick position")
    out: dict[str, Any] = {"tricks": size, "deals": deals, "solved_by_both": len(solved)}
    for kind, results in rows.items():
        times = [results[i][1] for i in solved]
        nodes = [results[i][2] for i in solved]
        out[kind] = {"median_ms": 1000 * statistics.median(times),
                     "median_positions": statistics.median(nodes),
                     "positions_per_s": sum(nodes) / max(sum(times), 1e-9)}
    out["time_speedup"] = out["python"]["median_ms"] / max(out["c"]["median_ms"], 1e-9)
    out["positions_per_s_ratio"] = out["c"]["positions_per_s"] / out["python"]["positions_per_s"]
    if repeat:
        batch = [_batch(_deal(size, i), node_limit, repeat) for i in solved]
        times = [t for t, _ in batch]
        out["c_batch"] = {"repeat": repeat, "median_ms": 1000 * statistics.median(times),
                          "positions_per_s": sum(n for _, n in batch) / max(sum(times), 1e-9)}
        out["batch_time_speedup"] = out["python"]["median_ms"] / max(out["c_batch"]["median_ms"], 1e-9)
        ratio = out["c_batch"]["positions_per_s"] / out["python"]["positions_per_s"]
        out["batch_positions_per_s_ratio"] = ratio
    return out


def whole_deals(deals: int, node_limit: int, trump: str | None = "S") -> dict[str, Any]:
    """The compiled solver on `deals` seeded 13-card deals (team of seats 0 and 2; spades trump or none)."""
    results = [_timed(CompiledSolver(trump, TEAM, TEAM, node_limit=node_limit), _deal(13, index))
               for index in range(deals)]
    times = [t for _, t, _ in results]
    nodes = [n for _, _, n in results]
    stopped = sum(v is None for v, _, _ in results)
    return {"tricks": 13, "trump": trump, "deals": deals, "stopped_at_node_limit": stopped,
            "median_ms": 1000 * statistics.median(times), "p90_ms": 1000 * sorted(times)[int(0.9 * deals)],
            "max_ms": 1000 * max(times), "median_positions": statistics.median(nodes),
            "positions_per_s": sum(nodes) / max(sum(times), 1e-9)}


def main_compare(args: argparse.Namespace) -> None:
    """The side-by-side mode (`--compare`)."""
    if not BUILT:
        raise SystemExit("the compiled solver was not built: pip install -e . with a C compiler present")
    rows: list[dict[str, Any]] = []
    for size in args.sizes:
        row = compare(size, args.deals, args.node_limit, args.repeat)
        rows.append(row)
        if not args.json:
            py, c = row["python"], row["c"]
            print(f"{size:>2} tricks, {row['solved_by_both']} positions: python {py['median_ms']:8.2f} ms "
                  f"{py['median_positions']:>9.0f} pos {py['positions_per_s']:>10.0f} pos/s | c "
                  f"{c['median_ms']:8.3f} ms {c['median_positions']:>9.0f} pos {c['positions_per_s']:>10.0f} "
                  f"pos/s | time x{row['time_speedup']:.0f}, pos/s x{row['positions_per_s_ratio']:.0f}",
                  flush=True)
            if args.repeat:
                batch = row["c_batch"]
                print(f"   c, each position {args.repeat} times in a row: {batch['median_ms']:8.4f} ms "
                      f"{batch['positions_per_s']:>10.0f} pos/s | time x{row['batch_time_speedup']:.0f}, "
                      f"pos/s x{row['batch_positions_per_s_ratio']:.0f}", flush=True)
    for trump in ("S", None) if args.whole_deals else ():
        row = whole_deals(args.whole_deals, args.node_limit, trump)
        rows.append(row)
        if not args.json:
            print(f"13 tricks, {row['deals']} whole deals, {trump or 'no'} trump (c only): median "
                  f"{row['median_ms']:.1f} ms, "
                  f"p90 {row['p90_ms']:.1f} ms, max {row['max_ms']:.1f} ms, median "
                  f"{row['median_positions']:.0f} positions, {row['positions_per_s']:.0f} positions/s, "
                  f"{row['stopped_at_node_limit']} stopped at the node limit", flush=True)
    if args.json:
        print(json.dumps(rows, indent=2))


def main() -> None:
    """Command line: print one line per size and method (or JSON with --json)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[4, 5, 6, 7, 8, 13])
    parser.add_argument("--deals", type=int, default=10)
    parser.add_argument("--full-deals", type=int, default=3, help="deals for the 13-trick size")
    parser.add_argument("--node-limit", type=int, default=20_000_000)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--compare", action="store_true", help="the compiled solver beside the Python one")
    parser.add_argument("--whole-deals", type=int, default=50, help="13-card deals for --compare")
    parser.add_argument("--repeat", type=int, default=0,
                        help="--compare: also time the compiled solver over this many solves a position")
    args = parser.parse_args()
    if args.compare:
        main_compare(args)
        return
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
