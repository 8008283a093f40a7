"""Human-paced load (`python -m bench.load --human ...`): N tables, each with four human clients that
think 0.5 to 2 s before each action and one spectator, through the load balancer.

    python -m bench.load --human --tables 20 --seconds 30 --replicas 1 --write docs/benchmarks.md
    python -m bench.load --human --tables 20 --seconds 30 --url ws://127.0.0.1:8765/ws
    python -m bench.load --human --tables 100 300 600 1000 --seconds 30 --replicas 1 --processes 2
    python -m bench.load --human --tables 100 --replicas 1 2 3 --placement spread affinity --together

`--placement affinity`: the connections name their room (`/ws?room=<id>`: the balancer keeps a table
on one replica); `spread` (the default): they do not, and the balancer spreads them. `--together`
starts the clusters of every `--replicas` count at once and measures them in turn.

With `--replicas K` it starts a cluster (`server.cluster.Cluster`: private Redis, K replicas, HAProxy)
and reads the replicas' pids from it; with `--url` it uses a running balancer or server and finds the
server pids by asking `/health` (only meaningful when the servers run on this host).

The tables are spread over `--processes` generator processes (default 2; each runs its tables on
uvloop with cheap clients driven by the states they receive), so that one Python process holding
thousands of connections is not what limits the run. Each table lives in one generator process, so
every latency is measured within one process. For every action (a call or a card) it measures the
time from sending `act` to the arrival of the first `state` push past the version the action was
chosen on (by `room.version`) at each of the table's five connections: the figure per view, and the
time until *every* seat and the spectator has it. The server CPU per action
is the CPU time of the server processes over the timed part (from /proc/<pid>/stat) divided by the
actions measured (it includes their `ready`s and new deals). The floor, measured in the same run:
a bare websockets server that relays each message to the five connections of its group, driven at
the same pace with as many groups.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import dataclasses
import gc
import itertools
import json
import multiprocessing
import os
import random
import statistics
import sys
import time
import urllib.request
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

import msgpack  # type: ignore[import-untyped]

from bench.fast_socket import FastSocket
from bench.helpers import (
    cpu_seconds,
    event_loop_runner,
    host_uptime,
    medians,
    percentile,
    python_module,
    start_process,
    stop_process,
    write_section,
)
from server.bots import get_bot
from server.client import JSON, ServerError, room_url
from server.fd_limits import raise_open_file_limit
from server.gc_policy import FullPasses

BOT = get_bot("random")
THINK = (0.5, 2.0)


class LightClient:
    """One connection of the generator, as cheap as can be: a picows socket (`bench.fast_socket`), msgpack
    frames, answers matched by id, every `state` handed at once to its table; no message history and
    no task per wait (one generator process holds thousands of these)."""

    def __init__(self, socket: FastSocket, table: HumanTable, slot: int) -> None:
        self.socket = socket
        self.table = table
        self.slot = slot  # 0-3: the seat; 4: the spectator
        self.ids = itertools.count(1)
        self.pending: dict[int, asyncio.Future[JSON]] = {}
        self.state: JSON | None = None
        self.busy = False  # thinking about, or waiting for the answer to, a move or a `ready`
        self.done_deal = -1  # the last deal this seat said `ready` after
        socket.on_message = self.received
        socket.on_lost = self.lost

    @classmethod
    async def connect(cls, url: str, table: HumanTable, slot: int, name: str) -> LightClient:
        """Connect (from the table's source address, if it has one) and say `hello` (msgpack, no
        `events` pushes)."""
        client = cls(await FastSocket.connect(url, table.handshake_timeout(), table.source), table, slot)
        await client.request("hello", name=name, events=False)
        return client

    def received(self, frame: bytes) -> None:
        """Note the frame's arrival time, then hand it over."""
        arrived = time.perf_counter()
        message = msgpack.unpackb(frame, raw=False)
        kind = message.get("type")
        if kind == "state":
            self.state = message
            self.table.on_state(self, message, arrived)
        elif kind in ("ok", "error"):
            future = self.pending.pop(message.get("id"), None)
            if future is not None and not future.done():
                future.set_result(message)

    def lost(self) -> None:
        """The connection is gone: its requests under way fail."""
        for future in self.pending.values():
            if not future.done():
                future.set_exception(ConnectionError("connection closed"))
        self.pending.clear()

    async def request(self, kind: str, **fields: Any) -> JSON:
        """Send a request; its answer (`ok` or `error`) as it came."""
        request_id = next(self.ids)
        future: asyncio.Future[JSON] = asyncio.get_running_loop().create_future()
        self.pending[request_id] = future
        self.socket.send(msgpack.packb({"type": kind, "id": request_id, **fields}, use_bin_type=True))
        return await asyncio.wait_for(future, 60)

    async def result(self, kind: str, **fields: Any) -> JSON:
        """Send a request; its `result`, or `ServerError`."""
        answer = await self.request(kind, **fields)
        if answer["type"] == "error":
            raise ServerError(answer["code"], answer["message"])
        result: JSON = answer["result"]
        return result

    async def close(self) -> None:
        """Close the connection."""
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.socket.close(), 10)


