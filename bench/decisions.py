"""CPU time per decision of a bot, per ruleset: the median and the 99th percentile.

Four copies of the bot play `--deals` seeded deals of each ruleset (self-play, so every position is one
the bot reaches itself); every decision is timed with `time.process_time` (the CPU time of this process,
which other work on a shared machine does not inflate). Two sets are reported: every decision, and the
card decisions with a choice (more than one legal card: where the expert searches), the costly ones.
Also the CPU time per deal (all four seats), to compare bots: `--bot` takes any name `load_bot` does
(`bench.expert_v1:ExpertV1Bot`). The goal is a p99 of at most 300 ms in every ruleset.

    python -m bench.decisions [--bot expert] [--deals 40] [--rulesets couleur solo-whist belge-club]
"""

from __future__ import annotations

import argparse
import json
import time

from bench.helpers import percentile
from server.bots import load_bot
from server.rules import Deal, ruleset_names


def measure(bot_name: str, ruleset: str, deals: int) -> dict[str, object]:
    """Decision times (ms) of `deals` self-play deals."""
    bot = load_bot(bot_name)
    every: list[float] = []
    searched: list[float] = []
    start_all = time.process_time()
    for index in range(deals):
        deal = Deal.from_seed(ruleset, f"decisions:{index}", index % 4)
        while not deal.finished:
            seat = min(deal.to_act())
            view = deal.view(seat)
            start = time.process_time()
            action = bot.decide(view, f"decisions:{index}:{seat}", 20.0)
            elapsed = 1000 * (time.process_time() - start)
            every.append(elapsed)
            if view["phase"] == "play" and len(view["legal"]) > 1:
                searched.append(elapsed)
            deal.apply(seat, action)
    row: dict[str, object] = {"ruleset": ruleset, "bot": bot_name, "deals": deals,
                              "cpu_s_per_deal": (time.process_time() - start_all) / max(deals, 1)}
    for label, values in (("all", every), ("searched", searched)):
        if values:
            row[label] = {"decisions": len(values), "p50_ms": percentile(values, 50),
                          "p99_ms": percentile(values, 99), "max_ms": max(values)}
    return row


def main() -> None:
    """Command line: one line per ruleset (or JSON with --json)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bot", default="expert")
    parser.add_argument("--deals", type=int, default=40)
    parser.add_argument("--rulesets", nargs="+", default=ruleset_names())
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    rows = [measure(args.bot, ruleset, args.deals) for ruleset in args.rulesets]
    if args.json:
        print(json.dumps(rows, indent=2))
        return
    for row in rows:
        parts = [f"{row['ruleset']:<11} {row['bot']}, {row['deals']} deals, "
                 f"{row['cpu_s_per_deal']:.2f} CPU s per deal:"]
        for label in ("all", "searched"):
            stats = row.get(label)
            if isinstance(stats, dict):
                parts.append(f"{label} {stats['decisions']} decisions p50 {stats['p50_ms']:.2f} ms "
                             f"p99 {stats['p99_ms']:.1f} ms max {stats['max_ms']:.1f} ms;")
        print(" ".join(parts))


if __name__ == "__main__":
    main()
