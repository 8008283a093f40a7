"""Client CPU per batch: redis-py's `Pipeline` against `LeanPipeline` (server/store/lean_pipeline.py).

`python -m bench.redis_batch [--url redis://127.0.0.1:6379/0] [--rounds 5] [--batches 3000]`

Each round runs `--batches` batches of one EVALSHA (the store's save script, on one room: a version
check and three writes) through each path in turn, and reads this process's CPU time (user + system)
around each; the medians over the rounds are printed, with the ratio measured in the same rounds.
A batch of one is what most saves are at human pace (a loop pass rarely holds two).
"""

from __future__ import annotations

import argparse
import asyncio
import resource
import statistics
import uuid
from collections.abc import Awaitable, Callable

from redis.asyncio import BlockingConnectionPool, Redis

from server.store.lean_pipeline import LeanPipeline
from server.store.redis_scripts import SAVE_SCRIPT


def cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


async def timed(batches: int, run: Callable[[int], Awaitable[None]]) -> float:
    """Microseconds of CPU per batch."""
    started = cpu()
    for number in range(batches):
        await run(number)
    return (cpu() - started) / batches * 1e6


async def main(url: str, rounds: int, batches: int) -> None:
    pool = BlockingConnectionPool.from_url(url, decode_responses=True, max_connections=64, timeout=20)
    redis = Redis(connection_pool=pool)
    sha = str(await redis.script_load(SAVE_SCRIPT))
    prefix = f"bench:{uuid.uuid4().hex}:"
    keys = [prefix + "room", prefix + "log", prefix + "lobby", prefix + "rooms"]
    lean = LeanPipeline(pool, 8)
    version = 0
    state = '{"seats":[' + ",".join(['{"name":"Player","kind":"human"}'] * 4) + "]}"

    async def through_pipeline(number: int) -> None:
        nonlocal version
        async with redis.pipeline(transaction=False) as pipe:
            pipe.evalsha(sha, 4, *keys, version, state, "r", "", f'{{"n":{number}}}')
            (_, version), = await pipe.execute(raise_on_error=False)

    async def through_lean(number: int) -> None:
        nonlocal version
        (_, version), = await lean.run([("EVALSHA", sha, 4, *keys, version, state, "r", "",
                                               f'{{"n":{number}}}')])

    pipeline_us, lean_us = [], []
    for _ in range(rounds):
        pipeline_us.append(await timed(batches, through_pipeline))
        lean_us.append(await timed(batches, through_lean))
    await redis.delete(*keys)
    await pool.disconnect()
    ratios = [new / old for old, new in zip(pipeline_us, lean_us, strict=True)]
    print(f"Pipeline: {statistics.median(pipeline_us):.1f} us of CPU per batch "
          f"(rounds: {', '.join(f'{value:.1f}' for value in pipeline_us)})")
    print(f"LeanPipeline: {statistics.median(lean_us):.1f} us "
          f"(rounds: {', '.join(f'{value:.1f}' for value in lean_us)})")
    print(f"ratio lean/pipeline, median of the rounds: {statistics.median(ratios):.2f}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", default="redis://127.0.0.1:6379/0")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--batches", type=int, default=3000)
    args = parser.parse_args()
    try:
        import uvloop
        uvloop.run(main(args.url, args.rounds, args.batches))
    except ImportError:
        asyncio.run(main(args.url, args.rounds, args.batches))