def my_turn(view: JSON | None) -> bool:
    """Whether a view asks its seat to act."""
    return bool(view and view["seat"] is not None and view["seat"] in view["to_act"] and view["legal"])


class Measurement:
    """One action on its way: when it was sent, and when each of the five connections first had a
    state past the version it was chosen on."""

    __slots__ = ("arrivals", "before", "started")

    def __init__(self, before: int, started: float) -> None:
        self.before = before
        self.started = started
        self.arrivals: list[float | None] = [None] * 5


class HumanTable:
    """Four human clients and a spectator of one room, driven by the states they receive: a seat
    asked to act (or to say `ready` after a deal) thinks 0.5-2 s (`think`; a timer), then sends it.
    `source`: the local address its connections come from (None: the default)."""

    def __init__(self, rng: random.Random, think: tuple[float, float] = THINK,
                 source: str | None = None) -> None:
        self.rng = rng
        self.think = think
        self.source = source
        self.open_deadline: float | None = None  # perf_counter time by which `open` gives up
        self.clients: list[LightClient] = []
        self.all_views: list[float] = []  # per action: until every seat and the spectator has it
        self.each_view: list[float] = []  # per action and connection
        self.actions = 0
        self.errors = 0
        self.measuring: list[Measurement] = []
        self.deadline = 0.0  # 0: not playing yet
        self.tasks: set[asyncio.Task[None]] = set()

    def handshake_timeout(self) -> float:
        """How long the next connection may take to open: what is left until the open deadline (the
        handshake's own timeout closes the half-open connection; cancelling it would leak it)."""
        if self.open_deadline is None:
            return 120.0
        return max(0.05, self.open_deadline - time.perf_counter())

    async def open(self, url: str, number: int, affinity: bool = False, timeout: float | None = None) -> None:
        """Create the room (seat 0), join seats 1-3, watch, start. `affinity`: the connections name
        the room (`?room=<id>`, as the web client does), and seat 0, which created the room before
        it had an id, reconnects with it (resumes with its token, then closes its first connection);
        otherwise the balancer spreads the five connections (leastconn). `timeout`: the seconds every
        handshake of the opening together may take (None: 120 s each)."""
        self.open_deadline = None if timeout is None else time.perf_counter() + timeout
        creator = await LightClient.connect(url, self, 0, f"h{number}s0")
        self.clients = [creator]
        created = await creator.result("create_room", ruleset="solo-whist", seat=0,
                                       session={"deals": 1000}, listed=False)
        room_id = created["room_id"]
        if affinity:
            url = room_url(url, room_id)
            seat0 = await LightClient.connect(url, self, 0, f"h{number}s0")
            self.clients = [seat0]
            await seat0.result("resume", room_id=room_id, token=created["token"])
            await creator.close()
        for seat in (1, 2, 3):
            self.clients.append(await LightClient.connect(url, self, seat, f"h{number}s{seat}"))
            await self.clients[seat].result("join", room_id=room_id, seat=seat)
        seats = self.clients
        spectator = await LightClient.connect(url, self, 4, f"h{number}w")
        self.clients.append(spectator)
        await spectator.result("watch", room_id=room_id)
        await seats[0].result("start")

    def play_until(self, deadline: float) -> None:
        """Start playing (every seat looks at its latest state) until `deadline` (perf_counter)."""
        self.deadline = deadline
        for client in self.clients[:4]:
            self.consider(client)

    def on_state(self, client: LightClient, message: JSON, arrived: float) -> None:
        """A state reached one connection: complete the measurements it answers, then let its seat
        think about a move."""
        version = message["room"]["version"]
        for measurement in self.measuring:
            if version > measurement.before and measurement.arrivals[client.slot] is None:
                measurement.arrivals[client.slot] = arrived
                if all(at is not None for at in measurement.arrivals):
                    self.finish(measurement)
        if client.slot < 4:
            self.consider(client)

    def finish(self, measurement: Measurement) -> None:
        """Every connection has the action: record it."""
        self.measuring.remove(measurement)
        latencies = [at - measurement.started for at in measurement.arrivals if at is not None]
        self.each_view.extend(latencies)
        self.all_views.append(max(latencies))
        self.actions += 1

    def consider(self, client: LightClient) -> None:
        """If the seat's latest state asks something of it, think (a timer) and then answer."""
        if client.busy or not self.deadline or time.perf_counter() >= self.deadline:
            return
        state = client.state
        if state is None or state["view"] is None:
            return
        view, room = state["view"], state["room"]
        if my_turn(view) or (view["phase"] == "end" and room["deal_number"] != client.done_deal):
            client.busy = True
            asyncio.get_running_loop().call_later(self.rng.uniform(*self.think), self.spawn, client)

    def spawn(self, client: LightClient) -> None:
        """The thinking is over: send the move in a task."""
        task = asyncio.get_running_loop().create_task(self.act(client))
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    async def act(self, client: LightClient) -> None:
        """Send the move (measured) or the `ready` the seat's latest state asks for."""
        try:
            state = client.state
            if state is None or time.perf_counter() >= self.deadline:
                return
            view, room = state["view"], state["room"]
            if view["phase"] == "end":
                if room["deal_number"] != client.done_deal:
                    client.done_deal = room["deal_number"]
                    await client.request("ready")
                return
            if not my_turn(view):
                return
            action = BOT.decide(view, f"human:{view['seat']}:{len(view['calls'])}:{len(view['tricks'])}", 5.0)
            measurement = Measurement(int(room["version"]), time.perf_counter())
            self.measuring.append(measurement)
            answer = await client.request("act", action=action)
            if answer["type"] == "error":
                self.errors += 1
                with contextlib.suppress(ValueError):
                    self.measuring.remove(measurement)
        except (ConnectionError, TimeoutError):
            self.errors += 1
        finally:
            client.busy = False
            # The answer comes after the state it caused: the latest state may already ask again.
            self.consider(client)

    async def close(self) -> None:
        """End the game and disconnect everyone."""
        with contextlib.suppress(Exception):
            await self.clients[0].request("end_game")
        for client in self.clients:
            await client.close()


