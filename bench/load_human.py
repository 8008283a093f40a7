"""Human-paced load (`python bench/load.py --human ...`): N tables, each with four human clients that
think 0.5 to 2 s before each action and one spectator, through the load balancer.

    python bench/load.py --human --tables 20 --seconds 30 --replicas 1 --write docs/benchmarks.md
    python bench/load.py --human --tables 20 --seconds 30 --url ws://127.0.0.1:8765/ws
    python bench/load.py --human --tables 100 --replicas 1 2 3 --placement spread affinity --together

`--placement affinity`: the connections name their room (`/ws?room=<id>`: the balancer keeps a table
on one replica); `spread` (the default): they do not, and the balancer spreads them. `--together`
starts the clusters of every `--replicas` count at once and measures them in turn.

With `--replicas K` it starts a cluster (`server.cluster.Cluster`: private Redis, K replicas, HAProxy)
and reads the replicas' pids from it; with `--url` it uses a running balancer or server and finds the
server pids by asking `/health` (only meaningful when the servers run on this host).

For every action (a call or a card) it measures the time from sending `act` to the arrival of the
first `state` push showing it (by `room.version`) at each of the table's five connections: the
figure per view, and the time until *every* seat and the spectator has it. The server CPU per action
is the CPU time of the server processes over the timed part (from /proc/<pid>/stat) divided by the
actions measured (it includes their `ready`s and new deals). The floor, measured in the same run:
a bare websockets server that relays each message to the five connections of its group, driven at
the same pace with as many groups.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import statistics
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from load import cpu_seconds, percentile, start_process, stop_process  # noqa: E402

from server.bots import get_bot  # noqa: E402
from server.client import JSON, ServerError, WhistClient, room_url  # noqa: E402

BOT = get_bot("random")
THINK = (0.5, 2.0)


class TimedClient(WhistClient):
    """A client that notes when each room version first reached it, and keeps no message history."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.version_at: dict[int, float] = {}
        self.version_seen = asyncio.Event()

    def _handle(self, message: JSON) -> None:
        if message.get("type") == "state":
            self.version_at.setdefault(int(message["room"]["version"]), time.perf_counter())
            self.version_seen.set()
        super()._handle(message)
        self.received.clear()
        self.received_at.clear()

    def seen_since(self, version: int) -> float | None:
        """When the first state with a version >= `version` arrived (None: not yet)."""
        times = [at for seen, at in self.version_at.items() if seen >= version]
        return min(times) if times else None

    def forget_before(self, version: int) -> None:
        """Drop the arrival times of versions before `version` (memory stays flat)."""
        for seen in [seen for seen in self.version_at if seen < version]:
            del self.version_at[seen]


async def wait_version(client: TimedClient, version: int, timeout: float) -> float:
    """The arrival time of the first state with version >= `version`, waiting up to `timeout`."""
    deadline = time.perf_counter() + timeout
    while (arrived := client.seen_since(version)) is None:
        client.version_seen.clear()
        left = deadline - time.perf_counter()
        if left <= 0:
            raise TimeoutError(f"version {version} did not arrive")
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(client.version_seen.wait(), left)
    return arrived


