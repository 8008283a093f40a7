"""Leak proof: play many complete random deals on a live server and count hidden cards revealed.

Each table is a room of one ruleset (every ruleset in turn) with random house rules: two seated
clients that play random legal actions (seat 0 in JSON text frames, seat 2 in msgpack binary frames),
server-side bots on seats 1 and 3 (random or heuristic, drawn per room), and a spectator. Every frame
each client receives is kept and checked against the deal records of the room's live session
(`bench.leak_check`): a frame may name only the recipient's own hand, the turn-up, played cards
and exposed hands, until the deal has ended. The count of hidden cards revealed must be 0.

    python -m bench.leak_proof --deals 10000 --tables 8 --store redis --results leak.jsonl

Deals are counted when played to the end (thrown-in deals are checked too, and reported, but do not
count). Bot delay 0; everything on the loopback interface. `--store redis` runs the server as
`python -m server --store redis://...` does (the Redis store and the Redis coordination: owner leases,
fan-out, presence), each process under its own key prefix, deleted at the end; `--store memory` (the
default) the in-memory store alone. `--results FILE` appends one JSON line per finished room: a run
stopped (by hand, `--max-minutes`) is resumed by running the same command again, which adds up what the
file holds and plays only the deals still missing (in rooms not played yet).
"""

from __future__ import annotations

import argparse
import asyncio
import concurrent.futures
import itertools
import json
import os
import random
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import websockets.asyncio.client

from bench.leak_check import DealKey, hidden_card_leaks
from server.bots import get_bot
from server.client import ServerError, WhistClient
from server.coord import Coordination, new_process_id, redis_coordination
from server.rules import get_ruleset, ruleset_names
from server.server import WhistServer
from server.settings import Limits
from server.store import MemoryStore, Store
from server.store.redis import RedisStore
from server.table import facts

RULESETS = tuple(ruleset_names())  # every ruleset the server knows
BOTS = ("random", "heuristic")
STORE_RETRIES = 5  # a request answered `store_unavailable` is sent again, this many times in all
RANDOM = get_bot("random")


class Player:
    """The seated clients' choice: a random legal action, but `pass` half the time in the auction (as
    people do: otherwise almost every deal gets a contract and hardly any is thrown in)."""

    def decide(self, view: dict[str, Any], seed: str, budget_ms: float = 20.0) -> str:
        """An action for `view`."""
        legal = view["legal"]
        # The client's seed names the seat, the deal and the step, not the room: the hand makes it
        # differ from room to room.
        seed = f"{seed}:{view.get('hand')}"
        if "pass" in legal and random.Random(seed).random() < 0.5:
            return "pass"
        return str(RANDOM.decide(view, seed, budget_ms))


PLAYER = Player()


class Tally:
    """What the tables found, all together (and, with a results file, what earlier runs found)."""

    def __init__(self, target: int, stop_at: float = float("inf")) -> None:
        self.target = target
        self.stop_at = stop_at  # time.time() after which no new room starts (a bounded run)
        self.played = 0
        self.thrown_in = 0
        self.frames = 0
        self.checked = 0
        self.leaks: list[str] = []
        self.rooms = 0
        self.failures: list[str] = []  # rooms that could not finish (their frames are checked all the same)
        self.by_ruleset = dict.fromkeys(RULESETS, 0)
        self.done: set[int] = set()  # room numbers already played (in the results file)

    def add_room(self, line: dict[str, Any]) -> None:
        """Count one finished room (a line of the results file)."""
        self.played += line["played"]
        self.thrown_in += line["thrown_in"]
        self.frames += line["frames"]
        self.checked += line["checked"]
        self.leaks += line["leaks"]
        self.rooms += 1
        if line["failure"]:
            self.failures.append(line["failure"])
        self.by_ruleset[line["ruleset"]] = self.by_ruleset.get(line["ruleset"], 0) + line["played"]
        self.done.add(line["room"])

    def merge(self, other: Tally) -> None:
        """Add another process's findings."""
        self.played += other.played
        self.thrown_in += other.thrown_in
        self.frames += other.frames
        self.checked += other.checked
        self.leaks += other.leaks
        self.rooms += other.rooms
        self.failures += other.failures
        for name, count in other.by_ruleset.items():
            self.by_ruleset[name] = self.by_ruleset.get(name, 0) + count
        self.done |= other.done

    def enough(self) -> bool:
        """Whether the target of played deals is reached (or the time is up)."""
        return self.played >= self.target or time.time() >= self.stop_at


