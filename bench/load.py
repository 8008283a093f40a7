"""Load benchmark of the live server: N concurrent bot-only tables through real websockets, on Redis.

Each table is one room: three server-side bots (bot delay 0) and one bot that connects from outside
through `server.client.WhistClient` (msgpack frames) and plays seat 0, sending `ready` between deals.
For every action the outside bot sends, the time until the `state` push showing it arrives is
measured. The same run measures a bare `websockets` echo round trip (same message size, same number
of concurrent connections) as the floor, so the server's cost reads as a ratio to it.

    .venv/bin/python bench/load.py --tables 10 100 500 --seconds 20 --store redis://127.0.0.1:6379/0

Everything stays on the loopback interface; loops are bounded by time and by deal counts; the Redis
keys live under a unique prefix that is deleted at the end.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import platform
import statistics
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from server.bots import get_bot  # noqa: E402
from server.client import ServerError, WhistClient  # noqa: E402

BOT = get_bot("random")


def percentile(values: list[float], share: float) -> float:
    """The `share` (0-100) percentile, nearest rank."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(share / 100 * len(ordered) + 0.5) - 1))
    return ordered[index]


# ------------------------------------------------------------------------------------------- processes


def start_process(args: list[str], prefix: str) -> tuple[subprocess.Popen[str], str]:
    """Start a process that prints one line ending in its URL; returns it and the line's URL."""
    process = subprocess.Popen(args, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    assert process.stdout is not None
    line = process.stdout.readline().strip()
    if not line.startswith(prefix):
        process.kill()
        raise RuntimeError(f"unexpected first line: {line!r}")
    return process, line.rsplit(" ", 1)[1]


def read_health(url: str) -> dict[str, Any]:
    """The server's /health report."""
    import urllib.request

    with urllib.request.urlopen(url, timeout=30) as response:
        report: dict[str, Any] = json.loads(response.read())
    return report


def cpu_seconds(pid: int) -> float | None:
    """CPU time (user + system) a process has used so far, from /proc (None where there is none)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def stop_process(process: subprocess.Popen[str]) -> None:
    """SIGTERM, then wait."""
    process.terminate()
    try:
        process.wait(20)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(5)
    if process.stdout is not None:
        process.stdout.close()


ECHO_SERVER = """
import asyncio
from websockets.asyncio.server import serve
async def echo(ws):
    async for message in ws:
        await ws.send(message)
async def main():
    async with serve(echo, "127.0.0.1", 0, max_size=2**20) as server:
        port = next(iter(server.sockets)).getsockname()[1]
        print(f"echo listening on ws://127.0.0.1:{port}/", flush=True)
        await asyncio.Future()
asyncio.run(main())
"""


# ------------------------------------------------------------------------------------------- measurements


async def echo_round_trips(url: str, connections: int, seconds: float, payload: bytes) -> list[float]:
    """Concurrent connections each sending `payload` and waiting for it back, for `seconds`."""
    from websockets.asyncio.client import connect

    samples: list[float] = []
    deadline = time.perf_counter() + seconds

    async def one() -> None:
        async with connect(url, max_size=2**20) as websocket:
            while time.perf_counter() < deadline:
                started = time.perf_counter()
                await websocket.send(payload)
                await websocket.recv()
                samples.append(time.perf_counter() - started)

    await asyncio.gather(*(one() for _ in range(connections)))
    return samples


class Table:
    """One room and its outside bot."""

    def __init__(self, client: WhistClient) -> None:
        self.client = client
        self.latencies: list[float] = []
        self.deals = 0
        self.actions = 0

    async def play(self, deadline: float) -> None:
        """Play seat 0 until the deadline: act when asked, `ready` after each deal."""
        client = self.client
        deal_number = -1
        while time.perf_counter() < deadline:
            remaining = deadline - time.perf_counter()
            try:
                await client.wait_for(lambda c, done=deal_number: c.view is not None and (
                    c.my_turn() or (c.view["phase"] == "end" and c.room is not None
                                    and c.room["deal_number"] != done)), remaining)
            except TimeoutError:
                return
            view = client.view
            room = client.room
            assert view is not None and room is not None
            if view["phase"] == "end":
                deal_number = room["deal_number"]
                self.deals += 1
                if room["session_over"]:
                    return
                with contextlib.suppress(ServerError):
                    await client.ready()
                continue
            action = BOT.decide(view, f"bench:{room['deal_number']}:{len(view['calls'])}", 5.0)
            mark = len(client.received)
            started = time.perf_counter()
            try:
                await client.act(action)
            except ServerError as problem:
                if problem.code == "not_your_turn":
                    continue
                raise
            await client.wait_for(lambda c, n=mark: any(m["type"] == "state" for m in c.received[n:]),
                                  max(0.1, deadline - time.perf_counter()) + 5)
            arrived = next(at for m, at in zip(client.received[mark:], client.received_at[mark:], strict=True)
                           if m["type"] == "state")
            self.latencies.append(arrived - started)
            self.actions += 1
            # Keep memory flat (and the garbage collector's passes short): no message history.
            del client.received[:]
            del client.received_at[:]


async def run_tables(url: str, tables: int, seconds: float, bot: str) -> dict[str, Any]:
    """`tables` concurrent rooms for `seconds`; returns deals/s and latency percentiles."""
    clients = []
    for number in range(tables):
        client = await WhistClient.connect(url, name=f"bench{number}", binary=True, events=False)
        await client.create_room("solo-whist", seat=0, session={"deals": 1000}, bot=bot, listed=False)
        clients.append(client)
    runs = [Table(client) for client in clients]
    for client in clients:
        await client.start()
    started = time.perf_counter()
    deadline = started + seconds
    await asyncio.gather(*(table.play(deadline) for table in runs))
    elapsed = time.perf_counter() - started
    for client in clients:
        with contextlib.suppress(Exception):
            await client.request("end_game")
        await client.close()
    latencies = [value for table in runs for value in table.latencies]
    deals = sum(table.deals for table in runs)
    return {
        "tables": tables,
        "seconds": round(elapsed, 2),
        "deals": deals,
        "deals_per_s": round(deals / elapsed, 1),
        "client_actions": len(latencies),
        "p50_ms": round(percentile(latencies, 50) * 1000, 2),
        "p99_ms": round(percentile(latencies, 99) * 1000, 2),
        "mean_ms": round(statistics.fmean(latencies) * 1000, 2) if latencies else None,
    }


class _CountingPeer:
    """A connection stand-in for the in-process measurement: counts the pushes, sends nothing."""

    def __init__(self) -> None:
        self.name = "bench"
        self.room: Any = None
        self.participant: str | None = None
        self.token: str | None = None
        self.wants_events = False
        self.pushes = 0

    def push(self, message: dict[str, Any]) -> None:
        self.pushes += 1


async def in_process_cost(store_url: str, rooms: int = 20, deals: int = 10) -> dict[str, Any]:
    """Server work per action without any network client: bot-only rooms driven by `RoomManager` on
    the given store (each action validated, stored with its compare-and-set, and pushed to one
    watcher)."""
    from server.protocol import CreateRoom
    from server.rooms import RoomManager
    from server.store import open_store

    prefix = f"bench:{uuid.uuid4().hex}:"
    url = store_url if store_url.startswith("memory") else f"{store_url}?prefix={prefix}"
    store = open_store(url)
    manager = RoomManager(store, bot_delay=0.0)
    started = time.perf_counter()
    for _ in range(rooms):
        peer = _CountingPeer()
        request = CreateRoom(type="create_room", id=1, ruleset="solo-whist", seat=None,
                             session={"deals": deals}, bot="random")  # type: ignore[arg-type]
        await manager.create_room(peer, request)
        await manager.start_game(peer)
    live = list(manager.rooms.values())
    while any(not room.over for room in live) and time.perf_counter() - started < 120:
        await asyncio.sleep(0.01)
    elapsed = time.perf_counter() - started
    actions = sum(len(entry["record"]["actions"]) for room in live if room.session
                  for entry in room.session.history)
    await manager.close()
    if store.kind == "redis":
        await cleanup_redis(store_url, prefix)
    await store.close()
    return {"store": store.kind, "rooms": rooms, "deals": rooms * deals, "actions": actions,
            "us_per_action": round(elapsed / max(actions, 1) * 1e6)}


async def cleanup_redis(store_url: str, prefix: str) -> None:
    """Delete the benchmark's keys (only those under its prefix)."""
    from server.store.redis import RedisStore

    store = RedisStore(store_url, prefix=prefix)
    try:
        await store.delete_everything()
    finally:
        await store.close()


async def main_async(args: argparse.Namespace) -> list[dict[str, Any]]:
    """Run every table count, each with its echo floor."""
    prefix = f"bench:{uuid.uuid4().hex}:"
    store = args.store if args.store.startswith("memory") else f"{args.store}?prefix={prefix}"
    server, server_url = start_process(
        [sys.executable, "-m", "server", "--port", "0", "--store", store, "--bot-delay", "0",
         "--rate-limit", "100000", "--log-level", "warning"],
        "whist-server listening on",
    )
    echo, echo_url = start_process([sys.executable, "-c", ECHO_SERVER], "echo listening on")
    ws_url = server_url.replace("http://", "ws://") + "ws"
    results: list[dict[str, Any]] = []
    try:
        cost = await in_process_cost(args.store)
        print(json.dumps({"in_process": cost}), flush=True)
        results.append({"in_process": cost})
        # The echo payload is the size of a typical state push (msgpack) the server sends.
        payload = os.urandom(args.payload)
        for tables in args.tables:
            load_before = os.getloadavg()[0]
            server_cpu_before = cpu_seconds(server.pid)
            client_cpu_before = time.process_time()
            result = await run_tables(ws_url, tables, args.seconds, args.bot)
            server_cpu = cpu_seconds(server.pid)
            result["load_avg_1m"] = round(max(load_before, os.getloadavg()[0]), 1)
            # CPU per deal played: what the host's load does not change much (wall-clock figures do).
            deals = max(result["deals"], 1)
            if server_cpu is not None and server_cpu_before is not None:
                result["server_cpu_ms_per_deal"] = round((server_cpu - server_cpu_before) / deals * 1000, 2)
            client_cpu = time.process_time() - client_cpu_before
            result["client_cpu_ms_per_deal"] = round(client_cpu / deals * 1000, 2)
            health = await asyncio.to_thread(read_health, server_url + "health")
            result["server_p50_ms"] = health["requests"]["p50_ms"]
            result["server_p99_ms"] = health["requests"]["p99_ms"]
            floor = await echo_round_trips(echo_url, tables, min(args.seconds, 5.0), payload)
            result["echo_p50_ms"] = round(percentile(floor, 50) * 1000, 3)
            result["echo_p99_ms"] = round(percentile(floor, 99) * 1000, 3)
            result["p50_ratio"] = round(result["p50_ms"] / result["echo_p50_ms"], 1)
            result["p99_ratio"] = round(result["p99_ms"] / result["echo_p99_ms"], 1)
            print(json.dumps(result), flush=True)
            results.append(result)
    finally:
        stop_process(server)
        stop_process(echo)
        if not args.store.startswith("memory"):
            await cleanup_redis(args.store, prefix)
    return results


def markdown(results: list[dict[str, Any]], command: str) -> str:
    """The results as the `## Load (server)` section of docs/benchmarks.md."""
    lines = [
        "## Load (server)",
        "",
        "N concurrent tables, each one room with three server bots (bot delay 0) and one outside bot that",
        "plays seat 0 through `server.client.WhistClient` over a real websocket (msgpack), on Redis.",
        "Latency is from sending an `act` to receiving the `state` push that shows it. The echo floor is a",
        "bare `websockets` echo server, same number of connections, same run, payload the size of a",
        "state push.",
        "",
        f"Command: `{command}`",
        "",
        f"Machine: {platform.machine()}, {os.cpu_count()} logical CPUs shared with other work, "
        f"Python {platform.python_version()}; server, Redis and clients on the same host (loopback).",
        "",
        "| tables | deals/s | actions measured | p50 ms | p99 ms | echo p50 ms | echo p99 ms "
        "| p50 ratio | p99 ratio | in-server p50 / p99 ms | host load (1 min) |",
        "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for r in results:
        if "in_process" in r:
            continue
        lines.append(f"| {r['tables']} | {r['deals_per_s']} | {r['client_actions']} | {r['p50_ms']} | "
                     f"{r['p99_ms']} | {r['echo_p50_ms']} | {r['echo_p99_ms']} | {r['p50_ratio']} | "
                     f"{r['p99_ratio']} | {r['server_p50_ms']} / {r['server_p99_ms']} | {r['load_avg_1m']} |")
    cost = next((r["in_process"] for r in results if "in_process" in r), None)
    if cost is not None:
        lines += [
            "",
            f"Server work per action, in process (no network client; {cost['rooms']} bot-only rooms, "
            f"{cost['deals']} deals, {cost['actions']} actions, {cost['store']} store): "
            f"**{cost['us_per_action']} µs per action** (validate, apply, compare-and-set write, push).",
        ]
    lines += ["", *NOTES]
    return "\n".join(lines) + "\n"


NOTES = [
    "How to read it: every process of the run (server, Redis, the client process holding all the",
    "tables' connections, the echo server) shares the same CPUs, with other work running on the host",
    "(see the load column). The echo floor is measured right after each table count, with as many",
    "connections: when the host is busy the floor's own p99 is large, and the server's p99 is best read",
    "as its ratio to it. Bot moves are throttled to a few in flight at once over all tables",
    "(`BOT_SLOTS` in `server/rooms.py`), so a human's request never waits behind every table's bot moves;",
    "without that, p50 at 100 tables was about 10x higher. The outside bots ask for no `events`",
    "pushes (`hello` with `\"events\": false`), which halves the frames per move. The in-server column",
    "is the time from reading a request's frame to queueing its answer (over the server's last 5000",
    "requests, from `/health`): what is left of the end-to-end figure is waiting for a CPU, in the",
    "kernel and in the client process.",
    "",
    "Variance: while these figures were taken the host ran other engineers' test suites (load average",
    "4-7 on 2 CPUs). Across runs of the same code that day, the in-process cost ranged from about 300",
    "to 2200 µs per action, and p99 at 100 tables from about 100 to 500 ms, following the host load;",
    "p50 at 100 tables stayed at 5-15 ms. Rerun on a quiet machine before comparing with the goal",
    "(p99 under 50 ms at 100 tables).",
]


def write_section(path: Path, section: str) -> None:
    """Replace (or add) the `## Load (server)` section, leaving the other sections alone."""
    text = path.read_text() if path.exists() else "# Benchmarks\n"
    start = text.find("## Load (server)")
    if start == -1:
        text = text.rstrip("\n") + "\n\n" + section
    else:
        end = text.find("\n## ", start + 1)
        text = text[:start] + section + (text[end + 1:] if end != -1 else "")
    path.write_text(text)


def main() -> int:
    """Command line."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, nargs="+", default=[10, 100, 500])
    parser.add_argument("--seconds", type=float, default=20.0, help="measured time per table count")
    parser.add_argument("--store", default="redis://127.0.0.1:6379/0")
    parser.add_argument("--bot", default="random", help="the server bots' kind (default random)")
    parser.add_argument("--payload", type=int, default=1500, help="echo payload bytes")
    parser.add_argument("--write", type=Path, help="write the figures into this markdown file")
    args = parser.parse_args()
    # The load generator runs on uvloop too when it is installed: the less CPU it takes from the
    # host, the less it adds to the latencies it measures.
    try:
        import uvloop
    except ImportError:
        results = asyncio.run(main_async(args))
    else:
        results = uvloop.run(main_async(args))
    if args.write:
        command = "python bench/load.py " + " ".join(sys.argv[1:])
        write_section(args.write, markdown(results, command))
    return 0


if __name__ == "__main__":
    sys.exit(main())