class HumanTable:
    """Four human clients and a spectator of one room."""

    def __init__(self, seats: list[TimedClient], spectator: TimedClient, rng: random.Random) -> None:
        self.seats = seats
        self.spectator = spectator
        self.rng = rng
        self.all_views: list[float] = []  # per action: until every seat and the spectator has it
        self.each_view: list[float] = []  # per action and connection
        self.actions = 0
        self.errors = 0

    @classmethod
    async def open(cls, url: str, number: int, rng: random.Random, affinity: bool = False) -> HumanTable:
        """Create the room (seat 0), join seats 1-3, watch, start. `affinity`: the connections name
        the room (`?room=<id>`, as the web client does), and seat 0, which created the room before
        it had an id, reconnects with it (resumes with its token, then closes its first connection);
        otherwise the balancer spreads the five connections (leastconn)."""
        seats = [await TimedClient.connect(url, name=f"h{number}s0", binary=True, events=False)]
        await seats[0].create_room("solo-whist", seat=0, session={"deals": 1000}, listed=False)
        room_id, token = seats[0].room_id, seats[0].token
        assert room_id is not None and token is not None
        if affinity:
            url = room_url(url, room_id)
            first, seats[0] = seats[0], await TimedClient.connect(url, name=f"h{number}s0", binary=True,
                                                                  events=False)
            await seats[0].resume(room_id, token)
            await first.close()
        for seat in (1, 2, 3):
            seats.append(await TimedClient.connect(url, name=f"h{number}s{seat}", binary=True, events=False))
            await seats[seat].join(room_id, seat)
        spectator = await TimedClient.connect(url, name=f"h{number}w", binary=True, events=False)
        await spectator.watch(room_id)
        await seats[0].start()
        return cls(seats, spectator, rng)

    async def close(self) -> None:
        """End the game and disconnect everyone."""
        with contextlib.suppress(Exception):
            await self.seats[0].request("end_game")
        for client in [*self.seats, self.spectator]:
            with contextlib.suppress(Exception):
                await client.close()

    async def play(self, deadline: float) -> None:
        """Every seat plays at human pace until the deadline."""
        await asyncio.gather(*(self.play_seat(client, deadline) for client in self.seats))

    async def play_seat(self, client: TimedClient, deadline: float) -> None:
        """Think, then act when asked; `ready` after each deal."""
        done_deal = -1

        def turn_or_deal_end(c: WhistClient) -> bool:
            view, room = c.view, c.room
            return view is not None and room is not None and (
                c.my_turn() or (view["phase"] == "end" and room["deal_number"] != done_deal))

        while time.perf_counter() < deadline:
            try:
                await client.wait_for(turn_or_deal_end, max(0.1, deadline - time.perf_counter()))
            except TimeoutError:
                return
            await asyncio.sleep(self.rng.uniform(*THINK))
            if time.perf_counter() >= deadline:
                return
            view, room = client.view, client.room
            assert view is not None and room is not None
            if view["phase"] == "end":
                done_deal = room["deal_number"]
                with contextlib.suppress(ServerError):
                    await client.ready()
                continue
            if not client.my_turn():
                continue
            await self.act(client, view, room)

    async def act(self, client: TimedClient, view: JSON, room: JSON) -> None:
        """One measured action."""
        before = int(room["version"])
        action = BOT.decide(view, f"human:{view['seat']}:{len(view['calls'])}:{len(view['tricks'])}", 5.0)
        started = time.perf_counter()
        try:
            await client.act(action)
        except ServerError:
            self.errors += 1
            return
        await wait_version(client, before + 1, 30)
        version = min(seen for seen in client.version_at if seen > before)
        arrivals = [await wait_version(other, version, 30) for other in [*self.seats, self.spectator]]
        latencies = [arrived - started for arrived in arrivals]
        self.each_view.extend(latencies)
        self.all_views.append(max(latencies))
        self.actions += 1
        for other in [*self.seats, self.spectator]:
            other.forget_before(version - 4)


# ------------------------------------------------------------------------------------------- the floor

RELAY_SERVER = """
import asyncio
from websockets.asyncio.server import serve, broadcast
groups = {}
async def relay(ws):
    group = groups.setdefault(ws.request.path, set())
    group.add(ws)
    try:
        async for message in ws:
            broadcast(group, message)
    finally:
        group.discard(ws)
async def main():
    async with serve(relay, "127.0.0.1", 0, max_size=2**20, compression=None) as server:
        port = next(iter(server.sockets)).getsockname()[1]
        print(f"relay listening on ws://127.0.0.1:{port}/", flush=True)
        await asyncio.Future()
asyncio.run(main())
"""


