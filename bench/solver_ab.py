"""Two builds of the compiled solver side by side in one process: this tree's and a git revision's.

Changes to the solver are judged by whole deals solved by the build before and the build after on the
same machine at the same moment (this machine is shared and noisy, and hosts differ by 1.5 times or
more). This tool builds the revision's `_solver.c` and `_solver_search.h` (from `git show`) into a
temporary directory as a module of another name, with the flags setuptools uses, loads it beside this
tree's module, and solves each seeded 13-card deal exactly with both, in turn (which goes first
alternates), checking that the values agree. It reports, per build, the median, 90th percentile and
maximum CPU time per deal (`time.process_time`), the CPU of all deals and the median positions, and the
ratios old / new.

    python -m bench.solver_ab --against 015060e [--deals 50] [--start 0] [--trumps S none] [--json]

Deal i is `bench.solver`'s (`solver-bench:13:<i>`): seats 0 and 2 against 1 and 3, seat 0 leads. The
node limit is a count (`--node-limit`); a deal past it in either build counts in neither.
"""

from __future__ import annotations

import argparse
import importlib.machinery
import importlib.util
import json
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path
from types import ModuleType
from typing import Any

from server.bots import _solver as current
from server.bots.solver import SUIT_INDEX

from .solver import _deal

ROOT = Path(__file__).resolve().parents[1]
SOURCES = ("server/bots/_solver.c", "server/bots/_solver_search.h")
#: The flags setuptools' build_ext gives gcc here (`-O3 -g -fwrapv -Wall -fPIC`, then `-shared`).
FLAGS = ("-O3", "-g", "-fwrapv", "-Wall", "-fPIC", "-shared")
TEAM_MASK = 0b0101  # seats 0 and 2


def build_revision(revision: str | None, directory: Path, name: str = "_solver_against") -> ModuleType:
    """The compiled solver of git `revision` (None: this tree's files as they are), built in `directory`
    as module `name` and loaded."""
    for path in SOURCES:
        if revision is None:
            text = (ROOT / path).read_text()
        else:
            text = subprocess.run(["git", "show", f"{revision}:{path}"], cwd=ROOT, check=True,
                                  capture_output=True, text=True).stdout
        if path.endswith(".c"):  # the module's own name, so that both load in one process
            text = text.replace('"_solver"', f'"{name}"').replace("PyInit__solver", f"PyInit_{name}")
        (directory / Path(path).name).write_text(text)
    target = directory / f"{name}{sysconfig.get_config_var('EXT_SUFFIX')}"
    subprocess.run(["gcc", *FLAGS, f"-I{sysconfig.get_paths()['include']}", str(directory / "_solver.c"),
                    "-o", str(target)], check=True, capture_output=True, text=True)
    loader = importlib.machinery.ExtensionFileLoader(name, str(target))
    spec = importlib.util.spec_from_file_location(name, str(target), loader=loader)
    if spec is None:
        raise RuntimeError(f"cannot load {target}")
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


def solve(module: Any, hands: list[int], trump: str | None, node_limit: int) -> tuple[int | None, float, int]:
    """Value (None past the node limit), CPU seconds and positions of one whole deal's exact value."""
    solver = module.Solver(SUIT_INDEX[trump] if trump else -1, TEAM_MASK, TEAM_MASK, node_limit, False)
    start = time.process_time()
    value = solver.value(hands, 0, (), -1, 99)
    return value, time.process_time() - start, int(solver.nodes)


def _summary(times: list[float], nodes: list[int]) -> dict[str, float]:
    ordered = sorted(times)
    return {"median_ms": 1000 * statistics.median(times), "p90_ms": 1000 * ordered[int(0.9 * len(ordered))],
            "max_ms": 1000 * ordered[-1], "cpu_s": sum(times), "median_positions": statistics.median(nodes)}


def side_by_side(against: ModuleType, deals: range, trump: str | None, node_limit: int) -> dict[str, Any]:
    """Each deal solved by both builds in turn (which goes first alternates); values checked equal."""
    results: dict[str, list[tuple[int | None, float, int]]] = {"against": [], "this": []}
    for index in deals:
        hands = _deal(13, index)
        order = [("against", against), ("this", current)]
        for label, module in order if index % 2 == 0 else order[::-1]:
            results[label].append(solve(module, hands, trump, node_limit))
    both = [i for i in range(len(deals)) if results["against"][i][0] is not None
            and results["this"][i][0] is not None]
    if any(results["against"][i][0] != results["this"][i][0] for i in both):
        raise AssertionError(f"the two builds disagree on a deal with trump {trump}")
    row: dict[str, Any] = {"trump": trump or "none", "deals": len(deals), "solved_by_both": len(both)}
    for label, rows in results.items():
        row[label] = _summary([rows[i][1] for i in both], [rows[i][2] for i in both])
    row["median_ratio"] = row["against"]["median_ms"] / max(row["this"]["median_ms"], 1e-9)
    row["cpu_ratio"] = row["against"]["cpu_s"] / max(row["this"]["cpu_s"], 1e-9)
    return row


def main() -> None:
    """Command line: one line per build and trump (or JSON with --json)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--against", required=True, help="a git revision whose solver to build")
    parser.add_argument("--deals", type=int, default=50)
    parser.add_argument("--start", type=int, default=0, help="index of the first deal")
    parser.add_argument("--trumps", nargs="+", default=["S", "none"])
    parser.add_argument("--node-limit", type=int, default=50_000_000)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as directory:
        against = build_revision(args.against, Path(directory))
        rows = [side_by_side(against, range(args.start, args.start + args.deals),
                             None if trump == "none" else trump, args.node_limit) for trump in args.trumps]
    if args.json:
        json.dump(rows, sys.stdout, indent=2)
        print()
        return
    for row in rows:
        for label, name in (("against", args.against), ("this", "this tree")):
            s = row[label]
            print(f"{row['trump']:>4} trump, {row['solved_by_both']} deals, {name:>10}: median "
                  f"{s['median_ms']:7.1f} ms, p90 {s['p90_ms']:7.1f} ms, max {s['max_ms']:7.1f} ms, "
                  f"CPU {s['cpu_s']:6.2f} s, median {s['median_positions']:>9.0f} positions")
        print(f"{row['trump']:>4} trump: {args.against} / this tree: median x{row['median_ratio']:.2f}, "
              f"CPU x{row['cpu_ratio']:.2f}")


if __name__ == "__main__":
    main()