# ------------------------------------------------------------------------------------------- the floor

class Relayed:
    """One floor message under way: each member notes its arrival (a callback, as the tables' clients
    do: no task and no queue per message); `everywhere` is the time the last of them had it."""

    def __init__(self, message: bytes, members: int) -> None:
        self.message = message
        self.waiting = members
        self.everywhere: asyncio.Future[float] = asyncio.get_running_loop().create_future()

    def arrived(self, message: bytes) -> None:
        """A member received `message`."""
        if message == self.message:
            self.waiting -= 1
            if self.waiting == 0 and not self.everywhere.done():
                self.everywhere.set_result(time.perf_counter())


async def relay_floor(url: str, groups: list[int], seconds: float, payload: int, rng: random.Random,
                      all_connected: Callable[[], Awaitable[Any]]) -> list[float]:
    """Groups of five connections (the same client as the tables'); one member at a time sends at
    human pace, the relay sends it to all five; the time until all five have it. Timed from when every
    group of every generator process is connected (`all_connected` returns then): the relay's
    handshakes for another process's groups were the floor's p99, hundreds of milliseconds."""
    samples: list[float] = []
    opening = asyncio.Semaphore(32)

    async def open_group(number: int) -> list[FastSocket]:
        async with opening:
            return [await FastSocket.connect(f"{url}g{number}") for _ in range(5)]

    async def group(members: list[FastSocket], deadline: float) -> None:
        while time.perf_counter() < deadline:
            await asyncio.sleep(rng.uniform(*THINK))  # one seat at a time thinks, then acts
            relayed = Relayed(os.urandom(payload), len(members))
            for member in members:
                member.on_message = relayed.arrived
            started = time.perf_counter()
            members[rng.randrange(4)].send(relayed.message)
            samples.append(await asyncio.wait_for(relayed.everywhere, 60) - started)

    opened = await asyncio.gather(*(open_group(number) for number in groups))
    await all_connected()
    deadline = time.perf_counter() + seconds
    try:
        await asyncio.gather(*(group(members, deadline) for members in opened))
    finally:
        # Closed once every group is done: the relay's closing handshakes of the groups that finished
        # first were the last messages' latency (p99 780 ms at 1,000 groups, every core idle).
        for members in opened:
            for member in members:
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(member.close(), 10)
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