async def relay_floor(url: str, groups: int, seconds: float, payload: int, rng: random.Random
                      ) -> list[float]:
    """Groups of five connections; one member at a time sends at human pace, the relay sends it to
    all five; the time until all five have it."""
    from websockets.asyncio.client import connect

    samples: list[float] = []
    deadline = time.perf_counter() + seconds

    async def group(number: int) -> None:
        members = [await connect(f"{url}g{number}", max_size=2**20, compression=None) for _ in range(5)]
        try:
            while time.perf_counter() < deadline:
                await asyncio.sleep(rng.uniform(*THINK))  # one seat at a time thinks, then acts
                message = os.urandom(payload)
                started = time.perf_counter()
                await members[rng.randrange(4)].send(message)
                for member in members:
                    while await member.recv() != message:
                        pass
                samples.append(time.perf_counter() - started)
        finally:
            for member in members:
                await member.close()

    await asyncio.gather(*(group(number) for number in range(groups)))
    return samples


# ------------------------------------------------------------------------------------------- the run


def server_pids_from_health(url: str, asks: int = 20) -> list[int]:
    """The pids that answer /health behind `url` (a balancer spreads the asks over its replicas)."""
    http = url.replace("ws://", "http://").removesuffix("/ws").rstrip("/") + "/health"
    pids = set()
    for _ in range(asks):
        with urllib.request.urlopen(http, timeout=10) as response:
            pids.add(int(json.loads(response.read())["pid"]))
    return sorted(pids)


async def run(url: str, tables: int, seconds: float, pids: list[int], payload: int, seed: int,
              placement: str = "spread") -> dict[str, Any]:
    """Open the tables, play for `seconds`, then measure the floor with as many groups."""
    rng = random.Random(seed)
    opened = []
    for number in range(tables):
        opened.append(await HumanTable.open(url, number, rng, affinity=placement == "affinity"))
    cpu_before = [cpu_seconds(pid) for pid in pids]
    client_before = time.process_time()
    started = time.perf_counter()
    await asyncio.gather(*(table.play(started + seconds) for table in opened))
    elapsed = time.perf_counter() - started
    cpu_after = [cpu_seconds(pid) for pid in pids]
    client_cpu = time.process_time() - client_before
    for table in opened:
        await table.close()
    all_views = [value for table in opened for value in table.all_views]
    each_view = [value for table in opened for value in table.each_view]
    actions = sum(table.actions for table in opened)
    server_cpu = sum(after - before for before, after in zip(cpu_before, cpu_after, strict=True)
                     if before is not None and after is not None)
    relay, relay_url = start_process([sys.executable, "-c", RELAY_SERVER], "relay listening on")
    try:
        floor = await relay_floor(relay_url, tables, min(seconds, 15.0), payload, rng)
    finally:
        stop_process(relay)

    def ms(values: list[float], share: float) -> float:
        return round(percentile(values, share) * 1000, 2)

    return {
        "tables": tables, "placement": placement, "connections": tables * 5, "seconds": round(elapsed, 1),
        "actions": actions,
        "actions_per_s": round(actions / elapsed, 1), "errors": sum(table.errors for table in opened),
        "p50_all_ms": ms(all_views, 50), "p99_all_ms": ms(all_views, 99),
        "p50_view_ms": ms(each_view, 50), "p99_view_ms": ms(each_view, 99),
        "server_processes": len(pids),
        "server_cpu_ms_per_action": round(server_cpu / max(actions, 1) * 1000, 3) if pids else None,
        "server_cpu_share": round(server_cpu / elapsed, 3) if pids else None,
        "client_cpu_ms_per_action": round(client_cpu / max(actions, 1) * 1000, 3),
        "floor_samples": len(floor), "floor_p50_ms": ms(floor, 50), "floor_p99_ms": ms(floor, 99),
        "load_avg_1m": round(os.getloadavg()[0], 1),
    }


