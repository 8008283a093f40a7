"""What the expert's veto of lone calls is worth: for every lone call the heuristic bidder makes (with
`pass` legal) in seeded deals, the made chance the expert's simulation estimates for it, and the value
of calling over passing when each branch is finished by four heuristic bots on the real cards.

Four heuristic bots play each deal; at a lone call (solo, abondance, a misère, ...) the deal is cloned,
one copy makes the call and the other passes, and both are played to the end. The value is measured
as the match tool's two formats see it: `2v2` = (this seat + partner) - (the two others), halved;
`1v3` = this seat - the mean of the three others. The veto is right where passing is worth more.

    python -m bench.veto_value --ruleset belge-club --deals 900 [--prefix v] [--out FILE]

The report groups the calls by kind and by simulated chance (below `VETO`: the ones the veto removes),
with the mean value and its 95% confidence interval.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from server.bots import get_bot
from server.bots.calls import VETO, _lone_contract, _playout
from server.bots.expert import ExpertBot
from server.rules import Deal


def _finish(deal: Deal, seed: str) -> list[int]:
    heuristic = get_bot("heuristic")
    while not deal.finished:
        for seat in sorted(deal.to_act()):
            if deal.finished or seat not in deal.to_act():
                continue
            deal.apply(seat, heuristic.decide(deal.view(seat), f"{seed}:{seat}", 20.0))
    return list(deal.result()["points"])


def _team(points: Sequence[int], seat: int) -> float:
    return (points[seat] + points[(seat + 2) % 4] - points[(seat + 1) % 4] - points[(seat + 3) % 4]) / 2


def _alone(points: Sequence[int], seat: int) -> float:
    return points[seat] - sum(points[s] for s in range(4) if s != seat) / 3


def lone_calls(ruleset: str, index: int, prefix: str) -> list[dict[str, Any]]:
    """The lone calls of deal `index` (four heuristic bots), each with its chance and value."""
    heuristic, expert = get_bot("heuristic"), ExpertBot()
    seed = f"{prefix}:{index}"
    deal = Deal.from_seed(ruleset, seed, index % 4)
    rows = []
    while not deal.finished:
        for seat in sorted(deal.to_act()):
            if deal.finished or seat not in deal.to_act():
                continue
            view = deal.view(seat)
            call = heuristic.decide(view, f"{seed}:{seat}", 20.0)
            spec = _lone_contract(view, call) if view.get("phase") == "auction" else None
            if spec is not None and call != "pass" and "pass" in view["legal"]:
                trump, level, leads = spec
                made = total = 0.0
                for world in expert.worlds(view, f"{seed}:{seat}"):
                    taken = _playout(view, world, (seat,), trump, level, leads)
                    made += world.weight * (taken == level if level <= 1 else taken >= level)
                    total += world.weight
                called, passed = deal.clone(), deal.clone()
                called.apply(seat, call)
                passed.apply(seat, "pass")
                with_call, with_pass = _finish(called, seed), _finish(passed, seed)
                rows.append({"deal": index, "seat": seat, "call": call, "chance": made / total,
                             "2v2": _team(with_call, seat) - _team(with_pass, seat),
                             "1v3": _alone(with_call, seat) - _alone(with_pass, seat)})
            deal.apply(seat, call)
    return rows


def _ci(values: Sequence[float]) -> str:
    mean = statistics.fmean(values)
    half = 1.96 * statistics.stdev(values) / math.sqrt(len(values)) if len(values) > 1 else 0.0
    return f"{mean:+7.2f} [{mean - half:+7.2f}, {mean + half:+7.2f}]"


def report(rows: Sequence[dict[str, Any]]) -> str:
    """Value of calling over passing, by kind of call and whether the veto removes it."""
    groups: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        groups[(row["call"].split(" ")[0], "vetoed" if row["chance"] < VETO else "kept")].append(row)
    lines = [f"{len(rows)} lone calls in {len({r['deal'] for r in rows})} deals with one; "
             f"value of calling over passing (95% CI); vetoed = simulated chance < {VETO}",
             f"{'call':<22} {'veto':<7} {'n':>4}  {'2v2':<27} {'1v3':<27}"]
    for (kind, label), group in sorted(groups.items()):
        lines.append(f"{kind:<22} {label:<7} {len(group):>4}  {_ci([r['2v2'] for r in group]):<27} "
                     f"{_ci([r['1v3'] for r in group]):<27}")
    return "\n".join(lines)


def main() -> None:
    """Command line."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ruleset", required=True)
    parser.add_argument("--deals", type=int, default=300)
    parser.add_argument("--start", type=int, default=0)
    parser.add_argument("--prefix", default="v")
    parser.add_argument("--out", help="also write one JSON line per call to this file")
    args = parser.parse_args()
    rows = [row for i in range(args.start, args.start + args.deals) for row in lone_calls(args.ruleset, i,
                                                                                          args.prefix)]
    if args.out:
        with open(args.out, "w", encoding="utf-8") as handle:
            handle.writelines(json.dumps(row) + "\n" for row in rows)
    print(report(rows))


if __name__ == "__main__":
    main()
