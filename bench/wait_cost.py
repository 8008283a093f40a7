"""What `WAIT 1` costs per save: the Redis store's saves on a primary with one replica, with and without
the WAIT that the Sentinel topology sends after each batch of saves (server/store/redis.py).

`python -m bench.wait_cost [--rounds 5] [--saves 2000] [--rooms 1 20] [--write docs/benchmarks.md]`

A private primary and its replica (redis-server, loopback, append-only as the cluster's) are started
in a temporary directory. Each round runs, for each concurrency in `--rooms` (rooms saving at once,
each waiting for its answer before its next save: 1 is one table's action at a time, 20 a busy
loop whose saves share pipelines), `--saves` saves per room through a store without WAIT, then through
one with `?wait=1&wait_ms=500`, in turn, and measures the wall time per save (the action's latency:
its answer waits for the replica) and this process's CPU per save. The medians of the rounds are
printed side by side (`bench.helpers.medians`), each round's figures with them.
"""

from __future__ import annotations

import argparse
import asyncio
import resource
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

from bench.helpers import event_loop_runner, host_uptime, medians, write_section
from server.cluster.processes import PrivateRedis, wait_until
from server.store.redis import RedisStore

TITLE = "## WAIT per save (Sentinel topology)"
STATE = {"seats": [{"name": "Player", "kind": "human"}] * 4, "n": 0}


def cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


async def run_saves(url: str, rooms: int, saves: int) -> dict[str, float]:
    """`rooms` rooms saving `saves` times each, at once: wall and CPU microseconds per save."""
    prefix = f"bench:{uuid.uuid4().hex}:"
    store = RedisStore(f"{url}{'&' if '?' in url else '?'}prefix={prefix}")
    try:
        async def room(number: int) -> None:
            for version in range(saves):
                # Most actions only grow the log (the state sent is "": unchanged), as on a live table.
                await store.save(f"r{number}", STATE, version, [{"t": "act", "n": version}], None)

        await room(-1)  # connections opened and the script loaded before the clock starts
        started, cpu_started = time.perf_counter(), cpu()
        await asyncio.gather(*(room(number) for number in range(rooms)))
        wall, spent = time.perf_counter() - started, cpu() - cpu_started
        total = rooms * saves
        return {"wall_us": wall / total * 1e6, "cpu_us": spent / total * 1e6}
    finally:
        await store.delete_everything()
        await store.close()


async def measure(primary_url: str, rounds: int, saves: int, concurrency: list[int]) -> list[dict[str, Any]]:
    results: list[dict[str, Any]] = []
    for round_number in range(1, rounds + 1):
        for rooms in concurrency:
            plain = await run_saves(primary_url, rooms, saves)
            waited = await run_saves(primary_url + "?wait=1&wait_ms=500", rooms, saves)
            results.append({"rooms": rooms, "round": round_number,
                            "plain_wall_us": plain["wall_us"], "wait_wall_us": waited["wall_us"],
                            "extra_wall_us": waited["wall_us"] - plain["wall_us"],
                            "plain_cpu_us": plain["cpu_us"], "wait_cpu_us": waited["cpu_us"],
                            "extra_cpu_us": waited["cpu_us"] - plain["cpu_us"]})
            print(f"round {round_number}, {rooms} room(s): wall {plain['wall_us']:.0f} -> "
                  f"{waited['wall_us']:.0f} us per save, client CPU {plain['cpu_us']:.0f} -> "
                  f"{waited['cpu_us']:.0f} us", flush=True)
    return results


def markdown(rows: list[dict[str, Any]], command: str, uptime: str) -> str:
    lines = [TITLE, "", f"    {command}", "", f"Host at the start: `{uptime}`. Medians of {rows[0]['runs']} "
             "rounds (each round: the saves without WAIT, then with `?wait=1&wait_ms=500`, on the same "
             "primary and replica).", "",
             "| rooms saving at once | per save, no WAIT | per save, WAIT 1 | WAIT adds "
             "| client CPU, no WAIT | client CPU, WAIT 1 | rounds (WAIT adds, us) |",
             "| ---: | ---: | ---: | ---: | ---: | ---: | --- |"]
    for row in rows:
        lines.append(f"| {row['rooms']} | {row['plain_wall_us']:.0f} us | {row['wait_wall_us']:.0f} us | "
                     f"{row['extra_wall_us']:.0f} us | {row['plain_cpu_us']:.0f} us | "
                     f"{row['wait_cpu_us']:.0f} us | {', '.join(f'{value:.0f}' for value in row['each'])} |")
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--saves", type=int, default=2000, help="saves per room per measurement")
    parser.add_argument("--rooms", type=int, nargs="+", default=[1, 20])
    parser.add_argument("--write", type=Path, default=None, help="replace this section of a markdown file")
    args = parser.parse_args()
    uptime = host_uptime()
    with tempfile.TemporaryDirectory(prefix="wait-cost-") as directory:
        primary = PrivateRedis(Path(directory) / "primary")
        replica = PrivateRedis(Path(directory) / "replica", replica_of=primary.port)
        primary.start()
        replica.start()
        try:
            wait_until(lambda: replica.info().get("master_link_status") == "up", 60, "replica in step")
            results = event_loop_runner()(measure(primary.url, args.rounds, args.saves, args.rooms))
        finally:
            replica.stop()
            primary.stop()
    rows = medians(results, ["rooms"], {"each": "extra_wall_us"})
    for row in rows:
        print(f"{row['rooms']} room(s), medians of {row['runs']}: {row['plain_wall_us']:.0f} us per save "
              f"without WAIT, {row['wait_wall_us']:.0f} us with (+{row['extra_wall_us']:.0f}); client CPU "
              f"{row['plain_cpu_us']:.0f} -> {row['wait_cpu_us']:.0f} us")
    if args.write is not None:
        command = "python -m bench.wait_cost " + " ".join(
            [f"--rounds {args.rounds}", f"--saves {args.saves}", "--rooms", *map(str, args.rooms)])
        write_section(args.write, markdown(rows, command, uptime), TITLE)


if __name__ == "__main__":
    main()
