"""Redis work per action of today's server: commands and bytes, on a private redis-server (so that
nothing else counts), for bot-only rooms driven in process by `server.live.Tables` with the Redis
coordination of a cluster process (owner leases, fan-out publish, presence; `--alone`: the in-memory
twins of a single process, i.e. the store's work only).

    python -m bench.redis_cost --rooms 20 --deals 5 [--alone]

Prints one JSON line: actions, Redis commands (by name, from INFO commandstats) and network bytes in
and out of Redis per action. docs/scaling.md uses these figures.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.helpers import CountingPeer
from server.cluster.processes import PrivateRedis


async def redis_info(redis: Any) -> tuple[dict[str, int], int, int, float]:
    """(calls by command, net input bytes, net output bytes, CPU seconds of redis-server) so far."""
    stats = await redis.info("commandstats")
    calls = {name.removeprefix("cmdstat_"): int(value["calls"]) for name, value in stats.items()}
    net = await redis.info("stats")
    cpu = await redis.info("cpu")
    return (calls, int(net["total_net_input_bytes"]), int(net["total_net_output_bytes"]),
            float(cpu["used_cpu_sys"]) + float(cpu["used_cpu_user"]))


async def measure(url: str, rooms: int, deals: int, alone: bool = False) -> dict[str, Any]:
    """Play `rooms` bot-only rooms of `deals` deals; Redis's counters before and after."""
    from redis.asyncio import Redis

    from server.coord import new_process_id, redis_coordination
    from server.live import Tables
    from server.protocol import CreateRoom
    from server.store.redis import RedisStore

    watcher = Redis.from_url(url)
    store = RedisStore(url)
    manager = Tables(store, bot_delay=0.0,
                     coordination=None if alone else redis_coordination(url, new_process_id("bench")))
    await manager.join_cluster()
    before = await redis_info(watcher)
    for _ in range(rooms):
        peer = CountingPeer()
        request = CreateRoom(type="create_room", id=1, ruleset="solo-whist", seat=None,
                             session={"deals": deals}, bot="random")  # type: ignore[arg-type]
        await manager.create_room(peer, request.new_room())
        await manager.start(peer)
    live = list(manager.rooms.values())
    started = time.monotonic()
    while any(not room.over for room in live) and time.monotonic() - started < 300:
        await asyncio.sleep(0.05)
    after = await redis_info(watcher)
    actions = sum(len(entry["record"]["actions"]) for room in live if room.session
                  for entry in room.session.history)
    await manager.close()
    await store.close()
    await watcher.aclose()
    # The watcher's own INFO calls are left out.
    calls = {name: count - before[0].get(name, 0) for name, count in after[0].items()
             if name != "info" and count - before[0].get(name, 0) > 0}
    return {"rooms": rooms, "deals": rooms * deals, "actions": actions, "coordination": not alone,
            "commands_per_action": {name: round(count / actions, 2) for name, count in sorted(calls.items())},
            "bytes_in_per_action": round((after[1] - before[1]) / actions),
            "bytes_out_per_action": round((after[2] - before[2]) / actions),
            "redis_cpu_us_per_action": round((after[3] - before[3]) / actions * 1e6, 1)}


def main() -> int:
    """Command line."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rooms", type=int, default=20)
    parser.add_argument("--deals", type=int, default=5)
    parser.add_argument("--alone", action="store_true", help="in-memory coordination (one process)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as directory:
        redis = PrivateRedis(Path(directory))
        redis.start()
        try:
            print(json.dumps(asyncio.run(measure(redis.url, args.rooms, args.deals, args.alone))))
        finally:
            redis.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
