"""Duplicate matches: any bot against any other, on any ruleset, with the luck of the cards cancelled.

Every deal is played at several tables with the same cards and the bots rotated through the seats:

- `2v2`: bot A in seats 0 and 2, bot B in 1 and 3; then the other way round (two tables per deal);
- `1v3`: bot A alone in seat k and bot B in the three other seats, for k = 0..3 (four tables per deal).

So every hand of every deal is played once by each bot in each role. A deal's score for a bot is its
mean points per seat over the tables; the report gives the mean per deal with a 95% confidence interval
(normal approximation over deals, which are independent), the difference A - B, the contracts each bot
declared with how often they were made, and each bot's decision time p50 and p99, both in wall-clock
time (what a player waits) and in the CPU time of the deciding thread (what the bot costs, unaffected
by other processes on a busy machine).

    python -m server.bots.match --ruleset couleur --bots heuristic random --deals 2000 --mode 2v2

Deal i uses the seed `<prefix>:<i>` and dealer `i % 4`, so two runs with the same arguments play the
same cards. A bot is a registered name (`expert`, `heuristic`, `random`) or `package.module:Class` for a
bot kept out of the product (the oracle of `bench/oracle.py`). With `--results FILE` every finished
deal is appended to FILE (JSON lines) as soon as its chunk is done, and a run given the same FILE
skips the deals already there: long runs can be stopped and resumed, and the report covers them all.
Each deal is scored on its own (multiplier 1): the doubling after a tour de passe belongs to a session,
not to a duplicate deal.

Every line of a results file carries the fingerprint of the code that decided it (`code_fingerprint`:
a digest of the source of `server/bots/`, `server/rules/`, `seeds/`, of the module of a bot loaded by
`module:Class`, and of the match settings). Only the deals whose fingerprint is the current code's are
counted or skipped; the others are ignored (and played again), and the report says how many, so runs
accumulate across sessions without mixing the results of different code.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import json
import math
import statistics
import sys
import time
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from multiprocessing import get_context
from pathlib import Path
from typing import Any

from server.rules import Deal, RulesError, get_ruleset

from .base import Bot, BotError, load_bot
from .stats import percentile

MODES: dict[str, Callable[[str, str], list[tuple[str, str, str, str]]]] = {
    "2v2": lambda a, b: [(a, b, a, b), (b, a, b, a)],
    "1v3": lambda a, b: [tuple(a if seat == k else b for seat in range(4)) for k in range(4)],  # type: ignore[misc]
}


@dataclass
class TableResult:
    """One deal played at one table."""

    lineup: tuple[str, ...]
    points: list[int]
    contract: str | None
    declarers: list[int]
    team: bool
    decision_ns: dict[str, list[int]]  # bot name -> decision times (wall clock)
    decision_cpu_ns: dict[str, list[int]] = field(default_factory=dict)  # the same, in CPU time of the thread
    illegal: int = 0

    def to_record(self) -> dict[str, Any]:
        """The table as a results-file entry: small, so that long runs can be committed. Only the CPU
        times of the decisions that took at least `SLOW_NS` are kept (rounded to 0.1 ms), with the
        count of the others: every percentile above their share (p99 for any bot) stays exact."""
        cpu: dict[str, list[Any]] = {}
        for name, times in self.decision_cpu_ns.items():
            slow = sorted(round(ns / 1e5) / 10 for ns in times if ns >= SLOW_NS)
            cpu[name] = [len(times) - len(slow), slow]
        return {"lineup": list(self.lineup), "points": self.points, "contract": self.contract,
                "declarers": self.declarers, "team": self.team, "cpu": cpu}

    @classmethod
    def from_record(cls, data: Mapping[str, Any]) -> TableResult:
        """A table read back from a results file (the fast decisions count as 0 ms; no wall times)."""
        if "cpu" not in data:  # the older, full format
            return cls(**{**data, "lineup": tuple(data["lineup"])})
        cpu = {str(name): [0] * int(fast) + [round(ms * 1e6) for ms in slow]
               for name, (fast, slow) in data["cpu"].items()}
        return cls(tuple(data["lineup"]), list(data["points"]), data["contract"], list(data["declarers"]),
                   bool(data["team"]), {}, cpu)


#: Decisions at least this slow (CPU time) keep their time in a results file.
SLOW_NS = 1_000_000


@dataclass
class DealResult:
    """One deal played at every table of the mode."""

    index: int
    tables: list[TableResult] = field(default_factory=list)


def play_table(ruleset: str, seed: str, dealer: int, lineup: Sequence[str], bots: Mapping[str, Bot],
               house_rules: Mapping[str, Any] | None = None, budget_ms: float = 20.0) -> TableResult:
    """Play one deal with `lineup[seat]` in each seat; each bot sees only its seat's view."""
    deal = Deal.from_seed(ruleset, seed, dealer, house_rules)
    times: dict[str, list[int]] = defaultdict(list)
    cpu_times: dict[str, list[int]] = defaultdict(list)
    while not deal.finished:
        for seat in sorted(deal.to_act()):
            if deal.finished or seat not in deal.to_act():
                continue
            view = deal.view(seat)
            bot_name = lineup[seat]
            start, cpu_start = time.perf_counter_ns(), time.thread_time_ns()
            action = bots[bot_name].decide(view, f"{seed}:{seat}", budget_ms)
            times[bot_name].append(time.perf_counter_ns() - start)
            cpu_times[bot_name].append(time.thread_time_ns() - cpu_start)
            deal.apply(seat, action)
    result = deal.result()
    contract = deal.contract
    return TableResult(tuple(lineup), list(result["points"]), result["contract"], list(result["declarers"]),
                       bool(contract.team) if contract else False, dict(times), dict(cpu_times))