def read_results(path: Path | None) -> Tally:
    """What an earlier run (or earlier chunks) of the proof wrote to the results file."""
    tally = Tally(0)
    if path is None or not path.exists():
        return tally
    for text in path.read_text().splitlines():
        if text.strip():
            tally.add_room(json.loads(text))
    return tally


def append_result(path: Path | None, line: dict[str, Any]) -> None:
    """One finished room, as one JSON line (a single append: processes writing at once do not mix)."""
    if path is None:
        return
    data = (json.dumps(line, separators=(",", ":")) + "\n").encode()
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, data)
    finally:
        os.close(fd)


def random_house_rules(rng: random.Random, ruleset: str) -> dict[str, Any]:
    """A random valid choice for every house rule of the ruleset."""
    rules: dict[str, Any] = {}
    for rule in get_ruleset(ruleset).house_rules.values():
        if rule.choices:
            rules[rule.name] = rng.choice(rule.choices)
        elif isinstance(rule.default, bool):
            rules[rule.name] = rng.random() < 0.5
    return rules


class StalledError(Exception):
    """A room made no progress for too long: what it was waiting for."""


async def watchdog(server: WhistServer, room_id: str, clients: tuple[WhistClient, ...],
                   seconds: float) -> None:
    """Raise `StalledError` (with the room's state) if no client receives a frame for `seconds`; return
    once the session is over."""
    seen, since = -1, time.monotonic()
    while True:
        await asyncio.sleep(0.5)
        room = server.tables.rooms.get(room_id)
        if room is None or room.over:
            return
        frames = sum(len(client.received) for client in clients)
        if frames != seen:
            seen, since = frames, time.monotonic()
        elif time.monotonic() - since > seconds:
            session = room.session
            table = room.table
            bots = server.tables.scheduler
            last = [client.received[-1].get("type") if client.received else None for client in clients]
            shown = [client.room["version"] if client.room else None for client in clients]
            raise StalledError(
                f"no frame for {seconds:g} s: status {facts.status(table)}, seats "
                f"{[seat.kind for seat in table.seats]}, to act "
                f"{sorted(session.deal.to_act()) if session else None}, phase "
                f"{session.deal.phase if session else None}, ready {sorted(table.ready)}, "
                f"bot slots free {bots.free}, humans busy {bots.humans_busy}, bot work "
                f"{facts.bot_work(table, time.monotonic())}, bot loop running "
                f"{server.tables.bots.busy(room)}, lease held {server.tables.shared.owns(room)}, version "
                f"{table.version}; clients' last frames {last}, versions they were shown {shown}")


async def play_room(server: WhistServer, url: str, number: int, deals: int, tally: Tally,
                    stall_seconds: float, results: Path | None) -> None:
    """One room: a session of `deals` deals with two seated clients, two bots and a spectator."""
    rng = random.Random(number)
    ruleset = RULESETS[number % len(RULESETS)]
    host = await connect(url, "North", False)
    other = await connect(url, "South", True)
    watcher = await connect(url, "Watcher", rng.random() < 0.5)
    clients = (host, other, watcher)
    room_id = ""
    failure: str | None = None
    try:
        room_id = (await host.create_room(ruleset, seat=0, listed=False, session={"deals": deals},
                                          house_rules=random_house_rules(rng, ruleset),
                                          bot=rng.choice(BOTS)))["room_id"]
        await other.join(room_id, 2)
        await watcher.watch(room_id)
        await host.start()
        try:
            async with asyncio.TaskGroup() as group:  # one failing cancels the others
                group.create_task(host.play_until_session_over(PLAYER, 3600))
                group.create_task(other.play_until_session_over(PLAYER, 3600))
                group.create_task(watcher.wait_for(lambda c: c.room is not None and c.room["session_over"],
                                                   3600))
                group.create_task(watchdog(server, room_id, clients, stall_seconds))
        except Exception as problem:
            failure = f"room {number} {room_id} ({ruleset}): {problem!r}"
            print("  FAILED " + failure, flush=True)  # at once: a run stopped by hand keeps it
        session = server.tables.rooms[room_id].session
        assert session is not None
        records: dict[DealKey, dict[str, Any]] = {
            (room_id, index): entry["record"] for index, entry in enumerate(session.history)}
        if not session.deal.finished:  # a room that failed: its deal in progress is checked too
            records[room_id, len(session.history)] = session.deal.to_record()
        frames = checked = 0
        leaks: list[str] = []
        for client in clients:
            seen, found = hidden_card_leaks(client.received, records)
            frames += len(client.received)
            checked += seen
            leaks += found
        # A room that failed counts its finished deals too: their frames were checked like the others.
        thrown = sum(entry["result"]["status"] == "thrown_in" for entry in session.history)
        line = {"room": number, "room_id": room_id, "ruleset": ruleset,
                "played": len(session.history) - thrown, "thrown_in": thrown, "frames": frames,
                "checked": checked, "leaks": leaks[:50], "failure": failure}
        tally.add_room(line)
        append_result(results, line)
    finally:
        for client in clients:
            await client.close()
        room = server.tables.rooms.get(room_id)
        if room is not None:  # the room is over: let the server drop it from memory
            server.tables.registry.forget_if_idle(room)
        if isinstance(server.store, RedisStore) and room_id and failure is None:  # and from Redis
            # (the run can be long; a room that failed stays there, its bots may still move)
            keys = server.store.keys
            await server.store.redis.delete(keys.room(room_id), keys.room_log(room_id))
            await server.store.redis.srem(keys.rooms, room_id)


