"""Event-loop lag while expert decisions run: on the loop itself, and in the decision pool.

A ticker coroutine asks to wake every 5 ms and records how late it wakes (the wait a human's message
would see on a busy loop). Meanwhile `--decisions` expert decisions from the last tricks of seeded deals
(the costly ones) are made, first directly on the loop (what the server must not do), then through
`DecisionPool` (`server/bots/pool.py`). Wall-clock figures: they depend on the machine's load.

    python -m bench.pool_latency [--decisions 40] [--workers 1]
"""

from __future__ import annotations

import argparse
import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import Any

from bench.helpers import percentile
from server.bots import get_bot
from server.bots.pool import DecisionPool
from server.rules import Deal


def late_views(count: int) -> list[dict[str, Any]]:
    """Views with at most 6 tricks left and a choice of cards, from heuristic self-play."""
    bot = get_bot("heuristic")
    views: list[dict[str, Any]] = []
    index = 0
    while len(views) < count:
        deal = Deal.from_seed("couleur", f"pool-latency:{index}", index % 4)
        while not deal.finished:
            seat = min(deal.to_act())
            view = deal.view(seat)
            if view["phase"] == "play" and len(view["legal"]) > 1 and max(view["hand_counts"]) <= 6:
                views.append(view)
            deal.apply(seat, bot.decide(view, "x", 20.0))
        index += 1
    return views[:count]


async def lag_while(work: Callable[[], Awaitable[None]]) -> list[float]:
    """The ticker's lateness (ms) at every tick while `work` runs."""
    lags: list[float] = []
    done = False

    async def ticker() -> None:
        while not done:
            start = time.perf_counter()
            await asyncio.sleep(0.005)
            lags.append(1000 * (time.perf_counter() - start - 0.005))

    task = asyncio.create_task(ticker())
    await asyncio.sleep(0.02)
    await work()
    done = True
    await task
    return lags


async def main_async(decisions: int, workers: int) -> None:
    """Measure both ways and print the lag p50/p99/max."""
    views = late_views(decisions)
    expert = get_bot("expert")

    async def inline() -> None:
        for i, view in enumerate(views):
            expert.decide(view, f"s{i}")
            await asyncio.sleep(0)

    async with DecisionPool(workers) as pool:
        await pool.decide("expert", views[0], "warm-up")

        async def pooled() -> None:
            for i, view in enumerate(views):
                await pool.decide("expert", view, f"s{i}")

        for label, work in (("on the event loop", inline), (f"in the pool ({workers} worker)", pooled)):
            lags = await lag_while(work)
            print(f"{label:<24}: {len(lags)} ticks, lag p50 {percentile(lags, 50):.1f} ms, "
                  f"p99 {percentile(lags, 99):.1f} ms, max {max(lags):.1f} ms")


def main() -> None:
    """Command line."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--decisions", type=int, default=40)
    parser.add_argument("--workers", type=int, default=1)
    args = parser.parse_args()
    asyncio.run(main_async(args.decisions, args.workers))


if __name__ == "__main__":
    main()
