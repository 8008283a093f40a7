"""Human action latency while expert bots play at other tables.

    python -m bench.expert_load --human-tables 4 --expert-tables 0 4 --seconds 30 --runs 3

Starts `python -m server` (memory store, `--bot-workers 1`, a short bot delay so that the expert tables
keep deciding), opens `--expert-tables` tables where four `expert` bots play on and on (their decisions
run in the server's process pool, `server/bots/pool.py`), and `--human-tables` tables where one human
client (seat 0, three `random` bots) acts after 0.3-0.8 s of thought. For every human action it measures
the time from sending `act` to its `ok` (the server pushes the new state to the whole room before it
answers). Each run measures every expert-table count in turn; the table gives medians over the runs, and
the expert decisions made during the timed part (from `/metrics`).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import time
import urllib.request
from typing import Any

from bench.helpers import medians, percentile, python_module, start_process, stop_process
from server.bots import get_bot
from server.client import ServerError, WhistClient

THINK = (0.3, 0.8)
RANDOM = get_bot("random")


def expert_decisions(http_url: str) -> float:
    """The server's count of expert decisions so far (from /metrics)."""
    with urllib.request.urlopen(http_url + "metrics", timeout=30) as response:
        for line in response.read().decode().splitlines():
            if line.startswith('whist_bot_decision_seconds_count{bot="expert"}'):
                return float(line.rsplit(" ", 1)[1])
    return 0.0


async def human_table(url: str, seconds: float, number: int, latencies: list[float]) -> None:
    """One human (seat 0) against three random bots, acting after some thought until time is up."""
    rng = random.Random(number)
    client = await WhistClient.connect(url, name=f"Human{number}", binary=True, events=False)
    try:
        await client.create_room("couleur", seat=0, bot="random", listed=False)
        await client.start()
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            await client.wait_for(lambda c: c.my_turn() or (c.view is not None and c.view["phase"] == "end"),
                                  timeout=120)
            view = client.view
            assert view is not None
            if view["phase"] == "end":
                await client.ready()
                await client.wait_for(lambda c, v=view: c.view is not v and c.view is not None
                                      and c.view["phase"] != "end", timeout=120)
                continue
            await asyncio.sleep(rng.uniform(*THINK))
            action = RANDOM.decide(view, f"bench:{number}:{len(view['calls'])}:{len(view['tricks'])}", 5.0)
            sent = time.perf_counter()
            try:
                await client.request("act", timeout=120, action=action)
            except ServerError as problem:
                if problem.code != "not_your_turn":
                    raise
                continue
            latencies.append(time.perf_counter() - sent)
            await client.wait_for(lambda c, v=view: c.view is not v, timeout=120)
    finally:
        await client.close()


async def expert_tables(url: str, count: int) -> list[WhistClient]:
    """`count` tables of four expert bots, started (each with its host watching)."""
    hosts = []
    for _ in range(count):
        host = await WhistClient.connect(url, name="Host", binary=True, events=False)
        await host.create_room("couleur", seat=None, bot="expert", listed=False, session={"deals": 1000})
        await host.start()
        hosts.append(host)
    return hosts


async def measure(url: str, http_url: str, humans: int, experts: int, seconds: float) -> dict[str, Any]:
    """One measurement: `experts` expert tables playing, `humans` human tables timed."""
    hosts = await expert_tables(url, experts)
    await asyncio.sleep(3.0 if experts else 0.0)  # the pool's worker starts and the tables get going
    latencies: list[float] = []
    before = expert_decisions(http_url)
    await asyncio.gather(*(human_table(url, seconds, number, latencies) for number in range(humans)))
    decisions = expert_decisions(http_url) - before
    for host in hosts:
        await host.request("end_game")
        await host.close()
    return {"expert_tables": experts, "human_tables": humans, "actions": len(latencies),
            "p50_ms": percentile(latencies, 50) * 1000, "p99_ms": percentile(latencies, 99) * 1000,
            "max_ms": max(latencies) * 1000 if latencies else float("nan"), "expert_decisions": decisions,
            "load": os.getloadavg()[0]}


async def main_async(args: argparse.Namespace) -> list[dict[str, Any]]:
    server, http_url = start_process(
        python_module("server", "--port", "0", "--bot-delay", str(args.bot_delay),
         "--bot-workers", "1",
         "--rate-limit", "100000", "--max-connections-per-address", "0", "--max-rooms-per-address", "0",
         "--log-level", "warning"),
        "whist-server listening on",
    )
    url = http_url.replace("http://", "ws://") + "ws"
    results = []
    try:
        for run in range(args.runs):
            for experts in args.expert_tables:
                result = await measure(url, http_url, args.human_tables, experts, args.seconds)
                result["run"] = run
                print(result, flush=True)
                results.append(result)
    finally:
        stop_process(server)
    return results


def table(results: list[dict[str, Any]]) -> str:
    """Medians over the runs, one line per expert-table count (markdown)."""
    lines = ["| expert tables | human tables | runs | human actions | p50 ms | p99 ms | p99 of each run "
             "| expert decisions | load (1 min) |",
             "| ---: | ---: | ---: | ---: | ---: | ---: | --- | ---: | ---: |"]
    rows = medians(results, by=("expert_tables",), each_run={"p99_each_run": "p99_ms"})
    for row in sorted(rows, key=lambda row: row["expert_tables"]):
        each = ", ".join(f"{p99:.1f}" for p99 in row["p99_each_run"])
        lines.append(f"| {row['expert_tables']} | {row['human_tables']} | {row['runs']} "
                     f"| {row['actions']:.0f} | {row['p50_ms']:.2f} | {row['p99_ms']:.1f} | {each} "
                     f"| {row['expert_decisions']:.0f} | {row['load']:.1f} |")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--human-tables", type=int, default=4)
    parser.add_argument("--expert-tables", type=int, nargs="+", default=[0, 4])
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--bot-delay", type=float, default=0.05)
    args = parser.parse_args()
    print(table(asyncio.run(main_async(args))))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
