"""The report of the strength runs of bench/strength.sh: every figure docs/bots.md gives.

For each results file (`bench/results/runs/*.jsonl`, written by `python -m server.bots.match --results`)
it takes the deals 0..K-1 recorded without a gap *by the current code* (the lines whose code fingerprint
is the current one: `server.bots.match.code_fingerprint`; the others are counted and ignored) and prints
the match tool's summary of them; then, per
ruleset, how much of the heuristic-to-oracle gap the expert closes in 2v2, on the deals both runs have:
(expert - heuristic) / (oracle - heuristic), the differences in points per deal and seat.

    python -m bench.strength_report [bench/results/runs] [--json FILE] [--markdown]

`--markdown` prints the tables of docs/bots.md instead of the match tool's plain reports.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

from server.bots.match import (
    DealResult,
    code_fingerprint,
    format_summary,
    load_results,
    stale_deals,
    summarize,
)

RULESETS = ("solo-whist", "couleur", "belge-club", "whist")
#: The match tool's default budget, which bench/strength.sh keeps.
BUDGET_MS = 20.0


def _ci(figure: dict[str, float]) -> str:
    return f"{figure['mean']:+.3f} [{figure['ci_low']:+.3f}, {figure['ci_high']:+.3f}]"


def markdown(summaries: dict[str, Any]) -> str:
    """The strength tables of docs/bots.md."""
    lines = ["| ruleset | mode | deals | tables | expert, points per deal and seat "
             "| expert - heuristic (95% CI) | expert CPU p99 | deals of older code ignored |",
             "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for ruleset in RULESETS:
        for mode in ("2v2", "1v3"):
            s = summaries.get(f"{ruleset}-expert-heuristic-{mode}")
            if not s or not s["deals"]:  # no deal of the current code (every line older): nothing to show
                continue
            t = s["decision_ms"].get("expert", {"cpu_p99": 0.0})
            lines.append(f"| {ruleset} | {mode} | {s['deals']} | {s['tables']} | "
                         f"{_ci(s['points_per_deal']['expert'])} | **{_ci(s['difference'])}** | "
                         f"{t['cpu_p99']:.0f} ms | {s['stale_deals']} |")
    versus_v1 = [(ruleset, summaries[f"{ruleset}-expert-expertv1-2v2"]) for ruleset in RULESETS
                 if summaries.get(f"{ruleset}-expert-expertv1-2v2", {}).get("deals")]
    if versus_v1:
        lines += ["", "| ruleset | deals (2v2) | expert - expert-v1 (95% CI) | deals of older code ignored |",
                  "| --- | ---: | ---: | ---: |"]
        lines += [f"| {ruleset} | {s['deals']} | **{_ci(s['difference'])}** | {s['stale_deals']} |"
                  for ruleset, s in versus_v1]
    lines += ["", "| ruleset | deals (2v2) | expert - heuristic | oracle - heuristic (95% CI) "
              "| share of the gap closed |", "| --- | ---: | ---: | ---: | ---: |"]
    for ruleset in RULESETS:
        gap = summaries.get(f"{ruleset}-gap")
        oracle = summaries.get(f"{ruleset}-oracle-heuristic-2v2")
        if gap and oracle:
            lines.append(f"| {ruleset} | {gap['deals']} | {gap['expert_minus_heuristic']:+.3f} | "
                         f"{gap['oracle_minus_heuristic']:+.3f} (all {oracle['deals']} oracle deals: "
                         f"{_ci(oracle['difference'])}) | {100 * gap['share_closed']:.0f}% |")
    for ruleset in RULESETS:
        s = summaries.get(f"{ruleset}-expert-heuristic-2v2")
        if not s or not s["deals"]:
            continue
        lines += ["", f"`{ruleset}`, 2v2, contracts declared alone or by a team of two of the same bot "
                      f"(made / declared):", "", "| contract | expert | heuristic |", "| --- | ---: | ---: |"]
        mine = s["contracts"].get("expert", {}).get("by_contract", {})
        theirs = s["contracts"].get("heuristic", {}).get("by_contract", {})
        for name in sorted(set(mine) | set(theirs)):
            cells = []
            for table in (mine, theirs):
                e = table.get(name)
                cells.append(f"{e['made']}/{e['bid']} ({100 * e['made_rate']:.0f}%)" if e else "-")
            lines.append(f"| {name} | {cells[0]} | {cells[1]} |")
        for label in ("expert", "heuristic"):
            c = s["contracts"].get(label)
            if c:
                lines.append(f"| all, {label} | {c['made']}/{c['bid']} ({100 * c['made_rate']:.1f}%) | |")
    return "\n".join(lines)


def contiguous(results: list[DealResult]) -> list[DealResult]:
    """The results of deals 0..K-1 for the largest K with none missing."""
    by_index = {r.index: r for r in results}
    kept: list[DealResult] = []
    while len(kept) in by_index:
        kept.append(by_index[len(kept)])
    return kept


def main() -> int:
    """Command line."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("directory", nargs="?", default="bench/results/runs")
    parser.add_argument("--json", dest="json_path")
    parser.add_argument("--markdown", action="store_true")
    args = parser.parse_args()
    with open(os.devnull, "w") as devnull:
        return _report(args, devnull if args.markdown else sys.stdout)


def _report(args: argparse.Namespace, out: Any) -> int:
    """Print the reports of `args.directory` to `out` (the Markdown tables to stdout with --markdown)."""
    summaries: dict[str, Any] = {}
    runs: dict[tuple[str, str, str], list[DealResult]] = {}
    for path in sorted(Path(args.directory).glob("*.jsonl")):
        with path.open(encoding="utf-8") as lines:
            first = lines.readline()
        if not first.strip():
            continue
        key = json.loads(first)["match"]
        ruleset, bot_a, bot_b, mode, prefix, _rules = json.loads(key)
        code = code_fingerprint(key, BUDGET_MS, (bot_a, bot_b))
        results = contiguous(load_results(path, key, code))
        summary = summarize(results, bot_a, bot_b)
        summary.update(ruleset=ruleset, mode=mode, bots=[bot_a, bot_b], prefix=prefix, code=code,
                       stale_deals=stale_deals(path, key, code))
        summaries[path.stem] = summary
        runs[(ruleset, bot_a.split(":")[-1], mode)] = results
        print(format_summary(summary, f"== {path.name}: {ruleset}, {mode}, A = {bot_a}, B = {bot_b}, "
                                      f"deals 0..{len(results) - 1} (prefix {prefix!r})"), file=out)
        print(file=out)
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
              f"{o:+.3f}: the expert closes {100 * share:.0f}% of the gap", file=out)
    if args.markdown:
        print(markdown(summaries))
    if args.json_path:
        Path(args.json_path).write_text(json.dumps(summaries, indent=2, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