@dataclass(frozen=True, slots=True)
class Pace:
    """How a generator process opens and plays its tables: each seat thinks `think` seconds (uniform);
    at most `open_rate` tables opened per second (0: as fast as 16 at a time go), each given
    `open_timeout` seconds before it counts as not opened; connections from `source` (None: the
    default address)."""

    think: tuple[float, float] = THINK
    open_rate: float = 0.0
    open_timeout: float = 120.0
    source: str | None = None


def generator_process(pipe: Connection, url: str, numbers: list[int], seed: int, affinity: bool,
                      pace: Pace = Pace()) -> None:
    """One load generator process (spawned): it raises its open-file limit, opens its tables, says
    so, plays when told, sends its figures, closes its tables, then drives its share of the floor's
    groups when told."""
    raise_open_file_limit()  # one descriptor per connection: thousands per process
    event_loop_runner()(generate(pipe, url, numbers, seed, affinity, pace))


async def next_order(pipe: Connection) -> Any:
    """The parent's next message, read in a thread: the loop meanwhile keeps answering the server's
    keepalive pings (a loop blocked in `recv` for 40 s had every connection closed, 1011)."""
    return await asyncio.get_running_loop().run_in_executor(None, pipe.recv)


async def generate(pipe: Connection, url: str, numbers: list[int], seed: int, affinity: bool,
                   pace: Pace = Pace()) -> None:
    """The body of `generator_process`."""
    rng = random.Random(seed)
    tables = [HumanTable(rng, pace.think, pace.source) for _ in numbers]
    opening = asyncio.Semaphore(16)  # tables opened at once (each opening is a few round trips)
    first = time.perf_counter()

    failed: list[str] = []

    async def open_one(table: HumanTable, number: int, index: int) -> HumanTable | None:
        if pace.open_rate > 0:  # a gradual ramp: table `index` no sooner than index / rate seconds in
            await asyncio.sleep(max(0.0, first + index / pace.open_rate - time.perf_counter()))
        async with opening:
            try:
                await table.open(url, number, affinity, pace.open_timeout)
            except Exception as failure:  # counted and left out (a busy host may time a handshake out)
                failed.append(f"{type(failure).__name__}: {failure}")
                await table.close()
                return None
        return table

    opened = await asyncio.gather(*(open_one(table, number, index)
                                    for index, (table, number) in enumerate(zip(tables, numbers,
                                                                                strict=True))))
    tables = [table for table in opened if table is not None]
    if not tables:
        pipe.send(("failed", f"no table opened: {failed[:3]}"))
        return
    pipe.send(("ready", len(tables)))
    _, seconds = await next_order(pipe)
    # This process's own pauses would count as the server's latency: its tables' objects are kept out
    # of the collector's full passes while it measures (as the server does: server/gc_policy.py).
    gc.freeze()
    full_passes = FullPasses()  # installed only: no full pass at all until the floor's figures are taken
    full_passes.install()
    cpu_before = time.process_time()
    started = time.perf_counter()
    for table in tables:
        table.play_until(started + seconds)
    await asyncio.sleep(seconds)
    # Moves sent just before the deadline: let their measurements complete (or give up on them).
    settle = time.perf_counter() + 10
    while any(table.measuring or table.tasks for table in tables) and time.perf_counter() < settle:
        await asyncio.sleep(0.05)
    client_cpu = time.process_time() - cpu_before
    pipe.send(("played", {
        "all_views": [value for table in tables for value in table.all_views],
        "each_view": [value for table in tables for value in table.each_view],
        "actions": sum(table.actions for table in tables),
        "errors": sum(table.errors for table in tables),
        "unfinished": sum(len(table.measuring) for table in tables),
        "not_opened": len(failed),
        "not_opened_why": dict(Counter(why[:120] for why in failed).most_common(3)),
        "connections_held": sum(not client.socket.closed.is_set()
                                for table in tables for client in table.clients),
        "client_cpu": client_cpu, "seconds": time.perf_counter() - started,
    }))
    await next_order(pipe)  # every process has sent its figures
    await asyncio.gather(*(table.close() for table in tables))
    pipe.send(("closed", None))
    _, relay_url, floor_seconds, payload = await next_order(pipe)
    floor: list[float] = []
    if relay_url:
        try:
            async def all_connected() -> Any:
                pipe.send(("floor_open", len(numbers)))
                return await next_order(pipe)

            floor = await relay_floor(relay_url, numbers, floor_seconds, payload, rng, all_connected)
        except Exception as failure:  # reported, not fatal: the tables' figures are already sent
            print(f"floor failed in a generator process: {type(failure).__name__}: {failure}",
                  file=sys.stderr)
    full_passes.uninstall()
    gc.unfreeze()
    pipe.send(("floor", floor))