class PatientClient(WhistClient):
    """A client that waits long for its answers: on a starved machine (load average 20, `nice`) an answer
    can take more than the default 10 s. A request the server never answers still shows: its room gets
    no frame and the watchdog reports it."""

    async def request(self, kind: str, timeout: float = 600.0, **fields: Any) -> dict[str, Any]:
        """`WhistClient.request` with a long timeout, retried (as the error asks) after `store_unavailable`:
        Redis itself is starved at such loads."""
        for attempt in range(1, STORE_RETRIES + 1):
            try:
                return await super().request(kind, timeout, **fields)
            except ServerError as problem:
                if attempt > 1 and problem.code in ("not_your_turn", "illegal_action", "deal_in_progress"):
                    # The write that timed out had reached Redis after all (the error says "nothing was
                    # applied", which is then not so): the retry finds it done.
                    return {}
                if problem.code != "store_unavailable" or attempt == STORE_RETRIES:
                    raise
                await asyncio.sleep(1.0)
        raise AssertionError("unreachable")


async def connect(url: str, name: str, binary: bool) -> WhistClient:
    """A client without keepalive pings: on a starved machine (nice, other work) a late pong must not
    close a connection in the middle of the proof."""
    websocket = await websockets.asyncio.client.connect(url, max_size=8 * 1024 * 1024, ping_interval=None,
                                                        open_timeout=600)
    client = PatientClient(websocket, binary)
    await client.request("hello", name=name)
    return client


async def table(server: WhistServer, url: str, numbers: Iterator[int], deals: int, tally: Tally,
                stall_seconds: float, results: Path | None) -> None:
    """Rooms one after another (each taking the next room number of the process) until the target is
    reached."""
    while not tally.enough():
        await play_room(server, url, next(numbers), deals, tally, stall_seconds, results)
        if tally.rooms % 20 == 0:
            print(f"  {tally.played} deals played, {len(tally.leaks)} hidden cards revealed, "
                  f"{len(tally.failures)} rooms failed", flush=True)


def open_server_store(store: str) -> tuple[Store, Coordination | None]:
    """The store and coordination of one process: `memory`, or a Redis URL (a fresh key prefix)."""
    if store == "memory":
        return MemoryStore(), None
    prefix = f"leakproof:{uuid.uuid4().hex[:12]}:"
    return RedisStore(store, prefix=prefix), redis_coordination(store, new_process_id("leak"), prefix=prefix)


