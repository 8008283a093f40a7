"""The report of the strength runs of bench/strength.sh: every figure docs/bots.md gives.

For each results file (`bench/runs/*.jsonl`, written by `python -m server.bots.match --results`) it
takes the deals 0..K-1 recorded without a gap and prints the match tool's summary of them; then, per
ruleset, how much of the heuristic-to-oracle gap the expert closes in 2v2, on the deals both runs have:
(expert - heuristic) / (oracle - heuristic), the differences in points per deal and seat.

    .venv/bin/python bench/strength_report.py [bench/runs] [--json FILE]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from server.bots.match import DealResult, format_summary, load_results, summarize


def contiguous(results: list[DealResult]) -> list[DealResult]:
    """The results of deals 0..K-1 for the largest K with none missing."""
    by_index = {r.index: r for r in results}
    kept = []
    while len(kept) in by_index:
        kept.append(by_index[len(kept)])
    return kept


def main() -> int:
    """Command line."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("directory", nargs="?", default="bench/runs")
    parser.add_argument("--json", dest="json_path")
    args = parser.parse_args()
    summaries: dict[str, Any] = {}
    runs: dict[tuple[str, str, str], list[DealResult]] = {}
    for path in sorted(Path(args.directory).glob("*.jsonl")):
        first = path.open(encoding="utf-8").readline()
        if not first.strip():
            continue
        key = json.loads(first)["match"]
        ruleset, bot_a, bot_b, mode, prefix, _rules = json.loads(key)
        results = contiguous(load_results(path, key))
        summary = summarize(results, bot_a, bot_b)
        summary.update(ruleset=ruleset, mode=mode, bots=[bot_a, bot_b], prefix=prefix)
        summaries[path.stem] = summary
        runs[(ruleset, bot_a.split(":")[-1], mode)] = results
        print(format_summary(summary, f"== {path.name}: {ruleset}, {mode}, A = {bot_a}, B = {bot_b}, "
                                      f"deals 0..{len(results) - 1} (prefix {prefix!r})"))
        print()
    for ruleset in sorted({key[0] for key in runs}):
        expert = runs.get((ruleset, "expert", "2v2"))
        oracle = runs.get((ruleset, "OracleBot", "2v2"))
        if not expert or not oracle:
            continue
        common = min(len(expert), len(oracle))
        e = summarize(expert[:common], "expert", "heuristic")["difference"]["mean"]
        o = summarize(oracle[:common], "bench.oracle:OracleBot", "heuristic")["difference"]["mean"]
        share = e / o if o else float("nan")
        summaries[f"{ruleset}-gap"] = {"deals": common, "expert_minus_heuristic": e,
                                       "oracle_minus_heuristic": o, "share_closed": share}
        print(f"{ruleset}: on deals 0..{common - 1} (2v2), expert - heuristic {e:+.3f}, oracle - heuristic "
              f"{o:+.3f}: the expert closes {100 * share:.0f}% of the gap")
    if args.json_path:
        Path(args.json_path).write_text(json.dumps(summaries, indent=2, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