def play_deal(ruleset: str, index: int, prefix: str, mode: str, bot_a: str, bot_b: str,
              house_rules: Mapping[str, Any] | None = None, budget_ms: float = 20.0) -> DealResult:
    """Play deal `index` at every table of `mode`."""
    bots = {name: load_bot(name) for name in {bot_a, bot_b}}
    seed = f"{prefix}:{index}"
    result = DealResult(index)
    for lineup in MODES[mode](bot_a, bot_b):
        result.tables.append(play_table(ruleset, seed, index % 4, lineup, bots, house_rules, budget_ms))
    return result


_ChunkArgs = tuple[str, list[int], str, str, str, str, Mapping[str, Any] | None, float]


def _chunk(args: _ChunkArgs) -> list[DealResult]:
    ruleset, indices, prefix, mode, bot_a, bot_b, house_rules, budget_ms = args
    return [play_deal(ruleset, i, prefix, mode, bot_a, bot_b, house_rules, budget_ms) for i in indices]


#: Deals per unit of work: a resumed run loses at most one chunk per worker.
CHUNK = 4


def run_match(ruleset: str, bot_a: str, bot_b: str, deals: int, mode: str = "2v2", prefix: str = "duplicate",
              house_rules: Mapping[str, Any] | None = None, jobs: int = 1, budget_ms: float = 20.0,
              start: int = 0, results_path: str | Path | None = None) -> list[DealResult]:
    """Play deals `start .. start+deals-1` of the match; `jobs` > 1 spreads them over processes.

    With `results_path`, deals already recorded there for this same match are not played again, and
    every chunk of deals played is appended to it as soon as it is done.
    """
    if mode not in MODES:
        raise ValueError(f"unknown mode {mode!r}; choose {', '.join(MODES)}")
    indices = list(range(start, start + deals))
    key = match_key(ruleset, bot_a, bot_b, mode, prefix, house_rules)
    code = code_fingerprint(key, budget_ms, (bot_a, bot_b))
    done: dict[int, DealResult] = {}
    if results_path is not None:
        wanted = set(indices)
        done = {r.index: r for r in load_results(results_path, key, code) if r.index in wanted}
    todo = [i for i in indices if i not in done]
    work = [(ruleset, todo[k:k + CHUNK], prefix, mode, bot_a, bot_b, house_rules, budget_ms)
            for k in range(0, len(todo), CHUNK)]

    def record(chunk: list[DealResult]) -> None:
        if results_path is not None:
            with open(results_path, "a", encoding="utf-8") as handle:
                for result in chunk:
                    line = {"match": key, "code": code, "index": result.index,
                            "tables": [table.to_record() for table in result.tables]}
                    handle.write(json.dumps(line, separators=(",", ":")) + "\n")
        done.update((r.index, r) for r in chunk)

    if jobs <= 1:
        for item in work:
            record(_chunk(item))
    else:
        with get_context("spawn").Pool(jobs) as pool:
            for chunk in pool.imap_unordered(_chunk, work):
                record(chunk)
    return sorted(done.values(), key=lambda r: r.index)