def receive(pipes: list[Connection], expected: str) -> list[Any]:
    """One message of kind `expected` from every generator process (a failure stops the run)."""
    answers = []
    for pipe in pipes:
        kind, body = pipe.recv()
        if kind != expected:
            raise RuntimeError(f"a load generator process answered {kind}: {body}")
        answers.append(body)
    return answers


def process_usage(pid: int) -> dict[str, float | int | None]:
    """A process's resident memory (MB) and open descriptors now, from /proc (None where unreadable)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
        rss = next(int(line.split()[1]) for line in status.splitlines() if line.startswith("VmRSS:"))
        descriptors = len(os.listdir(f"/proc/{pid}/fd"))
    except (OSError, StopIteration, ValueError):
        return {"rss_mb": None, "fds": None}
    return {"rss_mb": round(rss / 1024, 1), "fds": descriptors}


SETTLED_SHARE = 0.25  # the server's CPU share, second by second, below which the opening is digested
SETTLE_LIMIT = 90.0


def settle(pids: list[int]) -> float:
    """Wait until the servers have digested the opening (thousands of joins leave them busy for
    seconds after every answer came back: measured so, the idle background and the first seconds of
    play were the opening's tail); seconds waited."""
    started = previous_at = time.perf_counter()
    previous = [cpu_seconds(pid) or 0.0 for pid in pids]
    quiet = 0
    while quiet < 2 and time.perf_counter() - started < SETTLE_LIMIT:
        time.sleep(1.0)
        now, current = time.perf_counter(), [cpu_seconds(pid) or 0.0 for pid in pids]
        busiest = max(after - before for before, after in zip(previous, current, strict=True))
        quiet = quiet + 1 if busiest / (now - previous_at) < SETTLED_SHARE else 0
        previous, previous_at = current, now
    return time.perf_counter() - started


def run(url: str, tables: int, seconds: float, pids: list[int], payload: int, seed: int,
        processes: int, floor_seconds: float = 15.0, idle_seconds: float = 5.0,
        placement: str = "spread", pace: Pace = Pace(), sources: int = 0,
        watch: dict[str, int] | None = None,
        while_held: Callable[[], dict[str, Any]] | None = None) -> dict[str, Any]:
    """Open the tables over `processes` generator processes, play for `seconds`, then measure the
    floor with as many groups. The server's CPU time is read here, around the timed part. `pace`:
    think time and opening ramp (`open_rate` over all processes); `sources`: generator process i
    connects from 127.0.0.(2 + i % sources) (0: the default address); `watch`: name -> pid of
    processes (the balancer, Redis, each replica) whose CPU share over the timed part, memory and
    open descriptors once it ends (every table still held) are reported under `processes`;
    `while_held` is called then too, its answer reported under `held`."""
    context = multiprocessing.get_context("spawn")
    shares = [list(range(tables))[index::processes] for index in range(processes)]
    shares = [share for share in shares if share]
    pipes, workers = [], []
    for index, share in enumerate(shares):
        here, there = context.Pipe()
        own = dataclasses.replace(pace, open_rate=pace.open_rate / len(shares),
                                  source=f"127.0.0.{2 + index % sources}" if sources else None)
        worker = context.Process(target=generator_process, args=(there, url, share, seed * 1000 + index,
                                                                     placement == "affinity", own),
                                 daemon=True)
        worker.start()
        pipes.append(here)
        workers.append(worker)
    try:
        opened = sum(receive(pipes, "ready"))
        settled = settle(pids)
        print(f"{time.strftime('%H:%M:%S')} {opened} of {tables} tables open, "
              f"server settled in {settled:.1f} s", file=sys.stderr, flush=True)
        # The server's background with every table open and nobody acting (lease renewals, presence
        # heartbeats...): it grows with the tables, not with the actions.
        idle_before = [cpu_seconds(pid) for pid in pids]
        time.sleep(idle_seconds)
        idle_after = [cpu_seconds(pid) for pid in pids]
        idle_cpu = sum(after - before for before, after in zip(idle_before, idle_after, strict=True)
                       if before is not None and after is not None)
        cpu_before = [cpu_seconds(pid) for pid in pids]
        watched_before = {name: cpu_seconds(pid) for name, pid in (watch or {}).items()}
        started = time.perf_counter()
        for pipe in pipes:
            pipe.send(("go", seconds))
        played = receive(pipes, "played")
        elapsed = time.perf_counter() - started
        cpu_after = [cpu_seconds(pid) for pid in pids]
        watched = {name: {"cpu_share": round(((cpu_seconds(pid) or 0.0) - (watched_before[name] or 0.0))
                                             / elapsed, 3), **process_usage(pid)}
                   for name, pid in (watch or {}).items()}
        held = while_held() if while_held is not None else {}
        load = os.getloadavg()[0]
        # The tables close only once every process has its figures: one process's closing storm must
        # not delay another's last measurements.
        for pipe in pipes:
            pipe.send(("close", None))
        receive(pipes, "closed")
        floor: list[float] = []
        if floor_seconds > 0:
            settle(pids)  # the servers finish closing the tables: not beside the floor
            relay, relay_url = start_process(python_module("bench.relay_server"), "relay listening on")
            try:
                for pipe in pipes:
                    pipe.send(("floor", relay_url, min(seconds, floor_seconds), payload))
                # Every process connects its groups, then all start together. One whose floor failed
                # answers with its (empty) figures at once.
                answers = [pipe.recv() for pipe in pipes]
                started_pipes = [pipe for pipe, (kind, _) in zip(pipes, answers, strict=True)
                                 if kind == "floor_open"]
                for pipe in started_pipes:
                    pipe.send(("go", None))
                floor = [value for kind, samples in answers if kind == "floor" for value in samples]
                floor += [value for samples in receive(started_pipes, "floor") for value in samples]
            finally:
                stop_process(relay)
        else:
            for pipe in pipes:
                pipe.send(("floor", "", 0, payload))
            receive(pipes, "floor")
    finally:
        for worker in workers:
            worker.join(30)
            if worker.is_alive():
                worker.kill()
    all_views = [value for part in played for value in part["all_views"]]
    each_view = [value for part in played for value in part["each_view"]]
    actions = sum(part["actions"] for part in played)
    client_cpu = sum(part["client_cpu"] for part in played)
    server_cpu = sum(after - before for before, after in zip(cpu_before, cpu_after, strict=True)
                     if before is not None and after is not None)

    def ms(values: list[float], share: float) -> float:
        return round(percentile(values, share) * 1000, 2)

    return {
        "tables": tables, "placement": placement, "connections": tables * 5, "seconds": round(elapsed, 1),
        "actions": actions,
        "actions_per_s": round(actions / elapsed, 1), "errors": sum(part["errors"] for part in played),
        "unfinished": sum(part["unfinished"] for part in played),
        "tables_not_opened": sum(part["not_opened"] for part in played),
        "not_opened_why": dict(sum((Counter(part["not_opened_why"]) for part in played), Counter())),
        "connections_held": sum(part["connections_held"] for part in played),
        "think_s": list(pace.think), "processes": watched, "held": held,
        "p50_all_ms": ms(all_views, 50), "p99_all_ms": ms(all_views, 99),
        "p50_view_ms": ms(each_view, 50), "p99_view_ms": ms(each_view, 99),
        "server_processes": len(pids), "generator_processes": len(pipes),
        "server_cpu_ms_per_action": round(server_cpu / max(actions, 1) * 1000, 3) if pids else None,
        "server_cpu_share": round(server_cpu / elapsed, 3) if pids else None,
        "server_idle_cpu_share": round(idle_cpu / idle_seconds, 3) if pids else None,
        "server_settle_seconds": round(settled, 1),
        "client_cpu_ms_per_action": round(client_cpu / max(actions, 1) * 1000, 3),
        "floor_samples": len(floor), "floor_p50_ms": ms(floor, 50), "floor_p99_ms": ms(floor, 99),
        "load_avg_1m": round(load, 1),
    }


def median_rows(results: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One row per replica count, table count and placement: the medians over its runs (each run's p99
    as `p99_each_run`), by replicas, then tables, spread before affinity."""
    grouped = medians(results, by=("server_processes", "tables", "placement"),
                      each_run={"p99_each_run": "p99_all_ms"})
    return sorted(grouped,
                  key=lambda row: (row["server_processes"], row["tables"], row["placement"] != "spread"))


def markdown(results: list[dict[str, Any]], command: str, uptime: str, replicas: int | None) -> str:
    """The `## Load (human-paced)` section of docs/benchmarks.md."""
    if not replicas:
        where = "the given URL"
    elif replicas == 1:
        where = "one server process behind HAProxy (`server.cluster`), private Redis"
    else:
        order = "all started at once, taking turns" if "--together" in command else "one after another"
        where = (f"clusters of 1 to {replicas} replicas, {order}, behind HAProxy "
                 "(`server.cluster`), private Redis each")
    lines = [
        "## Load (human-paced)",
        "",
        "N tables, each four human clients (msgpack, no `events` pushes) that think 0.5-2 s before each",
        "action and one spectator, all through the balancer, driven by several generator processes.",
        "*All seats*: from sending `act` until the state showing it has reached all five connections of",
        "the table; *per view*: each connection apart. Server CPU: the server processes' CPU time over the",
        "timed part per action measured (it includes the `ready`s and new deals); in brackets, its share",
        "in the seconds between the last table opened and the start of play (what the openings left to",
        "do, and the background: lease renewals, presence heartbeats, keepalive pings). The",
        "floor, same run: a bare websockets relay, one sender at a time per group of five, same pace,",
        "same number of groups, time until all five have the message (no balancer in its path).",
        "",
        f"Command: `{command}` ({where}; host at the start: `{uptime}`)",
        "",
        "Medians over the runs (each run measures every table count in turn):",
        "",
        "| tables | placement | connections | replicas | runs | actions | actions/s | p50 all seats ms "
        "| p99 all seats ms | p99 of each run | p50 / p99 per view ms | floor p50 / p99 ms "
        "| server CPU ms/action | server CPU share (before play) | generator CPU ms/action (processes) "
        "| errors | load (1 min) |",
        "| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | ---: | ---: | ---: | ---: "
        "| ---: | ---: |",
    ]
    for r in results:
        lines.append(
            f"| {r['tables']} | {r.get('placement', 'spread')} | {r['connections']} "
            f"| {r['server_processes']} | {r['runs']} | {r['actions']} "
            f"| {r['actions_per_s']} | {r['p50_all_ms']} | {r['p99_all_ms']} "
            f"| {', '.join(map(str, r['p99_each_run']))} "
            f"| {r['p50_view_ms']} / {r['p99_view_ms']} | {r['floor_p50_ms']} / {r['floor_p99_ms']} "
            f"| {r['server_cpu_ms_per_action']} | {r['server_cpu_share']} ({r['server_idle_cpu_share']}) "
            f"| {r['client_cpu_ms_per_action']} ({r['generator_processes']}) "
            f"| {r['errors']} | {r['load_avg_1m']} |")
    unopened = [f"{r['tables_not_opened']} of {r['tables']} ({r.get('placement', 'spread')}, "
                f"{r['server_processes']} replicas)" for r in results if r.get("tables_not_opened")]
    if unopened:  # counted, not waited for: each was given its open timeout, then left out
        lines += ["", "Tables that could not be opened (left out of the figures; median over the runs): "
                  + "; ".join(unopened) + "."]
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
    parser = argparse.ArgumentParser(prog="python -m bench.load --human",
                                     description=__doc__.split("\n\n")[0])
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
    parser.add_argument("--floor-seconds", type=float, default=15.0,
                        help="how long the floor is measured after each table count (0: not measured)")
    parser.add_argument("--idle-seconds", type=float, default=5.0,
                        help="how long the server's CPU is read with every table open, before play starts")
    parser.add_argument("--processes", type=int, default=2,
                        help="load generator processes the tables are spread over (default 2)")
    args = parser.parse_args(argv)
    uptime = host_uptime()
    results = []
    # Each run measures every table count in turn, so a change in the host's load touches them alike.
    counts = [(tables, placement) for _ in range(args.runs) for tables in args.tables
              for placement in args.placement]
    if args.url:
        pids = server_pids_from_health(args.url)
        for number, (tables, placement) in enumerate(counts):
            results.append(run(args.url, tables, args.seconds, pids, args.payload, args.seed + number,
                               args.processes, args.floor_seconds, args.idle_seconds, placement))
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
                        results.append(run(cluster.ws_url, tables, args.seconds, pids, args.payload,
                                           args.seed + number, args.processes, args.floor_seconds,
                                           args.idle_seconds, placement))
                        print(json.dumps(results[-1]), flush=True)
        for replicas in [] if args.together else args.replicas:
            with Cluster(replicas, server_args=server_args) as cluster:
                pids = sorted(cluster.server_pids().values())
                for number, (tables, placement) in enumerate(counts):
                    results.append(run(cluster.ws_url, tables, args.seconds, pids, args.payload,
                                       args.seed + number, args.processes, args.floor_seconds,
                                       args.idle_seconds, placement))
                    print(json.dumps(results[-1]), flush=True)
    if args.write:
        command = "python -m bench.load " + " ".join(argv)
        write_section(args.write, markdown(median_rows(results), command, uptime,
                                           None if args.url else max(args.replicas)),
                      "## Load (human-paced)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
