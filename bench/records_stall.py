"""How long a ping waits behind a flood of `get_records` on a long session (the figure that used to be a
wall-clock bound in tests/server/test_red_team.py; the test now checks the answer comes from the live
session without replaying the log).

A `python -m server` process (memory store, bot delay 0) plays a session of bots to the end; then one
connection sends 20 `get_records` at once and another a `ping`: the ping's round trip is measured.

    python -m bench.records_stall --deals 300 --runs 5
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time

from bench.helpers import python_module, start_process, stop_process
from server.client import WhistClient


async def one_run(url: str, deals: int) -> tuple[float, float]:
    """(ping round trip behind the flood, ping round trip alone), in milliseconds."""
    async with await WhistClient.connect(url, name="Asker", binary=True) as asker, \
            await WhistClient.connect(url, name="Bystander") as bystander:
        await asker.create_room("solo-whist", seat=None, session={"deals": deals}, bot="random", listed=False)
        await asker.start()
        await asker.wait_for(lambda c: c.room is not None and c.room["session_over"], timeout=600)
        started = time.perf_counter()
        await bystander.request("ping")
        alone = time.perf_counter() - started
        flood = [asyncio.ensure_future(asker.request("get_records", timeout=600)) for _ in range(20)]
        await asyncio.sleep(0.02)
        started = time.perf_counter()
        await bystander.request("ping", timeout=600)
        behind = time.perf_counter() - started
        await asyncio.gather(*flood)
    return behind * 1000, alone * 1000


def main(argv: list[str] | None = None) -> int:
    """Run and print the medians."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deals", type=int, default=300)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args(argv)
    process, http_url = start_process(
        python_module("server", "--port", "0", "--bot-delay", "0", "--rate-limit", "200",
                      "--log-level", "warning"),
        "whist-server listening on")
    try:
        url = http_url.replace("http://", "ws://") + "ws"
        results = [asyncio.run(one_run(url, args.deals)) for _ in range(args.runs)]
    finally:
        stop_process(process)
    behind = statistics.median(result[0] for result in results)
    alone = statistics.median(result[1] for result in results)
    print(f"{args.deals} deals, {args.runs} runs: a ping behind 20 get_records: median {behind:.2f} ms "
          f"(max {max(r[0] for r in results):.2f} ms); alone: median {alone:.2f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