def match_key(ruleset: str, bot_a: str, bot_b: str, mode: str, prefix: str,
              house_rules: Mapping[str, Any] | None) -> str:
    """What identifies a match in a results file: deals of two different matches never mix."""
    return json.dumps([ruleset, bot_a, bot_b, mode, prefix, dict(house_rules or {})], sort_keys=True)


#: What decides the play of a deal, besides the bots' own modules: relative to the repository root.
CODE_DIRS = ("server/bots", "server/rules", "seeds")
ROOT = Path(__file__).resolve().parents[2]


def source_digest(root: Path = ROOT, dirs: Sequence[str] = CODE_DIRS, extra: Sequence[Path] = ()) -> str:
    """A digest of every file under `dirs` (and of the `extra` files): their paths and contents."""
    digest = hashlib.sha256()
    files = sorted(p for d in dirs for p in (root / d).rglob("*")
                   if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".pyc")
    for path in [*files, *sorted(extra)]:
        name = path.relative_to(root).as_posix() if path.is_relative_to(root) else path.name
        digest.update(name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def bot_module_files(bots: Sequence[str]) -> list[Path]:
    """The source files of bots loaded by `module:Class` (a registered bot lives in server/bots/)."""
    files = []
    for spec in bots:
        if ":" in spec:
            found = importlib.util.find_spec(spec.partition(":")[0])
            if found is not None and found.origin:
                files.append(Path(found.origin))
    return files


def code_fingerprint(key: str, budget_ms: float, bots: Sequence[str], root: Path = ROOT) -> str:
    """The fingerprint a results line carries: the code that decides, plus the match settings."""
    code = source_digest(root, extra=bot_module_files(bots))
    return hashlib.sha256(json.dumps([code, key, budget_ms]).encode()).hexdigest()[:16]


def load_results(path: str | Path, key: str, code: str | None = None) -> list[DealResult]:
    """The deals recorded in a results file for the match `key` (none if the file does not exist);
    with `code`, only those whose code fingerprint is `code` (see `stale_deals` for the others).

    Raises ValueError when the file holds deals of another match, or a line that is not a result."""
    return _read_results(path, key, code)[0]


def stale_deals(path: str | Path, key: str, code: str) -> int:
    """How many deals of the results file were played by other code (or settings): ignored."""
    return _read_results(path, key, code)[1]


def _read_results(path: str | Path, key: str, code: str | None) -> tuple[list[DealResult], int]:
    results: list[DealResult] = []
    stale = 0
    if not Path(path).exists():
        return results, stale
    with open(path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                data = json.loads(line)
                if data["match"] != key:
                    raise ValueError(f"{path}:{number} holds a deal of another match ({data['match']})")
                if code is not None and data.get("code") != code:
                    stale += 1  # another version of the code played it: it does not count
                    continue
                tables = [TableResult.from_record(t) for t in data["tables"]]
                results.append(DealResult(int(data["index"]), tables))
            except (KeyError, TypeError, json.JSONDecodeError) as error:
                raise ValueError(f"{path}:{number} is not a deal result: {error}") from error
    return results, stale


# -------------------------------------------------------------------- the report

def mean_ci(values: Sequence[float]) -> tuple[float, float, float]:
    """The mean and its 95% confidence interval (normal approximation)."""
    if not values:
        return (0.0, 0.0, 0.0)
    mean = statistics.fmean(values)
    if len(values) < 2:
        return (mean, mean, mean)
    half = 1.96 * statistics.stdev(values) / math.sqrt(len(values))
    return (mean, mean - half, mean + half)


def summarize(results: Sequence[DealResult], bot_a: str, bot_b: str) -> dict[str, Any]:
    """Points per deal with 95% CIs, contracts and how often they were made, decision times."""
    per_deal: dict[str, list[float]] = {bot_a: [], bot_b: []}
    diffs: list[float] = []
    contracts: dict[str, dict[str, dict[str, int]]] = defaultdict(
        lambda: defaultdict(lambda: {"bid": 0, "made": 0}))
    thrown_in = 0
    tables = 0
    times: dict[str, list[int]] = defaultdict(list)
    cpu_times: dict[str, list[int]] = defaultdict(list)
    for deal in results:
        sums: dict[str, list[float]] = {bot_a: [], bot_b: []}
        for table in deal.tables:
            tables += 1
            for seat, name in enumerate(table.lineup):
                sums[name].append(table.points[seat])
            for name, ns in table.decision_ns.items():
                times[name].extend(ns)
            for name, ns in table.decision_cpu_ns.items():
                cpu_times[name].extend(ns)
            if table.contract is None:
                thrown_in += 1
                continue
            if table.team:
                label = "+".join(sorted({table.lineup[s] for s in table.declarers}))
                made = table.points[table.declarers[0]] > 0
                entry = contracts[label][table.contract]
                entry["bid"] += 1
                entry["made"] += int(made)
            else:
                for declarer in table.declarers:
                    entry = contracts[table.lineup[declarer]][table.contract]
                    entry["bid"] += 1
                    entry["made"] += int(table.points[declarer] > 0)
        a = statistics.fmean(sums[bot_a]) if sums[bot_a] else 0.0
        b = statistics.fmean(sums[bot_b]) if sums[bot_b] else 0.0
        per_deal[bot_a].append(a)
        if bot_b != bot_a:
            per_deal[bot_b].append(b)
        diffs.append(a - b)
    summary: dict[str, Any] = {
        "deals": len(results),
        "tables": tables,
        "thrown_in_tables": thrown_in,
        "points_per_deal": {name: dict(zip(("mean", "ci_low", "ci_high"), mean_ci(v), strict=True))
                            for name, v in per_deal.items() if v},
        "difference": dict(zip(("mean", "ci_low", "ci_high"), mean_ci(diffs), strict=True)),
        "contracts": {},
        "decision_ms": {name: _times(times[name], ns) for name, ns in cpu_times.items() if ns},
    }
    for label, by_name in contracts.items():
        bid = sum(e["bid"] for e in by_name.values())
        made_count = sum(e["made"] for e in by_name.values())
        summary["contracts"][label] = {
            "bid": bid, "made": made_count, "made_rate": made_count / bid if bid else 0.0,
            "by_contract": {name: {**e, "made_rate": e["made"] / e["bid"]}
                            for name, e in sorted(by_name.items())},
        }
    return summary


def _times(wall: Sequence[int], cpu: Sequence[int]) -> dict[str, float]:
    """Decision times in ms; deals read back from a results file keep no wall-clock times (then the
    wall figures cover only the deals played in this run) and count their fast decisions as 0 ms."""
    figures = {"decisions": float(len(cpu)), "cpu_p50": percentile(cpu, 50) / 1e6,
               "cpu_p99": percentile(cpu, 99) / 1e6, "cpu_max": max(cpu) / 1e6}
    if wall:
        figures.update(p50=percentile(wall, 50) / 1e6, p99=percentile(wall, 99) / 1e6, max=max(wall) / 1e6)
    return figures


def format_summary(summary: Mapping[str, Any], header: str) -> str:
    """The summary as plain text."""
    lines = [header, f"deals: {summary['deals']}  tables: {summary['tables']}  "
                     f"thrown in: {summary['thrown_in_tables']}"]
    for name, ci in summary["points_per_deal"].items():
        lines.append(f"points per deal per seat, {name}: {ci['mean']:+.3f}  "
                     f"95% CI [{ci['ci_low']:+.3f}, {ci['ci_high']:+.3f}]")
    d = summary["difference"]
    lines.append(f"difference A - B: {d['mean']:+.3f}  95% CI [{d['ci_low']:+.3f}, {d['ci_high']:+.3f}]")
    for label, c in sorted(summary["contracts"].items()):
        lines.append(f"contracts declared by {label}: {c['bid']}, made {c['made']} "
                     f"({100 * c['made_rate']:.1f}%)")
        for name, e in c["by_contract"].items():
            lines.append(f"    {name:<24} {e['bid']:>6} made {e['made']:>6} ({100 * e['made_rate']:.1f}%)")
    for name, t in summary["decision_ms"].items():
        wall = (f"p50 {t['p50']:.3f} ms  p99 {t['p99']:.3f} ms  max {t['max']:.3f} ms  " if "p50" in t
                else "")
        lines.append(f"decision time {name}: {wall}(CPU time: p50 {t['cpu_p50']:.3f} ms  "
                     f"p99 {t['cpu_p99']:.3f} ms  max {t['cpu_max']:.3f} ms; "
                     f"{int(t['decisions'])} decisions)")
    if summary.get("stale_deals"):
        lines.append(f"ignored: {summary['stale_deals']} deals of the results file played by other code "
                     f"or settings (fingerprint {summary.get('code')})")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """Command line: `python -m server.bots.match --ruleset R --bots A B --deals N --mode 2v2|1v3`."""
    parser = argparse.ArgumentParser(prog="python -m server.bots.match", description=__doc__.split("\n\n")[0])
    parser.add_argument("--ruleset", required=True, help="solo-whist, couleur or belge-club")
    parser.add_argument("--bots", nargs=2, metavar=("A", "B"), default=["heuristic", "random"])
    parser.add_argument("--deals", type=int, default=200)
    parser.add_argument("--start", type=int, default=0, help="index of the first deal")
    parser.add_argument("--mode", choices=sorted(MODES), default="2v2")
    parser.add_argument("--prefix", default="duplicate", help="deal i is dealt from the seed '<prefix>:<i>'")
    parser.add_argument("--house-rules", default="{}", help="JSON object of house rules")
    parser.add_argument("--jobs", type=int, default=1, help="worker processes")
    parser.add_argument("--budget-ms", type=float, default=20.0)
    parser.add_argument("--json", dest="json_path", help="also write the summary as JSON to this file")
    parser.add_argument("--results", dest="results_path",
                        help="JSON-lines file of finished deals: appended to as deals finish, and deals "
                             "already in it are not played again (resumable runs)")
    args = parser.parse_args(argv)
    try:
        house_rules = json.loads(args.house_rules)
        if not isinstance(house_rules, dict):
            raise ValueError("--house-rules must be a JSON object")
        for name in args.bots:
            load_bot(name)
        get_ruleset(args.ruleset).resolve_house_rules(house_rules)
    except (ValueError, BotError, RulesError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    started = time.perf_counter()
    key = match_key(args.ruleset, args.bots[0], args.bots[1], args.mode, args.prefix, house_rules)
    code = code_fingerprint(key, args.budget_ms, args.bots)
    try:
        stale = stale_deals(args.results_path, key, code) if args.results_path else 0
        results = run_match(args.ruleset, args.bots[0], args.bots[1], args.deals, args.mode, args.prefix,
                            house_rules, args.jobs, args.budget_ms, args.start, args.results_path)
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    summary = summarize(results, args.bots[0], args.bots[1])
    summary.update(ruleset=args.ruleset, mode=args.mode, bots=list(args.bots), prefix=args.prefix,
                   house_rules=house_rules, start=args.start, seconds=round(time.perf_counter() - started, 1),
                   code=code, stale_deals=stale)
    header = (f"{args.ruleset}, {args.mode}: A = {args.bots[0]}, B = {args.bots[1]}, deals {args.start}.."
              f"{args.start + args.deals - 1} (prefix {args.prefix!r}), {summary['seconds']} s")
    print(format_summary(summary, header))
    if args.json_path:
        with open(args.json_path, "w", encoding="utf-8") as handle:
            json.dump(summary, handle, indent=2, sort_keys=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