def medians(results: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One row per table count: the median of every figure over its runs, and each run's p99."""
    rows = []
    for replicas, tables, placement in dict.fromkeys(
            (result["server_processes"], result["tables"], result.get("placement", "spread"))
            for result in results):
        runs = [result for result in results
                if result["tables"] == tables and result["server_processes"] == replicas
                and result.get("placement", "spread") == placement]
        row: dict[str, Any] = {"runs": len(runs)}
        for key, value in runs[0].items():
            if isinstance(value, int | float):
                row[key] = round(statistics.median(r[key] for r in runs if r[key] is not None), 3)
            else:
                row[key] = value
        row["p99_each_run"] = ", ".join(str(r["p99_all_ms"]) for r in runs)
        rows.append(row)
    rows.sort(key=lambda row: (row["server_processes"], row["tables"], row["placement"] != "spread"))
    return rows


def markdown(results: list[dict[str, Any]], command: str, uptime: str, replicas: int | None) -> str:
    """The `## Load (human-paced)` section of docs/benchmarks.md."""
    order = "all started at once, taking turns" if "--together" in command else "one after another"
    where = (f"clusters of 1 to {replicas} replica(s), {order}, behind HAProxy "
             "(`server.cluster`), private Redis each") if replicas else "the given URL"
    lines = [
        "## Load (human-paced)",
        "",
        "N tables, each four human clients (msgpack, no `events` pushes) that think 0.5-2 s before each",
        "action and one spectator, all through the balancer. *All seats*: from sending `act` until the",
        "state showing it has reached all five connections of the table; *per view*: each connection",
        "apart. Server CPU: the server processes' CPU time over the timed part per action measured",
        "(it includes the `ready`s and new deals). The floor, same run: a bare websockets relay, one",
        "sender at a time per group of five, same pace, same number of groups, time until all five",
        "have the message (no balancer in its path).",
        "",
        f"Command: `{command}` ({where}; host at the start: `{uptime}`)",
        "",
        "Medians over the runs (each run measures every table count in turn):",
        "",
        "| tables | placement | connections | replicas | runs | actions | actions/s | p50 all seats ms "
        "| p99 all seats ms | p99 of each run | p50 / p99 per view ms | floor p50 / p99 ms "
        "| server CPU ms/action | server CPU share | client CPU ms/action | errors | load (1 min) |",
        "| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | ---: | ---: | ---: | ---: "
        "| ---: | ---: | ---: |",
    ]
    for r in results:
        lines.append(
            f"| {r['tables']} | {r.get('placement', 'spread')} | {r['connections']} "
            f"| {r['server_processes']} | {r['runs']} | {r['actions']} "
            f"| {r['actions_per_s']} | {r['p50_all_ms']} | {r['p99_all_ms']} | {r['p99_each_run']} "
            f"| {r['p50_view_ms']} / {r['p99_view_ms']} | {r['floor_p50_ms']} / {r['floor_p99_ms']} "
            f"| {r['server_cpu_ms_per_action']} | {r['server_cpu_share']} | {r['client_cpu_ms_per_action']} "
            f"| {r['errors']} | {r['load_avg_1m']} |")
    lines += ["", *summary(results)]
    return "\n".join(lines) + "\n"


def summary(results: list[dict[str, Any]]) -> list[str]:
    """Per replica count and placement: the largest N measured that held p99 (all seats) under 50 ms,
    and the server CPU per action as a ratio to one replica's at the same N. *spread*: the balancer
    spreads a table's five connections over the processes (leastconn; the cross-process path);
    *affinity*: they name their room and meet on one process (`?room=<id>`, consistent hash)."""
    # With one replica both placements are the same thing (one process): the baseline is their mean.
    single = {tables: statistics.mean(r["server_cpu_ms_per_action"] for r in results
                                      if r["server_processes"] == 1 and r["tables"] == tables)
              for tables in {r["tables"] for r in results if r["server_processes"] == 1}}
    lines = ["| replicas | placement | largest N measured with p99 < 50 ms "
             "| server CPU per action vs 1 replica (same N) |",
             "| ---: | --- | ---: | --- |"]
    for replicas, placement in sorted({(r["server_processes"], r.get("placement", "spread"))
                                       for r in results}):
        rows = [r for r in results
                if r["server_processes"] == replicas and r.get("placement", "spread") == placement]
        held = [r["tables"] for r in rows if r["p99_all_ms"] < 50]
        ratios = [f"N={r['tables']}: {r['server_cpu_ms_per_action'] / single[r['tables']]:.2f}x"
                  for r in rows if single.get(r["tables"]) and r["server_cpu_ms_per_action"]]
        lines.append(f"| {replicas} | {placement} | {max(held) if held else 'none'} "
                     f"| {', '.join(ratios) or '-'} |")
    return lines


def main(argv: list[str]) -> int:
    """Command line of the human-paced mode."""
    parser = argparse.ArgumentParser(prog="bench/load.py --human", description=__doc__.split("\n\n")[0])
    parser.add_argument("--human", action="store_true", help="this mode")
    parser.add_argument("--tables", type=int, nargs="+", default=[20])
    parser.add_argument("--seconds", type=float, default=30.0)
    target = parser.add_mutually_exclusive_group()
    target.add_argument("--url", help="ws://HOST:PORT/ws of a running balancer or server")
    target.add_argument("--replicas", type=int, nargs="+", default=[1],
                        help="start a cluster of K replicas (default 1); several: one cluster after another")
    parser.add_argument("--payload", type=int, default=1500, help="floor message bytes (a state push)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--runs", type=int, default=1, help="runs of every table count; medians reported")
    parser.add_argument("--placement", nargs="+", choices=("spread", "affinity"), default=["spread"],
                        help="spread: connections without their room id (the balancer spreads them); "
                             "affinity: they name their room (?room=<id>); several: each in turn")
    parser.add_argument("--together", action="store_true",
                        help="start the clusters of every --replicas count at once and take turns")
    parser.add_argument("--write", type=Path, help="write the figures into this markdown file")
    args = parser.parse_args(argv)
    uptime = subprocess.run(["uptime"], capture_output=True, text=True, check=False).stdout.strip()
    try:
        import uvloop
        runner: Any = uvloop.run
    except ImportError:
        runner = asyncio.run
    results = []
    # Each run measures every table count in turn, so a change in the host's load touches them alike.
    counts = [(tables, placement) for _ in range(args.runs) for tables in args.tables
              for placement in args.placement]
    if args.url:
        pids = server_pids_from_health(args.url)
        for number, (tables, placement) in enumerate(counts):
            results.append(runner(run(args.url, tables, args.seconds, pids, args.payload,
                                      args.seed + number, placement)))
            print(json.dumps(results[-1]), flush=True)
    else:
        from server.cluster import Cluster

        # Started from the main thread (its children die with it); the servers' rate and per-address
        # limits are off (every client is on this host).
        server_args = ["--log-level", "warning", "--rate-limit", "100000",
                       "--max-connections-per-address", "0", "--max-rooms-per-address", "0"]
        if args.together:
            # Every cluster at once (an idle one costs little), each measurement taken on every replica
            # count in turn: the ratios between replica counts are measured side by side, not minutes
            # apart on a host whose load moves.
            with contextlib.ExitStack() as stack:
                clusters = [stack.enter_context(Cluster(replicas, server_args=server_args))
                            for replicas in args.replicas]
                for number, (tables, placement) in enumerate(counts):
                    for cluster in clusters:
                        pids = sorted(cluster.server_pids().values())
                        results.append(runner(run(cluster.ws_url, tables, args.seconds, pids, args.payload,
                                                  args.seed + number, placement)))
                        print(json.dumps(results[-1]), flush=True)
        for replicas in [] if args.together else args.replicas:
            with Cluster(replicas, server_args=server_args) as cluster:
                pids = sorted(cluster.server_pids().values())
                for number, (tables, placement) in enumerate(counts):
                    results.append(runner(run(cluster.ws_url, tables, args.seconds, pids, args.payload,
                                              args.seed + number, placement)))
                    print(json.dumps(results[-1]), flush=True)
    if args.write:
        from load import write_section

        command = "python bench/load.py " + " ".join(argv)
        write_section(args.write, markdown(medians(results), command, uptime,
                                           None if args.url else max(args.replicas)),
                      "## Load (human-paced)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
