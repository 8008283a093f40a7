"""The pause a rolling restart puts in live tables: a cluster of K replicas behind HAProxy, N tables of
four quick players (10-60 ms before each action, through the balancer, reconnecting with their seat
tokens), every replica restarted in turn (`Cluster.restart_replica`: SIGTERM, start, wait until the
balancer counts it up). For each table, the longest time between two new room versions seen by any of
its players during the restarts.

    python -m bench.rolling_pause --replicas 3 --tables 6

Prints one JSON line: per table the longest pause (s), their median and maximum, actions played.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import threading
import time

from bench.cluster_players import Player
from server.client import WhistClient
from server.cluster import Cluster
from server.rules import ruleset_names


async def open_table(cluster: Cluster, ruleset: str, seed: int) -> list[Player]:
    """A started room of four players through the balancer."""
    players = [Player(f"P{seat}", cluster.ws_url, cluster.ws_url, seed * 10 + seat) for seat in range(4)]
    async with await WhistClient.connect(cluster.ws_url, name="Host") as host:
        room = await host.create_room(ruleset, seat=None, session={"deals": 1000}, bot="random")
        for seat, player in enumerate(players):
            await player.take_seat(str(room["room_id"]), seat)
        await host.start()
    return players


def main() -> int:
    """Command line."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--replicas", type=int, default=3)
    parser.add_argument("--tables", type=int, default=6)
    args = parser.parse_args()
    seen: dict[int, tuple[int, float]] = {}  # table -> (latest version, when first seen)
    pauses: dict[int, float] = {}
    measuring = threading.Event()
    stop = threading.Event()
    actions: list[int] = []

    async def play() -> None:
        rulesets = ruleset_names()
        tables = [await open_table(cluster, rulesets[number % len(rulesets)], number)
                  for number in range(args.tables)]

        def note(number: int, player: Player) -> bool:
            room = player.room
            now = time.monotonic()
            if room is not None:
                version, since = seen.get(number, (0, now))
                if int(room["version"]) > version:
                    if measuring.is_set():
                        pauses[number] = max(pauses.get(number, 0.0), now - since)
                    seen[number] = (int(room["version"]), now)
            return stop.is_set()

        await asyncio.gather(*(player.play(until=lambda p, n=number: note(n, p), timeout=3600)
                               for number, players in enumerate(tables) for player in players))
        actions.append(sum(len(player.accepted) for players in tables for player in players))
        for players in tables:
            for player in players:
                await player.close()

    server_args = ["--log-level", "warning", "--bot-delay", "0", "--max-connections-per-address", "0",
                   "--max-rooms-per-address", "0"]
    with Cluster(replicas=args.replicas, server_args=server_args) as cluster:
        thread = threading.Thread(target=lambda: asyncio.run(play()), name="players")
        thread.start()
        while len(seen) < args.tables:
            time.sleep(0.2)
        time.sleep(2)
        measuring.set()
        started = time.monotonic()
        for index in range(args.replicas):
            cluster.restart_replica(index)
        time.sleep(5)  # a table still waiting for its players shows as a pause ending after this
        end = time.monotonic()
        seconds = end - started
        stop.set()
        thread.join(120)
    # A table whose versions stopped moving: its pause runs to the end of the measurement.
    for number, (_, since) in seen.items():
        pauses[number] = max(pauses.get(number, 0.0), min(max(0.0, end - since), seconds))
    values = [round(pauses.get(number, 0.0), 3) for number in range(args.tables)]
    print(json.dumps({"replicas": args.replicas, "tables": args.tables, "restart_seconds": round(seconds, 1),
                      "longest_pause_per_table_s": values, "median_s": round(statistics.median(values), 3),
                      "max_s": max(values), "actions": actions[0] if actions else None}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
