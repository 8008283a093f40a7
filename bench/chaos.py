"""Chaos: `python -m server.cluster --redis sentinel` (or `--redis cluster`: a Redis Cluster, one
shard's primary killed) with three server replicas, human-paced
tables through the balancer and bots-only tables watched by a spectator, while server replicas are
SIGKILLed and started again, the Redis primary is SIGKILLed once and one server replica is cut off
for a while; then a history check over everything every client was told.

    python -m bench.chaos --minutes 10 --write docs/scaling.md
    python -m bench.chaos --minutes 1.5 --tables 12 --kill-every 20      # a short look

The faults, one at a time, on a schedule (`fault_schedule`): every `--kill-every` seconds a random server
replica is SIGKILLed and started again with the command line the launcher's `--describe` file gives it
(`argv`, `cwd`; the launcher has no restart of its own on the command line), waiting until it answers
`/health` as the new process and the balancer counts it up; half-way between two of those kills, once,
the Redis primary the sentinels name (`SENTINEL get-master-addr-by-name`) is SIGKILLed, and once the
sentinels named another one it is started again with its own command line (it rejoins as a replica);
half-way between two later kills one server replica is cut off for `--cut-seconds` (10) seconds.
A fault starts on its time, or 5 s after the previous one is over if that is later; nothing starts in
the last `--quiet-end` (30) seconds, and on a slow day the run goes on past `--minutes` until every
fault is over and the tables played 15 s more.

The cut (`--cut net`, where `ip netns` works): this host has no iptables or nft, and every process
runs as root on loopback, so no firewall rule could single out one process's Redis traffic. Instead the
replica to be cut is started again, before the tables open, in a network namespace of its own whose
loopback has only relays of the Redis and sentinel ports (`bench/net_cut.py`; the balancer reaches it on
its Unix socket). The cut stops the relays both ways without closing anything, as a dropped link does,
and the heal lets through late what waited (a command sent before the cut reaches Redis after it). The
cut-off process keeps running: it must count its leases as lost (a lease is held only until 3 s after
the last renewal Redis confirmed), others take the rooms they want (and adopt its bots-only rooms), it
must not overwrite what the new owners wrote (the compare-and-set on the version), and once healed it
must answer `/health` `ok` and take its place behind the balancer again. `--cut stop` (the fallback
where no namespace can be made) SIGSTOPs the replica instead: harsher (its clients and the balancer's
checks are cut off too) and it shows nothing of what a running process does while Redis is away.

Half the human tables name their room (`/ws?room=<id>`: the balancer keeps their players on the replica
the room hashes to), half do not (their players spread over the replicas); half the bots-only tables
are created through a balancer URL that reaches the replica to be cut (`steering_url`), so it owns them
when the cut comes.

The clients (`ChaosPlayer`, on `bench.cluster_players.Player`): each human player has a client address
of its own (127.1.x.y: the servers limit connections and rooms per address), thinks `--think` seconds
before each action, reconnects through the balancer after a drop (or a request unanswered for 10 s)
and `resume`s its seat with its token, and retries after `store_unavailable`. Every frame received is
kept with its arrival time.

The history check (`check_history`), once the clients stopped, against the rooms' records read from
the store (the primary the sentinels name then: the finished deals, and the deal in progress):

- every move answered `ok` is in its deal's record, as often as it was answered and in the order of
  its seat's moves;
- a move in a record at a human seat that was not answered `ok` must be one in flight when its answer
  was lost (its connection dropped, no answer within 10 s, or `store_unavailable`, which may mean "not
  known to be durable" rather than "not applied": docs/protocol.md): counted and reported; any other
  is a violation;
- no card is recorded twice in a deal;
- no table waited more than 15 s: the longest time between two state changes (a new room version, as
  any of its clients first saw it), until the end of the run;
- no frame named a card the recipient was not allowed to see (`bench.leak_check.hidden_card_leaks`).
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import contextlib
import functools
import itertools
import json
import os
import random
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import redis.asyncio
from websockets.asyncio.client import connect
from websockets.exceptions import WebSocketException

from bench import net_cut
from bench.cluster_players import (
    RETRYABLE,
    Player,
    cluster_primary_port,
    is_subsequence,
    sentinel_primary_port,
)
from bench.helpers import ROOT, host_uptime, percentile, python_module, write_section
from bench.leak_check import DealKey, hidden_card_leaks
from bench.net_cut import NetCut
from server.client import ServerError, WhistClient, room_url
from server.cluster.processes import spawn
from server.rules import ruleset_names
from server.store.connect import parse_redis_url, redis_client
from server.store.keys import Keys
from server.store.redis import RedisStore
from server.table import from_stored
from server.table.state import deal_records

JSON = dict[str, Any]
# A session no run plays out (the rulesets' own targets would end some within minutes); no turn clock,
# and a disconnected player's seat waits 10 minutes for them before a bot plays it.
SESSION = {"deals": 1000, "target": 100000}
Move = tuple[int, int, str]  # (deal number, seat, action)
MAX_PAUSE = 15.0  # seconds a table may wait between two state changes
FAULT_WINDOW = 15.0  # the latency "around a fault": this many seconds either side of its start
AFTER_FAULTS = 15.0  # seconds the tables play on after the last fault, at least, before the run ends
OVERTIME = 300.0  # seconds past the run's end the faults may take before the run gives up on them
SETTLE = 5.0  # seconds between the end of one fault and the start of the next, at least
REQUEST_TIMEOUT = 10.0  # an answer not back by then: the connection is taken for dead


# ------------------------------------------------------------------------------------------ clients


class ChaosClient(WhistClient):
    """A connection from a client address of its own (`local_addr`)."""

    @classmethod
    async def open(cls, url: str, name: str, address: str) -> ChaosClient:
        """Connect from `address` and send `hello`."""
        websocket = await connect(url, max_size=8 * 1024 * 1024, open_timeout=REQUEST_TIMEOUT,
                                  local_addr=(address, 0))
        client = cls(websocket)
        hello = await client.request("hello", timeout=REQUEST_TIMEOUT, name=name)
        client.replica = str(hello.get("replica"))
        return client

    replica = "?"  # the server replica that answered `hello`


class ChaosPlayer(Player):
    """A human-paced seat (or a spectator, `seat` None) that keeps playing through every fault."""

    def __init__(self, name: str, url: str, address: str, seed: int, think: tuple[float, float]) -> None:
        super().__init__(name, url, url, seed)
        self.address = address
        self.think = think
        self.uncertain: list[Move] = []  # moves whose answer was lost, or `store_unavailable`
        self.latencies: list[tuple[float, float]] = []  # (sent at, seconds to `ok`), perf_counter
        self.errors: list[str] = []  # anything unexpected (reported; the checks decide)
        self.arrivals: list[list[float]] = []  # beside `frames`: each frame's arrival (perf_counter)
        self.connections: list[tuple[float, str]] = []  # (opened at, the replica that answered hello)

    async def connect(self) -> WhistClient:
        """A new connection through the balancer; the old one (if any) is closed in the background."""
        old = self.client
        client = await ChaosClient.open(self.url, self.name, self.address)
        self.client = client
        self.frames.append(client.received)
        self.arrivals.append(client.received_at)
        self.connections.append((time.perf_counter(), getattr(client, "replica", "?")))
        if old is not None:
            asyncio.get_running_loop().create_task(_close_quietly(old))
        return client

    async def run(self, stopping: asyncio.Event) -> None:
        """Play until `stopping` is set, whatever happens (an unexpected refusal is noted, not fatal)."""
        while not stopping.is_set():
            try:
                await self.play(until=lambda _: stopping.is_set(), timeout=10 ** 6)
                if not stopping.is_set():  # the session is over: nothing more to play (not expected)
                    self.errors.append("the session ended")
                    await stopping.wait()
            except ServerError as problem:
                self.errors.append(f"{problem.code}: {problem}")
                await asyncio.sleep(1.0)
            except (ConnectionError, OSError, WebSocketException) as problem:  # the reconnection gave up
                self.errors.append(f"reconnect: {problem!r}")
                await asyncio.sleep(1.0)
                with contextlib.suppress(ConnectionError, OSError, WebSocketException, ServerError):
                    await self.reconnect()

    async def close(self) -> None:
        """Close the connection (without waiting long for a server that does not answer)."""
        if self.client is not None:
            await _close_quietly(self.client)

    async def _step(self, client: WhistClient) -> None:
        view, room = client.view, client.room
        if view is None or room is None or self.seat is None:
            await self._wait_change(client)
            return
        if view["phase"] == "end":
            if not room["seats"][self.seat]["ready"]:
                with contextlib.suppress(ServerError):
                    await client.request("ready", timeout=REQUEST_TIMEOUT)
            await self._wait_change(client)
            return
        if not client.my_turn():
            await self._wait_change(client)
            return
        await asyncio.sleep(self.random.uniform(*self.think))
        if client.view is not view:
            return  # something changed while thinking: look again
        legal = list(view["legal"])
        action = "pass" if "pass" in legal and self.random.random() < 0.5 else self.random.choice(legal)
        move = (int(room["deal_number"]), self.seat, action)
        sent = time.perf_counter()
        try:
            await client.request("act", timeout=REQUEST_TIMEOUT, action=action)
        except ServerError as problem:
            self.refused.append(problem.code)
            if problem.code not in RETRYABLE:
                raise
            if problem.code == "store_unavailable":
                self.uncertain.append(move)  # "not known to be durable" is not "not applied"
            if problem.code in ("store_unavailable", "rate_limited"):
                await asyncio.sleep(0.5)
                return
        except BaseException:
            self.uncertain.append(move)  # in flight when the connection died (or the run stopped)
            raise
        else:
            self.accepted.append(move)
            self.latencies.append((sent, time.perf_counter() - sent))
        await self._wait_change(client, view)


async def _close_quietly(client: WhistClient) -> None:
    with contextlib.suppress(Exception):
        await asyncio.wait_for(client.close(), 15)


@dataclass
class Table:
    """One room and its clients."""

    number: int
    room_id: str
    ruleset: str
    players: list[ChaosPlayer]  # four seats, or one spectator (a bots-only table)
    bots_only: bool
    affinity: bool = False


def address(table: int, slot: int) -> str:
    """The client address of one player (slot 0-3: the seats, 4: the spectator, 5: the host)."""
    return f"127.{1 + table // 256}.{table % 256}.{slot + 1}"


async def open_table(ws_url: str, number: int, ruleset: str, bots_only: bool, seed: int,
                     think: tuple[float, float], affinity: bool = False,
                     host_url: str | None = None) -> Table:
    """A started room through the balancer: four humans, or bots only with a spectator. `affinity`: the
    players' connections name the room (`/ws?room=<id>`: the balancer keeps them on the replica the room
    hashes to); `host_url`: where the host creates it (the room's first owner is the replica it reaches)."""
    host = await ChaosClient.open(host_url or ws_url, f"Host{number}", address(number, 5))
    try:
        room = await host.create_room(ruleset, seat=None, session=SESSION, bot="random", grace_seconds=600,
                                      listed=False, turn_seconds=0)
        room_id = str(room["room_id"])
        url = room_url(ws_url, room_id) if affinity else ws_url
        players = []
        if bots_only:
            await host.start()
            spectator = ChaosPlayer(f"W{number}", url, address(number, 4), seed, think)
            await spectator.watch(room_id)
            players.append(spectator)
        else:
            for seat in range(4):
                player = ChaosPlayer(f"T{number}S{seat}", url, address(number, seat), seed * 10 + seat,
                                     think)
                await player.take_seat(room_id, seat)
                players.append(player)
            await host.start()
    finally:
        await _close_quietly(host)
    return Table(number, room_id, ruleset, players, bots_only, affinity)


# ------------------------------------------------------------------------------------------ the cluster


class Launched:
    """`python -m server.cluster --redis sentinel` as its `--describe` file tells it, and the processes
    this script started again in place of the ones it killed."""

    def __init__(self, process: subprocess.Popen[bytes], described: JSON) -> None:
        self.process = process
        self.described = described
        self.servers = {str(entry["replica"]): dict(entry) for entry in self.of_role("server")}
        self.redis_nodes = {int(entry["port"]): dict(entry) for entry in self.of_role("redis")}
        self.started: list[subprocess.Popen[bytes]] = []  # ours: stopped at the end
        self.net: NetCut | None = None  # the network namespace of `net_replica`, with its relays
        self.net_replica: str | None = None

    @property
    def ws_url(self) -> str:
        return str(self.described["url"]).replace("http://", "ws://") + "ws"

    @property
    def store(self) -> str:
        return str(self.described["store"])

    def of_role(self, role: str) -> list[JSON]:
        return [entry for entry in self.described["processes"] if entry["role"] == role]

    @property
    def topology(self) -> str:
        """`sentinel` or `cluster` (a Redis Cluster: `--redis cluster`)."""
        return str(self.described.get("redis", "sentinel"))

    async def primary_port(self, shard: int = 0) -> int | None:
        """The primary's port as the first sentinel that answers names it (on a Redis Cluster: the
        primary of `shard` now, as the nodes say)."""
        if self.topology == "cluster":
            return await cluster_primary_port(self.described, shard)
        return await sentinel_primary_port(self.described)

    def balancer_status(self) -> dict[str, str]:
        """replica id -> HAProxy's status of it (its stats socket, in the launcher's log directory)."""
        with socket.socket(socket.AF_UNIX) as connection:
            connection.settimeout(3)
            connection.connect(str(Path(self.described["logs"]) / "haproxy.sock"))
            connection.sendall(b"show stat\n")
            data = b""
            while chunk := connection.recv(65536):
                data += chunk
        status = {}
        for line in data.decode().splitlines():
            fields = line.split(",")
            if len(fields) > 17 and fields[0] == "replicas" and fields[1] not in ("BACKEND", "FRONTEND"):
                status[fields[1]] = fields[17]
        return status

    def start_server(self, replica: str) -> subprocess.Popen[bytes]:
        """Start a server replica again with its command line (from the main thread: the child gets
        SIGKILL when the thread that started it ends)."""
        entry = self.servers[replica]
        if self.net is not None and replica == self.net_replica:
            with Path(entry["log"]).open("ab") as log:
                process = subprocess.Popen(list(entry["argv"]), stdin=subprocess.DEVNULL, stdout=log,
                                           stderr=subprocess.STDOUT, cwd=entry["cwd"],
                                           preexec_fn=self.net.preexec())
        else:
            process = spawn(list(entry["argv"]), Path(entry["log"]), cwd=Path(entry["cwd"]))
        entry["pid"], entry["popen"] = process.pid, process
        self.started.append(process)
        return process

    def health(self, replica: str) -> tuple[int, JSON]:
        """A server replica's /health, asked on its Unix socket (the balancer's way in: it reaches a
        replica in a network namespace too)."""
        argv = list(self.servers[replica]["argv"])
        with socket.socket(socket.AF_UNIX) as connection:
            connection.settimeout(3)
            connection.connect(argv[argv.index("--unix") + 1])
            connection.sendall(b"GET /health HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
            data = b""
            while chunk := connection.recv(65536):
                data += chunk
                head, _, body = data.partition(b"\r\n\r\n")
                if body.endswith(b"}"):
                    break
        head, _, body = data.partition(b"\r\n\r\n")
        return int(head.split()[1]), json.loads(body) if body.startswith(b"{") else {}

    def start_redis(self, port: int) -> subprocess.Popen[bytes]:
        """Start a Redis node again with its command line (its configuration: the sentinels rewrote it)."""
        entry = self.redis_nodes[port]
        process = spawn(list(entry["argv"]), Path(entry["log"]))
        entry["pid"] = process.pid
        self.started.append(process)
        return process

    def stop(self) -> None:
        """Our processes first (the launcher does not know them), then the launcher and its own."""
        for process in self.started:
            if process.poll() is None:
                process.terminate()
        for process in self.started:
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(30)
            if process.poll() is None:
                process.kill()
                process.wait(5)
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(90)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(10)


def launch(directory: Path, replicas: int = 3, redis_replicas: int = 2, timeout: float = 300,
           log_level: str = "warning", redis: str = "sentinel") -> Launched:
    """Start the launcher (logs kept in `directory`) and wait for its description (`redis`: `sentinel`,
    or `cluster`: a Redis Cluster of three primaries with a replica each)."""
    directory.mkdir(parents=True, exist_ok=True)
    describe = directory / "describe.json"
    describe.unlink(missing_ok=True)
    with (directory / "launcher.log").open("ab") as output:
        process = subprocess.Popen(
            python_module("server.cluster", "--redis", redis,
                          *(["--redis-replicas", str(redis_replicas)] if redis == "sentinel" else []),
                          "--replicas", str(replicas), "--port", "0", "--describe", str(describe),
                          "--logs", str(directory / "logs"), "--log-level", log_level),
            cwd=ROOT, stdout=output, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + timeout
    while not describe.exists():
        if process.poll() is not None or time.monotonic() > deadline:
            process.kill()
            raise RuntimeError(f"the cluster did not start: see {directory / 'launcher.log'}")
        time.sleep(0.2)
    return Launched(process, json.loads(describe.read_text()))


async def wait_for(check: Callable[[], Any], timeout: float, what: str, every: float = 0.2) -> Any:
    """Await `check()` (a coroutine function or a plain one) until it is true; TimeoutError."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            result = check()
            if asyncio.iscoroutine(result):
                result = await result
        except Exception:
            result = None
        if result:
            return result
        if time.monotonic() > deadline:
            raise TimeoutError(f"{what}: not after {timeout} s")
        await asyncio.sleep(every)


# ------------------------------------------------------------------------------------------ the faults


@dataclass
class Fault:
    """One fault as it happened (times: perf_counter)."""

    kind: str  # "server_kill", "redis_primary_kill", "cut"
    target: str
    started: float
    recovered: float | None = None  # back in place (ready again; a new primary named; running again)
    notes: JSON = field(default_factory=dict)


def fault_schedule(seconds: float, kill_every: float, quiet_end: float) -> list[tuple[float, str]]:
    """(seconds from the start, kind): a server kill every `kill_every` s; the Redis primary kill
    half-way after the kill of the first third, the cut half-way after the kill of the second third;
    nothing in the last `quiet_end` s (the tables must be seen playing on)."""
    kills = [kill_every * n for n in range(1, int((seconds - quiet_end) // kill_every) + 1)]
    if not kills:
        raise ValueError("the run is too short for a kill before its quiet end")
    schedule = [(at, "server_kill") for at in kills]
    schedule.append((kills[(len(kills) - 1) // 3] + kill_every / 2, "redis_primary_kill"))
    schedule.append((kills[(2 * len(kills) - 1) // 3] + kill_every / 2, "cut"))
    return sorted(item for item in schedule if item[0] <= seconds - quiet_end)


async def server_back(launched: Launched, replica: str, pid: int, timeout: float = 120) -> None:
    """Wait until the replica's /health names `pid` and says `ok`, and the balancer counts it up."""
    def answers() -> bool:
        status, report = launched.health(replica)
        return status == 200 and report.get("pid") == pid and report.get("status") == "ok"

    await wait_for(lambda: asyncio.to_thread(answers), timeout, f"{replica} answers /health")
    def balanced() -> bool:
        return launched.balancer_status().get(replica, "").startswith("UP")

    await wait_for(lambda: asyncio.to_thread(balanced), timeout, f"the balancer counts {replica} up")


def steering_url(launched: Launched, replica: str) -> str:
    """A balancer URL that reaches `replica`: `/ws?room=<key>` with a made-up key that hashes to it (the
    balancer's `/health?room=<key>` answers from the replica it hashes to)."""
    base = str(launched.described["url"])
    for number in range(10_000):
        key = f"steer{number}"
        with urllib.request.urlopen(f"{base}health?room={key}", timeout=10) as response:
            if json.loads(response.read()).get("replica") == replica:
                return room_url(launched.ws_url, key)
    raise RuntimeError(f"no room key hashes to {replica}")


async def into_namespace(launched: Launched, replica: str, timeout: float = 120) -> None:
    """Make the network namespace with relays of every Redis and sentinel port, and start `replica`
    again in it (SIGTERM first: a clean stop, as a deploy would)."""
    ports = [int(entry["port"]) for entry in launched.of_role("redis") + launched.of_role("sentinel")]
    launched.net = NetCut(f"whist-chaos-{os.getpid()}", ports)
    launched.net_replica = replica
    await launched.net.start()
    pid = int(launched.servers[replica]["pid"])
    os.kill(pid, signal.SIGTERM)
    await wait_for(lambda: not _pid_running(pid), 60, f"{replica} stopped")
    process = launched.start_server(replica)
    await server_back(launched, replica, process.pid, timeout)


async def owners(store_url: str, room_ids: Iterable[str]) -> dict[str, str | None]:
    """room id -> the process id holding its lease."""
    address = parse_redis_url(store_url)
    client = redis_client(address, decode_responses=True, max_connections=2, pool_timeout=10)
    keys = Keys(address.prefix)
    try:
        return {room_id: _text(await client.get(keys.room_owner(room_id))) for room_id in room_ids}
    finally:
        await client.aclose()


def _text(value: Any) -> str | None:
    return value.decode() if isinstance(value, bytes) else None if value is None else str(value)


class Chaos:
    """Runs the faults against a launched cluster."""

    def __init__(self, launched: Launched, rooms: list[str], rng: random.Random, cut_seconds: float) -> None:
        self.launched = launched
        self.rooms = rooms
        self.rng = rng
        self.cut_seconds = cut_seconds
        self.faults: list[Fault] = []
        self.shard = 0  # the Redis Cluster shard whose primary is killed
        self.problems: list[str] = []
        self.background: list[asyncio.Task[None]] = []

    async def run(self, schedule: Sequence[tuple[float, str]], began: float) -> None:
        """Each fault at its time (or once the previous one is over, if later)."""
        for at, kind in schedule:
            # On its time, and never sooner than `SETTLE` s after the previous fault was over.
            last = max((fault.recovered or fault.started for fault in self.faults), default=0.0)
            now = time.perf_counter()
            await asyncio.sleep(max(0.0, began + at - now, last + SETTLE - now))
            progress(f"{time.perf_counter() - began:.0f} s: {kind}")
            try:
                await {"server_kill": self.kill_server, "redis_primary_kill": self.kill_primary,
                       "cut": self.cut}[kind]()
            except Exception as problem:
                self.problems.append(f"{kind}: {problem!r}")
                progress(f"{kind} failed: {problem!r}")

    async def _server_back(self, replica: str, pid: int, timeout: float = 120) -> None:
        await server_back(self.launched, replica, pid, timeout)

    async def kill_server(self) -> None:
        """SIGKILL a random server replica, start it again as the launcher did."""
        replica = self.rng.choice(sorted(self.launched.servers))
        entry = self.launched.servers[replica]
        fault = Fault("server_kill", replica, time.perf_counter())
        self.faults.append(fault)
        os.kill(int(entry["pid"]), signal.SIGKILL)
        popen = entry.get("popen")
        if popen is not None:
            await asyncio.to_thread(popen.wait)
        else:  # the launcher's child: it reaps it; wait until it no longer answers
            await wait_for(lambda: not _pid_running(int(entry["pid"])), 30, f"{replica} gone")
        process = self.launched.start_server(replica)
        await self._server_back(replica, process.pid)
        fault.recovered = time.perf_counter()

    async def kill_primary(self) -> None:
        """SIGKILL the primary the sentinels name (on a Redis Cluster: a random shard's primary); once
        they name another, start it again (a replica)."""
        self.shard = self.rng.randrange(3) if self.launched.topology == "cluster" else 0
        port = await self.launched.primary_port(self.shard)
        if port is None:
            raise RuntimeError("no sentinel names a primary")
        entry = self.launched.redis_nodes[port]
        fault = Fault("redis_primary_kill", f"redis:{port}", time.perf_counter())
        if self.launched.topology == "cluster":
            fault.notes["shard"] = self.shard
        self.faults.append(fault)
        os.kill(int(entry["pid"]), signal.SIGKILL)
        new = await wait_for(lambda: self._new_primary(port), 120, "the sentinels name a new primary")
        fault.recovered = time.perf_counter()
        fault.notes["new_primary"] = new
        await wait_for(lambda: not _pid_running(int(entry["pid"])), 30, "the old primary gone")
        self.launched.start_redis(port)
        # Its rejoining (a full resync) goes on beside the next faults; the run waits for it at the end.
        self.background.append(asyncio.create_task(self._rejoined(fault, port, new)))

    async def _rejoined(self, fault: Fault, port: int, primary: int) -> None:
        try:
            await wait_for(lambda: self._replica_of(port, primary), 120, "the old primary is a replica again")
        except TimeoutError as problem:
            self.problems.append(f"redis_primary_kill: {problem}")
            return
        fault.notes["rejoined_after_s"] = round(time.perf_counter() - fault.started, 1)

    async def _new_primary(self, old: int) -> int | None:
        port = await self.launched.primary_port(self.shard)
        return port if port not in (None, old) else None

    @staticmethod
    async def _replica_of(port: int, primary: int) -> bool:
        client = redis.asyncio.Redis(port=port, socket_timeout=3, decode_responses=True)
        try:
            info = await client.info("replication")
        finally:
            await client.aclose()
        return bool(info.get("role") == "slave" and int(info.get("master_port", 0)) == primary
                    and info.get("master_link_status") == "up")

    async def cut(self) -> None:
        """Cut a server replica off from Redis for `cut_seconds` (the one in the network namespace; without
        one, a random replica SIGSTOPped, then SIGCONT): its leases must have gone to others (or lapsed),
        and it must take its place again."""
        net = self.launched.net
        replica = self.launched.net_replica or self.rng.choice(sorted(self.launched.servers))
        entry = self.launched.servers[replica]
        pid = int(entry["pid"])
        log = Path(entry["log"])
        logged = log.stat().st_size
        before = await owners(self.launched.store, self.rooms)
        held = {room for room, owner in before.items() if owner and owner.split(":", 1)[0] == replica}
        by_replica = collections.Counter(owner.split(":", 1)[0] if owner else "none"
                                         for owner in before.values())
        fault = Fault("cut", replica, time.perf_counter(),
                      notes={"how": "network" if net is not None else "SIGSTOP", "leases_held": len(held),
                             "owners_before": dict(sorted(by_replica.items()))})
        self.faults.append(fault)
        if net is not None:
            net.cut()
        else:
            os.kill(pid, signal.SIGSTOP)
        try:
            await asyncio.sleep(self.cut_seconds)
            during = await owners(self.launched.store, held)
        finally:
            if net is not None:
                net.heal()
            else:
                os.kill(pid, signal.SIGCONT)
        kept = sorted(room for room in held if during.get(room) == before[room])
        fault.notes["leases_kept_while_cut"] = len(kept)
        fault.notes["leases_moved"] = sum(1 for room in held if during.get(room) not in (None, before[room]))
        if kept:
            self.problems.append(f"cut {replica}: still held {len(kept)} leases after {self.cut_seconds} s")
        await self._server_back(replica, pid)
        fault.recovered = time.perf_counter()
        with log.open("rb") as text:
            text.seek(logged)
            fault.notes["leases_lost_logged"] = text.read().count(b"room lease lost")


def _pid_running(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] not in ("Z", "X")


# ------------------------------------------------------------------------------------------ the check


async def stored_records(store_url: str, room_id: str) -> tuple[list[JSON], JSON]:
    """The room's deal records from the store: every finished deal, then the deal in progress; and what
    the stored room is at (its version, who is to act: for the report of a table that waited)."""
    store = RedisStore(store_url)
    try:
        stored = await store.load(room_id)
        if stored is None:
            raise RuntimeError(f"room {room_id} is not in the store")
        table = from_stored(stored.state, stored.version, await store.read_log(room_id))
    finally:
        await store.close()
    records = deal_records(table.session, table.hints)
    at: JSON = {"version": stored.version, "ended": table.ended}
    if table.session is not None:
        deal = table.session.deal
        at.update(deal=len(table.session.history), finished=deal.finished, to_act=sorted(deal.to_act()),
                  ready=sorted(table.ready), over=table.session.over)
        if not deal.finished:
            records.append(deal.to_record())
    return records, at


def last_seen(player: ChaosPlayer, end: float) -> JSON:
    """What a client last saw (for the report of a table that waited)."""
    client = player.client
    if client is None:
        return {}
    room, view = client.room or {}, client.view or {}
    arrived = client.received_at[-1] if client.received_at else None
    return {"replica": getattr(client, "replica", "?"), "version": room.get("version"),
            "phase": view.get("phase"), "to_act": view.get("to_act"), "my_turn": client.my_turn(),
            "closed": client.closed.is_set(),
            "silent_s": round(end - arrived, 1) if arrived is not None else None}


def state_changes(players: Sequence[ChaosPlayer]) -> list[float]:
    """The times (perf_counter) at which a table's clients first saw each new room version."""
    seen = sorted((at, int(message["room"]["version"]))
                  for player in players
                  for frames, arrivals in zip(player.frames, player.arrivals, strict=True)
                  for message, at in zip(frames, arrivals, strict=False)
                  if message.get("type") == "state")
    changes, top = [], -1
    for at, version in seen:
        if version > top:
            changes.append(at)
            top = version
    return changes


def longest_pause(changes: list[float], end: float) -> float:
    """The longest wait between two state changes, the last one to `end` included."""
    return longest_gap(changes, end)[0]


def longest_gap(changes: list[float], end: float) -> tuple[float, float]:
    """(the longest wait between two state changes, the last one to `end` included; when it began)."""
    times = [*changes, end]
    return max(((b - a, a) for a, b in itertools.pairwise(times)), default=(0.0, end))


def check_table(table: Table, records: list[JSON], end: float, began: float = 0.0) -> JSON:
    """The history check of one table (see the module docstring): its figures and its violations."""
    recorded = [(number, int(seat), action) for number, record in enumerate(records)
                for seat, action in record["actions"]]
    violations: list[str] = []
    counted = collections.Counter(recorded)
    accepted = collections.Counter(move for player in table.players for move in player.accepted)
    uncertain = collections.Counter(move for player in table.players for move in player.uncertain)
    lost = accepted - counted
    if lost:
        violations.append(f"{table.room_id}: moves answered ok missing from the records: {sorted(lost)[:5]}")
    for player in table.players:
        if player.seat is not None:
            mine = [move for move in recorded if move[1] == player.seat]
            if not lost and not is_subsequence(player.accepted, mine):
                violations.append(f"{table.room_id}: {player.name}'s moves out of order in the records")
    in_flight = 0
    if not table.bots_only:
        unacknowledged = counted - accepted
        explained = unacknowledged & uncertain
        in_flight = sum(explained.values())
        unexplained = unacknowledged - uncertain
        if unexplained:
            violations.append(f"{table.room_id}: recorded moves no client was answered or had in flight: "
                              f"{sorted(unexplained)[:5]}")
    for number, record in enumerate(records):
        cards = [action for _, action in record["actions"] if action.startswith("play ")]
        if len(cards) != len(set(cards)):
            violations.append(f"{table.room_id}: deal {number} records a card twice")
    keyed: dict[DealKey, JSON] = {(table.room_id, number): record for number, record in enumerate(records)}
    leaks: list[str] = []
    frames_checked = 0
    for player in table.players:
        checked, found = hidden_card_leaks((m for frames in player.frames for m in frames), keyed)
        frames_checked += checked
        leaks += found
    violations += leaks[:5]
    changes = state_changes(table.players)
    pause, since = longest_gap(changes, end)
    if pause > MAX_PAUSE:
        violations.append(f"{table.room_id}: waited {pause:.1f} s between two state changes (from "
                          f"{since - began:.1f} s)")
    finished = sum(1 for record in records if "seed" in record)
    return {"room_id": table.room_id, "moves": len(recorded), "acknowledged": sum(accepted.values()),
            "in_flight_recorded": in_flight, "uncertain": sum(uncertain.values()),
            "deals_finished": finished, "longest_pause_s": round(pause, 2),
            "longest_pause_from_s": round(since - began, 1), "frames_checked": frames_checked,
            "connections": {player.name: [[round(at - began, 1), where] for at, where in player.connections]
                            for player in table.players},
            "leaks": len(leaks), "reconnects": sum(p.reconnects for p in table.players),
            "errors": [e for p in table.players for e in p.errors][:5], "violations": violations}


# ------------------------------------------------------------------------------------------ the run


@dataclass
class Options:
    """What one run does."""

    minutes: float = 10.0
    tables: int = 30
    bot_tables: int = 3
    kill_every: float = 30.0
    cut_seconds: float = 10.0
    quiet_end: float = 30.0
    think: tuple[float, float] = (0.3, 1.5)
    seed: int = 25
    directory: Path | None = None
    cut: str = "net"  # "net": a network cut (bench/net_cut.py); "stop": SIGSTOP ... SIGCONT
    redis: str = "sentinel"  # or "cluster": a Redis Cluster (`python -m server.cluster --redis cluster`)
    log_level: str = "warning"  # the server replicas'


# How the run's Redis was started, and whose primary it kills (the report's words).
TOPOLOGY_FLAGS = {"sentinel": "--redis sentinel --redis-replicas 2", "cluster": "--redis cluster"}
KILLED_PRIMARY = {"sentinel": "the Redis primary the sentinels name",
                  "cluster": "the primary of one shard of the Redis Cluster (three primaries, one replica "
                             "each)"}


def progress(line: str) -> None:
    """A line on stderr, while the run goes."""
    print(line, file=sys.stderr, flush=True)


def _latency(values: list[float]) -> JSON:
    return {"n": len(values), "p50_ms": round(percentile(values, 50) * 1000, 1) if values else None,
            "p99_ms": round(percentile(values, 99) * 1000, 1) if values else None}


async def run(options: Options) -> JSON:
    """Start the cluster, play, break things, check the history; returns the figures and violations."""
    directory = options.directory or Path(f"/tmp/whist-chaos-{os.getpid()}")
    uptime = host_uptime()
    launched = launch(directory, log_level=options.log_level, redis=options.redis)
    try:
        return await _run(launched, options, uptime, directory)
    finally:
        await asyncio.to_thread(launched.stop)  # the relays must go on meanwhile: a thread
        if launched.net is not None:
            await launched.net.close()


async def _run(launched: Launched, options: Options, uptime: str, directory: Path) -> JSON:
    rng = random.Random(options.seed)
    cut_replica = rng.choice(sorted(launched.servers))
    if options.cut == "net":
        progress(f"{cut_replica} moves into a network namespace of its own (the one the cut will cut off)")
        await into_namespace(launched, cut_replica)
    else:
        launched.net_replica = cut_replica
    # Half the bots-only tables are created on the replica the cut will cut off (their owner until
    # then: others adopt them while it is away); half the human tables name their room (affinity).
    steer = await asyncio.to_thread(steering_url, launched, cut_replica)
    names = ruleset_names()
    tables: list[Table] = []
    for number in range(options.tables + options.bot_tables):
        bots_only = number >= options.tables
        tables.append(await open_table(
            launched.ws_url, number, names[number % len(names)], bots_only, options.seed * 1000 + number,
            options.think, affinity=not bots_only and number % 2 == 1,
            host_url=steer if bots_only and number % 2 == 0 else None))
    players = [player for table in tables for player in table.players]
    stopping = asyncio.Event()
    playing = [asyncio.create_task(player.run(stopping)) for player in players]
    seconds = options.minutes * 60
    began = time.perf_counter()
    chaos = Chaos(launched, [table.room_id for table in tables], rng, options.cut_seconds)
    schedule = fault_schedule(seconds, options.kill_every, options.quiet_end)
    faults = asyncio.create_task(chaos.run(schedule, began))
    # The run lasts `seconds`, or longer on a slow day: until every fault of the schedule is over (the
    # primary's rejoining too) and the tables played `AFTER_FAULTS` s more without one.
    while True:
        now = time.perf_counter()
        last = max((fault.recovered or now for fault in chaos.faults), default=began)
        done = faults.done() and all(task.done() for task in chaos.background)
        if now >= began + seconds and done and now >= last + AFTER_FAULTS:
            break
        if now > began + seconds + OVERTIME:
            chaos.problems.append(f"the faults were not over {OVERTIME:g} s after the end of the run")
            break
        await asyncio.sleep(min(10.0, max(0.5, began + seconds - now)))
        progress(f"{time.perf_counter() - began:.0f} s: {sum(len(p.accepted) for p in players)} moves ok, "
                 f"{sum(p.reconnects for p in players)} reconnections, faults "
                 f"{[(f.kind, f.target, f.recovered is not None) for f in chaos.faults]}")
    faults.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await faults
    for task in chaos.background:
        task.cancel()
    await asyncio.gather(*chaos.background, return_exceptions=True)
    end = time.perf_counter()
    stopping.set()
    at_end = {table.room_id: {player.name: last_seen(player, end) for player in table.players}
              for table in tables}
    _, late = await asyncio.wait(playing, timeout=30)
    for task in late:
        task.cancel()
    await asyncio.gather(*playing, return_exceptions=True)
    await asyncio.gather(*(player.close() for player in players))
    progress("the clients stopped; reading the records")
    checks = []
    for table in tables:
        records, stored = await wait_for(functools.partial(stored_records, launched.store, table.room_id), 60,
                                         f"records of {table.room_id}")
        check = check_table(table, records, end, began)
        check["stored"] = stored
        check["clients_at_end"] = at_end[table.room_id]
        checks.append(check)
    return report(options, tables, checks, chaos, began, end, uptime, directory)


def report(options: Options, tables: list[Table], checks: list[JSON], chaos: Chaos, began: float,
           end: float, uptime: str, directory: Path) -> JSON:
    """The run's figures (times from the start of play)."""
    latencies = [(sent, took) for table in tables for player in table.players
                 for sent, took in player.latencies]
    around = []
    for fault in chaos.faults:
        values = [took for sent, took in latencies if abs(sent - fault.started) <= FAULT_WINDOW]
        back = round(fault.recovered - fault.started, 1) if fault.recovered else None
        around.append({"kind": fault.kind, "target": fault.target, "at_s": round(fault.started - began, 1),
                       "recovered_after_s": back, **fault.notes, "latency": _latency(values)})
    pauses = [check["longest_pause_s"] for check in checks]
    human = [check for check, table in zip(checks, tables, strict=True) if not table.bots_only]
    return {
        "seconds": round(end - began, 1), "redis": options.redis, "tables": options.tables,
        "bot_tables": options.bot_tables,
        "think_s": list(options.think), "uptime_at_start": uptime, "logs": str(directory),
        "moves_recorded": sum(check["moves"] for check in checks),
        "moves_acknowledged": sum(check["acknowledged"] for check in checks),
        "in_flight_recorded": sum(check["in_flight_recorded"] for check in human),
        "uncertain_attempts": sum(check["uncertain"] for check in human),
        "deals_finished": sum(check["deals_finished"] for check in checks),
        "reconnects": sum(check["reconnects"] for check in checks),
        "frames_checked": sum(check["frames_checked"] for check in checks),
        "leaks": sum(check["leaks"] for check in checks),
        "server_kills": sum(1 for fault in chaos.faults if fault.kind == "server_kill"),
        "server_restarts": sum(1 for fault in chaos.faults
                               if fault.kind == "server_kill" and fault.recovered),
        "redis_primary_kills": sum(1 for fault in chaos.faults if fault.kind == "redis_primary_kill"),
        "cuts": sum(1 for fault in chaos.faults if fault.kind == "cut"),
        "cut_how": "network (bench/net_cut.py)" if options.cut == "net" else "SIGSTOP",
        "cut_seconds": options.cut_seconds,
        "longest_pause_s": max(pauses, default=0.0),
        "longest_pause_median_table_s": sorted(pauses)[len(pauses) // 2] if pauses else 0.0,
        "latency": _latency([took for _, took in latencies]),
        "faults": around,
        "fault_problems": chaos.problems,
        "violations": [v for check in checks for v in check["violations"]] + chaos.problems,
        "client_errors": [e for check in checks for e in check["errors"]][:10],
        "per_table": [{key: value for key, value in check.items() if key != "violations"}
                      for check in checks],
    }


def markdown(result: JSON, command: str) -> str:
    """The "Chaos" section of docs/scaling.md."""
    lines = [
        "## Chaos", "",
        f"`{command}` (bench/chaos.py; its short twin is `tests/bench/test_chaos.py`): "
        f"`python -m server.cluster {TOPOLOGY_FLAGS[result.get('redis', 'sentinel')]} --replicas 3` started "
        "through its "
        "`--describe` file, human-paced tables of four players through the balancer (each thinks "
        f"{result['think_s'][0]:g}-{result['think_s'][1]:g} s, reconnects through the balancer and resumes "
        "its seat after a drop, retries after `store_unavailable`) and bots-only tables watched by a "
        "spectator (half the human tables name their room, `/ws?room=<id>`; half the bots-only tables are "
        "created on the replica the cut will cut off); a random server replica SIGKILLed and started "
        "again with its described command line every kill interval, "
        f"{KILLED_PRIMARY[result.get('redis', 'sentinel')]} SIGKILLed once (started again: it rejoins as "
        "a replica), one server replica cut off from Redis "
        f"({result['cut_how']}) for {result['cut_seconds']:g} s. Then the history check over every frame "
        "every client received (bench/chaos.py's docstring).", "",
        f"Host at the start: `{result['uptime_at_start']}`.", "",
        "| figure | value |", "| --- | ---: |",
        f"| run | {result['seconds']:.0f} s |",
        f"| tables (human / bots only) | {result['tables']} / {result['bot_tables']} |",
        f"| moves recorded | {result['moves_recorded']:,} |",
        f"| moves answered `ok` | {result['moves_acknowledged']:,} |",
        f"| recorded moves in flight (no `ok`: connection lost or `store_unavailable`) | "
        f"{result['in_flight_recorded']} of {result['uncertain_attempts']} such attempts |",
        f"| deals finished | {result['deals_finished']} |",
        f"| server kills / restarts | {result['server_kills']} / {result['server_restarts']} |",
        f"| Redis primary kills | {result['redis_primary_kills']} |",
        f"| cuts from Redis ({result['cut_how']}, {result['cut_seconds']:g} s) | {result['cuts']} |",
        f"| reconnections | {result['reconnects']} |",
        f"| longest pause of a table (median table) | {result['longest_pause_s']:.1f} s "
        f"({result['longest_pause_median_table_s']:.1f} s) |",
        f"| action latency to `ok`, p50 / p99 | {result['latency']['p50_ms']} / "
        f"{result['latency']['p99_ms']} ms "
        f"({result['latency']['n']:,} moves) |",
        f"| frames checked for hidden cards / leaks | {result['frames_checked']:,} / {result['leaks']} |",
        f"| violations of the history check | {len(result['violations'])} |", "",
        f"Around each fault (its start ±{FAULT_WINDOW:g} s):", "",
        "| at | fault | target | back after | p50 | p99 | moves | notes |",
        "| ---: | --- | --- | ---: | ---: | ---: | ---: | --- |",
    ]
    for fault in result["faults"]:
        notes = ", ".join(f"{key} {value}" for key, value in fault.items()
                          if key not in ("kind", "target", "at_s", "recovered_after_s", "latency"))
        back = f"{fault['recovered_after_s']} s" if fault["recovered_after_s"] is not None else "-"
        lines.append(f"| {fault['at_s']} s | {fault['kind']} | {fault['target']} | {back} | "
                     f"{fault['latency']['p50_ms']} ms | {fault['latency']['p99_ms']} ms | "
                     f"{fault['latency']['n']} | {notes} |")
    if result["violations"]:
        lines += ["", "Violations:", ""] + [f"- {violation}" for violation in result["violations"][:20]]
    return "\n".join(lines) + "\n"


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench.chaos", description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, default=10.0)
    parser.add_argument("--tables", type=int, default=30, help="tables of four human-paced players")
    parser.add_argument("--bot-tables", type=int, default=3, help="bots-only tables, each with a spectator")
    parser.add_argument("--kill-every", type=float, default=30.0, help="seconds between server kills")
    parser.add_argument("--cut-seconds", type=float, default=10.0)
    parser.add_argument("--quiet-end", type=float, default=30.0, help="seconds without faults at the end")
    parser.add_argument("--think", type=float, nargs=2, default=(0.3, 1.5), metavar=("MIN", "MAX"))
    parser.add_argument("--seed", type=int, default=25)
    parser.add_argument("--log-level", default="warning", help="the server replicas' (default warning)")
    parser.add_argument("--cut", choices=("net", "stop"), default=None,
                        help="net: cut one replica's Redis traffic (a network namespace and relays; needs "
                             "root and `ip netns`); stop: SIGSTOP it instead (default: net where it works)")
    parser.add_argument("--redis", choices=("sentinel", "cluster"), default="sentinel",
                        help="sentinel: a primary, two replicas, three sentinels; cluster: a Redis Cluster "
                             "of three primaries with a replica each (one shard's primary is killed)")
    parser.add_argument("--dir", type=Path, default=None, help="the launcher's logs and description")
    parser.add_argument("--write", type=Path, default=None, metavar="PATH",
                        help="replace the `## Chaos` section of PATH (docs/scaling.md)")
    parser.add_argument("--json", type=Path, default=None, metavar="PATH", help="write the result as JSON")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    options = Options(minutes=args.minutes, tables=args.tables, bot_tables=args.bot_tables,
                      kill_every=args.kill_every, cut_seconds=args.cut_seconds, quiet_end=args.quiet_end,
                      think=(args.think[0], args.think[1]), seed=args.seed, directory=args.dir,
                      cut=args.cut or ("net" if net_cut.available() else "stop"), log_level=args.log_level,
                      redis=args.redis)
    result = asyncio.run(run(options))
    if args.json is not None:
        args.json.write_text(json.dumps(result, indent=1))
    command = "python -m bench.chaos " + " ".join(argv if argv is not None else sys.argv[1:])
    text = markdown(result, command.strip())
    print(text)
    if args.write is not None:
        write_section(args.write, text, "## Chaos")
    return 1 if result["violations"] else 0


if __name__ == "__main__":
    sys.exit(main())
