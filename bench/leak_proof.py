"""Leak proof: play many complete random deals on a live server and count hidden cards revealed.

Each table is a room of one ruleset (they take turns: solo-whist, couleur, belge-club) with random house
rules: two seated clients that play random legal actions (seat 0 in JSON text frames, seat 2 in msgpack
binary frames), server-side bots on seats 1 and 3 (random and heuristic bots take turns), and a
spectator. Every frame each client receives is kept and checked against the deal records of the room's
live session (tests/server/leak_check.py): a frame may name only the recipient's own hand, the turn-up,
played cards and exposed hands, until the deal has ended. The count of hidden cards revealed must be 0.

    .venv/bin/python bench/leak_proof.py --deals 10000 --tables 8

Deals are counted when played to the end (thrown-in deals are checked too, and reported, but do not
count). Bot delay 0; the in-memory store; everything on the loopback interface.
"""

from __future__ import annotations

import argparse
import asyncio
import concurrent.futures
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import websockets.asyncio.client

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "server"))

from leak_check import DealKey, hidden_card_leaks  # noqa: E402

from server.app import WhistServer  # noqa: E402
from server.bots import get_bot  # noqa: E402
from server.client import WhistClient  # noqa: E402
from server.limits import Limits  # noqa: E402
from server.rules import get_ruleset  # noqa: E402
from server.store import MemoryStore  # noqa: E402
from server.table import facts  # noqa: E402

RULESETS = ("solo-whist", "couleur", "belge-club")
BOTS = ("random", "heuristic")
RANDOM = get_bot("random")


class Player:
    """The seated clients' choice: a random legal action, but `pass` half the time in the auction (as
    people do: otherwise almost every deal gets a contract and hardly any is thrown in)."""

    def decide(self, view: dict[str, Any], seed: str, budget_ms: float = 20.0) -> str:
        """An action for `view`."""
        legal = view["legal"]
        if "pass" in legal and random.Random(seed).random() < 0.5:
            return "pass"
        return str(RANDOM.decide(view, seed, budget_ms))


PLAYER = Player()


class Tally:
    """What the tables found, all together."""

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
            self.by_ruleset[name] += count

    def enough(self) -> bool:
        """Whether the target of played deals is reached (or the time is up)."""
        return self.played >= self.target or time.time() >= self.stop_at


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
            raise StalledError(
                f"no frame for {seconds:g} s: status {facts.status(table)}, seats "
                f"{[seat.kind for seat in table.seats]}, to act "
                f"{sorted(session.deal.to_act()) if session else None}, phase "
                f"{session.deal.phase if session else None}, ready {sorted(table.ready)}, "
                f"bot slots free {bots.free}, humans busy {bots.humans_busy}; "
                f"clients' last frames {last}")


async def play_room(server: WhistServer, url: str, number: int, deals: int, tally: Tally,
                    stall_seconds: float = 120.0) -> None:
    """One room: a session of `deals` deals with two seated clients, two bots and a spectator."""
    rng = random.Random(number)
    ruleset = RULESETS[number % len(RULESETS)]
    host = await connect(url, "North", False)
    other = await connect(url, "South", True)
    watcher = await connect(url, "Watcher", number % 2 == 0)
    clients = (host, other, watcher)
    room_id = ""
    try:
        room_id = (await host.create_room(ruleset, seat=0, listed=False, session={"deals": deals},
                                          house_rules=random_house_rules(rng, ruleset),
                                          bot=BOTS[number % len(BOTS)]))["room_id"]
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
        except Exception as failure:
            tally.failures.append(f"room {number} ({ruleset}): {failure!r}")
        session = server.tables.rooms[room_id].session
        assert session is not None
        records: dict[DealKey, dict[str, Any]] = {
            (room_id, index): entry["record"] for index, entry in enumerate(session.history)}
        if not session.deal.finished:  # a room that failed: its deal in progress is checked too
            records[room_id, len(session.history)] = session.deal.to_record()
        for client in clients:
            checked, leaks = hidden_card_leaks(client.received, records)
            tally.frames += len(client.received)
            tally.checked += checked
            tally.leaks.extend(leaks)
        # A room that failed counts its finished deals too: their frames were checked like the others.
        thrown = sum(entry["result"]["status"] == "thrown_in" for entry in session.history)
        tally.thrown_in += thrown
        tally.played += len(session.history) - thrown
        tally.by_ruleset[ruleset] += len(session.history) - thrown
        tally.rooms += 1
    finally:
        for client in clients:
            await client.close()
        room = server.tables.rooms.get(room_id)
        if room is not None:  # the room is over: let the server drop it from memory
            server.tables.registry.forget_if_idle(room)