async def run(options: Options, part: int, target: int, done: set[int]) -> Tally:
    """Start a server, play `target` deals on `options.tables` tables (room numbers of part `part`,
    skipping those in `done`), stop."""
    tally = Tally(target, options.stop_at)
    with tempfile.TemporaryDirectory() as static:
        limits = Limits(rate=100_000.0, burst=100_000.0, connections_per_address=0,
                        rooms_per_address_per_hour=0, idle_seconds=None, ping_interval=None)
        store, coordination = open_server_store(options.store)
        server = WhistServer(store, bot_delay=0.0, static_dir=Path(static), limits=limits,
                             coordination=coordination)
        host, port = await server.start("127.0.0.1", 0)
        url = f"ws://{host}:{port}/ws"
        # Room numbers seed each room's choices (its ruleset, house rules, bots): every part numbers its
        # rooms apart, and a resumed run skips the rooms already played.
        numbers = (number for number in itertools.count(part * 1_000_000) if number not in done)
        try:
            await asyncio.gather(*(table(server, url, numbers, options.deals_per_room, tally,
                                         options.stall_seconds, options.results)
                                   for _ in range(options.tables)))
        finally:
            await server.stop()
            if isinstance(store, RedisStore):
                cleaner = RedisStore(options.store, prefix=store.keys.prefix)
                await cleaner.delete_everything()
                await cleaner.close()
    return tally


class Options:
    """What every process of one run needs (picklable)."""

    def __init__(self, args: argparse.Namespace, stop_at: float) -> None:
        self.tables: int = args.tables
        self.deals_per_room: int = args.deals_per_room
        self.stall_seconds: float = args.stall_seconds
        self.results: Path | None = args.results
        self.store: str = args.store
        self.stop_at = stop_at


def run_part(options: Options, part: int, target: int, done: set[int]) -> Tally:
    """One process's share."""
    return asyncio.run(run(options, part, target, done))


def main(argv: list[str] | None = None) -> int:
    """Run the proof; exit status 1 if any hidden card was revealed."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deals", type=int, default=10_000, help="deals played to the end (default 10000)")
    parser.add_argument("--tables", type=int, default=8, help="rooms playing at once (default 8)")
    parser.add_argument("--deals-per-room", type=int, default=25, help="session length (default 25)")
    parser.add_argument("--processes", type=int, default=1,
                        help="split the deals over this many processes, each with its own server (default 1)")
    parser.add_argument("--max-minutes", type=float, default=None,
                        help="start no new room after this many minutes (the report says how far it got)")
    parser.add_argument("--store", default="memory",
                        help="memory (default), or a Redis URL such as redis://127.0.0.1:6379/0 (the Redis "
                             "store and coordination, under a fresh key prefix per process)")
    parser.add_argument("--results", type=Path, default=None,
                        help="append one JSON line per finished room here; run again to resume")
    parser.add_argument("--stall-seconds", type=float, default=120.0,
                        help="a room with no frame to any of its clients for this long fails (default 120)")
    args = parser.parse_args(argv)
    if args.store == "redis":
        args.store = "redis://127.0.0.1:6379/0"
    started = time.monotonic()
    stop_at = time.time() + 60 * args.max_minutes if args.max_minutes else float("inf")
    earlier = read_results(args.results)
    missing = max(0, args.deals - earlier.played)
    if earlier.rooms:
        print(f"resuming: {earlier.played} deals in {earlier.rooms} rooms in {args.results}; "
              f"{missing} to play", flush=True)
    options = Options(args, stop_at)
    share = -(-missing // args.processes)
    tally = Tally(args.deals, stop_at)
    tally.merge(earlier)
    if missing == 0:
        pass
    elif args.processes == 1:
        tally.merge(run_part(options, 0, share, earlier.done))
    else:
        with concurrent.futures.ProcessPoolExecutor(args.processes) as pool:
            count = args.processes
            for part in pool.map(run_part, [options] * count, range(count), [share] * count,
                                 [earlier.done] * count):
                tally.merge(part)
    seconds = time.monotonic() - started
    per_ruleset = ", ".join(f"{name} {count}" for name, count in tally.by_ruleset.items())
    print(f"store: {args.store}")
    print(f"deals played to the end: {tally.played} ({per_ruleset}); thrown in: {tally.thrown_in}; "
          f"rooms: {tally.rooms}")
    print(f"frames received: {tally.frames}; frames checked before their deal's end: {tally.checked}")
    print(f"hidden cards revealed: {len(tally.leaks)}")
    print(f"rooms that could not finish: {len(tally.failures)}")
    for failure in tally.failures[:20]:
        print("  " + failure)
    print(f"wall time of this run: {seconds:.0f} s")
    for leak in tally.leaks[:20]:
        print("  " + leak)
    return 1 if tally.leaks else 0


if __name__ == "__main__":
    sys.exit(main())