async def connect(url: str, name: str, binary: bool) -> WhistClient:
    """A client without keepalive pings: on a starved machine (nice, other work) a late pong must not
    close a connection in the middle of the proof."""
    websocket = await websockets.asyncio.client.connect(url, max_size=8 * 1024 * 1024, ping_interval=None)
    client = WhistClient(websocket, binary)
    await client.request("hello", name=name)
    return client


async def table(server: WhistServer, url: str, first: int, step: int, deals: int, tally: Tally) -> None:
    """Rooms one after another until the target is reached."""
    number = first
    while not tally.enough():
        await play_room(server, url, number, deals, tally)
        number += step
        if tally.rooms % 20 == 0:
            print(f"  {tally.played} deals played, {len(tally.leaks)} hidden cards revealed, "
                  f"{len(tally.failures)} rooms failed", flush=True)


async def run(deals: int, tables: int, deals_per_room: int, part: int, stop_at: float) -> Tally:
    """Start a server, play `deals` deals on `tables` tables (room numbers of part `part`), stop."""
    tally = Tally(deals, stop_at)
    with tempfile.TemporaryDirectory() as static:
        limits = Limits(rate=100_000.0, burst=100_000.0, connections_per_address=0,
                        rooms_per_address_per_hour=0, idle_seconds=None, ping_interval=None)
        server = WhistServer(MemoryStore(), bot_delay=0.0, static_dir=Path(static), limits=limits)
        host, port = await server.start("127.0.0.1", 0)
        url = f"ws://{host}:{port}/ws"
        try:
            # Room numbers seed each room's choices: every part numbers its rooms apart.
            await asyncio.gather(*(table(server, url, part * 1_000_000 + first, tables, deals_per_room, tally)
                                   for first in range(tables)))
        finally:
            await server.stop()
    return tally


def run_part(deals: int, tables: int, deals_per_room: int, part: int, stop_at: float) -> Tally:
    """One process's share."""
    return asyncio.run(run(deals, tables, deals_per_room, part, stop_at))


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
    args = parser.parse_args(argv)
    started = time.monotonic()
    stop_at = time.time() + 60 * args.max_minutes if args.max_minutes else float("inf")
    share = -(-args.deals // args.processes)
    if args.processes == 1:
        tally = run_part(share, args.tables, args.deals_per_room, 0, stop_at)
    else:
        with concurrent.futures.ProcessPoolExecutor(args.processes) as pool:
            count = args.processes
            parts = list(pool.map(run_part, [share] * count, [args.tables] * count,
                                  [args.deals_per_room] * count, range(count), [stop_at] * count))
        tally = Tally(args.deals, stop_at)
        for part in parts:
            tally.merge(part)
    seconds = time.monotonic() - started
    per_ruleset = ", ".join(f"{name} {count}" for name, count in tally.by_ruleset.items())
    print(f"deals played to the end: {tally.played} ({per_ruleset}); thrown in: {tally.thrown_in}; "
          f"rooms: {tally.rooms}")
    print(f"frames received: {tally.frames}; frames checked before their deal's end: {tally.checked}")
    print(f"hidden cards revealed: {len(tally.leaks)}")
    print(f"rooms that could not finish: {len(tally.failures)}")
    for failure in tally.failures[:20]:
        print("  " + failure)
    print(f"wall time: {seconds:.0f} s")
    for leak in tally.leaks[:20]:
        print("  " + leak)
    return 1 if tally.leaks else 0


if __name__ == "__main__":
    sys.exit(main())
